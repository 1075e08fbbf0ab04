/* zl_reliable.c - the reliable channel: a numbered send queue cleared by the
 * link's packet acks, and an in-order receive window. */
#include <string.h>

#include "zl_reliable.h"

#define MASK (ZL_RELIABLE_MESSAGES - 1u)
/* Messages one packet carries at most (the width of a packet's mask). */
#define PER_PACKET 32u
#define COUNT_BITS 6u
#define OFFSET_BITS 5u
#define ID_BITS 16u

static unsigned len_bits(void) { return zl_bits_required(ZL_RELIABLE_MESSAGE_MAX); }

/* a - b as a signed distance between 16-bit message numbers. */
static int id_diff(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b); }

void zl_reliable_init(zl_reliable *r)
{
    ZL_ASSERT(r);
    memset(r, 0, sizeof *r);
}

int zl_reliable_send(zl_reliable *r, const void *data, size_t len)
{
    zl_reliable_message *m;
    ZL_ASSERT(r && (data || len == 0));
    if (len == 0 || len > ZL_RELIABLE_MESSAGE_MAX)
        return ZL_ERR_INVALID;
    if ((uint16_t)(r->next_id - r->oldest) >= ZL_RELIABLE_MESSAGES) {
        r->stats.refused_full++;
        return ZL_ERR_FULL;
    }
    m = &r->out[r->next_id & MASK];
    m->id = r->next_id++;
    m->len = (uint16_t)len;
    m->used = 1;
    m->sent_us = 0;
    memcpy(m->data, data, len);
    r->stats.sent++;
    return ZL_OK;
}

static int is_due(const zl_reliable_message *m, uint64_t now_us, uint32_t resend_us)
{
    return m->used && (m->sent_us == 0 || now_us - m->sent_us >= resend_us);
}

int zl_reliable_due(const zl_reliable *r, uint64_t now_us, uint32_t resend_us)
{
    uint16_t id;
    ZL_ASSERT(r);
    for (id = r->oldest; id != r->next_id; id++)
        if (is_due(&r->out[id & MASK], now_us, resend_us))
            return 1;
    return 0;
}

int zl_reliable_write(zl_reliable *r, zl_bitwriter *w, uint16_t sequence, uint64_t now_us,
                      uint32_t resend_us)
{
    uint32_t room, mask = 0, need = COUNT_BITS + ID_BITS;
    uint16_t id, first = 0;
    unsigned count = 0, i;
    zl_reliable_packet *p;
    ZL_ASSERT(r && w);
    room = w->capacity_bits - w->bit_pos;
    /* Choose first: the due messages, oldest first, within 32 numbers of
     * the first and the room left. */
    for (id = r->oldest; id != r->next_id && count < PER_PACKET; id++) {
        const zl_reliable_message *m = &r->out[id & MASK];
        uint32_t bits = OFFSET_BITS + len_bits() + 8u * m->len;
        if (!is_due(m, now_us, resend_us))
            continue;
        if (count == 0)
            first = id;
        if ((uint16_t)(id - first) >= PER_PACKET || need + bits > room)
            break;
        need += bits;
        mask |= 1u << (uint16_t)(id - first);
        count++;
    }
    if (count == 0)
        return 0;
    zl_bitwriter_bits(w, count, COUNT_BITS);
    zl_bitwriter_bits(w, first, ID_BITS);
    for (i = 0; i < PER_PACKET; i++) {
        zl_reliable_message *m = &r->out[(uint16_t)(first + i) & MASK];
        uint32_t k;
        if (!((mask >> i) & 1u))
            continue;
        zl_bitwriter_bits(w, i, OFFSET_BITS);
        zl_bitwriter_bits(w, m->len, len_bits());
        for (k = 0; k < m->len; k++)
            zl_bitwriter_bits(w, m->data[k], 8);
        m->sent_us = now_us ? now_us : 1u;
        r->stats.transmissions++;
    }
    r->stats.bits_sent += need;
    p = &r->packets[sequence & MASK];
    p->sequence = sequence;
    p->used = 1;
    p->count = (uint8_t)count;
    p->first = first;
    p->mask = mask;
    return w->error ? w->error : (int)count;
}

void zl_reliable_acked(zl_reliable *r, const zl_link_acks *acks)
{
    uint32_t a, i;
    ZL_ASSERT(r && acks);
    for (a = 0; a < acks->count; a++) {
        zl_reliable_packet *p = &r->packets[acks->sequence[a] & MASK];
        if (!p->used || p->sequence != acks->sequence[a])
            continue;
        p->used = 0;
        for (i = 0; i < PER_PACKET; i++) {
            uint16_t id = (uint16_t)(p->first + i);
            zl_reliable_message *m = &r->out[id & MASK];
            if (((p->mask >> i) & 1u) && m->used && m->id == id) {
                m->used = 0;
                r->stats.acked++;
            }
        }
    }
    while (r->oldest != r->next_id && !r->out[r->oldest & MASK].used)
        r->oldest++;
}

/* Keeps one received message if it is new and inside the window. */
static void keep(zl_reliable *r, uint16_t id, const uint8_t *data, uint16_t len)
{
    zl_reliable_message *m = &r->in[id & MASK];
    int ahead = id_diff(id, r->expect);
    if (ahead < 0 || (ahead < (int)ZL_RELIABLE_MESSAGES && m->used && m->id == id)) {
        r->stats.duplicates++;
        return;
    }
    if (ahead >= (int)ZL_RELIABLE_MESSAGES) {
        r->stats.out_of_window++;
        return;
    }
    m->id = id;
    m->len = len;
    m->used = 1;
    memcpy(m->data, data, len);
}

int zl_reliable_read(zl_reliable *r, zl_bitreader *br)
{
    uint8_t data[ZL_RELIABLE_MESSAGE_MAX];
    uint32_t count, i, k, left;
    uint16_t first;
    ZL_ASSERT(r && br);
    left = zl_bitreader_bits_left(br);
    count = zl_bitreader_bits(br, COUNT_BITS);
    first = (uint16_t)zl_bitreader_bits(br, ID_BITS);
    if (count == 0 || count > PER_PACKET)
        br->error = br->error ? br->error : ZL_ERR_MALFORMED;
    for (i = 0; i < count && br->error == ZL_OK; i++) {
        uint16_t id = (uint16_t)(first + zl_bitreader_bits(br, OFFSET_BITS));
        uint32_t len = zl_bitreader_bits(br, len_bits());
        if (len == 0 || len > ZL_RELIABLE_MESSAGE_MAX) {
            br->error = br->error ? br->error : ZL_ERR_MALFORMED;
            break;
        }
        for (k = 0; k < len; k++)
            data[k] = (uint8_t)zl_bitreader_bits(br, 8);
        if (br->error == ZL_OK)
            keep(r, id, data, (uint16_t)len);
    }
    r->stats.bits_received += left - zl_bitreader_bits_left(br);
    if (br->error != ZL_OK)
        r->stats.malformed++;
    return br->error;
}

int zl_reliable_receive(zl_reliable *r, void *buf, size_t cap)
{
    zl_reliable_message *m;
    ZL_ASSERT(r && (buf || cap == 0));
    m = &r->in[r->expect & MASK];
    if (!m->used || m->id != r->expect)
        return ZL_ERR_AGAIN;
    if (cap < m->len)
        return ZL_ERR_OVERFLOW;
    memcpy(buf, m->data, m->len);
    m->used = 0;
    r->expect++;
    r->stats.delivered++;
    return m->len;
}
