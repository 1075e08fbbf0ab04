/* zl_timer_cortex_m3.c - the benchmark timer on the emulated Cortex-M3.
 * Under qemu -icount shift=0 one instruction is 1 ns of virtual time and the
 * 25 MHz SysTick counts every 40 instructions: exact, repeatable counts. */
#include "zl_port.h"
#include "zl_port.h"

#define INSTRUCTIONS_PER_SYSTICK 40u

uint64_t zl_port_timer_now(void) { return zl_port_systick_count() * INSTRUCTIONS_PER_SYSTICK; }

const char *zl_port_timer_unit(void) { return "instr"; }

int zl_port_timer_exact(void) { return 1; }
