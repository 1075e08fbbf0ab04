/* zl_int.h - private to core: the small integer helpers several files need,
 * each free of undefined and implementation-defined behaviour. */
#ifndef ZL_INT_H
#define ZL_INT_H

#include "zl_base.h"

/* |v|, for v above INT64_MIN. */
static inline int64_t zl_abs64(int64_t v)
{
    return v < 0 ? -v : v;
}

/* v limited to lo .. hi (lo <= hi). */
static inline int64_t zl_clamp64(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The int32 whose two's complement bits are u, without the
 * implementation-defined conversion of a value above INT32_MAX. */
static inline int32_t zl_to_i32(uint32_t u)
{
    if (u <= (uint32_t)INT32_MAX)
        return (int32_t)u;
    return (int32_t)(u - 0x80000000u) + INT32_MIN;
}

#endif
