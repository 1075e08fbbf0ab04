/* zl_bench.h - the benchmark harness: times repeated batches of an operation
 * with the port's timer and prints a table row plus a CSV line per result. */
#ifndef ZL_BENCH_H
#define ZL_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "zl_port.h"

/* A benchmark body performs `iterations` operations and folds their results
 * into zl_bench_sink so the compiler cannot delete the work. */
typedef void (*zl_bench_body)(void *ctx, uint32_t iterations);

/* A body that times itself: it performs `iterations` operations and returns
 * the timer units (zl_port_timer_now) spent on the part that counts. Work
 * that only feeds the operation, such as clients building the packets a
 * server tick takes, stays outside. */
typedef uint64_t (*zl_bench_timed_body)(void *ctx, uint32_t iterations);

/* Where results go to stay alive. */
extern volatile uint32_t zl_bench_sink;

/* Measures body and prints one row: group, name, and the cost of one
 * operation (median and spread in ns on hosts; exact instructions on an
 * emulated Cortex-M). Returns the median cost per operation in thousandths
 * of the timer's unit (for growth factors and ratios). setup, when not
 * NULL, runs before every batch outside the timed region (to reset state
 * the body consumes). */
uint64_t zl_bench_measure(const char *group, const char *name, zl_bench_body body,
                          void (*setup)(void *ctx), void *ctx);

/* zl_bench_measure for a body that times itself. */
uint64_t zl_bench_measure_timed(const char *group, const char *name, zl_bench_timed_body body,
                                void (*setup)(void *ctx), void *ctx);

/* Prints a row computed from measured ones (e.g. the mean of two
 * medians): `milli` in thousandths of the timer's unit, no spread, and
 * mirrors it as a CSV line. */
void zl_bench_derived(const char *group, const char *name, uint64_t milli);

/* Prints the growth of a size series: the factor from each size to the
 * next (costs[i] measured at sizes[i]), so a reader sees at once what is
 * linear and what is quadratic. */
void zl_bench_growth(const char *group, const uint32_t *sizes, const uint64_t *costs,
                     size_t count);

/* Prints a row with the ratio num / den to two decimals (e.g. a speed-up)
 * and mirrors it as a CSV line with the unit "ratio". */
void zl_bench_ratio(const char *group, const char *name, uint64_t num, uint64_t den);

/* Bytes of the arena (zl_bench_arena). It must hold the largest group's
 * state, the 256-player server; groups check theirs at compile time. */
#ifndef ZL_BENCH_ARENA_BYTES
#define ZL_BENCH_ARENA_BYTES (14u << 20)
#endif

/* Room for a group's large state. Groups run one at a time, so the big
 * ones share this one static block instead of each holding its own (the
 * Cortex-M3's 16 MiB would not hold them all side by side). Returns the
 * block zeroed, aligned for any type the groups use, valid until the next
 * call. bytes above ZL_BENCH_ARENA_BYTES is a programmer error. */
void *zl_bench_arena(size_t bytes);

/* 1 when the port runs the benchmarks under a user-mode emulator (qemu-user;
 * BENCH_EMULATED in its port.mk): the times are the emulator's on the build
 * machine, not the target CPU's, so no time is scored against a target (a
 * ratio of two such times still is). An
 * exact instruction count under a system emulator is not this case. */
#ifndef ZL_BENCH_EMULATED
#define ZL_BENCH_EMULATED 0
#endif

/* Prints whether a target is met: `milli`, a median as zl_bench_measure
 * returns it, against `limit` in the timer's unit; `what` names it. Under
 * ZL_BENCH_EMULATED it prints the target as not scored. */
void zl_bench_target(const char *group, const char *what, uint64_t milli, uint64_t limit);

/* Prints a memory row: the static size of a struct in bytes. */
void zl_bench_memory(const char *name, size_t bytes);

/* Prints a note under a group's rows: the group, then the text formatted as
 * zl_print does (tests/zl_print.h), then a newline. */
void zl_bench_note(const char *group, const char *fmt, ...);

#endif
