/* zl_print.h - printf-like output for tests and benchmarks on every port,
 * bare metal included (no heap, no stdio there). */
#ifndef ZL_PRINT_H
#define ZL_PRINT_H

#include <stdarg.h>
#include <stddef.h>

/* Formats one piece of output (at most 256 bytes; longer is cut) and writes
 * it at once. Conversions: %s %c %d %i %u %x with l, ll or z, a width, the
 * '-' and '0' flags, %f and %.Nf (up to 9 decimals), %%. Output goes to
 * stdout, or to zl_port_write_output() when built with ZL_PRINT_PORT_OUTPUT. */
void zl_print(const char *fmt, ...);
void zl_vprint(const char *fmt, va_list ap);

#endif
