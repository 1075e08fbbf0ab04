/* zl_handshake.h - the protocol's message types, the connection handshake's
 * messages and client settings, the stateless cookie and the rate limiter. */
#ifndef ZL_HANDSHAKE_H
#define ZL_HANDSHAKE_H

#include "zl_addr.h"
#include "zl_bits.h"
#include "zl_packet.h"
#include "zl_siphash.h"

/* ---- Configuration (#ifndef defaults; the lead moves them to zl_config.h) ---- */

/* Payload bytes of every REQUEST and RESPONSE, zero padding included. Every
 * reply the server sends to a peer it has not accepted yet (CHALLENGE, DENY,
 * ACCEPT) is smaller, so a spoofed source gains no amplification: 128 makes
 * a CHALLENGE datagram (33 bytes) a quarter of the request (141 bytes). */
#ifndef ZL_REQUEST_SIZE
#define ZL_REQUEST_SIZE 128
#endif
/* A cookie is valid in the window it was made in and the next one, so it
 * lives between one and two windows (5 to 10 s). */
#ifndef ZL_COOKIE_WINDOW_US
#define ZL_COOKIE_WINDOW_US 5000000u
#endif
/* Token buckets shared by all source addresses (a power of two). More buckets
 * mean fewer honest clients sharing a bucket with a flooding source. */
#ifndef ZL_RATELIMIT_BUCKETS
#define ZL_RATELIMIT_BUCKETS 256
#endif

/* ---- The protocol ---- */

/* Wire version, in the low 16 bits of the protocol id. */
#define ZL_PROTOCOL_VERSION 1u
/* Every packet is sealed under this id (zl_packet_seal): "ZL" and the version. */
#define ZL_PROTOCOL_ID (0x5A4C0000u | ZL_PROTOCOL_VERSION)

/* Packet types (zl_packet_header.type). "Connectionless" ones are sealed with
 * sequence, ack and ack_bits 0 (zl_msg_seal); the others travel on a
 * connection's zl_link. Every message of this module starts with the
 * client's nonce, which the receiver compares with the one it knows, so a
 * sender that cannot see the traffic cannot forge one for another's address. */
enum {
    ZL_MSG_REQUEST = 0,    /* client -> server, connectionless: asks for a cookie */
    ZL_MSG_CHALLENGE = 1,  /* server -> client, connectionless: the cookie */
    ZL_MSG_RESPONSE = 2,   /* client -> server, connectionless: echoes the cookie */
    ZL_MSG_ACCEPT = 3,     /* server -> client, connectionless: the slot */
    ZL_MSG_DENY = 4,       /* server -> client, connectionless: refused, and why */
    ZL_MSG_KEEPALIVE = 5,  /* either way, connected: nothing else to send */
    ZL_MSG_DISCONNECT = 6, /* either way, connected: sent several times */
    ZL_MSG_COMMANDS = 7,   /* client -> server, connected (zl_cmdstream) */
    ZL_MSG_SNAPSHOT = 8,   /* server -> client, connected (zl_snapshot) */
    ZL_MSG_SETTINGS = 9,   /* client -> server, connected: new settings */
    ZL_MSG_TYPE_COUNT
};
ZL_STATIC_ASSERT(ZL_MSG_TYPE_COUNT <= ZL_PACKET_TYPE_COUNT, zl_msg_types_fit);

/* Why the server refused a client (zl_msg_deny.reason). A source that is
 * rate limited gets no answer at all: a DENY would be the very reply the
 * limit exists to withhold. */
enum {
    ZL_DENY_FULL = 0,    /* every slot is taken */
    ZL_DENY_VERSION = 1, /* the request named another ZL_PROTOCOL_ID */
    ZL_DENY_BANNED = 2,  /* the application refuses this client */
    ZL_DENY_COUNT
};

/* Why a connection ended (zl_msg_disconnect.reason). */
enum {
    ZL_DISCONNECT_QUIT = 0,     /* the sender closed the connection */
    ZL_DISCONNECT_TIMEOUT = 1,  /* the server heard nothing for too long */
    ZL_DISCONNECT_KICKED = 2,   /* the server's application removed the client */
    ZL_DISCONNECT_SHUTDOWN = 3, /* the server is stopping */
    ZL_DISCONNECT_COUNT
};

/* ---- Client settings ---- */

/* What a client asks for, Source's cl_updaterate, cl_cmdrate, rate, cl_interp
 * and cl_interp_ratio. Sent at connect and in SETTINGS, clamped by the server
 * (zl_client_settings_clamp), echoed clamped in ACCEPT. */
typedef struct zl_client_settings {
    uint16_t updaterate;   /* snapshots per second wanted */
    uint16_t cmdrate;      /* command packets per second sent */
    uint32_t rate;         /* bytes per second the client can take */
    uint32_t interp_us;    /* interpolation delay, microseconds */
    uint16_t interp_ratio; /* delay in snapshot intervals; the client uses the
                              larger of the two (zl_interp_delay_us) */
} zl_client_settings;

/* Wire ranges: a value outside is refused by the writer (ZL_ERR_INVALID) and
 * the reader (ZL_ERR_MALFORMED). Tighter limits are the server's to set. */
#define ZL_SETTINGS_RATE_HZ_MIN 1u /* updaterate and cmdrate */
#define ZL_SETTINGS_RATE_HZ_MAX 1000u
#define ZL_SETTINGS_BYTES_MIN 1000u /* rate */
#define ZL_SETTINGS_BYTES_MAX 10000000u
#define ZL_SETTINGS_INTERP_US_MAX 1000000u
#define ZL_SETTINGS_RATIO_MIN 1u
#define ZL_SETTINGS_RATIO_MAX 10u
/* Bytes the settings take once aligned: 10 + 10 + 24 + 20 + 4 bits. */
#define ZL_SETTINGS_SIZE 9

/* Per-field bounds a server imposes. Each min <= max, inside the wire range. */
typedef struct zl_server_limits {
    uint16_t updaterate_min, updaterate_max;
    uint16_t cmdrate_min, cmdrate_max;
    uint32_t rate_min, rate_max;
    uint32_t interp_us_min, interp_us_max;
    uint16_t interp_ratio_min, interp_ratio_max;
} zl_server_limits;

/* Source-like defaults: 64 snapshots/s and 64 command packets/s; rate 80000
 * bytes/s, enough for a full-size datagram (ZL_MAX_PACKET) every snapshot at
 * 64/s; interp 100000 us (cl_interp 0.1) and ratio 2. */
void zl_client_settings_default(zl_client_settings *s);

/* Defaults a server starts from: updaterate and cmdrate 10..128 (set the
 * maxima to the tick rate), rate 5000..786432 bytes/s, interp 0..500000 us,
 * ratio 1..5 (Source's sv_client_min/max_interp_ratio). */
void zl_server_limits_default(zl_server_limits *l);

/* Brings every field of *s into [min, max] of *l. Any value is accepted.
 * Limits with a min above its max, or outside the wire range, are a
 * programmer error (ZL_ASSERT). */
void zl_client_settings_clamp(zl_client_settings *s, const zl_server_limits *l);

/* Writes *s bit-packed: 68 bits, unaligned, so it can sit mid-stream.
 * Returns the bits written, the writer's sticky ZL_ERR_OVERFLOW, or
 * ZL_ERR_INVALID (nothing written) when a field is outside its wire range. */
int zl_client_settings_write(zl_bitwriter *w, const zl_client_settings *s);

/* Reads settings written by zl_client_settings_write into *out. Returns
 * ZL_OK, or the reader's sticky error: ZL_ERR_OVERFLOW when the bits run
 * out, ZL_ERR_MALFORMED for a field outside its wire range. *out is zeroed
 * on error. */
int zl_client_settings_read(zl_bitreader *r, zl_client_settings *out);

/* ---- Messages ----
 * Payloads are the bytes after the packet header, fixed in size per type,
 * integers little-endian. Writers take a caller buffer of cap bytes and
 * return the payload size, ZL_ERR_OVERFLOW (cap too small; buf untouched)
 * or ZL_ERR_INVALID (a field out of range; buf untouched). Readers take the
 * len received payload bytes (read only; payload may be NULL when len is 0)
 * and return ZL_OK, or ZL_ERR_MALFORMED for a wrong size, a value out of
 * range or a padding bit that is not zero; *out is then zeroed. Every
 * accepted payload is the one its writer produces from *out. */

#define ZL_CHALLENGE_SIZE 20    /* nonce, window, cookie */
#define ZL_ACCEPT_SIZE 25       /* nonce, slot, tick rate, server tick, settings */
#define ZL_DENY_SIZE 9          /* nonce, reason */
#define ZL_DISCONNECT_SIZE 9    /* nonce, reason */
#define ZL_KEEPALIVE_SIZE 8     /* nonce */
#define ZL_SETTINGS_MSG_SIZE 17 /* nonce, settings */
/* Content before the padding of REQUEST (protocol id, nonce, settings) and
 * RESPONSE (nonce, window, cookie, settings). */
#define ZL_REQUEST_CONTENT 21
#define ZL_RESPONSE_CONTENT 29

/* No amplification: every reply to a REQUEST or RESPONSE is no larger. */
ZL_STATIC_ASSERT(ZL_REQUEST_SIZE >= ZL_REQUEST_CONTENT && ZL_REQUEST_SIZE >= ZL_RESPONSE_CONTENT,
                 zl_request_holds_content);
ZL_STATIC_ASSERT(ZL_CHALLENGE_SIZE <= ZL_REQUEST_SIZE && ZL_DENY_SIZE <= ZL_REQUEST_SIZE &&
                     ZL_ACCEPT_SIZE <= ZL_REQUEST_SIZE,
                 zl_no_reply_larger_than_request);
ZL_STATIC_ASSERT(ZL_REQUEST_SIZE <= ZL_PACKET_MAX_PAYLOAD, zl_request_fits_packet);
ZL_STATIC_ASSERT(ZL_MAX_CLIENTS >= 1 && ZL_MAX_CLIENTS <= 65536, zl_slot_fits_16_bits);

/* REQUEST: a client asks to connect. nonce is 64 bits from the client's HAL
 * random(), fresh per attempt; it ties every later message to this attempt.
 * A protocol_id other than ZL_PROTOCOL_ID is valid data (the server answers
 * ZL_DENY_VERSION), though only a server that opens REQUESTs under other ids
 * ever sees one: the packet CRC already covers the id. */
typedef struct zl_msg_request {
    uint32_t protocol_id;
    uint64_t nonce;
    zl_client_settings settings; /* what the client asks for */
} zl_msg_request;

/* CHALLENGE: the server's stateless answer. A client drops one whose nonce
 * is not the nonce of its pending request. */
typedef struct zl_msg_challenge {
    uint64_t nonce;  /* echoed from the REQUEST */
    uint32_t window; /* zl_cookie_window at the server when made */
    uint64_t cookie; /* zl_cookie_make(secret, client address, window, nonce) */
} zl_msg_challenge;

/* RESPONSE: the client echoes the challenge, with its settings again (the
 * server kept nothing of the REQUEST). */
typedef struct zl_msg_response {
    uint64_t nonce;
    uint32_t window;
    uint64_t cookie;
    zl_client_settings settings;
} zl_msg_response;

/* ACCEPT: the client has a slot. */
typedef struct zl_msg_accept {
    uint64_t nonce;
    uint16_t slot;               /* 0 .. ZL_MAX_CLIENTS - 1, also the player's entity */
    uint16_t tick_rate;          /* server ticks per second, 1 .. 1000 */
    uint32_t server_tick;        /* the server's tick when it wrote the ACCEPT */
    zl_client_settings settings; /* as clamped by the server */
} zl_msg_accept;

/* DENY: the server refuses (reason ZL_DENY_*). */
typedef struct zl_msg_deny {
    uint64_t nonce;
    uint8_t reason;
} zl_msg_deny;

/* DISCONNECT: either side ends the connection (reason ZL_DISCONNECT_*). */
typedef struct zl_msg_disconnect {
    uint64_t nonce;
    uint8_t reason;
} zl_msg_disconnect;

/* KEEPALIVE: proof of life when nothing else is due. */
typedef struct zl_msg_keepalive {
    uint64_t nonce;
} zl_msg_keepalive;

/* SETTINGS: a connected client changes its settings (the server clamps). */
typedef struct zl_msg_settings {
    uint64_t nonce;
    zl_client_settings settings;
} zl_msg_settings;

/* Writers and readers, per the rules above. ZL_ERR_INVALID: settings out of
 * their wire range, slot >= ZL_MAX_CLIENTS, tick_rate 0 or above 1000, a
 * reason >= its *_COUNT. The padding of REQUEST and RESPONSE must read zero. */
int zl_msg_request_write(void *buf, size_t cap, const zl_msg_request *m);
int zl_msg_request_read(const void *payload, size_t len, zl_msg_request *out);
int zl_msg_challenge_write(void *buf, size_t cap, const zl_msg_challenge *m);
int zl_msg_challenge_read(const void *payload, size_t len, zl_msg_challenge *out);
int zl_msg_response_write(void *buf, size_t cap, const zl_msg_response *m);
int zl_msg_response_read(const void *payload, size_t len, zl_msg_response *out);
int zl_msg_accept_write(void *buf, size_t cap, const zl_msg_accept *m);
int zl_msg_accept_read(const void *payload, size_t len, zl_msg_accept *out);
int zl_msg_deny_write(void *buf, size_t cap, const zl_msg_deny *m);
int zl_msg_deny_read(const void *payload, size_t len, zl_msg_deny *out);
int zl_msg_disconnect_write(void *buf, size_t cap, const zl_msg_disconnect *m);
int zl_msg_disconnect_read(const void *payload, size_t len, zl_msg_disconnect *out);
int zl_msg_keepalive_write(void *buf, size_t cap, const zl_msg_keepalive *m);
int zl_msg_keepalive_read(const void *payload, size_t len, zl_msg_keepalive *out);
int zl_msg_settings_write(void *buf, size_t cap, const zl_msg_settings *m);
int zl_msg_settings_read(const void *payload, size_t len, zl_msg_settings *out);

/* Seals a connectionless message in place: packet (caller-owned) holds
 * payload_bytes at packet + ZL_PACKET_HEADER_SIZE; the header gets type and
 * sequence, ack and ack_bits 0, the CRC ZL_PROTOCOL_ID. Returns the datagram
 * length or ZL_ERR_OVERFLOW, as zl_packet_seal. */
int zl_msg_seal(void *packet, size_t payload_bytes, uint8_t type);

/* ---- Cookie ---- */

/* The cookie window of a time: now_us / ZL_COOKIE_WINDOW_US (wraps after
 * 680 years of uptime at 5 s). */
uint32_t zl_cookie_window(uint64_t now_us);

/* The cookie for a client: SipHash-2-4 under secret (16 bytes from the
 * server's HAL random(), kept for the server's life) of the client's
 * address (family, ip, port), window and nonce. The server stores nothing
 * per request: it recomputes the cookie when the RESPONSE comes back. */
uint64_t zl_cookie_make(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                        uint32_t window, uint64_t nonce);

/* 1 when cookie is what zl_cookie_make gives for (client, window, nonce)
 * and window is the current window at now_us or the one before; else 0.
 * Every value is accepted: a forged, stale or misaddressed cookie gives 0. */
int zl_cookie_check(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                    uint64_t now_us, uint32_t window, uint64_t nonce, uint64_t cookie);

/* ---- Rate limiter ---- */

/* Token buckets: each holds at most burst tokens, gains rate tokens per
 * second, and a request spends one. Both rates and bursts must be >= 1. */
typedef struct zl_ratelimit_config {
    uint32_t addr_rate;    /* per source address, tokens per second */
    uint32_t addr_burst;   /* per source address, bucket capacity */
    uint32_t global_rate;  /* all sources together, tokens per second */
    uint32_t global_burst; /* all sources together, bucket capacity */
} zl_ratelimit_config;

/* Counters since zl_ratelimit_init; they wrap at 2^32. */
typedef struct zl_ratelimit_stats {
    uint32_t allowed;
    uint32_t refused_addr;   /* the source's bucket was empty */
    uint32_t refused_global; /* the source had a token but the global bucket did not */
} zl_ratelimit_stats;

/* Private: one bucket. Credit is in millionths of a token, so refilling at
 * any integer rate per microsecond elapsed is exact. */
typedef struct zl_ratelimit_bucket {
    uint64_t credit;
    uint64_t last_us;
} zl_ratelimit_bucket;

/* Private; place it anywhere (static on small targets: about 4 KB with 256
 * buckets) and use the functions. */
typedef struct zl_ratelimit {
    zl_ratelimit_config config;
    uint8_t key[ZL_SIPHASH_KEY_SIZE];
    zl_ratelimit_bucket bucket[ZL_RATELIMIT_BUCKETS];
    zl_ratelimit_bucket global;
    zl_ratelimit_stats stats;
} zl_ratelimit;

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_RATELIMIT_BUCKETS), zl_ratelimit_buckets_pow2);

/* 4 challenges per second per address with a burst of 4; 256 per second
 * and a burst of 256 in all. */
void zl_ratelimit_config_default(zl_ratelimit_config *c);

/* Starts with every bucket full. key: 16 secret bytes from the HAL's
 * random() (not the cookie secret), so nobody can choose addresses that
 * share an honest client's bucket. Copies *c and key. A rate or burst of 0
 * is a programmer error (ZL_ASSERT). */
void zl_ratelimit_init(zl_ratelimit *r, const zl_ratelimit_config *c,
                       const uint8_t key[ZL_SIPHASH_KEY_SIZE]);

/* 1 when a request from source a at now_us may be answered (spending one
 * token from its bucket and one from the global bucket), else 0 (spending
 * nothing, counted in the stats). Sources are keyed by IPv4 address or
 * IPv6 /64 prefix, not port: a host gains nothing by changing port or its
 * low 64 address bits. now_us should not go backwards; if it does, no time
 * is taken to have passed. */
int zl_ratelimit_allow(zl_ratelimit *r, const zl_addr *a, uint64_t now_us);

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

#endif
