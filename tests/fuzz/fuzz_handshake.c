/* fuzz_handshake.c - libFuzzer harness for every handshake message reader
 * and the settings reader: hostile bytes in, invariants checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_msg.h"

/* The input's first byte picks a reader (modulo 10); the rest is its input,
 * copied into a buffer of exactly its length so AddressSanitizer catches a
 * read past the end. Readers 0..8 take a message payload; reader 9 takes a
 * bit offset (0..7, from the next byte) and settings at that offset. */

/* Any message struct, for the reader to fill. */
typedef union any_message {
    zl_msg_request request;
    zl_msg_challenge challenge;
    zl_msg_response response;
    zl_msg_accept accept;
    zl_msg_deny deny;
    zl_msg_disconnect disconnect;
    zl_msg_keepalive keepalive;
    zl_msg_settings settings;
    zl_msg_control control;
} any_message;

/* The reader's contract: an accepted payload has the message's size and is
 * exactly what the writer makes of the result; a refused one is
 * ZL_ERR_MALFORMED with the whole output zeroed. */
static void check_message(uint8_t type, const uint8_t *p, size_t len)
{
    any_message out, refused;
    uint8_t again[ZL_REQUEST_SIZE];
    size_t size = zl_msg_size(type);
    int r;
    memset(&out, 0xA5, sizeof out);
    r = zl_msg_read(type, p, len, &out);
    if (r == ZL_OK) {
        REQUIRE(len == size);
        REQUIRE(zl_msg_write(type, again, sizeof again, &out) == (int)size);
        REQUIRE(memcmp(again, p, len) == 0);
    } else {
        REQUIRE(r == ZL_ERR_MALFORMED);
        /* The message's struct is zeroed and nothing past it written: the
         * same bytes as a read refused for its size. */
        memset(&refused, 0xA5, sizeof refused);
        REQUIRE(zl_msg_read(type, NULL, 0, &refused) == ZL_ERR_MALFORMED);
        REQUIRE(memcmp(&out, &refused, sizeof out) == 0);
    }
}

/* Settings at a bit offset: accepted ones re-encode to the same bits. */
static void check_client_settings(const uint8_t *p, size_t len)
{
    zl_bitreader r, a, b;
    zl_bitwriter w;
    zl_client_settings s;
    uint8_t again[16];
    unsigned skip;
    int result;
    uint32_t i;
    if (len == 0)
        return;
    skip = p[0] & 7u;
    zl_bitreader_init(&r, p + 1, len - 1);
    zl_bitreader_bits(&r, skip);
    memset(&s, 0xA5, sizeof s);
    result = zl_client_settings_read(&r, &s);
    if (result != ZL_OK) {
        REQUIRE(result == ZL_ERR_MALFORMED || result == ZL_ERR_OVERFLOW);
        REQUIRE(s.updaterate == 0 && s.cmdrate == 0 && s.rate == 0 && s.interp_us == 0 &&
                s.interp_ratio == 0);
        return;
    }
    zl_bitwriter_init(&w, again, sizeof again);
    zl_bitwriter_bits(&w, 0, skip);
    REQUIRE(zl_client_settings_write(&w, &s) == 68);
    zl_bitreader_init(&a, p + 1, len - 1);
    zl_bitreader_init(&b, again, sizeof again);
    zl_bitreader_bits(&a, skip);
    zl_bitreader_bits(&b, skip);
    for (i = 0; i < 68; i++)
        REQUIRE(zl_bitreader_bits(&a, 1) == zl_bitreader_bits(&b, 1));
}

static const uint8_t types[] = {
    ZL_MSG_REQUEST,    ZL_MSG_CHALLENGE, ZL_MSG_RESPONSE, ZL_MSG_ACCEPT,
    ZL_MSG_DENY,       ZL_MSG_DISCONNECT, ZL_MSG_KEEPALIVE, ZL_MSG_SETTINGS,
    ZL_MSG_CONTROL,
};
#define TYPES (sizeof types / sizeof types[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    size_t len;
    if (size == 0)
        return 0;
    len = size - 1;
    copy = zl_fuzz_copy(data + 1, len);
    if (data[0] % (TYPES + 1u) < TYPES)
        check_message(types[data[0] % (TYPES + 1u)], copy, len);
    else
        check_client_settings(copy, len);
    free(copy);
    return 0;
}
