/* zl_bench.c - measures batches with the port's timer, reports the median
 * cost per operation with its spread, and mirrors every row as a CSV line. */
#include "zl_bench.h"

#include <string.h>

#include "zl_base.h"
#include "zl_print.h"

volatile uint32_t zl_bench_sink;

static union {
    uint64_t align_u64;
    void *align_ptr;
    uint8_t bytes[ZL_BENCH_ARENA_BYTES];
} arena;

/* Batches per measurement on a noisy host; the median of these is reported. */
#define HOST_BATCHES 15
/* A batch runs at least this long (timer units), so timer resolution and
 * call overhead vanish: 2 ms on hosts, 400,000 instructions when exact. */
#define HOST_BATCH_MIN 2000000u
#define EXACT_BATCH_MIN 400000u
#define MAX_ITERATIONS (1u << 24)

/* One measurement: a body the harness times, or one that times itself. */
typedef struct job {
    zl_bench_body plain;
    zl_bench_timed_body timed;
    void (*setup)(void *ctx);
    void *ctx;
} job;

static uint64_t run_batch(const job *j, uint32_t n)
{
    uint64_t t0;
    if (j->setup)
        j->setup(j->ctx);
    if (j->timed)
        return j->timed(j->ctx, n);
    t0 = zl_port_timer_now();
    j->plain(j->ctx, n);
    return zl_port_timer_now() - t0;
}

static void sort(uint64_t *v, unsigned n)
{
    unsigned i, j;
    for (i = 1; i < n; i++)
        for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static void print_milli(uint64_t milli)
{
    zl_print("%llu.%03llu", (unsigned long long)(milli / 1000), (unsigned long long)(milli % 1000));
}

/* One CSV text field, quoted (names hold commas), quotes doubled. */
static void print_csv_text(const char *s)
{
    char buf[96];
    size_t n = 0;
    buf[n++] = '"';
    for (; *s && n < sizeof buf - 3; s++) {
        if (*s == '"')
            buf[n++] = '"';
        buf[n++] = *s;
    }
    buf[n++] = '"';
    buf[n] = 0;
    zl_print("%s", buf);
}

/* Starts a row's CSV line: "csv," (the Makefile's marker), group, name,
 * unit; the caller adds ",median,min,max" and the newline. */
static void csv_begin(const char *group, const char *name, const char *unit)
{
    zl_print("csv,");
    print_csv_text(group);
    zl_print(",");
    print_csv_text(name);
    zl_print(",%s", unit);
}

/* num / den as "x.yy" (0.00 when den is 0). */
static void print_ratio(uint64_t num, uint64_t den)
{
    uint64_t r = den ? (num * 100u + den / 2u) / den : 0;
    zl_print("%llu.%02llu", (unsigned long long)(r / 100), (unsigned long long)(r % 100));
}

/* One row and its CSV line; costs in thousandths of the timer's unit.
 * The spread is shown when there is one. */
static void print_row(const char *group, const char *name, uint64_t median, uint64_t min,
                      uint64_t max, int spread)
{
    zl_print("  %-12s %-34s ", group, name);
    print_milli(median);
    zl_print(" %s/op", zl_port_timer_unit());
    if (spread) {
        zl_print("  [min ");
        print_milli(min);
        zl_print(", max ");
        print_milli(max);
        zl_print("]");
    }
    zl_print("\n");
    csv_begin(group, name, zl_port_timer_unit());
    zl_print(",");
    print_milli(median);
    zl_print(",");
    print_milli(min);
    zl_print(",");
    print_milli(max);
    zl_print("\n");
}

/* Costs are kept in thousandths of a timer unit so sub-unit costs show. */
static uint64_t measure(const char *group, const char *name, const job *j)
{
    int exact = zl_port_timer_exact();
    uint64_t batch_min = exact ? EXACT_BATCH_MIN : HOST_BATCH_MIN;
    unsigned batches = exact ? 1 : HOST_BATCHES;
    uint64_t cost[HOST_BATCHES];
    uint32_t n = 1;
    unsigned b;

    /* Warm up while finding a batch size long enough to time. */
    while (run_batch(j, n) < batch_min && n < MAX_ITERATIONS)
        n *= 2;
    for (b = 0; b < batches; b++)
        cost[b] = run_batch(j, n) * 1000u / n;
    sort(cost, batches);
    print_row(group, name, cost[batches / 2], cost[0], cost[batches - 1], !exact);
    return cost[batches / 2];
}

void zl_bench_derived(const char *group, const char *name, uint64_t milli)
{
    print_row(group, name, milli, milli, milli, 0);
}

uint64_t zl_bench_measure(const char *group, const char *name, zl_bench_body body,
                          void (*setup)(void *ctx), void *ctx)
{
    job j;
    j.plain = body;
    j.timed = 0;
    j.setup = setup;
    j.ctx = ctx;
    return measure(group, name, &j);
}

uint64_t zl_bench_measure_timed(const char *group, const char *name, zl_bench_timed_body body,
                                void (*setup)(void *ctx), void *ctx)
{
    job j;
    j.plain = 0;
    j.timed = body;
    j.setup = setup;
    j.ctx = ctx;
    return measure(group, name, &j);
}

void zl_bench_growth(const char *group, const uint32_t *sizes, const uint64_t *costs,
                     size_t count)
{
    size_t i;
    zl_print("  %-12s growth:", group);
    for (i = 1; i < count; i++) {
        zl_print(" %u->%u x", (unsigned)sizes[i - 1], (unsigned)sizes[i]);
        print_ratio(costs[i], costs[i - 1]);
    }
    zl_print("\n");
}

void zl_bench_ratio(const char *group, const char *name, uint64_t num, uint64_t den)
{
    int i;
    zl_print("  %-12s %-34s x", group, name);
    print_ratio(num, den);
    zl_print("\n");
    csv_begin(group, name, "ratio");
    for (i = 0; i < 3; i++) { /* median, min and max are the one figure */
        zl_print(",");
        print_ratio(num, den);
    }
    zl_print("\n");
}

void zl_bench_target(const char *group, const char *what, uint64_t milli, uint64_t limit)
{
    const char *verdict = milli <= limit * 1000u ? "met" : "NOT met";
    if (ZL_BENCH_EMULATED)
        verdict = "not scored (emulated time)";
    zl_bench_note(group, "target: %s <= %llu %s: %s", what, (unsigned long long)limit,
                  zl_port_timer_unit(), verdict);
}

void zl_bench_memory(const char *name, size_t bytes)
{
    zl_print("  %-12s %-34s %zu bytes\n", "memory", name, bytes);
    csv_begin("memory", name, "bytes");
    zl_print(",%zu,%zu,%zu\n", bytes, bytes, bytes);
}

void zl_bench_note(const char *group, const char *fmt, ...)
{
    va_list ap;
    zl_print("  %-12s ", group);
    va_start(ap, fmt);
    zl_vprint(fmt, ap);
    va_end(ap);
    zl_print("\n");
}

void *zl_bench_arena(size_t bytes)
{
    ZL_ASSERT(bytes <= sizeof arena.bytes);
    memset(arena.bytes, 0, bytes);
    return arena.bytes;
}
