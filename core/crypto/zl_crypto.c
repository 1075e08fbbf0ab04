/* zl_crypto.c - the two memory helpers the ciphers share: a comparison
 * whose time does not depend on the bytes, and a wipe the compiler keeps. */
#include <string.h>

#include "zl_crypto.h"

int zl_crypto_equal(const void *a, const void *b, size_t n)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint32_t diff = 0, u, v;
    size_t i;
    /* Every byte is read whatever came before: no early exit tells an
     * attacker how many leading bytes of a forged tag were right. Four
     * bytes at a time through memcpy (any alignment; the order of the
     * bytes in a word does not matter to a difference), then the rest. */
    for (i = 0; i + 4 <= n; i += 4) {
        memcpy(&u, x + i, 4);
        memcpy(&v, y + i, 4);
        diff |= u ^ v;
    }
    for (; i < n; i++)
        diff |= (uint32_t)(x[i] ^ y[i]);
    /* Fold to 16 bits, then diff - 1 borrows into bit 16 only when diff
     * is 0. */
    diff = (diff >> 16) | (diff & 0xFFFFu);
    return (int)(((diff - 1u) >> 16) & 1u);
}

/* memset through a volatile pointer: the compiler cannot tell what the
 * call does, so it cannot drop it as a dead store, and memset clears a word
 * or more at a time where a volatile byte loop took one store a byte. */
static void *(*const volatile wipe_with)(void *, int, size_t) = memset;

void zl_crypto_wipe(void *p, size_t n)
{
    if (n > 0)
        wipe_with(p, 0, n);
}
