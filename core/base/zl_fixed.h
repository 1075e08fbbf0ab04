/* zl_fixed.h - Q16.16 fixed-point numbers, 16-bit binary angles and 3D vectors.
 * Integer-only, so every platform computes bit-identical results. */
#ifndef ZL_FIXED_H
#define ZL_FIXED_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* Q16.16: value = raw / 65536. Range [-32768, 32768 - 2^-16]. */
typedef int32_t zl_fx;

/* Binary angle: 65536 units = one turn, so wraparound is free and exact.
 * 16384 = 90 degrees. Stored unsigned; differences are taken as int16. */
typedef uint16_t zl_angle;

typedef struct zl_vec3 {
    zl_fx x, y, z;
} zl_vec3;

#define ZL_FX_ONE ((zl_fx)0x10000)
#define ZL_FX_HALF ((zl_fx)0x8000)
#define ZL_FX_MAX ((zl_fx)INT32_MAX)
#define ZL_FX_MIN ((zl_fx)INT32_MIN)

/* Integer to Q16.16; the integer must lie in [-32768, 32767]. */
#define ZL_FX_INT(i) ((zl_fx)((int32_t)(i) * 65536))
/* Rational constant n/d as Q16.16 rounded toward zero, for literals in code:
 * ZL_FX_RATIO(3, 4) is 0.75. Both must be integer constant expressions. */
#define ZL_FX_RATIO(n, d) ((zl_fx)(((int64_t)(n) * 65536) / (d)))

/* Degrees (integer) to a binary angle. */
#define ZL_ANGLE_DEG(d) ((zl_angle)(((int32_t)(d) * 65536 / 360) & 0xFFFF))

/* Overflow policy: every arithmetic operation below saturates. A result that
 * does not fit becomes ZL_FX_MAX or ZL_FX_MIN, never a wrapped value, so an
 * out-of-range coordinate pins to the edge of the world instead of jumping to
 * the other side. Game code keeps coordinates well inside the range.
 * Addition, subtraction, multiplication and the vector sums are inline: a
 * game's moves and traces make hundreds of them a tick, and a call costs
 * about what their bodies do. */

/* Helpers of the inline operations and zl_fixed.c; no other use. v
 * saturated to int32; |a| exact in uint32; the value of sign `negative`
 * and magnitude m, saturated. Signs are handled on magnitudes in unsigned
 * arithmetic: no overflow negating INT32_MIN, no negative value shifted. */
static inline zl_fx zl_fx_saturate(int64_t v)
{
    return v > INT32_MAX ? ZL_FX_MAX : v < INT32_MIN ? ZL_FX_MIN : (zl_fx)v;
}
static inline uint32_t zl_fx_magnitude(int32_t a)
{
    return a < 0 ? 0u - (uint32_t)a : (uint32_t)a;
}
static inline zl_fx zl_fx_signed(int negative, uint64_t m)
{
    if (negative)
        return m > (uint64_t)INT32_MAX + 1u ? ZL_FX_MIN : (zl_fx)(0 - (int64_t)m);
    return m > (uint64_t)INT32_MAX ? ZL_FX_MAX : (zl_fx)m;
}

static inline zl_fx zl_fx_add(zl_fx a, zl_fx b)
{
    return zl_fx_saturate((int64_t)a + b);
}
static inline zl_fx zl_fx_sub(zl_fx a, zl_fx b)
{
    return zl_fx_saturate((int64_t)a - b);
}
zl_fx zl_fx_neg(zl_fx a); /* -ZL_FX_MIN saturates to ZL_FX_MAX */
zl_fx zl_fx_abs(zl_fx a); /* |ZL_FX_MIN| saturates to ZL_FX_MAX */

/* a * b, rounded to the nearest Q16.16 value; halves round away from zero.
 * |a * b| <= 2^62, so the product of magnitudes plus the half never wraps. */
static inline zl_fx zl_fx_mul(zl_fx a, zl_fx b)
{
    uint64_t m = (uint64_t)zl_fx_magnitude(a) * zl_fx_magnitude(b);
    return zl_fx_signed((a < 0) != (b < 0), (m + 0x8000u) >> 16);
}

/* a / b, rounded to the nearest Q16.16 value; halves round away from zero.
 * b == 0 gives ZL_FX_MAX for a >= 0 and ZL_FX_MIN for a < 0. */
zl_fx zl_fx_div(zl_fx a, zl_fx b);

/* floor(sqrt(a)) exactly: the largest r with r * r <= a * 65536 (in raw
 * units), for every a >= 0. Negative a gives 0. */
zl_fx zl_fx_sqrt(zl_fx a);

/* floor(sqrt(v)) of a 64-bit unsigned integer, exact for every input. */
uint32_t zl_isqrt64(uint64_t v);

/* Linear interpolation a + (b - a) * t with t a Q16.16 fraction (0..ONE;
 * values outside extrapolate), saturating. The step (b - a) * t is rounded to
 * nearest, halves away from zero, so t = 0 gives a and t = ONE gives b. */
zl_fx zl_fx_lerp(zl_fx a, zl_fx b, zl_fx t);

/* Integer part (floor) and rounding to nearest integer (halves away from
 * zero). Results lie in [-32768, 32767] and [-32768, 32768]. */
int32_t zl_fx_floor_int(zl_fx a);
int32_t zl_fx_round_int(zl_fx a);

/* Sine and cosine of a binary angle as Q16.16 in [-ONE, ONE].
 * Maximum absolute error 2^-14, measured in tests against a floating-point
 * reference. */
zl_fx zl_sin(zl_angle a);
zl_fx zl_cos(zl_angle a);

/* Angle of the vector (x, y) measured from +x toward +y, as a binary angle.
 * atan2(0, 0) is 0. Maximum error 4 units (0.022 degrees). Any components
 * are accepted, ZL_FX_MIN included. */
zl_angle zl_atan2(zl_fx y, zl_fx x);

/* Signed shortest difference b - a in [-32768, 32767] units: the difference
 * modulo one turn read as int16, so a half turn gives -32768. */
int32_t zl_angle_diff(zl_angle a, zl_angle b);
/* Shortest-arc interpolation from a to b by Q16.16 fraction t in [0, ONE]:
 * a + zl_angle_diff(a, b) * t, rounded to nearest, wrapping modulo one turn.
 * Other t extrapolate along the same arc. */
zl_angle zl_angle_lerp(zl_angle a, zl_angle b, zl_fx t);

/* Vectors, passed and returned by value. Components saturate like the scalar
 * operations; scale multiplies each component with zl_fx_mul. */
static inline zl_vec3 zl_vec3_make(zl_fx x, zl_fx y, zl_fx z)
{
    zl_vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}
static inline zl_vec3 zl_vec3_add(zl_vec3 a, zl_vec3 b)
{
    return zl_vec3_make(zl_fx_add(a.x, b.x), zl_fx_add(a.y, b.y), zl_fx_add(a.z, b.z));
}
static inline zl_vec3 zl_vec3_sub(zl_vec3 a, zl_vec3 b)
{
    return zl_vec3_make(zl_fx_sub(a.x, b.x), zl_fx_sub(a.y, b.y), zl_fx_sub(a.z, b.z));
}
static inline zl_vec3 zl_vec3_scale(zl_vec3 v, zl_fx s)
{
    return zl_vec3_make(zl_fx_mul(v.x, s), zl_fx_mul(v.y, s), zl_fx_mul(v.z, s));
}
/* Dot product computed exactly in 64 bits and rounded once (nearest, halves
 * away from zero); saturates. */
zl_fx zl_vec3_dot(zl_vec3 a, zl_vec3 b);
/* Cross product; each component is computed in 64 bits and rounded once
 * (nearest, halves away from zero), then saturated. */
zl_vec3 zl_vec3_cross(zl_vec3 a, zl_vec3 b);
/* Euclidean length, floor of the exact value; saturates at ZL_FX_MAX. */
zl_fx zl_vec3_length(zl_vec3 v);
/* Unit vector along v (each component rounded to nearest; the result's
 * length is within 2 raw units of ONE), as accurate for a vector a few raw
 * units long as for a huge one. The zero vector has no direction and gives the zero vector. */
zl_vec3 zl_vec3_normalize(zl_vec3 v);
/* Component-wise zl_fx_lerp. */
zl_vec3 zl_vec3_lerp(zl_vec3 a, zl_vec3 b, zl_fx t);
/* 1 when every component is equal, else 0. */
int zl_vec3_equal(zl_vec3 a, zl_vec3 b);

ZL_END_DECLS

#endif
