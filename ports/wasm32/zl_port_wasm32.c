/* zl_port_wasm32.c - HAL for WebAssembly: the monotonic clock (performance.now
 * underneath) and getentropy (crypto.getRandomValues in a page, node's crypto). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* getentropy */
#include <time.h>
#include <unistd.h>

#include "zl_port.h"

static uint64_t port_now_us(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* getentropy gives at most 256 bytes a call. */
static int port_random(void *ctx, void *out, size_t len)
{
    uint8_t *p = (uint8_t *)out;
    (void)ctx;
    while (len > 0) {
        size_t n = len < 256u ? len : 256u;
        if (getentropy(p, n) != 0)
            return ZL_ERR_IO;
        p += n;
        len -= n;
    }
    return ZL_OK;
}

void zl_port_clock_only(zl_platform *hal)
{
    zl_platform_clock_only(hal, 0, port_now_us, port_random);
}
