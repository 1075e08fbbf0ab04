/* fps_world.c - the arena (floor, walls, ceiling, crates, stairs) as static
 * axis-aligned boxes, and the hull sweep that movement and shots use. */
#include "fps.h"

#define BOX(x0, y0, z0, x1, y1, z1)                                        \
    {                                                                       \
        {ZL_FX_INT(x0), ZL_FX_INT(y0), ZL_FX_INT(z0)},                      \
            {ZL_FX_INT(x1), ZL_FX_INT(y1), ZL_FX_INT(z1)}                   \
    }

/* Whole-unit corners keep every face on the wire's 1/32-unit grid, and
 * player hull sizes are whole units too, so quantising a player's origin
 * can never push it into a wall it touches. A jump rises 45 units: the
 * 40-unit crates are reachable from the floor, the 80-unit one from them;
 * stairs climb 16 units per step (the step-up limit is 18) to a 96-unit
 * platform; a beam 48 units up lets only crouching players (36) pass. */
static const zl_box world[] = {
    BOX(-1056, -1056, -64, 1056, 1056, 0),    /* floor */
    BOX(-1056, -1056, 512, 1056, 1056, 544),  /* ceiling */
    BOX(-1056, -1056, 0, -1024, 1056, 512),   /* west wall */
    BOX(1024, -1056, 0, 1056, 1056, 512),     /* east wall */
    BOX(-1024, -1056, 0, 1024, -1024, 512),   /* south wall */
    BOX(-1024, 1024, 0, 1024, 1056, 512),     /* north wall */
    BOX(192, 192, 0, 256, 256, 40),           /* crate */
    BOX(256, 192, 0, 320, 256, 80),           /* tall crate beside it */
    BOX(-400, 300, 0, -336, 364, 32),         /* small crate */
    BOX(-200, -500, 0, -72, -436, 40),        /* long crate */
    BOX(500, -700, 0, 532, -572, 16),         /* stairs */
    BOX(532, -700, 0, 564, -572, 32),
    BOX(564, -700, 0, 596, -572, 48),
    BOX(596, -700, 0, 628, -572, 64),
    BOX(628, -700, 0, 660, -572, 80),
    BOX(660, -700, 0, 788, -572, 96),         /* platform at the top */
    BOX(-700, -300, 48, -500, -200, 64),      /* beam: crouch to pass under */
};

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

int fps_world_sweep(const zl_vec3 *start, const zl_vec3 *end, const zl_box *hull, zl_hit *hit)
{
    zl_segment g;
    size_t i;
    int found = 0;
    if (zl_segment_init(&g, start, end) != ZL_OK)
        return ZL_ERR_INVALID;
    for (i = 0; i < ZL_COUNTOF(world); i++) {
        zl_box b = grown(&world[i], hull);
        zl_hit h;
        int rc;
        if (!zl_segment_meets(&g, &b))
            continue; /* the quick test: most walls are far from the path */
        rc = zl_ray_box(start, end, &b, &h);
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
    size_t i;
    for (i = 0; i < ZL_COUNTOF(world); i++) {
        zl_box b = grown(&world[i], hull);
        zl_hit h;
        /* A zero-length segment hits only when it starts inside. */
        if (zl_ray_box(origin, origin, &b, &h) == 1)
            return 1;
    }
    return 0;
}

void fps_world_spawn_point(uint32_t index, zl_vec3 *origin, zl_angle *yaw)
{
    const spawn *s = &spawns[index % ZL_COUNTOF(spawns)];
    *origin = zl_vec3_make(ZL_FX_INT(s->x), ZL_FX_INT(s->y), 0);
    *yaw = ZL_ANGLE_DEG(s->yaw_deg);
}
