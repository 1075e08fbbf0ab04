/* zl_crc32.c - CRC-32 four bits at a time from a 16-entry table: 64 bytes of
 * constants instead of zlib's 1 KiB, which suits a Cortex-M's flash and cache. */
#include "zl_crc32.h"

/* CRC of each 4-bit value alone: entry n is n shifted through four rounds of
 * the reflected polynomial 0xEDB88320. */
static const uint32_t nibble_table[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu,
    0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu,
    0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t zl_crc32_update(uint32_t crc, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    size_t i;
    ZL_ASSERT(data != NULL || len == 0);
    /* The register runs inverted; undoing the final inversion of the earlier
     * result lets a message continue where it stopped. */
    crc = ~crc;
    for (i = 0; i < len; i++) {
        crc ^= p[i];
        crc = (crc >> 4) ^ nibble_table[crc & 15u];
        crc = (crc >> 4) ^ nibble_table[crc & 15u];
    }
    return ~crc;
}
