/* zl_broadcast.c - writes the spectator stream once per snapshot and holds
 * each fragment back until the delay allows it out. */
#include "zl_broadcast.h"

#include <string.h>

#include "zl_packet.h"

/* What a spectator needs to fetch a published fragment before playing it. */
#define FETCH_MARGIN_MS 1000u

void zl_broadcast_config_default(zl_broadcast_config *c)
{
    c->fragment_ms = 3000u;
    c->delay_ms = 10000u;
    c->snapshot_rate = 0;
}

static uint32_t ms_to_ticks(uint32_t ms, uint32_t rate)
{
    return (uint32_t)(((uint64_t)ms * rate + 500u) / 1000u);
}

int zl_broadcast_init(zl_broadcast *b, const zl_broadcast_config *c, const zl_server *s,
                      zl_broadcast_emit emit, void *ctx)
{
    uint32_t rate = s->config.tick_rate, hold_ms;
    uint32_t every = c->snapshot_rate ? (rate + c->snapshot_rate - 1u) / c->snapshot_rate : 1u;
    uint32_t fragment_ticks = ms_to_ticks(c->fragment_ms, rate);
    if (c->snapshot_rate > rate || c->fragment_ms < 100u || fragment_ticks < 2u * every)
        return ZL_ERR_INVALID;
    hold_ms = c->delay_ms > c->fragment_ms + FETCH_MARGIN_MS
                  ? c->delay_ms - c->fragment_ms - FETCH_MARGIN_MS
                  : 0;
    /* Held fragments: those wholly inside the hold and the one it cuts. */
    if (hold_ms / c->fragment_ms + 1u > ZL_BROADCAST_HELD)
        return ZL_ERR_INVALID;
    memset(b, 0, sizeof *b);
    b->config = *c;
    b->emit = emit;
    b->ctx = ctx;
    b->every = every;
    b->fragment_ticks = fragment_ticks;
    b->hold_ticks = ms_to_ticks(hold_ms, rate);
    b->delay_ticks = ms_to_ticks(c->delay_ms, rate);
    zl_snapshot_client_reset(&b->chain);
    zl_demo_writer_init(&b->writer, b->stage, sizeof b->stage);
    return ZL_OK;
}

/* Writes the snapshot of the server's tick for the spectator client c into
 * out (ZL_PACKET_MAX_PAYLOAD bytes): its length, or 0 when it did not fit. */
static uint32_t write_snapshot(zl_broadcast *b, zl_snapshot_client *c, zl_server *s, uint8_t *out)
{
    zl_bitwriter w;
    uint16_t seq = b->sequence++;
    int bits;
    zl_bitwriter_init(&w, out, ZL_PACKET_MAX_PAYLOAD);
    bits = zl_snapshot_message_write(c, &s->world, &s->layout, s->tick, 0, NULL, 0, NULL,
                                     ZL_SNAPSHOT_NONE, NULL, ZL_PACKET_MAX_PAYLOAD * 8u, seq, &w);
    if (bits < 0) {
        b->stats.overflows++;
        return 0;
    }
    /* HTTP delivers every fragment: the record is held as soon as written. */
    zl_snapshot_acked(c, seq);
    return (uint32_t)zl_bitwriter_finish(&w);
}

/* The tick's stream time. */
static uint64_t stream_us(const zl_broadcast *b, const zl_server *s, uint32_t tick)
{
    return (uint64_t)(tick - b->first_tick) * s->tick_us;
}

static void publish(zl_broadcast *b, zl_server *s, zl_broadcast_slot *sl)
{
    zl_broadcast_fragment f;
    f.number = sl->number;
    f.first_tick = sl->first_tick;
    f.last_tick = sl->last_tick;
    f.present_tick = s->tick;
    f.bytes = sl->bytes;
    f.len = sl->len;
    b->emit(b->ctx, &f);
    b->stats.fragments++;
    b->stats.bytes += sl->len;
    b->stats.key_bytes += sl->key_len;
    sl->used = 0;
    b->oldest = sl->number + 1u;
}

/* Closes the fragment being written into its slot of the ring (publishing
 * the fragment there first, early, when the ring is full). */
static void close_fragment(zl_broadcast *b, zl_server *s)
{
    zl_broadcast_slot *sl = &b->slot[b->number % ZL_BROADCAST_HELD];
    const uint8_t *bytes;
    int n = zl_demo_finish(&b->writer, &bytes);
    ZL_ASSERT(n > 0);
    if (sl->used) {
        b->stats.early++;
        publish(b, s, sl);
    }
    memcpy(sl->bytes, bytes, (size_t)n);
    sl->len = (size_t)n;
    sl->used = 1;
    sl->number = b->number++;
    sl->first_tick = b->frag_first;
    sl->last_tick = b->frag_last;
    sl->key_len = b->frag_key;
}

/* Opens the next fragment at the server's tick with its keyframe: a full
 * snapshot, the same frame as the chain's record of this tick. 0, or -1
 * when the keyframe did not fit a packet. */
static int open_fragment(zl_broadcast *b, zl_server *s)
{
    uint8_t record[ZL_PACKET_MAX_PAYLOAD];
    uint32_t n;
    zl_snapshot_client_reset(&b->key);
    n = write_snapshot(b, &b->key, s, record);
    if (n == 0)
        return -1;
    (void)zl_demo_begin(&b->writer, stream_us(b, s, s->tick));
    (void)zl_demo_item(&b->writer, ZL_DEMO_KEYFRAME, stream_us(b, s, s->tick), record, n);
    b->frag_first = b->frag_last = s->tick;
    b->frag_key = n;
    /* A spectator joining here holds the keyframe and nothing older. */
    zl_snapshot_client_hold_only_baseline(&b->chain);
    return 0;
}

static int publish_due(zl_broadcast *b, zl_server *s, int all)
{
    int published = 0;
    while (b->oldest != b->number) {
        zl_broadcast_slot *sl = &b->slot[b->oldest % ZL_BROADCAST_HELD];
        if (!all && s->tick - sl->last_tick < b->hold_ticks)
            break;
        publish(b, s, sl);
        published++;
    }
    return published;
}

int zl_broadcast_update(zl_broadcast *b, zl_server *s)
{
    uint8_t record[ZL_PACKET_MAX_PAYLOAD];
    uint32_t n;
    /* Before the first tick the world holds nothing to show. */
    if (!s->world.started || s->world.newest != s->tick ||
        (b->started && (int32_t)(s->tick - b->next_tick) < 0))
        return publish_due(b, s, 0);
    b->next_tick = s->tick + b->every;
    n = write_snapshot(b, &b->chain, s, record);
    if (n == 0)
        return publish_due(b, s, 0);
    b->stats.snapshots++;
    if (!b->started) {
        if (b->stats.snapshots == 1)
            b->first_tick = s->tick;
        /* The chain's first record is full, like the keyframe beside it. */
        b->started = open_fragment(b, s) == 0;
        return publish_due(b, s, 0);
    }
    /* A long enough fragment, or a full one, closes; the next one's
     * keyframe stands for this tick's record. */
    if (s->tick - b->frag_first >= b->fragment_ticks ||
        zl_demo_item(&b->writer, ZL_DEMO_SNAPSHOT, stream_us(b, s, s->tick), record, n) != ZL_OK) {
        close_fragment(b, s);
        b->started = open_fragment(b, s) == 0;
    } else {
        b->frag_last = s->tick;
    }
    return publish_due(b, s, 0);
}

int zl_broadcast_flush(zl_broadcast *b, zl_server *s)
{
    if (b->started)
        close_fragment(b, s);
    b->started = 0;
    return publish_due(b, s, 1);
}
