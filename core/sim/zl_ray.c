/* zl_ray.c - the slab method with every slab crossing kept as an exact
 * fraction, so touching, grazing and entering are decided without rounding. */
#include "zl_ray.h"

#include "zl_int.h"

/* A crossing time num / den with den > 0. Within the supported range both
 * are below 2^30 in magnitude: they fit int32, so a cross product is one
 * 32 x 32 -> 64 multiply (a single instruction on 32-bit cores) below 2^60. */
typedef struct frac {
    int32_t num, den;
} frac;

static int frac_less(frac a, frac b)
{
    return (int64_t)a.num * b.den < (int64_t)b.num * a.den;
}

/* n / d rounded to nearest, halves away from zero (d > 0). Monotone in n:
 * a rounded point never crosses a face that lies on the raw-unit grid,
 * which is what keeps movers out of the boxes they touch. */
static int64_t div_round(int64_t n, int64_t d)
{
    int64_t q = n / d;
    int64_t r = n % d; /* C99: truncation, so r has the sign of n */
    if (r < 0)
        r = -r;
    if (2 * r >= d)
        q += n < 0 ? -1 : 1;
    return q;
}

/* 1 when the segment's bounding box and the open box share no interior:
 * then nothing can hit, and the exact test is not needed. Pure int32
 * compares, so most boxes of a scene are rejected cheaply. */
static int apart(const zl_vec3 *s, const zl_vec3 *e, const zl_box *b)
{
    return (s->x <= b->min.x && e->x <= b->min.x) || (s->x >= b->max.x && e->x >= b->max.x) ||
           (s->y <= b->min.y && e->y <= b->min.y) || (s->y >= b->max.y && e->y >= b->max.y) ||
           (s->z <= b->min.z && e->z <= b->min.z) || (s->z >= b->max.z && e->z >= b->max.z);
}

int zl_segment_init(zl_segment *g, const zl_vec3 *start, const zl_vec3 *end)
{
    const zl_fx s[3] = {start->x, start->y, start->z}, e[3] = {end->x, end->y, end->z};
    int i;
    ZL_ASSERT(g && start && end);
    if (!zl_ray_in_range(start) || !zl_ray_in_range(end))
        return ZL_ERR_INVALID;
    for (i = 0; i < 3; i++) {
        g->mid2[i] = (int64_t)s[i] + e[i];
        g->dir[i] = (int64_t)e[i] - s[i];
        g->len[i] = zl_abs64(g->dir[i]);
    }
    return ZL_OK;
}

/* Box and segment are apart when some axis separates them: the three box
 * axes and the three crossings of a box axis with the segment. Everything
 * is doubled to stay in integers; inside the supported range every
 * product is below 2^62. */
int zl_segment_meets(const zl_segment *g, const zl_box *b)
{
    int64_t cx = g->mid2[0] - ((int64_t)b->min.x + b->max.x); /* centre offset */
    int64_t cy = g->mid2[1] - ((int64_t)b->min.y + b->max.y);
    int64_t hx = (int64_t)b->max.x - b->min.x; /* half size */
    int64_t hy = (int64_t)b->max.y - b->min.y;
    int64_t cz, hz;
    /* The vertical axis first: shots fly mostly level, so the distance
     * from the line seen from above rejects most boxes at once. */
    if (zl_abs64(cx * g->dir[1] - cy * g->dir[0]) > hx * g->len[1] + hy * g->len[0])
        return 0;
    cz = g->mid2[2] - ((int64_t)b->min.z + b->max.z);
    hz = (int64_t)b->max.z - b->min.z;
    return zl_abs64(cy * g->dir[2] - cz * g->dir[1]) <= hy * g->len[2] + hz * g->len[1] &&
           zl_abs64(cz * g->dir[0] - cx * g->dir[2]) <= hz * g->len[0] + hx * g->len[2] &&
           zl_abs64(cx) <= hx + g->len[0] && zl_abs64(cy) <= hy + g->len[1] &&
           zl_abs64(cz) <= hz + g->len[2];
}

static void fill_hit(const zl_vec3 *start, const zl_vec3 *end, frac t, int axis, int normal,
                     zl_hit *hit)
{
    int64_t dx = (int64_t)end->x - start->x;
    int64_t dy = (int64_t)end->y - start->y;
    int64_t dz = (int64_t)end->z - start->z;
    uint32_t length;
    hit->t_num = t.num;
    hit->t_den = t.den;
    hit->axis = (int8_t)axis;
    hit->normal = (int8_t)normal;
    if (t.num == 0) {
        /* Contact at the start (a mover resting on a floor, or inside):
         * every rounded product of t is exactly zero, no division needed. */
        hit->fraction = 0;
        hit->point = *start;
        hit->distance = 0;
        return;
    }
    length = zl_isqrt64((uint64_t)(dx * dx + dy * dy + dz * dz));
    hit->fraction = (zl_fx)div_round((int64_t)t.num * 65536, t.den);
    hit->point.x = (zl_fx)(start->x + div_round(dx * t.num, t.den));
    hit->point.y = (zl_fx)(start->y + div_round(dy * t.num, t.den));
    hit->point.z = (zl_fx)(start->z + div_round(dz * t.num, t.den));
    hit->distance = (zl_fx)div_round((int64_t)length * t.num, t.den);
}

/* The slab method's progress along the segment: the latest entry and the
 * earliest exit so far, and the face of that entry (axis -1: none yet). */
typedef struct slabs {
    frac enter, leave;
    int axis, normal;
} slabs;

/* Narrows c by the slab lo < x < hi of one axis; 0 when the segment is
 * never inside it. In range, every difference stays under 2^30. */
static int clip_slab(slabs *c, zl_fx s, zl_fx e, zl_fx lo, zl_fx hi, int axis)
{
    zl_fx d = e - s;
    frac en, ex;
    if (d == 0) {
        /* Parallel to this slab: inside it for the whole segment, or
         * never (on the face counts as outside: the box is open). */
        return s > lo && s < hi;
    }
    en.den = ex.den = d > 0 ? d : -d;
    en.num = d > 0 ? lo - s : s - hi;
    ex.num = d > 0 ? hi - s : s - lo;
    /* Strictly later entries win, so an exact corner reports the lowest
     * axis: the same answer on every platform. */
    if (c->axis < 0 || frac_less(c->enter, en)) {
        c->enter = en;
        c->axis = axis;
        c->normal = d > 0 ? -1 : 1;
    }
    if (frac_less(ex, c->leave))
        c->leave = ex;
    return 1;
}

/* The slab test proper, for coordinates known to be in range. */
static int ray_box(const zl_vec3 *start, const zl_vec3 *end, const zl_box *box, zl_hit *hit)
{
    slabs c;
    c.enter.num = 0;
    c.enter.den = 1;
    c.leave.num = 1; /* the exit starts at the segment's end */
    c.leave.den = 1;
    c.axis = -1;
    c.normal = 0;
    if (!clip_slab(&c, start->x, end->x, box->min.x, box->max.x, 0) ||
        !clip_slab(&c, start->y, end->y, box->min.y, box->max.y, 1) ||
        !clip_slab(&c, start->z, end->z, box->min.z, box->max.z, 2))
        return 0;
    /* Inside every open slab at once for some t in [0, 1]: the latest entry
     * comes strictly before the earliest exit, which is after the start. */
    if (c.axis >= 0 && !frac_less(c.enter, c.leave))
        return 0;
    if (c.leave.num <= 0)
        return 0;
    if (c.axis < 0 || c.enter.num < 0) {
        c.enter.num = 0;
        c.enter.den = 1;
        c.axis = -1;
        c.normal = 0;
    }
    fill_hit(start, end, c.enter, c.axis, c.normal, hit);
    return 1;
}

int zl_ray_box(const zl_vec3 *start, const zl_vec3 *end, const zl_box *box, zl_hit *hit)
{
    ZL_ASSERT(start && end && box && hit);
    if (!zl_ray_in_range(start) || !zl_ray_in_range(end) || !zl_ray_in_range(&box->min) ||
        !zl_ray_in_range(&box->max))
        return ZL_ERR_INVALID;
    if (apart(start, end, box))
        return 0;
    return ray_box(start, end, box, hit);
}

int zl_ray_box_unchecked(const zl_vec3 *start, const zl_vec3 *end, const zl_box *box,
                         zl_hit *hit)
{
    ZL_ASSERT(start && end && box && hit);
    return ray_box(start, end, box, hit);
}

int zl_hit_nearer(const zl_hit *a, const zl_hit *b)
{
    frac fa, fb;
    fa.num = a->t_num;
    fa.den = a->t_den;
    fb.num = b->t_num;
    fb.den = b->t_den;
    return frac_less(fa, fb);
}

zl_fx zl_hit_scale(const zl_hit *hit, zl_fx v)
{
    return (zl_fx)div_round((int64_t)v * hit->t_num, hit->t_den);
}
