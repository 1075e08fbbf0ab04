/* demo_stopwatch.c - fixed buckets of 100 units: a tick costs tens of
 * microseconds or 10^5 instructions, so the median keeps three digits. */
#include <string.h>

#include "demo_stopwatch.h"

void demo_stopwatch_reset(demo_stopwatch *w)
{
    memset(w, 0, sizeof *w);
}

void demo_stopwatch_add(demo_stopwatch *w, uint32_t duration)
{
    uint32_t b = duration / DEMO_STOPWATCH_BUCKET;
    w->bucket[b < DEMO_STOPWATCH_BUCKETS ? b : DEMO_STOPWATCH_BUCKETS - 1u]++;
    w->count++;
    if (duration > w->max)
        w->max = duration;
}

uint32_t demo_stopwatch_quantile(const demo_stopwatch *w, uint32_t permille)
{
    uint64_t want = ((uint64_t)w->count * permille + 999u) / 1000u, seen = 0;
    uint32_t b;
    if (w->count == 0)
        return 0;
    if (want == 0)
        want = 1;
    for (b = 0; b < DEMO_STOPWATCH_BUCKETS - 1u; b++) {
        seen += w->bucket[b];
        if (seen >= want)
            return b * DEMO_STOPWATCH_BUCKET + DEMO_STOPWATCH_BUCKET / 2u;
    }
    return w->max;
}
