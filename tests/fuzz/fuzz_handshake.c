/* fuzz_handshake.c - libFuzzer harness for every handshake message reader
 * and the settings reader: hostile bytes in, invariants checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_handshake.h"

/* The input's first byte picks a reader (modulo 9); the rest is its input,
 * copied into a buffer of exactly its length so AddressSanitizer catches a
 * read past the end. Readers 0..7 take a message payload; reader 8 takes a
 * bit offset (0..7, from the next byte) and settings at that offset. */

/* A message reader's contract: an accepted payload has the message's size
 * and is exactly what the writer makes of the result; a refused one is
 * ZL_ERR_MALFORMED with the whole output zeroed. */
#define CHECK_MESSAGE(name, size)                                                                  \
    static void check_##name(const uint8_t *p, size_t len)                                         \
    {                                                                                              \
        zl_msg_##name out, zero;                                                                   \
        uint8_t again[ZL_REQUEST_SIZE];                                                            \
        int r;                                                                                     \
        memset(&zero, 0, sizeof zero);                                                             \
        memset(&out, 0xA5, sizeof out);                                                            \
        r = zl_msg_##name##_read(p, len, &out);                                                    \
        if (r == ZL_OK) {                                                                          \
            REQUIRE(len == (size));                                                                \
            REQUIRE(zl_msg_##name##_write(again, sizeof again, &out) == (int)(size));              \
            REQUIRE(memcmp(again, p, len) == 0);                                                   \
        } else {                                                                                   \
            REQUIRE(r == ZL_ERR_MALFORMED);                                                        \
            REQUIRE(memcmp(&out, &zero, sizeof out) == 0);                                         \
        }                                                                                          \
    }

CHECK_MESSAGE(request, ZL_REQUEST_SIZE)
CHECK_MESSAGE(challenge, ZL_CHALLENGE_SIZE)
CHECK_MESSAGE(response, ZL_REQUEST_SIZE)
CHECK_MESSAGE(accept, ZL_ACCEPT_SIZE)
CHECK_MESSAGE(deny, ZL_DENY_SIZE)
CHECK_MESSAGE(disconnect, ZL_DISCONNECT_SIZE)
CHECK_MESSAGE(keepalive, ZL_KEEPALIVE_SIZE)
CHECK_MESSAGE(settings, ZL_SETTINGS_MSG_SIZE)

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

typedef void (*check_fn)(const uint8_t *p, size_t len);

static const check_fn checks[] = {
    check_request,    check_challenge, check_response, check_accept,          check_deny,
    check_disconnect, check_keepalive, check_settings, check_client_settings,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    size_t len;
    if (size == 0)
        return 0;
    len = size - 1;
    copy = (uint8_t *)malloc(len ? len : 1);
    REQUIRE(copy != NULL);
    if (len)
        memcpy(copy, data + 1, len);
    checks[data[0] % (sizeof checks / sizeof checks[0])](copy, len);
    free(copy);
    return 0;
}
