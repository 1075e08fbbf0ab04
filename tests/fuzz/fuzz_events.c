/* fuzz_events.c - libFuzzer harness for the events section of snapshots
 * (zl_eventlog.h): hostile sections into a client's queue, its promises
 * checked. */
#include <string.h>

#include "zl_fuzz.h"

#include "fps.h"
#include "zl_eventlog.h"

static zl_event_queue queue;

/* The input is a series of sections, each a length byte, a tick byte (the
 * snapshot's tick) and then that many bytes (cut to what is left), read in
 * turn by one queue, after which the events due are taken. An event comes
 * out at most once: the queue's counters add up to what was read, it never
 * holds more than its capacity, and events are handed over by tick. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    zl_event out[ZL_CLIENT_EVENTS];
    size_t at = 0;
    uint32_t taken = 0, tick = 1000;
    zl_event_queue_init(&queue);
    while (at + 2 <= size) {
        size_t len = data[at++];
        uint8_t *block;
        zl_bitreader r;
        int n, k;
        tick += data[at++];
        if (len > size - at)
            len = size - at;
        block = zl_fuzz_copy(data + at, len);
        at += len;
        zl_bitreader_init(&r, block, len);
        n = zl_event_section_read(&queue, &fps_event_schema, tick, &r);
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
