/* zl_handshake.c - handshake messages as fixed-size bit-packed payloads, the
 * SipHash cookie that keeps the server stateless, and the flood limiter. */
#include <string.h>

#include "zl_handshake.h"

#define TICK_RATE_MAX 1000u
/* Bucket credit per token: rates are whole tokens per second and time is in
 * microseconds, so each microsecond adds exactly `rate` millionths. */
#define CREDIT_PER_TOKEN 1000000u

/* ---- Client settings ---- */

void zl_client_settings_default(zl_client_settings *s)
{
    ZL_ASSERT(s);
    s->updaterate = 64;
    s->cmdrate = 64;
    s->rate = 80000;
    s->interp_us = 100000;
    s->interp_ratio = 2;
}

void zl_server_limits_default(zl_server_limits *l)
{
    ZL_ASSERT(l);
    l->updaterate_min = 10;
    l->updaterate_max = 128;
    l->cmdrate_min = 10;
    l->cmdrate_max = 128;
    l->rate_min = 5000;
    l->rate_max = 786432;
    l->interp_us_min = 0;
    l->interp_us_max = 500000;
    l->interp_ratio_min = 1;
    l->interp_ratio_max = 5;
}

static int in_range(uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; }

static int settings_valid(const zl_client_settings *s)
{
    return in_range(s->updaterate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX) &&
           in_range(s->cmdrate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX) &&
           in_range(s->rate, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX) &&
           s->interp_us <= ZL_SETTINGS_INTERP_US_MAX &&
           in_range(s->interp_ratio, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
}

/* Limits are sound when the lowest and highest settings they allow are both
 * sendable, which makes every clamped result sendable too. */
static int limits_valid(const zl_server_limits *l)
{
    zl_client_settings lo, hi;
    lo.updaterate = l->updaterate_min;
    lo.cmdrate = l->cmdrate_min;
    lo.rate = l->rate_min;
    lo.interp_us = l->interp_us_min;
    lo.interp_ratio = l->interp_ratio_min;
    hi.updaterate = l->updaterate_max;
    hi.cmdrate = l->cmdrate_max;
    hi.rate = l->rate_max;
    hi.interp_us = l->interp_us_max;
    hi.interp_ratio = l->interp_ratio_max;
    return settings_valid(&lo) && settings_valid(&hi) && lo.updaterate <= hi.updaterate &&
           lo.cmdrate <= hi.cmdrate && lo.rate <= hi.rate && lo.interp_us <= hi.interp_us &&
           lo.interp_ratio <= hi.interp_ratio;
}

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void zl_client_settings_clamp(zl_client_settings *s, const zl_server_limits *l)
{
    ZL_ASSERT(s && l && limits_valid(l));
    s->updaterate = (uint16_t)clamp(s->updaterate, l->updaterate_min, l->updaterate_max);
    s->cmdrate = (uint16_t)clamp(s->cmdrate, l->cmdrate_min, l->cmdrate_max);
    s->rate = clamp(s->rate, l->rate_min, l->rate_max);
    s->interp_us = clamp(s->interp_us, l->interp_us_min, l->interp_us_max);
    s->interp_ratio = (uint16_t)clamp(s->interp_ratio, l->interp_ratio_min, l->interp_ratio_max);
}

int zl_client_settings_write(zl_bitwriter *w, const zl_client_settings *s)
{
    uint32_t before;
    ZL_ASSERT(w && s);
    if (!settings_valid(s))
        return ZL_ERR_INVALID;
    before = zl_bitwriter_bits_used(w);
    /* Every bound fits in int32, so the ranged codes are exact. */
    zl_bitwriter_ranged(w, (int32_t)s->updaterate, ZL_SETTINGS_RATE_HZ_MIN,
                        ZL_SETTINGS_RATE_HZ_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->cmdrate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->rate, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->interp_us, 0, ZL_SETTINGS_INTERP_US_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->interp_ratio, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - before);
}

int zl_client_settings_read(zl_bitreader *r, zl_client_settings *out)
{
    ZL_ASSERT(r && out);
    /* The ranged reads flag out-of-range codes; the casts keep values that
     * were just checked against bounds below each field's width. */
    out->updaterate =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    out->cmdrate =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    out->rate = (uint32_t)zl_bitreader_ranged(r, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX);
    out->interp_us = (uint32_t)zl_bitreader_ranged(r, 0, ZL_SETTINGS_INTERP_US_MAX);
    out->interp_ratio =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
    if (r->error != ZL_OK)
        memset(out, 0, sizeof *out);
    return r->error;
}

/* ---- Message framing ----
 * Each message has one size, and the reader insists on exactly that size
 * and on zero padding: one message has exactly one encoding, so nothing can
 * be smuggled in slack bytes and a reply's size is known in advance. */

static int begin_write(zl_bitwriter *w, void *buf, size_t cap, size_t size)
{
    ZL_ASSERT(buf || cap == 0);
    if (cap < size)
        return 0;
    zl_bitwriter_init(w, buf, size);
    return 1;
}

static int end_write(zl_bitwriter *w, size_t size)
{
    uint32_t left;
    zl_bitwriter_align(w);
    for (left = (uint32_t)size * 8u - zl_bitwriter_bits_used(w); left > 0;) {
        unsigned n = left < 32u ? (unsigned)left : 32u;
        zl_bitwriter_bits(w, 0, n);
        left -= n;
    }
    /* The sizes in the header are this file's promise: a mismatch is a bug here. */
    ZL_ASSERT(w->error == ZL_OK && zl_bitwriter_bits_used(w) == (uint32_t)size * 8u);
    return (int)size;
}

/* On a wrong size, zeroes the out_size bytes of the message at out. */
static int begin_read(zl_bitreader *r, const void *payload, size_t len, size_t size, void *out,
                      size_t out_size)
{
    ZL_ASSERT(payload || len == 0);
    if (len != size) {
        memset(out, 0, out_size);
        return 0;
    }
    zl_bitreader_init(r, payload, len);
    return 1;
}

static void refuse(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

/* Checks the padding and turns any error into ZL_ERR_MALFORMED: the size
 * was checked first, so running out of bits also means bad content. */
static int end_read(zl_bitreader *r, void *out, size_t out_size)
{
    uint32_t left;
    while (r->error == ZL_OK && (left = zl_bitreader_bits_left(r)) > 0) {
        if (zl_bitreader_bits(r, left < 32u ? (unsigned)left : 32u) != 0)
            refuse(r);
    }
    if (r->error != ZL_OK) {
        memset(out, 0, out_size);
        return ZL_ERR_MALFORMED;
    }
    return ZL_OK;
}

static void put_u64(zl_bitwriter *w, uint64_t v)
{
    zl_bitwriter_bits(w, (uint32_t)v, 32);
    zl_bitwriter_bits(w, (uint32_t)(v >> 32), 32);
}

static uint64_t get_u64(zl_bitreader *r)
{
    uint64_t lo = zl_bitreader_bits(r, 32);
    return lo | (uint64_t)zl_bitreader_bits(r, 32) << 32;
}

/* An unsigned field of nbits whose valid values are lo .. hi. */
static uint32_t get_in(zl_bitreader *r, unsigned nbits, uint32_t lo, uint32_t hi)
{
    uint32_t v = zl_bitreader_bits(r, nbits);
    if (!in_range(v, lo, hi)) {
        refuse(r);
        return 0;
    }
    return v;
}

/* ---- Messages ---- */

int zl_msg_request_write(void *buf, size_t cap, const zl_msg_request *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (!settings_valid(&m->settings))
        return ZL_ERR_INVALID;
    if (!begin_write(&w, buf, cap, ZL_REQUEST_SIZE))
        return ZL_ERR_OVERFLOW;
    zl_bitwriter_bits(&w, m->protocol_id, 32);
    put_u64(&w, m->nonce);
    zl_client_settings_write(&w, &m->settings);
    return end_write(&w, ZL_REQUEST_SIZE);
}

int zl_msg_request_read(const void *payload, size_t len, zl_msg_request *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_REQUEST_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    out->protocol_id = zl_bitreader_bits(&r, 32);
    out->nonce = get_u64(&r);
    zl_client_settings_read(&r, &out->settings);
    return end_read(&r, out, sizeof *out);
}

/* CHALLENGE is the head of RESPONSE: the client echoes it verbatim. */
static void put_cookie(zl_bitwriter *w, uint64_t nonce, uint32_t window, uint64_t cookie)
{
    put_u64(w, nonce);
    zl_bitwriter_bits(w, window, 32);
    put_u64(w, cookie);
}

static void get_cookie(zl_bitreader *r, uint64_t *nonce, uint32_t *window, uint64_t *cookie)
{
    *nonce = get_u64(r);
    *window = zl_bitreader_bits(r, 32);
    *cookie = get_u64(r);
}

int zl_msg_challenge_write(void *buf, size_t cap, const zl_msg_challenge *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (!begin_write(&w, buf, cap, ZL_CHALLENGE_SIZE))
        return ZL_ERR_OVERFLOW;
    put_cookie(&w, m->nonce, m->window, m->cookie);
    return end_write(&w, ZL_CHALLENGE_SIZE);
}

int zl_msg_challenge_read(const void *payload, size_t len, zl_msg_challenge *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_CHALLENGE_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    get_cookie(&r, &out->nonce, &out->window, &out->cookie);
    return end_read(&r, out, sizeof *out);
}

int zl_msg_response_write(void *buf, size_t cap, const zl_msg_response *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (!settings_valid(&m->settings))
        return ZL_ERR_INVALID;
    if (!begin_write(&w, buf, cap, ZL_REQUEST_SIZE))
        return ZL_ERR_OVERFLOW;
    put_cookie(&w, m->nonce, m->window, m->cookie);
    zl_client_settings_write(&w, &m->settings);
    return end_write(&w, ZL_REQUEST_SIZE);
}

int zl_msg_response_read(const void *payload, size_t len, zl_msg_response *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_REQUEST_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    get_cookie(&r, &out->nonce, &out->window, &out->cookie);
    zl_client_settings_read(&r, &out->settings);
    return end_read(&r, out, sizeof *out);
}

int zl_msg_accept_write(void *buf, size_t cap, const zl_msg_accept *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (m->slot >= ZL_MAX_CLIENTS || !in_range(m->tick_rate, 1, TICK_RATE_MAX) ||
        !settings_valid(&m->settings))
        return ZL_ERR_INVALID;
    if (!begin_write(&w, buf, cap, ZL_ACCEPT_SIZE))
        return ZL_ERR_OVERFLOW;
    put_u64(&w, m->nonce);
    zl_bitwriter_bits(&w, m->slot, 16);
    zl_bitwriter_bits(&w, m->tick_rate, 16);
    zl_bitwriter_bits(&w, m->server_tick, 32);
    zl_client_settings_write(&w, &m->settings);
    return end_write(&w, ZL_ACCEPT_SIZE);
}

int zl_msg_accept_read(const void *payload, size_t len, zl_msg_accept *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_ACCEPT_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    out->nonce = get_u64(&r);
    out->slot = (uint16_t)get_in(&r, 16, 0, ZL_MAX_CLIENTS - 1u);
    out->tick_rate = (uint16_t)get_in(&r, 16, 1, TICK_RATE_MAX);
    out->server_tick = zl_bitreader_bits(&r, 32);
    zl_client_settings_read(&r, &out->settings);
    return end_read(&r, out, sizeof *out);
}

/* DENY and DISCONNECT share one layout: the nonce and a reason below count. */
static int write_reason(void *buf, size_t cap, uint64_t nonce, uint8_t reason, uint32_t count)
{
    zl_bitwriter w;
    if (reason >= count)
        return ZL_ERR_INVALID;
    if (!begin_write(&w, buf, cap, ZL_DENY_SIZE))
        return ZL_ERR_OVERFLOW;
    put_u64(&w, nonce);
    zl_bitwriter_bits(&w, reason, 8);
    return end_write(&w, ZL_DENY_SIZE);
}

/* out is the message struct (out_size bytes) holding *nonce and *reason. */
static int read_reason(const void *payload, size_t len, uint32_t count, uint64_t *nonce,
                       uint8_t *reason, void *out, size_t out_size)
{
    zl_bitreader r;
    if (!begin_read(&r, payload, len, ZL_DENY_SIZE, out, out_size))
        return ZL_ERR_MALFORMED;
    *nonce = get_u64(&r);
    *reason = (uint8_t)get_in(&r, 8, 0, count - 1u);
    return end_read(&r, out, out_size);
}

ZL_STATIC_ASSERT(ZL_DISCONNECT_SIZE == ZL_DENY_SIZE, zl_deny_disconnect_same_layout);

int zl_msg_deny_write(void *buf, size_t cap, const zl_msg_deny *m)
{
    ZL_ASSERT(m);
    return write_reason(buf, cap, m->nonce, m->reason, ZL_DENY_COUNT);
}

int zl_msg_deny_read(const void *payload, size_t len, zl_msg_deny *out)
{
    ZL_ASSERT(out);
    return read_reason(payload, len, ZL_DENY_COUNT, &out->nonce, &out->reason, out, sizeof *out);
}

int zl_msg_disconnect_write(void *buf, size_t cap, const zl_msg_disconnect *m)
{
    ZL_ASSERT(m);
    return write_reason(buf, cap, m->nonce, m->reason, ZL_DISCONNECT_COUNT);
}

int zl_msg_disconnect_read(const void *payload, size_t len, zl_msg_disconnect *out)
{
    ZL_ASSERT(out);
    return read_reason(payload, len, ZL_DISCONNECT_COUNT, &out->nonce, &out->reason, out,
                       sizeof *out);
}

int zl_msg_keepalive_write(void *buf, size_t cap, const zl_msg_keepalive *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (!begin_write(&w, buf, cap, ZL_KEEPALIVE_SIZE))
        return ZL_ERR_OVERFLOW;
    put_u64(&w, m->nonce);
    return end_write(&w, ZL_KEEPALIVE_SIZE);
}

int zl_msg_keepalive_read(const void *payload, size_t len, zl_msg_keepalive *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_KEEPALIVE_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    out->nonce = get_u64(&r);
    return end_read(&r, out, sizeof *out);
}

int zl_msg_settings_write(void *buf, size_t cap, const zl_msg_settings *m)
{
    zl_bitwriter w;
    ZL_ASSERT(m);
    if (!settings_valid(&m->settings))
        return ZL_ERR_INVALID;
    if (!begin_write(&w, buf, cap, ZL_SETTINGS_MSG_SIZE))
        return ZL_ERR_OVERFLOW;
    put_u64(&w, m->nonce);
    zl_client_settings_write(&w, &m->settings);
    return end_write(&w, ZL_SETTINGS_MSG_SIZE);
}

int zl_msg_settings_read(const void *payload, size_t len, zl_msg_settings *out)
{
    zl_bitreader r;
    ZL_ASSERT(out);
    if (!begin_read(&r, payload, len, ZL_SETTINGS_MSG_SIZE, out, sizeof *out))
        return ZL_ERR_MALFORMED;
    out->nonce = get_u64(&r);
    zl_client_settings_read(&r, &out->settings);
    return end_read(&r, out, sizeof *out);
}

int zl_msg_seal(void *packet, size_t payload_bytes, uint8_t type)
{
    zl_packet_header h;
    memset(&h, 0, sizeof h);
    h.type = type;
    return zl_packet_seal(packet, payload_bytes, &h, ZL_PROTOCOL_ID);
}

/* ---- Cookie ---- */

static void put_le(uint8_t *p, uint64_t v, unsigned bytes)
{
    unsigned i;
    for (i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8u * i));
}

uint32_t zl_cookie_window(uint64_t now_us) { return (uint32_t)(now_us / ZL_COOKIE_WINDOW_US); }

uint64_t zl_cookie_make(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                        uint32_t window, uint64_t nonce)
{
    /* A fixed byte layout, so a cookie means the same on every host. */
    uint8_t msg[1 + 16 + 2 + 4 + 8];
    ZL_ASSERT(secret && client);
    msg[0] = client->family;
    memcpy(msg + 1, client->ip, 16);
    put_le(msg + 17, client->port, 2);
    put_le(msg + 19, window, 4);
    put_le(msg + 23, nonce, 8);
    return zl_siphash_digest(secret, msg, sizeof msg);
}

int zl_cookie_check(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                    uint64_t now_us, uint32_t window, uint64_t nonce, uint64_t cookie)
{
    uint32_t current = zl_cookie_window(now_us);
    /* Only the current and the previous window: a cookie cannot be banked
     * for later, and the one before window 0 was never issued. */
    if (window != current && (current == 0 || window != current - 1u))
        return 0;
    return zl_cookie_make(secret, client, window, nonce) == cookie;
}

/* ---- Rate limiter ---- */

void zl_ratelimit_config_default(zl_ratelimit_config *c)
{
    ZL_ASSERT(c);
    c->addr_rate = 4;
    c->addr_burst = 4;
    c->global_rate = 256;
    c->global_burst = 256;
}

static void bucket_fill(zl_ratelimit_bucket *b, uint32_t burst)
{
    b->credit = (uint64_t)burst * CREDIT_PER_TOKEN;
    b->last_us = 0;
}

void zl_ratelimit_init(zl_ratelimit *r, const zl_ratelimit_config *c,
                       const uint8_t key[ZL_SIPHASH_KEY_SIZE])
{
    size_t i;
    ZL_ASSERT(r && c && key);
    ZL_ASSERT(c->addr_rate > 0 && c->addr_burst > 0 && c->global_rate > 0 && c->global_burst > 0);
    r->config = *c;
    memcpy(r->key, key, ZL_SIPHASH_KEY_SIZE);
    for (i = 0; i < ZL_RATELIMIT_BUCKETS; i++)
        bucket_fill(&r->bucket[i], c->addr_burst);
    bucket_fill(&r->global, c->global_burst);
    memset(&r->stats, 0, sizeof r->stats);
}

static void bucket_refill(zl_ratelimit_bucket *b, uint32_t rate, uint32_t burst, uint64_t now_us)
{
    uint64_t cap = (uint64_t)burst * CREDIT_PER_TOKEN;
    uint64_t elapsed, gain;
    if (now_us <= b->last_us)
        return;
    elapsed = now_us - b->last_us;
    b->last_us = now_us;
    /* 71 minutes refill any bucket; capping there keeps the product in
     * 64 bits, and comparing against the room left keeps the sum there. */
    if (elapsed > UINT32_MAX)
        elapsed = UINT32_MAX;
    gain = elapsed * rate;
    b->credit = gain >= cap - b->credit ? cap : b->credit + gain;
}

/* The bytes that name a source: an IPv4 address (also when it arrives as
 * an IPv4-mapped IPv6 address from a dual-stack socket) or an IPv6 /64,
 * the block one subscriber gets. */
static uint32_t source_bucket(const zl_ratelimit *r, const zl_addr *a)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    uint8_t msg[1 + 8];
    size_t n = 1;
    msg[0] = a->family;
    if (a->family == ZL_ADDR_IPV6 && memcmp(a->ip, mapped, sizeof mapped) == 0) {
        msg[0] = ZL_ADDR_IPV4;
        memcpy(msg + 1, a->ip + 12, 4);
        n += 4;
    } else if (a->family == ZL_ADDR_IPV6) {
        memcpy(msg + 1, a->ip, 8);
        n += 8;
    } else {
        memcpy(msg + 1, a->ip, 4);
        n += 4;
    }
    return (uint32_t)zl_siphash_digest(r->key, msg, n) & (ZL_RATELIMIT_BUCKETS - 1u);
}

int zl_ratelimit_allow(zl_ratelimit *r, const zl_addr *a, uint64_t now_us)
{
    zl_ratelimit_bucket *b;
    ZL_ASSERT(r && a);
    b = &r->bucket[source_bucket(r, a)];
    bucket_refill(b, r->config.addr_rate, r->config.addr_burst, now_us);
    bucket_refill(&r->global, r->config.global_rate, r->config.global_burst, now_us);
    /* Spend only when both can pay, so a refusal costs the honest nothing. */
    if (b->credit < CREDIT_PER_TOKEN) {
        r->stats.refused_addr++;
        return 0;
    }
    if (r->global.credit < CREDIT_PER_TOKEN) {
        r->stats.refused_global++;
        return 0;
    }
    b->credit -= CREDIT_PER_TOKEN;
    r->global.credit -= CREDIT_PER_TOKEN;
    r->stats.allowed++;
    return 1;
}

void zl_ratelimit_get_stats(const zl_ratelimit *r, zl_ratelimit_stats *out)
{
    ZL_ASSERT(r && out);
    *out = r->stats;
}

void zl_ratelimit_bucket_init(zl_ratelimit_bucket *b, uint32_t burst, uint64_t now_us)
{
    ZL_ASSERT(b && burst > 0);
    bucket_fill(b, burst);
    b->last_us = now_us;
}

int zl_ratelimit_bucket_take(zl_ratelimit_bucket *b, uint32_t rate, uint32_t burst,
                             uint64_t now_us)
{
    ZL_ASSERT(b && rate > 0 && burst > 0);
    bucket_refill(b, rate, burst, now_us);
    if (b->credit < CREDIT_PER_TOKEN)
        return 0;
    b->credit -= CREDIT_PER_TOKEN;
    return 1;
}
