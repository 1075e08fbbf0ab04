/* zl_bench.c - measures batches with the port's timer, reports the median
 * cost per operation with its spread, and mirrors every row as a CSV line. */
#include "zl_bench.h"

#include "zl_print.h"

volatile uint32_t zl_bench_sink;

/* Batches per measurement on a noisy host; the median of these is reported. */
#define HOST_BATCHES 15
/* A batch runs at least this long (timer units), so timer resolution and
 * call overhead vanish: 2 ms on hosts, 400,000 instructions when exact. */
#define HOST_BATCH_MIN 2000000u
#define EXACT_BATCH_MIN 400000u
#define MAX_ITERATIONS (1u << 24)

/* Costs are kept in thousandths of a timer unit so sub-unit costs show. */
static uint64_t run_batch(zl_bench_body body, void (*setup)(void *), void *ctx, uint32_t n)
{
    uint64_t t0, t1;
    if (setup)
        setup(ctx);
    t0 = zl_bench_timer_now();
    body(ctx, n);
    t1 = zl_bench_timer_now();
    return t1 - t0;
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

uint64_t zl_bench_measure(const char *group, const char *name, zl_bench_body body,
                          void (*setup)(void *ctx), void *ctx)
{
    int exact = zl_bench_timer_exact();
    uint64_t batch_min = exact ? EXACT_BATCH_MIN : HOST_BATCH_MIN;
    unsigned batches = exact ? 1 : HOST_BATCHES;
    uint64_t cost[HOST_BATCHES];
    uint32_t n = 1;
    unsigned b;

    /* Warm up while finding a batch size long enough to time. */
    while (run_batch(body, setup, ctx, n) < batch_min && n < MAX_ITERATIONS)
        n *= 2;
    for (b = 0; b < batches; b++)
        cost[b] = run_batch(body, setup, ctx, n) * 1000u / n;
    sort(cost, batches);

    zl_print("  %-12s %-34s ", group, name);
    print_milli(cost[batches / 2]);
    zl_print(" %s/op", zl_bench_timer_unit());
    if (!exact) {
        zl_print("  [min ");
        print_milli(cost[0]);
        zl_print(", max ");
        print_milli(cost[batches - 1]);
        zl_print("]");
    }
    zl_print("\ncsv,%s,%s,%s,", group, name, zl_bench_timer_unit());
    print_milli(cost[batches / 2]);
    zl_print(",");
    print_milli(cost[0]);
    zl_print(",");
    print_milli(cost[batches - 1]);
    zl_print("\n");
    return cost[batches / 2];
}

void zl_bench_growth(const char *group, const uint32_t *sizes, const uint64_t *costs,
                     size_t count)
{
    size_t i;
    zl_print("  %-12s growth per doubling:", group);
    for (i = 1; i < count; i++) {
        uint64_t ratio = costs[i - 1] ? costs[i] * 100u / costs[i - 1] : 0;
        zl_print(" %u->%u x%llu.%02llu", (unsigned)sizes[i - 1], (unsigned)sizes[i],
                 (unsigned long long)(ratio / 100), (unsigned long long)(ratio % 100));
    }
    zl_print("\n");
}

void zl_bench_memory(const char *name, size_t bytes)
{
    zl_print("  %-12s %-34s %zu bytes\ncsv,memory,%s,bytes,%zu,%zu,%zu\n", "memory", name,
             bytes, name, bytes, bytes, bytes);
}
