/* demo_arena.c - maps the arena by asking the rules whether a thin column of
 * space in a cell is blocked, and from what height. */
#include "demo_arena.h"

#define CEILING 511 /* the ceiling slab starts at 512: stay below it */

/* 1 when a wall overlaps the cell's column between z0 and z1 (units). */
static int blocked(int32_t x, int32_t y, int32_t half, int32_t z0, int32_t z1)
{
    zl_vec3 origin = zl_vec3_make(ZL_FX_INT(x), ZL_FX_INT(y), 0);
    zl_box column;
    column.min = zl_vec3_make(ZL_FX_INT(-half), ZL_FX_INT(-half), ZL_FX_INT(z0));
    column.max = zl_vec3_make(ZL_FX_INT(half), ZL_FX_INT(half), ZL_FX_INT(z1));
    return fps_world_blocked(&origin, &column);
}

demo_cell demo_arena_cell(int32_t x, int32_t y, int32_t half)
{
    demo_cell c;
    int32_t lo = 1, hi = CEILING;
    c.top = 0;
    c.low = 0;
    if (!blocked(x, y, half, 1, CEILING))
        return c;
    /* "Blocked from z up" only loses truth as z rises: search the top. */
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) / 2;
        if (blocked(x, y, half, mid, CEILING))
            lo = mid;
        else
            hi = mid - 1;
    }
    c.top = lo + 1;
    c.low = (uint8_t)blocked(x, y, half, 1, 2);
    return c;
}
