/* zl_cookie.h - the handshake's stateless cookie: a SipHash of the client's
 * address, a time window and its nonce, so the server keeps nothing per request. */
#ifndef ZL_COOKIE_H
#define ZL_COOKIE_H

#include "zl_addr.h"
#include "zl_siphash.h"

/* The cookie window of a time: now_us / ZL_COOKIE_WINDOW_US (wraps after
 * 680 years of uptime at 5 s). */
uint32_t zl_cookie_window(uint64_t now_us);

/* The cookie for a client: SipHash-2-4 under secret (16 bytes from the
 * server's HAL random(), kept for the server's life) of the client's
 * address (family, ip, port), window and nonce. The server stores nothing
 * per request: it recomputes the cookie when the RESPONSE comes back. */
uint64_t zl_cookie_make(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                        uint32_t window, uint64_t nonce);

/* 1 when cookie is what zl_cookie_make gives for (client, window, nonce)
 * and window is the current window at now_us or the one before; else 0.
 * Every value is accepted: a forged, stale or misaddressed cookie gives 0. */
int zl_cookie_check(const uint8_t secret[ZL_SIPHASH_KEY_SIZE], const zl_addr *client,
                    uint64_t now_us, uint32_t window, uint64_t nonce, uint64_t cookie);

#endif
