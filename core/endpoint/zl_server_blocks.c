/* zl_server_blocks.c - the server's blocks: each client's, paced within what
 * its byte rate leaves after its snapshots, and the API a game calls. */
#include "zl_server_blocks.h"

/* The time of the first tick at or after t_us: when the snapshot due at
 * t_us goes out. Called within a tick, while s->next_tick_us is that
 * tick's time. */
static uint64_t tick_from(const zl_server *s, uint64_t t_us)
{
    uint64_t base = s->next_tick_us;
    return t_us <= base ? base : base + (t_us - base + s->tick_us - 1u) / s->tick_us * s->tick_us;
}

/* Bytes a block may spend at now_us, given `stored` credit (topped up at
 * c->rate_us), so that the snapshot due at due_us finds the credit it
 * would have found anyway. The credit tops up at the client's rate and is
 * capped at ZL_MAX_PACKET at each top-up: whatever would be cut there is
 * the block's (an idle link's whole surplus), and nothing below it. The
 * top-up counted on is from now to that snapshot's tick, not its own call
 * (a server catching up runs ticks late, back to back: then less). */
static uint32_t budget(const zl_server *s, const zl_server_slot *c, int64_t stored,
                       uint64_t due_us, uint64_t now_us)
{
    uint64_t rate = c->settings.rate, next_us = tick_from(s, due_us);
    int64_t now_credit, keep;
    now_credit = stored + (int64_t)((now_us - c->rate_us) * rate / 1000000u);
    if (now_credit > ZL_MAX_PACKET)
        now_credit = ZL_MAX_PACKET;
    keep = stored - ZL_MAX_PACKET +
           (next_us > c->rate_us ? (int64_t)((next_us - c->rate_us) * rate / 1000000u) : 0);
    if (keep < now_credit)
        now_credit = keep;
    return now_credit > 0 ? (uint32_t)now_credit : 0u;
}

void zl_server_blocks_join(zl_server *s, int slot)
{
    uint8_t *buffers = (uint8_t *)s->config.block_buffers;
    uint32_t cap = buffers ? s->config.block_capacity : 0u;
    zl_blocks_init(&s->slot[slot].blocks, buffers ? buffers + (size_t)slot * cap : NULL, cap);
}

uint8_t zl_server_blocks_attach(zl_server *s, int slot, uint8_t *payload, int *bytes,
                                uint64_t now_us)
{
    zl_server_slot *c = &s->slot[slot];
    uint64_t due_us;
    if (!zl_blocks_pending(&c->blocks) || *bytes < 0)
        return ZL_MSG_SNAPSHOT;
    /* The next snapshot: send_snapshots moves the time on after this one. */
    due_us = c->next_snapshot_us + 1000000u / c->settings.updaterate;
    return zl_blocks_attach(&c->blocks, &c->conn.link, payload, bytes, ZL_MSG_SNAPSHOT,
                            budget(s, c, c->rate_credit - zl_conn_overhead(&c->conn) - *bytes, due_us,
                                   now_us),
                            now_us);
}

void zl_server_blocks_send(zl_server *s, uint64_t now_us)
{
    int i;
    for (i = 0; i < s->config.max_clients; i++) {
        zl_server_slot *c = &s->slot[i];
        int len;
        if (!c->connected || !zl_blocks_pending(&c->blocks))
            continue;
        len = zl_blocks_send_alone(&c->blocks, &c->conn,
                                   budget(s, c, c->rate_credit, c->next_snapshot_us, now_us), now_us);
        if (len > 0)
            c->rate_credit -= len;
    }
}

int zl_server_block_send(zl_server *s, int slot, const void *data, uint32_t len)
{
    ZL_ASSERT(s);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    return zl_blocks_send(&s->slot[slot].blocks, data, len);
}

int zl_server_block_received(const zl_server *s, int slot, const uint8_t **data)
{
    ZL_ASSERT(s && data);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    return zl_blocks_received(&s->slot[slot].blocks, data);
}

void zl_server_block_release(zl_server *s, int slot)
{
    ZL_ASSERT(s);
    if (zl_server_connected(s, slot))
        zl_blocks_release(&s->slot[slot].blocks);
}

int zl_server_block_progress(const zl_server *s, int slot, zl_block_status *sending,
                             zl_block_status *receiving)
{
    ZL_ASSERT(s);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    zl_blocks_progress(&s->slot[slot].blocks, sending, receiving);
    return ZL_OK;
}
