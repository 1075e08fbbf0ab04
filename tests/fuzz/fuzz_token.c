/* fuzz_token.c - libFuzzer harness for what a connect token and a sealed
 * packet expose to hostile bytes: the token reader, the server's opening of
 * a token, and the sealed-packet parser. */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_bytes.h"
#include "zl_packet.h"
#include "zl_protocol.h"
#include "zl_token.h"

static const uint8_t key[ZL_TOKEN_KEY_SIZE] = {9, 8, 7, 6, 5, 4, 3, 2, 1};

/* The input's first byte picks a target (modulo 3); the rest is its input,
 * copied into a buffer of exactly its length so AddressSanitizer catches a
 * read past the end. */

/* The token reader: an accepted token writes back to the same bytes; a
 * refused one leaves *out zeroed. */
static void check_read(const uint8_t *p, size_t len)
{
    zl_connect_token t, zero;
    uint8_t again[ZL_TOKEN_WIRE_SIZE];
    memset(&zero, 0, sizeof zero);
    memset(&t, 0xA5, sizeof t);
    if (zl_token_read(p, len, &t) == ZL_OK) {
        REQUIRE(zl_token_write(again, sizeof again, &t) == ZL_TOKEN_WIRE_SIZE);
        REQUIRE(len == ZL_TOKEN_WIRE_SIZE && memcmp(again, p, len) == 0);
    } else {
        REQUIRE(memcmp(&t, &zero, sizeof t) == 0);
    }
}

/* Opening a token the fuzzer made up: nothing forged opens, and a refusal
 * leaves the grant zeroed. */
static void check_open(const uint8_t *p, size_t len)
{
    uint8_t sealed[ZL_TOKEN_SEALED_SIZE], nonce[ZL_TOKEN_NONCE_SIZE];
    zl_token_grant g, zero;
    memset(sealed, 0, sizeof sealed);
    memset(nonce, 0, sizeof nonce);
    memcpy(sealed, p, len < sizeof sealed ? len : sizeof sealed);
    if (len > sizeof sealed)
        memcpy(nonce, p + sizeof sealed,
               len - sizeof sealed < sizeof nonce ? len - sizeof sealed : sizeof nonce);
    memset(&zero, 0, sizeof zero);
    REQUIRE(zl_token_open(&g, sealed, 1u, nonce, key, 0) == ZL_ERR_AUTH);
    REQUIRE(memcmp(&g, &zero, sizeof g) == 0);
}

/* The sealed-packet parser, both forms (with the clear id, as a client
 * sends, and without, as the server does; the input's first byte picks):
 * made-up bytes never open (no tag can be guessed), the result names a
 * reason, and the buffer is left as it was. */
static void check_packet(const uint8_t *p, size_t len)
{
    uint8_t *copy = zl_fuzz_copy(p, len);
    zl_packet_header h;
    zl_packet_drop why = ZL_PACKET_DROP_NONE;
    zl_packet_near near = {0xFFF0u, 0x0010u}; /* short fields widen across the wrap */
    zl_aead aead;
    uint64_t seq = 0;
    int r;
    zl_aead_default(&aead);
    int id_sent = len > 0 && (p[0] & 1u);
    r = zl_packet_open_aead(copy, len, len >= 4 ? zl_get_le32(p) : 0u, id_sent, 1000, &near,
                            ZL_PROTOCOL_ID, key, &aead, &h, &seq, &why);
    REQUIRE(r < 0 && why != ZL_PACKET_DROP_NONE);
    REQUIRE(len == 0 || memcmp(copy, p, len) == 0);
    free(copy);
}

typedef void (*check_fn)(const uint8_t *p, size_t len);
static const check_fn checks[] = {check_read, check_open, check_packet};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    size_t len;
    if (size == 0)
        return 0;
    len = size - 1;
    copy = zl_fuzz_copy(data + 1, len);
    checks[data[0] % (sizeof checks / sizeof checks[0])](copy, len);
    free(copy);
    return 0;
}
