/* demo_host.h - what the demo programs need from the operating system beyond
 * the HAL and the port's timer: sleeping, Ctrl-C, and a raw keyboard. */
#ifndef DEMO_HOST_H
#define DEMO_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Sleeps about us microseconds (0 yields the processor). */
void demo_host_sleep_us(uint32_t us);

/* The wall clock: milliseconds since 1970 (UTC). The broadcast's index
 * carries it, so spectators place the server's ticks on their own clock. */
uint64_t demo_host_unix_ms(void);

/* Makes Ctrl-C (and a polite kill) set a flag instead of ending the
 * program, so it can disconnect cleanly. Call once at start. */
void demo_host_catch_interrupt(void);
/* 1 once Ctrl-C was pressed. */
int demo_host_interrupted(void);

/* 1 when standard input and output are a terminal. */
int demo_host_is_terminal(void);

/* Puts the terminal in raw mode (keys arrive one by one, unechoed) and
 * turns on ANSI escape codes where they are not on by default. Returns 0,
 * or -1 when there is no terminal. demo_host_keyboard_restore undoes it;
 * it is safe to call when raw mode was never entered. */
int demo_host_keyboard_raw(void);
void demo_host_keyboard_restore(void);

/* The next key pressed, or -1 when none is waiting. Arrow keys come back
 * as DEMO_KEY_* codes. Never blocks. */
enum { DEMO_KEY_UP = 0x100, DEMO_KEY_DOWN, DEMO_KEY_LEFT, DEMO_KEY_RIGHT };
int demo_host_key(void);

/* Non-blocking TCP over IPv4, for the fleet's HTTP (a sidecar on the
 * loopback, a metrics scraper): a handle is a non-negative int, -1 none.
 * No call ever waits. */
/* Listens on ipv4 (dotted text) port: a handle, or -1. */
int demo_host_tcp_listen(const char *ipv4, uint16_t port);
/* A connection waiting on the listener, or -1 when none. */
int demo_host_tcp_accept(int listener);
/* Starts connecting to 127.0.0.1:port: a handle (the connection completes
 * in the background), or -1 (refused at once, no socket). */
int demo_host_tcp_connect(uint16_t port);
/* Sends what the kernel takes of buf[0..len): bytes taken, 0 when none
 * can go now (still connecting, buffer full), -1 when the connection
 * failed or was closed. */
int demo_host_tcp_send(int s, const void *buf, size_t len);
/* Bytes read into buf (at most cap), 0 when none are waiting, -1 when
 * the peer closed (the end of its data), -2 on an error. */
int demo_host_tcp_recv(int s, void *buf, size_t cap);
void demo_host_tcp_close(int s);

#endif
