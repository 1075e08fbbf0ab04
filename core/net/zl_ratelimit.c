/* zl_ratelimit.c - token buckets with credit in millionths of a token, and
 * sources hashed to buckets under a secret key. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_ratelimit.h"

/* Bucket credit per token: rates are whole tokens per second and time is in
 * microseconds, so each microsecond adds exactly `rate` millionths. */
#define CREDIT_PER_TOKEN 1000000u

void zl_ratelimit_config_default(zl_ratelimit_config *c)
{
    ZL_ASSERT(c);
    c->socket_rate = 4;
    c->socket_burst = 4;
    c->addr_rate = 16;
    c->addr_burst = 32;
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
    ZL_ASSERT(c->socket_rate > 0 && c->socket_burst > 0 && c->addr_rate > 0 &&
              c->addr_burst > 0 && c->global_rate > 0 && c->global_burst > 0);
    r->config = *c;
    memcpy(r->key, key, ZL_SIPHASH_KEY_SIZE);
    for (i = 0; i < ZL_RATELIMIT_BUCKETS; i++) {
        bucket_fill(&r->socket[i], c->socket_burst);
        bucket_fill(&r->bucket[i], c->addr_burst);
    }
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

size_t zl_ratelimit_source(const zl_addr *a, uint8_t out[ZL_RATELIMIT_SOURCE_MAX])
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    ZL_ASSERT(a && out);
    out[0] = a->family;
    if (a->family == ZL_ADDR_IPV6 && memcmp(a->ip, mapped, sizeof mapped) == 0) {
        out[0] = ZL_ADDR_IPV4;
        memcpy(out + 1, a->ip + 12, 4);
        return 1 + 4;
    }
    if (a->family == ZL_ADDR_IPV6) {
        memcpy(out + 1, a->ip, 8);
        return 1 + 8;
    }
    memcpy(out + 1, a->ip, 4);
    return 1 + 4;
}

/* with_port adds the port to the source's bytes, naming one socket (the
 * two tables are apart, so the keys need no domain byte). */
static uint32_t source_bucket(const zl_ratelimit *r, const zl_addr *a, int with_port)
{
    uint8_t msg[ZL_RATELIMIT_SOURCE_MAX + 2];
    size_t n = zl_ratelimit_source(a, msg);
    if (with_port) {
        zl_put_be16(msg + n, a->port);
        n += 2;
    }
    return (uint32_t)zl_siphash_digest(r->key, msg, n) & (ZL_RATELIMIT_BUCKETS - 1u);
}

int zl_ratelimit_allow(zl_ratelimit *r, const zl_addr *a, uint64_t now_us)
{
    zl_ratelimit_bucket *sock, *b;
    ZL_ASSERT(r && a);
    sock = &r->socket[source_bucket(r, a, 1)];
    b = &r->bucket[source_bucket(r, a, 0)];
    bucket_refill(sock, r->config.socket_rate, r->config.socket_burst, now_us);
    bucket_refill(b, r->config.addr_rate, r->config.addr_burst, now_us);
    bucket_refill(&r->global, r->config.global_rate, r->config.global_burst, now_us);
    /* Spend only when all can pay, so a refusal costs the honest nothing:
     * a socket flooding on its own leaves its address's other clients
     * their tokens. */
    if (sock->credit < CREDIT_PER_TOKEN) {
        r->stats.refused_socket++;
        return 0;
    }
    if (b->credit < CREDIT_PER_TOKEN) {
        r->stats.refused_addr++;
        return 0;
    }
    if (r->global.credit < CREDIT_PER_TOKEN) {
        r->stats.refused_global++;
        return 0;
    }
    sock->credit -= CREDIT_PER_TOKEN;
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
