/* zl_link.c - sequence, ack and loss bookkeeping of one connection, in
 * integer arithmetic only, with time always passed in by the caller. */
#include "zl_link.h"

#include <string.h>

#include "zl_bits.h"

#define LOSS_ONE 65536u
/* Adding this before the shift rounds each step up, so the estimate can
 * reach exactly 0 and exactly 65536 instead of stalling short of them. */
#define LOSS_ROUND_UP ((1u << ZL_LINK_LOSS_SHIFT) - 1u)

/* Moves a loss estimate 2^-SHIFT of the way towards 0 or 65536. */
static void loss_feed(uint32_t *loss, int lost)
{
    if (lost)
        *loss += (LOSS_ONE - *loss + LOSS_ROUND_UP) >> ZL_LINK_LOSS_SHIFT;
    else
        *loss -= (*loss + LOSS_ROUND_UP) >> ZL_LINK_LOSS_SHIFT;
}

/* n lost packets in a row. Once the estimate reaches 65536 more losses
 * change nothing, which bounds the work a hostile jump of 32767 sequences
 * can cause (about 1000 steps at shift 7). */
static void loss_feed_run(uint32_t *loss, uint32_t n)
{
    for (; n > 0 && *loss < LOSS_ONE; n--)
        loss_feed(loss, 1);
}

/* ---- bandwidth ---- */

static void roll_rates(zl_link *l, uint64_t now_us)
{
    int n;
    for (n = 0; n < ZL_LINK_RATE_BUCKETS && now_us - l->rate_start_us >= ZL_LINK_RATE_BUCKET_US;
         n++) {
        l->rate_in[l->rate_slot] = l->rate_in_now;
        l->rate_out[l->rate_slot] = l->rate_out_now;
        l->rate_slot = (uint8_t)((l->rate_slot + 1u) % ZL_LINK_RATE_BUCKETS);
        l->rate_in_now = l->rate_out_now = 0;
        l->rate_start_us += ZL_LINK_RATE_BUCKET_US;
    }
    /* After a silence longer than the window every bucket already reads
     * zero: restart at now instead of stepping through the silence. */
    if (now_us - l->rate_start_us >= ZL_LINK_RATE_BUCKET_US)
        l->rate_start_us = now_us;
}

static uint32_t sum_buckets(const uint32_t *bucket)
{
    uint32_t sum = 0;
    int i;
    for (i = 0; i < ZL_LINK_RATE_BUCKETS; i++)
        sum += bucket[i];
    return sum;
}

/* ---- sending and loss out ---- */

/* Decides the fate of the oldest sent packet not yet judged. */
static void judge_oldest_sent(zl_link *l)
{
    int idx = ZL_SEQBUF_FIND(&l->sent, l->unjudged);
    int lost;
    /* Every sequence sent stays in the buffer until it has been judged. */
    ZL_ASSERT(idx >= 0);
    lost = !l->sent.item[idx].acked;
    l->stats.packets_lost_out += (uint32_t)lost;
    loss_feed(&l->stats.loss_out_q16, lost);
    l->unjudged++;
}

void zl_link_init(zl_link *l, uint64_t now_us)
{
    ZL_ASSERT(l != NULL);
    memset(l, 0, sizeof *l);
    ZL_SEQBUF_RESET(&l->sent);
    l->rate_start_us = now_us;
}

uint16_t zl_link_next_sequence(const zl_link *l)
{
    ZL_ASSERT(l != NULL);
    return l->next_sequence;
}

/* When a field may go short. The peer widens a short field to the value
 * within -128..+127 of its reference, modulo 2^16 (zl_packet.h), so a
 * field is short only when its value v is known to lie 0..127 ahead of
 * that reference r, from facts the peer has acknowledged:
 * - Sequence, r the newest sequence the peer received. The peer received
 *   acked_newest, our newest packet it acknowledged, and nothing we have
 *   not sent yet, so acked_newest <= r < v: short when v - acked_newest <=
 *   127.
 * - Ack, r the newest ack the peer took from us. It took the ack that
 *   acked_newest carried (acked_ack: a peer takes a packet's acks when it
 *   acknowledges it), and no ack we have not sent; our acks only move
 *   ahead, so acked_ack <= r <= v: short when v - acked_ack <= 127.
 * Every distance is modulo 2^16 and "ahead" is the order of sending, so
 * the rules hold across the wrap at 2^16; after an outage, once the
 * distance passes 127 the field goes long until the peer acknowledges a
 * newer packet. A packet overtaken on the way finds the reference moved
 * past its field: it is still read right while 128 or less behind, and
 * beyond that (its sequence too old for the replay window anyway) the
 * misread fails the CRC or the tag, which cover the widened values, and
 * the packet is dropped, never taken wrong. */
#define SHORT_AHEAD 127u

void zl_link_next_header(const zl_link *l, uint8_t type, zl_packet_header *h)
{
    ZL_ASSERT(l != NULL && h != NULL);
    h->type = type;
    h->sequence = l->next_sequence;
    /* Positions of the window before the first packet hold zeros, so an
     * empty link sends ack_bits 0: "nothing received". */
    h->ack = l->received_newest;
    h->ack_bits = (uint32_t)(l->received_mask & 0xFFFFFFFFu);
    h->short_fields = 0;
    if (l->have_acked && (uint16_t)(h->sequence - l->acked_newest) <= SHORT_AHEAD)
        h->short_fields |= ZL_PACKET_SHORT_SEQUENCE;
    if (l->have_acked_ack && h->ack_bits != 0 &&
        (uint16_t)(h->ack - l->acked_ack) <= SHORT_AHEAD)
        h->short_fields |= ZL_PACKET_SHORT_ACK;
}

void zl_link_record_sent(zl_link *l, const zl_packet_header *h, size_t len, uint64_t now_us)
{
    int slot;
    ZL_ASSERT(l != NULL && h != NULL && h->sequence == l->next_sequence);
    /* This sequence takes the slot of the one ZL_LINK_SENT_CAPACITY back:
     * judge that one now if its ack window has not already done so. */
    if ((uint16_t)(h->sequence - l->unjudged) >= ZL_LINK_SENT_CAPACITY)
        judge_oldest_sent(l);
    slot = ZL_SEQBUF_INSERT(&l->sent, h->sequence);
    if ((uint16_t)(l->acks_seen_ack - h->sequence) < ZL_LINK_ACK_WINDOW)
        l->acks_seen &= ~(1u << (uint16_t)(l->acks_seen_ack - h->sequence));
    l->sent.item[slot].send_us = (uint32_t)now_us;
    l->sent.item[slot].ack = h->ack;
    l->sent.item[slot].ack_sent = h->ack_bits != 0;
    l->sent.item[slot].acked = 0;
    l->next_sequence++;
    l->stats.packets_sent++;
    roll_rates(l, now_us);
    l->rate_out_now += (uint32_t)len;
    l->stats.bytes_sent += (uint32_t)len;
}

int zl_link_send(zl_link *l, uint8_t type, void *packet, size_t payload_bytes,
                 uint32_t protocol_id, uint64_t now_us)
{
    zl_packet_header h;
    int len;
    zl_link_next_header(l, type, &h);
    len = zl_packet_seal(packet, payload_bytes, &h, protocol_id);
    if (len >= 0)
        zl_link_record_sent(l, &h, (size_t)len, now_us);
    return len;
}

/* ---- receiving: replay refusal and loss in ---- */

static void judge_received(zl_link *l, int lost)
{
    l->stats.packets_lost_in += (uint32_t)lost;
    loss_feed(&l->stats.loss_in_q16, lost);
}

/* The newest received sequence moves ahead by `ahead` (1..32767): window
 * positions that fall off the end are judged, oldest first, and sequences
 * skipped beyond the whole window count as lost. */
static void advance_window(zl_link *l, uint32_t ahead)
{
    uint32_t first_out = ahead >= ZL_LINK_RECEIVE_WINDOW ? 0 : ZL_LINK_RECEIVE_WINDOW - ahead;
    uint32_t pos;
    /* Positions at or past the span predate the oldest packet received. */
    for (pos = l->received_span; pos > first_out; pos--)
        judge_received(l, !((l->received_mask >> (pos - 1u)) & 1u));
    if (ahead > ZL_LINK_RECEIVE_WINDOW) {
        uint32_t skipped = ahead - ZL_LINK_RECEIVE_WINDOW;
        l->stats.packets_lost_in += skipped;
        loss_feed_run(&l->stats.loss_in_q16, skipped);
    }
    l->received_mask = ahead >= ZL_LINK_RECEIVE_WINDOW ? 0 : l->received_mask << ahead;
    l->received_span = (uint8_t)(l->received_span + ahead >= ZL_LINK_RECEIVE_WINDOW
                                     ? ZL_LINK_RECEIVE_WINDOW
                                     : l->received_span + ahead);
}

/* Records sequence seq as received, or says why it must be refused. */
zl_packet_drop zl_link_check(const zl_link *l, uint16_t sequence)
{
    int32_t ahead;
    uint32_t back;
    ZL_ASSERT(l != NULL);
    if (l->received_span == 0)
        return ZL_PACKET_DROP_NONE;
    ahead = zl_seq_diff(sequence, l->received_newest);
    if (ahead > 0)
        return ZL_PACKET_DROP_NONE;
    back = (uint32_t)-ahead;
    if (back >= ZL_LINK_RECEIVE_WINDOW)
        return ZL_PACKET_DROP_STALE;
    return (l->received_mask >> back) & 1u ? ZL_PACKET_DROP_DUPLICATE : ZL_PACKET_DROP_NONE;
}

static zl_packet_drop accept_sequence(zl_link *l, uint16_t seq)
{
    int32_t ahead;
    uint32_t back;
    zl_packet_drop why = zl_link_check(l, seq);
    if (why != ZL_PACKET_DROP_NONE)
        return why;
    if (l->received_span == 0) {
        l->received_newest = seq;
        l->received_mask = 1;
        l->received_span = 1;
        return ZL_PACKET_DROP_NONE;
    }
    ahead = zl_seq_diff(seq, l->received_newest);
    if (ahead > 0) {
        advance_window(l, (uint32_t)ahead);
        l->received_newest = seq;
        l->received_mask |= 1u;
        return ZL_PACKET_DROP_NONE;
    }
    back = (uint32_t)-ahead;
    l->received_mask |= (uint64_t)1 << back;
    /* A packet sent before the first one received, overtaken on the way:
     * the positions up to it now count, and the gaps may be judged lost. */
    if (back >= l->received_span)
        l->received_span = (uint8_t)(back + 1u);
    return ZL_PACKET_DROP_NONE;
}

/* RFC 6298's estimator with its gains of 1/8 and 1/4, kept scaled by 8
 * and 4 so that every update is an unsigned add and subtract. */
static void rtt_sample(zl_link *l, uint32_t sample_us)
{
    uint32_t srtt, dev;
    if (sample_us > ZL_LINK_MAX_RTT_US)
        sample_us = ZL_LINK_MAX_RTT_US;
    if (!l->have_rtt) {
        l->have_rtt = 1;
        l->srtt8 = sample_us * 8u;
        l->rttvar4 = sample_us * 2u; /* a deviation of half the sample */
        return;
    }
    srtt = l->srtt8 >> 3;
    dev = sample_us > srtt ? sample_us - srtt : srtt - sample_us;
    l->rttvar4 = l->rttvar4 - (l->rttvar4 >> 2) + dev;
    l->srtt8 = l->srtt8 - (l->srtt8 >> 3) + sample_us;
}

/* The bits of acks_seen moved to the positions of an ack naming `ack`. */
static uint32_t acks_seen_at(const zl_link *l, uint16_t ack)
{
    int shift = (int16_t)(uint16_t)(ack - l->acks_seen_ack);
    if (shift >= 0 && shift < ZL_LINK_ACK_WINDOW)
        return l->acks_seen << shift;
    if (shift < 0 && shift > -ZL_LINK_ACK_WINDOW)
        return l->acks_seen >> -shift;
    return 0;
}

/* A peer acknowledges nearly the same window in every packet: only the
 * sequences not seen acknowledged before are looked up, oldest (highest
 * bit) first, each found by a count of leading zeros rather than a walk
 * down the window. */
static void take_acks(zl_link *l, const zl_packet_header *h, uint64_t now_us, zl_link_acks *acks)
{
    uint32_t seen = acks_seen_at(l, h->ack), todo = h->ack_bits & ~seen;
    l->acks_seen = seen | h->ack_bits;
    l->acks_seen_ack = h->ack;
    if (h->ack_bits != 0 && (!l->have_peer_ack || zl_seq_newer(h->ack, l->peer_ack))) {
        l->peer_ack = h->ack;
        l->have_peer_ack = 1;
    }
    while (todo != 0) {
        unsigned i = zl_bits_required(todo) - 1u;
        uint16_t seq = (uint16_t)(h->ack - (uint16_t)i);
        int idx;
        zl_link_sent *s;
        todo &= ~(1u << i);
        idx = ZL_SEQBUF_FIND(&l->sent, seq);
        if (idx < 0 || l->sent.item[idx].acked)
            continue;
        s = &l->sent.item[idx];
        s->acked = 1;
        l->stats.packets_acked++;
        if (!l->have_acked || zl_seq_newer(seq, l->acked_newest)) {
            l->acked_newest = seq;
            l->have_acked = 1;
            l->acked_ack = s->ack;
            l->have_acked_ack = s->ack_sent;
        }
        if (acks != NULL)
            acks->sequence[acks->count++] = seq;
        /* Every newly acked packet is a sample, those acked through the bits
         * included: sampling only the packet an ack names would favour the
         * packets that overtook others and understate the round trip. */
        rtt_sample(l, (uint32_t)now_us - s->send_us);
    }
    /* Packets the peer's ack window has passed can no longer be acked.
     * Requiring the ack to be one we sent keeps a bogus ack from judging
     * packets still in flight. */
    if (h->ack_bits != 0 && ZL_SEQBUF_FIND(&l->sent, h->ack) >= 0) {
        while (l->unjudged != l->next_sequence &&
               zl_seq_diff(h->ack, l->unjudged) >= ZL_LINK_ACK_WINDOW)
            judge_oldest_sent(l);
    }
}

/* The n lowest bits set (n up to 32). */
static uint32_t low_bits(uint32_t n)
{
    return n >= 32u ? 0xFFFFFFFFu : (1u << n) - 1u;
}

/* Bit i of the ack bits names sequence ack - i, sent when newest minus it
 * (mod 2^16), that is d + i with d = newest - ack, is below `known` (the
 * packets sent, at most half the sequence space). Those i form one range,
 * found without a loop over the window: from 0 when the ack itself is
 * known; past the wrap to 0 when the ack is a little ahead of the newest
 * (d within 32 of 2^16; known <= 2^15 is then below d). */
ZL_STATIC_ASSERT(ZL_LINK_ACK_WINDOW == 32, acks_unsent_window);
int zl_link_acks_unsent(const zl_link *l, const zl_packet_header *h)
{
    uint16_t newest;
    uint32_t known, d, sent = 0;
    ZL_ASSERT(l != NULL && h != NULL);
    newest = (uint16_t)(l->next_sequence - 1u);
    known = l->stats.packets_sent < 32768u ? l->stats.packets_sent : 32768u;
    d = (uint16_t)(newest - h->ack);
    if (d < known) {
        sent = low_bits(known - d);
    } else if (d > 0x10000u - ZL_LINK_ACK_WINDOW) {
        uint32_t wrap = 0x10000u - d;
        sent = low_bits(wrap + known) & ~low_bits(wrap);
    }
    return (h->ack_bits & ~sent) != 0;
}

void zl_link_count_drop(zl_link *l, zl_packet_drop why)
{
    ZL_ASSERT(l != NULL && why < ZL_PACKET_DROP_COUNT);
    l->stats.dropped[why]++;
}

int zl_link_accept(zl_link *l, const zl_packet_header *h, size_t len, uint64_t now_us,
                   zl_link_acks *acks)
{
    zl_packet_drop why;
    ZL_ASSERT(l != NULL && h != NULL);
    if (acks != NULL)
        acks->count = 0;
    why = accept_sequence(l, h->sequence);
    if (why != ZL_PACKET_DROP_NONE) {
        l->stats.dropped[why]++;
        return ZL_ERR_DUPLICATE;
    }
    l->stats.packets_received++;
    roll_rates(l, now_us);
    l->rate_in_now += (uint32_t)len;
    l->stats.bytes_received += (uint32_t)len;
    take_acks(l, h, now_us, acks);
    return ZL_OK;
}

int zl_link_receive(zl_link *l, const void *packet, size_t len, uint32_t protocol_id,
                    uint64_t now_us, zl_packet_header *h, zl_link_acks *acks)
{
    zl_packet_drop why;
    zl_packet_near near;
    int r, at;
    ZL_ASSERT(l != NULL && h != NULL);
    if (acks != NULL)
        acks->count = 0;
    near = zl_link_near(l);
    r = zl_packet_open(packet, len, protocol_id, &near, h, &why);
    if (r < 0) {
        zl_link_count_drop(l, why);
        return r;
    }
    at = r;
    r = zl_link_accept(l, h, len, now_us, acks);
    if (r < 0) {
        memset(h, 0, sizeof *h);
        return r;
    }
    return at;
}

void zl_link_get_stats(zl_link *l, uint64_t now_us, zl_link_stats *out)
{
    ZL_ASSERT(l != NULL && out != NULL);
    roll_rates(l, now_us);
    *out = l->stats;
    out->rtt_us = l->srtt8 >> 3;
    out->jitter_us = l->rttvar4 >> 2;
    out->bytes_out_per_s = sum_buckets(l->rate_out);
    out->bytes_in_per_s = sum_buckets(l->rate_in);
}
