/* zl_crypto_bytes.h - private to the zl_crypto files: 32-bit words read and
 * written as little-endian bytes, so the ciphers never care about byte order
 * or alignment. */
#ifndef ZL_CRYPTO_BYTES_H
#define ZL_CRYPTO_BYTES_H

#include <stdint.h>

static inline uint32_t load32_le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void store32_le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif
