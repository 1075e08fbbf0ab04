/* zl_token.h - connect tokens: what the game's backend gives a matched player
 * so that one server admits it, with the session keys of its connection. */
#ifndef ZL_TOKEN_H
#define ZL_TOKEN_H

#include "zl_addr.h"
#include "zl_crypto.h"

ZL_BEGIN_DECLS

/* The design (netcode.io's connect tokens, sized for small targets). The
 * backend and the game servers share a 32-byte private key. For each player
 * and match the backend mints a token: a private part, sealed under that key
 * with XChaCha20-Poly1305 (random 24-byte nonce; the protocol id and the
 * expiry as associated data, so neither can be changed), holding the client
 * id, the connection timeout, the server addresses the token is good for,
 * one session key per direction and the game's user data; and a public part
 * for the client: the expiry, the nonce, the sealed bytes, the addresses and
 * the two session keys. The client sends the sealed part and the nonce in
 * its connection request; only a server that holds the private key can open
 * it, and only the client that received the token knows the session keys
 * that protect every packet of the connection afterwards (zl_conn.h). A
 * server refuses a token that does not open, has expired, does not name one
 * of its addresses, or was already used from another address
 * (zl_token_cache). */

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_TOKEN_CACHE), zl_token_cache_pow2);
ZL_STATIC_ASSERT(ZL_TOKEN_ADDRESSES >= 1 && ZL_TOKEN_ADDRESSES <= 32, zl_token_addresses);

#define ZL_TOKEN_KEY_SIZE ZL_AEAD_KEY_SIZE
#define ZL_TOKEN_NONCE_SIZE ZL_XAEAD_NONCE_SIZE
/* An address in a token: family, 16 address bytes, port. */
#define ZL_TOKEN_ADDR_SIZE 19
/* The private part in clear: client id, timeout, address count, addresses,
 * both keys, user data. */
#define ZL_TOKEN_PRIVATE_SIZE                                                                     \
    (8 + 4 + 1 + ZL_TOKEN_ADDRESSES * ZL_TOKEN_ADDR_SIZE + 2 * ZL_TOKEN_KEY_SIZE +                 \
     ZL_TOKEN_USER_DATA)
/* The private part sealed: what travels in a connection request. */
#define ZL_TOKEN_SEALED_SIZE (ZL_TOKEN_PRIVATE_SIZE + ZL_AEAD_TAG_SIZE)

/* What a token grants: the private part, as the backend fills it and as a
 * server reads it back. */
typedef struct zl_token_grant {
    uint64_t client_id;     /* the backend's id of the player */
    uint32_t timeout_s;     /* silence that ends the connection, seconds */
    uint8_t address_count;  /* 1 .. ZL_TOKEN_ADDRESSES */
    zl_addr addresses[ZL_TOKEN_ADDRESSES]; /* servers the token is good for */
    uint8_t client_key[ZL_TOKEN_KEY_SIZE]; /* seals client -> server packets */
    uint8_t server_key[ZL_TOKEN_KEY_SIZE]; /* seals server -> client packets */
    uint8_t user_data[ZL_TOKEN_USER_DATA];
} zl_token_grant;

/* A connect token as the client holds it (the public part). */
typedef struct zl_connect_token {
    uint64_t create_s, expire_s; /* Unix seconds */
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    uint8_t sealed[ZL_TOKEN_SEALED_SIZE];
    uint32_t timeout_s;
    uint8_t address_count;
    zl_addr addresses[ZL_TOKEN_ADDRESSES];
    uint8_t client_key[ZL_TOKEN_KEY_SIZE];
    uint8_t server_key[ZL_TOKEN_KEY_SIZE];
} zl_connect_token;

/* Bytes of a token written by zl_token_write: for the backend to hand to a
 * client (over its own secure channel, e.g. HTTPS). */
#define ZL_TOKEN_WIRE_SIZE                                                                        \
    (4 + 8 + 8 + ZL_TOKEN_NONCE_SIZE + ZL_TOKEN_SEALED_SIZE + 4 + 1 +                              \
     ZL_TOKEN_ADDRESSES * ZL_TOKEN_ADDR_SIZE + 2 * ZL_TOKEN_KEY_SIZE)

/* Mints a token for `grant` (address_count 1 .. ZL_TOKEN_ADDRESSES, else
 * ZL_ERR_INVALID) valid from create_s until expire_s (Unix seconds, expire_s
 * > create_s, else ZL_ERR_INVALID), its private part sealed under
 * private_key with `nonce` (24 fresh random bytes: never reuse one with a
 * key). The grant's keys must be fresh random bytes too. ZL_OK. */
int zl_token_mint(zl_connect_token *out, const zl_token_grant *grant, uint64_t create_s,
                  uint64_t expire_s, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                  const uint8_t private_key[ZL_TOKEN_KEY_SIZE]);

/* Serialises a token into buf (cap bytes): ZL_TOKEN_WIRE_SIZE, or
 * ZL_ERR_OVERFLOW (buf untouched). Little-endian, the same on every host. */
int zl_token_write(void *buf, size_t cap, const zl_connect_token *token);

/* Reads a serialised token (len bytes, hostile bytes fine): ZL_OK, or
 * ZL_ERR_MALFORMED (wrong size, another protocol's token, an address count
 * or family out of range; *out zeroed). */
int zl_token_read(const void *buf, size_t len, zl_connect_token *out);

/* Opens the sealed private part a connection request carries: ZL_OK with
 * *grant filled, or ZL_ERR_AUTH (not sealed under this key with this nonce
 * and expiry: forged, tampered, another server's, or an expiry changed),
 * ZL_ERR_MALFORMED (opens but holds values out of range), ZL_ERR_AGAIN
 * (expired: expire_s <= now_s). *grant is zeroed on failure. The caller then
 * checks the addresses (zl_token_names). */
int zl_token_open(zl_token_grant *grant, const uint8_t sealed[ZL_TOKEN_SEALED_SIZE],
                  uint64_t expire_s, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                  const uint8_t private_key[ZL_TOKEN_KEY_SIZE], uint64_t now_s);

/* 1 when the grant names `addr`, else 0. */
int zl_token_names(const zl_token_grant *grant, const zl_addr *addr);

/* Tokens a server has admitted, so none is used twice: each entry is a
 * token's nonce (its identity), the address that used it and its expiry.
 * Caller-owned; all-zero bytes is an empty cache. When full, the entry
 * closest to expiry makes room. */
typedef struct zl_token_entry {
    uint8_t id[16];  /* the token nonce's first 16 bytes */
    zl_addr from;
    uint64_t expire_s;
} zl_token_entry;

typedef struct zl_token_cache {
    zl_token_entry entry[ZL_TOKEN_CACHE];
} zl_token_cache;

/* 1 when the token (its nonce) may be used from `from` at now_s: never
 * seen, seen from this very address (a retry), or its entry expired. */
int zl_token_cache_allows(const zl_token_cache *c, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                          const zl_addr *from, uint64_t now_s);

/* Records the token as used from `from` until expire_s. */
void zl_token_cache_add(zl_token_cache *c, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                        const zl_addr *from, uint64_t expire_s, uint64_t now_s);

ZL_END_DECLS

#endif
