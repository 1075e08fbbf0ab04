/* bench_matches.c - M matches of 64 players in one process, each with its
 * own zl_server, ticked in turn: the tick cost per match as M grows. */
#include "bench_match.h"
#include "zl_bench.h"

#define PLAYERS 64
#define COUNTS 4
/* Within this much of one match's tick, the tick per match has not grown
 * (the host's batches spread about as much; the Cortex-M3 is exact). */
#define GROWTH_LIMIT_PERCENT 110u

/* Caller-owned servers side by side: the largest M the port's memory holds
 * (ZL_BENCH_MATCHES_MAX, from its port.mk). */
static bench_match matches[ZL_BENCH_MATCHES_MAX];

/* n rounds of every one of *ctx matches running two ticks (every client is
 * at updaterate 64: one tick sends snapshots, the next does not); returns
 * the time of one match's tick, the mean over both kinds. */
static uint64_t body_ticks(void *ctx, uint32_t n)
{
    const uint32_t count = *(const uint32_t *)ctx;
    uint64_t spent = 0;
    uint32_t i, k;
    for (i = 0; i < 2u * n; i++)
        for (k = 0; k < count; k++)
            spent += bench_match_step(&matches[k]);
    return spent / (2u * count);
}

void zl_bench_matches(void)
{
    static const uint32_t counts[COUNTS] = {1, 2, 4, 8};
    static const char *const names[COUNTS] = {
        "1 match, tick per match", "2 matches, tick per match", "4 matches, tick per match",
        "8 matches, tick per match"};
    uint64_t cost[COUNTS];
    uint32_t started = 0, broken = 0, k;
    int i, n = 0;
    zl_bench_note("matches", "M servers of %d slots in one process, each its own zl_server with "
                  "%d players as the server group's (128 Hz, updaterate 64), ticked in turn",
                  ZL_MAX_CLIENTS, PLAYERS);
    zl_bench_note("matches", "per M: the time of one match's tick, the mean of ticks with and "
                  "without snapshots; one match takes %u bytes", (unsigned)sizeof(bench_match));
    for (i = 0; i < COUNTS && counts[i] <= ZL_BENCH_MATCHES_MAX; i++) {
        for (; started < counts[i]; started++)
            if (!bench_match_start(&matches[started], PLAYERS, 0, 0)) {
                zl_bench_note("matches", "match %u: a bot could not connect", started + 1u);
                return;
            }
        cost[i] = zl_bench_measure_timed("matches", names[i], body_ticks, NULL,
                                         (void *)&counts[i]);
        n++;
    }
    if (n < COUNTS)
        zl_bench_note("matches", "no run with %u matches: this image holds %d "
                      "(BENCH_MATCHES_MAX in the port's port.mk)", (unsigned)counts[n],
                      ZL_BENCH_MATCHES_MAX);
    zl_bench_growth("matches", counts, cost, (size_t)n);
    zl_bench_ratio("matches", "tick per match, most M / one", cost[n - 1], cost[0]);
    zl_bench_note("matches", "target: the tick per match does not grow with M (within %u%%): %s",
                  GROWTH_LIMIT_PERCENT - 100u,
                  cost[n - 1] * 100u <= cost[0] * GROWTH_LIMIT_PERCENT ? "met" : "NOT met");
    if (!zl_port_timer_exact() && !ZL_BENCH_EMULATED)
        zl_bench_note("matches", "matches of 64 players at 128 Hz per core: %u (the tick per "
                      "match with %u matches, 7,812 us a tick)",
                      (unsigned)(7812500000u / (cost[n - 1] ? cost[n - 1] : 1u)),
                      (unsigned)counts[n - 1]);
    for (k = 0; k < started; k++)
        broken += matches[k].overflow + matches[k].bad_ticks;
    if (broken)
        zl_bench_note("matches", "BROKEN RUN: %u datagrams lost in delivery or ticks not run as "
                      "they should", broken);
}
