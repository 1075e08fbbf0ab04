/* demo_host.h - what the demo programs need from the operating system beyond
 * the HAL and the port's timer: sleeping, Ctrl-C, and a raw keyboard. */
#ifndef DEMO_HOST_H
#define DEMO_HOST_H

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

#endif
