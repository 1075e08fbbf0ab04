/* zl_ratelimit.h - token buckets against floods: per source socket, per
 * source address and in all for handshakes, and a lone bucket for anything
 * the caller keys itself.
 * Not part of the API (docs/ARCHITECTURE.md): public because the server, which
 * the application allocates, embeds its limiters, and
 * zl_server_config.ratelimit is its zl_ratelimit_config; an application calls
 * none of it. */
#ifndef ZL_RATELIMIT_H
#define ZL_RATELIMIT_H

#include "zl_addr.h"
#include "zl_siphash.h"

ZL_BEGIN_DECLS

/* Token buckets: each holds at most burst tokens, gains rate tokens per
 * second, and a request spends one from each of the three. All rates and
 * bursts must be >= 1. A socket is one client (address and port); an
 * address is every client behind it (a LAN party, a NAT, bots on one host),
 * so its bucket is the larger. */
typedef struct zl_ratelimit_config {
    uint32_t socket_rate;  /* per source address and port, tokens per second */
    uint32_t socket_burst; /* per source address and port, bucket capacity */
    uint32_t addr_rate;    /* per source address, tokens per second */
    uint32_t addr_burst;   /* per source address, bucket capacity */
    uint32_t global_rate;  /* all sources together, tokens per second */
    uint32_t global_burst; /* all sources together, bucket capacity */
} zl_ratelimit_config;

/* Counters since zl_ratelimit_init; they wrap at 2^32. */
typedef struct zl_ratelimit_stats {
    uint32_t allowed;
    uint32_t refused_socket; /* the source socket's bucket was empty */
    uint32_t refused_addr;   /* the socket had a token but its address's bucket did not */
    uint32_t refused_global; /* the source had tokens but the global bucket did not */
} zl_ratelimit_stats;

/* Private: one bucket. Credit is in millionths of a token, so refilling at
 * any integer rate per microsecond elapsed is exact. */
typedef struct zl_ratelimit_bucket {
    uint64_t credit;
    uint64_t last_us;
} zl_ratelimit_bucket;

/* Private; place it anywhere (static on small targets: about 8 KB with 256
 * buckets) and use the functions. */
typedef struct zl_ratelimit {
    zl_ratelimit_config config;
    uint8_t key[ZL_SIPHASH_KEY_SIZE];
    zl_ratelimit_bucket socket[ZL_RATELIMIT_BUCKETS];
    zl_ratelimit_bucket bucket[ZL_RATELIMIT_BUCKETS];
    zl_ratelimit_bucket global;
    zl_ratelimit_stats stats;
} zl_ratelimit;

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_RATELIMIT_BUCKETS), zl_ratelimit_buckets_pow2);

/* Per socket 4 challenges per second with a burst of 4 (a client resends
 * its REQUEST every 100 ms until answered: the socket's bucket, not the
 * address's, pays for a lost CHALLENGE); per address 16 per second with a
 * burst of 32, so 32 clients behind one address join at once and 64 within
 * 2 s; 256 per second and a burst of 256 in all. */
void zl_ratelimit_config_default(zl_ratelimit_config *c);

/* Starts with every bucket full. key: 16 secret bytes from the HAL's
 * random() (not the cookie secret), so nobody can choose addresses that
 * share an honest client's bucket. Copies *c and key. A rate or burst of 0
 * is a programmer error (ZL_ASSERT). */
void zl_ratelimit_init(zl_ratelimit *r, const zl_ratelimit_config *c,
                       const uint8_t key[ZL_SIPHASH_KEY_SIZE]);

/* 1 when a request from source a at now_us may be answered (spending one
 * token from its socket's bucket, its address's and the global one), else
 * 0 (spending nothing, counted in the stats). Addresses are keyed by IPv4
 * address or IPv6 /64 prefix: a host gains nothing beyond the address's
 * bucket by changing port or its low 64 address bits. now_us should not go
 * backwards; if it does, no time is taken to have passed. */
int zl_ratelimit_allow(zl_ratelimit *r, const zl_addr *a, uint64_t now_us);

/* The bytes that name the source address a (not its port), which all its
 * sockets share: family, then an IPv4 address (also when it arrives as an
 * IPv4-mapped IPv6 address from a dual-stack socket) or an IPv6 /64, the
 * block one subscriber gets. Writes at most ZL_RATELIMIT_SOURCE_MAX bytes
 * to out and returns their count; two addresses are one source when their
 * bytes are equal. */
#define ZL_RATELIMIT_SOURCE_MAX 9
size_t zl_ratelimit_source(const zl_addr *a, uint8_t out[ZL_RATELIMIT_SOURCE_MAX]);

/* Copies the counters. */
void zl_ratelimit_get_stats(const zl_ratelimit *r, zl_ratelimit_stats *out);

/* One token bucket on its own, for a limit keyed by something the caller
 * already holds (a connection's datagrams): init fills it with burst
 * tokens at now_us; take refills it at rate tokens per second up to burst
 * and spends one token: 1, or 0 when it is empty (nothing spent). rate and
 * burst >= 1 (else ZL_ASSERT); a now_us earlier than the last adds nothing. */
void zl_ratelimit_bucket_init(zl_ratelimit_bucket *b, uint32_t burst, uint64_t now_us);
int zl_ratelimit_bucket_take(zl_ratelimit_bucket *b, uint32_t rate, uint32_t burst,
                             uint64_t now_us);

ZL_END_DECLS

#endif
