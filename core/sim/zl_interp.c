/* zl_interp.c - per-entity sample rings and the straddling-pair search that
 * draws other entities in the past, bridging losses and capping guesses. */
#include "zl_interp.h"

#include <string.h>

#define MASK (ZL_INTERP_SAMPLES - 1u)

void zl_interp_settings_default(zl_interp_settings *s)
{
    ZL_ASSERT(s);
    s->interp_us = 100000;
    s->interp_ratio = 2;
    s->extrapolate_us = 250000;
}

uint32_t zl_interp_delay_us(const zl_interp_settings *s, uint32_t updaterate)
{
    uint64_t ratio_us;
    ZL_ASSERT(s);
    if (updaterate == 0)
        return s->interp_us;
    ratio_us = ((uint64_t)s->interp_ratio * 1000000u + updaterate / 2u) / updaterate;
    if (ratio_us > UINT32_MAX)
        ratio_us = UINT32_MAX;
    return ratio_us > s->interp_us ? (uint32_t)ratio_us : s->interp_us;
}

void zl_interp_config_init(zl_interp_config *c, const zl_schema *schema)
{
    ZL_ASSERT(c && schema);
    c->schema = schema;
    c->plan = NULL;
    c->origin_field = -1;
    c->origin_axes = 3;
    c->teleport_field = -1;
    c->teleport_distance = ZL_INTERP_TELEPORT_DISTANCE;
}

void zl_interp_reset(zl_interp_history *h)
{
    ZL_ASSERT(h);
    h->count = 0;
}

static const zl_interp_entry *at_age(const zl_interp_history *h, uint32_t age)
{
    return &h->entry[(h->head - 1u - age) & MASK];
}

static zl_fx load_fx(const zl_field *f, const uint8_t *state)
{
    zl_fx v;
    memcpy(&v, state + f->offset, sizeof v);
    return v;
}

static uint64_t abs_diff(zl_fx a, zl_fx b)
{
    int64_t d = (int64_t)a - (int64_t)b;
    return (uint64_t)(d < 0 ? -d : d);
}

/* Euclidean, so a diagonal jump counts like a straight one. Each axis is
 * checked first: that bounds every squared term by distance^2 < 2^62, so
 * the sum of at most three fits in uint64. */
static int moved_too_far(const zl_interp_config *c, const uint8_t *a, const uint8_t *b)
{
    const zl_field *f = &c->schema->fields[c->origin_field];
    uint64_t limit = (uint64_t)c->teleport_distance, sum = 0;
    int i;
    for (i = 0; i < c->origin_axes; i++) {
        uint64_t d = abs_diff(load_fx(&f[i], a), load_fx(&f[i], b));
        if (d > limit)
            return 1;
        sum += d * d;
    }
    return sum > limit * limit;
}

static int is_teleport(const zl_interp_config *c, const uint8_t *newest, const uint8_t *state)
{
    if (c->teleport_field >= 0) {
        const zl_field *f = &c->schema->fields[c->teleport_field];
        /* Equality of the stored bytes needs no byte order. */
        if (memcmp(newest + f->offset, state + f->offset, f->size) != 0)
            return 1;
    }
    return c->origin_field >= 0 && c->teleport_distance > 0 && moved_too_far(c, newest, state);
}

int zl_interp_push(zl_interp_history *h, const zl_interp_config *c, uint32_t tick,
                   uint64_t time_us, const void *state)
{
    zl_interp_entry *e;
    int restarted = 0;
    ZL_ASSERT(h && c && c->schema && state);
    ZL_ASSERT(c->schema->size <= ZL_STATE_MAX);
    ZL_ASSERT(zl_origin_ok(c->schema, c->origin_field, c->origin_axes));
    ZL_ASSERT(c->teleport_field < (int)c->schema->count);
    ZL_ASSERT(h->count == 0 || h->config.schema == c->schema);
    ZL_ASSERT(!c->plan || c->plan->schema == c->schema);
    if (h->count > 0) {
        const zl_interp_entry *newest = at_age(h, 0);
        if (tick <= newest->tick) {
            h->stale++;
            return ZL_ERR_DUPLICATE;
        }
        if (time_us <= newest->time_us) {
            h->stale++;
            return ZL_ERR_INVALID;
        }
        if (is_teleport(c, newest->state, (const uint8_t *)state)) {
            h->count = 0;
            h->restarts++;
            restarted = 1;
        }
    }
    h->config = *c;
    e = &h->entry[h->head & MASK];
    e->tick = tick;
    e->time_us = time_us;
    memcpy(e->state, state, c->schema->size);
    h->head++;
    if (h->count < ZL_INTERP_SAMPLES)
        h->count++;
    h->pushed++;
    return restarted ? ZL_INTERP_RESTARTED : ZL_OK;
}

/* floor(rem * 65536 / den) for rem < den, by long division one bit at a
 * time: exact for every 64-bit time without a wider product. rem >= den -
 * rem is 2 * rem >= den with no overflow. */
static zl_fx frac16(uint64_t rem, uint64_t den)
{
    uint32_t q = 0;
    int i;
    for (i = 0; i < 16; i++) {
        q <<= 1;
        if (rem >= den - rem) {
            rem -= den - rem;
            q |= 1u;
        } else {
            rem += rem;
        }
    }
    return (zl_fx)q;
}

/* ONE + floor(ahead * 65536 / den), saturating at ZL_FX_MAX. */
static zl_fx beyond(uint64_t ahead, uint64_t den)
{
    uint64_t whole = ahead / den;
    if (whole >= 32767u)
        return ZL_FX_MAX;
    return ZL_FX_ONE + (zl_fx)(whole << 16) + frac16(ahead % den, den);
}

/* A NULL pick (the caller keeps none) is left unfilled. */
static void set_pick(zl_interp_pick *p, int mode, const zl_interp_entry *a,
                     const zl_interp_entry *b, zl_fx t)
{
    if (!p)
        return;
    p->mode = (uint8_t)mode;
    p->tick_a = a->tick;
    p->tick_b = b->tick;
    p->time_a = a->time_us;
    p->time_b = b->time_us;
    p->t = t;
}

static int hold(zl_interp_pick *p, const zl_interp_config *c, void *out, const zl_interp_entry *e)
{
    set_pick(p, ZL_PICK_HELD, e, e, 0);
    if (c->plan)
        zl_schema_plan_copy(c->plan, out, e->state, ZL_SCHEMA_ALL);
    else
        zl_schema_copy(c->schema, out, e->state, ZL_SCHEMA_ALL);
    return ZL_PICK_HELD;
}

/* Draws a..b at t, remembering the pair for the frame's next history. */
static int blend(zl_interp_frame *f, const zl_interp_history *h, uint32_t age_a, int mode,
                 zl_fx t, void *out, zl_interp_pick *pick)
{
    const zl_interp_entry *a = at_age(h, age_a), *b = at_age(h, age_a - 1u);
    f->age_a = age_a;
    f->time_a = a->time_us;
    f->time_b = b->time_us;
    f->t = t;
    f->mode = (uint8_t)mode;
    set_pick(pick, mode, a, b, t);
    if (h->config.plan)
        zl_schema_plan_interpolate(h->config.plan, out, a->state, b->state, t);
    else
        zl_schema_interpolate(h->config.schema, out, a->state, b->state, t);
    return mode;
}

void zl_interp_frame_begin(zl_interp_frame *f, const zl_interp_settings *s, uint64_t render_us)
{
    ZL_ASSERT(f && s);
    f->settings = *s;
    f->render_us = render_us;
    f->age_a = 0;
}

int zl_interp_frame_sample(zl_interp_frame *f, const zl_interp_history *h, void *out,
                           zl_interp_pick *pick)
{
    const zl_interp_entry *a, *b;
    uint64_t render_us;
    uint32_t age;
    ZL_ASSERT(f && h);
    render_us = f->render_us;
    if (pick) {
        memset(pick, 0, sizeof *pick);
        pick->render_us = render_us;
    }
    if (h->count == 0)
        return ZL_PICK_EMPTY;
    ZL_ASSERT(out);
    /* Sample times only grow toward the newest, so the same two times at
     * the same ages are the pair the walk below would find, with the same
     * fraction: past the newest when b is the newest, else straddling. */
    if (f->age_a && f->age_a < h->count && at_age(h, f->age_a)->time_us == f->time_a &&
        at_age(h, f->age_a - 1u)->time_us == f->time_b)
        return blend(f, h, f->age_a, f->mode, f->t, out, pick);
    b = at_age(h, 0);
    if (render_us >= b->time_us) {
        uint64_t ahead = render_us - b->time_us;
        if (ahead == 0 || h->count == 1 || f->settings.extrapolate_us == 0)
            return hold(pick, &h->config, out, b);
        a = at_age(h, 1);
        if (ahead > f->settings.extrapolate_us)
            ahead = f->settings.extrapolate_us;
        return blend(f, h, 1, ZL_PICK_EXTRAPOLATED, beyond(ahead, b->time_us - a->time_us), out,
                     pick);
    }
    /* The render time lies several samples back: walk to the pair around
     * it, so the drawing passes through every sample received instead of
     * cutting a fast curve with the chord of two distant ones. */
    for (age = 1; age < h->count; age++) {
        a = at_age(h, age);
        if (a->time_us <= render_us)
            return blend(f, h, age, ZL_PICK_BETWEEN,
                         frac16(render_us - a->time_us, b->time_us - a->time_us), out, pick);
        b = a;
    }
    /* Before the oldest sample: nothing older to come from, hold it. */
    return hold(pick, &h->config, out, b);
}

int zl_interp_sample(const zl_interp_history *h, const zl_interp_settings *s, uint64_t render_us,
                     void *out, zl_interp_pick *pick)
{
    zl_interp_frame f;
    zl_interp_frame_begin(&f, s, render_us);
    return zl_interp_frame_sample(&f, h, out, pick);
}

void zl_interp_pick_to_command(const zl_interp_pick *p, zl_usercmd *cmd)
{
    uint32_t tick = 0, span = 0;
    zl_fx t = 0;
    ZL_ASSERT(p && cmd);
    switch (p->mode) {
    case ZL_PICK_BETWEEN:
        span = p->tick_b - p->tick_a;
        if (span <= UINT8_MAX) {
            tick = p->tick_a;
            t = p->t;
        } else {
            tick = p->t < ZL_FX_HALF ? p->tick_a : p->tick_b;
            span = 0;
        }
        break;
    case ZL_PICK_HELD:
        tick = p->tick_a;
        break;
    case ZL_PICK_EXTRAPOLATED:
        span = p->tick_b - p->tick_a;
        if (span <= UINT8_MAX && p->t < (ZL_USERCMD_RENDER_WHOLE_MAX + 1) * ZL_FX_ONE) {
            tick = p->tick_a;
            t = p->t;
        } else {
            tick = p->tick_b;
            span = 0;
        }
        break;
    default:
        break;
    }
    cmd->render_tick = tick;
    cmd->render_span = (uint8_t)span;
    cmd->render_frac = (uint16_t)(t & 0xFFFF);
    cmd->render_whole = (uint8_t)(t >> 16);
}
