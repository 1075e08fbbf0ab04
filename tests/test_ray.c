/* test_ray.c - segment vs box: hand cases for grazing, starting inside and
 * parallel rays, an exact rational oracle on small grids, and long rays. */
#include <math.h>
#include <stdlib.h>

#include "zl_ray.h"
#include "zl_test.h"

static zl_vec3 units(int32_t x, int32_t y, int32_t z)
{
    return zl_vec3_make(ZL_FX_INT(x), ZL_FX_INT(y), ZL_FX_INT(z));
}

static zl_box box_units(int32_t x0, int32_t y0, int32_t z0, int32_t x1, int32_t y1, int32_t z1)
{
    zl_box b;
    b.min = units(x0, y0, z0);
    b.max = units(x1, y1, z1);
    return b;
}

static int ray(zl_vec3 s, zl_vec3 e, zl_box b, zl_hit *h)
{
    return zl_ray_box(&s, &e, &b, h);
}

static void test_head_on(void)
{
    zl_box b = box_units(10, -1, -1, 12, 1, 1);
    zl_hit h;
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(20, 0, 0), b, &h), 1);
    ZL_CHECK_EQ((int64_t)h.t_num * 2, h.t_den); /* t = 1/2 exactly */
    ZL_CHECK_EQ(h.fraction, ZL_FX_HALF);
    ZL_CHECK(zl_vec3_equal(h.point, units(10, 0, 0)));
    ZL_CHECK_EQ(h.distance, ZL_FX_INT(10));
    ZL_CHECK_EQ(h.axis, 0);
    ZL_CHECK_EQ(h.normal, -1);
    /* Scaling by t = 1/2: halves round away from zero. */
    ZL_CHECK_EQ(zl_hit_scale(&h, 1), 1);
    ZL_CHECK_EQ(zl_hit_scale(&h, 3), 2);
    ZL_CHECK_EQ(zl_hit_scale(&h, -3), -2);
    /* From the other side: the max face, outward normal +1. */
    ZL_CHECK_EQ(ray(units(30, 0, 0), units(0, 0, 0), b, &h), 1);
    ZL_CHECK(zl_vec3_equal(h.point, units(12, 0, 0)));
    ZL_CHECK_EQ(h.normal, 1);
    ZL_CHECK_EQ(h.distance, ZL_FX_INT(18));
    /* Down onto a floor: axis z. */
    ZL_CHECK_EQ(ray(units(11, 0, 5), units(11, 0, -5), b, &h), 1);
    ZL_CHECK_EQ(h.axis, 2);
    ZL_CHECK_EQ(h.normal, 1);
    ZL_CHECK_EQ(h.point.z, ZL_FX_INT(1));
}

static void test_misses(void)
{
    zl_box b = box_units(10, -1, -1, 12, 1, 1);
    zl_hit h;
    h.axis = 42;
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(9, 0, 0), b, &h), 0);   /* stops short */
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(10, 0, 0), b, &h), 0);  /* ends on the face */
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(-20, 0, 0), b, &h), 0); /* points away */
    ZL_CHECK_EQ(ray(units(0, 5, 0), units(20, 5, 0), b, &h), 0);  /* passes beside */
    ZL_CHECK_EQ(ray(units(20, 0, 0), units(30, 0, 0), b, &h), 0); /* beyond it */
    ZL_CHECK_EQ(h.axis, 42);                                       /* untouched on a miss */
    /* Ending one raw unit past the face does enter. */
    {
        zl_vec3 s = units(0, 0, 0), e = units(10, 0, 0);
        e.x += 1;
        ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), 1);
        ZL_CHECK_EQ(h.point.x, ZL_FX_INT(10));
    }
}

static void test_grazing(void)
{
    zl_box b = box_units(10, -1, -1, 12, 1, 1);
    zl_hit h;
    zl_vec3 s, e;
    /* Along a face plane, through an edge, through a corner: all touch only. */
    ZL_CHECK_EQ(ray(units(0, 1, 0), units(20, 1, 0), b, &h), 0);
    ZL_CHECK_EQ(ray(units(0, -1, 0), units(20, -1, 0), b, &h), 0);
    ZL_CHECK_EQ(ray(units(0, 1, 1), units(20, 1, 1), b, &h), 0);
    ZL_CHECK_EQ(ray(units(8, -1, 0), units(12, 3, 0), b, &h), 0);  /* meets only the edge (10,1) */
    ZL_CHECK_EQ(ray(units(8, -1, -1), units(12, 3, 3), b, &h), 0); /* only the corner (10,1,1) */
    ZL_CHECK_EQ(ray(units(12, 0, 5), units(12, 0, -5), b, &h), 0); /* down a face */
    /* One raw unit inside the face plane enters. */
    s = units(0, 1, 0);
    e = units(20, 1, 0);
    s.y -= 1;
    e.y -= 1;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), 1);
    ZL_CHECK_EQ(h.point.x, ZL_FX_INT(10));
    ZL_CHECK_EQ(h.axis, 0);
    /* The same diagonal one raw unit lower cuts the edge: it enters. */
    s = units(8, -1, 0);
    e = units(12, 3, 0);
    s.y -= 1;
    e.y -= 1;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), 1);
    ZL_CHECK_EQ(h.point.x, ZL_FX_INT(10));
    ZL_CHECK_EQ(h.axis, 0);
}

static void test_start_inside_and_on_faces(void)
{
    zl_box b = box_units(10, -1, -1, 12, 1, 1);
    zl_hit h;
    ZL_CHECK_EQ(ray(units(11, 0, 0), units(50, 0, 0), b, &h), 1);
    ZL_CHECK_EQ(h.axis, -1);
    ZL_CHECK_EQ(h.normal, 0);
    ZL_CHECK_EQ(h.t_num, 0);
    ZL_CHECK_EQ(h.distance, 0);
    ZL_CHECK(zl_vec3_equal(h.point, units(11, 0, 0)));
    /* Starting and ending inside, and a zero-length segment inside. */
    ZL_CHECK_EQ(ray(units(11, 0, 0), units(11, 0, 0), b, &h), 1);
    ZL_CHECK_EQ(h.axis, -1);
    ZL_CHECK_EQ(ray(units(13, 0, 0), units(13, 0, 0), b, &h), 0);
    ZL_CHECK_EQ(ray(units(10, 0, 0), units(10, 0, 0), b, &h), 0); /* on a face */
    /* On a face: moving in hits at t = 0 through that face; moving out or
     * along it does not hit. */
    ZL_CHECK_EQ(ray(units(10, 0, 0), units(20, 0, 0), b, &h), 1);
    ZL_CHECK_EQ(h.t_num, 0);
    ZL_CHECK_EQ(h.axis, 0);
    ZL_CHECK_EQ(h.normal, -1);
    ZL_CHECK_EQ(ray(units(10, 0, 0), units(0, 0, 0), b, &h), 0);
    ZL_CHECK_EQ(ray(units(10, 0, 0), units(10, 5, 0), b, &h), 0);
    /* Standing on top (z = max) and walking: no hit; stepping down: hit. */
    ZL_CHECK_EQ(ray(units(11, 0, 1), units(11, 1, 1), b, &h), 0);
    ZL_CHECK_EQ(ray(units(11, 0, 1), units(11, 0, 0), b, &h), 1);
    ZL_CHECK_EQ(h.axis, 2);
    ZL_CHECK_EQ(h.t_num, 0);
}

static void test_parallel(void)
{
    zl_box b = box_units(-2, -2, -2, 2, 2, 2);
    zl_hit h;
    /* Parallel to x and y, moving along z: inside the x and y slabs hits. */
    ZL_CHECK_EQ(ray(units(1, 1, 10), units(1, 1, -10), b, &h), 1);
    ZL_CHECK_EQ(h.point.z, ZL_FX_INT(2));
    ZL_CHECK_EQ(h.axis, 2);
    /* Outside one parallel slab: misses however long the segment. */
    ZL_CHECK_EQ(ray(units(3, 1, 10), units(3, 1, -10), b, &h), 0);
    ZL_CHECK_EQ(ray(units(1, -3, 10), units(1, -3, -10), b, &h), 0);
    /* Exactly on a parallel face: misses (touching). */
    ZL_CHECK_EQ(ray(units(2, 1, 10), units(2, 1, -10), b, &h), 0);
}

static void test_range(void)
{
    zl_box b = box_units(-1, -1, -1, 1, 1, 1);
    zl_hit h;
    zl_vec3 s = units(-8191, 0, 0), e = units(8191, 0, 0);
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), 1);
    s.x = -ZL_RAY_LIMIT + 1;
    e.x = ZL_RAY_LIMIT - 1;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), 1);
    ZL_CHECK_EQ(h.point.x, ZL_FX_INT(-1));
    s.x = -ZL_RAY_LIMIT;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), ZL_ERR_INVALID);
    s.x = 0;
    e.y = ZL_RAY_LIMIT;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), ZL_ERR_INVALID);
    {
        zl_segment g;
        ZL_CHECK_EQ(zl_segment_init(&g, &s, &e), ZL_ERR_INVALID);
        e.y = -ZL_RAY_LIMIT + 1;
        ZL_CHECK_EQ(zl_segment_init(&g, &s, &e), ZL_OK);
    }
    e.y = 0;
    b.max.z = ZL_FX_MAX;
    ZL_CHECK_EQ(zl_ray_box(&s, &e, &b, &h), ZL_ERR_INVALID);
}

/* Exact oracle on a small grid. Coordinates are whole units in [-6, 6], so
 * every slab crossing is (face - s) / d with |d| <= 12; scaled by
 * S = 4 * lcm(1..12) every crossing time is an even integer, and the
 * midpoint between two crossings is an integer time at which the point's
 * position times S is an integer too. The segment is inside the open box
 * between two consecutive crossings iff it is at their midpoint: the
 * first such interval starts at the first hit. A different method from
 * the slab code, with no rounding anywhere. */
#define ORACLE_S (4 * 27720)

static int inside_at(const int32_t s[3], const int32_t d[3], const int32_t lo[3],
                     const int32_t hi[3], int64_t time)
{
    int i;
    for (i = 0; i < 3; i++) {
        int64_t p = (int64_t)s[i] * ORACLE_S + (int64_t)d[i] * time;
        if (p <= (int64_t)lo[i] * ORACLE_S || p >= (int64_t)hi[i] * ORACLE_S)
            return 0;
    }
    return 1;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The segment's slab crossing times and its two ends, scaled and sorted. */
static int crossings(const int32_t s[3], const int32_t d[3], const int32_t lo[3],
                     const int32_t hi[3], int64_t t[8])
{
    int n = 0, i;
    t[n++] = 0;
    t[n++] = ORACLE_S;
    for (i = 0; i < 3; i++) {
        if (d[i] == 0)
            continue;
        t[n++] = ((int64_t)lo[i] - s[i]) * ORACLE_S / d[i];
        t[n++] = ((int64_t)hi[i] - s[i]) * ORACLE_S / d[i];
    }
    qsort(t, (size_t)n, sizeof t[0], cmp64);
    return n;
}

/* Returns -1 for a miss, else the scaled hit time; *axis gets the axis. */
static int64_t oracle(const int32_t s[3], const int32_t d[3], const int32_t lo[3],
                      const int32_t hi[3], int *axis)
{
    int64_t t[8];
    int n = crossings(s, d, lo, hi, t), i, k;
    *axis = -1;
    if (inside_at(s, d, lo, hi, 0))
        return 0;
    for (k = 0; k + 1 < n; k++) {
        if (t[k] < 0 || t[k + 1] > ORACLE_S || t[k] == t[k + 1])
            continue;
        if (inside_at(s, d, lo, hi, (t[k] + t[k + 1]) / 2)) {
            /* The entered face: the lowest axis whose entry time is t[k]. */
            for (i = 0; i < 3; i++) {
                int32_t face = d[i] > 0 ? lo[i] : hi[i];
                if (d[i] != 0 && ((int64_t)face - s[i]) * ORACLE_S / d[i] == t[k]) {
                    *axis = i;
                    break;
                }
            }
            return t[k];
        }
    }
    return -1;
}

/* 1 when the segment meets the closed box: its meeting set is a closed
 * interval whose ends are crossing times, so testing those suffices. */
static int touches(const int32_t s[3], const int32_t d[3], const int32_t lo[3],
                   const int32_t hi[3])
{
    int64_t t[8];
    int n = crossings(s, d, lo, hi, t), i, k;
    for (k = 0; k < n; k++) {
        if (t[k] < 0 || t[k] > ORACLE_S)
            continue;
        for (i = 0; i < 3; i++) {
            int64_t p = (int64_t)s[i] * ORACLE_S + (int64_t)d[i] * t[k];
            if (p < (int64_t)lo[i] * ORACLE_S || p > (int64_t)hi[i] * ORACLE_S)
                break;
        }
        if (i == 3)
            return 1;
    }
    return 0;
}

/* Random segments against random boxes on a unit grid, so touching is
 * common, checked against the exact oracle: zl_ray_box's hit and t, and
 * zl_segment_meets's closed-box answer. */
static void test_exact_oracle(void)
{
    zl_test_rng rng;
    int iter, hits = 0, grazes = 0, inside = 0, n = ZL_TEST_ITERATIONS(200000);
    zl_test_rng_seed(&rng, 21);
    for (iter = 0; iter < n; iter++) {
        int32_t s[3], e[3], d[3], lo[3], hi[3];
        int i, axis, got;
        int64_t want;
        zl_vec3 vs, ve;
        zl_box b;
        zl_hit h;
        zl_segment g;
        for (i = 0; i < 3; i++) {
            s[i] = zl_test_rng_range(&rng, -6, 6);
            e[i] = zl_test_rng_range(&rng, -6, 6);
            if (zl_test_rng_range(&rng, 0, 3) == 0)
                e[i] = s[i]; /* parallel on this axis */
            d[i] = e[i] - s[i];
            lo[i] = zl_test_rng_range(&rng, -3, 2);
            hi[i] = lo[i] + zl_test_rng_range(&rng, 1, 3);
        }
        vs = units(s[0], s[1], s[2]);
        ve = units(e[0], e[1], e[2]);
        b = box_units(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        want = oracle(s, d, lo, hi, &axis);
        got = zl_ray_box(&vs, &ve, &b, &h);
        ZL_CHECK_EQ(got, want >= 0);
        /* The quick test decides the closed box exactly. */
        ZL_CHECK_EQ(zl_segment_init(&g, &vs, &ve), ZL_OK);
        ZL_CHECK_EQ(zl_segment_meets(&g, &b), touches(s, d, lo, hi));
        if (got != (want >= 0))
            return;
        if (want < 0) {
            grazes += touches(s, d, lo, hi);
            continue;
        }
        hits++;
        inside += axis < 0;
        /* Exact t, the entered face, and the point within half a raw unit. */
        ZL_CHECK_EQ((int64_t)h.t_num * ORACLE_S, want * h.t_den);
        ZL_CHECK_EQ(h.axis, axis);
        for (i = 0; i < 3; i++) {
            double exact = ((double)s[i] + (double)d[i] * (double)want / ORACLE_S) * 65536.0;
            zl_fx p = i == 0 ? h.point.x : i == 1 ? h.point.y : h.point.z;
            ZL_CHECK(fabs((double)p - exact) <= 0.5);
        }
        if (h.axis >= 0) {
            zl_fx p = h.axis == 0 ? h.point.x : h.axis == 1 ? h.point.y : h.point.z;
            int32_t face = h.normal < 0 ? lo[h.axis] : hi[h.axis];
            ZL_CHECK_EQ(p, ZL_FX_INT(face));
        }
        {
            double len = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
            double dist = len * 65536.0 * (double)want / ORACLE_S;
            ZL_CHECK(fabs((double)h.distance - dist) <= 2.0);
        }
    }
    /* The grid makes touching common: those must all have been misses.
     * Shares measured on the host: 2.5% hits, 3.5% touching, 1/2500
     * starting inside. */
    ZL_CHECK(hits * 50 > n && grazes * 50 > n && inside * 4000 > n);
    zl_test_note("%d hits (%d starting inside) exact; %d touching-only rays missed", hits,
                 inside, grazes);
}

static zl_fx rand_coord(zl_test_rng *rng)
{
    return zl_test_rng_range(rng, -ZL_RAY_LIMIT + 1, ZL_RAY_LIMIT - 1);
}

/* Random boxes anywhere in the supported range, shot from anywhere through
 * their centre: always a hit (for the quick test too), t checked against
 * long double. */
static void test_long_rays(void)
{
    zl_test_rng rng;
    int iter, hits = 0;
    double worst = 0;
    zl_test_rng_seed(&rng, 23);
    for (iter = 0; iter < ZL_TEST_ITERATIONS(20000); iter++) {
        zl_fx lo[3], hi[3], c[3], s[3], e[3];
        zl_vec3 vs, ve;
        zl_box b;
        zl_hit h;
        int i, got, beyond = 0;
        long double tin = 0;
        for (i = 0; i < 3; i++) {
            lo[i] = zl_test_rng_range(&rng, -ZL_RAY_LIMIT + 1, ZL_RAY_LIMIT - 0x10000);
            hi[i] = lo[i] + zl_test_rng_range(&rng, 2, 0x10000 * 64);
            if (hi[i] >= ZL_RAY_LIMIT)
                hi[i] = ZL_RAY_LIMIT - 1;
            c[i] = lo[i] + (hi[i] - lo[i]) / 2;
            s[i] = rand_coord(&rng);
            e[i] = c[i] + (c[i] - s[i]) / 2; /* past the centre */
            beyond |= e[i] <= -ZL_RAY_LIMIT || e[i] >= ZL_RAY_LIMIT;
        }
        for (i = 0; i < 3 && beyond; i++)
            e[i] = c[i]; /* stop at the centre instead */
        b.min = zl_vec3_make(lo[0], lo[1], lo[2]);
        b.max = zl_vec3_make(hi[0], hi[1], hi[2]);
        vs = zl_vec3_make(s[0], s[1], s[2]);
        ve = zl_vec3_make(e[0], e[1], e[2]);
        got = zl_ray_box(&vs, &ve, &b, &h);
        {
            /* No overflow in the quick test at the range's edges either. */
            zl_segment g;
            ZL_CHECK(zl_segment_init(&g, &vs, &ve) == ZL_OK && zl_segment_meets(&g, &b));
        }
        for (i = 0; i < 3; i++) {
            long double di = (long double)e[i] - s[i];
            if (di != 0) {
                long double t0 = ((long double)lo[i] - s[i]) / di;
                long double t1 = ((long double)hi[i] - s[i]) / di;
                if (t1 < t0)
                    t0 = t1;
                if (t0 > tin)
                    tin = t0;
            }
        }
        ZL_CHECK_EQ(got, 1); /* the centre is strictly inside */
        if (got == 1) {
            long double err = (long double)h.t_num / h.t_den - tin;
            hits++;
            if (err < 0)
                err = -err;
            if ((double)err > worst)
                worst = (double)err;
            ZL_CHECK(err < 1e-12L);
            ZL_CHECK(h.distance >= 0 && h.fraction >= 0 && h.fraction <= ZL_FX_ONE);
        }
    }
    ZL_CHECK(hits > 0);
    zl_test_note("%d long rays, max |t - t_ref| %.3f e-18", hits, worst * 1e18);
}

static void test_nearer_and_scale(void)
{
    zl_box near_box = box_units(10, -1, -1, 11, 1, 1), far_box = box_units(20, -1, -1, 21, 1, 1);
    zl_hit a, b;
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(30, 0, 0), near_box, &a), 1);
    ZL_CHECK_EQ(ray(units(0, 0, 0), units(30, 0, 0), far_box, &b), 1);
    ZL_CHECK(zl_hit_nearer(&a, &b));
    ZL_CHECK(!zl_hit_nearer(&b, &a));
    ZL_CHECK(!zl_hit_nearer(&a, &a));
    /* t = 1/3: a third of 3 units, and a third of 1 raw unit rounds to 0. */
    ZL_CHECK_EQ(zl_hit_scale(&a, ZL_FX_INT(3)), ZL_FX_INT(1));
    ZL_CHECK_EQ(zl_hit_scale(&a, 1), 0);
    ZL_CHECK_EQ(zl_hit_scale(&a, 2), 1); /* 2/3 rounds up */
    ZL_CHECK_EQ(zl_hit_scale(&a, -2), -1);
    ZL_CHECK_EQ(zl_hit_scale(&b, ZL_FX_INT(30)), ZL_FX_INT(20));
}

void zl_suite_ray(void)
{
    ZL_RUN(test_head_on);
    ZL_RUN(test_misses);
    ZL_RUN(test_grazing);
    ZL_RUN(test_start_inside_and_on_faces);
    ZL_RUN(test_parallel);
    ZL_RUN(test_range);
    ZL_RUN(test_exact_oracle);
    ZL_RUN(test_long_rays);
    ZL_RUN(test_nearer_and_scale);
}
