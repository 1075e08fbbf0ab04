/* demo_stopwatch.h - a histogram of durations (server tick cost in ns or
 * emulated instructions): median and tail of any run in constant memory. */
#ifndef DEMO_STOPWATCH_H
#define DEMO_STOPWATCH_H

#include <stdint.h>

#define DEMO_STOPWATCH_BUCKET 100u     /* resolution */
#define DEMO_STOPWATCH_BUCKETS 20000u  /* up to 2,000,000; longer ones share the last */

typedef struct demo_stopwatch {
    uint32_t count;
    uint32_t max;
    uint32_t bucket[DEMO_STOPWATCH_BUCKETS];
} demo_stopwatch;

void demo_stopwatch_reset(demo_stopwatch *w);
void demo_stopwatch_add(demo_stopwatch *w, uint32_t duration);

/* The duration below which `permille` thousandths of the samples lie (500:
 * the median), to the bucket's resolution; the exact max for the last
 * bucket. 0 with no samples. */
uint32_t demo_stopwatch_quantile(const demo_stopwatch *w, uint32_t permille);

#endif
