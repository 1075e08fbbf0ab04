/* zl_port.h - the WebAssembly port (emscripten; node or a browser): the
 * monotonic clock, the host's CSPRNG, and the in-module loop network. */
#ifndef ZL_PORT_H
#define ZL_PORT_H

#include "zl_port_loopnet.h"

ZL_BEGIN_DECLS

/* A module has no UDP socket (a page may open none), so every zl_port is an
 * endpoint of the module's loop network (ports/common/zl_port_loopnet.h):
 * a server and its clients run in one module. */

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
