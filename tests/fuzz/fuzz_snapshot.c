/* fuzz_snapshot.c - libFuzzer harness for the snapshot decoder: a client's
 * receiver fed hostile entity sections, its frames and counters checked,
 * and a second receiver decoding through schema plans agreeing with it. */
/* FUZZ_FLAGS: -DZL_MAX_ENTITIES=64 -DZL_SNAPSHOT_FRAMES=8
 * (tools/fuzz.sh passes them: the layout below has 16 players, so 64
 * entities still leave 48 things, and each accepted section's frame check
 * walks a quarter of the default 256; twice the executions per second.) */
#include <string.h>

#include "zl_fuzz.h"

#include "zl_snapshot.h"

/* Two small schemas using every field kind, a delta-coded field, a
 * client-only one, coarser grids for other clients and extrapolated fields
 * (with a teleport counter), so every decoding path is reachable. */
typedef struct fz_player {
    zl_vec3 origin;
    zl_angle yaw;
    uint16_t ammo;
    uint8_t flags;
    int8_t lean;
    uint16_t local;
} fz_player;

typedef struct fz_thing {
    zl_fx x, y;
    uint32_t counter;
} fz_thing;

static const zl_field fz_player_fields[] = {
    ZL_FIELD_FX(fz_player, origin.x, -4096, 4095, 5, ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_FX_SHARED(fz_player, origin.y, -4096, 4095, 5, 3,
                       ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_FX(fz_player, origin.z, -512, 511, 3, ZL_INTERP_LINEAR | ZL_DELTA),
    ZL_FIELD_ANGLE_SHARED(fz_player, yaw, 12, 9, ZL_INTERP_ARC | ZL_EXTRAPOLATE),
    ZL_FIELD_INT(fz_player, ammo, 0, 500, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_FLAGS(fz_player, flags, 5, ZL_INTERP_STEP | ZL_TELEPORT),
    ZL_FIELD_INT(fz_player, lean, -90, 90, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(fz_player, local, 0, 1000, ZL_INTERP_STEP | ZL_LOCAL),
};
static const zl_field fz_thing_fields[] = {
    ZL_FIELD_FX(fz_thing, x, -4096, 4095, 4, ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_FX(fz_thing, y, -4096, 4095, 4, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(fz_thing, counter, 0, INT32_MAX, ZL_INTERP_STEP | ZL_DELTA),
};
static const zl_schema fz_player_schema = ZL_SCHEMA(fz_player, fz_player_fields);
static const zl_schema fz_thing_schema = ZL_SCHEMA(fz_thing, fz_thing_fields);
static const zl_snapshot_layout fz_layout = {&fz_player_schema, &fz_thing_schema, 16, NULL,
                                                NULL};
/* The same layout decoded through prepared schemas, as zl_client does: it
 * must give the walk's results exactly. */
static zl_schema_plan fz_plans[2];
static zl_snapshot_layout fz_planned;

/* The input is a series of records, each one entity section arriving:
 *   byte 0     how far its tick is past the previous record's (0: the same
 *              tick again, which must be refused once a frame exists)
 *   bytes 1-2  section length, little-endian, low 11 bits; cut to what the
 *              input still has; the top bit: the message header's delta
 *              bit (the section has a base)
 *   then       the section
 * Each section is copied into a buffer of exactly its length, so
 * AddressSanitizer catches a read past its end. */

static zl_snapshot_receiver the_rx, the_planned_rx;

/* Every frame the receiver reports is self-consistent: its count is its
 * number of present entities and their bytes outside the wire fields are
 * zero (a frame holds only what was sent). */
static void check_frame(const zl_snapshot_frame *f, uint32_t tick)
{
    uint32_t e, count = 0;
    REQUIRE(f->tick == tick);
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const uint8_t *state = (const uint8_t *)zl_snapshot_frame_state(f, (uint16_t)e);
        const zl_schema *s = e < fz_layout.players ? &fz_player_schema : &fz_thing_schema;
        uint8_t copy[ZL_STATE_MAX];
        if (!state)
            continue;
        count++;
        /* Quantising a received state changes nothing (it is on the grid),
         * and the bytes past the struct are zero. */
        memcpy(copy, state, ZL_STATE_MAX);
        zl_schema_quantize(s, copy);
        REQUIRE(memcmp(copy, state, ZL_STATE_MAX) == 0);
        REQUIRE(s->size == ZL_STATE_MAX || state[s->size] == 0);
    }
    REQUIRE(count == f->count);
}

/* The walk's frame and the plans' hold the same entities, bit for bit. */
static int same_frames(const zl_snapshot_frame *a, const zl_snapshot_frame *b)
{
    uint32_t e;
    if (!a || !b)
        return a == b;
    if (a->count != b->count || memcmp(a->present, b->present, sizeof a->present) != 0)
        return 0;
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const void *sa = zl_snapshot_frame_state(a, (uint16_t)e);
        if (sa && memcmp(sa, zl_snapshot_frame_state(b, (uint16_t)e), ZL_STATE_MAX) != 0)
            return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t tick = 1000, calls = 0, ok = 0, errors = 0;
    size_t at = 0;
    if (!fz_planned.player_schema) {
        REQUIRE(zl_schema_plan_init(&fz_plans[0], &fz_player_schema) == ZL_OK);
        REQUIRE(zl_schema_plan_init(&fz_plans[1], &fz_thing_schema) == ZL_OK);
        fz_planned = fz_layout;
        fz_planned.player_plan = &fz_plans[0];
        fz_planned.entity_plan = &fz_plans[1];
    }
    zl_snapshot_receiver_init(&the_rx);
    zl_snapshot_receiver_init(&the_planned_rx);
    while (at + 3 <= size) {
        uint32_t advance = data[at];
        size_t len = (size_t)(data[at + 1] | (data[at + 2] << 8)) & 0x7FFu;
        int delta = data[at + 2] >> 7; /* the header's delta bit */
        const zl_snapshot_frame *f = &the_rx.frame[0]; /* the read must reset it */
        const zl_snapshot_frame *pf;
        uint32_t refused = the_rx.refused_old;
        zl_bitreader r;
        uint8_t *copy;
        int res;
        at += 3;
        if (len > size - at)
            len = size - at;
        tick += advance;
        copy = zl_fuzz_copy(data + at, len);
        at += len;
        zl_bitreader_init(&r, copy, len);
        res = zl_snapshot_read(&the_rx, &fz_layout, tick, delta, 0, &r, &f);
        zl_bitreader_init(&r, copy, len);
        REQUIRE(zl_snapshot_read(&the_planned_rx, &fz_planned, tick, delta, 0, &r, &pf) == res);
        REQUIRE(same_frames(f, pf));
        calls++;
        if (res == ZL_OK) {
            ok++;
            REQUIRE(f != NULL);
            REQUIRE(the_rx.have_newest && the_rx.newest == tick);
            check_frame(f, tick);
        } else {
            errors++;
            REQUIRE(f == NULL);
            REQUIRE(res == ZL_ERR_DUPLICATE || res == ZL_ERR_AGAIN || res == ZL_ERR_MALFORMED ||
                    res == ZL_ERR_OVERFLOW);
            REQUIRE((res == ZL_ERR_DUPLICATE) == (the_rx.refused_old == refused + 1u));
            REQUIRE(res != ZL_ERR_AGAIN || the_rx.need_full);
        }
        free(copy);
        REQUIRE(the_rx.refused_old + the_rx.missing_base + the_rx.malformed == errors);
    }
    REQUIRE(ok + errors == calls);
    return 0;
}
