/* zl_siphash.c - SipHash-2-4 on 64-bit words assembled byte by byte, so it
 * needs no alignment and gives the same result on either byte order. */
#include "zl_siphash.h"

#include "zl_bytes.h"

static uint64_t rotl(uint64_t x, unsigned r)
{
    return (x << r) | (x >> (64u - r));
}

typedef struct sip_state {
    uint64_t v0, v1, v2, v3;
} sip_state;

static void sip_round(sip_state *s)
{
    s->v0 += s->v1;
    s->v1 = rotl(s->v1, 13) ^ s->v0;
    s->v0 = rotl(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl(s->v3, 16) ^ s->v2;
    s->v0 += s->v3;
    s->v3 = rotl(s->v3, 21) ^ s->v0;
    s->v2 += s->v1;
    s->v1 = rotl(s->v1, 17) ^ s->v2;
    s->v2 = rotl(s->v2, 32);
}

/* The "2" of SipHash-2-4: two rounds per message word. */
static void absorb(sip_state *s, uint64_t m)
{
    s->v3 ^= m;
    sip_round(s);
    sip_round(s);
    s->v0 ^= m;
}

uint64_t zl_siphash_digest(const uint8_t key[ZL_SIPHASH_KEY_SIZE], const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t k0, k1, last;
    size_t whole = len - len % 8u, i;
    sip_state s;
    ZL_ASSERT(key != NULL && (data != NULL || len == 0));
    k0 = zl_get_le(key, 8);
    k1 = zl_get_le(key + 8, 8);
    /* The initial constants spell "somepseudorandomlygeneratedbytes". */
    s.v0 = k0 ^ 0x736F6D6570736575u;
    s.v1 = k1 ^ 0x646F72616E646F6Du;
    s.v2 = k0 ^ 0x6C7967656E657261u;
    s.v3 = k1 ^ 0x7465646279746573u;
    for (i = 0; i < whole; i += 8)
        absorb(&s, zl_get_le(p + i, 8));
    /* The final word holds the 0..7 leftover bytes and, in its top byte, the
     * message length mod 256, so messages that differ only by trailing zero
     * bytes hash differently. */
    last = (uint64_t)(len & 0xFFu) << 56;
    for (i = len; i > whole; i--)
        last |= (uint64_t)p[i - 1] << (8u * (i - 1 - whole));
    absorb(&s, last);
    /* The "4": four finalisation rounds. */
    s.v2 ^= 0xFFu;
    sip_round(&s);
    sip_round(&s);
    sip_round(&s);
    sip_round(&s);
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
