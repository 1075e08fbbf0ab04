/* zl_base.h - the few definitions every zerolag file shares: result codes,
 * assertions for programmer errors, and compile-time checks. */
#ifndef ZL_BASE_H
#define ZL_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "zl_config.h"

/* Every public header wraps its declarations in these, so C++ code calls
 * the library's C functions by their C names (extern "C"). */
#ifdef __cplusplus
#define ZL_BEGIN_DECLS extern "C" {
#define ZL_END_DECLS }
#else
#define ZL_BEGIN_DECLS
#define ZL_END_DECLS
#endif

ZL_BEGIN_DECLS

/* Result codes. Functions return ZL_OK (0) or a count (>= 0) on success and a
 * negative ZL_ERR_* on failure; zl_strerror() names each one. */
enum {
    ZL_OK = 0,
    ZL_ERR_INVALID = -1,   /* an argument is out of its documented range */
    ZL_ERR_AGAIN = -2,     /* nothing to do now (no datagram waiting) */
    ZL_ERR_TRUNCATED = -3, /* a datagram was larger than the buffer; dropped */
    ZL_ERR_OVERFLOW = -4,  /* a buffer or stream ran out of room */
    ZL_ERR_FULL = -5,      /* a fixed-capacity container is full */
    ZL_ERR_ADDRESS = -6,   /* an address string could not be parsed */
    ZL_ERR_UNSUPPORTED = -7, /* the platform cannot do this (e.g. no IPv6) */
    ZL_ERR_IO = -8,        /* the platform reported an I/O failure */
    ZL_ERR_MALFORMED = -9, /* received bytes do not form a valid message */
    ZL_ERR_DUPLICATE = -10, /* a packet already received, or too old to tell; dropped */
    ZL_ERR_AUTH = -11,     /* authentication failed: forged, tampered or under another key */
    ZL_ERR_CONFIG = -12,   /* the application was compiled with another configuration
                              (zl_config.h) or version than the library */
    ZL_ERR_CHECKSUM = -13, /* stored bytes fail their checksum: damaged */
    ZL_ERR_DESYNC = -14    /* a replay reached another match hash than its record holds */
};

/* Name of a result code, e.g. "ZL_ERR_AGAIN". Unknown codes give "ZL_ERR_?".
 * The returned string is static. */
const char *zl_strerror(int code);

/* ZL_ASSERT catches misuse of the API by the programmer (a NULL state, a
 * capacity that is not a power of two). It never guards against received
 * bytes: hostile input is data, handled with error codes and counters.
 * Define ZL_ASSERT before including zerolag to route it elsewhere. */
#ifndef ZL_ASSERT
#ifdef NDEBUG
#define ZL_ASSERT(cond) ((void)0)
#else
/* Called when an assertion fails; never returns. Supplied by the
 * application or the platform glue (tests print and exit). */
void zl_assert_failed(const char *expr, const char *file, int line);
#define ZL_ASSERT(cond) ((cond) ? (void)0 : zl_assert_failed(#cond, __FILE__, __LINE__))
#endif
#endif

/* Compile-time assertion usable at file or block scope in C99. */
#define ZL_STATIC_ASSERT(cond, name) typedef char zl_static_assert_##name[(cond) ? 1 : -1]

#define ZL_IS_POW2(n) ((n) > 0 && (((n) & ((n) - 1)) == 0))

#define ZL_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

ZL_END_DECLS

#endif
