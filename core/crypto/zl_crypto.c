/* zl_crypto.c - the two memory helpers the ciphers share: a comparison
 * whose time does not depend on the bytes, and a wipe the compiler keeps. */
#include <string.h>

#include "zl_crypto.h"

int zl_crypto_equal(const void *a, const void *b, size_t n)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint32_t diff = 0;
    size_t i;
    /* Every byte is read whatever came before: no early exit tells an
     * attacker how many leading bytes of a forged tag were right. */
    for (i = 0; i < n; i++)
        diff |= (uint32_t)(x[i] ^ y[i]);
    /* diff is 0..255: diff - 1 borrows into bit 8 only when diff is 0. */
    return (int)(((diff - 1u) >> 8) & 1u);
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
