/* zl_snapshot_read.c - the client side of snapshots: decodes an entity section
 * against a kept frame into a new one; hostile bytes give errors, never harm. */
#include "zl_snapshot_wire.h"

#include <string.h>

const void *zl_snapshot_frame_state(const zl_snapshot_frame *f, uint16_t entity)
{
    ZL_ASSERT(f != NULL);
    if (entity >= ZL_MAX_ENTITIES || !bit_get(f->present, entity))
        return NULL;
    return f->states[entity];
}

uint32_t zl_snapshot_frame_hash(const zl_snapshot_frame *f, const zl_snapshot_layout *layout,
                                uint32_t hash)
{
    uint32_t e;
    ZL_ASSERT(f != NULL && layout != NULL);
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const zl_schema *schema = e < layout->players ? layout->player_schema
                                                      : layout->entity_schema;
        uint8_t number[2];
        if (!bit_get(f->present, e) || !schema)
            continue;
        /* The entity's number, then its state. */
        number[0] = (uint8_t)e;
        number[1] = (uint8_t)(e >> 8);
        hash = (hash ^ number[0]) * 16777619u;
        hash = (hash ^ number[1]) * 16777619u;
        hash = zl_schema_hash(schema, f->states[e], ZL_SCHEMA_WIRE, hash);
    }
    return hash;
}

void zl_snapshot_receiver_init(zl_snapshot_receiver *rx)
{
    ZL_ASSERT(rx != NULL);
    memset(rx->valid, 0, sizeof rx->valid);
    rx->newest = 0;
    rx->executed = 0;
    rx->have_newest = 0;
    rx->need_full = 0;
    rx->refused_old = 0;
    rx->missing_base = 0;
    rx->malformed = 0;
}

static int find_frame(const zl_snapshot_receiver *rx, uint32_t tick)
{
    int i;
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++)
        if (rx->valid[i] && rx->frame[i].tick == tick)
            return i;
    return -1;
}

/* The slot a new frame takes: a free one, else the oldest but the base
 * and the extrapolation's older frame. */
static int victim_frame(const zl_snapshot_receiver *rx, int base, int older)
{
    int i, best = -1;
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++) {
        if (i == base || i == older)
            continue;
        if (!rx->valid[i])
            return i;
        if (best < 0 || tick_diff(rx->frame[i].tick, rx->frame[best].tick) < 0)
            best = i;
    }
    return best;
}

static void malformed(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

/* The extrapolation of the entries: the older frame and the ticks from
 * it to the base (behind) and from the base to the snapshot (ahead). */
typedef struct extrapolation {
    const zl_snapshot_frame *older; /* NULL: none */
    uint32_t ahead, behind;
} extrapolation;

/* Applies the entries to f, a copy of the base frame or an empty one: an
 * entity f holds can only be in the base. An update is coded against
 * its base state extrapolated from its state in the older frame, when
 * that frame holds the entity. */
static void read_entries(const zl_snapshot_layout *layout, uint16_t own_entity, zl_bitreader *r,
                         zl_snapshot_frame *f, const extrapolation *x)
{
    uint32_t predicted[ZL_STATE_MAX / 4];
    uint32_t count = count_of(read_golomb(r, count_wide()), f->count);
    uint32_t e = 0, i;
    if (count > ZL_MAX_ENTITIES)
        malformed(r);
    for (i = 0; i < count && r->error == ZL_OK; i++) {
        const zl_schema *schema;
        const zl_schema_plan *plan;
        uint8_t *state;
        const void *base;
        int against_base = 0, which, held;
        zl_moved moved;
        const zl_moved *moves;
        /* The head (9.3): 1 the next number, entering or changed; 01 the
         * next number, another kind; 00 a gap less 1. */
        int joint = zl_bitreader_bool(r);
        uint32_t gap = joint || zl_bitreader_bool(r) ? 0u : read_gap(r) + 1u;
        e += gap + (i > 0 ? 1u : 0u);
        if (r->error != ZL_OK)
            return;
        schema = e < ZL_MAX_ENTITIES ? schema_of(layout, e) : NULL;
        if (!schema) {
            malformed(r);
            return;
        }
        state = (uint8_t *)f->states[e];
        /* The kind (9.3): 1 changed, 01 the same, 001 full, 000 leaves;
         * a joint head stands for its 1, after a gap of 0 it is not 1. */
        if (bit_get(f->present, e)) {
            if (joint || (gap != 0 && zl_bitreader_bool(r))) {
                against_base = 1;
            } else if (zl_bitreader_bool(r)) {
                against_base = 2;
            } else if (!zl_bitreader_bool(r)) {
                bit_clear(f->present, e);
                f->count--;
                continue;
            }
        } else if (!joint && gap == 0) {
            malformed(r); /* an entering next number has a joint head */
            return;
        } else {
            bit_set(f->present, e);
            f->count++;
        }
        if (!against_base)
            memset(state, 0, ZL_STATE_MAX);
        base = against_base ? state : NULL;
        plan = e < layout->players ? layout->player_plan : layout->entity_plan;
        held = against_base && x->older && bit_get(x->older->present, e);
        /* A change against a base the older frame also holds: its moved set. */
        moves = NULL;
        if (held && against_base == 1) {
            zl_schema_moved(schema, state, x->older->states[e], fields_for(e, own_entity), &moved);
            moves = &moved;
        }
        if (held &&
            (plan ? zl_schema_plan_extrapolate(plan, predicted, state, x->older->states[e],
                                               x->ahead, x->behind, fields_for(e, own_entity))
                  : zl_schema_extrapolate(schema, predicted, state, x->older->states[e],
                                          x->ahead, x->behind, fields_for(e, own_entity))))
            base = predicted;
        if (against_base == 2) { /* nothing changed: the base as extrapolated */
            if (base != state)
                memcpy(state, base, schema->size);
            continue;
        }
        /* An update's code leaves out its changed bit. */
        which = fields_for(e, own_entity) | (against_base ? ZL_SCHEMA_CHANGED : 0);
        if (plan)
            zl_schema_plan_read_moved(plan, r, base, state, which, moves);
        else
            zl_schema_read_moved(schema, r, base, state, which, moves);
    }
}

int zl_snapshot_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout, uint32_t tick,
                     int has_base, uint16_t own_entity, zl_bitreader *r,
                     const zl_snapshot_frame **out)
{
    int base = -1, older = -1, slot;
    extrapolation x = {NULL, 0, 0};
    zl_snapshot_frame *f;
    ZL_ASSERT(rx != NULL && layout != NULL && r != NULL && out != NULL);
    *out = NULL;
    if (rx->have_newest && tick_diff(tick, rx->newest) <= 0) {
        rx->refused_old++;
        return ZL_ERR_DUPLICATE;
    }
    if (has_base) {
        uint32_t age = zl_bitreader_bits(r, age_bits());
        uint32_t pred_age = read_older(r, age);
        if (age == 0 || (pred_age != 0 && age + pred_age >= older_limit()))
            malformed(r);
        if (r->error == ZL_OK) {
            base = find_frame(rx, tick - age);
            older = pred_age ? find_frame(rx, tick - age - pred_age) : -1;
            if (base < 0 || (pred_age && older < 0)) {
                rx->missing_base++;
                rx->need_full = 1;
                return ZL_ERR_AGAIN;
            }
            x.ahead = age;
            x.behind = pred_age;
        }
    }
    if (r->error != ZL_OK) {
        rx->malformed++;
        return r->error;
    }
    slot = victim_frame(rx, base, older);
    x.older = older >= 0 ? &rx->frame[older] : NULL;
    f = &rx->frame[slot];
    rx->valid[slot] = 0;
    if (base >= 0) {
        const zl_snapshot_frame *b = &rx->frame[base];
        uint32_t e;
        memcpy(f->present, b->present, sizeof f->present);
        /* Only present states: the cost follows the entities, not the
         * capacity. */
        for (e = 0; e < ZL_MAX_ENTITIES; e++)
            if (bit_get(b->present, e))
                memcpy(f->states[e], b->states[e], sizeof f->states[e]);
        f->count = b->count;
        f->events = b->events;
    } else {
        memset(f->present, 0, sizeof f->present);
        memset(&f->events, 0, sizeof f->events);
        f->count = 0;
    }
    read_entries(layout, own_entity, r, f, &x);
    if (r->error != ZL_OK) {
        rx->malformed++;
        return r->error;
    }
    f->tick = tick;
    rx->valid[slot] = 1;
    rx->newest = tick;
    rx->have_newest = 1;
    if (!has_base)
        rx->need_full = 0;
    *out = f;
    return ZL_OK;
}

zl_snapshot_frame *zl_snapshot_receiver_add(zl_snapshot_receiver *rx, uint32_t tick)
{
    int slot;
    zl_snapshot_frame *f;
    ZL_ASSERT(rx != NULL);
    if (rx->have_newest && tick_diff(tick, rx->newest) <= 0)
        return NULL;
    slot = victim_frame(rx, -1, -1);
    f = &rx->frame[slot];
    memset(f->present, 0, sizeof f->present);
    memset(&f->events, 0, sizeof f->events);
    f->count = 0;
    f->tick = tick;
    rx->valid[slot] = 1;
    rx->newest = tick;
    rx->have_newest = 1;
    return f;
}

void *zl_snapshot_frame_put(zl_snapshot_frame *f, uint16_t entity)
{
    ZL_ASSERT(f != NULL);
    if (entity >= ZL_MAX_ENTITIES)
        return NULL;
    if (!bit_get(f->present, entity)) {
        bit_set(f->present, entity);
        f->count++;
    }
    memset(f->states[entity], 0, ZL_STATE_MAX);
    return f->states[entity];
}

const zl_snapshot_frame *zl_snapshot_receiver_next(const zl_snapshot_receiver *rx,
                                                   const zl_snapshot_frame *prev)
{
    int i, best = -1;
    ZL_ASSERT(rx != NULL);
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++) {
        if (!rx->valid[i] || (prev && tick_diff(rx->frame[i].tick, prev->tick) <= 0))
            continue;
        if (best < 0 || tick_diff(rx->frame[i].tick, rx->frame[best].tick) < 0)
            best = i;
    }
    return best < 0 ? NULL : &rx->frame[best];
}
