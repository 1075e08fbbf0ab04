/* zl_lagcomp.c - the rewind history, target times with trust and clamps, and
 * shots traced against players posed at the time their shooter drew them. */
#include "zl_lagcomp.h"

#include <string.h>

#include "zl_int.h"

#define TICK_MASK (ZL_LAGCOMP_TICKS - 1u)

void zl_lagcomp_settings_default(zl_lagcomp_settings *s)
{
    ZL_ASSERT(s);
    s->maxunlag_us = 1000000u;
    s->trust_window_us = 200000u;
    s->teleport_distance = ZL_FX_INT(64);
    s->origin_field = 0;
    s->origin_axes = 3;
}

void zl_lagcomp_init(zl_lagcomp *lc, const zl_game *game, uint32_t tick_us,
                     const zl_lagcomp_settings *s)
{
    const zl_schema *schema;
    int i;
    ZL_ASSERT(lc && game && game->player_schema && game->hitboxes && game->trace);
    ZL_ASSERT(tick_us > 0);
    schema = game->player_schema;
    ZL_ASSERT(schema->size <= ZL_STATE_MAX);
    memset(lc, 0, sizeof *lc);
    lc->game = *game;
    if (s)
        lc->settings = *s;
    else
        zl_lagcomp_settings_default(&lc->settings);
    lc->tick_us = tick_us;
    ZL_ASSERT(zl_origin_ok(schema, lc->settings.origin_field, lc->settings.origin_axes));
    for (i = 0; lc->settings.origin_field >= 0 && i < lc->settings.origin_axes; i++)
        lc->origin_offset[i] = schema->fields[lc->settings.origin_field + i].offset;
}

/* ---- the history ---- */

static int is_present(const zl_lagcomp_frame *f, int slot)
{
    return slot < f->count && (f->present[slot >> 3] & (1u << (slot & 7))) != 0;
}

static int box_empty(const zl_box *b)
{
    return b->min.x >= b->max.x || b->min.y >= b->max.y || b->min.z >= b->max.z;
}

/* Bounds live strictly inside the ray limit, which keeps the broadphase's
 * products in int64. Cutting a bound there loses nothing: every traced
 * segment lies inside. */
static zl_fx clamp_limit(int64_t v)
{
    const zl_fx lo = -ZL_RAY_LIMIT + 1, hi = ZL_RAY_LIMIT - 1;
    return v < lo ? lo : v > hi ? hi : (zl_fx)v;
}

static void clamp_vec(zl_vec3 *v)
{
    v->x = clamp_limit(v->x);
    v->y = clamp_limit(v->y);
    v->z = clamp_limit(v->z);
}

static zl_vec3 vec_min(zl_vec3 a, zl_vec3 b)
{
    return zl_vec3_make(a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z);
}

static zl_vec3 vec_max(zl_vec3 a, zl_vec3 b)
{
    return zl_vec3_make(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z);
}

/* The union of n hitboxes (all zero, i.e. empty, for none). */
static zl_box union_of(const zl_hitbox *boxes, int n)
{
    zl_box u;
    int i;
    memset(&u, 0, sizeof u);
    for (i = 0; i < n; i++) {
        u.min = i ? vec_min(u.min, boxes[i].box.min) : boxes[i].box.min;
        u.max = i ? vec_max(u.max, boxes[i].box.max) : boxes[i].box.max;
    }
    return u;
}

/* A 2D origin's z is 0, so moves and sweeps along z are nil. */
static void origin_of(const zl_lagcomp *lc, const zl_lagcomp_state *s, int64_t o[3])
{
    int i;
    o[2] = 0;
    for (i = 0; i < lc->settings.origin_axes; i++) {
        zl_fx v;
        memcpy(&v, s->bytes + lc->origin_offset[i], sizeof v);
        o[i] = v;
    }
}

/* A Euclidean move beyond teleport_distance, as zl_interp measures it.
 * Each axis is checked first so the squares cannot overflow. */
static int teleported(const zl_lagcomp *lc, const int64_t d[3])
{
    uint64_t limit = (uint64_t)lc->settings.teleport_distance, sum = 0;
    int i;
    if (lc->settings.teleport_distance <= 0)
        return 0;
    for (i = 0; i < 3; i++) {
        uint64_t m = (uint64_t)zl_abs64(d[i]);
        if (m > limit)
            return 1;
        sum += m * m;
    }
    return sum > limit * limit;
}

/* Grows [lo, hi] by a move d along one axis, kept inside the ray limit. */
static void sweep(zl_fx *lo, zl_fx *hi, int64_t d)
{
    if (d < 0)
        *lo = clamp_limit((int64_t)*lo + d);
    else
        *hi = clamp_limit((int64_t)*hi + d);
}

/* The bound of `slot` at frame a swept along its move to frame b, into
 * *out. Returns 1, leaving *out alone, when the move is a teleport. */
static int move_between(const zl_lagcomp *lc, const zl_lagcomp_frame *a,
                        const zl_lagcomp_frame *b, int slot, zl_box *out)
{
    int64_t oa[3], ob[3], d[3];
    int i;
    origin_of(lc, &a->state[slot], oa);
    origin_of(lc, &b->state[slot], ob);
    for (i = 0; i < 3; i++)
        d[i] = ob[i] - oa[i];
    if (teleported(lc, d))
        return 1;
    *out = a->bound[slot];
    if (!box_empty(out)) {
        sweep(&out->min.x, &out->max.x, d[0]);
        sweep(&out->min.y, &out->max.y, d[1]);
        sweep(&out->min.z, &out->max.z, d[2]);
    }
    return 0;
}

/* Fills f's reach from prev, the frame of the tick just before it. */
static void sweep_frame(const zl_lagcomp *lc, const zl_lagcomp_frame *prev, zl_lagcomp_frame *f)
{
    int i;
    memset(f->jumped, 0, sizeof f->jumped);
    memset(f->reach, 0, sizeof f->reach);
    f->swept = lc->settings.origin_field >= 0;
    for (i = 0; f->swept && i < f->count; i++)
        if (is_present(prev, i) && is_present(f, i) && move_between(lc, prev, f, i, &f->reach[i]))
            f->jumped[i >> 3] = (uint8_t)(f->jumped[i >> 3] | (1u << (i & 7)));
}

void zl_lagcomp_record(zl_lagcomp *lc, uint32_t tick, const void *players, const uint8_t *present,
                       int count)
{
    zl_lagcomp_frame *f;
    size_t size;
    int i;
    ZL_ASSERT(lc && (players || count == 0) && count >= 0 && count <= ZL_MAX_CLIENTS);
    ZL_ASSERT(!lc->any || tick > lc->latest);
    ZL_ASSERT(tick < 0x80000000u);
    size = lc->game.player_schema->size;
    f = &lc->frame[tick & TICK_MASK];
    f->tick = tick;
    f->count = (uint16_t)count;
    f->recorded = 1;
    memset(f->present, 0, sizeof f->present);
    for (i = 0; i < count; i++) {
        zl_hitbox boxes[ZL_LAGCOMP_HITBOXES];
        zl_box *b = &f->bound[i];
        int n = 0;
        memcpy(f->state[i].bytes, (const uint8_t *)players + (size_t)i * size, size);
        zl_schema_quantize_shared(lc->game.player_schema, f->state[i].bytes);
        if (!present || present[i]) {
            f->present[i >> 3] = (uint8_t)(f->present[i >> 3] | (1u << (i & 7)));
            n = lc->game.hitboxes(lc->game.ctx, f->state[i].bytes, i, boxes, ZL_LAGCOMP_HITBOXES);
        }
        *b = union_of(boxes, n);
        clamp_vec(&b->min);
        clamp_vec(&b->max);
    }
    f->swept = 0;
    if (lc->any && tick == lc->latest + 1u)
        sweep_frame(lc, &lc->frame[lc->latest & TICK_MASK], f);
    if (!lc->any)
        lc->first = tick;
    lc->any = 1;
    lc->latest = tick;
    lc->stats.recorded++;
}

void zl_lagcomp_remove(zl_lagcomp *lc, int slot)
{
    size_t i;
    ZL_ASSERT(lc && slot >= 0 && slot < ZL_MAX_CLIENTS);
    for (i = 0; i < ZL_LAGCOMP_TICKS; i++)
        lc->frame[i].present[slot >> 3] &= (uint8_t)~(1u << (slot & 7));
}

/* The frame of `tick`, or NULL when it was never recorded or has been
 * overwritten. */
static const zl_lagcomp_frame *frame_at(const zl_lagcomp *lc, uint32_t tick)
{
    const zl_lagcomp_frame *f = &lc->frame[tick & TICK_MASK];
    return lc->any && f->recorded && f->tick == tick && tick <= lc->latest ? f : NULL;
}

/* ---- target times ---- */

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

static uint32_t oldest_tick(const zl_lagcomp *lc)
{
    uint32_t back = ZL_LAGCOMP_TICKS - 1u;
    return lc->latest - lc->first < back ? lc->first : lc->latest - back;
}

/* The oldest time a target may have: maxunlag before the present, and
 * never before the oldest tick still held. */
static uint64_t lower_bound(const zl_lagcomp *lc)
{
    uint64_t now = (uint64_t)lc->latest * lc->tick_us;
    uint64_t unlag = sat_sub(now, lc->settings.maxunlag_us);
    uint64_t held = (uint64_t)oldest_tick(lc) * lc->tick_us;
    return unlag > held ? unlag : held;
}

void zl_lagcomp_present(const zl_lagcomp *lc, zl_lagcomp_time *out)
{
    ZL_ASSERT(lc && out);
    memset(out, 0, sizeof *out);
    out->tick_a = out->tick_b = lc->latest;
    out->claimed_us = out->time_us = (uint64_t)lc->latest * lc->tick_us;
    out->flags = ZL_LAGCOMP_PRESENT;
}

/* Writes a time in [lower_bound, present] as the pair of ticks around it:
 * the same floor fraction a client computes between two ticks. */
static void express(const zl_lagcomp *lc, uint64_t time_us, zl_lagcomp_time *out)
{
    uint64_t tick = time_us / lc->tick_us, rem = time_us % lc->tick_us;
    out->time_us = time_us;
    out->tick_a = (uint32_t)tick;
    out->t = (zl_fx)((rem << 16) / lc->tick_us);
    out->tick_b = out->t ? out->tick_a + 1u : out->tick_a;
}

int zl_lagcomp_time_at(const zl_lagcomp *lc, uint64_t time_us, zl_lagcomp_time *out)
{
    uint64_t lower;
    ZL_ASSERT(lc && out);
    zl_lagcomp_present(lc, out);
    if (!lc->any || time_us > out->time_us)
        return ZL_ERR_INVALID;
    lower = lower_bound(lc);
    out->claimed_us = time_us;
    out->flags = 0;
    if (time_us < lower) {
        time_us = lower;
        out->flags = ZL_LAGCOMP_CLAMPED;
    }
    express(lc, time_us, out);
    return ZL_OK;
}

int zl_lagcomp_target(zl_lagcomp *lc, const zl_usercmd *cmd, uint32_t latency_us,
                      uint32_t interp_us, zl_lagcomp_time *out)
{
    uint32_t span, tick_a;
    zl_fx t;
    uint64_t now, claimed, estimate, chosen, lower, gap;
    int trusted;
    ZL_ASSERT(lc && cmd && out);
    zl_lagcomp_present(lc, out);
    if (!lc->any)
        return ZL_ERR_INVALID;
    /* A zero fraction draws the earlier sample alone, whatever the span;
     * past ONE the client extrapolated the pair (render_whole). */
    t = (zl_fx)((uint32_t)(cmd->render_whole & ZL_USERCMD_RENDER_WHOLE_MAX) << 16) +
        cmd->render_frac;
    span = t ? cmd->render_span : 0u;
    if (!span)
        t = 0;
    tick_a = cmd->render_tick;
    /* The client can only have drawn ticks it received. Checked in 64 bits:
     * the command's fields are not trusted to be in range. */
    if ((uint64_t)tick_a + span > lc->latest) {
        out->flags |= ZL_LAGCOMP_REFUSED;
        lc->stats.refused++;
        return ZL_ERR_INVALID;
    }
    now = (uint64_t)lc->latest * lc->tick_us;
    claimed = (uint64_t)tick_a * lc->tick_us + (((uint64_t)span * lc->tick_us * (uint32_t)t) >> 16);
    estimate = sat_sub(now, (uint64_t)latency_us + interp_us);
    gap = claimed > estimate ? claimed - estimate : estimate - claimed;
    trusted = gap <= lc->settings.trust_window_us;
    lower = lower_bound(lc);
    lc->stats.targets++;
    out->claimed_us = claimed;
    out->flags = trusted ? ZL_LAGCOMP_TRUSTED : ZL_LAGCOMP_FALLBACK;
    if (!trusted)
        lc->stats.untrusted++;
    if (trusted && claimed >= lower && tick_a >= oldest_tick(lc)) {
        out->time_us = claimed;
        out->tick_a = tick_a;
        out->tick_b = tick_a + span;
        out->t = t;
        return ZL_OK;
    }
    chosen = trusted ? claimed : estimate;
    /* A trusted pair that starts before the history is clamped even when
     * its time is not: the client's drawing can no longer be rebuilt. */
    if (chosen < lower || trusted) {
        out->flags |= ZL_LAGCOMP_CLAMPED;
        lc->stats.clamped++;
    }
    express(lc, chosen < lower ? lower : chosen, out);
    return ZL_OK;
}

/* ---- posing players ---- */

/* The frames a target time reads, looked up once per trace, and the slots
 * in the game at both samples and in the present: the only ones posed. */
typedef struct moment {
    const zl_lagcomp_frame *a, *b, *now; /* NULL: not in the history */
    zl_fx t;
    uint8_t swept; /* b directly follows a: b's reach holds the moves */
    uint8_t here[(ZL_MAX_CLIENTS + 7) / 8];
} moment;

static void moment_of(const zl_lagcomp *lc, const zl_lagcomp_time *when, moment *m)
{
    size_t i;
    ZL_ASSERT(when->t >= 0 && (when->t < ZL_FX_ONE || when->tick_b != when->tick_a));
    m->a = frame_at(lc, when->tick_a);
    m->b = when->tick_b == when->tick_a ? m->a : frame_at(lc, when->tick_b);
    m->now = frame_at(lc, lc->latest);
    m->t = when->t;
    m->swept = m->a && m->b && m->b->swept && m->b->tick == m->a->tick + 1u;
    for (i = 0; i < sizeof m->here; i++)
        m->here[i] = m->a && m->b && m->now
                         ? (uint8_t)(m->a->present[i] & m->b->present[i] & m->now->present[i])
                         : 0;
}

static int is_here(const moment *m, int slot)
{
    return (m->here[slot >> 3] >> (slot & 7)) & 1;
}

/* Where one player is at a moment, before any interpolation: the frames
 * its pose comes from and a box holding every hitbox of that pose. For
 * t < ONE the step fields are a's and the origin lies on the segment
 * a -> b, so a's box swept along that move holds the pose. Past ONE (a
 * client's extrapolation) nothing recorded bounds it: it is posed. */
typedef struct placement {
    const zl_lagcomp_frame *a, *b;
    const zl_box *bound; /* into the history, or `swept` */
    zl_box swept;
    int kind; /* ZL_LAGCOMP_REWOUND or ZL_LAGCOMP_CURRENT */
} placement;

/* Without an origin nothing bounds a move: a candidate for every shot. */
static const zl_box everywhere = {{-ZL_RAY_LIMIT + 1, -ZL_RAY_LIMIT + 1, -ZL_RAY_LIMIT + 1},
                                  {ZL_RAY_LIMIT - 1, ZL_RAY_LIMIT - 1, ZL_RAY_LIMIT - 1}};

/* Places a slot that is_here. */
static void place(const zl_lagcomp *lc, const moment *m, int slot, placement *p)
{
    p->a = m->a;
    p->b = m->b;
    p->bound = &m->a->bound[slot];
    p->kind = ZL_LAGCOMP_REWOUND;
    if (m->a == m->b)
        return;
    if (lc->settings.origin_field < 0) {
        if (!box_empty(p->bound))
            p->bound = &everywhere;
        return;
    }
    if (m->swept) {
        if (!(m->b->jumped[slot >> 3] & (1u << (slot & 7)))) {
            p->bound = m->t < ZL_FX_ONE ? &m->b->reach[slot] : &everywhere;
            return;
        }
    } else if (!move_between(lc, m->a, m->b, slot, &p->swept)) {
        p->bound = m->t < ZL_FX_ONE ? &p->swept : &everywhere;
        return;
    }
    p->a = p->b = m->now;
    p->bound = &m->now->bound[slot];
    p->kind = ZL_LAGCOMP_CURRENT;
}

/* The posed state: a recorded one as is, or the interpolation into out. */
static const void *pose(const zl_lagcomp *lc, const placement *p, int slot, zl_fx t, void *out)
{
    if (p->a == p->b)
        return p->a->state[slot].bytes;
    zl_schema_interpolate(lc->game.player_schema, out, p->a->state[slot].bytes,
                          p->b->state[slot].bytes, t);
    return out;
}

int zl_lagcomp_state_at(const zl_lagcomp *lc, const zl_lagcomp_time *when, int slot, void *out)
{
    zl_lagcomp_time present;
    placement p;
    moment m;
    const void *s;
    ZL_ASSERT(lc && out);
    if (!when) {
        zl_lagcomp_present(lc, &present);
        when = &present;
    }
    moment_of(lc, when, &m);
    if (slot < 0 || slot >= ZL_MAX_CLIENTS || !is_here(&m, slot))
        return ZL_LAGCOMP_ABSENT;
    place(lc, &m, slot, &p);
    s = pose(lc, &p, slot, m.t, out);
    if (s != out)
        memcpy(out, s, lc->game.player_schema->size);
    return p.kind;
}

/* ---- shots ---- */

static void record_hit(const zl_lagcomp *lc, const moment *m, const zl_lagcomp_time *when,
                       int32_t shooter, int rc, const zl_trace *tr, int nboxes,
                       zl_lagcomp_hit *hit)
{
    zl_hitbox mine[ZL_LAGCOMP_HITBOXES];
    int i, n = 0;
    memset(hit, 0, sizeof *hit);
    hit->shooter = shooter;
    hit->target = -1;
    hit->when = *when;
    if (rc != 1 || tr->entity < 0)
        return;
    hit->target = tr->entity;
    for (i = 0; i < nboxes && n < ZL_LAGCOMP_HITBOXES; i++)
        if (lc->boxes[i].entity == tr->entity)
            mine[n++] = lc->boxes[i];
    hit->rewound = union_of(mine, n);
    /* A box was built for the target, so it is in the present frame. */
    hit->current = m->now->bound[tr->entity];
}

static int trace_at(zl_lagcomp *lc, const zl_lagcomp_time *when, const zl_vec3 *start,
                    const zl_vec3 *end, int32_t shooter, zl_trace *out, zl_lagcomp_hit *hit,
                    int broadphase)
{
    zl_lagcomp_time present;
    moment m;
    zl_segment g;
    uint32_t skipped = 0, posed = 0;
    int byte, slot, n = 0, rc;
    ZL_ASSERT(lc && start && end && out);
    if (!when) {
        zl_lagcomp_present(lc, &present);
        when = &present;
    }
    moment_of(lc, when, &m);
    if (zl_segment_init(&g, start, end) != ZL_OK)
        return ZL_ERR_INVALID; /* as zl_game.trace would */
    lc->stats.shots++;
    if (shooter >= 0 && shooter < ZL_MAX_CLIENTS)
        m.here[shooter >> 3] = (uint8_t)(m.here[shooter >> 3] & ~(1u << (shooter & 7)));
    for (byte = 0; byte < (int)sizeof m.here; byte++) {
        unsigned bits = m.here[byte];
        for (slot = byte * 8; bits; slot++, bits >>= 1) {
            placement p;
            if (!(bits & 1u))
                continue;
            place(lc, &m, slot, &p);
            /* Dead at the target time: no box to hit. */
            if (box_empty(p.bound))
                continue;
            if (p.kind == ZL_LAGCOMP_CURRENT)
                lc->stats.not_rewound++;
            if (broadphase && !zl_segment_meets(&g, p.bound)) {
                skipped++;
                continue;
            }
            posed++;
            n += lc->game.hitboxes(lc->game.ctx, pose(lc, &p, slot, m.t, lc->scratch.bytes),
                                   slot, lc->boxes + n, ZL_LAGCOMP_HITBOXES);
        }
    }
    lc->stats.skipped += skipped;
    lc->stats.posed += posed;
    rc = lc->game.trace(lc->game.ctx, start, end, lc->boxes, n, out);
    if (hit)
        record_hit(lc, &m, when, shooter, rc, out, n, hit);
    return rc;
}

int zl_lagcomp_trace(zl_lagcomp *lc, const zl_lagcomp_time *when, const zl_vec3 *start,
                     const zl_vec3 *end, int32_t shooter, zl_trace *out, zl_lagcomp_hit *hit)
{
    return trace_at(lc, when, start, end, shooter, out, hit, 1);
}

int zl_lagcomp_trace_all(zl_lagcomp *lc, const zl_lagcomp_time *when, const zl_vec3 *start,
                         const zl_vec3 *end, int32_t shooter, zl_trace *out, zl_lagcomp_hit *hit)
{
    return trace_at(lc, when, start, end, shooter, out, hit, 0);
}

static int shot_trace(void *ctx, const zl_vec3 *start, const zl_vec3 *end, int32_t shooter,
                      zl_trace *out)
{
    zl_lagcomp_shot *shot = (zl_lagcomp_shot *)ctx;
    int rc = zl_lagcomp_trace(shot->lc, &shot->when, start, end, shooter, out, &shot->last);
    if (shot->last.target >= 0)
        shot->hits++;
    return rc;
}

zl_shot_tracer zl_lagcomp_tracer(zl_lagcomp_shot *shot, zl_lagcomp *lc,
                                 const zl_lagcomp_time *when)
{
    zl_lagcomp_shot fresh;
    zl_shot_tracer tracer;
    ZL_ASSERT(shot && lc);
    memset(&fresh, 0, sizeof fresh);
    fresh.lc = lc;
    fresh.last.target = -1;
    if (when)
        fresh.when = *when;
    else
        zl_lagcomp_present(lc, &fresh.when);
    *shot = fresh;
    tracer.ctx = shot;
    tracer.trace = shot_trace;
    return tracer;
}
