/* zl_platform.h - the HAL: everything zerolag needs from a platform, as one
 * struct of function pointers sharing a context, so layers can be stacked. */
#ifndef ZL_PLATFORM_H
#define ZL_PLATFORM_H

#include "zl_addr.h"

ZL_BEGIN_DECLS

/* One endpoint's view of the platform: a datagram socket, a clock and a
 * random source. A port fills it in (ports/<name>/); a test double or the
 * link conditioner can wrap another instance by keeping it in its ctx.
 * The struct is small and copied by value; ctx is owned by whoever built it. */
typedef struct zl_platform {
    void *ctx;

    /* Sends one datagram of len bytes to `to`. Returns ZL_OK once the
     * platform accepted it (delivery is never guaranteed), ZL_ERR_INVALID
     * for len 0 or above ZL_MAX_PACKET, ZL_ERR_UNSUPPORTED when the socket
     * cannot reach that address family, ZL_ERR_AGAIN when the send buffer is
     * full (the datagram is dropped), ZL_ERR_IO otherwise. Never blocks. */
    int (*send)(void *ctx, const zl_addr *to, const void *data, size_t len);

    /* Takes one waiting datagram, never blocking. Returns its length (>= 0)
     * and sets *from; ZL_ERR_AGAIN when nothing is waiting; ZL_ERR_TRUNCATED
     * when the datagram was larger than cap or than ZL_MAX_PACKET (it is
     * consumed and dropped, *from is still set, and no byte past
     * buf[cap - 1] is written); ZL_ERR_IO on failure. Errors that belong to
     * an earlier send (an ICMP "port unreachable") are not reported. */
    int (*receive)(void *ctx, zl_addr *from, void *buf, size_t cap);

    /* Monotonic time in microseconds since an arbitrary origin. Never goes
     * backwards; advances while the program runs. */
    uint64_t (*now_us)(void *ctx);

    /* Fills out with len unpredictable bytes (the OS CSPRNG where there is
     * one; secrets for connection cookies come from here). ZL_OK or ZL_ERR_IO. */
    int (*random)(void *ctx, void *out, size_t len);
} zl_platform;

/* Fills *hal with a clock and random source but no network: send and
 * receive return ZL_ERR_UNSUPPORTED. Ports build zl_port_clock_only on it. */
void zl_platform_clock_only(zl_platform *hal, void *ctx, uint64_t (*now_us)(void *ctx),
                            int (*random)(void *ctx, void *out, size_t len));

ZL_END_DECLS

#endif
