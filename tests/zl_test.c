/* zl_test.c - the harness behind zl_test.h: counts tests and failed checks,
 * reports failures where they happen, and ends with the summary line. */
#include "zl_test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "zl_print.h"

static unsigned tests_passed;
static unsigned tests_failed;
static unsigned current_failures;
static const char *current_name = "";

/* Reports per test are capped so one broken loop cannot flood the log. */
#define MAX_REPORTS_PER_TEST 10

void zl_test_run(const char *name, zl_test_fn fn)
{
    current_name = name;
    current_failures = 0;
    fn();
    if (current_failures == 0) {
        tests_passed++;
    } else {
        tests_failed++;
        zl_print("FAIL %s (%u failed checks)\n", name, current_failures);
    }
}

static void report(const char *file, int line_no)
{
    if (current_failures < MAX_REPORTS_PER_TEST)
        zl_print("  %s:%d: in %s: ", file, line_no, current_name);
}

int zl_test_check(int ok, const char *expr, const char *file, int line_no)
{
    if (ok)
        return 1;
    report(file, line_no);
    if (current_failures < MAX_REPORTS_PER_TEST)
        zl_print("check failed: %s\n", expr);
    current_failures++;
    return 0;
}

int zl_test_check_eq(int64_t got, int64_t want, const char *got_expr,
                     const char *want_expr, const char *file, int line_no)
{
    if (got == want)
        return 1;
    report(file, line_no);
    if (current_failures < MAX_REPORTS_PER_TEST)
        zl_print("%s == %lld, expected %s == %lld\n", got_expr, (long long)got,
              want_expr, (long long)want);
    current_failures++;
    return 0;
}

void zl_test_note(const char *fmt, ...)
{
    va_list ap;
    zl_print("  note %s: ", current_name);
    va_start(ap, fmt);
    zl_vprint(fmt, ap);
    va_end(ap);
    zl_print("\n");
}

void zl_test_rng_seed(zl_test_rng *rng, uint64_t seed)
{
    rng->state = seed ? seed : 0x9E3779B97F4A7C15u;
}

uint32_t zl_test_rng_u32(zl_test_rng *rng)
{
    uint64_t x = rng->state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng->state = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1Du) >> 32);
}

int32_t zl_test_rng_range(zl_test_rng *rng, int32_t lo, int32_t hi)
{
    uint32_t span = (uint32_t)hi - (uint32_t)lo + 1u;
    if (span == 0)
        return (int32_t)zl_test_rng_u32(rng);
    return (int32_t)((uint32_t)lo + zl_test_rng_u32(rng) % span);
}

uint64_t zl_test_time_us;

static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return zl_test_time_us;
}

static int fake_random(void *ctx, void *out, size_t len)
{
    (void)ctx;
    memset(out, 0x5A, len);
    return ZL_OK;
}

void zl_test_fake_platform(zl_platform *hal) { zl_platform_clock_only(hal, 0, fake_now, fake_random); }

/* The truncated binary code: with w = width(sent - 1) and u = 2^w - sent,
 * a place below u in w - 1 bits, another as u + (place - u) / 2 in w - 1
 * bits and then its low bit. */
void zl_test_write_place(zl_bitwriter *w, uint32_t place, uint32_t sent)
{
    unsigned width = zl_bits_required(sent - 1u);
    uint32_t u = (1u << width) - sent, longer = place >= u;
    if (sent > 1u) {
        zl_bitwriter_bits(w, longer ? u + (place - u) / 2u : place, width - 1u);
        zl_bitwriter_bits(w, longer ? (place - u) & 1u : 0u, longer);
    }
}

#ifdef ZL_TEST_NO_HEAP
static uint8_t exact_arena[4096];

void *zl_test_exact_buffer(size_t n)
{
    return n <= sizeof exact_arena ? exact_arena + sizeof exact_arena - n : 0;
}

void zl_test_release_buffer(void *buf) { (void)buf; }
#else
void *zl_test_exact_buffer(size_t n) { return malloc(n ? n : 1); }

void zl_test_release_buffer(void *buf) { free(buf); }
#endif

int zl_test_summary(void)
{
    zl_print("%u passed, %u failed\n", tests_passed, tests_failed);
    return tests_failed == 0 ? 0 : 1;
}
