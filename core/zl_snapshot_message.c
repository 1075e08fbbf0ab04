/* zl_snapshot_message.c - the snapshot message: its header (tick and the
 * newest command run) around the entity section, written and read in one place. */
#include "zl_snapshot.h"

int zl_snapshot_message_write(zl_snapshot_client *c, zl_snapshot_world *world,
                              const zl_snapshot_layout *layout, uint32_t tick, uint32_t executed,
                              const uint16_t *relevant, int relevant_count,
                              const uint32_t *priority, uint16_t own_entity,
                              uint32_t budget_bits, uint16_t packet_sequence, zl_bitwriter *bw)
{
    ZL_ASSERT(bw != NULL);
    if (budget_bits <= ZL_SNAPSHOT_HEADER_BITS)
        return ZL_ERR_OVERFLOW;
    zl_bitwriter_bits(bw, tick, 32);
    zl_bitwriter_bits(bw, executed, 32);
    return zl_snapshot_write(c, world, layout, tick, relevant, relevant_count, priority, own_entity,
                             budget_bits - ZL_SNAPSHOT_HEADER_BITS, packet_sequence, bw);
}

int zl_snapshot_message_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout,
                             uint16_t own_entity, const void *payload, size_t len,
                             uint32_t *executed, const zl_snapshot_frame **out)
{
    zl_bitreader r;
    uint32_t tick;
    ZL_ASSERT(rx != NULL && executed != NULL && out != NULL);
    *out = NULL;
    zl_bitreader_init(&r, payload, len);
    tick = zl_bitreader_bits(&r, 32);
    *executed = zl_bitreader_bits(&r, 32);
    if (r.error != ZL_OK) {
        rx->malformed++;
        return r.error;
    }
    return zl_snapshot_read(rx, layout, tick, own_entity, &r, out);
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
