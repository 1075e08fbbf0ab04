/* zl_test.h - the in-house test harness: no dependency, runs on every port
 * (bare metal included, through semihosting), ends with "N passed, N failed". */
#ifndef ZL_TEST_H
#define ZL_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "zl_bits.h"
#include "zl_platform.h"

/* A test is a void function; it passes when none of its checks fail. */
typedef void (*zl_test_fn)(void);

/* Runs one test, counting it as passed or failed. Use ZL_RUN. */
void zl_test_run(const char *name, zl_test_fn fn);

/* Record a check; on failure prints file:line and the message. */
int zl_test_check(int ok, const char *expr, const char *file, int line);
int zl_test_check_eq(int64_t got, int64_t want, const char *got_expr,
                     const char *want_expr, const char *file, int line);
/* Prints "N passed, N failed" and returns the process exit status
 * (0 when nothing failed). Call once, last. */
int zl_test_summary(void);

/* Prints an informational line (a measured figure) under the current test. */
void zl_test_note(const char *fmt, ...);

/* Deterministic seeded generator for tests (xorshift64*). */
typedef struct zl_test_rng {
    uint64_t state;
} zl_test_rng;
void zl_test_rng_seed(zl_test_rng *rng, uint64_t seed);
uint32_t zl_test_rng_u32(zl_test_rng *rng);
/* Uniform integer in [lo, hi] (inclusive). */
int32_t zl_test_rng_range(zl_test_rng *rng, int32_t lo, int32_t hi);

/* A clock-only HAL for deterministic scenarios: now_us returns
 * zl_test_time_us, which the test moves by hand, and random fills a fixed
 * pattern (0x5A bytes). */
extern uint64_t zl_test_time_us;
void zl_test_fake_platform(zl_platform *hal);

/* A buffer of exactly n bytes (n <= 4096) for tests of readers that must
 * not look past the end: heap-allocated on hosts, so AddressSanitizer traps
 * any byte read beyond it; on ports without a heap (ZL_TEST_NO_HEAP) the
 * tail of a static arena. One buffer at a time; release it before the next. */
void *zl_test_exact_buffer(size_t n);
void zl_test_release_buffer(void *buf);

/* Writes `place` among `sent` fields (at least 1) as a state code's place
 * of the last changed field (PROTOCOL.md 10.2), for tests that build codes
 * by hand. */
void zl_test_write_place(zl_bitwriter *w, uint32_t place, uint32_t sent);

/* Scale for long loops: 1 on hosts; ports that run slowly (an emulated
 * Cortex-M) define ZL_TEST_SLOW to divide iteration counts. */
#ifdef ZL_TEST_SLOW
#define ZL_TEST_ITERATIONS(n) ((n) / 100 > 0 ? (n) / 100 : 1)
#else
#define ZL_TEST_ITERATIONS(n) (n)
#endif

#define ZL_RUN(fn) zl_test_run(#fn, fn)
#define ZL_CHECK(cond) zl_test_check((cond) != 0, #cond, __FILE__, __LINE__)
#define ZL_CHECK_EQ(got, want) \
    zl_test_check_eq((int64_t)(got), (int64_t)(want), #got, #want, __FILE__, __LINE__)

#endif
