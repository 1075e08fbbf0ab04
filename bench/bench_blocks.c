/* bench_blocks.c - blocks: the server tick of a 64-player match while four
 * clients download 64 KiB at once, beside the same tick without, and the
 * bytes on the wire per block byte. */
#include <string.h>

#include "bench_match.h"
#include "zl_bench.h"
#include "zl_server_blocks.h"

#define PLAYERS 64
#define DOWNLOADERS 4
#define BLOCK_BYTES 65536u
#define TICKS 1024u /* the overhead's sample: 8 s at 128 Hz */

ZL_STATIC_ASSERT(BLOCK_BYTES <= ZL_BLOCK_MAX, bench_block_fits);

static uint8_t block[BLOCK_BYTES];

static uint64_t body_snapshot_tick(void *ctx, uint32_t n)
{
    bench_match *b = (bench_match *)ctx;
    uint64_t spent = 0;
    uint32_t done = 0, run = 0;
    while (done < n && run < 4u * n + 16u) {
        uint64_t t = bench_match_step(b);
        run++;
        if (b->snapshots_last > 0) {
            spent += t;
            done++;
        }
    }
    return done ? spent * n / done : 0;
}

static uint64_t body_any_tick(void *ctx, uint32_t n)
{
    bench_match *b = (bench_match *)ctx;
    uint64_t spent = 0;
    uint32_t i;
    for (i = 0; i < n; i++)
        spent += bench_match_step(b);
    return spent;
}

/* A 64-player match with `downloading` bots downloading the block over
 * and over: its snapshot tick and its mean tick. Returns 0 when the
 * match would not start. */
static int run(bench_match *b, int downloading, const char *snap_name, const char *mean_name,
               uint64_t *snap, uint64_t *mean)
{
    b->downloading = downloading;
    b->download = block;
    b->download_len = BLOCK_BYTES;
    b->drop_every = 0;
    if (!bench_match_start(b, PLAYERS, 0, 1))
        return 0;
    *snap = zl_bench_measure_timed("blocks", snap_name, body_snapshot_tick, NULL, b);
    *mean = zl_bench_measure_timed("blocks", mean_name, body_any_tick, NULL, b);
    return 1;
}

/* Over TICKS ticks of 4 downloads with every drop_every-th datagram to
 * the downloaders lost (0: none): bytes on the wire per block byte
 * delivered, in thousandths. Chunks beside a snapshot cost their section;
 * chunks alone their section, header and tag too. */
static uint64_t overhead(bench_match *b, uint32_t drop_every, uint32_t *blocks, uint32_t *resent)
{
    uint64_t wire = 0, delivered = 0;
    uint32_t i;
    int k;
    b->downloading = DOWNLOADERS;
    b->download = block;
    b->download_len = BLOCK_BYTES;
    b->drop_every = drop_every;
    if (!bench_match_start(b, PLAYERS, 0, 1))
        return 0;
    for (i = 0; i < TICKS; i++)
        bench_match_step(b);
    *blocks = 0;
    *resent = 0;
    for (k = 0; k < DOWNLOADERS; k++) {
        zl_server_client_stats st;
        zl_block_status sending;
        zl_server_get_client_stats(&b->server, k, b->now_us, &st);
        zl_server_block_progress(&b->server, k, &sending, NULL);
        wire += (uint64_t)st.blocks.header_bytes + st.blocks.bytes_sent +
                (uint64_t)st.blocks.alone * (ZL_PACKET_HEADER_SIZE + ZL_PACKET_TAG_SIZE);
        /* Whole blocks, and the acknowledged part of the one under way. */
        delivered += (uint64_t)st.blocks.blocks_sent * BLOCK_BYTES +
                     (sending.state == ZL_BLOCK_ACTIVE ? sending.done : 0u);
        *blocks += st.blocks.blocks_sent;
        *resent += st.blocks.bytes_resent;
    }
    b->drop_every = 0;
    return delivered ? wire * 1000u / delivered : 0;
}

void zl_bench_blocks(void)
{
    bench_match *b = (bench_match *)zl_bench_arena(sizeof *b);
    uint64_t snap0, mean0, snap4, mean4, per;
    uint32_t blocks, resent, i;
    for (i = 0; i < BLOCK_BYTES; i++)
        block[i] = (uint8_t)(i * 131u + 7u);
    zl_bench_note("blocks", "%d players at 128 Hz, sealed, updaterate 64, rate 80000 B/s; %d of "
                  "them download a 64 KiB block over and over (each copy as the last is "
                  "acknowledged whole)", PLAYERS, DOWNLOADERS);
    if (!run(b, 0, "64 players, snapshot tick", "64 players, mean tick", &snap0, &mean0) ||
        !run(b, DOWNLOADERS, "64 players, 4 downloading, snapshot tick",
             "64 players, 4 downloading, mean tick", &snap4, &mean4)) {
        zl_bench_note("blocks", "a bot could not connect");
        return;
    }
    bench_match_report(b);
    zl_bench_ratio("blocks", "mean tick, 4 downloading / none", mean4, mean0);
    zl_bench_ratio("blocks", "snapshot tick, 4 downloading / none", snap4, snap0);
    per = overhead(b, 0, &blocks, &resent);
    zl_bench_ratio("blocks", "wire bytes per block byte, no loss", per, 1000u);
    zl_bench_note("blocks", "no loss: %u blocks of 64 KiB in %u ticks to %d clients, %u bytes "
                  "resent", blocks, TICKS, DOWNLOADERS, resent);
    per = overhead(b, 10, &blocks, &resent);
    zl_bench_ratio("blocks", "wire bytes per block byte, 10% lost", per, 1000u);
    zl_bench_note("blocks", "every 10th datagram to them lost: %u blocks in %u ticks, %u bytes "
                  "resent", blocks, TICKS, resent);
}
