/* fp_board_m3.c - the footprint programs on the Cortex-M3: the SLIP transport
 * over UART0, semihosting output, and stack measurement by painting. */
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
