/* zl_platform.c - helpers shared by every port's HAL: a HAL that has a clock
 * and randomness but no network, for benchmarks and single-process tools. */
#include "zl_platform.h"

static int unsupported_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return ZL_ERR_UNSUPPORTED;
}

static int unsupported_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    (void)ctx;
    (void)from;
    (void)buf;
    (void)cap;
    return ZL_ERR_UNSUPPORTED;
}

void zl_platform_clock_only(zl_platform *hal, void *ctx, uint64_t (*now_us)(void *ctx),
                            int (*random)(void *ctx, void *out, size_t len))
{
    ZL_ASSERT(hal && now_us && random);
    hal->ctx = ctx;
    hal->send = unsupported_send;
    hal->receive = unsupported_receive;
    hal->now_us = now_us;
    hal->random = random;
}
