/* zl_siphash.h - SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit
 * hash, the connection cookie's MAC, so a client cannot forge one offline.
 * Not part of the API (docs/ARCHITECTURE.md): public for ZL_SIPHASH_KEY_SIZE,
 * which sizes the secret zl_server_init takes; an application calls none of
 * it. */
#ifndef ZL_SIPHASH_H
#define ZL_SIPHASH_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* Key length in bytes: 128 bits, e.g. from the HAL's random(). */
#define ZL_SIPHASH_KEY_SIZE 16

/* SipHash-2-4 of the len bytes at data under key (both owned by the caller,
 * read only). The 64-bit result is the reference output read as a
 * little-endian number, so it is the same value on every host. data may be
 * NULL when len is 0. Any alignment works. */
uint64_t zl_siphash_digest(const uint8_t key[ZL_SIPHASH_KEY_SIZE], const void *data, size_t len);

ZL_END_DECLS

#endif
