/* bench_server.c - one full server tick at 128 Hz with 8 to 256 players:
 * their command packets through zl_server_receive, the tick, snapshots out. */
#include <stdlib.h>

#include "bench_match.h"
#include "zl_bench.h"

#define SIZES 6

ZL_STATIC_ASSERT(sizeof(bench_match) <= ZL_BENCH_ARENA_BYTES, bench_match_fits_arena);

/* Runs ticks until n of the wanted kind (sending snapshots or not) have
 * been timed; the others run untimed. Kinds alternate, so a run that
 * finds too few of one is reported broken rather than looping on. */
static uint64_t ticks_of_kind(bench_match *b, uint32_t n, int snapshots)
{
    uint64_t spent = 0;
    uint32_t done = 0, run = 0;
    while (done < n && run < 4u * n + 16u) {
        uint64_t t = bench_match_step(b);
        run++;
        if ((b->snapshots_last > 0) == snapshots) {
            spent += t;
            done++;
        }
    }
    if (done < n) {
        b->bad_ticks++;
        return done ? spent * n / done : 0;
    }
    return spent;
}

static uint64_t body_snapshot_tick(void *ctx, uint32_t n)
{
    return ticks_of_kind((bench_match *)ctx, n, 1);
}

static uint64_t body_plain_tick(void *ctx, uint32_t n)
{
    return ticks_of_kind((bench_match *)ctx, n, 0);
}

/* "<players> players<label>, <kind>" into out (cap bytes, cut short if
 * need be): the harness prints names at once, so a buffer will do. */
static void row_name(char *out, size_t cap, uint32_t players, const char *label, const char *kind)
{
    char digits[10];
    size_t n = 0, d = 0;
    const char *parts[3];
    int p;
    do {
        digits[d++] = (char)('0' + players % 10u);
        players /= 10u;
    } while (players && d < sizeof digits);
    while (d > 0 && n + 1 < cap)
        out[n++] = digits[--d];
    parts[0] = " players";
    parts[1] = label;
    parts[2] = kind;
    for (p = 0; p < 3; p++) {
        const char *t = parts[p];
        while (*t && n + 1 < cap)
            out[n++] = *t++;
        if (p == 1 && n + 2 < cap) {
            out[n++] = ',';
            out[n++] = ' ';
        }
    }
    out[n] = 0;
}

/* One size: its snapshot tick, tick without and their mean, as rows named
 * "<players> players<label>, ..."; returns 0 when a bot could not connect. */
static int run_size(bench_match *b, uint32_t players, int relevance, int sealed, uint64_t *snap,
                    uint64_t *plain, uint64_t *mean)
{
    static const char *const kinds[3] = {"snapshot tick", "tick without snapshots",
                                         "tick, mean of the two"};
    char names[3][48];
    int k;
    if (!bench_match_start(b, (int)players, relevance, sealed)) {
        zl_bench_note("server", "%u players: a bot could not connect", (unsigned)players);
        return 0;
    }
    for (k = 0; k < 3; k++)
        row_name(names[k], sizeof names[k], players,
                 relevance ? " rel." : sealed ? " sealed" : b->no_events ? " no events" : "",
                 kinds[k]);
    *snap = zl_bench_measure_timed("server", names[0], body_snapshot_tick, NULL, b);
    *plain = zl_bench_measure_timed("server", names[1], body_plain_tick, NULL, b);
    /* Ticks alternate, so this is the cost per tick over time. */
    *mean = (*snap + *plain) / 2u;
    zl_bench_derived("server", names[2], *mean);
    bench_match_report(b);
    return 1;
}

/* Growth per doubling from sizes[0] to sizes[count - 1] as a factor in
 * hundredths: the geometric mean, found by bisection in integers. */
static uint64_t growth_per_doubling(const uint64_t *costs, size_t count)
{
    uint64_t lo = 100, hi = 1600, total = costs[count - 1];
    while (lo < hi) {
        uint64_t mid = (lo + hi + 1u) / 2u, v = costs[0];
        size_t i;
        for (i = 1; i < count; i++)
            v = v * mid / 100u;
        if (v <= total)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

void zl_bench_server(void)
{
    bench_match *b = (bench_match *)zl_bench_arena(sizeof *b);
    static const uint32_t sizes[SIZES] = {8, 16, 32, 64, 128, 256};
    static const uint32_t rel_sizes[3] = {64, 128, 256};
    uint64_t mean[SIZES], snap[SIZES], plain[SIZES];
    uint64_t rel_mean[3], rel_snap[3], rel_plain[3], anchor_snap, anchor_plain, anchor_mean;
    uint64_t sealed_snap, sealed_plain, sealed_mean, quiet_snap, quiet_plain, quiet_mean;
    /* ZL_BENCH_PLAYERS=64 runs that size alone (sealed with
     * ZL_BENCH_SEALED=1): a profiler (callgrind) then sees one size's
     * ticks without the others'. */
    const char *only = getenv("ZL_BENCH_PLAYERS"), *seal_only = getenv("ZL_BENCH_SEALED");
    uint32_t want = only ? (uint32_t)strtoul(only, NULL, 10) : 0u;
    int exact = zl_port_timer_exact();
    int i, n = 0, r = 0;
    zl_bench_note("server", "128 Hz, every client at updaterate 64 (a snapshot every other tick), "
                  "all moving, a tenth pulling the trigger each tick");
    zl_bench_note("server", "timed: every command packet through zl_server_receive_many, then "
                  "zl_server_update running one tick; the clients' work is not");
    zl_bench_note("server", "per size: a tick that sends snapshots, one that does not, and the "
                  "mean of their medians (ticks alternate: the cost per tick over time)");
    zl_bench_note("server", "the rifle fires every 100 ms at most and reloads, and shots aim 45 "
                  "degrees up, never point blank: 2 to 4%% shoot per tick (counted below)");
    if (want) {
        if (want <= ZL_MAX_CLIENTS)
            run_size(b, want, 0, seal_only && *seal_only == '1', &snap[0], &plain[0], &mean[0]);
        return; /* one size: no series to grow or score */
    }
    for (i = 0; i < SIZES && sizes[i] <= ZL_MAX_CLIENTS; i++) {
        if (!run_size(b, sizes[i], 0, 0, &snap[i], &plain[i], &mean[i]))
            break;
        n++;
    }
    if (n < SIZES && sizes[n] > ZL_MAX_CLIENTS)
        zl_bench_note("server", "no run with %u players: ZL_MAX_CLIENTS is %d in this build "
                      "(bench/zl_user_config.h)", (unsigned)sizes[n], ZL_MAX_CLIENTS);
    zl_bench_growth("tick mean", sizes, mean, (size_t)n);
    zl_bench_growth("snap tick", sizes, snap, (size_t)n);
    zl_bench_growth("plain tick", sizes, plain, (size_t)n);
    zl_bench_note("server", "without relevance every client gets every entity: N clients x N "
                  "entities, so snapshot ticks grow quadratically");

    zl_bench_note("server", "with the FPS relevance rule (fps_relevance: an %dx%d grid over the "
                  "arena, rings of cells until %d players, every rocket):", FPS_GRID, FPS_GRID,
                  FPS_RELEVANT_PLAYERS);
    for (i = 0; i < 3 && rel_sizes[i] <= ZL_MAX_CLIENTS; i++) {
        if (!run_size(b, rel_sizes[i], 1, 0, &rel_snap[i], &rel_plain[i], &rel_mean[i]))
            break;
        r++;
    }
    zl_bench_growth("rel. snap", rel_sizes, rel_snap, (size_t)r);
    zl_bench_growth("rel. mean", rel_sizes, rel_mean, (size_t)r);

    /* The Unity netcode benchmark's size (24 clients), for the README's
     * anchor row. */
    run_size(b, 24, 0, 0, &anchor_snap, &anchor_plain, &anchor_mean);

    /* 64 players with connect tokens and every packet sealed, beside the
     * plain series' 64. */
    if (n > 3 && run_size(b, 64, 0, 1, &sealed_snap, &sealed_plain, &sealed_mean))
        zl_bench_note("server", "sealing every packet (ChaCha20-Poly1305, 16 bytes a packet): "
                      "64-player mean tick %d%% of the plain one",
                      (int)(sealed_mean * 100u / (mean[3] ? mean[3] : 1u)));

    /* 64 players without events in their snapshots, beside the series'
     * 64 (which sends them: shots, footsteps, hits, kills). */
    b->no_events = 1;
    if (n > 3 && run_size(b, 64, 0, 0, &quiet_snap, &quiet_plain, &quiet_mean))
        zl_bench_note("server", "events in snapshots: 64-player mean tick with them %d%% of the "
                      "one without",
                      (int)(mean[3] * 100u / (quiet_mean ? quiet_mean : 1u)));
    b->no_events = 0;

    if (n > 3) {
        if (!exact) {
            zl_bench_target("server", "64 players, mean tick (host)", mean[3], 100000u);
            zl_bench_target("server", "64 players, snapshot tick (host)", snap[3], 150000u);
            zl_bench_note("server", "matches of 64 players at 128 Hz per core: %u (mean tick, "
                          "7,812 us a tick)", (unsigned)(7812500000u / (mean[3] ? mean[3] : 1u)));
        } else {
            zl_bench_target("server", "64 players, mean tick (Cortex-M3)", mean[3], 1200000u);
        }
    }
    if (n > 5)
        zl_bench_ratio("server", "no relevance, growth per doubling 64->256",
                       growth_per_doubling(snap + 3, 3), 100u);
    if (r == 3) {
        uint64_t g = growth_per_doubling(rel_snap, 3);
        zl_bench_ratio("server", "relevance, growth per doubling 64->256", g, 100u);
        zl_bench_note("server", "target: with relevance, snapshot tick growth per doubling "
                      "64->256 <= x2.30: %s", g <= 230u ? "met" : "NOT met");
    }
    if (n > 5)
        zl_bench_note("server", "target: without relevance, snapshot tick growth per doubling "
                      "64->256 <= x4.00: %s",
                      growth_per_doubling(snap + 3, 3) <= 400u ? "met" : "NOT met");
}
