/* fuzz_events.c - libFuzzer harness for the events section of snapshots
 * (zl_eventlog.h): hostile sections into a client's queue, its promises
 * checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "fps.h"
#include "zl_eventlog.h"

static zl_event_queue queue;

/* The reader holds the even players, each standing as `held`: events of
 * theirs name them by rank and carry a base choice, coded against the
 * FPS's bases. */
static fps_player held;
static uint8_t even[ZL_EVENT_HELD_BYTES];

static int holds_even(const void *ctx, int32_t source)
{
    (void)ctx;
    return source < ZL_MAX_CLIENTS && source % 2 == 0 ? ZL_EVENT_HOLDS_SAME : ZL_EVENT_HOLDS_NONE;
}

static int build_from_held(const void *ctx, int32_t source, uint32_t which, zl_event *base)
{
    ((const zl_game *)ctx)->event_base(&held, source, which, base);
    return 1;
}

/* The reader's view: the even players held, each standing as `held`,
 * their bases the FPS's; nothing for the writer (every, plan). */
static void hold_even_players(const zl_game *rules, zl_event_bases *bases)
{
    int k;
    memset(&held, 0, sizeof held);
    held.origin.x = ZL_FX_INT(812);
    held.yaw = 8192;
    held.pitch = 1040;
    memset(even, 0, sizeof even);
    for (k = 0; k < ZL_MAX_CLIENTS; k += 2)
        even[k / 8] |= (uint8_t)(1u << (k % 8));
    bases->count = rules->event_bases;
    bases->held = even;
    bases->every = NULL;
    bases->holds = holds_even;
    bases->build = build_from_held;
    bases->ctx = rules;
    bases->plan = NULL;
}

/* The input is a series of sections, each a length byte, a tick byte (the
 * snapshot's tick step: an odd one reads it as a full snapshot's, without
 * an events reference, an even one against the reference the sections
 * before left) and then that many bytes (cut to what is left), read in
 * turn by one queue, after which the events due are taken. An event comes
 * out at most once: the queue's counters add up to what was read, it never
 * holds more than its capacity, and events are handed over by tick. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zl_event out[ZL_CLIENT_EVENTS];
    const zl_game rules = fps_game_interface(NULL);
    zl_event_bases bases;
    size_t at = 0;
    int k;
    uint32_t taken = 0, tick = 1000;
    zl_event_ref ref = {0, 0};
    zl_event_queue_init(&queue);
    hold_even_players(&rules, &bases);
    while (at + 2 <= size) {
        size_t len = data[at++];
        uint8_t *block;
        zl_bitreader r;
        int n;
        tick += data[at];
        if (data[at++] & 1u)
            memset(&ref, 0, sizeof ref);
        if (len > size - at)
            len = size - at;
        block = zl_fuzz_copy(data + at, len);
        at += len;
        zl_bitreader_init(&r, block, len);
        n = zl_event_section_read(&queue, &fps_event_schema, &bases, &ref, tick, &r);
        REQUIRE(n == ZL_OK || n == ZL_ERR_MALFORMED || n == ZL_ERR_OVERFLOW);
        free(block);
        REQUIRE(queue.count <= ZL_CLIENT_EVENTS);
        n = zl_event_queue_take(&queue, tick - 100u, 3, out, ZL_CLIENT_EVENTS);
        for (k = 0; k < n; k++) {
            REQUIRE(out[k].source == 3 || (int32_t)(out[k].tick - (tick - 100u)) <= 0);
            REQUIRE(out[k].source >= -1 && out[k].source < ZL_MAX_ENTITIES);
            REQUIRE((int32_t)(out[k].tick - tick) <= 0); /* never in the future */
        }
        taken += (uint32_t)n;
        REQUIRE(queue.stats.received == taken + queue.count);
    }
    return 0;
}
