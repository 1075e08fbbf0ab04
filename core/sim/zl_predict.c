/* zl_predict.c - the command ring, prediction at once, reconciliation with
 * silent replay, and the fading offset that hides corrections. */
#include "zl_predict.h"

#include <string.h>

#define SLOT_MASK ((uint32_t)ZL_PREDICT_COMMANDS - 1u)
/* Half the sequence space: a - b below this (mod 2^32) means a is not older. */
#define SEQ_HALF 0x80000000u

static zl_predict_entry *entry(zl_predict *p, uint32_t sequence)
{
    return &p->ring[sequence & SLOT_MASK];
}

static const zl_predict_entry *entry_c(const zl_predict *p, uint32_t sequence)
{
    return &p->ring[sequence & SLOT_MASK];
}

/* 1 when a is newer than b (wraparound-safe). */
static int seq_newer(uint32_t a, uint32_t b)
{
    uint32_t d = a - b;
    return d != 0 && d < SEQ_HALF;
}

static size_t state_size(const zl_predict *p)
{
    return p->game->player_schema->size;
}

/* The origin lives in two or three consecutive FX fields; reading them
 * through their offsets (memcpy, the struct's own layout) keeps the core
 * unaware of the game's struct. A plane's z stays 0, so its offsets do. */
static zl_vec3 get_origin(const zl_predict *p, const uint8_t *state)
{
    const zl_field *f = &p->game->player_schema->fields[p->settings.origin_field];
    zl_vec3 v = zl_vec3_make(0, 0, 0);
    memcpy(&v.x, state + f[0].offset, sizeof v.x);
    memcpy(&v.y, state + f[1].offset, sizeof v.y);
    if (p->settings.origin_axes == 3)
        memcpy(&v.z, state + f[2].offset, sizeof v.z);
    return v;
}

static void set_origin(const zl_predict *p, uint8_t *state, zl_vec3 v)
{
    const zl_field *f = &p->game->player_schema->fields[p->settings.origin_field];
    memcpy(state + f[0].offset, &v.x, sizeof v.x);
    memcpy(state + f[1].offset, &v.y, sizeof v.y);
    if (p->settings.origin_axes == 3)
        memcpy(state + f[2].offset, &v.z, sizeof v.z);
}

/* A one-field view of the schema lets zl_schema_first_diff compare the
 * teleport field alone, whatever its kind and width. */
static int teleport_changed(const zl_predict *p, const void *a, const void *b)
{
    const zl_schema *s = p->game->player_schema;
    zl_schema one;
    if (p->settings.teleport_field < 0)
        return 0;
    one = *s;
    one.fields = &s->fields[p->settings.teleport_field];
    one.count = 1;
    return zl_schema_first_diff(&one, a, b, ZL_SCHEMA_ALL) == 0;
}

void zl_predict_settings_default(zl_predict_settings *s)
{
    ZL_ASSERT(s);
    s->smooth_us = 100000u;
    s->snap_distance = ZL_FX_INT(64);
    s->origin_field = -1;
    s->origin_axes = 3;
    s->teleport_field = -1;
    s->plan = NULL;
}

void zl_predict_init(zl_predict *p, const zl_game *game, const zl_predict_settings *s,
                     const void *state)
{
    ZL_ASSERT(p && game && s && state && game->player_schema && game->run_command);
    ZL_ASSERT(game->player_schema->size <= ZL_STATE_MAX);
    ZL_ASSERT(zl_origin_ok(game->player_schema, s->origin_field, s->origin_axes));
    ZL_ASSERT(s->teleport_field >= -1 && s->teleport_field < (int)game->player_schema->count);
    ZL_ASSERT(s->snap_distance >= 0);
    ZL_ASSERT(!s->plan || s->plan->schema == game->player_schema);
    memset(p, 0, sizeof *p);
    p->game = game;
    p->settings = *s;
    zl_predict_reset(p, 0, state);
}

void zl_predict_reset(zl_predict *p, uint32_t sequence, const void *state)
{
    zl_predict_entry *e;
    ZL_ASSERT(p && p->game && state);
    e = entry(p, sequence);
    memset(e, 0, sizeof *e);
    e->cmd.sequence = sequence;
    memcpy(e->state, state, state_size(p));
    p->newest = sequence;
    p->acked = sequence;
    p->offset = zl_vec3_make(0, 0, 0);
    p->offset_us = 0;
}

int zl_predict_command(zl_predict *p, const zl_usercmd *cmd, zl_events *events)
{
    const zl_predict_entry *prev;
    zl_predict_entry *next;
    ZL_ASSERT(p && cmd);
    if (cmd->sequence != p->newest + 1u || zl_usercmd_validate(cmd) != ZL_OK)
        return ZL_ERR_INVALID;
    /* With every slot unacknowledged, newest + 1 shares its slot with
     * acked + 1: writing it would lose a command the server may still need. */
    if (p->newest - p->acked >= (uint32_t)ZL_PREDICT_COMMANDS) {
        p->stats.refused_full++;
        return ZL_ERR_FULL;
    }
    prev = entry_c(p, p->newest);
    next = entry(p, cmd->sequence);
    next->cmd = *cmd;
    p->game->run_command(p->game->ctx, prev->state, cmd, next->state, 1, events);
    p->newest = cmd->sequence;
    p->stats.predicted++;
    return ZL_OK;
}

zl_vec3 zl_predict_offset(const zl_predict *p, uint64_t now_us)
{
    uint64_t elapsed, left;
    zl_vec3 v;
    ZL_ASSERT(p);
    if (p->settings.smooth_us == 0)
        return zl_vec3_make(0, 0, 0);
    elapsed = now_us > p->offset_us ? now_us - p->offset_us : 0;
    if (elapsed >= p->settings.smooth_us)
        return zl_vec3_make(0, 0, 0);
    left = p->settings.smooth_us - elapsed;
    /* |component| < 2^31 and left <= 2^32: the product fits int64. C99
     * division truncates toward zero, so the offset shrinks symmetrically. */
    v.x = (zl_fx)((int64_t)p->offset.x * (int64_t)left / (int64_t)p->settings.smooth_us);
    v.y = (zl_fx)((int64_t)p->offset.y * (int64_t)left / (int64_t)p->settings.smooth_us);
    v.z = (zl_fx)((int64_t)p->offset.z * (int64_t)left / (int64_t)p->settings.smooth_us);
    return v;
}

/* The view must not jump: what is drawn now (old prediction plus what is
 * left of the offset) stays where it is, and the difference to the new
 * prediction fades from here. Large jumps are real (a respawn) and snap. */
static void smooth_correction(zl_predict *p, const uint8_t *old_state, uint64_t now_us)
{
    const uint8_t *new_state = entry_c(p, p->newest)->state;
    zl_vec3 drawn, offset;
    if (p->settings.origin_field < 0 || p->settings.smooth_us == 0)
        return;
    drawn = zl_vec3_add(get_origin(p, old_state), zl_predict_offset(p, now_us));
    offset = zl_vec3_sub(drawn, get_origin(p, new_state));
    if (teleport_changed(p, old_state, new_state) ||
        zl_vec3_length(offset) > p->settings.snap_distance) {
        offset = zl_vec3_make(0, 0, 0);
        p->stats.snaps++;
    }
    p->offset = offset;
    p->offset_us = now_us;
}

int zl_predict_reconcile(zl_predict *p, uint32_t acked_sequence, const void *server_state,
                         uint64_t now_us)
{
    const zl_schema *schema;
    const zl_schema_plan *plan;
    zl_predict_entry *e;
    uint8_t old_state[ZL_STATE_MAX];
    uint32_t seq, replayed;
    ZL_ASSERT(p && server_state);
    schema = p->game->player_schema;
    plan = p->settings.plan;
    if (!seq_newer(acked_sequence, p->acked)) {
        p->stats.ignored++;
        return ZL_ERR_DUPLICATE;
    }
    if (seq_newer(acked_sequence, p->newest)) {
        /* The server ran commands this ring never held: nothing to compare
         * or replay, only its state to take. */
        p->stats.resyncs++;
        zl_predict_reset(p, acked_sequence, server_state);
        return 0;
    }
    p->acked = acked_sequence;
    p->stats.reconciled++;
    e = entry(p, acked_sequence);
    if (zl_schema_equal(schema, e->state, server_state, ZL_SCHEMA_WIRE))
        return 0; /* local fields are the kept ones already: nothing changes */

    p->stats.mispredicted++;
    memcpy(old_state, entry_c(p, p->newest)->state, state_size(p));
    /* Bernier's intermediate results: client-only fields of the kept state
     * survive, the server's wire fields replace the rest. */
    if (plan)
        zl_schema_plan_copy(plan, e->state, server_state, ZL_SCHEMA_WIRE);
    else
        zl_schema_copy(schema, e->state, server_state, ZL_SCHEMA_WIRE);
    replayed = p->newest - acked_sequence;
    for (seq = acked_sequence + 1u; seq != p->newest + 1u; seq++) {
        zl_predict_entry *next = entry(p, seq);
        p->game->run_command(p->game->ctx, entry_c(p, seq - 1u)->state, &next->cmd, next->state,
                             0, NULL);
    }
    p->stats.replayed += replayed;
    smooth_correction(p, old_state, now_us);
    return (int)replayed;
}

const void *zl_predict_state(const zl_predict *p)
{
    ZL_ASSERT(p);
    return entry_c(p, p->newest)->state;
}

const void *zl_predict_state_after(const zl_predict *p, uint32_t sequence)
{
    const zl_predict_entry *e;
    ZL_ASSERT(p);
    if (p->newest - sequence > p->newest - p->acked)
        return NULL; /* older than the last ack, or newer than the newest */
    e = entry_c(p, sequence);
    return e->cmd.sequence == sequence ? e->state : NULL;
}

void zl_predict_draw(const zl_predict *p, uint64_t now_us, void *out)
{
    uint8_t *o = (uint8_t *)out;
    ZL_ASSERT(p && out);
    memcpy(o, zl_predict_state(p), state_size(p));
    if (p->settings.origin_field >= 0)
        set_origin(p, o, zl_vec3_add(get_origin(p, o), zl_predict_offset(p, now_us)));
}

uint32_t zl_predict_newest(const zl_predict *p)
{
    ZL_ASSERT(p);
    return p->newest;
}

uint32_t zl_predict_acked(const zl_predict *p)
{
    ZL_ASSERT(p);
    return p->acked;
}

uint32_t zl_predict_unacked(const zl_predict *p)
{
    ZL_ASSERT(p);
    return p->newest - p->acked;
}

const zl_usercmd *zl_predict_command_at(const zl_predict *p, uint32_t sequence)
{
    ZL_ASSERT(p);
    if (!seq_newer(sequence, p->acked) || seq_newer(sequence, p->newest))
        return NULL;
    return &entry_c(p, sequence)->cmd;
}

const zl_predict_stats *zl_predict_get_stats(const zl_predict *p)
{
    ZL_ASSERT(p);
    return &p->stats;
}
