/* zl_version.h - the library's version, and the check that an application
 * was compiled with the same version and configuration as the library. */
#ifndef ZL_VERSION_H
#define ZL_VERSION_H

#include "zl_base.h"

ZL_BEGIN_DECLS

#define ZL_VERSION_MAJOR 0
#define ZL_VERSION_MINOR 1
#define ZL_VERSION_PATCH 0
/* The three as one number, 0xMMmmpp (0.1.0 is 0x000100). */
#define ZL_VERSION ((ZL_VERSION_MAJOR << 16) | (ZL_VERSION_MINOR << 8) | ZL_VERSION_PATCH)

/* ZL_VERSION of the library linked in: the headers an application was
 * compiled with say ZL_VERSION, the library says this. */
uint32_t zl_version(void);

/* A 32-bit fingerprint (FNV-1a) of the version and of every option in
 * zl_config.h, as the code calling it was compiled. The library's own is
 * the one its objects were compiled with; the init macros of zl_server.h
 * and zl_client.h compute the application's where they are called. Equal
 * fingerprints mean equal configurations, bar a 1 in 2^32 chance. */
#define ZL_FINGERPRINT_MIX_(option) h = (h ^ (uint32_t)(option)) * 16777619u;
static inline uint32_t zl_config_fingerprint(void)
{
    uint32_t h = 2166136261u;
    ZL_FINGERPRINT_MIX_(ZL_VERSION)
    ZL_CONFIG_OPTIONS(ZL_FINGERPRINT_MIX_)
    return h;
}

/* What the init macros call before touching the object: ZL_OK when
 * `fingerprint` is the library's and the application's `size` of the
 * object equals the library's `expected` size, else ZL_ERR_CONFIG (the
 * application was compiled with another zl_config.h, version or struct
 * layout; using the object would corrupt memory). */
int zl_config_check(uint32_t fingerprint, size_t size, size_t expected);

ZL_END_DECLS

#endif
