/* zl_ray.h - a segment against an axis-aligned box, exact in fixed point:
 * the shot test of lag compensation and the sweep of collide-and-slide. */
#ifndef ZL_RAY_H
#define ZL_RAY_H

#include "zl_fixed.h"

ZL_BEGIN_DECLS

/* Every coordinate given to zl_ray_box must lie strictly inside
 * (-ZL_RAY_LIMIT, ZL_RAY_LIMIT): +/-8192 units. Then differences stay below
 * 2^30 raw units and every product below 2^61, so no step overflows int64
 * and the segment length fits a zl_fx. */
#define ZL_RAY_LIMIT ZL_FX_INT(8192)

/* 1 when every coordinate of v lies strictly inside (-ZL_RAY_LIMIT,
 * ZL_RAY_LIMIT), the range zl_ray_box accepts, else 0. Inline: sweeps
 * check their ends before every test. */
static inline int zl_ray_in_range(const zl_vec3 *v)
{
    /* One unsigned compare per coordinate: adding LIMIT - 1 maps the open
     * range onto [0, 2 LIMIT - 2] and wraps everything else above it. */
    const uint32_t lift = (uint32_t)ZL_RAY_LIMIT - 1u, span = 2u * lift;
    return (uint32_t)v->x + lift <= span && (uint32_t)v->y + lift <= span &&
           (uint32_t)v->z + lift <= span;
}

/* An axis-aligned box; min <= max on each axis (an inverted box is empty). */
typedef struct zl_box {
    zl_vec3 min, max;
} zl_box;

/* Where a segment start -> end meets a box. */
typedef struct zl_hit {
    /* The exact fraction of the segment, t = t_num / t_den with
     * 0 <= t_num <= t_den and 0 < t_den < 2^30: compare hits with
     * zl_hit_nearer, never by the rounded fields below. */
    int32_t t_num, t_den;
    zl_fx fraction;   /* t as Q16.16, rounded to nearest */
    zl_vec3 point;    /* start + (end - start) * t, each axis rounded to
                         nearest (halves away from zero); exactly on the
                         entered face along `axis` */
    zl_fx distance;   /* |end - start| * t, within 1 raw unit */
    int8_t axis;      /* 0, 1, 2: the axis of the face entered; -1 when
                         the segment starts inside the box */
    int8_t normal;    /* +1 or -1: that face's outward direction along
                         axis (the side the segment came from); 0 inside */
} zl_hit;

/* Tests the segment start -> end against the box. The box is open: only
 * points strictly inside count, so a segment that merely touches it (runs
 * along a face, through an edge or a corner, or ends on a face) misses.
 * The hit is the first point of the segment on the box's boundary after
 * which it is inside: t = 0 when it starts on a face moving inward, or
 * when it starts inside (axis -1). A zero-length segment hits when its
 * point is inside. Returns 1 (hit, *hit filled), 0 (miss, *hit untouched),
 * or ZL_ERR_INVALID when a coordinate is outside the supported range. */
int zl_ray_box(const zl_vec3 *start, const zl_vec3 *end, const zl_box *box, zl_hit *hit);

/* zl_ray_box for a caller that has already made sure (zl_ray_in_range)
 * that start, end and both corners of the box lie in range: the same
 * answer and hit without the checks, for inner loops. Out-of-range input
 * is a programming error here (the arithmetic may overflow). */
int zl_ray_box_unchecked(const zl_vec3 *start, const zl_vec3 *end, const zl_box *box,
                         zl_hit *hit);

/* A segment prepared once for many quick box tests (a broadphase): its
 * midpoint and direction doubled, so the tests stay in integers. */
typedef struct zl_segment {
    int64_t mid2[3]; /* start + end */
    int64_t dir[3];  /* end - start */
    int64_t len[3];  /* |end - start| per axis */
} zl_segment;

/* Prepares start -> end: ZL_OK, or ZL_ERR_INVALID (g unusable) when a
 * coordinate lies outside the range zl_ray_box supports. */
int zl_segment_init(zl_segment *g, const zl_vec3 *start, const zl_vec3 *end);

/* 1 when the segment meets the CLOSED box (touching counts), else 0: exact
 * (a separating-axis test), so it never rejects a box zl_ray_box would
 * hit, and it costs a few multiplies. The box's corners must lie within
 * the supported range too (not checked). */
int zl_segment_meets(const zl_segment *g, const zl_box *box);

/* 1 when a lies strictly before b along the same segment, else 0. Exact:
 * use it to keep the nearest of several hits (ties keep the first). */
int zl_hit_nearer(const zl_hit *a, const zl_hit *b);

/* v * t for the hit's exact t, rounded to nearest (halves away from zero):
 * the time or distance used up to the hit. |v| must be below 2^31. */
zl_fx zl_hit_scale(const zl_hit *hit, zl_fx v);

ZL_END_DECLS

#endif
