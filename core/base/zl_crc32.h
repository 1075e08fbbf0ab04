/* zl_crc32.h - CRC-32 as zlib, Ethernet and PNG compute it (IEEE 802.3
 * polynomial, reflected, inverted in and out): the packet integrity check. */
#ifndef ZL_CRC32_H
#define ZL_CRC32_H

#include "zl_base.h"

/* The CRC-32 of `crc`'s message followed by the len bytes at data, where
 * crc is an earlier result, or 0 to start a new message (so a message can be
 * fed in pieces: zl_crc32_update(zl_crc32_update(0, a, n), b, m) is the CRC
 * of a then b). "123456789" gives 0xCBF43926. data may be NULL when len is
 * 0. Reads bytes one at a time: any alignment works. */
uint32_t zl_crc32_update(uint32_t crc, const void *data, size_t len);

#endif
