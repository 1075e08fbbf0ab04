/* zl_fixed.c - Q16.16 arithmetic, binary-angle trigonometry and 3D vectors.
 * Integer-only and free of undefined behaviour, so every port agrees bit for bit. */
#include "zl_fixed.h"

#include "zl_fixed_tables.h"

/* Magnitudes in unsigned arithmetic, as zl_fixed.h's helpers. */
static uint64_t mag64(int64_t a)
{
    return a < 0 ? 0u - (uint64_t)a : (uint64_t)a;
}

/* v / 65536 rounded to nearest, halves away from zero. */
static int64_t round_q16(int64_t v)
{
    uint64_t m = (mag64(v) + 0x8000u) >> 16;
    return v < 0 ? 0 - (int64_t)m : (int64_t)m;
}

zl_fx zl_fx_neg(zl_fx a)
{
    return a == ZL_FX_MIN ? ZL_FX_MAX : -a;
}

zl_fx zl_fx_abs(zl_fx a)
{
    return a < 0 ? zl_fx_neg(a) : a;
}

zl_fx zl_fx_div(zl_fx a, zl_fx b)
{
    uint64_t n, d;
    if (b == 0)
        return a < 0 ? ZL_FX_MIN : ZL_FX_MAX;
    n = (uint64_t)zl_fx_magnitude(a) << 16;
    d = zl_fx_magnitude(b);
    /* Adding floor(d / 2) rounds halves up; when d is odd a remainder of
     * exactly d / 2 cannot occur, so this is round-to-nearest either way. */
    return zl_fx_signed((a < 0) != (b < 0), (n + d / 2) / d);
}

/* The number of zero bits above the highest set bit of x != 0, without a
 * branch. Copying the top bit into every lower one leaves 2^b - 1 for a
 * b-bit x; times the de Bruijn constant 0x07C4ACDD, that puts a different
 * value in the top five bits for each b, and the table maps it back. */
static inline unsigned leading_zeros(uint32_t x)
{
    static const uint8_t zeros[32] = {
        31, 22, 30, 21, 18, 10, 29, 2, 20, 17, 15, 13, 9, 6, 28, 1,
        23, 19, 11, 3, 16, 14, 7, 24, 12, 4, 8, 25, 5, 26, 27, 0,
    };
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return zeros[(x * 0x07C4ACDDu) >> 27];
}

/* floor(sqrt(x)) for x in [2^30, 2^32), by Newton's method from a close
 * start. The straight line closest to sqrt over that range is within 4.2%,
 * 1400 units. A step y' = (y + x / y) / 2, even with both divisions
 * floored, never lands below floor(sqrt(x)) and leaves an excess under
 * e^2 / (2y) for a start e away: 30 units after the first step, under one
 * after the second, which one compare removes. */
static uint32_t top_root(uint32_t x)
{
    uint32_t y = 23211u + (((x >> 16) * 21845u) >> 15);
    y = (y + x / y) >> 1;
    y = (y + x / y) >> 1;
    if ((uint64_t)y * y > x)
        y--;
    return y;
}

/* floor(sqrt(x)) for any 32-bit x. Shifting x left by an even 2n puts it
 * in [2^30, 2^32) and multiplies the root by 2^n exactly, and
 * floor(floor(sqrt(x * 4^n)) / 2^n) = floor(sqrt(x)). */
static uint32_t isqrt32(uint32_t x)
{
    unsigned n;
    if (x == 0)
        return 0;
    n = leading_zeros(x) / 2;
    return top_root(x << (2 * n)) >> n;
}

uint32_t zl_isqrt64(uint64_t v)
{
    uint32_t hi = (uint32_t)(v >> 32), top, d;
    unsigned k; /* half the shift that brings v into 32 bits */
    uint64_t a, rem;
    if (hi == 0)
        return isqrt32((uint32_t)v);
    /* The smallest k with v < 2^(32 + 2k): half the top word's bit count,
     * rounded up. */
    k = (33u - leading_zeros(hi)) / 2;
    /* The root's top bits from the top of v: top in [2^15, 2^16), and the
     * root is a + d with a = top * 2^k and 0 <= d < 2^k. */
    top = top_root((uint32_t)(v >> (2 * k)));
    a = (uint64_t)top << k;
    rem = v - a * a;
    /* d is the largest with d * (2a + d) <= rem, so d <= rem / 2a, and
     * that quotient overshoots d by at most 2 (d^2 / 2a <= 2^(k-16) <= 1).
     * rem / 2a = (rem >> (k + 1)) / top, a 32-bit division: rem is below
     * (2 top + 1) * 4^k, so rem >> (k + 1) is below 2^32. */
    d = (uint32_t)(rem >> (k + 1)) / top;
    while ((uint64_t)d * (2 * a + d) > rem)
        d--;
    return (uint32_t)a + d;
}

zl_fx zl_fx_sqrt(zl_fx a)
{
    /* sqrt(a / 2^16) * 2^16 = sqrt(a * 2^16); the result is below 2^24. */
    if (a <= 0)
        return 0;
    return (zl_fx)zl_isqrt64((uint64_t)a << 16);
}

zl_fx zl_fx_lerp(zl_fx a, zl_fx b, zl_fx t)
{
    /* |b - a| < 2^32 and |t| <= 2^31, so the product stays inside int64. */
    int64_t step = round_q16(((int64_t)b - a) * t);
    return zl_fx_saturate(a + step);
}

int32_t zl_fx_floor_int(zl_fx a)
{
    /* The top 16 bits read as a two's complement int16 are the floor. */
    int32_t hi = (int32_t)((uint32_t)a >> 16);
    return hi >= 0x8000 ? hi - 0x10000 : hi;
}

int32_t zl_fx_round_int(zl_fx a)
{
    return (int32_t)round_q16(a);
}

/* The interpolation below assumes these table shapes: a quarter turn of
 * 16384 units in 256 steps of 64, and tan in [0, 1] in 64 steps of 1024 in
 * Q16. Regenerating the tables with other sizes must fail here. */
ZL_STATIC_ASSERT(ZL_SIN_STEPS == 256 && ZL_SIN_BITS == 24, sin_table_shape);
ZL_STATIC_ASSERT(ZL_ATAN_STEPS == 64 && ZL_ATAN_SCALE == 4, atan_table_shape);

/* sin of x in [0, 16384] (a quarter turn), interpolated in the table. The sum
 * v is sin scaled by 2^30 (table 2^24 times 64 steps), rounded once to Q16.16;
 * it never exceeds the last entry times 64, 2^30, so uint32 holds it. */
static zl_fx quarter_sin(uint32_t x)
{
    uint32_t i = x >> 6;
    uint32_t f = x & 63u;
    uint32_t v = zl_sin_table[i] << 6;
    if (f != 0)
        v += (zl_sin_table[i + 1] - zl_sin_table[i]) * f;
    return (zl_fx)((v + (1u << 13)) >> 14);
}

zl_fx zl_sin(zl_angle a)
{
    /* Fold onto the first quadrant; the table covers both of its ends, so
     * 0 and 16384 map to table entries and the result is exactly symmetric. */
    uint32_t x = a & 0x3FFFu;
    uint32_t quadrant = (uint32_t)a >> 14;
    zl_fx s = quarter_sin((quadrant & 1u) ? 16384u - x : x);
    return quadrant >= 2 ? -s : s;
}

zl_fx zl_cos(zl_angle a)
{
    return zl_sin((zl_angle)(a + 16384u));
}

/* atan(r / 65536) in binary-angle units for r in [0, 65536]. */
static uint32_t atan_unit(uint32_t r)
{
    uint32_t i = r >> 10;
    uint32_t f = r & 1023u;
    uint32_t v = (uint32_t)zl_atan_table[i] << 10;
    if (f != 0)
        v += (uint32_t)(zl_atan_table[i + 1] - zl_atan_table[i]) * f;
    /* v is the angle times 2^10 * ZL_ATAN_SCALE = 2^12: one rounding. */
    return (v + (1u << 11)) >> 12;
}

zl_angle zl_atan2(zl_fx y, zl_fx x)
{
    uint32_t ax = zl_fx_magnitude(x);
    uint32_t ay = zl_fx_magnitude(y);
    uint32_t big = ax > ay ? ax : ay;
    uint32_t small = ax > ay ? ay : ax;
    uint32_t angle;
    if (big == 0)
        return 0;
    /* The ratio small / big lies in [0, 1]: one octant of the circle. */
    angle = atan_unit((uint32_t)((((uint64_t)small << 16) + big / 2) / big));
    if (ay > ax)
        angle = 16384u - angle;
    if (x < 0)
        angle = 32768u - angle;
    if (y < 0)
        angle = 65536u - angle;
    return (zl_angle)angle;
}

int32_t zl_angle_diff(zl_angle a, zl_angle b)
{
    /* The difference modulo one turn, read as int16. */
    int32_t d = (int32_t)(uint16_t)(b - a);
    return d >= 0x8000 ? d - 0x10000 : d;
}

zl_angle zl_angle_lerp(zl_angle a, zl_angle b, zl_fx t)
{
    int64_t step = round_q16((int64_t)zl_angle_diff(a, b) * t);
    /* Conversion to unsigned is modulo 2^32, which wraps the angle for free. */
    return (zl_angle)((uint32_t)a + (uint32_t)step);
}

/* Adds b to *sum; returns +1 or -1 instead when the exact sum leaves int64. */
static int add_overflows(int64_t *sum, int64_t b)
{
    if (b > 0 && *sum > INT64_MAX - b)
        return 1;
    if (b < 0 && *sum < INT64_MIN - b)
        return -1;
    *sum += b;
    return 0;
}

zl_fx zl_vec3_dot(zl_vec3 a, zl_vec3 b)
{
    /* Each product is at most 2^62 in magnitude but three can reach 3 * 2^62.
     * A partial sum beyond int64 is at least 2^63 and the one product left
     * can pull it back by only 2^62, so the result saturates that way. */
    int64_t sum = (int64_t)a.x * b.x;
    int over = add_overflows(&sum, (int64_t)a.y * b.y);
    if (over == 0)
        over = add_overflows(&sum, (int64_t)a.z * b.z);
    if (over != 0)
        return over > 0 ? ZL_FX_MAX : ZL_FX_MIN;
    return zl_fx_saturate(round_q16(sum));
}

/* (p * q - r * s) / 65536 rounded once. Each product lies in
 * [-2^62 + 2^31, 2^62], so their difference always fits in int64. */
static zl_fx cross_term(zl_fx p, zl_fx q, zl_fx r, zl_fx s)
{
    return zl_fx_saturate(round_q16((int64_t)p * q - (int64_t)r * s));
}

zl_vec3 zl_vec3_cross(zl_vec3 a, zl_vec3 b)
{
    return zl_vec3_make(cross_term(a.y, b.z, a.z, b.y),
                        cross_term(a.z, b.x, a.x, b.z),
                        cross_term(a.x, b.y, a.y, b.x));
}

/* Sum of squares of three magnitudes below 2^31 + 1: at most 3 * 2^62. */
static uint64_t sum_squares(uint32_t x, uint32_t y, uint32_t z)
{
    return (uint64_t)x * x + (uint64_t)y * y + (uint64_t)z * z;
}

zl_fx zl_vec3_length(zl_vec3 v)
{
    /* In raw units the length is sqrt(x^2 + y^2 + z^2) with no scaling. */
    uint32_t len = zl_isqrt64(sum_squares(zl_fx_magnitude(v.x), zl_fx_magnitude(v.y), zl_fx_magnitude(v.z)));
    return len > (uint32_t)INT32_MAX ? ZL_FX_MAX : (zl_fx)len;
}

/* Component of a unit vector: m / len in Q16.16, rounded, with the sign of
 * c; m <= len and len >= 2^30. Small cores run a 64-bit division as a
 * library routine, so the quotient comes from a 32-bit one instead: the
 * top 16 bits of n over one more than the top bits of len can only fall
 * short, by under 2^16 (n / len + 1) / len < 5, and the exact remainder
 * makes up the difference. */
static zl_fx unit_component(zl_fx c, uint32_t m, uint32_t len)
{
    uint64_t n = ((uint64_t)m << 16) + len / 2, r;
    uint32_t q = (uint32_t)(n >> 16) / ((len >> 16) + 1u);
    for (r = n - (uint64_t)q * len; r >= len; r -= len)
        q++;
    return zl_fx_signed(c < 0, q);
}

zl_vec3 zl_vec3_normalize(zl_vec3 v)
{
    uint32_t x = zl_fx_magnitude(v.x), y = zl_fx_magnitude(v.y), z = zl_fx_magnitude(v.z);
    uint32_t biggest = x > y ? x : y;
    unsigned shift;
    uint32_t len;
    if (z > biggest)
        biggest = z;
    if (biggest == 0)
        return v;
    /* Scaling by a power of two keeps the direction exact and brings the
     * length to at least 2^30, so flooring it costs under 2^-30 relative
     * error instead of up to a whole unit on a tiny vector. The shift puts
     * the biggest component's top bit at bit 30 (none when it is above). */
    shift = leading_zeros(biggest);
    shift = shift > 0 ? shift - 1 : 0;
    x <<= shift;
    y <<= shift;
    z <<= shift;
    len = zl_isqrt64(sum_squares(x, y, z));
    return zl_vec3_make(unit_component(v.x, x, len), unit_component(v.y, y, len),
                        unit_component(v.z, z, len));
}

zl_vec3 zl_vec3_lerp(zl_vec3 a, zl_vec3 b, zl_fx t)
{
    return zl_vec3_make(zl_fx_lerp(a.x, b.x, t), zl_fx_lerp(a.y, b.y, t),
                        zl_fx_lerp(a.z, b.z, t));
}

int zl_vec3_equal(zl_vec3 a, zl_vec3 b)
{
    return a.x == b.x && a.y == b.y && a.z == b.z;
}
