/* demo_arena.h - the FPS arena seen from above, for the terminal view and the
 * pictures: how high the walls stand in each cell of a grid. */
#ifndef DEMO_ARENA_H
#define DEMO_ARENA_H

#include "fps.h"

/* What a cell holds. */
typedef struct demo_cell {
    int32_t top;     /* highest solid point in the cell, units; 0: open floor */
    uint8_t low;     /* 1: something stands on the floor (else only overhead) */
} demo_cell;

/* Probes the square cell of half-width `half` units centred on (x, y)
 * (units) with the game's own collision test, so the map is what players
 * bump into, not a second copy of the level. */
demo_cell demo_arena_cell(int32_t x, int32_t y, int32_t half);

/* The arena's walls (outer edge) in units: the square +/- DEMO_ARENA_HALF. */
#define DEMO_ARENA_HALF 1024

#endif
