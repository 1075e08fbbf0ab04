/* zl_cookie.c - cookies over a fixed little-endian byte layout, so a cookie
 * means the same on every host. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_cookie.h"

uint32_t zl_cookie_window(uint64_t now_us) { return (uint32_t)(now_us / ZL_COOKIE_WINDOW_US); }

uint64_t zl_cookie_make(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                        uint32_t window, uint64_t nonce)
{
    /* A fixed byte layout, so a cookie means the same on every host. */
    uint8_t msg[1 + 16 + 2 + 4 + 8];
    ZL_ASSERT(secret && client);
    msg[0] = client->family;
    memcpy(msg + 1, client->ip, 16);
    zl_put_le(msg + 17, client->port, 2);
    zl_put_le(msg + 19, window, 4);
    zl_put_le(msg + 23, nonce, 8);
    return zl_siphash_digest(secret, msg, sizeof msg);
}

int zl_cookie_check(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                    uint64_t now_us, uint32_t window, uint64_t nonce, uint64_t cookie)
{
    uint32_t current = zl_cookie_window(now_us);
    /* Only the current and the previous window: a cookie cannot be banked
     * for later, and the one before window 0 was never issued. */
    if (window != current && (current == 0 || window != current - 1u))
        return 0;
    return zl_cookie_make(secret, client, window, nonce) == cookie;
}
