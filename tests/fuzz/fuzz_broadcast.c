/* fuzz_broadcast.c - libFuzzer harness for what a spectator reads: the
 * input as a broadcast (fragments one after another) played through a
 * snapshot receiver with the FPS layout, and as the index file. */
/* FUZZ_FLAGS: -DZL_SNAPSHOT_FRAMES=8 (a smaller receiver: more executions
 * per second; any number of frames reaches the same paths.) */
#include <string.h>

#include "zl_fuzz.h"

#include "fps.h"
#include "zl_demo.h"
#include "zl_snapshot.h"
#include "zl_tvindex.h"

static const zl_snapshot_layout layout = {&fps_player_schema, &fps_entity_schema,
                                          ZL_MAX_CLIENTS, NULL, NULL};
static zl_snapshot_receiver rx;

/* As zl_watch plays: every item a snapshot payload, decoded in order. */
static void play(const uint8_t *data, size_t size)
{
    size_t at = 0;
    zl_snapshot_receiver_init(&rx);
    while (at < size) {
        zl_demo_fragment f;
        zl_demo_item_view item;
        uint32_t offset = 0;
        int rc = zl_demo_fragment_open(data + at, size - at, &f);
        if (rc != ZL_OK)
            return;
        REQUIRE(f.size >= ZL_DEMO_HEADER_SIZE && f.size <= size - at);
        while (zl_demo_fragment_next(&f, &offset, &item)) {
            const zl_snapshot_frame *frame = NULL;
            uint32_t tick, executed;
            REQUIRE(item.data >= data + at && item.data + item.len <= data + at + f.size);
            if (zl_snapshot_message_tick(&rx, item.data, item.len, &tick) != ZL_OK)
                continue;
            rc = zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, item.data,
                                          item.len, &executed, &frame);
            REQUIRE(rc == ZL_OK ? frame != NULL && frame->tick == tick : frame == NULL);
        }
        at += f.size;
    }
}

/* An index read is written back and read again to the same values. */
static void index_file(const uint8_t *data, size_t size)
{
    zl_tvindex a, b;
    char text[ZL_TVINDEX_MAX];
    size_t n;
    if (zl_tvindex_read((const char *)data, size, &a) != ZL_OK)
        return;
    n = zl_tvindex_write(&a, text, sizeof text);
    REQUIRE(n <= size);
    REQUIRE(zl_tvindex_read(text, n, &b) == ZL_OK);
    REQUIRE(a.fragment == b.fragment && a.tick == b.tick && a.unix_ms == b.unix_ms &&
            a.tick_rate == b.tick_rate && a.fragment_ticks == b.fragment_ticks &&
            a.delay_ms == b.delay_ms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = zl_fuzz_copy(data, size);
    play(copy, size);
    index_file(copy, size);
    free(copy);
    return 0;
}
