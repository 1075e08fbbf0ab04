/* fuzz_reliable.c - libFuzzer harness for the reliable channel's receiving
 * side: hostile message blocks in, the channel's promises checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_reliable.h"

static zl_reliable ch;

/* The input is a series of blocks, each a length byte then that many bytes
 * (cut to what is left), read by one channel in turn; after each, every
 * message ready is taken. What comes out must be in order (the channel's
 * count of deliveries only grows by one per message), of a length the
 * sender could have sent, and never more than what was read in. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t out[ZL_RELIABLE_MESSAGE_MAX];
    size_t at = 0;
    uint32_t taken = 0;
    zl_reliable_init(&ch);
    while (at < size) {
        size_t len = data[at++];
        uint8_t *block;
        zl_bitreader r;
        int n;
        if (len > size - at)
            len = size - at;
        block = zl_fuzz_copy(data + at, len);
        at += len;
        zl_bitreader_init(&r, block, len);
        n = zl_reliable_read(&ch, &r);
        REQUIRE(n == ZL_OK || n == ZL_ERR_MALFORMED || n == ZL_ERR_OVERFLOW);
        free(block);
        while ((n = zl_reliable_receive(&ch, out, sizeof out)) != ZL_ERR_AGAIN) {
            REQUIRE(n >= 1 && n <= ZL_RELIABLE_MESSAGE_MAX);
            taken++;
        }
        REQUIRE(ch.stats.delivered == taken);
    }
    /* A refusal for a too-small buffer keeps the message. */
    REQUIRE(zl_reliable_receive(&ch, out, 0) == ZL_ERR_AGAIN);
    return 0;
}
