/* zl_token.c - minting, serialising and opening connect tokens over a fixed
 * little-endian layout, and the cache of tokens already used. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_protocol.h"
#include "zl_token.h"

/* A byte cursor: a writer or reader over a fixed buffer whose size the
 * caller checked, so no step can run past the end. */
typedef struct cursor {
    uint8_t *w;
    const uint8_t *r;
} cursor;

static void put(cursor *c, uint64_t v, unsigned n)
{
    zl_put_le(c->w, v, n);
    c->w += n;
}

static void put_bytes(cursor *c, const void *p, size_t n)
{
    memcpy(c->w, p, n);
    c->w += n;
}

static uint64_t get(cursor *c, unsigned n)
{
    uint64_t v = zl_get_le(c->r, n);
    c->r += n;
    return v;
}

static void get_bytes(cursor *c, void *p, size_t n)
{
    memcpy(p, c->r, n);
    c->r += n;
}

/* Every slot is written, unused ones as zero, so a token has one layout. */
static void put_addresses(cursor *c, const zl_addr *a, uint8_t count)
{
    unsigned i;
    for (i = 0; i < ZL_TOKEN_ADDRESSES; i++) {
        zl_addr none;
        const zl_addr *x = a + i;
        if (i >= count) {
            memset(&none, 0, sizeof none);
            x = &none;
        }
        put(c, x->family, 1);
        put_bytes(c, x->ip, 16);
        put(c, x->port, 2);
    }
}

/* 0 when a count or a family is out of range, or an unused slot is not
 * all zero (one token, one encoding). */
static int get_addresses(cursor *c, zl_addr *a, uint8_t count)
{
    static const zl_addr none;
    unsigned i;
    int ok = count >= 1 && count <= ZL_TOKEN_ADDRESSES;
    for (i = 0; i < ZL_TOKEN_ADDRESSES; i++) {
        a[i].family = (uint8_t)get(c, 1);
        get_bytes(c, a[i].ip, 16);
        a[i].port = (uint16_t)get(c, 2);
        if (i < count)
            ok &= a[i].family == ZL_ADDR_IPV4 || a[i].family == ZL_ADDR_IPV6;
        else
            ok &= a[i].family == ZL_ADDR_NONE && a[i].port == 0 &&
                  memcmp(a[i].ip, none.ip, sizeof none.ip) == 0;
    }
    return ok;
}

/* What the seal binds besides the private part: the protocol and the expiry. */
static void token_aad(uint8_t aad[12], uint64_t expire_s)
{
    zl_put_le(aad, ZL_PROTOCOL_ID, 4);
    zl_put_le(aad + 4, expire_s, 8);
}

int zl_token_mint(zl_connect_token *out, const zl_token_grant *grant, uint64_t create_s,
                  uint64_t expire_s, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                  const uint8_t private_key[ZL_TOKEN_KEY_SIZE])
{
    uint8_t plain[ZL_TOKEN_PRIVATE_SIZE], aad[12];
    cursor c;
    int r;
    ZL_ASSERT(out && grant && nonce && private_key);
    if (grant->address_count < 1 || grant->address_count > ZL_TOKEN_ADDRESSES ||
        expire_s <= create_s)
        return ZL_ERR_INVALID;
    c.w = plain;
    put(&c, grant->client_id, 8);
    put(&c, grant->timeout_s, 4);
    put(&c, grant->address_count, 1);
    put_addresses(&c, grant->addresses, grant->address_count);
    put_bytes(&c, grant->client_key, ZL_TOKEN_KEY_SIZE);
    put_bytes(&c, grant->server_key, ZL_TOKEN_KEY_SIZE);
    put_bytes(&c, grant->user_data, ZL_TOKEN_USER_DATA);
    memset(out, 0, sizeof *out);
    out->create_s = create_s;
    out->expire_s = expire_s;
    memcpy(out->nonce, nonce, ZL_TOKEN_NONCE_SIZE);
    token_aad(aad, expire_s);
    r = zl_xchacha20poly1305_seal(out->sealed, sizeof out->sealed, plain, sizeof plain, aad,
                                  sizeof aad, nonce, private_key);
    zl_crypto_wipe(plain, sizeof plain);
    ZL_ASSERT(r == ZL_TOKEN_SEALED_SIZE);
    out->timeout_s = grant->timeout_s;
    out->address_count = grant->address_count;
    memcpy(out->addresses, grant->addresses, grant->address_count * sizeof grant->addresses[0]);
    memcpy(out->client_key, grant->client_key, ZL_TOKEN_KEY_SIZE);
    memcpy(out->server_key, grant->server_key, ZL_TOKEN_KEY_SIZE);
    return ZL_OK;
}

int zl_token_write(void *buf, size_t cap, const zl_connect_token *token)
{
    cursor c;
    ZL_ASSERT(token && (buf || cap == 0));
    if (cap < ZL_TOKEN_WIRE_SIZE)
        return ZL_ERR_OVERFLOW;
    c.w = (uint8_t *)buf;
    put(&c, ZL_PROTOCOL_ID, 4);
    put(&c, token->create_s, 8);
    put(&c, token->expire_s, 8);
    put_bytes(&c, token->nonce, ZL_TOKEN_NONCE_SIZE);
    put_bytes(&c, token->sealed, ZL_TOKEN_SEALED_SIZE);
    put(&c, token->timeout_s, 4);
    put(&c, token->address_count, 1);
    put_addresses(&c, token->addresses, token->address_count);
    put_bytes(&c, token->client_key, ZL_TOKEN_KEY_SIZE);
    put_bytes(&c, token->server_key, ZL_TOKEN_KEY_SIZE);
    return ZL_TOKEN_WIRE_SIZE;
}

int zl_token_read(const void *buf, size_t len, zl_connect_token *out)
{
    cursor c;
    int ok;
    ZL_ASSERT(out && (buf || len == 0));
    memset(out, 0, sizeof *out);
    if (len != ZL_TOKEN_WIRE_SIZE)
        return ZL_ERR_MALFORMED;
    c.r = (const uint8_t *)buf;
    ok = get(&c, 4) == ZL_PROTOCOL_ID;
    out->create_s = get(&c, 8);
    out->expire_s = get(&c, 8);
    get_bytes(&c, out->nonce, ZL_TOKEN_NONCE_SIZE);
    get_bytes(&c, out->sealed, ZL_TOKEN_SEALED_SIZE);
    out->timeout_s = (uint32_t)get(&c, 4);
    out->address_count = (uint8_t)get(&c, 1);
    ok &= get_addresses(&c, out->addresses, out->address_count);
    get_bytes(&c, out->client_key, ZL_TOKEN_KEY_SIZE);
    get_bytes(&c, out->server_key, ZL_TOKEN_KEY_SIZE);
    ok &= out->expire_s > out->create_s;
    if (!ok) {
        memset(out, 0, sizeof *out);
        return ZL_ERR_MALFORMED;
    }
    return ZL_OK;
}

int zl_token_open(zl_token_grant *grant, const uint8_t sealed[ZL_TOKEN_SEALED_SIZE],
                  uint64_t expire_s, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                  const uint8_t private_key[ZL_TOKEN_KEY_SIZE], uint64_t now_s)
{
    uint8_t plain[ZL_TOKEN_PRIVATE_SIZE], aad[12];
    cursor c;
    int r;
    ZL_ASSERT(grant && sealed && nonce && private_key);
    memset(grant, 0, sizeof *grant);
    token_aad(aad, expire_s);
    /* Authenticated first: nothing of a forged token is even parsed. */
    r = zl_xchacha20poly1305_open(plain, sizeof plain, sealed, ZL_TOKEN_SEALED_SIZE, aad,
                                  sizeof aad, nonce, private_key);
    if (r != ZL_TOKEN_PRIVATE_SIZE)
        return ZL_ERR_AUTH;
    c.r = plain;
    grant->client_id = get(&c, 8);
    grant->timeout_s = (uint32_t)get(&c, 4);
    grant->address_count = (uint8_t)get(&c, 1);
    r = get_addresses(&c, grant->addresses, grant->address_count) ? ZL_OK : ZL_ERR_MALFORMED;
    get_bytes(&c, grant->client_key, ZL_TOKEN_KEY_SIZE);
    get_bytes(&c, grant->server_key, ZL_TOKEN_KEY_SIZE);
    get_bytes(&c, grant->user_data, ZL_TOKEN_USER_DATA);
    zl_crypto_wipe(plain, sizeof plain);
    if (r == ZL_OK && expire_s <= now_s)
        r = ZL_ERR_AGAIN;
    if (r != ZL_OK)
        zl_crypto_wipe(grant, sizeof *grant);
    return r;
}

int zl_token_names(const zl_token_grant *grant, const zl_addr *addr)
{
    unsigned i;
    ZL_ASSERT(grant && addr);
    for (i = 0; i < grant->address_count && i < ZL_TOKEN_ADDRESSES; i++)
        if (zl_addr_equal(&grant->addresses[i], addr))
            return 1;
    return 0;
}

/* The live entry of a token, or -1. */
static int find_entry(const zl_token_cache *c, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                      uint64_t now_s)
{
    int i;
    for (i = 0; i < ZL_TOKEN_CACHE; i++)
        if (c->entry[i].expire_s > now_s && memcmp(c->entry[i].id, nonce, 16) == 0)
            return i;
    return -1;
}

int zl_token_cache_allows(const zl_token_cache *c, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                          const zl_addr *from, uint64_t now_s)
{
    int i;
    ZL_ASSERT(c && nonce && from);
    i = find_entry(c, nonce, now_s);
    return i < 0 || zl_addr_equal(&c->entry[i].from, from);
}

void zl_token_cache_add(zl_token_cache *c, const uint8_t nonce[ZL_TOKEN_NONCE_SIZE],
                        const zl_addr *from, uint64_t expire_s, uint64_t now_s)
{
    int found = find_entry(c, nonce, now_s);
    zl_token_entry *slot = found >= 0 ? &c->entry[found] : NULL;
    unsigned i;
    ZL_ASSERT(c && nonce && from);
    if (!slot) {
        /* An expired entry, else the one closest to expiry: tokens live for
         * seconds, so a cache as large as the connects in that time never
         * forgets a live one. */
        slot = &c->entry[0];
        for (i = 1; i < ZL_TOKEN_CACHE && slot->expire_s > now_s; i++)
            if (c->entry[i].expire_s < slot->expire_s)
                slot = &c->entry[i];
    }
    memcpy(slot->id, nonce, 16);
    slot->from = *from;
    slot->expire_s = expire_s;
}
