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

/* One operation: a window of this many ticks of every match, a second
 * (64 ticks with snapshots, every client is at updaterate 64, and 64
 * without). It fills a batch alone (Cortex-M3: 400,000 instructions;
 * hosts: 2 ms while a tick takes over 16 us), so every M times the same
 * windows. */
#define WINDOW_TICKS TICK_RATE

/* One measurement: M, and what its start and batches found. */
typedef struct matches_run {
    uint32_t count;
    uint32_t failed; /* matches in which a bot could not connect */
    uint32_t rounds; /* windows in the last batch */
} matches_run;

/* Every one of the M matches starts afresh and alike (the same bots,
 * commands and warm-up) before M is measured, so the batches of every M
 * time the same windows of the same game in each match, and only holding
 * M matches can make a match's tick cost more. */
static void start_all(matches_run *r)
{
    uint32_t k;
    r->failed = 0;
    for (k = 0; k < r->count; k++)
        r->failed += !bench_match_start(&matches[k], PLAYERS, 0, 0);
}

/* n windows of every one of the matches ticked in turn; returns n times
 * the time of one match's window. */
static uint64_t body_ticks(void *ctx, uint32_t n)
{
    matches_run *r = (matches_run *)ctx;
    uint64_t spent = 0;
    uint32_t i, k;
    r->rounds = n;
    for (i = 0; i < WINDOW_TICKS * n; i++)
        for (k = 0; k < r->count; k++)
            spent += bench_match_step(&matches[k]);
    return spent / r->count;
}

void zl_bench_matches(void)
{
    static const uint32_t counts[COUNTS] = {1, 2, 4, 8};
    static const char *const names[COUNTS] = {
        "1 match, second per match", "2 matches, second per match",
        "4 matches, second per match", "8 matches, second per match"};
    static const char *const ticks[COUNTS] = {
        "1 match, tick per match", "2 matches, tick per match", "4 matches, tick per match",
        "8 matches, tick per match"};
    uint64_t cost[COUNTS];
    matches_run runs[COUNTS];
    uint32_t broken = 0, unlike = 0, k;
    int i, n = 0;
    zl_bench_note("matches", "M servers of %d slots in one process, each its own zl_server with "
                  "%d players as the server group's (128 Hz, updaterate 64), ticked in turn",
                  ZL_MAX_CLIENTS, PLAYERS);
    zl_bench_note("matches", "per M: the time of one match's window of %u ticks (a second); the "
                  "M matches start afresh and alike, so every M times the same windows of the "
                  "same game; one match takes %u bytes", WINDOW_TICKS,
                  (unsigned)sizeof(bench_match));
    for (i = 0; i < COUNTS && counts[i] <= ZL_BENCH_MATCHES_MAX; i++) {
        runs[i].count = counts[i];
        start_all(&runs[i]);
        if (runs[i].failed) {
            zl_bench_note("matches", "%u matches: a bot could not connect", counts[i]);
            return;
        }
        cost[i] = zl_bench_measure_timed("matches", names[i], body_ticks, NULL, &runs[i]);
        for (k = 0; k < counts[i]; k++) {
            const bench_match *m = &matches[k];
            broken += m->overflow + m->bad_ticks;
            unlike += m->ticks != matches[0].ticks ||
                      m->snapshot_ticks != matches[0].snapshot_ticks ||
                      m->shots != matches[0].shots || m->hits != matches[0].hits ||
                      m->kills != matches[0].kills;
        }
        unlike += runs[i].rounds != runs[0].rounds;
        n++;
    }
    if (n < COUNTS)
        zl_bench_note("matches", "no run with %u matches: this image holds %d "
                      "(BENCH_MATCHES_MAX in the port's port.mk)", (unsigned)counts[n],
                      ZL_BENCH_MATCHES_MAX);
    for (i = 0; i < n; i++)
        zl_bench_derived("matches", ticks[i], cost[i] / WINDOW_TICKS);
    zl_bench_growth("matches", counts, cost, (size_t)n);
    zl_bench_ratio("matches", "tick per match, most M / one", cost[n - 1], cost[0]);
    zl_bench_note("matches", "target: the tick per match does not grow with M (within %u%%): %s",
                  GROWTH_LIMIT_PERCENT - 100u,
                  cost[n - 1] * 100u <= cost[0] * GROWTH_LIMIT_PERCENT ? "met" : "NOT met");
    if (!zl_port_timer_exact() && !ZL_BENCH_EMULATED)
        zl_bench_note("matches", "matches of 64 players at 128 Hz per core: %u (a second "
                      "per match with %u matches)",
                      (unsigned)(1000000000000u / (cost[n - 1] ? cost[n - 1] : 1u)),
                      (unsigned)counts[n - 1]);
    if (broken)
        zl_bench_note("matches", "BROKEN RUN: %u datagrams lost in delivery or ticks not run as "
                      "they should", broken);
    if (unlike)
        zl_bench_note("matches", "BROKEN RUN: %u matches or runs played otherwise than the first "
                      "(other events, or other windows timed)", unlike);
}
