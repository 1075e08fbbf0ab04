/* test_blocks.c - blocks: a 64 KiB block and a 16 KiB gamestate intact through
 * loss, copies and reordering at 200 ms, on time, with the other players'
 * snapshots untouched; uploads; refusals; hostile sections. */
#include <string.h>

#include "zl_match.h"
#include "zl_server_blocks.h"
#include "zl_client_blocks.h"
#include "zl_test.h"

#define m zl_match_world
#define BOTS ZL_MATCH_BOTS

/* The emulated boards run the same scenarios on smaller blocks (their
 * test image's statics fill the board's memory). */
#ifdef ZL_TEST_SLOW
#define BIG_BLOCK (4u * 1024u)
#define GAMESTATE_BYTES (2u * 1024u)
#else
#define BIG_BLOCK (64u * 1024u)
#define GAMESTATE_BYTES (16u * 1024u)
#endif
/* Every buffer of the suite: the largest block it sends. */
#define CAPACITY BIG_BLOCK
ZL_STATIC_ASSERT(BIG_BLOCK <= ZL_BLOCK_MAX && GAMESTATE_BYTES <= CAPACITY, big_block_fits);

static uint8_t client_buffer[BOTS][CAPACITY];
static uint8_t server_buffers[BOTS * CAPACITY];
static uint8_t block[CAPACITY];
static uint8_t gamestate[CAPACITY];

/* How a run is impaired. */
typedef struct impairment {
    uint32_t rtt_us, jitter_us, loss_ppm, duplicate_ppm, reorder_ppm;
} impairment;

static const impairment rough = {200000u, 10000u, 100000u, 50000u, 50000u};

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
    zl_test_rng rng;
    uint32_t i;
    zl_test_rng_seed(&rng, seed);
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)zl_test_rng_u32(&rng);
}

/* A match with block buffers on both sides and, beyond the harness's delay
 * and loss, copies and reordering (a held-back datagram waits 30 ms more). */
static void start(const impairment *l)
{
    zl_match_setup s;
    zl_conditioner_settings cs;
    int i;
    memset(&s, 0, sizeof s);
    s.rtt_us = l->rtt_us;
    s.jitter_us = l->jitter_us;
    s.loss_ppm = l->loss_ppm;
    s.lag_compensation = 1;
    zl_match_start(&s);
    /* The harness gives no block buffers: hand them over before anyone is
     * accepted (the endpoints read them when a connection starts). */
    m.server.config.block_buffers = server_buffers;
    m.server.config.block_capacity = CAPACITY;
    memset(&cs, 0, sizeof cs);
    cs.enabled = 1;
    cs.latency_us = l->rtt_us / 2u;
    cs.jitter_us = l->jitter_us;
    cs.loss_ppm = l->loss_ppm;
    cs.duplicate_ppm = l->duplicate_ppm;
    cs.reorder_ppm = l->reorder_ppm;
    cs.reorder_delay_us = 30000u;
    for (i = 0; i < BOTS; i++) {
        m.client[i].config.block_buffer = client_buffer[i];
        m.client[i].config.block_capacity = CAPACITY;
        ZL_CHECK_EQ(zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_SEND, &cs), ZL_OK);
        ZL_CHECK_EQ(zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_RECEIVE, &cs), ZL_OK);
    }
}

static int slot_of(int bot)
{
    return zl_client_slot(&m.client[bot]);
}

/* What the other players saw over a window: snapshots decoded, and their
 * render timeline (interpolation delay, extrapolated draws). */
typedef struct seen {
    uint32_t snapshots[BOTS], extrapolated[BOTS], interp_us[BOTS], snaps[BOTS];
    uint32_t sent[BOTS], choked[BOTS]; /* by the server */
} seen;

static void look(seen *out)
{
    int i;
    for (i = 0; i < BOTS; i++) {
        zl_client_stats st;
        zl_server_client_stats ss;
        zl_client_get_stats(&m.client[i], zl_test_time_us, &st);
        out->snapshots[i] = st.snapshots;
        out->extrapolated[i] = st.extrapolated;
        out->interp_us[i] = st.interp_us;
        out->snaps[i] = st.clock.snaps;
        zl_server_get_client_stats(&m.server, slot_of(i), zl_test_time_us, &ss);
        out->sent[i] = ss.snapshots;
        out->choked[i] = ss.choked;
    }
}

/* Runs in 1 ms steps until bot 0 holds a complete block or limit_us
 * passes; returns the time taken (limit_us when it never came). */
static uint32_t wait_download(uint32_t limit_us)
{
    uint32_t t;
    const uint8_t *data;
    for (t = 0; t < limit_us; t += 1000u) {
        if (zl_client_block_received(&m.client[0], &data) > 0)
            return t;
        zl_match_run(1000u);
    }
    return limit_us;
}

/* The loss, copies and reordering bot 0's link really did, both ways. */
static void note_link(const char *what)
{
    const zl_conditioner_stats *a = zl_conditioner_get_stats(&m.cond[0], ZL_CONDITIONER_SEND);
    const zl_conditioner_stats *b = zl_conditioner_get_stats(&m.cond[0], ZL_CONDITIONER_RECEIVE);
    uint32_t seen_n = a->seen + b->seen, lost = a->dropped_loss + b->dropped_loss;
    zl_test_note("%s: bot 0's link saw %u datagrams: %u lost (%u.%u%%), %u copied, %u reordered",
                 what, seen_n, lost, lost * 100u / seen_n, lost * 1000u / seen_n % 10u,
                 a->duplicated + b->duplicated, a->reordered + b->reordered);
    ZL_CHECK(lost * 100u >= seen_n * 7u);                   /* about 10% */
    ZL_CHECK((a->duplicated + b->duplicated) * 100u >= seen_n * 3u); /* about 5% */
    ZL_CHECK(a->reordered + b->reordered > 0u);
}

/* The download of `bytes` to bot 0 at the client's rate, and the bound the
 * issue sets: 1.5 x size / rate plus two round trips. */
static uint32_t bound_us(uint32_t bytes, uint32_t rtt_us)
{
    uint32_t rate = m.client[0].settings.rate;
    return (uint32_t)((uint64_t)bytes * 1500000u / rate) + 2u * rtt_us;
}

/* One run: connect, then (with_block) the server sends bot 0 a 64 KiB
 * block; what every client saw over the following window. */
static uint32_t run_download(int with_block, seen *before, seen *after, uint32_t window_us)
{
    uint32_t took = 0;
    start(&rough);
    zl_match_run(3000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    look(before);
    if (with_block) {
        fill(block, BIG_BLOCK, 77);
        ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), block, BIG_BLOCK), ZL_OK);
        ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), block, 1), ZL_ERR_FULL);
        took = wait_download(window_us);
        zl_match_run(window_us - took);
    } else {
        zl_match_run(window_us);
    }
    look(after);
    return took;
}

static void test_download_on_time_others_untouched(void)
{
    seen a0, a1, b0, b1;
    const uint8_t *data;
    zl_block_status sending, receiving;
    zl_server_client_stats ss;
    zl_client_stats cs;
    uint32_t window = 4000000u, took, bound, i, others_same = 1;
    int len;
    took = run_download(1, &a0, &a1, window);
    note_link("download");
    len = zl_client_block_received(&m.client[0], &data);
    ZL_CHECK_EQ(len, BIG_BLOCK);
    ZL_CHECK(len > 0 && memcmp(data, block, BIG_BLOCK) == 0);
    zl_client_block_progress(&m.client[0], &sending, &receiving);
    ZL_CHECK_EQ(receiving.state, ZL_BLOCK_DONE);
    ZL_CHECK_EQ(receiving.done, BIG_BLOCK);
    zl_server_block_progress(&m.server, slot_of(0), &sending, NULL);
    ZL_CHECK_EQ(sending.state, ZL_BLOCK_DONE);
    zl_server_get_client_stats(&m.server, slot_of(0), zl_test_time_us, &ss);
    zl_client_get_stats(&m.client[0], zl_test_time_us, &cs);
    bound = bound_us(BIG_BLOCK, rough.rtt_us);
    zl_test_note("%u bytes at rate %u B/s, 200 ms, 10%% loss, 5%% copies, 5%% reordered: %u ms "
                 "(bound 1.5 x size/rate + 2 rtt = %u ms; size/rate %u ms)",
                 BIG_BLOCK, m.client[0].settings.rate, took / 1000u, bound / 1000u,
                 (uint32_t)((uint64_t)BIG_BLOCK * 1000u / m.client[0].settings.rate));
    zl_test_note("server sent %u chunk bytes (%u again), %u header bytes, %u packets alone, %u "
                 "beside snapshots, %u packets taken as lost, %u copied at the end; client "
                 "stored %u, %u duplicate chunks, %u refused",
                 ss.blocks.bytes_sent, ss.blocks.bytes_resent, ss.blocks.header_bytes,
                 ss.blocks.alone, ss.blocks.beside, ss.blocks.expired, ss.blocks.tail_copies,
                 cs.blocks.bytes_received,
                 cs.blocks.duplicates, cs.blocks.refused_busy + cs.blocks.refused_large);
    ZL_CHECK(took <= bound);
    ZL_CHECK_EQ(cs.blocks.bytes_received, BIG_BLOCK);
    ZL_CHECK(cs.blocks.duplicates > 0); /* the copies were met */
    ZL_CHECK(ss.blocks.bytes_resent > 0); /* and the losses */
    /* The same match without the block. */
    run_download(0, &b0, &b1, window);
    for (i = 1; i < BOTS; i++) {
        others_same &= a1.snapshots[i] - a0.snapshots[i] == b1.snapshots[i] - b0.snapshots[i] &&
                       a1.extrapolated[i] == b1.extrapolated[i] &&
                       a1.interp_us[i] == b1.interp_us[i] && a1.snaps[i] == b1.snaps[i];
    }
    zl_test_note("snapshots over %u s, bot 0 (downloading) %u with the block, %u without; bot 1 "
                 "%u and %u, bot 2 %u and %u, bot 3 %u and %u; interpolation delay %u and %u us",
                 window / 1000000u, a1.snapshots[0] - a0.snapshots[0],
                 b1.snapshots[0] - b0.snapshots[0], a1.snapshots[1] - a0.snapshots[1],
                 b1.snapshots[1] - b0.snapshots[1], a1.snapshots[2] - a0.snapshots[2],
                 b1.snapshots[2] - b0.snapshots[2], a1.snapshots[3] - a0.snapshots[3],
                 b1.snapshots[3] - b0.snapshots[3], a1.interp_us[1], b1.interp_us[1]);
    zl_test_note("the server sent bot 0 %u snapshots (%u choked) with the block, %u (%u choked) "
                 "without",
                 a1.sent[0] - a0.sent[0], a1.choked[0] - a0.choked[0], b1.sent[0] - b0.sent[0],
                 b1.choked[0] - b0.choked[0]);
    /* The others' traffic is the same bit for bit: same snapshots, same
     * render timeline. The downloader's snapshots keep their rate: the
     * server sends as many, none held back by the rate; its link draws
     * its losses differently once it carries a few more datagrams. */
    ZL_CHECK(others_same);
    ZL_CHECK_EQ(a1.sent[0] - a0.sent[0], b1.sent[0] - b0.sent[0]);
    ZL_CHECK_EQ(a1.choked[0] - a0.choked[0], 0);
    ZL_CHECK((a1.snapshots[0] - a0.snapshots[0]) * 100u >= (b1.snapshots[0] - b0.snapshots[0]) * 90u);
}

/* The reference FPS's gamestate, padded out to `bytes` with its message of
 * the day; a name for each of the first BOTS slots. Returns its length. */
static int make_gamestate(uint32_t bytes)
{
    static const char *const names[BOTS] = {"ada", "brunel", "curie", "dijkstra"};
    char *motd = (char *)block; /* free while the gamestate is made */
    int n = fps_gamestate_write(gamestate, sizeof gamestate, 64, names, BOTS, "");
    uint32_t k, want;
    ZL_CHECK(n > 0 && (uint32_t)n < bytes);
    want = bytes - (uint32_t)n;
    for (k = 0; k < want && k < CAPACITY - 1u; k++)
        motd[k] = (char)(k % 64u == 63u ? '\n' : 'a' + k % 26u);
    motd[k] = 0;
    return fps_gamestate_write(gamestate, sizeof gamestate, 64, names, BOTS, motd);
}

/* The server gives each client the gamestate as it reads the client's
 * JOIN; each client reads it: its arena and rules are the client's, the
 * names are there, the message arrives whole. */
static void test_gamestate_to_every_joining_client(void)
{
    fps_gamestate gs;
    zl_server_notice n;
    uint64_t joined[BOTS];
    uint32_t done = 0, sent_notices = 0, joins = 0, worst = 0, t;
    int i, len;
    ZL_CHECK_EQ(make_gamestate(GAMESTATE_BYTES), GAMESTATE_BYTES);
    start(&rough);
    for (t = 0; t < 10000000u && done != (1u << BOTS) - 1u; t += 1000u) {
        zl_match_run(1000u);
        while (zl_server_next_notice(&m.server, &n)) {
            if (n.kind == ZL_NOTICE_JOIN && n.slot < BOTS) {
                joins++;
                joined[n.slot] = zl_test_time_us;
                ZL_CHECK_EQ(zl_server_block_send(&m.server, n.slot, gamestate, GAMESTATE_BYTES),
                            ZL_OK);
            }
            sent_notices += n.kind == ZL_NOTICE_BLOCK_SENT;
        }
        for (i = 0; i < BOTS; i++) {
            const uint8_t *data;
            int slot = slot_of(i);
            if (done & (1u << i))
                continue;
            len = zl_client_block_received(&m.client[i], &data);
            if (len <= 0)
                continue;
            done |= 1u << i;
            if (zl_test_time_us - joined[slot] > worst)
                worst = (uint32_t)(zl_test_time_us - joined[slot]);
            ZL_CHECK_EQ(len, GAMESTATE_BYTES);
            ZL_CHECK(memcmp(data, gamestate, GAMESTATE_BYTES) == 0);
            ZL_CHECK_EQ(fps_gamestate_read(data, (size_t)len, &gs), ZL_OK);
            ZL_CHECK(gs.arena_ok && gs.rules_ok);
            ZL_CHECK_EQ(gs.tick_rate, 64);
            ZL_CHECK_EQ(gs.players, BOTS);
            ZL_CHECK(gs.slot[2] == 2 && gs.name_len[2] == 5 && memcmp(gs.name[2], "curie", 5) == 0);
            ZL_CHECK(gs.motd_len > GAMESTATE_BYTES / 2u && gs.motd[0] == 'a');
            zl_client_block_release(&m.client[i]);
        }
    }
    zl_match_run(1000000u); /* the last acks */
    while (zl_server_next_notice(&m.server, &n))
        sent_notices += n.kind == ZL_NOTICE_BLOCK_SENT;
    zl_test_note("a %u-byte FPS gamestate to each of %d clients at its JOIN through 200 ms, 10%% "
                 "loss, 5%% copies, 5%% reordered: the slowest read it %u ms after its JOIN "
                 "(bound %u ms)",
                 GAMESTATE_BYTES, BOTS, worst / 1000u,
                 bound_us(GAMESTATE_BYTES, rough.rtt_us) / 1000u);
    note_link("gamestate");
    ZL_CHECK_EQ(joins, BOTS);
    ZL_CHECK_EQ(done, (1u << BOTS) - 1u);
    ZL_CHECK(worst <= bound_us(GAMESTATE_BYTES, rough.rtt_us));
    ZL_CHECK_EQ(sent_notices, BOTS);
}

/* A client uploads a block (a replay, a custom spray) beside its commands;
 * the server gets it whole and posts a notice. */
static void test_upload(void)
{
    zl_server_notice n;
    zl_server_client_stats ss;
    const uint8_t *data;
    uint32_t t, received = 0;
    int len = 0;
    start(&rough);
    zl_match_run(3000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    while (zl_server_next_notice(&m.server, &n))
        ;
    fill(block, BIG_BLOCK, 99);
    ZL_CHECK_EQ(zl_client_block_send(&m.client[1], block, BIG_BLOCK), ZL_OK);
    for (t = 0; t < 10000000u && !received; t += 1000u) {
        zl_match_run(1000u);
        while (zl_server_next_notice(&m.server, &n))
            received |= n.kind == ZL_NOTICE_BLOCK_RECEIVED && n.slot == slot_of(1);
    }
    len = zl_server_block_received(&m.server, slot_of(1), &data);
    zl_server_get_client_stats(&m.server, slot_of(1), zl_test_time_us, &ss);
    zl_test_note("a %u-byte upload beside the commands: %u ms (bound %u ms); %u packets refused "
                 "by the server's flood limit",
                 BIG_BLOCK, t / 1000u, bound_us(BIG_BLOCK, rough.rtt_us) / 1000u, ss.flooded);
    ZL_CHECK(received);
    ZL_CHECK_EQ(len, BIG_BLOCK);
    ZL_CHECK(len > 0 && memcmp(data, block, BIG_BLOCK) == 0);
    ZL_CHECK(t <= bound_us(BIG_BLOCK, rough.rtt_us));
    zl_server_block_release(&m.server, slot_of(1));
    ZL_CHECK_EQ(zl_server_block_received(&m.server, slot_of(1), &data), ZL_ERR_AGAIN);
}

/* Two blocks in a row while the client holds on to the first: the second
 * is refused (unacknowledged) until the first is released, then arrives
 * whole; a client without a buffer refuses every block and stays fine. */
static void test_refusals(void)
{
    static uint8_t second[1000];
    const uint8_t *data;
    zl_client_stats cs;
    zl_block_status st;
    int len;
    start(&rough);
    m.client[2].config.block_buffer = NULL;
    m.client[2].config.block_capacity = 0;
    zl_match_run(3000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    fill(block, 3000u, 5);
    fill(second, sizeof second, 6);
    ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), block, 3000u), ZL_OK);
    ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(2), block, 3000u), ZL_OK);
    ZL_CHECK(wait_download(3000000u) < 3000000u);
    zl_match_run(1500000u); /* the acks reach the server */
    ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), second, sizeof second), ZL_OK);
    zl_match_run(2000000u);
    zl_client_get_stats(&m.client[0], zl_test_time_us, &cs);
    ZL_CHECK(cs.blocks.refused_busy > 0);
    len = zl_client_block_received(&m.client[0], &data);
    ZL_CHECK(len == 3000 && memcmp(data, block, 3000u) == 0); /* the first, untouched */
    zl_client_block_release(&m.client[0]);
    zl_match_run(2000000u);
    len = zl_client_block_received(&m.client[0], &data);
    ZL_CHECK(len == (int)sizeof second && memcmp(data, second, sizeof second) == 0);
    zl_client_block_progress(&m.client[0], NULL, &st);
    ZL_CHECK_EQ(st.id, 1);
    zl_client_get_stats(&m.client[2], zl_test_time_us, &cs);
    zl_server_block_progress(&m.server, slot_of(2), &st, NULL);
    zl_test_note("held first block: %u packets refused until released; no buffer: %u refused, "
                 "%u of %u bytes acknowledged",
                 m.client[0].blocks.stats.refused_busy, cs.blocks.refused_large, st.done,
                 st.total);
    ZL_CHECK(cs.blocks.refused_large > 0);
    ZL_CHECK_EQ(st.state, ZL_BLOCK_ACTIVE);
    ZL_CHECK_EQ(st.done, 0);
    ZL_CHECK_EQ(zl_client_block_received(&m.client[2], &data), ZL_ERR_AGAIN);
    ZL_CHECK(zl_client_state(&m.client[2]) == ZL_CLIENT_CONNECTED);
    ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), NULL, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_server_block_send(&m.server, slot_of(0), block, ZL_BLOCK_MAX + 1u),
                ZL_ERR_INVALID);
}

/* ---- Sections by hand ---- */

static unsigned total_bits(void) { return zl_bits_required(ZL_BLOCK_MAX - 1u); }
static unsigned chunk_bits(void) { return zl_bits_required(ZL_BLOCK_CHUNKS - 1u); }

/* A section of block `id` of `total` bytes with one run, its bytes `fillb`,
 * then `extra` bytes of inner message. Returns its length. */
static size_t section(uint8_t *out, uint8_t inner, uint16_t id, uint32_t total, uint32_t first,
                      uint32_t count, uint8_t fillb, size_t data, size_t extra)
{
    zl_bitwriter w;
    int head;
    zl_bitwriter_init(&w, out, 64);
    zl_bitwriter_bits(&w, inner, ZL_PACKET_TYPE_BITS);
    zl_bitwriter_bits(&w, id, 16);
    zl_bitwriter_bits(&w, total - 1u, total_bits());
    zl_bitwriter_bits(&w, 0, 2);
    zl_bitwriter_bits(&w, first, chunk_bits());
    zl_bitwriter_bits(&w, count - 1u, chunk_bits());
    head = zl_bitwriter_finish(&w);
    memset(out + head, fillb, data + extra);
    return (size_t)head + data + extra;
}

static void test_hostile_sections(void)
{
    static zl_blocks b;
    static uint8_t buf[256];
    uint8_t p[512], type;
    const uint8_t *payload, *data;
    size_t len, n;
    zl_blocks_init(&b, buf, sizeof buf);
    /* Runs past the block's end, bytes short of the run, an inner type
     * this direction never carries, bytes after an empty inner message. */
    n = section(p, 0, 0, 100, 1, 2, 1, 36, 0); /* chunk 1..2 of a 2-chunk block */
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    n = section(p, 0, 0, 100, 0, 1, 1, 10, 0);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    n = section(p, ZL_MSG_COMMANDS, 0, 100, 1, 1, 1, 36, 4);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    n = section(p, 0, 0, 100, 1, 1, 1, 36, 1);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, 2, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, 0, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(b.stats.malformed, 6);
    /* Larger than the buffer: refused. */
    n = section(p, 0, 0, 300, 0, 1, 1, ZL_BLOCK_CHUNK, 0);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(b.stats.refused_large, 1);
    /* A good section beside a snapshot: stored, the snapshot handed on. */
    n = section(p, ZL_MSG_SNAPSHOT, 0, 100, 1, 1, 0xAB, 36, 5);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_OK);
    payload = p;
    len = n;
    ZL_CHECK_EQ(zl_blocks_unwrap(&b, &type, &payload, &len), 0);
    ZL_CHECK_EQ(type, ZL_MSG_SNAPSHOT);
    ZL_CHECK_EQ(len, 5);
    ZL_CHECK(payload == p + n - 5);
    /* Its copy is a duplicate; the same block with another total is not
     * the same block. */
    payload = p;
    len = n;
    zl_blocks_unwrap(&b, &type, &payload, &len);
    ZL_CHECK_EQ(b.stats.duplicates, 1);
    n = section(p, 0, 0, 200, 0, 1, 1, ZL_BLOCK_CHUNK, 0);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_MALFORMED);
    /* The first chunk completes it. */
    n = section(p, 0, 0, 100, 0, 1, 0xCD, ZL_BLOCK_CHUNK, 0);
    payload = p;
    len = n;
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_OK);
    ZL_CHECK_EQ(zl_blocks_unwrap(&b, &type, &payload, &len), 1);
    ZL_CHECK_EQ(type, ZL_MSG_KEEPALIVE);
    ZL_CHECK_EQ(zl_blocks_received(&b, &data), 100);
    ZL_CHECK(data[0] == 0xCD && data[ZL_BLOCK_CHUNK] == 0xAB && data[99] == 0xAB);
    /* A newer block while this one is held: refused; an older one's copy
     * taken and ignored. */
    n = section(p, 0, 1, 50, 0, 1, 1, 50, 0);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_ERR_FULL);
    zl_blocks_release(&b);
    ZL_CHECK_EQ(zl_blocks_received(&b, &data), ZL_ERR_AGAIN);
    n = section(p, 0, 0, 100, 0, 1, 1, ZL_BLOCK_CHUNK, 0);
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_OK);
    payload = p;
    len = n;
    ZL_CHECK_EQ(zl_blocks_unwrap(&b, &type, &payload, &len), 0);
    /* Block 3 half received, then block 5: 3 is abandoned. */
    n = section(p, 0, 3, 200, 0, 1, 1, ZL_BLOCK_CHUNK, 0);
    payload = p;
    len = n;
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_OK);
    zl_blocks_unwrap(&b, &type, &payload, &len);
    n = section(p, 0, 5, 10, 0, 1, 7, 10, 0);
    payload = p;
    len = n;
    ZL_CHECK_EQ(zl_blocks_check(&b, p, n, ZL_MSG_SNAPSHOT), ZL_OK);
    ZL_CHECK_EQ(zl_blocks_unwrap(&b, &type, &payload, &len), 1);
    ZL_CHECK_EQ(b.stats.abandoned, 1);
    ZL_CHECK_EQ(zl_blocks_received(&b, &data), 10);
    ZL_CHECK_EQ(b.stats.blocks_received, 2);
}

/* The sending side on its own: sizes, one block at a time, sections that
 * fit the room given, acks completing it, a lost packet's chunks again. */
static void test_sender(void)
{
    static zl_blocks b;
    static uint8_t data[1000];
    zl_link link;
    zl_link_acks acks;
    zl_block_status st;
    uint8_t payload[ZL_PACKET_MAX_PAYLOAD];
    int bytes;
    zl_link_init(&link, 0);
    zl_blocks_init(&b, NULL, 0);
    ZL_CHECK_EQ(zl_blocks_send(&b, data, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_blocks_send(&b, data, ZL_BLOCK_MAX + 1u), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_blocks_send(&b, data, sizeof data), ZL_OK);
    ZL_CHECK_EQ(zl_blocks_send(&b, data, sizeof data), ZL_ERR_FULL);
    /* Not beside a message before the receiver took a chunk. */
    bytes = 10;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 1000, 1000),
                ZL_MSG_SNAPSHOT);
    b.out.accepted = 1; /* as if a packet alone had been acknowledged */
    bytes = 10;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 300, 1000),
                ZL_MSG_BLOCK);
    ZL_CHECK(bytes <= 310 && bytes > 10 + 3 * ZL_BLOCK_CHUNK);
    ZL_CHECK_EQ(b.out.fresh, 4); /* 8-byte header + 4 x 64 <= 300 */
    /* That packet (sequence 0) is acknowledged: its chunks are done. */
    acks.count = 1;
    acks.sequence[0] = 0;
    ZL_CHECK_EQ(zl_blocks_acked(&b, &acks), 0);
    zl_blocks_progress(&b, &st, NULL);
    ZL_CHECK_EQ(st.done, 4 * ZL_BLOCK_CHUNK);
    /* The rest goes in the next packet (sequence 1). With every chunk sent
     * and room to spare, the next packet carries a copy of that last one
     * (a tail probe: a loss there is the one no later ack would reveal
     * early); then nothing is due. */
    bytes = 0;
    link.next_sequence = 1;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 2000, 2000),
                ZL_MSG_BLOCK);
    ZL_CHECK_EQ(b.out.fresh, b.out.chunks);
    link.next_sequence = 2;
    bytes = 0;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 2000, 3000),
                ZL_MSG_BLOCK);
    ZL_CHECK_EQ(b.stats.tail_copies, 1);
    link.next_sequence = 3;
    bytes = 0;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 2000, 3500),
                ZL_MSG_SNAPSHOT); /* all in flight, the probe spent */
    /* Both are lost: after the first resend delay (no round trip measured
     * yet) their chunks go again, in packet 3. */
    bytes = 0;
    ZL_CHECK_EQ(zl_blocks_attach(&b, &link, payload, &bytes, ZL_MSG_SNAPSHOT, 2000, 300000),
                ZL_MSG_BLOCK);
    ZL_CHECK_EQ(b.stats.bytes_resent, 2u * (sizeof data - 4u * ZL_BLOCK_CHUNK));
    ZL_CHECK_EQ(b.stats.expired, 2);
    acks.sequence[0] = 3;
    ZL_CHECK_EQ(zl_blocks_acked(&b, &acks), 1);
    zl_blocks_progress(&b, &st, NULL);
    ZL_CHECK_EQ(st.state, ZL_BLOCK_DONE);
    ZL_CHECK_EQ(st.done, sizeof data);
    ZL_CHECK_EQ(zl_blocks_send(&b, data, 10), ZL_OK);
    zl_blocks_progress(&b, &st, NULL);
    ZL_CHECK_EQ(st.id, 1);
}

/* The FPS gamestate's reader refuses what its writer never makes. */
static void test_gamestate_reader(void)
{
    static const char *const names[3] = {"ada", NULL, "a name far longer than thirty-one bytes"};
    fps_gamestate gs;
    uint8_t buf[1024];
    int n = fps_gamestate_write(buf, sizeof buf, 64, names, 3, "welcome"), k;
    ZL_CHECK(n > 0);
    ZL_CHECK_EQ(fps_gamestate_read(buf, (size_t)n, &gs), ZL_OK);
    ZL_CHECK(gs.arena_ok && gs.rules_ok);
    ZL_CHECK_EQ(gs.players, 2);
    ZL_CHECK(gs.slot[1] == 2 && gs.name_len[1] == FPS_NAME_MAX);
    ZL_CHECK(gs.motd_len == 7 && memcmp(gs.motd, "welcome", 7) == 0);
    for (k = 0; k < n; k++) /* every cut short */
        ZL_CHECK_EQ(fps_gamestate_read(buf, (size_t)k, &gs), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(fps_gamestate_read(buf, (size_t)n + 1u, &gs), ZL_ERR_MALFORMED);
    buf[12] ^= 1u; /* a wall moved: still read, but not this build's arena */
    ZL_CHECK_EQ(fps_gamestate_read(buf, (size_t)n, &gs), ZL_OK);
    ZL_CHECK(!gs.arena_ok || !gs.rules_ok);
    ZL_CHECK_EQ(fps_gamestate_write(buf, 20, 64, names, 3, "welcome"), ZL_ERR_OVERFLOW);
}

void zl_suite_blocks(void)
{
    ZL_RUN(test_hostile_sections);
    ZL_RUN(test_sender);
    ZL_RUN(test_gamestate_reader);
    ZL_RUN(test_download_on_time_others_untouched);
    ZL_RUN(test_gamestate_to_every_joining_client);
    ZL_RUN(test_upload);
    ZL_RUN(test_refusals);
}
