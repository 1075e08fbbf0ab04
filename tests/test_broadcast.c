/* test_broadcast.c - the spectator stream: the index byte for byte and
 * hostile copies refused, and a live match watched from two starts. */
#include <string.h>

#include "zl_broadcast.h"
#include "zl_match.h"
#include "zl_test.h"

#define m zl_match_world

static void test_index(void)
{
    zl_tvindex in, out;
    char text[ZL_TVINDEX_MAX];
    size_t n, cut;
    in.fragment = 4000000000u;
    in.tick = 123456;
    in.unix_ms = 1800000000123ull;
    in.tick_rate = 64;
    in.fragment_ticks = 192;
    in.delay_ms = 10000;
    n = zl_tvindex_write(&in, text, sizeof text);
    ZL_CHECK_EQ(zl_tvindex_read(text, n, &out), ZL_OK);
    ZL_CHECK(out.fragment == in.fragment && out.tick == in.tick && out.tick_rate == 64 &&
             out.fragment_ticks == 192 && out.delay_ms == 10000);
    ZL_CHECK(out.unix_ms == 1800000000123ull);
    for (cut = 0; cut < n; cut++)
        ZL_CHECK_EQ(zl_tvindex_read(text, cut, &out), ZL_ERR_MALFORMED);
    memcpy(text + 29, "9999999999", 10); /* fragment 99999999990: too big */
    ZL_CHECK_EQ(zl_tvindex_read(text, n, &out), ZL_ERR_MALFORMED);
}

/* ---- A live match watched ---- */

/* A port whose memory the other suites fill leaves the live match out
 * (ZL_TEST_NO_BROADCAST_LIVE in its port.mk): it needs a second snapshot
 * receiver and the broadcast's buffers beside the match. */
#ifndef ZL_TEST_NO_BROADCAST_LIVE

#define WATCH_US 6000000u
#define POOL_BYTES 131072u
#define MAX_FRAGMENTS 64
#define MAX_TICKS 1024u

static zl_broadcast tv;
static uint8_t pool[POOL_BYTES];
static size_t pool_used;
static struct {
    uint32_t number, first, last, present;
    size_t at, len;
} got[MAX_FRAGMENTS];
static int got_count, got_dropped;
static uint16_t present_at[MAX_TICKS]; /* entities in the world, by tick */
static zl_snapshot_receiver rx;

static void keep(void *ctx, const zl_broadcast_fragment *f)
{
    (void)ctx;
    if (got_count == MAX_FRAGMENTS || POOL_BYTES - pool_used < f->len) {
        got_dropped++;
        return;
    }
    got[got_count].number = f->number;
    got[got_count].first = f->first_tick;
    got[got_count].last = f->last_tick;
    got[got_count].present = f->present_tick;
    got[got_count].at = pool_used;
    got[got_count].len = f->len;
    memcpy(pool + pool_used, f->bytes, f->len);
    pool_used += f->len;
    got_count++;
}

static uint32_t count_present(const zl_snapshot_world *w, uint32_t tick)
{
    uint32_t n = 0;
    uint16_t e;
    for (e = 0; e < ZL_MAX_ENTITIES; e++)
        n += zl_snapshot_world_state(w, tick, e) != NULL;
    return n;
}

/* Plays fragments from index `from` on, starting at its keyframe (a
 * spectator who was watching reads the keyframes too: each is the frame
 * the deltas before it built): the hash of every frame from fragment
 * `same` on, into *hash; -1 on any refusal or a frame whose entity count
 * is not the server's. */
static int watch(int from, int same, uint32_t *hash, uint32_t *frames)
{
    int i;
    *hash = ZL_SCHEMA_HASH_INIT;
    *frames = 0;
    zl_snapshot_receiver_init(&rx);
    for (i = from; i < got_count; i++) {
        zl_demo_fragment f;
        zl_demo_item_view item;
        uint32_t offset = 0;
        if (zl_demo_fragment_open(pool + got[i].at, got[i].len, &f) != ZL_OK ||
            f.sequence != got[i].number || f.size != got[i].len)
            return -1;
        while (zl_demo_fragment_next(&f, &offset, &item)) {
            const zl_snapshot_frame *frame;
            uint32_t tick, executed;
            if (zl_snapshot_message_tick(&rx, item.data, item.len, &tick) != ZL_OK ||
                zl_snapshot_message_read(&rx, &m.server.layout, ZL_SNAPSHOT_NONE, NULL, NULL,
                                         item.data, item.len, &executed, &frame) != ZL_OK ||
                frame->tick != tick || tick >= MAX_TICKS || frame->count != present_at[tick] ||
                item.time_us != (uint64_t)(tick - got[0].first) * m.server.tick_us ||
                (item.kind == ZL_DEMO_KEYFRAME) != (tick == got[i].first))
                return -1;
            if (i >= same) {
                *hash = zl_snapshot_frame_hash(frame, &m.server.layout, *hash);
                ++*frames;
            }
        }
    }
    return 0;
}

static void test_broadcast_live(void)
{
    zl_match_setup s;
    zl_broadcast_config cfg;
    uint32_t t, hash_a, hash_b, frames_a, frames_b, hold;
    uint64_t bytes = 0;
    int i;
    memset(&s, 0, sizeof s);
    s.rtt_us = 60000u;
    s.lag_compensation = 1;
    s.style = ZL_MATCH_DUEL;
    s.firing = 1;
    s.plain = 1;
    zl_match_start(&s);
    zl_broadcast_config_default(&cfg);
    cfg.fragment_ms = 500u;
    cfg.delay_ms = 2000u;
    /* A delay the held fragments cannot cover, and fragments too short. */
    cfg.delay_ms = 500u * (ZL_BROADCAST_HELD + 2u) + 1000u;
    ZL_CHECK_EQ(zl_broadcast_init(&tv, &cfg, &m.server, keep, NULL), ZL_ERR_INVALID);
    cfg.delay_ms = 2000u;
    cfg.fragment_ms = 20u;
    ZL_CHECK_EQ(zl_broadcast_init(&tv, &cfg, &m.server, keep, NULL), ZL_ERR_INVALID);
    cfg.fragment_ms = 500u;
    ZL_CHECK_EQ(zl_broadcast_init(&tv, &cfg, &m.server, keep, NULL), ZL_OK);
    got_count = got_dropped = 0;
    pool_used = 0;
    for (t = 0; t < WATCH_US; t += 1000u) {
        zl_match_run(1000u);
        if (zl_server_tick(&m.server) < MAX_TICKS)
            present_at[zl_server_tick(&m.server)] =
                (uint16_t)count_present(&m.server.world, zl_server_tick(&m.server));
        zl_broadcast_update(&tv, &m.server);
    }
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    ZL_CHECK_EQ(got_dropped, 0);
    ZL_CHECK_EQ(tv.stats.early, 0);
    ZL_CHECK_EQ(tv.stats.overflows, 0);
    /* 6 s of 0.5 s fragments, the last 0.5 to 1.5 s (the hold, the one open) held back. */
    ZL_CHECK(got_count >= 9 && got_count <= 11);
    hold = (2000u - 500u - 1000u) * m.server.config.tick_rate / 1000u;
    for (i = 0; i < got_count; i++) {
        ZL_CHECK_EQ(got[i].number, (uint32_t)i); /* each once, in order */
        ZL_CHECK(got[i].present - got[i].last >= hold);
        /* The next fragment starts one snapshot after the last. */
        ZL_CHECK(i == 0 || got[i].first == got[i - 1].last + 1u);
        bytes += got[i].len;
    }
    ZL_CHECK_EQ(tv.stats.fragments, (uint32_t)got_count);
    /* A spectator from the start and one who came in at fragment 3 see the
     * same frames from there on, every entity the server had. */
    ZL_CHECK_EQ(watch(0, 3, &hash_a, &frames_a), 0);
    ZL_CHECK_EQ(watch(3, 3, &hash_b, &frames_b), 0);
    ZL_CHECK_EQ(frames_a, frames_b);
    ZL_CHECK(frames_a > 100);
    ZL_CHECK_EQ(hash_a, hash_b);
    /* Once published, the rest goes out at the end of the match. */
    ZL_CHECK(zl_broadcast_flush(&tv, &m.server) >= 1);
    ZL_CHECK_EQ(got[got_count - 1].number, (uint32_t)got_count - 1);
    zl_test_note("%d fragments of 0.5 s, %lu B each on average (keyframes %lu B): %lu B/s a "
                 "spectator", got_count, (unsigned long)(bytes / (uint64_t)got_count),
                 (unsigned long)(tv.stats.key_bytes / tv.stats.fragments),
                 (unsigned long)(bytes * 2u / (uint64_t)got_count));
}

#endif

void zl_suite_broadcast(void)
{
    ZL_RUN(test_index);
#ifndef ZL_TEST_NO_BROADCAST_LIVE
    ZL_RUN(test_broadcast_live);
#endif
}
