/* zl_fuzz.h - what every libFuzzer harness shares: the entry point it defines
 * and the invariant check. Programmer-error asserts in core go to the
 * default handler (platform/zl_assert.c), which aborts: a harness bug. */
#ifndef ZL_FUZZ_H
#define ZL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A broken invariant crashes, so libFuzzer keeps the input. */
#define REQUIRE(cond) ((cond) ? (void)0 : abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* len bytes of the input copied into a buffer of exactly that length (at
 * least one byte), so AddressSanitizer catches any read past its end. The
 * caller frees it. */
static inline uint8_t *zl_fuzz_copy(const uint8_t *data, size_t len)
{
    uint8_t *copy = (uint8_t *)malloc(len ? len : 1);
    REQUIRE(copy != NULL);
    if (len)
        memcpy(copy, data, len);
    return copy;
}

#endif
