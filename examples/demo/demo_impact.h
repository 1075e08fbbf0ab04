/* demo_impact.h - the impact message: the server tells a shooter where it
 * traced the player the shot hit, for sv_showimpacts-style overlays. */
#ifndef DEMO_IMPACT_H
#define DEMO_IMPACT_H

#include <stddef.h>
#include <stdint.h>

#include "zl_ray.h"

/* A reliable message, server to the shooter of each hitscan shot that hit
 * a player: its kind byte, the target's slot, the firing command's sequence
 * (4 bytes, little endian), then the target's box as the server rewound it
 * and as it stood when traced: min x, y, z, max x, y, z, each a Q16.16
 * int32, little endian. */
#define DEMO_MSG_IMPACT 'I'
#define DEMO_MSG_IMPACT_BYTES 54

typedef struct demo_impact {
    int32_t target; /* slot, 0..ZL_MAX_CLIENTS-1 */
    uint32_t sequence;
    zl_box rewound, current; /* units (Q16.16) */
} demo_impact;

/* Writes i as a message into out (DEMO_MSG_IMPACT_BYTES bytes). */
void demo_impact_write(uint8_t out[DEMO_MSG_IMPACT_BYTES], const demo_impact *i);

/* Reads a message of len bytes: 1 with *out filled, or 0 (out untouched)
 * unless it is exactly an impact message naming a slot below
 * ZL_MAX_CLIENTS. Any box values are accepted: drawing clamps them. */
int demo_impact_read(const uint8_t *msg, size_t len, demo_impact *out);

#endif
