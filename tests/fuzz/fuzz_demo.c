/* fuzz_demo.c - libFuzzer harness for demo files: hostile fragments into the
 * format's reader, and whatever it accepts played through a client. */
/* FUZZ_MAX_LEN: 32768
 * (tools/fuzz.sh passes it: the seeds are recordings of a few seconds, a
 * fragment with a full keyframe among them.) */
#include <string.h>

#include "zl_fuzz.h"

#include "fps.h"
#include "zl_bytes.h"
#include "zl_client_demo.h"
#include "zl_crc32.h"

/* The input is one flags byte, then a demo stream (docs/RECORD.md).
 *   flags bit 0: the CRC of every fragment is made right first, so the
 *   fuzzer reaches the items and keyframes behind it. */
#define FLAG_RESEAL 1u

static fps_game game;
static zl_game rules;
static zl_client client;
static int ready;

static int drop_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx;
    (void)to;
    (void)data;
    return (int)len;
}

static void reseal(uint8_t *p, size_t len)
{
    size_t at = 0;
    while (len - at >= ZL_DEMO_HEADER_SIZE) {
        uint32_t body = zl_get_le32(p + at + 20), crc;
        if (body > len - at - ZL_DEMO_HEADER_SIZE)
            return;
        crc = zl_crc32_update(0, p + at, 24);
        crc = zl_crc32_update(crc, p + at + ZL_DEMO_HEADER_SIZE, body);
        zl_put_le32(p + at + 24, crc);
        at += ZL_DEMO_HEADER_SIZE + body;
    }
}

/* What the reader promises of a fragment it accepted. */
static void check_fragment(const zl_demo_fragment *f, size_t left)
{
    zl_demo_item_view it;
    uint32_t offset = 0, n = 0;
    uint64_t last = f->start_us;
    REQUIRE(f->size == ZL_DEMO_HEADER_SIZE + f->body_len && f->size <= left);
    while (zl_demo_fragment_next(f, &offset, &it)) {
        REQUIRE((it.kind == ZL_DEMO_KEYFRAME) == (n == 0));
        REQUIRE(it.time_us >= last && it.time_us <= f->end_us);
        REQUIRE(it.data >= f->body && it.data + it.len <= f->body + f->body_len);
        last = it.time_us;
        n++;
    }
    REQUIRE(n > 0 && offset == f->body_len);
}

/* Plays every item of f; the client stays a player whatever they hold. */
static void play(const zl_demo_fragment *f)
{
    zl_demo_item_view it;
    uint32_t offset = 0;
    while (zl_demo_fragment_next(f, &offset, &it)) {
        int rc = zl_client_play_item(&client, &it, NULL);
        REQUIRE(rc == it.kind || rc == ZL_ERR_MALFORMED);
        REQUIRE(zl_client_state(&client) == ZL_CLIENT_PLAYING);
        if (it.kind == ZL_DEMO_FRAME)
            (void)zl_client_frame_hash(&client);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    size_t len, at = 0;
    int started = 0;
    if (!ready) {
        zl_client_config cc;
        zl_platform hal;
        memset(&hal, 0, sizeof hal);
        hal.send = drop_send;
        fps_game_init(&game);
        rules = fps_game_interface(&game);
        zl_client_config_default(&cc);
        REQUIRE(zl_client_init(&client, &cc, &rules, &hal, 1u) == ZL_OK);
        ready = 1;
    }
    if (size < 1)
        return 0;
    len = size - 1;
    copy = zl_fuzz_copy(data + 1, len);
    if (data[0] & FLAG_RESEAL)
        reseal(copy, len);
    while (at < len) {
        zl_demo_fragment f;
        int rc = zl_demo_fragment_open(copy + at, len - at, &f);
        if (rc != ZL_OK) {
            REQUIRE(rc == ZL_ERR_TRUNCATED || rc == ZL_ERR_MALFORMED ||
                    rc == ZL_ERR_UNSUPPORTED || rc == ZL_ERR_CHECKSUM);
            break;
        }
        check_fragment(&f, len - at);
        if (!started) {
            rc = zl_client_play_start(&client, &f);
            REQUIRE(rc == ZL_OK || rc == ZL_ERR_MALFORMED || rc == ZL_ERR_OVERFLOW);
            REQUIRE(zl_client_state(&client) == (rc == ZL_OK ? ZL_CLIENT_PLAYING : ZL_CLIENT_IDLE));
            started = rc == ZL_OK;
        }
        if (started)
            play(&f);
        at += f.size;
    }
    free(copy);
    return 0;
}
