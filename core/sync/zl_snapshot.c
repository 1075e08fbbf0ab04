/* zl_snapshot.c - the server side of snapshots: the world history, each
 * client's sent records and baseline, and the writer that fills a budget by priority. */
#include "zl_snapshot_wire.h"

#include <string.h>

/* What an entity needs in this snapshot. */
enum { OP_NONE, OP_KEEP, OP_UPDATE, OP_FULL, OP_ENTER, OP_LEAVE };

/* ---- world history ---- */

void zl_snapshot_world_init(zl_snapshot_world *w)
{
    uint32_t i;
    ZL_ASSERT(w != NULL);
    w->newest = 0;
    w->started = 0;
    w->codes_valid = 0;
    w->contents = 0;
    w->plan[0].schema = NULL;
    w->plan[1].schema = NULL;
    for (i = 0; i < ZL_SNAPSHOT_WORLD_TICKS; i++)
        w->slot[i].used = 0;
}

void zl_snapshot_world_begin(zl_snapshot_world *w, uint32_t tick)
{
    zl_snapshot_world_slot *s = &w->slot[tick & (ZL_SNAPSHOT_WORLD_TICKS - 1u)];
    ZL_ASSERT(!w->started || tick_diff(tick, w->newest) > 0);
    w->newest = tick;
    w->started = 1;
    w->codes_valid = 0;
    s->tick = tick;
    s->used = 1;
    memset(s->present, 0, sizeof s->present);
}

/* The world's plan for schema: the player's, or the one other schema's the
 * world last met (a game with several others re-prepares it as it sets
 * states, and writers then walk the others' tables). */
static zl_schema_plan *plan_slot(zl_snapshot_world *w, const zl_snapshot_layout *layout,
                                 const zl_schema *schema)
{
    return &w->plan[schema == layout->player_schema ? 0 : 1];
}

/* Copies state's wire fields into the tick being recorded, quantised
 * unless the caller vouches that they are already. */
static void world_store(zl_snapshot_world *w, const zl_snapshot_layout *layout, uint16_t entity,
                        const void *state, int quantize)
{
    zl_snapshot_world_slot *s = &w->slot[w->newest & (ZL_SNAPSHOT_WORLD_TICKS - 1u)];
    const zl_schema *schema;
    zl_schema_plan *plan;
    ZL_ASSERT(w->started && layout != NULL && state != NULL && entity < ZL_MAX_ENTITIES);
    schema = schema_of(layout, entity);
    ZL_ASSERT(schema != NULL && schema->size <= ZL_STATE_MAX);
    plan = plan_slot(w, layout, schema);
    if (plan->schema != schema)
        (void)zl_schema_plan_init(plan, schema); /* a schema too large is walked */
    /* A canonical copy (padding and local fields zero) lets memcmp decide
     * "unchanged", and equals byte for byte what the client rebuilds. */
    w->codes_valid = 0; /* a code may describe the state replaced here */
    memset(s->states[entity], 0, sizeof s->states[entity]);
    zl_schema_plan_copy(plan, s->states[entity], state, ZL_SCHEMA_WIRE);
    if (quantize)
        zl_schema_plan_quantize(plan, s->states[entity]);
    bit_set(s->present, entity);
}

void zl_snapshot_world_set(zl_snapshot_world *w, const zl_snapshot_layout *layout,
                           uint16_t entity, const void *state)
{
    world_store(w, layout, entity, state, 1);
}

void zl_snapshot_world_set_quantized(zl_snapshot_world *w, const zl_snapshot_layout *layout,
                                     uint16_t entity, const void *state)
{
    world_store(w, layout, entity, state, 0);
}

static const zl_snapshot_world_slot *world_slot(const zl_snapshot_world *w, uint32_t tick)
{
    const zl_snapshot_world_slot *s = &w->slot[tick & (ZL_SNAPSHOT_WORLD_TICKS - 1u)];
    int32_t behind = tick_diff(w->newest, tick);
    if (!w->started || behind < 0 || behind >= (int32_t)ZL_SNAPSHOT_WORLD_TICKS || !s->used ||
        s->tick != tick)
        return NULL;
    return s;
}

const void *zl_snapshot_world_state(const zl_snapshot_world *w, uint32_t tick, uint16_t entity)
{
    const zl_snapshot_world_slot *s;
    ZL_ASSERT(w != NULL);
    s = world_slot(w, tick);
    if (!s || entity >= ZL_MAX_ENTITIES || !bit_get(s->present, entity))
        return NULL;
    return s->states[entity];
}

/* ---- server: one client's records ---- */

void zl_snapshot_client_reset(zl_snapshot_client *c)
{
    ZL_ASSERT(c != NULL);
    memset(c, 0, sizeof *c);
    c->baseline = -1;
}

int zl_snapshot_client_holds(const zl_snapshot_client *c, uint16_t entity)
{
    ZL_ASSERT(c != NULL && c->written > 0 && entity < ZL_MAX_ENTITIES);
    return client_holds(c, entity);
}

void zl_snapshot_acked(zl_snapshot_client *c, uint16_t packet_sequence)
{
    uint32_t i;
    ZL_ASSERT(c != NULL);
    for (i = 0; i < ZL_SNAPSHOT_SENT; i++) {
        const zl_snapshot_record *rec = &c->record[i];
        if (!rec->used || rec->sequence != packet_sequence)
            continue;
        c->record[i].acked = 1;
        /* Serials only grow, so "newer" is exact even when acks reorder. */
        if (c->baseline < 0 || rec->serial - c->record[c->baseline].serial - 1u < 0x7FFFFFFFu)
            c->baseline = (int32_t)i;
        return;
    }
}

void zl_snapshot_client_hold_only_baseline(zl_snapshot_client *c)
{
    uint32_t i;
    ZL_ASSERT(c != NULL);
    for (i = 0; i < ZL_SNAPSHOT_SENT; i++)
        c->record[i].acked = (uint8_t)((int32_t)i == c->baseline);
}

/* The baseline if the client can still be sent a delta against it: the
 * ring slot the new record takes must not be its own, and its age must be
 * codable (which also keeps it inside the world history). */
static const zl_snapshot_record *usable_baseline(const zl_snapshot_client *c, uint32_t tick)
{
    const zl_snapshot_record *base;
    int32_t age;
    if (c->baseline < 0)
        return NULL;
    base = &c->record[c->baseline];
    age = tick_diff(tick, base->tick);
    if (c->written - base->serial >= ZL_SNAPSHOT_SENT || age <= 0 ||
        age >= (int32_t)ZL_SNAPSHOT_WORLD_TICKS)
        return NULL;
    return base;
}

/* Snapshots written since the older one, at most: a client keeping
 * ZL_SNAPSHOT_FRAMES frames (the server's own build's; both ends are
 * built alike) has decoded fewer after it than that, so still holds it. */
#define PRED_BACK (ZL_SNAPSHOT_FRAMES < ZL_SNAPSHOT_SENT ? ZL_SNAPSHOT_FRAMES : ZL_SNAPSHOT_SENT)

/* The acknowledged snapshot moving fields are extrapolated from, with the
 * baseline: the client decoded it (it acknowledges nothing else) and
 * still holds it (PRED_BACK). Of those before the baseline, within
 * older_limit(), the one whose distance to the baseline is nearest the
 * baseline's to this tick (the newer on a tie): the extrapolation then
 * spans about what it covers. Ticks grow with serials, so going back from
 * the newest the distance only grows, and the first acknowledged one at
 * least as far back as ahead ends the search. NULL when none. */
static const zl_snapshot_record *usable_pred(const zl_snapshot_client *c, uint32_t tick,
                                             const zl_snapshot_record *base)
{
    const zl_snapshot_record *best = NULL;
    int32_t ahead = tick_diff(tick, base->tick), best_miss = 0;
    uint32_t back;
    for (back = 1; back < PRED_BACK && back <= c->written; back++) {
        const zl_snapshot_record *rec = &c->record[(c->written - back) % ZL_SNAPSHOT_SENT];
        int32_t behind = tick_diff(base->tick, rec->tick), miss;
        if (!rec->used || rec->serial != c->written - back ||
            ahead + behind >= (int32_t)older_limit())
            break;
        if (behind <= 0 || !rec->acked)
            continue;
        miss = behind > ahead ? behind - ahead : ahead - behind;
        if (!best || miss < best_miss) {
            best = rec;
            best_miss = miss;
        }
        if (behind >= ahead)
            break;
    }
    return best;
}

const zl_snapshot_record *zl_snapshot_client_base(const zl_snapshot_client *c, uint32_t tick)
{
    ZL_ASSERT(c != NULL);
    return usable_baseline(c, tick);
}

/* The world state the client holds for an entity of the baseline, or NULL
 * when that tick has left the history. Most were sent in the baseline
 * itself, whose slot is at hand. */
static inline const void *base_state(const zl_snapshot_world *w, const zl_snapshot_world_slot *base_slot,
                                     const zl_snapshot_record *base, uint16_t entity)
{
    uint16_t age = base->age[entity];
    const zl_snapshot_world_slot *s = age == 0 && base_slot ? base_slot
                                      : age < ZL_SNAPSHOT_AGED ? world_slot(w, base->tick - age)
                                                               : NULL;
    return s && bit_get(s->present, entity) ? s->states[entity] : NULL;
}

static uint32_t add_saturated(uint32_t a, uint32_t b, uint32_t max)
{
    return b > max - a ? max : a + b;
}

/* Highest key first; a key never changes while sorting. */
#define KEY_OWN 0xFFFFFFFFu
#define KEY_LEAVE 0xFFFFFFFEu
#define KEY_ACCUM_MAX 0xFFFFFFFDu

/* Entry bits of a section by kind, for the stats: gap codes, the entries
 * that update or enter (gap, kind and state code), and of those the own
 * entity's. */
typedef struct entry_bits {
    uint32_t number, update, enter, own;
} entry_bits;

/* Words of a map with a bit per entity. */
#define MAP_WORDS ZL_SNAPSHOT_MAP_WORDS
ZL_STATIC_ASSERT(OP_LEAVE + 1 == ZL_SNAPSHOT_OPS, ops_counted);

/* Words of the chosen set: a zero word, the entities' words, and zero
 * words up to the one holding bit ZL_MAX_ENTITIES + 64. */
#define CHOSEN_WORDS (ZL_MAX_ENTITIES / 32 + 3)

/* Everything one zl_snapshot_write works with. */
typedef struct writer_job {
    zl_snapshot_client *c;
    zl_snapshot_world *w;
    const zl_snapshot_layout *layout;
    const zl_snapshot_world_slot *now;
    const zl_snapshot_record *base;
    const zl_snapshot_world_slot *base_slot; /* the baseline's tick, or NULL */
    const zl_snapshot_record *pred; /* the older acknowledged one (usable_pred), or NULL */
    const zl_snapshot_world_slot *pred_slot; /* its tick, or NULL */
    uint32_t base_count; /* entities the client holds in the base, 0 without one */
    uint32_t tick;
    uint16_t own;
    uint8_t listed;   /* 1: a relevance list says what is wanted */
    uint32_t content; /* the run the new record holds the entities of, or 0 */
    uint8_t accrued;  /* 0: every accumulator is still 0 (a twin's, unless owed) */
    uint8_t op[ZL_MAX_ENTITIES];
    /* Of each update, how far before the tick lies the older state its
     * base is extrapolated from (pred_state_age, 0: none), found once. */
    uint16_t pfrom[ZL_MAX_ENTITIES];
    uint32_t op_map[OP_LEAVE + 1][MAP_WORDS]; /* the entities of each op */
    uint16_t size[ZL_MAX_ENTITIES]; /* entry body bits (kind and state code) of each candidate */
    uint8_t joint[ZL_MAX_ENTITIES]; /* 1: a changed update, whose kind a head of gap 0 stands for */
    uint16_t cand[ZL_MAX_ENTITIES]; /* entries to consider, ascending */
    /* 1 + the index in the world's codes of each candidate's entry body,
     * as measuring found it (0: none, the codes were full). */
    uint16_t code_at[ZL_MAX_ENTITIES];
    entry_bits bits; /* of the section written */
    uint32_t cand_count;
    /* The chosen entries, entity e at bit e + 32: the zero words around
     * them let a 32-entity window on either side of any entity be read
     * without checks. */
    uint32_t chosen[CHOSEN_WORDS];
    /* Entities wanted or held, by bitmap byte: a zero byte is 8 entities
     * with nothing to do, which classify skips. */
    uint8_t any[ZL_SNAPSHOT_BITMAP_BYTES];
} writer_job;

/* The older state gone from the world history (pred_state_age). */
#define PRED_GONE 0xFFFFu

/* How far before this tick lies the state the client holds of e in the
 * extrapolation's older frame (2 or more): 0 when that frame holds no e (or
 * there is none), PRED_GONE when the state has left the world history. */
static uint16_t pred_state_age(const writer_job *j, uint16_t e)
{
    uint16_t age;
    const zl_snapshot_world_slot *s;
    if (!j->pred || !bit_get(j->pred->held, e))
        return 0;
    age = j->pred->age[e];
    /* Most were sent in that snapshot itself, whose slot is at hand. */
    s = age == 0 && j->pred_slot ? j->pred_slot
        : age < ZL_SNAPSHOT_AGED ? world_slot(j->w, j->pred->tick - age)
                                 : NULL;
    return s && bit_get(s->present, e) ? (uint16_t)(j->tick - (j->pred->tick - age)) : PRED_GONE;
}

/* The older frame's distance before the baseline, 0 for none. */
static uint32_t pred_age(const writer_job *j)
{
    return j->pred ? j->base->tick - j->pred->tick : 0u;
}

/* How far before this tick lies the older state e's base is extrapolated
 * from, 0 for none (op_for made an update whose older state is gone a
 * full entry). Codes and runs are per tick, so this names the state. */
static uint16_t pfrom_of(const writer_job *j, uint16_t e)
{
    return j->op[e] == OP_UPDATE ? j->pfrom[e] : 0u;
}

/* Bits of the section's prefix for `count` entries. */
static unsigned header_bits(const writer_job *j, uint32_t count)
{
    unsigned bits = golomb_cost(count_code(count, j->base_count), count_wide());
    if (j->base)
        bits += age_bits() + older_cost(pred_age(j), j->tick - j->base->tick);
    return bits;
}

/* The most header_bits can be, whatever the count. */
static unsigned header_bits_max(const writer_job *j)
{
    return GOLOMB_ESCAPE + count_wide() +
           (j->base ? age_bits() + older_cost(pred_age(j), j->tick - j->base->tick) : 0u);
}

static void write_header(const writer_job *j, zl_bitwriter *bw, uint32_t count)
{
    if (j->base) {
        zl_bitwriter_bits(bw, j->tick - j->base->tick, age_bits());
        (void)write_older(bw, pred_age(j), j->tick - j->base->tick);
    }
    (void)write_golomb(bw, count_code(count, j->base_count), count_wide());
}

/* The kind of an entry ahead of its state code (stream order): 1 an
 * update against the base with something changed, whose state code leaves
 * out its changed bit; 01 an update with nothing changed (no code
 * follows); 001 a state against zero although the client holds one; 000 a
 * leave; nothing for an entity the client does not hold. An update is
 * written as changed (KIND_CHANGED) and taken back to KIND_SAME when its
 * code finds nothing changed. */
#define KIND_CHANGED 1u
#define KIND_SAME 2u /* 0 then 1 */
static void write_kind(zl_bitwriter *bw, uint8_t op)
{
    if (op == OP_UPDATE)
        zl_bitwriter_bits(bw, KIND_CHANGED, 1);
    else if (op != OP_ENTER)
        zl_bitwriter_bits(bw, op == OP_FULL ? 4u : 0u, 3);
}

/* The state e's base is extrapolated from (pfrom_of not 0). */
static const void *pred_state(const writer_job *j, uint16_t e)
{
    return world_slot(j->w, j->tick - pfrom_of(j, e))->states[e];
}

/* e's state code after its kind (9.3): an update's without its changed
 * bit, 0 bits when nothing changed. Returns its bits or the writer's
 * error. */
static int write_code(const writer_job *j, zl_bitwriter *bw, uint16_t e)
{
    const zl_schema *schema;
    const zl_schema_plan *plan;
    const void *base;
    uint32_t predicted[ZL_STATE_MAX / 4];
    uint8_t op = j->op[e];
    int which = fields_for(e, j->own) | (op == OP_UPDATE ? ZL_SCHEMA_CHANGED : 0);
    schema = schema_of(j->layout, e);
    plan = plan_slot(j->w, j->layout, schema);
    base = op == OP_UPDATE ? base_state(j->w, j->base_slot, j->base, e) : NULL;
    if (plan->schema != schema) {
        zl_moved moved;
        const zl_moved *moves = NULL;
        if (pfrom_of(j, e) != 0) {
            zl_schema_moved(schema, base, pred_state(j, e), fields_for(e, j->own), &moved);
            moves = &moved;
            if (zl_schema_extrapolate(schema, predicted, base, pred_state(j, e),
                                      j->tick - j->base->tick, pred_age(j),
                                      fields_for(e, j->own)))
                base = predicted;
        }
        return zl_schema_write_moved(schema, bw, base, j->now->states[e], which, moves);
    }
    if (pfrom_of(j, e) != 0)
        return zl_schema_plan_write_extrapolated(plan, bw, base, pred_state(j, e),
                                                 j->tick - j->base->tick, pred_age(j),
                                                 j->now->states[e], which);
    return zl_schema_plan_write_delta(plan, bw, base, j->now->states[e], which);
}

/* Writes e's entry after its gap: the kind, then the state code (none for
 * a leave or an unchanged update). Returns the state code's bits or the
 * writer's error. */
static int write_body(const writer_job *j, zl_bitwriter *bw, uint16_t e)
{
    uint32_t start = zl_bitwriter_bits_used(bw);
    int n;
    write_kind(bw, j->op[e]);
    if (j->op[e] == OP_LEAVE)
        return bw->error;
    n = write_code(j, bw, e);
    if (n == 0 && j->op[e] == OP_UPDATE) {
        zl_bitwriter_rewind(bw, start);
        zl_bitwriter_bits(bw, KIND_SAME, 2);
    }
    return n;
}

/* The tick of the state e's entry is coded against: 0 for the zero state. */
static uint32_t from_of(const writer_job *j, uint16_t e)
{
    return j->op[e] == OP_UPDATE ? j->base->tick - j->base->age[e] : 0;
}

/* Empties the world's codes, comparisons and run when they describe
 * another tick's states: everything shared between clients is per tick. */
static void codes_for(zl_snapshot_world *w, uint32_t tick)
{
    if (w->codes_valid && w->codes_tick == tick)
        return;
    w->codes_valid = 1;
    w->codes_tick = tick;
    w->code_count = 0;
    w->code_used = 0;
    memset(w->code_head, 0, sizeof w->code_head);
    memset(w->same, 0, sizeof w->same);
    w->run.valid = 0;
    w->run.hits = 0;
}

/* e's entry body for this client (kind and state code) as the world's
 * codes for the tick hold it (another client's entry started from the
 * same state), or NULL. Inline: every candidate of every client asks. A
 * code found moves to the front of e's list, where the next client with
 * the same baseline finds it first. */
static inline const zl_snapshot_code *find_code(const writer_job *j, uint16_t e, uint8_t op,
                                                uint8_t which, uint32_t from, uint16_t pfrom)
{
    uint8_t ahead = pfrom ? (uint8_t)(j->tick - j->base->tick) : 0u;
    uint8_t behind = pfrom ? (uint8_t)pred_age(j) : 0u;
    zl_snapshot_world *w = j->w;
    uint16_t i, before = 0;
    for (i = w->code_head[e]; i != 0; before = i, i = w->code[i - 1u].next) {
        zl_snapshot_code *code = &w->code[i - 1u];
        if (code->op == op && code->which == which && code->from == from &&
            code->pfrom == pfrom && code->ahead == ahead && code->behind == behind) {
            if (before != 0) {
                w->code[before - 1u].next = code->next;
                code->next = w->code_head[e];
                w->code_head[e] = i;
            }
            return code;
        }
    }
    return NULL;
}

/* e's entry body written into the world's codes for the tick, or NULL
 * when the codes are full. */
static const zl_snapshot_code *new_code(const writer_job *j, uint16_t e, uint8_t op,
                                        uint8_t which, uint32_t from, uint16_t pfrom)
{
    zl_snapshot_world *w = j->w;
    zl_snapshot_code *code;
    zl_bitwriter cw;
    int n;
    if (w->code_count == ZL_SNAPSHOT_CODES)
        return NULL;
    zl_bitwriter_init(&cw, w->code_bytes + w->code_used, ZL_SNAPSHOT_CODE_BYTES - w->code_used);
    n = write_body(j, &cw, e);
    if (n < 0)
        return NULL;
    code = &w->code[w->code_count++];
    code->from = from;
    code->pfrom = pfrom;
    code->ahead = pfrom ? (uint8_t)(j->tick - j->base->tick) : 0u;
    code->behind = pfrom ? (uint8_t)pred_age(j) : 0u;
    code->offset = w->code_used;
    code->next = w->code_head[e];
    code->bits = (uint16_t)zl_bitwriter_bits_used(&cw);
    code->state_bits = (uint16_t)n;
    code->op = op;
    code->which = which;
    w->code_head[e] = (uint16_t)w->code_count;
    w->code_used += (zl_bitwriter_bits_used(&cw) + 7u) / 8u;
    return code;
}

/* e's entry body for this client, found in the world's codes or written
 * there, or NULL when the codes are full. */
static inline const zl_snapshot_code *body_code(const writer_job *j, uint16_t e)
{
    uint8_t op = j->op[e], which = (uint8_t)fields_for(e, j->own);
    uint32_t from = from_of(j, e);
    uint16_t pfrom = pfrom_of(j, e);
    const zl_snapshot_code *code = find_code(j, e, op, which, from, pfrom);
    return code ? code : new_code(j, e, op, which, from, pfrom);
}

/* Bits of the stats' entity numbers in an entry's head: at least 1,
 * the rest pays for the numbers skipped. */
static unsigned number_cost(uint32_t gap)
{
    return gap == 0 ? 1u : 2u + gap_cost(gap - 1u);
}

/* Counts an entry of `op` into t: `gap` before it, `bits` in all, `own`
 * 1 for the own entity's. */
static void tally(entry_bits *t, uint8_t op, uint32_t gap, uint32_t bits, int own)
{
    t->number += number_cost(gap);
    if (own && op != OP_LEAVE)
        t->own = bits;
    if (op == OP_UPDATE)
        t->update += bits;
    else if (op != OP_LEAVE)
        t->enter += bits;
}

/* Writes an entry of `op` after `gap`: its head (9.3), then its body
 * (`bits` at body, `state_bits` of them its state code) less the kind bit
 * the head stands for. Returns the entry's bits. */
static uint32_t write_entry_body(zl_bitwriter *bw, uint32_t gap, uint8_t op, const uint8_t *body,
                                 uint32_t bits, uint32_t state_bits)
{
    int joint = op == OP_UPDATE && state_bits > 0;
    uint32_t skip;
    if (gap == 0 && (joint || op == OP_ENTER)) {
        zl_bitwriter_bits(bw, 1u, 1);
        skip = (uint32_t)joint;
    } else if (gap == 0) {
        zl_bitwriter_bits(bw, 2u, 2); /* 0 then 1 */
        skip = 1; /* the kind's leading 0 */
    } else {
        zl_bitwriter_bits(bw, 0u, 2);
        (void)write_gap(bw, gap - 1u);
        skip = 0;
    }
    zl_bitwriter_copy_at(bw, body, skip, bits - skip);
    return head_cost(gap, joint) + bits;
}

/* A kind, and every field at most 1 + 39 bits in a state of at most
 * ZL_STATE_MAX fields. */
#define BODY_BYTES (ZL_STATE_MAX * 5 + 8)

/* Writes e's entry after `gap` into bw, its body from the codes when it
 * can, and counts it into t; errors stick in bw. */
static void write_entry(const writer_job *j, zl_bitwriter *bw, uint32_t gap, uint16_t e,
                        entry_bits *t)
{
    /* Measured, so found before; the run's own entity is coded as another
     * client sees it, with other fields. */
    const zl_snapshot_code *code = j->code_at[e] ? &j->w->code[j->code_at[e] - 1u] : NULL;
    uint8_t scratch[BODY_BYTES];
    zl_bitwriter sw;
    int n;
    if (!code || code->which != (uint8_t)fields_for(e, j->own))
        code = body_code(j, e);
    if (code) {
        tally(t, j->op[e], gap,
              write_entry_body(bw, gap, j->op[e], j->w->code_bytes + code->offset, code->bits,
                               code->state_bits),
              e == j->own);
        return;
    }
    zl_bitwriter_init(&sw, scratch, sizeof scratch);
    n = write_body(j, &sw, e); /* the scratch holds any body */
    if (n < 0) {
        if (bw->error == ZL_OK)
            bw->error = n;
        return;
    }
    tally(t, j->op[e], gap,
          write_entry_body(bw, gap, j->op[e], scratch, zl_bitwriter_bits_used(&sw), (uint32_t)n),
          e == j->own);
}

/* Bits of an entry's body (kind and state code), without writing it
 * anywhere; the code found is noted for writing, and whether a head can
 * stand for its kind (joint). */
static uint16_t measure(writer_job *j, uint16_t e)
{
    uint8_t scratch[BODY_BYTES];
    const zl_snapshot_code *code = body_code(j, e);
    zl_bitwriter sw;
    int n;
    j->code_at[e] = code ? (uint16_t)(code - j->w->code + 1) : 0u;
    if (code) {
        j->joint[e] = (uint8_t)(code->op == OP_UPDATE && code->state_bits > 0);
        return code->bits;
    }
    zl_bitwriter_init(&sw, scratch, sizeof scratch);
    n = write_body(j, &sw, e); /* the scratch holds any body */
    j->joint[e] = (uint8_t)(j->op[e] == OP_UPDATE && n > 0);
    return (uint16_t)zl_bitwriter_bits_used(&sw);
}

/* 1 when the client's state of e (ref) needs no update. States are
 * canonical, so equal bytes settle it; otherwise only a difference in
 * fields the entry does not carry (the owner's) leaves nothing to send. */
static int unchanged(const writer_job *j, uint32_t e, const void *ref)
{
    zl_snapshot_world *w = j->w;
    uint32_t from = j->base->tick - j->base->age[e];
    int same;
    if (fields_for(e, j->own) == ZL_SCHEMA_WIRE)
        return memcmp(ref, j->now->states[e], ZL_STATE_MAX) == 0;
    /* Every client holding the same state of e asks the same question. */
    if (w->same[e] != 0 && w->same_from[e] == from)
        return w->same[e] == 1;
    same = memcmp(ref, j->now->states[e], ZL_STATE_MAX) == 0 ||
           zl_schema_equal(schema_of(j->layout, e), ref, j->now->states[e], ZL_SCHEMA_SHARED);
    w->same[e] = (uint8_t)(same ? 1 : 2);
    w->same_from[e] = from;
    return same;
}

/* Entities from e (the first of its bitmap byte, a byte with nothing
 * wanted or held) to the next byte with something, or to the end: one
 * stretch for classify to pass with one memset. */
static uint32_t idle_run(const writer_job *j, uint32_t e)
{
    uint32_t b = (e >> 3) + 1u;
    while (b < ZL_SNAPSHOT_BITMAP_BYTES && !j->any[b])
        b++;
    return (b * 8u < ZL_MAX_ENTITIES ? b * 8u : ZL_MAX_ENTITIES) - e;
}

/* The priority an entry adds per snapshot: at least 1, so it is sent
 * some day. */
static uint32_t weight_at(const uint32_t *priority, uint32_t i)
{
    return priority && priority[i] ? priority[i] : 1u;
}

/* What entity e needs: wanted, it enters or is updated (or kept as the
 * client holds it); not wanted, it leaves if held. */
static inline uint8_t op_for(writer_job *j, uint32_t e, int wanted)
{
    int in_base = j->base && bit_get(j->base->held, e);
    if (wanted && in_base) {
        const void *ref = base_state(j->w, j->base_slot, j->base, (uint16_t)e);
        if (!ref)
            return OP_FULL;
        if (unchanged(j, e, ref))
            return OP_KEEP;
        j->pfrom[e] = pred_state_age(j, (uint16_t)e);
        return j->pfrom[e] == PRED_GONE ? OP_FULL : OP_UPDATE;
    }
    if (wanted)
        return OP_ENTER;
    return in_base ? OP_LEAVE : OP_NONE;
}

/* Sorts out what each entity needs and accumulates priorities. Without a
 * relevance list every present entity is wanted, its priority at its
 * number, and the pass over the entities accumulates. */
static void classify(writer_job *j, const uint16_t *relevant, int relevant_count,
                     const uint32_t *priority)
{
    uint8_t want[ZL_SNAPSHOT_BITMAP_BYTES];
    zl_snapshot_client *c = j->c;
    uint32_t e, b;
    int i;
    if (!relevant) {
        memcpy(want, j->now->present, sizeof want);
    } else {
        memset(want, 0, sizeof want);
        for (i = 0; i < relevant_count; i++) {
            uint32_t n = relevant[i];
            if (n >= ZL_MAX_ENTITIES || !bit_get(j->now->present, n))
                continue;
            bit_set(want, n);
            c->accum[n] = add_saturated(c->accum[n], weight_at(priority, (uint32_t)i),
                                        KEY_ACCUM_MAX);
        }
        if (j->own < ZL_MAX_ENTITIES && bit_get(j->now->present, j->own))
            bit_set(want, j->own);
    }

    j->cand_count = 0;
    memset(j->op_map, 0, sizeof j->op_map);
    for (b = 0; b < ZL_SNAPSHOT_BITMAP_BYTES; b++)
        j->any[b] = (uint8_t)(want[b] | (j->base ? j->base->held[b] : 0u));
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        uint8_t op;
        if (!j->any[e >> 3]) {
            uint32_t n = idle_run(j, e);
            memset(j->op + e, OP_NONE, n);
            memset(c->accum + e, 0, n * sizeof c->accum[0]); /* nothing owed */
            e += n - 1u;
            continue;
        }
        op = op_for(j, e, bit_get(want, e));
        j->op[e] = op;
        j->op_map[op][e >> 5] |= 1u << (e & 31u);
        if (op == OP_NONE || op == OP_KEEP || op == OP_LEAVE)
            c->accum[e] = 0; /* nothing owed, or a fixed key */
        else if (!relevant)
            c->accum[e] = add_saturated(c->accum[e], weight_at(priority, e), KEY_ACCUM_MAX);
        if (op != OP_NONE && op != OP_KEEP) {
            j->cand[j->cand_count++] = (uint16_t)e;
            j->code_at[e] = 0; /* not measured yet */
        }
    }
}

/* 1 when this client needs of entity e what the run's first client did. */
static int same_op(writer_job *j, uint16_t e)
{
    return e >= ZL_MAX_ENTITIES ||
           op_for(j, e, bit_get(j->now->present, e)) == j->w->run.op_of[e];
}

/* Sorts out the entities as the run's first client's were when this
 * client holds the same and wants the same (zl_snapshot_run): its needs
 * then differ at most at the two clients' own entities, which are checked.
 * Its accumulators are all 0, and stay so when its section comes from the
 * run (owe() sets them if it does not). Returns 1 when done, 0 to sort out
 * entity by entity. */
static int classify_twin(writer_job *j)
{
    const zl_snapshot_run *run = &j->w->run;
    if (j->listed || j->c->owed || !run->valid || !run->twin || !j->base ||
        j->base->content == 0 || j->base->content != run->base_content ||
        pred_age(j) != run->pred_age ||
        (j->pred && (j->pred->content == 0 || j->pred->content != run->pred_content)))
        return 0;
    if (!same_op(j, j->own) || !same_op(j, run->own))
        return 0;
    memcpy(j->op, run->op_of, sizeof j->op);
    memcpy(j->op_map, run->op_map, sizeof j->op_map);
    memcpy(j->cand, run->entity, run->count * sizeof j->cand[0]);
    j->cand_count = run->count;
    memset(j->code_at, 0, sizeof j->code_at); /* not measured yet */
    memcpy(j->pfrom, run->pfrom_of, sizeof j->pfrom); /* the older states are the same */
    return 1;
}

/* What classify would have accumulated for a twin whose accumulators were
 * all 0, when its section does not come from the run after all. */
static void owe(writer_job *j, const uint32_t *priority)
{
    uint32_t i;
    j->accrued = 1;
    for (i = 0; i < j->cand_count; i++)
        if (j->op[j->cand[i]] != OP_LEAVE) /* a leave's key is fixed */
            j->c->accum[j->cand[i]] = weight_at(priority, j->cand[i]);
}

static uint32_t key_of(const writer_job *j, uint16_t e)
{
    if (e == j->own)
        return KEY_OWN;
    return j->op[e] == OP_LEAVE ? KEY_LEAVE : j->c->accum[e];
}

static void choose_entity(writer_job *j, uint32_t e)
{
    j->chosen[(e >> 5) + 1u] |= 1u << (e & 31u);
}

/* The candidates among entities k * 32 .. k * 32 + 31. */
static uint32_t candidates(const writer_job *j, uint32_t k)
{
    return j->op_map[OP_UPDATE][k] | j->op_map[OP_FULL][k] | j->op_map[OP_ENTER][k] |
           j->op_map[OP_LEAVE][k];
}

/* Chooses every candidate. */
static void choose_all(writer_job *j)
{
    uint32_t k;
    memset(j->chosen, 0, sizeof j->chosen);
    for (k = 0; k < MAP_WORDS; k++)
        j->chosen[k + 1u] = candidates(j, k);
}

/* The 32 bits of the chosen set from bit p (p <= ZL_MAX_ENTITIES + 32).
 * The upper word moves up in two shifts so that none is by 32. */
static uint32_t chosen_window(const writer_job *j, uint32_t p)
{
    uint32_t k = p >> 5, s = p & 31u;
    return j->chosen[k] >> s | (j->chosen[k + 1u] << 1) << (31u - s);
}

/* Nearest chosen entity below e (-1 if none) and above e (-1 if none),
 * looked for only within 32 numbers: any gap of 31 or more takes the
 * escape, whose cost is the same for every length, so a neighbour
 * further away costs what none does (-1 below: a gap of e >= 32). */
static void neighbours(const writer_job *j, uint32_t e, int32_t *below, int32_t *above)
{
    uint32_t lower = chosen_window(j, e);       /* entities e - 32 .. e - 1 */
    uint32_t upper = chosen_window(j, e + 33u); /* entities e + 1 .. e + 32 */
    *below = lower ? (int32_t)(e - 32u + highest_bit(lower)) : -1;
    *above = upper ? (int32_t)(e + 1u + lowest_bit(upper)) : -1;
}

/* Keys told apart by sort_few; more send the sort to merging. */
#define FEW_KEYS 16u

/* sort_by_key for keys of at most FEW_KEYS values, common when every
 * entity gains the same priority per snapshot: the values, highest first,
 * then a counting sort by rank, stable. Returns 0, v untouched, when there
 * are more values. */
static int sort_few(uint16_t *v, uint16_t *tmp, const uint32_t *key, uint32_t n)
{
    uint32_t value[FEW_KEYS], at[FEW_KEYS + 1u];
    uint8_t rank[ZL_MAX_ENTITIES];
    uint32_t kinds = 0, i, r = 0;
    /* Neighbours often share a key: a key like the last one's is not
     * looked for again. */
    for (i = 0; i < n; i++) {
        uint32_t k = key[v[i]];
        if (i > 0 && k == key[v[i - 1u]])
            continue;
        r = 0;
        while (r < kinds && value[r] > k)
            r++;
        if (r == kinds || value[r] != k) {
            if (kinds == FEW_KEYS)
                return 0;
            memmove(value + r + 1u, value + r, (kinds - r) * sizeof value[0]);
            value[r] = k;
            kinds++;
        }
    }
    memset(at, 0, sizeof at);
    for (i = 0; i < n; i++) {
        uint32_t k = key[v[i]];
        if (i == 0 || k != key[v[i - 1u]]) {
            r = 0;
            while (value[r] != k)
                r++;
        }
        rank[i] = (uint8_t)r;
        at[r + 1u]++;
    }
    for (r = 1; r < kinds; r++)
        at[r] += at[r - 1u]; /* at[r]: where rank r starts */
    for (i = 0; i < n; i++)
        tmp[at[rank[i]]++] = v[i];
    memcpy(v, tmp, n * sizeof v[0]);
    return 1;
}

/* Sorts v[0 .. n) by key[entity], highest first, ties in their order (so
 * ascending numbers stay ascending): by rank when the keys take few
 * values, else a merge sort through tmp, n log n compares where inserting
 * took n^2 / 4 when the budget is short every snapshot (the whole world
 * does not fit one packet). */
static void sort_by_key(uint16_t *v, uint16_t *tmp, const uint32_t *key, uint32_t n)
{
    uint16_t *from = v, *to = tmp, *swap;
    uint32_t width, lo;
    if (sort_few(v, tmp, key, n))
        return;
    for (width = 1; width < n; width *= 2u) {
        for (lo = 0; lo < n; lo += 2u * width) {
            uint32_t mid = n - lo > width ? lo + width : n;
            uint32_t hi = n - mid > width ? mid + width : n;
            uint32_t a = lo, b = mid, i;
            for (i = lo; i < hi; i++)
                to[i] = a < mid && (b == hi || key[from[a]] >= key[from[b]]) ? from[a++]
                                                                             : from[b++];
        }
        swap = from;
        from = to;
        to = swap;
    }
    if (from != v)
        memcpy(v, from, n * sizeof v[0]);
}

/* Picks the entries that fit `budget` bits, highest key first; a lower
 * entry that still fits is taken (the skipped ones grow their key until
 * they lead). Returns the count, or ZL_ERR_OVERFLOW if the own entity
 * does not fit. */
static int choose(writer_job *j, uint32_t budget)
{
    uint16_t order[ZL_MAX_ENTITIES], tmp[ZL_MAX_ENTITIES];
    uint32_t key[ZL_MAX_ENTITIES];
    uint32_t used = header_bits_max(j);
    uint32_t i, n = 0;
    if (used > budget)
        return ZL_ERR_OVERFLOW;
    memcpy(order, j->cand, j->cand_count * sizeof order[0]);
    for (i = 0; i < j->cand_count; i++)
        key[order[i]] = key_of(j, order[i]);
    /* Stable over ascending numbers: ties go to the lower number,
     * deterministically. */
    sort_by_key(order, tmp, key, j->cand_count);
    memset(j->chosen, 0, sizeof j->chosen);
    for (i = 0; i < j->cand_count; i++) {
        uint16_t e = order[i];
        int32_t below, above, cost;
        neighbours(j, e, &below, &above);
        cost = (int32_t)(j->size[e] +
                         head_cost((uint32_t)((int32_t)e - below - 1), j->joint[e]));
        /* Splitting the next entry's gap may even make it cheaper. */
        if (above >= 0)
            cost += (int32_t)head_cost((uint32_t)(above - (int32_t)e - 1), j->joint[above]) -
                    (int32_t)head_cost((uint32_t)(above - below - 1), j->joint[above]);
        if (cost <= (int32_t)(budget - used)) {
            choose_entity(j, e);
            used = (uint32_t)((int32_t)used + cost);
            n++;
        } else if (e == j->own) {
            return ZL_ERR_OVERFLOW;
        }
    }
    return (int)n;
}

/* Measures every candidate's entry body into j->size (coding those the
 * tick's codes lack); returns the bits of a section holding them all,
 * which is what writing them all would take. */
static uint32_t measure_all(writer_job *j)
{
    uint32_t bits = header_bits(j, j->cand_count), i;
    int32_t prev = -1;
    for (i = 0; i < j->cand_count; i++) {
        uint16_t e = j->cand[i];
        j->size[e] = measure(j, e);
        bits += head_cost((uint32_t)((int32_t)e - prev - 1), j->joint[e]) + j->size[e];
        prev = e;
    }
    return bits;
}

/* Writes the run's bytes, every entry as another client sees it, from the
 * job of a client whose entries are the run's (any such client's give the
 * same bytes). Returns 0, the run then serving nobody, when they do not
 * fit it. */
static int write_run(writer_job *j)
{
    zl_snapshot_run *run = &j->w->run;
    uint16_t own = j->own;
    entry_bits t = {0, 0, 0, 0};
    int32_t prev = -1;
    zl_bitwriter rw;
    uint32_t i;
    zl_bitwriter_init(&rw, run->bytes, sizeof run->bytes);
    j->own = ZL_SNAPSHOT_NONE;
    write_header(j, &rw, j->cand_count);
    for (i = 0; i < j->cand_count && rw.error == ZL_OK; i++) {
        uint16_t e = j->cand[i];
        run->start[i] = (uint16_t)zl_bitwriter_bits_used(&rw);
        write_entry(j, &rw, (uint32_t)((int32_t)e - prev - 1), e, &t); /* errors stick in rw */
        run->end[i] = (uint16_t)zl_bitwriter_bits_used(&rw);
        prev = e;
    }
    j->own = own;
    /* The same for every client served but the own entry. */
    run->enter_bits = t.enter;
    run->update_bits = t.update;
    run->number_bits = t.number;
    run->bits = zl_bitwriter_bits_used(&rw);
    run->written = rw.error == ZL_OK;
    run->valid = run->written;
    return run->written;
}

/* The index of the first of the n ascending numbers at v not below e. */
static uint32_t lower_bound(const uint16_t *v, uint32_t n, uint16_t e)
{
    uint32_t lo = 0;
    while (n > 0) {
        uint32_t half = n / 2u;
        if (v[lo + half] < e) {
            lo += half + 1u;
            n -= half + 1u;
        } else {
            n = half;
        }
    }
    return lo;
}

/* Writes the section from the tick's run when this client needs exactly
 * the run's entries (same baseline, entities, kinds and base states):
 * whole bytes of the run and its own entity's entry with every field.
 * A twin (classify_twin) needs them by construction: its entities, kinds
 * and older states are the run's copied, and a baseline of the run's
 * content at the run's baseline tick holds every entity at that tick, as
 * the first client's did; only its own entity's place is looked for.
 * Returns 1 when written (every candidate chosen), 0 to write it entry
 * by entry. */
static int write_shared(writer_job *j, zl_bitwriter *bw, uint32_t budget, int twin)
{
    zl_snapshot_run *run = &j->w->run;
    const zl_snapshot_code *own = NULL;
    uint32_t i, k = 0, bits, gap = 0, own_bits = 0;
    if (!run->valid || run->count != j->cand_count || run->has_base != (j->base != NULL) ||
        (j->base && run->base_tick != j->base->tick) || run->base_count != j->base_count ||
        run->pred_age != pred_age(j))
        return 0;
    if (twin)
        k = lower_bound(j->cand, j->cand_count, j->own);
    for (i = 0; i < j->cand_count && !twin; i++) {
        uint16_t e = j->cand[i];
        if (run->entity[i] != e || run->op[i] != j->op[e] || run->from[i] != from_of(j, e) ||
            run->pfrom_of[e] != pfrom_of(j, e))
            return 0;
        if (e == j->own)
            k = i;
    }
    if (!run->written && !write_run(j))
        return 0;
    bits = run->bits;
    if (j->own < ZL_MAX_ENTITIES && j->op[j->own] != OP_NONE && j->op[j->own] != OP_KEEP) {
        own = body_code(j, j->own);
        if (!own)
            return 0;
        gap = k == 0 ? j->own : (uint32_t)(j->own - j->cand[k - 1u] - 1u);
        own_bits = head_cost(gap, own->op == OP_UPDATE && own->state_bits > 0) + own->bits;
        bits = bits - (run->end[k] - run->start[k]) + own_bits;
    }
    if (bits > budget)
        return 0;
    if (!own) {
        zl_bitwriter_copy(bw, run->bytes, run->bits);
    } else {
        zl_bitwriter_copy(bw, run->bytes, run->start[k]);
        (void)write_entry_body(bw, gap, own->op, j->w->code_bytes + own->offset, own->bits,
                               own->state_bits);
        zl_bitwriter_copy_at(bw, run->bytes, run->end[k], run->bits - run->end[k]);
    }
    choose_all(j);
    j->bits.enter = run->enter_bits;
    j->bits.update = run->update_bits;
    j->bits.number = run->number_bits;
    j->bits.own = 0;
    if (own) {
        uint32_t *kind_bits = j->op[j->own] == OP_UPDATE ? &j->bits.update : &j->bits.enter;
        if (j->op[j->own] != OP_LEAVE) {
            *kind_bits = *kind_bits - (run->end[k] - run->start[k]) + own_bits;
            j->bits.own = own_bits;
        }
    }
    run->hits++;
    j->content = run->twin && !j->listed ? run->content : 0u;
    return 1;
}

/* Keeps the entries of the section this client got (`bits` long) as the
 * tick's run, unless the run already serves other clients or the section
 * is larger than a run holds. Its bytes are written when a second client
 * needs the same entries: with a relevance rule most clients' entries are
 * their own, and their runs serve nobody. */
static void keep_run(writer_job *j, uint32_t bits)
{
    zl_snapshot_run *run = &j->w->run;
    uint32_t i;
    if ((run->valid && run->hits > 0) || bits > 8u * sizeof run->bytes)
        return;
    for (i = 0; i < j->cand_count; i++) {
        uint16_t e = j->cand[i];
        run->entity[i] = e;
        run->op[i] = j->op[e];
        run->from[i] = from_of(j, e);
        run->pfrom_of[e] = pfrom_of(j, e);
    }
    run->count = (uint16_t)j->cand_count;
    run->has_base = j->base != NULL;
    run->base_tick = j->base ? j->base->tick : 0;
    run->base_count = j->base_count;
    run->pred_age = pred_age(j);
    run->hits = 0;
    run->written = 0;
    run->valid = 1;
    run->twin = !j->listed;
    if (run->twin) {
        run->own = j->own;
        run->base_content = j->base ? j->base->content : 0u;
        run->pred_content = j->pred ? j->pred->content : 0u;
        memcpy(run->op_of, j->op, sizeof run->op_of);
        memcpy(run->op_map, j->op_map, sizeof run->op_map);
        if (++j->w->contents == 0)
            j->w->contents = 1;
        run->content = j->w->contents;
        j->content = run->content;
    }
}

/* Writes the chosen entries, found a word of the chosen set at a time. */
static void write_chosen(writer_job *j, zl_bitwriter *bw, uint32_t count)
{
    int32_t prev = -1;
    uint32_t k;
    memset(&j->bits, 0, sizeof j->bits);
    write_header(j, bw, count);
    for (k = 0; k < MAP_WORDS; k++) {
        uint32_t word;
        for (word = j->chosen[k + 1u]; word != 0; word &= word - 1u) {
            uint16_t e = (uint16_t)(k * 32u + lowest_bit(word));
            write_entry(j, bw, (uint32_t)((int32_t)e - prev - 1), e, &j->bits);
            prev = e;
        }
    }
}

/* Set bits of x. */
static unsigned population(uint32_t x)
{
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
}

/* The age of a state the client keeps from the baseline, `old` there. */
static uint16_t carried_age(uint32_t old, uint32_t base_age)
{
    return old >= ZL_SNAPSHOT_AGED || old + base_age >= ZL_SNAPSHOT_AGED
               ? ZL_SNAPSHOT_AGED
               : (uint16_t)(old + base_age);
}

/* Counts one word of the maps (32 entities from k * 32) into the stats:
 * `sent` the chosen entries, `carried` the candidates left out. */
static void count_word(const writer_job *j, zl_snapshot_stats *st, uint32_t k, uint32_t sent,
                       uint32_t carried)
{
    uint32_t left = sent & j->op_map[OP_LEAVE][k], updated = sent & j->op_map[OP_UPDATE][k];
    st->unchanged = (uint16_t)(st->unchanged + population(j->op_map[OP_KEEP][k]));
    st->left = (uint16_t)(st->left + population(left));
    st->updated = (uint16_t)(st->updated + population(updated));
    st->entered = (uint16_t)(st->entered + population(sent & ~left & ~updated));
    st->carried = (uint16_t)(st->carried + population(carried));
}

/* What the client holds once it applies this snapshot, and the stats,
 * 32 entities at a time: unheld ones are absent, the unchanged and the
 * sent (but leaving) hold this tick's state, and the candidates left out
 * keep the baseline's state, growing older (an entering one stays out).
 * A twin's accumulators are all 0 unless owed (accrued), and it holds
 * nearly every entity: its ages are set to 0 a word at a time, the older
 * ones' then overwritten. Other clients' ages and accumulators are set
 * entity by entity. */
static void record(writer_job *j, uint16_t packet_sequence, uint32_t bits)
{
    zl_snapshot_client *c = j->c;
    uint32_t slot = c->written % ZL_SNAPSHOT_SENT;
    zl_snapshot_record *rec = &c->record[slot];
    zl_snapshot_stats *st = &c->last;
    uint32_t base_age = j->base ? j->tick - j->base->tick : 0;
    const int accrued = j->accrued;
    uint32_t k, b;
    /* The new record may take the baseline's slot only when the baseline
     * was unusable; it is gone either way. */
    if (c->baseline == (int32_t)slot)
        c->baseline = -1;
    memset(st, 0, sizeof *st);
    st->full = (uint8_t)(j->base == NULL);
    st->base_tick = j->base ? j->base->tick : 0;
    st->bits = bits;
    memset(rec->held, 0, sizeof rec->held); /* ages count only where held */
    rec->count = 0;
    for (k = 0; k < MAP_WORDS; k++) {
        uint32_t sent = j->chosen[k + 1u], carried = candidates(j, k) & ~sent;
        uint32_t now = j->op_map[OP_KEEP][k] | (sent & ~j->op_map[OP_LEAVE][k]);
        uint32_t aged = carried & ~j->op_map[OP_ENTER][k], word;
        if ((now | carried | sent) == 0)
            continue;
        count_word(j, st, k, sent, carried);
        rec->count = (uint16_t)(rec->count + population(now | aged));
        for (b = 0; b < 4u && k * 4u + b < ZL_SNAPSHOT_BITMAP_BYTES; b++)
            rec->held[k * 4u + b] = (uint8_t)((now | aged) >> (8u * b));
        if (accrued) {
            for (word = now; word != 0; word &= word - 1u) {
                uint32_t e = k * 32u + lowest_bit(word);
                rec->age[e] = 0;
                c->accum[e] = 0; /* sent: nothing owed */
            }
        } else if (now != 0) {
            memset(rec->age + k * 32u, 0, 32u * sizeof rec->age[0]);
        }
        for (word = aged; word != 0; word &= word - 1u) {
            uint32_t e = k * 32u + lowest_bit(word);
            rec->age[e] = carried_age(j->base->age[e], base_age);
        }
    }
    rec->tick = j->tick;
    rec->content = j->content;
    rec->serial = c->written;
    rec->sequence = packet_sequence;
    rec->used = 1;
    rec->acked = 0;
    c->written++;
    c->last_tick = j->tick;
    c->have_last = 1;
}

int zl_snapshot_write(zl_snapshot_client *c, zl_snapshot_world *world,
                      const zl_snapshot_layout *layout, uint32_t tick, const uint16_t *relevant,
                      int relevant_count, const uint32_t *priority, uint16_t own_entity,
                      uint32_t budget_bits, uint16_t packet_sequence, zl_bitwriter *bw)
{
    writer_job job;
    writer_job *j = &job;
    zl_bitwriter saved;
    uint32_t start;
    uint32_t whole;
    int count, fitted, twin;
    ZL_ASSERT(c != NULL && world != NULL && layout != NULL && bw != NULL);
    ZL_ASSERT(relevant != NULL || relevant_count == 0);
    ZL_ASSERT(!c->have_last || tick_diff(tick, c->last_tick) > 0);
    j->c = c;
    j->w = world;
    j->layout = layout;
    j->now = world_slot(world, tick);
    ZL_ASSERT(j->now != NULL);
    j->tick = tick;
    j->own = own_entity;
    j->listed = relevant != NULL;
    j->content = 0;
    j->base = usable_baseline(c, tick);
    j->base_slot = j->base ? world_slot(world, j->base->tick) : NULL;
    j->pred = j->base ? usable_pred(c, tick, j->base) : NULL;
    j->pred_slot = j->pred ? world_slot(world, j->pred->tick) : NULL;
    j->base_count = j->base ? j->base->count : 0u;
    codes_for(world, tick);
    twin = classify_twin(j);
    j->accrued = (uint8_t)!twin;
    if (!twin)
        classify(j, relevant, relevant_count, priority);
    c->owed = 1; /* until every entry is sent */

    saved = *bw;
    start = zl_bitwriter_bits_used(bw);
    fitted = write_shared(j, bw, budget_bits, twin);
    if (twin && !fitted)
        owe(j, priority);
    /* Measured first, a section that will not fit is never written. */
    if (!fitted && (whole = measure_all(j)) <= budget_bits) {
        choose_all(j);
        write_chosen(j, bw, j->cand_count);
        if (bw->error == ZL_OK) {
            keep_run(j, whole);
            fitted = 1;
        }
    }
    if (!fitted) {
        *bw = saved; /* rewind: the writer keeps earlier bits of a shared byte */
        count = choose(j, budget_bits);
        if (count >= 0)
            write_chosen(j, bw, (uint32_t)count);
        if (count < 0 || bw->error != ZL_OK) {
            *bw = saved;
            return ZL_ERR_OVERFLOW;
        }
    }
    record(j, packet_sequence, zl_bitwriter_bits_used(bw) - start);
    c->owed = (uint8_t)!fitted; /* every entry sent leaves nothing owed */
    c->last.enter_bits = j->bits.enter;
    c->last.update_bits = j->bits.update;
    c->last.number_bits = j->bits.number;
    c->last.own_bits = j->bits.own;
    return (int)c->last.bits;
}
