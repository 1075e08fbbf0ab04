/* fps_world.c - the arena (floor, walls, ceiling, crates, stairs) as static
 * axis-aligned boxes, and the hull sweep that movement and shots use. */
#include "fps.h"

/* The arena, one X(arg, index, x0, y0, z0, x1, y1, z1) per wall in whole
 * units. The index is the wall's place in world[] and its bit in the band
 * masks below; the checks after them keep the two consistent.
 *
 * Whole-unit corners keep every face on the wire's 1/32-unit grid, and
 * player hull sizes are whole units too, so quantising a player's origin
 * can never push it into a wall it touches. A jump rises 45 units: the
 * 40-unit crates are reachable from the floor, the 80-unit one from them;
 * stairs climb 16 units per step (the step-up limit is 18) to a 96-unit
 * platform; a beam 48 units up lets only crouching players (36) pass. */
#define ARENA(X, arg)                                                           \
    X(arg, 0, -1056, -1056, -64, 1056, 1056, 0)   /* floor */                   \
    X(arg, 1, -1056, -1056, 512, 1056, 1056, 544) /* ceiling */                 \
    X(arg, 2, -1056, -1056, 0, -1024, 1056, 512)  /* west wall */               \
    X(arg, 3, 1024, -1056, 0, 1056, 1056, 512)    /* east wall */               \
    X(arg, 4, -1024, -1056, 0, 1024, -1024, 512)  /* south wall */              \
    X(arg, 5, -1024, 1024, 0, 1024, 1056, 512)    /* north wall */              \
    X(arg, 6, 192, 192, 0, 256, 256, 40)          /* crate */                   \
    X(arg, 7, 256, 192, 0, 320, 256, 80)          /* tall crate beside it */    \
    X(arg, 8, -400, 300, 0, -336, 364, 32)        /* small crate */             \
    X(arg, 9, -200, -500, 0, -72, -436, 40)       /* long crate */              \
    X(arg, 10, 500, -700, 0, 532, -572, 16)       /* stairs */                  \
    X(arg, 11, 532, -700, 0, 564, -572, 32)                                     \
    X(arg, 12, 564, -700, 0, 596, -572, 48)                                     \
    X(arg, 13, 596, -700, 0, 628, -572, 64)                                     \
    X(arg, 14, 628, -700, 0, 660, -572, 80)                                     \
    X(arg, 15, 660, -700, 0, 788, -572, 96)       /* platform at the top */     \
    X(arg, 16, -700, -300, 48, -500, -200, 64)    /* beam: crouch to pass under */

#define WALL(arg, n, x0, y0, z0, x1, y1, z1)                                    \
    [n] = {{ZL_FX_INT(x0), ZL_FX_INT(y0), ZL_FX_INT(z0)},                       \
           {ZL_FX_INT(x1), ZL_FX_INT(y1), ZL_FX_INT(z1)}},
static const zl_box world[] = {ARENA(WALL, 0)};

/* A broadphase that cannot go stale: x and y are each cut into bands of
 * 128 units, and a band's mask has the bit of every wall whose open extent
 * on that axis overlaps the band's. A wall sharing interior with a sweep's
 * reach (the only walls out_of_reach keeps) has, on each axis, an inner
 * point that is also inside the reach; that point's band is among those
 * the reach covers, and the wall overlaps it. So the AND of the x and y
 * masks of the covered bands keeps every wall that matters. (Height sorts
 * out the rest cheaply: out_of_reach tests it first.) The masks are
 * constant expressions over the ARENA list itself. */
#define BAND_FIRST (-1088) /* units; band k spans FIRST + 128k to FIRST + 128(k + 1) */
#define BAND_SHIFT 23      /* 128 units in Q16.16 */
#define BANDS 17
#define BAND_LO(k) (BAND_FIRST + 128 * (k))
#define BAND_HI(k) (BAND_LO(k) + 128)
#define OVERLAPS(k, lo, hi) ((lo) < BAND_HI(k) && (hi) > BAND_LO(k))
#define MEETS_X(k, n, x0, y0, z0, x1, y1, z1) | (OVERLAPS(k, x0, x1) ? 1ul << (n) : 0ul)
#define MEETS_Y(k, n, x0, y0, z0, x1, y1, z1) | (OVERLAPS(k, y0, y1) ? 1ul << (n) : 0ul)
#define BAND_X(k) (uint32_t)(0ul ARENA(MEETS_X, k))
#define BAND_Y(k) (uint32_t)(0ul ARENA(MEETS_Y, k))
#define EVERY_BAND(M) M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10), \
    M(11), M(12), M(13), M(14), M(15), M(16)
static const uint32_t x_bands[] = {EVERY_BAND(BAND_X)};
static const uint32_t y_bands[] = {EVERY_BAND(BAND_Y)};

/* The checks: indices 0..count-1, each once (so world[] is the list in
 * order), a mask bit for each, every band listed, and every wall inside
 * them (and as near the origin in height: HULL_LIMIT counts on it). */
#define ONE(arg, n, x0, y0, z0, x1, y1, z1) +1
#define BIT(arg, n, x0, y0, z0, x1, y1, z1) | (1ul << (n))
#define INSIDE(arg, n, x0, y0, z0, x1, y1, z1)                                  \
    &&(x0) >= BAND_LO(0) && (y0) >= BAND_LO(0) && (z0) >= BAND_LO(0) &&          \
        (x1) <= BAND_HI(BANDS - 1) && (y1) <= BAND_HI(BANDS - 1) && (z1) <= BAND_HI(BANDS - 1)
#define WALLS (0 ARENA(ONE, 0))
#define ALL_WALLS ((uint32_t)((1ul << WALLS) - 1ul))
ZL_STATIC_ASSERT(WALLS <= 31 && ZL_COUNTOF(world) == WALLS, walls_fit_a_mask);
ZL_STATIC_ASSERT((0ul ARENA(BIT, 0)) == ALL_WALLS, wall_indices_distinct);
ZL_STATIC_ASSERT(ZL_COUNTOF(x_bands) == BANDS, every_band_listed);
ZL_STATIC_ASSERT(1 ARENA(INSIDE, 0), walls_inside_the_bands);

typedef struct spawn {
    int16_t x, y;
    int16_t yaw_deg;
} spawn;

/* On the floor, clear of every crate, facing the middle. */
static const spawn spawns[] = {
    {-800, -800, 45}, {800, 800, 225}, {-800, 800, 315}, {800, -200, 180},
    {0, -860, 90},    {-600, 0, 0},
};

/* The wall grown by the hull: the hull overlaps the wall exactly when its
 * origin is inside this box (Minkowski sum), so a sweep is one ray. Walls
 * and hulls are a few thousand units at most: plain int32 sums suffice. */
static zl_box grown(const zl_box *wall, const zl_box *hull)
{
    zl_box b;
    b.min.x = wall->min.x - hull->max.x;
    b.min.y = wall->min.y - hull->max.y;
    b.min.z = wall->min.z - hull->max.z;
    b.max.x = wall->max.x - hull->min.x;
    b.max.y = wall->max.y - hull->min.y;
    b.max.z = wall->max.z - hull->min.z;
    return b;
}

/* The hull bound fps_world_sweep documents. The arena lies within 1088
 * units of the origin, so with such a hull every sum below stays in int32
 * and every grown wall far inside the range zl_ray_box accepts. */
#define HULL_LIMIT ZL_FX_INT(1024)

static int hull_fits(const zl_box *hull)
{
    return hull->min.x >= -HULL_LIMIT && hull->min.y >= -HULL_LIMIT &&
           hull->min.z >= -HULL_LIMIT && hull->max.x <= HULL_LIMIT &&
           hull->max.y <= HULL_LIMIT && hull->max.z <= HULL_LIMIT;
}

/* The space the hull passes through on its way from start to end: the
 * bounding box of the hull at both ends. */
static zl_box reach(const zl_vec3 *start, const zl_vec3 *end, const zl_box *hull)
{
    zl_box r;
    r.min.x = (start->x < end->x ? start->x : end->x) + hull->min.x;
    r.min.y = (start->y < end->y ? start->y : end->y) + hull->min.y;
    r.min.z = (start->z < end->z ? start->z : end->z) + hull->min.z;
    r.max.x = (start->x > end->x ? start->x : end->x) + hull->max.x;
    r.max.y = (start->y > end->y ? start->y : end->y) + hull->max.y;
    r.max.z = (start->z > end->z ? start->z : end->z) + hull->max.z;
    return r;
}

/* The band holding coordinate c; beyond the bands, the nearest one (no
 * wall lies out there, so that only widens the search). */
static int band_of(zl_fx c)
{
    int32_t v = c - ZL_FX_INT(BAND_FIRST);
    if (v < 0)
        return 0;
    v >>= BAND_SHIFT;
    return v < BANDS ? (int)v : BANDS - 1;
}

static uint32_t bands_meeting(const uint32_t *masks, zl_fx lo, zl_fx hi)
{
    int k = band_of(lo), last = band_of(hi);
    uint32_t m = masks[k];
    while (k < last)
        m |= masks[++k];
    return m;
}

/* 1 when the wall and the reach share no interior. Then the segment's
 * bounds lie on or beyond a face of the grown wall, which zl_ray_box
 * answers with a miss: skipping the wall changes nothing. */
static int out_of_reach(const zl_box *wall, const zl_box *r)
{
    /* Height first: the bands sort walls out mostly by x and y already. */
    return wall->min.z >= r->max.z || wall->max.z <= r->min.z || wall->min.x >= r->max.x ||
           wall->max.x <= r->min.x || wall->min.y >= r->max.y || wall->max.y <= r->min.y;
}

/* The walls worth testing for the hull moving start -> end (a superset,
 * from the bands), with *r its reach for out_of_reach. Unless bounded (the
 * ends in range and the hull within HULL_LIMIT), the sums could overflow:
 * then every wall, and a reach out_of_reach never skips. */
static inline uint32_t walls_near(const zl_vec3 *start, const zl_vec3 *end, const zl_box *hull,
                                  int bounded, zl_box *r)
{
    if (!bounded) {
        r->min.x = r->min.y = r->min.z = ZL_FX_MIN;
        r->max.x = r->max.y = r->max.z = ZL_FX_MAX;
        return ALL_WALLS;
    }
    *r = reach(start, end, hull);
    return bands_meeting(x_bands, r->min.x, r->max.x) & bands_meeting(y_bands, r->min.y, r->max.y);
}

int fps_world_sweep(const zl_vec3 *start, const zl_vec3 *end, const zl_box *hull, zl_hit *hit)
{
    zl_box r;
    uint32_t walls;
    int i, found = 0, fits = hull_fits(hull);
    if (!zl_ray_in_range(start) || !zl_ray_in_range(end))
        return ZL_ERR_INVALID;
    walls = walls_near(start, end, hull, fits, &r);
    /* In world order, so ties go to the same wall as in a full scan. */
    for (i = 0; walls != 0; i++, walls >>= 1) {
        zl_box b;
        zl_hit h;
        int rc;
        if (!(walls & 1u) || out_of_reach(&world[i], &r))
            continue;
        b = grown(&world[i], hull);
        /* A fitting hull keeps every grown wall in range: no checks. */
        rc = fits ? zl_ray_box_unchecked(start, end, &b, &h) : zl_ray_box(start, end, &b, &h);
        if (rc < 0)
            return rc;
        /* A wall already overlapped at the start (axis -1) does not block:
         * walking out of it must stay possible. */
        if (rc == 1 && h.axis >= 0 && (!found || zl_hit_nearer(&h, hit))) {
            *hit = h;
            found = 1;
        }
    }
    return found;
}

int fps_world_blocked(const zl_vec3 *origin, const zl_box *hull)
{
    zl_box r;
    int i, bounded = hull_fits(hull) && zl_ray_in_range(origin);
    uint32_t walls = walls_near(origin, origin, hull, bounded, &r);
    for (i = 0; walls != 0; i++, walls >>= 1) {
        zl_box b;
        zl_hit h;
        if (!(walls & 1u) || out_of_reach(&world[i], &r))
            continue;
        b = grown(&world[i], hull);
        /* A zero-length segment hits only when it starts inside (and the
         * checked call refuses a far origin, as it always did). */
        if (zl_ray_box(origin, origin, &b, &h) == 1)
            return 1;
    }
    return 0;
}

int fps_world_walls(const zl_box **walls)
{
    *walls = world;
    return (int)ZL_COUNTOF(world);
}

uint32_t fps_world_spawn_count(void)
{
    return (uint32_t)ZL_COUNTOF(spawns);
}

void fps_world_spawn_point(uint32_t index, zl_vec3 *origin, zl_angle *yaw)
{
    const spawn *s = &spawns[index % ZL_COUNTOF(spawns)];
    *origin = zl_vec3_make(ZL_FX_INT(s->x), ZL_FX_INT(s->y), 0);
    *yaw = ZL_ANGLE_DEG(s->yaw_deg);
}
