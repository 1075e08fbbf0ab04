/* zl_conditioner.c - the link conditioner: each datagram meets loss, a
 * bottleneck and a delay line, every choice drawn from one seeded generator. */
#include "zl_conditioner.h"

#include <string.h>

#define NONE (-1)

ZL_STATIC_ASSERT(ZL_CONDITIONER_PACKETS > 0 && ZL_CONDITIONER_PACKETS <= 32767,
                 conditioner_pool_indexed_by_int16);
ZL_STATIC_ASSERT(ZL_MAX_PACKET <= 65535, conditioner_len_fits_uint16);

/* SplitMix64's output mix: neighbouring inputs give unrelated outputs. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* SplitMix64: any seed, zero included, starts a full-period sequence. Only
 * the top half is used. */
static uint32_t draw(zl_conditioner *c)
{
    return (uint32_t)(mix(c->rng += UINT64_C(0x9E3779B97F4A7C15)) >> 32);
}

/* 1 with probability ppm / 10^6. Scaling the draw onto [0, 10^6) with a
 * multiply is exact to 2^-32 and needs no division. A zero chance draws
 * nothing, so unused impairments leave the sequence of the others alone. */
static int chance(zl_conditioner *c, uint32_t ppm)
{
    if (ppm == 0)
        return 0;
    if (ppm >= ZL_CONDITIONER_PPM)
        return 1;
    return (uint32_t)(((uint64_t)draw(c) * ZL_CONDITIONER_PPM) >> 32) < ppm;
}

/* Uniform in [0, n]; n + 1 <= 2^32 keeps the product inside 64 bits. */
static uint64_t uniform(zl_conditioner *c, uint32_t n)
{
    return ((uint64_t)draw(c) * ((uint64_t)n + 1u)) >> 32;
}

static int16_t pool_take(zl_conditioner *c)
{
    int16_t p = c->free_head;
    if (p != NONE)
        c->free_head = c->packet[p].next;
    return p;
}

static void pool_give(zl_conditioner *c, int16_t p)
{
    c->packet[p].next = c->free_head;
    c->free_head = p;
}

/* Keeps the queue sorted by due time; equal times keep their entry order.
 * Most datagrams are due last, so the tail is tried before walking. */
static void enqueue(zl_conditioner *c, zl_conditioner_lane *l, int16_t p)
{
    uint64_t due = c->packet[p].due_us;
    int16_t prev = NONE, cur = l->head;
    if (l->tail != NONE && c->packet[l->tail].due_us <= due) {
        prev = l->tail;
        cur = NONE;
    }
    while (cur != NONE && c->packet[cur].due_us <= due) {
        prev = cur;
        cur = c->packet[cur].next;
    }
    c->packet[p].next = cur;
    if (prev == NONE)
        l->head = p;
    else
        c->packet[prev].next = p;
    if (cur == NONE)
        l->tail = p;
    l->stats.queued++;
}

static int16_t dequeue_due(zl_conditioner *c, zl_conditioner_lane *l, uint64_t now)
{
    int16_t p = l->head;
    if (p == NONE || c->packet[p].due_us > now)
        return NONE;
    l->head = c->packet[p].next;
    if (l->head == NONE)
        l->tail = NONE;
    l->stats.queued--;
    return p;
}

/* Loss chance of the current state first, then the per-datagram switch, so a
 * bad run of k datagrams has probability (1 - exit)^(k-1) * exit. */
static int lost_in_burst(zl_conditioner *c, zl_conditioner_lane *l)
{
    const zl_conditioner_settings *s = &l->set;
    int lost = chance(c, l->bad ? s->burst_loss_bad_ppm : s->burst_loss_good_ppm);
    if (chance(c, l->bad ? s->burst_exit_ppm : s->burst_enter_ppm)) {
        l->bad = (uint8_t)!l->bad;
        l->stats.bursts += l->bad;
    }
    return lost;
}

/* The bottleneck link: a datagram starts when the ones ahead of it are out
 * and occupies the link for len / bandwidth. The division's remainder is
 * carried to the next datagram so back-to-back traffic runs at exactly the
 * cap instead of drifting with rounding. Returns 0 to drop (too long a wait),
 * else 1 with *depart the moment the last byte leaves. */
static int bottleneck(zl_conditioner_lane *l, size_t len, uint64_t now, uint64_t *depart)
{
    uint32_t rate = l->set.bandwidth_bytes_per_s;
    uint64_t start = l->link_free_us, work;
    uint32_t frac = l->link_frac;
    if (start < now) {
        start = now; /* idle link: nothing left over from before */
        frac = 0;
    }
    if (start - now > l->set.bandwidth_queue_us)
        return 0;
    work = (uint64_t)len * 1000000u + frac;
    l->link_free_us = start + work / rate;
    l->link_frac = (uint32_t)(work % rate);
    *depart = l->link_free_us;
    return 1;
}

/* Start of the spike in progress at t, or of the next one; UINT64_MAX
 * without spikes. Spikes start at phase + k * every for k >= 0, so the
 * arithmetic never goes below time zero. */
static uint64_t spike_start(const zl_conditioner *c, const zl_conditioner_lane *l, uint64_t t)
{
    const zl_conditioner_settings *s = &l->set;
    uint64_t every = s->spike_every_us, phase, into;
    if (!s->enabled || s->spike_us == 0)
        return UINT64_MAX;
    phase = c->spike_phase % every;
    if (t < phase)
        return phase;
    into = (t - phase) % every;
    return into < s->spike_us ? t - into : t - into + every;
}

/* Gives one copy its delay and its place in the queue. */
static int place(zl_conditioner *c, zl_conditioner_lane *l, const zl_addr *addr,
                 const void *data, size_t len, uint32_t seq, uint64_t now, uint64_t depart)
{
    const zl_conditioner_settings *s = &l->set;
    uint64_t due = depart, spike;
    int held = 0, clamped = 0, frozen = 0;
    int16_t p;

    if (s->enabled) {
        due += s->latency_us;
        if (s->jitter_us) {
            /* latency - jitter + [0, 2 jitter], clamped at zero delay. */
            due += uniform(c, 2u * s->jitter_us);
            due = due - depart > s->jitter_us ? due - s->jitter_us : depart;
        }
        if (chance(c, s->reorder_ppm)) {
            due += s->reorder_delay_us;
            held = 1;
        }
    }
    if (!held) {
        /* Real paths rarely reorder: jitter alone never lets a datagram
         * pass one that entered before it. */
        if (due < l->last_due_us) {
            due = l->last_due_us;
            clamped = 1;
        }
    }
    /* A frozen link delivers nothing until the spike ends, then everything
     * it held. Moving every due time inside [start, end) to end keeps the
     * order of due times, so the ordering above still holds. One that
     * waits in order behind a frozen one is held by the spike too. */
    spike = spike_start(c, l, due);
    if (spike <= due) {
        due = spike + s->spike_us;
        frozen = 1;
        if (due > l->spike_end_us) { /* a later spike than any before */
            l->stats.spikes++;
            l->spike_end_us = due;
        }
    } else if (clamped && due == l->spike_end_us) {
        frozen = 1;
    }
    if (!held)
        l->last_due_us = due;
    p = pool_take(c);
    if (p == NONE) {
        l->stats.dropped_pool++;
        return ZL_ERR_AGAIN;
    }
    l->stats.spiked += (uint32_t)frozen;
    c->packet[p].entered_us = now;
    c->packet[p].due_us = due;
    c->packet[p].seq = seq;
    c->packet[p].addr = *addr;
    c->packet[p].len = (uint16_t)len;
    if (len > 0)
        memcpy(c->packet[p].data, data, len);
    enqueue(c, l, p);
    return ZL_OK;
}

/* Runs one datagram through the impairments. Returns ZL_OK, or
 * ZL_ERR_AGAIN when the original found the pool full. */
static int admit(zl_conditioner *c, zl_conditioner_lane *l, const zl_addr *addr,
                 const void *data, size_t len, uint64_t now)
{
    const zl_conditioner_settings *s = &l->set;
    uint32_t seq = l->next_seq++;
    uint64_t depart = now;
    int copy = 0, r;

    l->stats.seen++;
    l->stats.bytes_seen += len;
    if (s->enabled) {
        if (lost_in_burst(c, l)) {
            l->stats.dropped_burst++;
            return ZL_OK;
        }
        if (chance(c, s->loss_ppm)) {
            l->stats.dropped_loss++;
            return ZL_OK;
        }
        if (s->bandwidth_bytes_per_s && !bottleneck(l, len, now, &depart)) {
            l->stats.dropped_bandwidth++;
            return ZL_OK;
        }
        copy = chance(c, s->duplicate_ppm);
    }
    r = place(c, l, addr, data, len, seq, now, depart);
    if (copy) {
        l->stats.duplicated++;
        (void)place(c, l, addr, data, len, seq, now, depart);
    }
    return r;
}

/* A datagram is overtaken when one that entered later was delivered before
 * it; sequence distances below 2^31 read as "behind" across wraparound. */
static void count_delivery(zl_conditioner_lane *l, const zl_conditioner_packet *pk)
{
    uint32_t behind = l->high_seq - pk->seq;
    l->stats.delivered++;
    l->stats.bytes_delivered += pk->len;
    l->stats.delay_total_us += pk->due_us - pk->entered_us;
    if (!l->any_delivered || behind >= 0x80000000u) {
        l->high_seq = pk->seq;
        l->any_delivered = 1;
    } else if (behind != 0) {
        l->stats.reordered++;
    }
}

/* Hands every due outgoing datagram to the inner send. When watch is set,
 * the first refusal of the datagram numbered watch_seq is stored there. */
static int release_due(zl_conditioner *c, uint64_t now, uint32_t watch_seq, int *watch)
{
    zl_conditioner_lane *l = &c->lane[ZL_CONDITIONER_SEND];
    int16_t p;
    int n = 0;
    while ((p = dequeue_due(c, l, now)) != NONE) {
        const zl_conditioner_packet *pk = &c->packet[p];
        int r = c->inner.send(c->inner.ctx, &pk->addr, pk->data, pk->len);
        if (r < 0) {
            l->stats.dropped_refused++;
            if (watch && pk->seq == watch_seq && *watch == ZL_OK)
                *watch = r;
        } else {
            count_delivery(l, pk);
        }
        pool_give(c, p);
        n++;
    }
    return n;
}

static int cond_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_conditioner *c = (zl_conditioner *)ctx;
    zl_conditioner_lane *l = &c->lane[ZL_CONDITIONER_SEND];
    uint64_t now = c->inner.now_us(c->inner.ctx);
    uint32_t seq = l->next_seq;
    int r, refused = ZL_OK;

    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    r = admit(c, l, to, data, len, now);
    /* Without delay the datagram leaves now, so the inner send's verdict can
     * still be the caller's, as if nothing stood in between. */
    (void)release_due(c, now, seq, &refused);
    return r < 0 ? r : refused;
}

static int cond_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_conditioner *c = (zl_conditioner *)ctx;
    zl_conditioner_lane *l = &c->lane[ZL_CONDITIONER_RECEIVE];
    uint64_t now = c->inner.now_us(c->inner.ctx);
    const zl_conditioner_packet *pk;
    int16_t p;
    int n;

    (void)release_due(c, now, 0, NULL);
    /* Pull everything now, so each datagram's delay starts when it arrived
     * rather than when the caller got round to it. */
    for (;;) {
        zl_addr src;
        n = c->inner.receive(c->inner.ctx, &src, c->scratch, sizeof c->scratch);
        if (n == ZL_ERR_AGAIN)
            break;
        if (n < 0)
            return n;
        (void)admit(c, l, &src, c->scratch, (size_t)n, now);
    }
    p = dequeue_due(c, l, now);
    if (p == NONE)
        return ZL_ERR_AGAIN;
    pk = &c->packet[p];
    *from = pk->addr;
    if (pk->len > cap) {
        l->stats.dropped_refused++;
        pool_give(c, p);
        return ZL_ERR_TRUNCATED;
    }
    if (pk->len > 0)
        memcpy(buf, pk->data, pk->len);
    count_delivery(l, pk);
    n = pk->len;
    pool_give(c, p);
    return n;
}

static uint64_t cond_now(void *ctx)
{
    zl_conditioner *c = (zl_conditioner *)ctx;
    return c->inner.now_us(c->inner.ctx);
}

static int cond_random(void *ctx, void *out, size_t len)
{
    zl_conditioner *c = (zl_conditioner *)ctx;
    return c->inner.random(c->inner.ctx, out, len);
}

void zl_conditioner_init(zl_conditioner *c, const zl_platform *inner, uint64_t seed,
                         zl_platform *outer)
{
    int i;
    ZL_ASSERT(c && inner && outer && inner->send && inner->receive && inner->now_us &&
              inner->random);
    memset(c->lane, 0, sizeof c->lane);
    c->inner = *inner;
    c->rng = seed;
    /* Its own value, not a draw: where spikes fall does not depend on what
     * else was drawn, and spikes leave the other draws alone. */
    c->spike_phase = mix(seed ^ UINT64_C(0x5350494B45)); /* "SPIKE" */
    for (i = 0; i < 2; i++)
        c->lane[i].head = c->lane[i].tail = NONE;
    c->free_head = NONE;
    for (i = ZL_CONDITIONER_PACKETS - 1; i >= 0; i--)
        pool_give(c, (int16_t)i);
    outer->ctx = c;
    outer->send = cond_send;
    outer->receive = cond_receive;
    outer->now_us = cond_now;
    outer->random = cond_random;
}

int zl_conditioner_configure(zl_conditioner *c, zl_conditioner_dir dir,
                             const zl_conditioner_settings *settings)
{
    const zl_conditioner_settings *s = settings;
    ZL_ASSERT(c && s && (dir == ZL_CONDITIONER_SEND || dir == ZL_CONDITIONER_RECEIVE));
    if (s->loss_ppm > ZL_CONDITIONER_PPM || s->burst_enter_ppm > ZL_CONDITIONER_PPM ||
        s->burst_exit_ppm > ZL_CONDITIONER_PPM || s->burst_loss_good_ppm > ZL_CONDITIONER_PPM ||
        s->burst_loss_bad_ppm > ZL_CONDITIONER_PPM || s->duplicate_ppm > ZL_CONDITIONER_PPM ||
        s->reorder_ppm > ZL_CONDITIONER_PPM)
        return ZL_ERR_INVALID;
    if (s->latency_us > ZL_CONDITIONER_MAX_US || s->jitter_us > ZL_CONDITIONER_MAX_US ||
        s->reorder_delay_us > ZL_CONDITIONER_MAX_US || s->bandwidth_queue_us > ZL_CONDITIONER_MAX_US ||
        s->spike_every_us > ZL_CONDITIONER_MAX_US)
        return ZL_ERR_INVALID;
    if (s->spike_us != 0 && s->spike_us >= s->spike_every_us)
        return ZL_ERR_INVALID; /* never thaws, or no period */
    c->lane[dir].set = *s;
    c->lane[dir].bad = 0;
    return ZL_OK;
}

int zl_conditioner_pump(zl_conditioner *c)
{
    ZL_ASSERT(c);
    return release_due(c, c->inner.now_us(c->inner.ctx), 0, NULL);
}

uint64_t zl_conditioner_next_due(const zl_conditioner *c, zl_conditioner_dir dir)
{
    int16_t p;
    ZL_ASSERT(c && (dir == ZL_CONDITIONER_SEND || dir == ZL_CONDITIONER_RECEIVE));
    p = c->lane[dir].head;
    return p == NONE ? UINT64_MAX : c->packet[p].due_us;
}

int zl_conditioner_bursts(zl_conditioner_settings *s, uint32_t mean_datagrams, uint32_t every_us,
                          uint32_t datagrams_per_s)
{
    uint64_t cycle = (uint64_t)datagrams_per_s * every_us / 1000000u;
    ZL_ASSERT(s);
    if (mean_datagrams == 0 || cycle <= mean_datagrams)
        return ZL_ERR_INVALID;
    s->burst_exit_ppm = ZL_CONDITIONER_PPM / mean_datagrams;
    s->burst_enter_ppm = (uint32_t)(ZL_CONDITIONER_PPM / (cycle - mean_datagrams));
    s->burst_loss_bad_ppm = ZL_CONDITIONER_PPM;
    s->burst_loss_good_ppm = 0;
    return ZL_OK;
}

uint64_t zl_conditioner_next_spike(const zl_conditioner *c, zl_conditioner_dir dir,
                                   uint64_t now_us)
{
    ZL_ASSERT(c && (dir == ZL_CONDITIONER_SEND || dir == ZL_CONDITIONER_RECEIVE));
    return spike_start(c, &c->lane[dir], now_us);
}

const zl_conditioner_stats *zl_conditioner_get_stats(const zl_conditioner *c,
                                                     zl_conditioner_dir dir)
{
    ZL_ASSERT(c && (dir == ZL_CONDITIONER_SEND || dir == ZL_CONDITIONER_RECEIVE));
    return &c->lane[dir].stats;
}
