/* fp_board_m3.c - the footprint programs on the Cortex-M3: the SLIP transport
 * over UART0, semihosting output, and stack measurement by painting. */
#include <stdlib.h>
#include <unistd.h>

#include "fp.h"
#include "zl_port.h"
#include "zl_uart.h"

#define BAUD 115200u
/* How far below the caller the stack is painted and watched. */
#define STACK_PROBE_WORDS 4096u
#define STACK_PAINT 0xA5A5A5A5u

static zl_port_uart uart;
static uintptr_t paint_top;

int fp_board_open(zl_platform *net, zl_addr *peer)
{
    int r = zl_addr_parse(peer, FP_SERVER_ADDR);
    if (r == ZL_OK)
        r = zl_port_uart_open(&uart, peer, BAUD, net);
    if (r != ZL_OK)
        fp_say("UART0 would not open\n");
    return r;
}

void fp_board_close(void) { zl_port_uart_flush(&uart); }

void fp_board_report(void)
{
    zl_port_uart_stats st;
    zl_port_uart_get_stats(&uart, &st);
    fp_say_u32("uart: frames received", st.rx.frames);
    fp_say_u32("uart: frames dropped (oversize, garbled)", st.rx.oversize + st.rx.garbled);
    fp_say_u32("uart: datagrams sent", st.sent);
    fp_say_u32("uart: sends refused while busy", st.busy);
    fp_say_u32("uart: receive overruns", st.rx_overruns);
}

void fp_board_write(const char *text, size_t len) { zl_port_write_output(text, len); }

/* ---- A C runtime of three semihosting calls ----
 * The port reaches the host through newlib: write() and exit(), and
 * rdimon's monitor handles at startup. They bring newlib's reentrancy
 * structure, malloc's arena (free() is reachable from it) and rdimon's
 * file table: 2.3 KB of RAM a client never uses. The footprint programs
 * define the three themselves, each one ARM semihosting call (the linker
 * takes an object's definition before an archive's), so the table counts
 * zerolag and the program, not that. */
#define SYS_WRITEC 0x03u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static uint32_t semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void initialise_monitor_handles(void);
void initialise_monitor_handles(void) {}

/* Every byte to the host's console, whatever fd (the programs write only
 * their report). */
ssize_t write(int fd, const void *data, size_t len)
{
    const char *p = (const char *)data;
    size_t i;
    (void)fd;
    for (i = 0; i < len; i++)
        semihost(SYS_WRITEC, p + i);
    return (ssize_t)len;
}

void exit(int status)
{
    uint32_t block[2];
    block[0] = ADP_STOPPED_APPLICATION_EXIT;
    block[1] = (uint32_t)status;
    semihost(SYS_EXIT_EXTENDED, block);
    for (;;)
        continue;
}

static uintptr_t stack_pointer(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/* The calls the caller makes next start where this function's frame is:
 * everything below it that they write shows as a changed word. */
void fp_board_stack_paint(void)
{
    volatile uint32_t *p;
    paint_top = stack_pointer() & ~(uintptr_t)3u;
    for (p = (volatile uint32_t *)paint_top - STACK_PROBE_WORDS;
         p < (volatile uint32_t *)paint_top; p++)
        *p = STACK_PAINT;
}

uint32_t fp_board_stack_used(void)
{
    const volatile uint32_t *p = (const volatile uint32_t *)paint_top - STACK_PROBE_WORDS;
    while (p < (const volatile uint32_t *)paint_top && *p == STACK_PAINT)
        p++;
    return (uint32_t)(paint_top - (uintptr_t)p);
}
