/* zl_port.h - the Cortex-M3 (QEMU mps2-an385) port: SysTick clock,
 * semihosting output, and datagrams over the in-image loopback network
 * (ports/common/zl_port_loopnet.h). */
#ifndef ZL_PORT_H
#define ZL_PORT_H

#include "zl_port_loopnet.h"

ZL_BEGIN_DECLS

/* Board support, called by startup.c. */
void zl_port_clock_start(void);
void zl_port_systick_handler(void);
/* Writes bytes to the host console through semihosting. */
void zl_port_write_output(const char *s, size_t n);
/* SysTick counts since zl_port_clock_start (25 MHz: 40 ns each). */
uint64_t zl_port_systick_count(void);

/* The port's high-resolution timer, for benchmarks and the demo's tick
 * cost (ports/<name>/zl_timer_<name>.c). On hosts: monotonic nanoseconds; on
 * an emulated Cortex-M under -icount shift=0: instructions retired (1 per
 * virtual ns). */
uint64_t zl_port_timer_now(void);
/* "ns" or "instr": the unit of zl_port_timer_now. */
const char *zl_port_timer_unit(void);
/* 1 when the timer is exact and repeatable (emulated instruction count):
 * then one batch is enough and no spread is reported. */
int zl_port_timer_exact(void);

ZL_END_DECLS

#endif
