/* zl_fuzz.h - what every libFuzzer harness shares: the entry point it defines
 * and the invariant check. Programmer-error asserts in core go to the
 * default handler (platform/zl_assert.c), which aborts: a harness bug. */
#ifndef ZL_FUZZ_H
#define ZL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* A broken invariant crashes, so libFuzzer keeps the input. */
#define REQUIRE(cond) ((cond) ? (void)0 : abort())

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
