/* bench_fixed.c - cost of the fixed-point primitives every simulation step
 * leans on: multiply, divide, square root, sine, atan2, vector length. */
#include "zl_bench.h"
#include "zl_fixed.h"

static void body_mul(void *ctx, uint32_t n)
{
    zl_fx acc = ZL_FX_ONE, k = ZL_FX_RATIO(10001, 10000);
    uint32_t i;
    (void)ctx;
    for (i = 0; i < n; i++)
        acc = zl_fx_mul(acc, k) ^ (zl_fx)(i & 1u);
    zl_bench_sink += (uint32_t)acc;
}

static void body_div(void *ctx, uint32_t n)
{
    uint32_t i, acc = 0;
    (void)ctx;
    for (i = 0; i < n; i++)
        acc += (uint32_t)zl_fx_div((zl_fx)(i * 2654435761u >> 8), (zl_fx)(i | 0x10000u));
    zl_bench_sink += acc;
}

static void body_sqrt(void *ctx, uint32_t n)
{
    uint32_t i, acc = 0;
    (void)ctx;
    for (i = 0; i < n; i++)
        acc += (uint32_t)zl_fx_sqrt((zl_fx)((i * 2654435761u) >> 1));
    zl_bench_sink += acc;
}

static void body_sin(void *ctx, uint32_t n)
{
    uint32_t i, acc = 0;
    (void)ctx;
    for (i = 0; i < n; i++)
        acc += (uint32_t)zl_sin((zl_angle)(i * 40503u));
    zl_bench_sink += acc;
}

static void body_atan2(void *ctx, uint32_t n)
{
    uint32_t i, acc = 0;
    (void)ctx;
    for (i = 0; i < n; i++)
        acc += zl_atan2((zl_fx)(i * 2654435761u), (zl_fx)(i * 40503u - 7u));
    zl_bench_sink += acc;
}

static void body_length(void *ctx, uint32_t n)
{
    uint32_t i, acc = 0;
    (void)ctx;
    for (i = 0; i < n; i++) {
        zl_vec3 v = zl_vec3_make((zl_fx)(i << 8), ZL_FX_INT(100), (zl_fx)(0u - (i << 6)));
        acc += (uint32_t)zl_vec3_length(v);
    }
    zl_bench_sink += acc;
}

void zl_bench_fixed(void)
{
    zl_bench_measure("fixed", "zl_fx_mul", body_mul, 0, 0);
    zl_bench_measure("fixed", "zl_fx_div", body_div, 0, 0);
    zl_bench_measure("fixed", "zl_fx_sqrt", body_sqrt, 0, 0);
    zl_bench_measure("fixed", "zl_sin", body_sin, 0, 0);
    zl_bench_measure("fixed", "zl_atan2", body_atan2, 0, 0);
    zl_bench_measure("fixed", "zl_vec3_length", body_length, 0, 0);
}
