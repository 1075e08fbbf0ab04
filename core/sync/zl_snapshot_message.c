/* zl_snapshot_message.c - the snapshot message: its header (tick and the
 * newest command run), the events section and the entity section, written
 * and read in one place. */
#include "zl_snapshot.h"

int zl_snapshot_message_write(zl_snapshot_client *c, zl_snapshot_world *world,
                              const zl_snapshot_layout *layout, uint32_t tick, uint32_t executed,
                              const uint16_t *relevant, int relevant_count,
                              const uint32_t *priority, uint16_t own_entity,
                              const zl_snapshot_events *events, uint32_t budget_bits,
                              uint16_t packet_sequence, zl_bitwriter *bw)
{
    zl_event_section section = {0, 0, 0, 1, 0};
    int bits;
    ZL_ASSERT(bw != NULL);
    if (budget_bits <= ZL_SNAPSHOT_HEADER_BITS + 1u)
        return ZL_ERR_OVERFLOW;
    budget_bits -= ZL_SNAPSHOT_HEADER_BITS;
    if (zl_snapshot_client_has_base(c, tick)) {
        zl_bitwriter_bool(bw, 1);
        zl_bitwriter_bits(bw, tick & ((1u << ZL_SNAPSHOT_TICK_BITS) - 1u), ZL_SNAPSHOT_TICK_BITS);
    } else {
        zl_bitwriter_bool(bw, 0);
        zl_bitwriter_bits(bw, tick, 32);
    }
    zl_bitwriter_bits(bw, executed, 32);
    if (events) {
        bits = zl_event_section_write(events->sender, events->log, &events->audience, tick,
                                      events->resend_ticks, budget_bits / 2u, bw, &section);
        if (bits < 0)
            return bits;
    } else {
        zl_bitwriter_bool(bw, 0);
    }
    /* The entity section starts on a byte: the shared sections of clients
     * with the same baseline are then copied a byte at a time. */
    zl_bitwriter_align(bw);
    bits = zl_snapshot_write(c, world, layout, tick, relevant, relevant_count, priority,
                             own_entity, budget_bits - (section.bits + 7u) / 8u * 8u,
                             packet_sequence, bw);
    if (bits >= 0 && events)
        zl_event_sender_sent(events->sender, packet_sequence, &section);
    return bits;
}

/* Reads the header's tick into *tick: ZL_OK, the reader's error, or
 * ZL_ERR_AGAIN for a delta's tick with no frame to widen it against. */
static int read_tick(const zl_snapshot_receiver *rx, zl_bitreader *r, uint32_t *tick)
{
    const uint32_t half = 1u << (ZL_SNAPSHOT_TICK_BITS - 1u);
    uint32_t low;
    if (!zl_bitreader_bool(r)) {
        *tick = zl_bitreader_bits(r, 32);
        return r->error;
    }
    low = zl_bitreader_bits(r, ZL_SNAPSHOT_TICK_BITS);
    if (r->error != ZL_OK)
        return r->error;
    if (!rx->have_newest)
        return ZL_ERR_AGAIN;
    /* The tick with these low bits in [newest - half, newest + half). */
    *tick = rx->newest - half +
            ((low - (rx->newest - half)) & ((1u << ZL_SNAPSHOT_TICK_BITS) - 1u));
    return ZL_OK;
}

int zl_snapshot_message_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout,
                             uint16_t own_entity, zl_event_queue *events,
                             const zl_schema *event_schema, const void *payload, size_t len,
                             uint32_t *executed, const zl_snapshot_frame **out)
{
    zl_bitreader r;
    uint32_t tick = 0;
    int rc;
    ZL_ASSERT(rx != NULL && executed != NULL && out != NULL);
    *out = NULL;
    zl_bitreader_init(&r, payload, len);
    rc = read_tick(rx, &r, &tick);
    if (rc == ZL_ERR_AGAIN) {
        rx->missing_base++;
        rx->need_full = 1;
        return rc;
    }
    *executed = zl_bitreader_bits(&r, 32);
    if (r.error == ZL_OK) {
        if (events)
            zl_event_section_read(events, event_schema, tick, &r);
        else if (zl_bitreader_bool(&r))
            r.error = ZL_ERR_MALFORMED;
        zl_bitreader_align(&r);
    }
    if (r.error != ZL_OK) {
        rx->malformed++;
        return r.error;
    }
    return zl_snapshot_read(rx, layout, tick, own_entity, &r, out);
}

int zl_snapshot_message_tick(const zl_snapshot_receiver *rx, const void *payload, size_t len,
                             uint32_t *tick)
{
    zl_bitreader r;
    ZL_ASSERT(rx != NULL && tick != NULL && (payload != NULL || len == 0));
    zl_bitreader_init(&r, payload, len);
    *tick = 0;
    return read_tick(rx, &r, tick);
}

int zl_snapshot_message_executed(const void *payload, size_t len, uint32_t *executed)
{
    zl_bitreader r;
    ZL_ASSERT(executed != NULL && (payload != NULL || len == 0));
    zl_bitreader_init(&r, payload, len);
    /* The tick: its low bits after a 1, all 32 after a 0. */
    zl_bitreader_bits(&r, zl_bitreader_bool(&r) ? ZL_SNAPSHOT_TICK_BITS : 32u);
    *executed = zl_bitreader_bits(&r, 32);
    return r.error;
}

const zl_snapshot_frame *zl_snapshot_receiver_newest(const zl_snapshot_receiver *rx)
{
    uint32_t i;
    ZL_ASSERT(rx != NULL);
    if (!rx->have_newest)
        return NULL;
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++)
        if (rx->valid[i] && rx->frame[i].tick == rx->newest)
            return &rx->frame[i];
    return NULL;
}
