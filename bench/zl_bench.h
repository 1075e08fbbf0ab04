/* zl_bench.h - the benchmark harness: times repeated batches of an operation
 * with the port's timer and prints a table row plus a CSV line per result. */
#ifndef ZL_BENCH_H
#define ZL_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* A benchmark body performs `iterations` operations and folds their results
 * into zl_bench_sink so the compiler cannot delete the work. */
typedef void (*zl_bench_body)(void *ctx, uint32_t iterations);

/* Where results go to stay alive. */
extern volatile uint32_t zl_bench_sink;

/* Measures body and prints one row: group, name, and the cost of one
 * operation (median and spread in ns on hosts; exact instructions on an
 * emulated Cortex-M). Returns the median cost per operation in the timer's
 * unit (for growth factors between sizes). setup, when not NULL, runs before
 * every batch outside the timed region (to reset state the body consumes). */
uint64_t zl_bench_measure(const char *group, const char *name, zl_bench_body body,
                          void (*setup)(void *ctx), void *ctx);

/* Prints a line "growth per doubling" for a size series: costs[i] measured at
 * sizes[i]; each size is twice the previous. */
void zl_bench_growth(const char *group, const uint32_t *sizes, const uint64_t *costs,
                     size_t count);

/* Prints a memory row: the static size of a struct in bytes. */
void zl_bench_memory(const char *name, size_t bytes);

/* printf-like output through the port (no heap); see tests/zl_test.h. */
void zl_bench_print(const char *fmt, ...);

/* The port's timer. On hosts: monotonic nanoseconds. On an emulated Cortex-M
 * under -icount shift=0: instructions retired (1 per virtual ns). */
uint64_t zl_bench_timer_now(void);
/* "ns" or "instr": the unit of zl_bench_timer_now. */
const char *zl_bench_timer_unit(void);
/* 1 when the timer is exact and repeatable (emulated instruction count):
 * then one batch is enough and no spread is reported. */
int zl_bench_timer_exact(void);

#endif
