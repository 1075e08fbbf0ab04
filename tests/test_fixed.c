/* test_fixed.c - the fixed-point suite: exact integer references for the
 * arithmetic, double (the tests' oracle, never core's) for the trigonometry. */
#include <float.h>
#include <math.h>

#include "zl_fixed.h"
#include "zl_test.h"

#define ONE ZL_FX_ONE
#define HALF ZL_FX_HALF
#define MIN ZL_FX_MIN
#define MAX ZL_FX_MAX
#define UNITS_PER_RADIAN (32768.0 / 3.14159265358979323846)

/* Values where rounding and saturation change behaviour. */
static const zl_fx edges[] = {
    0, 1, -1, 2, -2, 3, -3, 0x7FFF, -0x7FFF, HALF, -HALF, 0x8001, -0x8001,
    0xFFFF, -0xFFFF, ONE, -ONE, ONE + 1, -ONE - 1, 3 * ONE, -3 * ONE,
    0x00B504F3, -0x00B504F3, /* sqrt(2^31) raw: the product of two saturates */
    0x7FFF0000, -0x7FFF0000, MAX - 1, MAX, MIN + 1, MIN,
};

/* ---- independent references ---- */

static zl_fx clamp32(int64_t v)
{
    return v > INT32_MAX ? MAX : v < INT32_MIN ? MIN : (zl_fx)v;
}

/* n / d rounded to nearest, halves away from zero, from C's truncating
 * division and remainder (the code under test adds a half and shifts). */
static int64_t ref_div_round(int64_t n, int64_t d)
{
    int64_t q = n / d;
    int64_t r = n % d;
    int64_t ar = r < 0 ? -r : r;
    int64_t ad = d < 0 ? -d : d;
    if (2 * ar >= ad)
        q += ((n < 0) != (d < 0)) ? -1 : 1;
    return q;
}

static zl_fx ref_mul(zl_fx a, zl_fx b)
{
    return clamp32(ref_div_round((int64_t)a * b, 65536));
}

static zl_fx ref_div(zl_fx a, zl_fx b)
{
    if (b == 0)
        return a < 0 ? MIN : MAX;
    return clamp32(ref_div_round((int64_t)a * 65536, b));
}

static zl_fx ref_lerp(zl_fx a, zl_fx b, zl_fx t)
{
    return clamp32(a + ref_div_round(((int64_t)b - a) * t, 65536));
}

/* Where long double holds 64 significant bits (x86), it gives a second,
 * floating-point reference for mul and div: the product is exact, and a
 * quotient below 2^31 cannot be rounded onto a tie. */
#if LDBL_MANT_DIG >= 64
static zl_fx ld_round_clamp(long double x)
{
    long double r = x < 0 ? -floorl(-x + 0.5L) : floorl(x + 0.5L);
    return r > (long double)INT32_MAX ? MAX : r < (long double)INT32_MIN ? MIN : (zl_fx)r;
}
#define HAVE_LD_REFERENCE 1
#else
#define HAVE_LD_REFERENCE 0
#endif

/* A Q16.16 value of random magnitude (uniform in its bit length), so small,
 * medium and saturating operands all occur; sometimes an edge value. */
static zl_fx rand_fx(zl_test_rng *rng)
{
    uint32_t r = zl_test_rng_u32(rng);
    int32_t mag = (int32_t)(zl_test_rng_u32(rng) >> (1 + r % 31));
    if (((r >> 5) & 15) == 0)
        return edges[(r >> 9) % ZL_COUNTOF(edges)];
    return (r & 0x80000000u) ? -mag : mag;
}

static uint64_t rand_u64(zl_test_rng *rng)
{
    uint64_t v = ((uint64_t)zl_test_rng_u32(rng) << 32) | zl_test_rng_u32(rng);
    return v >> (zl_test_rng_u32(rng) % 64);
}

/* ---- add, sub, neg, abs ---- */

static void test_add_sub_saturate(void)
{
    zl_test_rng rng;
    size_t i, j;
    long n;
    for (i = 0; i < ZL_COUNTOF(edges); i++) {
        zl_fx a = edges[i];
        ZL_CHECK_EQ(zl_fx_neg(a), clamp32(-(int64_t)a));
        ZL_CHECK_EQ(zl_fx_abs(a), clamp32(a < 0 ? -(int64_t)a : a));
        for (j = 0; j < ZL_COUNTOF(edges); j++) {
            ZL_CHECK_EQ(zl_fx_add(a, edges[j]), clamp32((int64_t)a + edges[j]));
            ZL_CHECK_EQ(zl_fx_sub(a, edges[j]), clamp32((int64_t)a - edges[j]));
        }
    }
    ZL_CHECK_EQ(zl_fx_add(MAX, 1), MAX);
    ZL_CHECK_EQ(zl_fx_add(MIN, -1), MIN);
    ZL_CHECK_EQ(zl_fx_sub(MIN, 1), MIN);
    ZL_CHECK_EQ(zl_fx_sub(0, MIN), MAX);
    ZL_CHECK_EQ(zl_fx_neg(MIN), MAX);
    ZL_CHECK_EQ(zl_fx_abs(MIN), MAX);
    ZL_CHECK_EQ(zl_fx_abs(-ONE), ONE);
    zl_test_rng_seed(&rng, 0xADD5u);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        zl_fx a = rand_fx(&rng), b = rand_fx(&rng);
        if (!ZL_CHECK_EQ(zl_fx_add(a, b), clamp32((int64_t)a + b)) ||
            !ZL_CHECK_EQ(zl_fx_sub(a, b), clamp32((int64_t)a - b)))
            break;
    }
}

/* ---- mul, div ---- */

static void test_mul_exact(void)
{
    zl_test_rng rng;
    size_t i, j;
    long n, saturated = 0;
    /* Hand-checked: halves round away from zero, products saturate. */
    ZL_CHECK_EQ(zl_fx_mul(ONE, ONE), ONE);
    ZL_CHECK_EQ(zl_fx_mul(3 * ONE, -HALF), -3 * HALF);
    ZL_CHECK_EQ(zl_fx_mul(1, HALF), 1);       /* 0.5 raw */
    ZL_CHECK_EQ(zl_fx_mul(-1, HALF), -1);     /* -0.5 raw */
    ZL_CHECK_EQ(zl_fx_mul(1, HALF - 1), 0);   /* just below 0.5 raw */
    ZL_CHECK_EQ(zl_fx_mul(3, HALF), 2);       /* 1.5 raw */
    ZL_CHECK_EQ(zl_fx_mul(MIN, ONE), MIN);
    ZL_CHECK_EQ(zl_fx_mul(MIN, -ONE), MAX);
    ZL_CHECK_EQ(zl_fx_mul(MAX, -ONE), -MAX);
    ZL_CHECK_EQ(zl_fx_mul(MIN, MIN), MAX);
    ZL_CHECK_EQ(zl_fx_mul(MIN, MAX), MIN);
    ZL_CHECK_EQ(zl_fx_mul(256 * ONE, 128 * ONE), MAX); /* 32768 is out of range */
    ZL_CHECK_EQ(zl_fx_mul(-256 * ONE, 128 * ONE), MIN); /* -32768 fits exactly */
    for (i = 0; i < ZL_COUNTOF(edges); i++)
        for (j = 0; j < ZL_COUNTOF(edges); j++)
            ZL_CHECK_EQ(zl_fx_mul(edges[i], edges[j]), ref_mul(edges[i], edges[j]));
    zl_test_rng_seed(&rng, 0x3A1u);
    for (n = 0; n < ZL_TEST_ITERATIONS(2000000L); n++) {
        zl_fx a = rand_fx(&rng), b = rand_fx(&rng);
        zl_fx got = zl_fx_mul(a, b);
        if (got == MAX || got == MIN)
            saturated++;
        if (!ZL_CHECK_EQ(got, ref_mul(a, b)))
            break;
#if HAVE_LD_REFERENCE
        if (!ZL_CHECK_EQ(got, ld_round_clamp((long double)a * b / 65536.0L)))
            break;
#endif
    }
    /* The random operands must have reached both regimes. */
    ZL_CHECK(saturated > n / 20 && saturated < n / 2);
    zl_test_note("%ld random pairs (%ld saturated): 0 raw units from exact rounding%s", n,
                 saturated, HAVE_LD_REFERENCE ? ", long double agrees" : "");
}

static void test_div_exact(void)
{
    zl_test_rng rng;
    size_t i, j;
    long n, saturated = 0;
    ZL_CHECK_EQ(zl_fx_div(ONE, ONE), ONE);
    ZL_CHECK_EQ(zl_fx_div(ONE, 3 * ONE), 21845);      /* 21845.33 */
    ZL_CHECK_EQ(zl_fx_div(2 * ONE, 3 * ONE), 43691);  /* 43690.67 */
    ZL_CHECK_EQ(zl_fx_div(-2 * ONE, 3 * ONE), -43691);
    ZL_CHECK_EQ(zl_fx_div(1, 2 * ONE), 1);            /* 0.5 raw */
    ZL_CHECK_EQ(zl_fx_div(-1, 2 * ONE), -1);
    ZL_CHECK_EQ(zl_fx_div(1, -2 * ONE), -1);
    ZL_CHECK_EQ(zl_fx_div(1, 2 * ONE + 1), 0);        /* just below 0.5 raw */
    ZL_CHECK_EQ(zl_fx_div(MIN, -ONE), MAX);
    ZL_CHECK_EQ(zl_fx_div(MIN, ONE), MIN);
    ZL_CHECK_EQ(zl_fx_div(MAX, HALF), MAX);
    ZL_CHECK_EQ(zl_fx_div(MIN, 1), MIN);
    ZL_CHECK_EQ(zl_fx_div(0, 0), MAX);
    ZL_CHECK_EQ(zl_fx_div(5, 0), MAX);
    ZL_CHECK_EQ(zl_fx_div(-5, 0), MIN);
    ZL_CHECK_EQ(zl_fx_div(MIN, 0), MIN);
    for (i = 0; i < ZL_COUNTOF(edges); i++)
        for (j = 0; j < ZL_COUNTOF(edges); j++)
            ZL_CHECK_EQ(zl_fx_div(edges[i], edges[j]), ref_div(edges[i], edges[j]));
    zl_test_rng_seed(&rng, 0xD1Fu);
    for (n = 0; n < ZL_TEST_ITERATIONS(2000000L); n++) {
        zl_fx a = rand_fx(&rng), b = rand_fx(&rng);
        zl_fx got = zl_fx_div(a, b);
        if (got == MAX || got == MIN)
            saturated++;
        if (!ZL_CHECK_EQ(got, ref_div(a, b)))
            break;
#if HAVE_LD_REFERENCE
        if (b != 0 && !ZL_CHECK_EQ(got, ld_round_clamp((long double)a * 65536.0L / b)))
            break;
#endif
    }
    ZL_CHECK(saturated > n / 20 && saturated < n / 2);
    zl_test_note("%ld random pairs (%ld saturated): 0 raw units from exact rounding%s", n,
                 saturated, HAVE_LD_REFERENCE ? ", long double agrees" : "");
}

/* ---- square roots: checked by the floor property, in integers ---- */

static int fx_sqrt_ok(zl_fx a)
{
    uint64_t r = (uint64_t)zl_fx_sqrt(a);
    uint64_t v = (uint64_t)a << 16;
    return r * r <= v && v < (r + 1) * (r + 1);
}

static int isqrt_ok(uint64_t v)
{
    uint64_t r = zl_isqrt64(v);
    /* (r + 1)^2 would be 2^64 for the largest root; every v is below that. */
    return r * r <= v && (r == UINT32_MAX || v < (r + 1) * (r + 1));
}

static void test_sqrt_edges(void)
{
    int k;
    int32_t s;
    uint32_t r;
    ZL_CHECK_EQ(zl_fx_sqrt(0), 0);
    ZL_CHECK_EQ(zl_fx_sqrt(1), 256);
    ZL_CHECK_EQ(zl_fx_sqrt(ONE), ONE);
    ZL_CHECK_EQ(zl_fx_sqrt(4 * ONE), 2 * ONE);
    ZL_CHECK_EQ(zl_fx_sqrt(ONE / 4), HALF);
    ZL_CHECK_EQ(zl_fx_sqrt(2 * ONE), 92681); /* 1.41421356 * 65536 = 92681.9 */
    ZL_CHECK_EQ(zl_fx_sqrt(MAX), 11863283);  /* sqrt(2^47 - 2^16) = 11863283.2 */
    ZL_CHECK_EQ(zl_fx_sqrt(-1), 0);
    ZL_CHECK_EQ(zl_fx_sqrt(-ONE), 0);
    ZL_CHECK_EQ(zl_fx_sqrt(MIN), 0);
    ZL_CHECK(fx_sqrt_ok(2) && fx_sqrt_ok(3) && fx_sqrt_ok(MAX));
    for (k = 0; k < 31; k++) {
        int32_t p = (int32_t)1 << k;
        ZL_CHECK(fx_sqrt_ok(p));
        ZL_CHECK(fx_sqrt_ok(p - 1));
        ZL_CHECK(fx_sqrt_ok(p + 1));
    }
    /* Perfect squares of raw values and their neighbours. */
    for (s = 1; s <= 46340; s++) {
        if (!ZL_CHECK(fx_sqrt_ok(s * s) && fx_sqrt_ok(s * s - 1) && fx_sqrt_ok(s * s + 1)))
            break;
    }
    /* The smallest input reaching each root r, and the one just below it. */
    for (r = 1; r <= 11863283u; r += 7) {
        int32_t a = (int32_t)(((uint64_t)r * r + 65535u) >> 16);
        if (!ZL_CHECK((uint32_t)zl_fx_sqrt(a) >= r && (uint32_t)zl_fx_sqrt(a - 1) < r))
            break;
    }
}

static void test_sqrt_random(void)
{
    zl_test_rng rng;
    long n;
    zl_test_rng_seed(&rng, 0x5C1u);
    for (n = 0; n < ZL_TEST_ITERATIONS(10000000L); n++) {
        uint32_t r = zl_test_rng_u32(&rng);
        /* Half uniform over [0, 2^31), half of random bit length. */
        zl_fx a = (zl_fx)((r & 1u) ? r >> 1 : zl_test_rng_u32(&rng) >> (1 + (r >> 1) % 31));
        if (!ZL_CHECK(fx_sqrt_ok(a)))
            break;
    }
    zl_test_note("%ld random inputs: floor(sqrt) exact", n);
}

static void test_isqrt64(void)
{
    zl_test_rng rng;
    int k;
    long n;
    ZL_CHECK_EQ(zl_isqrt64(0), 0);
    ZL_CHECK_EQ(zl_isqrt64(1), 1);
    ZL_CHECK_EQ(zl_isqrt64(2), 1);
    ZL_CHECK_EQ(zl_isqrt64(3), 1);
    ZL_CHECK_EQ(zl_isqrt64(4), 2);
    ZL_CHECK_EQ(zl_isqrt64(UINT64_MAX), UINT32_MAX);
    ZL_CHECK_EQ(zl_isqrt64((uint64_t)UINT32_MAX * UINT32_MAX), UINT32_MAX);
    ZL_CHECK_EQ(zl_isqrt64((uint64_t)UINT32_MAX * UINT32_MAX - 1), UINT32_MAX - 1);
    ZL_CHECK_EQ(zl_isqrt64((uint64_t)1 << 62), (uint32_t)1 << 31);
    ZL_CHECK_EQ(zl_isqrt64(((uint64_t)1 << 62) - 1), ((uint32_t)1 << 31) - 1);
    for (k = 0; k < 64; k++) {
        uint64_t p = (uint64_t)1 << k;
        ZL_CHECK(isqrt_ok(p) && isqrt_ok(p - 1) && isqrt_ok(p + 1));
    }
    zl_test_rng_seed(&rng, 0x15Du);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        uint64_t root = zl_test_rng_u32(&rng);
        uint64_t sq = root * root;
        if (!ZL_CHECK(isqrt_ok(rand_u64(&rng))) ||
            !ZL_CHECK(zl_isqrt64(sq) == root && isqrt_ok(sq - 1) && isqrt_ok(sq + 1)))
            break;
    }
}

/* ---- sin, cos ---- */

static void test_sin_cos(void)
{
    const uint32_t step = 65536u / (uint32_t)ZL_TEST_ITERATIONS(65536L);
    double max_sin = 0, max_cos = 0;
    uint32_t a;
    ZL_CHECK_EQ(zl_sin(0), 0);
    ZL_CHECK_EQ(zl_sin(16384), ONE);
    ZL_CHECK_EQ(zl_sin(32768), 0);
    ZL_CHECK_EQ(zl_sin(49152), -ONE);
    ZL_CHECK_EQ(zl_cos(0), ONE);
    ZL_CHECK_EQ(zl_cos(16384), 0);
    ZL_CHECK_EQ(zl_cos(32768), -ONE);
    for (a = 0; a < 65536u; a += step) {
        zl_angle ang = (zl_angle)a;
        double rad = a * (2.0 * 3.14159265358979323846 / 65536.0);
        zl_fx s = zl_sin(ang), c = zl_cos(ang);
        double es = fabs(s / 65536.0 - sin(rad));
        double ec = fabs(c / 65536.0 - cos(rad));
        max_sin = es > max_sin ? es : max_sin;
        max_cos = ec > max_cos ? ec : max_cos;
        /* Exact symmetries: odd, mirrored about a quarter turn, shifted. */
        if (!ZL_CHECK(s >= -ONE && s <= ONE) ||
            !ZL_CHECK_EQ(zl_sin((zl_angle)(65536u - a)), -s) ||
            !ZL_CHECK_EQ(zl_sin((zl_angle)(32768u - a)), s) ||
            !ZL_CHECK_EQ(zl_cos((zl_angle)(65536u - a)), c) ||
            !ZL_CHECK_EQ(c, zl_sin((zl_angle)(a + 16384u))))
            break;
    }
    zl_test_note("sin max error %.3f raw units (%.9f), cos %.3f raw units (%.9f), over %lu angles",
                 max_sin * 65536.0, max_sin, max_cos * 65536.0, max_cos,
                 (unsigned long)(65536u / step));
    ZL_CHECK(max_sin <= 1.0 / 16384.0);
    ZL_CHECK(max_cos <= 1.0 / 16384.0);
}

/* ---- atan2 ---- */

/* Distance in binary-angle units from got to the exact angle of (y, x). */
static double atan2_error(zl_fx y, zl_fx x)
{
    double want = atan2((double)y, (double)x) * UNITS_PER_RADIAN;
    double d = fmod(zl_atan2(y, x) - want, 65536.0);
    if (d > 32768.0)
        d -= 65536.0;
    if (d < -32768.0)
        d += 65536.0;
    return fabs(d);
}

static void test_atan2_exact_points(void)
{
    ZL_CHECK_EQ(zl_atan2(0, 0), 0);
    ZL_CHECK_EQ(zl_atan2(0, ONE), 0);
    ZL_CHECK_EQ(zl_atan2(ONE, 0), 16384);
    ZL_CHECK_EQ(zl_atan2(0, -ONE), 32768);
    ZL_CHECK_EQ(zl_atan2(-ONE, 0), 49152);
    ZL_CHECK_EQ(zl_atan2(1, 1), 8192);
    ZL_CHECK_EQ(zl_atan2(1, -1), 24576);
    ZL_CHECK_EQ(zl_atan2(-1, -1), 40960);
    ZL_CHECK_EQ(zl_atan2(-1, 1), 57344);
    ZL_CHECK_EQ(zl_atan2(0, MIN), 32768);
    ZL_CHECK_EQ(zl_atan2(MIN, 0), 49152);
    ZL_CHECK_EQ(zl_atan2(MIN, MIN), 40960);
    ZL_CHECK_EQ(zl_atan2(MAX, MAX), 8192);
    ZL_CHECK_EQ(zl_atan2(MIN, MAX), 57344); /* exact: 57343.9999976 */
    ZL_CHECK_EQ(zl_atan2(1, MIN), 32768);
    ZL_CHECK_EQ(zl_atan2(-1, MIN), 32768);  /* exact: 32768.0000049 */
}

static void test_atan2_grid(void)
{
    /* Magnitudes from raw units (coarse ratios) to near the range limit. */
    static const int32_t scales[] = {1, 97, 65536, 2097151};
    const int32_t step = ZL_TEST_ITERATIONS(100) == 100 ? 1 : 10;
    double max_err = 0;
    long points = 0;
    size_t s, i, j;
    int32_t x, y;
    for (s = 0; s < ZL_COUNTOF(scales); s++) {
        for (y = -512; y < 512; y += step) {
            for (x = -512; x < 512; x += step) {
                double e = atan2_error(y * scales[s], x * scales[s]);
                max_err = e > max_err ? e : max_err;
                points++;
            }
        }
    }
    for (i = 0; i < ZL_COUNTOF(edges); i++) {
        for (j = 0; j < ZL_COUNTOF(edges); j++) {
            double e = atan2_error(edges[i], edges[j]);
            max_err = e > max_err ? e : max_err;
            points++;
        }
    }
    zl_test_note("max error %.3f units (%.4f degrees) over %ld points", max_err,
                 max_err * 360.0 / 65536.0, points);
    ZL_CHECK(max_err <= 4.0);
}

static void test_atan2_random_and_round_trip(void)
{
    zl_test_rng rng;
    double max_err = 0, max_trip = 0;
    long n;
    uint32_t a;
    zl_test_rng_seed(&rng, 0xA7A2u);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        double e = atan2_error(rand_fx(&rng), rand_fx(&rng));
        max_err = e > max_err ? e : max_err;
    }
    /* The angle of (cos a, sin a) is a, up to the error of both sides. */
    for (a = 0; a < 65536u; a += 65536u / (uint32_t)ZL_TEST_ITERATIONS(65536L)) {
        int32_t d = zl_angle_diff((zl_angle)a, zl_atan2(zl_sin((zl_angle)a), zl_cos((zl_angle)a)));
        double e = fabs((double)d);
        max_trip = e > max_trip ? e : max_trip;
    }
    zl_test_note("random pairs: max error %.3f units; atan2(sin a, cos a) - a: max %.0f units",
                 max_err, max_trip);
    ZL_CHECK(max_err <= 4.0);
    ZL_CHECK(max_trip <= 4.0);
}

/* ---- angles ---- */

static void test_angle_diff_lerp(void)
{
    zl_test_rng rng;
    long n;
    ZL_CHECK_EQ(zl_angle_diff(0, 1), 1);
    ZL_CHECK_EQ(zl_angle_diff(1, 0), -1);
    ZL_CHECK_EQ(zl_angle_diff(65535, 0), 1);
    ZL_CHECK_EQ(zl_angle_diff(0, 65535), -1);
    ZL_CHECK_EQ(zl_angle_diff(100, 32867), 32767);
    ZL_CHECK_EQ(zl_angle_diff(0, 32768), -32768);
    ZL_CHECK_EQ(zl_angle_diff(32768, 0), -32768);
    ZL_CHECK_EQ(zl_angle_lerp(65000, 1000, HALF), 232);  /* across zero */
    ZL_CHECK_EQ(zl_angle_lerp(1000, 65000, HALF), 232);
    ZL_CHECK_EQ(zl_angle_lerp(0, 3, HALF), 2);           /* 1.5 rounds up */
    ZL_CHECK_EQ(zl_angle_lerp(3, 0, HALF), 1);           /* -1.5 rounds down */
    ZL_CHECK_EQ(zl_angle_lerp(0, 16384, 2 * ONE), 32768); /* extrapolates */
    zl_test_rng_seed(&rng, 0xA261u);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        zl_angle a = (zl_angle)zl_test_rng_u32(&rng);
        zl_angle b = (zl_angle)zl_test_rng_u32(&rng);
        zl_fx t = zl_test_rng_range(&rng, 0, ONE);
        int32_t d = zl_angle_diff(a, b);
        /* d * t is below 2^31 in magnitude, so double holds it exactly. */
        double step = (double)d * t / 65536.0;
        long want = (long)a + (long)(step < 0 ? -floor(-step + 0.5) : floor(step + 0.5));
        if (!ZL_CHECK(d >= -32768 && d <= 32767) ||
            !ZL_CHECK_EQ((zl_angle)((uint32_t)a + (uint32_t)d), b) ||
            !ZL_CHECK_EQ(zl_angle_lerp(a, b, 0), a) ||
            !ZL_CHECK_EQ(zl_angle_lerp(a, b, ONE), b) ||
            !ZL_CHECK_EQ(zl_angle_lerp(a, b, t), (zl_angle)(want & 0xFFFF)))
            break;
    }
}

/* ---- lerp, floor, round ---- */

static void test_lerp_saturate(void)
{
    zl_test_rng rng;
    size_t i, j;
    long n;
    ZL_CHECK_EQ(zl_fx_lerp(0, ONE, HALF), HALF);
    ZL_CHECK_EQ(zl_fx_lerp(ONE, -ONE, ONE / 4), HALF);
    ZL_CHECK_EQ(zl_fx_lerp(0, 3, HALF), 2);  /* 1.5 raw rounds away from a */
    ZL_CHECK_EQ(zl_fx_lerp(0, -3, HALF), -2);
    ZL_CHECK_EQ(zl_fx_lerp(MIN, MAX, ONE), MAX);
    ZL_CHECK_EQ(zl_fx_lerp(MAX, MIN, ONE), MIN);
    ZL_CHECK_EQ(zl_fx_lerp(MIN, MAX, 2 * ONE), MAX);
    ZL_CHECK_EQ(zl_fx_lerp(MAX, MIN, 2 * ONE), MIN);
    ZL_CHECK_EQ(zl_fx_lerp(0, MAX, -ONE), -MAX);
    ZL_CHECK_EQ(zl_fx_lerp(0, ONE, MAX), MAX);
    ZL_CHECK_EQ(zl_fx_lerp(0, ONE, MIN), MIN);
    ZL_CHECK_EQ(zl_fx_lerp(MIN, MAX, MIN), MIN);
    for (i = 0; i < ZL_COUNTOF(edges); i++)
        for (j = 0; j < ZL_COUNTOF(edges); j++) {
            zl_fx a = edges[i], b = edges[j];
            ZL_CHECK_EQ(zl_fx_lerp(a, b, 0), a);
            ZL_CHECK_EQ(zl_fx_lerp(a, b, ONE), b);
            ZL_CHECK_EQ(zl_fx_lerp(a, b, HALF), ref_lerp(a, b, HALF));
            ZL_CHECK_EQ(zl_fx_lerp(a, b, edges[j]), ref_lerp(a, b, edges[j]));
        }
    zl_test_rng_seed(&rng, 0x1E2Bu);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        zl_fx a = rand_fx(&rng), b = rand_fx(&rng);
        zl_fx t = (n & 1) ? zl_test_rng_range(&rng, 0, ONE) : rand_fx(&rng);
        if (!ZL_CHECK_EQ(zl_fx_lerp(a, b, t), ref_lerp(a, b, t)))
            break;
    }
}

static void test_floor_round_int(void)
{
    zl_test_rng rng;
    size_t i;
    long n;
    ZL_CHECK_EQ(zl_fx_floor_int(MIN), -32768);
    ZL_CHECK_EQ(zl_fx_round_int(MIN), -32768);
    ZL_CHECK_EQ(zl_fx_floor_int(MAX), 32767);
    ZL_CHECK_EQ(zl_fx_round_int(MAX), 32768);
    ZL_CHECK_EQ(zl_fx_floor_int(-1), -1);
    ZL_CHECK_EQ(zl_fx_round_int(-1), 0);
    ZL_CHECK_EQ(zl_fx_floor_int(-HALF), -1);
    ZL_CHECK_EQ(zl_fx_round_int(-HALF), -1);
    ZL_CHECK_EQ(zl_fx_round_int(HALF), 1);
    ZL_CHECK_EQ(zl_fx_round_int(HALF - 1), 0);
    ZL_CHECK_EQ(zl_fx_round_int(-HALF + 1), 0);
    ZL_CHECK_EQ(zl_fx_floor_int(ZL_FX_INT(-7)), -7);
    ZL_CHECK_EQ(zl_fx_floor_int(ZL_FX_INT(-7) + 1), -7);
    ZL_CHECK_EQ(zl_fx_floor_int(ZL_FX_INT(-7) - 1), -8);
    for (i = 0; i < ZL_COUNTOF(edges); i++) {
        ZL_CHECK_EQ(zl_fx_floor_int(edges[i]), floor(edges[i] / 65536.0));
        ZL_CHECK_EQ(zl_fx_round_int(edges[i]), round(edges[i] / 65536.0));
    }
    zl_test_rng_seed(&rng, 0xF100u);
    for (n = 0; n < ZL_TEST_ITERATIONS(1000000L); n++) {
        zl_fx a = rand_fx(&rng);
        /* C99 round() takes halves away from zero too. */
        if (!ZL_CHECK_EQ(zl_fx_floor_int(a), floor(a / 65536.0)) ||
            !ZL_CHECK_EQ(zl_fx_round_int(a), round(a / 65536.0)))
            break;
    }
}

/* ---- vectors ---- */

static zl_vec3 rand_vec(zl_test_rng *rng)
{
    zl_fx x = rand_fx(rng), y = rand_fx(rng);
    return zl_vec3_make(x, y, rand_fx(rng));
}

/* A vector whose components are at most 2^limit_bits - 1 in magnitude. */
static zl_vec3 rand_vec_bits(zl_test_rng *rng, unsigned limit_bits)
{
    zl_fx c[3];
    int i;
    for (i = 0; i < 3; i++) {
        uint32_t r = zl_test_rng_u32(rng);
        int32_t mag = (int32_t)(zl_test_rng_u32(rng) >> (32 - limit_bits + r % limit_bits));
        c[i] = (r & 0x80000000u) ? -mag : mag;
    }
    return zl_vec3_make(c[0], c[1], c[2]);
}

static void test_vec3_componentwise(void)
{
    zl_test_rng rng;
    long n;
    zl_vec3 v = zl_vec3_make(1, -2, 3);
    ZL_CHECK(v.x == 1 && v.y == -2 && v.z == 3);
    ZL_CHECK(zl_vec3_equal(v, zl_vec3_make(1, -2, 3)));
    ZL_CHECK(!zl_vec3_equal(v, zl_vec3_make(1, -2, 4)));
    ZL_CHECK(!zl_vec3_equal(v, zl_vec3_make(1, 2, 3)));
    ZL_CHECK(!zl_vec3_equal(v, zl_vec3_make(0, -2, 3)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_add(zl_vec3_make(MAX, MIN, 1), zl_vec3_make(1, -1, 1)),
                           zl_vec3_make(MAX, MIN, 2)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_sub(zl_vec3_make(MIN, MAX, 1), zl_vec3_make(1, -1, 1)),
                           zl_vec3_make(MIN, MAX, 0)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_scale(zl_vec3_make(MIN, ONE, -3), -ONE),
                           zl_vec3_make(MAX, -ONE, 3)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_lerp(zl_vec3_make(0, MIN, ONE), zl_vec3_make(ONE, MAX, 3 * ONE), HALF),
                           zl_vec3_make(HALF, 0, 2 * ONE)));
    zl_test_rng_seed(&rng, 0x7EC3u);
    for (n = 0; n < ZL_TEST_ITERATIONS(200000L); n++) {
        zl_vec3 a = rand_vec(&rng), b = rand_vec(&rng);
        zl_fx s = rand_fx(&rng);
        zl_vec3 sum = zl_vec3_add(a, b), diff = zl_vec3_sub(a, b);
        zl_vec3 sc = zl_vec3_scale(a, s), l = zl_vec3_lerp(a, b, s);
        if (!ZL_CHECK(sum.x == clamp32((int64_t)a.x + b.x) && sum.y == clamp32((int64_t)a.y + b.y) &&
                      sum.z == clamp32((int64_t)a.z + b.z)) ||
            !ZL_CHECK(diff.x == clamp32((int64_t)a.x - b.x) &&
                      diff.y == clamp32((int64_t)a.y - b.y) &&
                      diff.z == clamp32((int64_t)a.z - b.z)) ||
            !ZL_CHECK(sc.x == ref_mul(a.x, s) && sc.y == ref_mul(a.y, s) && sc.z == ref_mul(a.z, s)) ||
            !ZL_CHECK(l.x == ref_lerp(a.x, b.x, s) && l.y == ref_lerp(a.y, b.y, s) &&
                      l.z == ref_lerp(a.z, b.z, s)))
            break;
    }
}

static void test_vec3_dot(void)
{
    zl_test_rng rng;
    long n;
    zl_vec3 m = zl_vec3_make(MIN, MIN, MIN);
    /* Hand-computed sums near and beyond the int64 range:
     * 2^62 + 2^62 + 2^62 saturates although two terms already overflow int64. */
    ZL_CHECK_EQ(zl_vec3_dot(m, m), MAX);
    /* 2^62 + (-2^62 + 2^31) = 2^31, i.e. 32768 raw after cancellation. */
    ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_make(MIN, MIN, 0), zl_vec3_make(MIN, MAX, 0)), 32768);
    /* 2^62 + (2^62 - 2^32 + 1) fits; adding 2^62 leaves int64: saturates. */
    ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_make(MIN, MAX, MIN), zl_vec3_make(MIN, MAX, MIN)), MAX);
    /* 3 * (-2^62 + 2^31). */
    ZL_CHECK_EQ(zl_vec3_dot(m, zl_vec3_make(MAX, MAX, MAX)), MIN);
    /* 2^62 + 2^62 overflows int64, then -2^62 + 2^31 cannot bring it back. */
    ZL_CHECK_EQ(zl_vec3_dot(m, zl_vec3_make(MIN, MIN, MAX)), MAX);
    ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_make(ONE, 2 * ONE, 3 * ONE), zl_vec3_make(4 * ONE, -5 * ONE, 6 * ONE)),
                12 * ONE);
    ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_make(1, 1, 0), zl_vec3_make(HALF / 2, HALF / 2, 0)), 1); /* 0.5 raw */
    ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_make(1, -1, 0), zl_vec3_make(HALF / 2, HALF / 2 + 1, 0)), 0);
    /* Components below 2^30 keep the exact sum inside int64 for the reference;
     * their dot products still range from tiny to saturated. */
    zl_test_rng_seed(&rng, 0xD07u);
    for (n = 0; n < ZL_TEST_ITERATIONS(500000L); n++) {
        zl_vec3 a = rand_vec_bits(&rng, 30), b = rand_vec_bits(&rng, 30);
        int64_t sum = (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z;
        if (!ZL_CHECK_EQ(zl_vec3_dot(a, b), clamp32(ref_div_round(sum, 65536))))
            break;
    }
}

static zl_fx ref_cross_term(zl_fx p, zl_fx q, zl_fx r, zl_fx s)
{
    return clamp32(ref_div_round((int64_t)p * q - (int64_t)r * s, 65536));
}

static void test_vec3_cross(void)
{
    zl_test_rng rng;
    long n;
    zl_vec3 x = zl_vec3_make(ONE, 0, 0), y = zl_vec3_make(0, ONE, 0), z = zl_vec3_make(0, 0, ONE);
    zl_vec3 m = zl_vec3_make(MIN, MAX, MIN);
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(x, y), z));
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(y, z), x));
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(z, x), y));
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(y, x), zl_vec3_make(0, 0, -ONE)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(m, m), zl_vec3_make(0, 0, 0)));
    /* y: MIN * MIN - MIN * MAX = 2^63 - 2^31, the largest difference. */
    ZL_CHECK(zl_vec3_equal(zl_vec3_cross(zl_vec3_make(MAX, 0, MIN), zl_vec3_make(MIN, 0, MIN)),
                           zl_vec3_make(0, MAX, 0)));
    zl_test_rng_seed(&rng, 0xC055u);
    for (n = 0; n < ZL_TEST_ITERATIONS(500000L); n++) {
        zl_vec3 a = rand_vec(&rng), b = rand_vec(&rng);
        zl_vec3 c = zl_vec3_cross(a, b), r = zl_vec3_cross(b, a);
        zl_vec3 small_a = rand_vec_bits(&rng, 5), small_b = rand_vec_bits(&rng, 5);
        /* Integer-valued vectors: the cross product is exact, so it is
         * orthogonal to both inputs without any rounding. */
        zl_vec3 ia = zl_vec3_make(small_a.x * ONE, small_a.y * ONE, small_a.z * ONE);
        zl_vec3 ib = zl_vec3_make(small_b.x * ONE, small_b.y * ONE, small_b.z * ONE);
        if (!ZL_CHECK(c.x == ref_cross_term(a.y, b.z, a.z, b.y) &&
                      c.y == ref_cross_term(a.z, b.x, a.x, b.z) &&
                      c.z == ref_cross_term(a.x, b.y, a.y, b.x)) ||
            !ZL_CHECK(zl_vec3_equal(zl_vec3_cross(a, a), zl_vec3_make(0, 0, 0))) ||
            !ZL_CHECK(r.x == zl_fx_neg(c.x) || (r.x == MIN && c.x == MAX)) ||
            !ZL_CHECK(r.y == zl_fx_neg(c.y) || (r.y == MIN && c.y == MAX)) ||
            !ZL_CHECK(r.z == zl_fx_neg(c.z) || (r.z == MIN && c.z == MAX)) ||
            !ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_cross(ia, ib), ia), 0) ||
            !ZL_CHECK_EQ(zl_vec3_dot(zl_vec3_cross(ia, ib), ib), 0))
            break;
    }
}

static int length_ok(zl_vec3 v)
{
    uint64_t x = (uint64_t)(v.x < 0 ? -(int64_t)v.x : v.x);
    uint64_t y = (uint64_t)(v.y < 0 ? -(int64_t)v.y : v.y);
    uint64_t z = (uint64_t)(v.z < 0 ? -(int64_t)v.z : v.z);
    uint64_t sum = x * x + y * y + z * z;
    uint64_t r = (uint64_t)zl_vec3_length(v);
    if (r == (uint64_t)MAX) /* saturated: the true length is at least MAX */
        return sum >= r * r;
    return r * r <= sum && sum < (r + 1) * (r + 1);
}

static void test_vec3_length(void)
{
    zl_test_rng rng;
    long n;
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(0, 0, 0)), 0);
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(3 * ONE, 0, -4 * ONE)), 5 * ONE);
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(-2 * ONE, 3 * ONE, 6 * ONE)), 7 * ONE);
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(1, 1, 1)), 1);       /* sqrt(3) raw */
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(ONE, ONE, 0)), 92681); /* sqrt(2) */
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(MAX, 0, 0)), MAX);
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(0, MIN, 0)), MAX);   /* 2^31 saturates */
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(MAX, MAX, MAX)), MAX);
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(MIN, MIN, MIN)), MAX);
    /* 2^30 * sqrt(3) = 1859775393.38 fits. */
    ZL_CHECK_EQ(zl_vec3_length(zl_vec3_make(1 << 30, -(1 << 30), 1 << 30)), 1859775393);
    zl_test_rng_seed(&rng, 0x1E7u);
    for (n = 0; n < ZL_TEST_ITERATIONS(500000L); n++)
        if (!ZL_CHECK(length_ok(rand_vec(&rng))))
            break;
}

static void test_vec3_normalize(void)
{
    zl_test_rng rng;
    double max_len = 0, max_comp = 0;
    long n;
    zl_vec3 zero = zl_vec3_make(0, 0, 0);
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zero), zero));
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zl_vec3_make(5, 0, 0)), zl_vec3_make(ONE, 0, 0)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zl_vec3_make(0, MIN, 0)), zl_vec3_make(0, -ONE, 0)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zl_vec3_make(0, 0, MAX)), zl_vec3_make(0, 0, ONE)));
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zl_vec3_make(-3, 4, 0)),
                           zl_vec3_make(-39322, 52429, 0))); /* 0.6, 0.8 rounded */
    ZL_CHECK(zl_vec3_equal(zl_vec3_normalize(zl_vec3_make(1, 1, 1)),
                           zl_vec3_make(37837, 37837, 37837))); /* 65536 / sqrt(3) = 37837.23 */
    zl_test_rng_seed(&rng, 0x0A11u);
    for (n = 0; n < ZL_TEST_ITERATIONS(500000L); n++) {
        /* Random bit lengths give vectors from a few raw units to huge. */
        zl_vec3 v = rand_vec_bits(&rng, 1 + zl_test_rng_u32(&rng) % 31);
        zl_vec3 u = zl_vec3_normalize(v);
        double x = v.x, y = v.y, z = v.z;
        double len = sqrt(x * x + y * y + z * z);
        double ux = u.x, uy = u.y, uz = u.z;
        double e;
        if (len == 0) {
            if (!ZL_CHECK(zl_vec3_equal(u, zero)))
                break;
            continue;
        }
        e = fabs(sqrt(ux * ux + uy * uy + uz * uz) - 65536.0);
        max_len = e > max_len ? e : max_len;
        e = fabs(ux - x / len * 65536.0);
        e = fmax(e, fabs(uy - y / len * 65536.0));
        e = fmax(e, fabs(uz - z / len * 65536.0));
        max_comp = e > max_comp ? e : max_comp;
    }
    zl_test_note("max |length - ONE| %.3f raw units, max component error %.3f raw units",
                 max_len, max_comp);
    ZL_CHECK(max_len <= 2.0);
    ZL_CHECK(max_comp <= 0.501);
}

void zl_suite_fixed(void)
{
    ZL_RUN(test_add_sub_saturate);
    ZL_RUN(test_mul_exact);
    ZL_RUN(test_div_exact);
    ZL_RUN(test_sqrt_edges);
    ZL_RUN(test_sqrt_random);
    ZL_RUN(test_isqrt64);
    ZL_RUN(test_sin_cos);
    ZL_RUN(test_atan2_exact_points);
    ZL_RUN(test_atan2_grid);
    ZL_RUN(test_atan2_random_and_round_trip);
    ZL_RUN(test_angle_diff_lerp);
    ZL_RUN(test_lerp_saturate);
    ZL_RUN(test_floor_round_int);
    ZL_RUN(test_vec3_componentwise);
    ZL_RUN(test_vec3_dot);
    ZL_RUN(test_vec3_cross);
    ZL_RUN(test_vec3_length);
    ZL_RUN(test_vec3_normalize);
}
