/* fuzz_match_record.c - libFuzzer harness for the match record reader and
 * the replay: hostile records are refused with an error, never a crash. */
/* FUZZ_FLAGS: -DZL_MAX_CLIENTS=4
 * FUZZ_MAX_LEN: 4096
 * (tools/fuzz.sh passes them. Four slots, as many as the seed records
 * hold, make the replay's rewind history a sixteenth of the default, which
 * every input sets up afresh.) */
#include "zl_fuzz.h"

#include "fps.h"
#include "zl_replay.h"

#define MAX_TICKS 4096u

static zl_replay replay;
static fps_game game;
static zl_record_reader reader;

/* The input is a whole record. The reader walks it entry by entry; every
 * result is ZL_OK or one of its documented codes, the end comes once, and
 * every record the reader starts is replayed through the FPS rules, up to
 * MAX_TICKS ticks: one the reader takes whole never fails there but for a
 * new match (no reload given). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = zl_fuzz_copy(data, size);
    zl_record_entry e;
    zl_game g;
    int rc = zl_record_reader_init(&reader, copy, size), whole = 0;
    REQUIRE(rc == ZL_OK || rc == ZL_ERR_TRUNCATED || rc == ZL_ERR_MALFORMED ||
            rc == ZL_ERR_UNSUPPORTED);
    while (rc == ZL_OK) {
        rc = zl_record_next(&reader, &e);
        REQUIRE(rc == ZL_OK || rc == ZL_ERR_TRUNCATED || rc == ZL_ERR_MALFORMED);
        if (rc == ZL_OK && e.kind == ZL_RECORD_END) {
            REQUIRE(zl_record_next(&reader, &e) == ZL_ERR_AGAIN);
            whole = 1;
            break;
        }
        if (rc == ZL_OK && e.kind == ZL_RECORD_COMMAND)
            REQUIRE(zl_usercmd_validate(&e.cmd) == ZL_OK);
    }
    fps_game_init(&game);
    g = fps_game_interface(&game);
    rc = zl_replay_init(&replay, &g, copy, size, NULL, NULL);
    if (rc == ZL_OK) {
        uint32_t ticks = 0;
        /* A few bytes can ask for 2^31 idle ticks: a budget, as for any
         * record from an untrusted source. */
        while ((rc = zl_replay_step(&replay)) == 1 && ++ticks < MAX_TICKS) {
        }
        REQUIRE(rc == 1 || rc == 0 || rc == ZL_ERR_TRUNCATED || rc == ZL_ERR_MALFORMED ||
                rc == ZL_ERR_UNSUPPORTED);
        REQUIRE(rc != 0 || replay.ended);
        REQUIRE(!whole || rc >= 0 || rc == ZL_ERR_UNSUPPORTED);
        REQUIRE(rc < 0 || replay.tick - replay.rd.header.start_tick == replay.ticks);
    }
    free(copy);
    return 0;
}
