/* startup.c - reset and fault handlers, the vector table, and the no-heap
 * rule for bare metal: any attempt to grow the heap ends the run loudly. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zl_port.h"

extern uint32_t zl_stack_top, zl_data_start, zl_data_end, zl_data_load, zl_bss_start,
    zl_bss_end, zl_ram_bss_start, zl_ram_bss_end;
int main(int argc, char **argv);
void initialise_monitor_handles(void);
void __libc_init_array(void);
void zl_reset_handler(void);
void *__wrap__sbrk(ptrdiff_t increment);
void _init(void);
void _fini(void);

/* newlib's init/fini walkers call these; with our own startup they are empty. */
void _init(void) {}
void _fini(void) {}

static void write_text(const char *s) { zl_port_write_output(s, strlen(s)); }

static void fault_handler(void)
{
    write_text("cortex-m3: fault or unexpected interrupt\n");
    exit(2);
}

/* The link wraps _sbrk (-Wl,--wrap=_sbrk): zerolag owns no heap, so a call
 * here means something allocated. It fails the run instead of succeeding. */
void *__wrap__sbrk(ptrdiff_t increment)
{
    (void)increment;
    write_text("cortex-m3: heap allocation attempted (_sbrk); zerolag must not allocate\n");
    exit(3);
}

void zl_reset_handler(void)
{
    uint32_t *src = &zl_data_load, *dst = &zl_data_start;
    while (dst < &zl_data_end)
        *dst++ = *src++;
    for (dst = &zl_bss_start; dst < &zl_bss_end; dst++)
        *dst = 0;
    for (dst = &zl_ram_bss_start; dst < &zl_ram_bss_end; dst++)
        *dst = 0;
    initialise_monitor_handles();
    __libc_init_array();
    zl_port_clock_start();
    exit(main(0, NULL));
}

/* Initial stack pointer, then the 15 system exception handlers. */
typedef struct vector_table {
    uint32_t *stack_top;
    void (*handler[15])(void);
} vector_table;

__attribute__((section(".vectors"), used)) static const vector_table vectors = {
    &zl_stack_top,
    {
        zl_reset_handler, /* reset */
        fault_handler,    /* NMI */
        fault_handler,    /* hard fault */
        fault_handler,    /* memory management */
        fault_handler,    /* bus fault */
        fault_handler,    /* usage fault */
        0, 0, 0, 0,       /* reserved */
        fault_handler,    /* SVCall */
        fault_handler,    /* debug monitor */
        0,                /* reserved */
        fault_handler,    /* PendSV */
        zl_port_systick_handler,
    },
};
