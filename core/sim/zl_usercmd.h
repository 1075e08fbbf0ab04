/* zl_usercmd.h - one tick of player input as the client sampled it, its
 * schema, range checks, and its delta coding against the previous command. */
#ifndef ZL_USERCMD_H
#define ZL_USERCMD_H

#include "zl_schema.h"

ZL_BEGIN_DECLS

#define ZL_USERCMD_MSEC_MAX 250 /* longest command (Half-Life's msec cap) */
#define ZL_USERCMD_MOVE_MAX 127 /* full stick on forward/side/up */

/* A user command. The game reads it; the core moves it. */
typedef struct zl_usercmd {
    /* Command number, +1 per command. Not sent by zl_usercmd_write:
     * commands travel in runs of consecutive numbers, each delta-coded
     * against the one before, so the reader derives it (prev + 1); the
     * protocol carries the first number of a run (as 16 bits, widened
     * against the last one received). */
    uint32_t sequence;
    /* Lag compensation: what the client drew when it sampled this
     * command. Other entities were interpolated between the samples of
     * server ticks render_tick and render_tick + render_span at the Q16
     * fraction render_frac / 65536 (zl_schema_interpolate with that t), so
     * the server can rebuild the same boxes bit for bit. render_span 0:
     * the client drew the sample of render_tick itself. render_tick must
     * stay below 2^31. While snapshots are late the client extrapolates
     * past the newer sample: t is then render_whole + render_frac / 65536
     * (render_whole 1..ZL_USERCMD_RENDER_WHOLE_MAX, 0 otherwise), and the
     * server rebuilds that guess as exactly. */
    uint32_t render_tick;
    uint16_t render_frac;
    uint8_t render_span;
    uint8_t render_whole;
    uint16_t msec; /* duration in milliseconds, 1..ZL_USERCMD_MSEC_MAX */
    zl_angle yaw, pitch; /* view angles; the game gives them meaning */
    uint16_t buttons;    /* game-defined button bits */
    /* Movement axes, -ZL_USERCMD_MOVE_MAX..ZL_USERCMD_MOVE_MAX (-128 is
     * invalid): the fraction of full speed asked for on each axis. */
    int8_t forward, side, up;
    uint8_t weapon; /* game-defined weapon request; 0 = no change */
    uint8_t seed;   /* random seed for spread, so shots are predictable */
} zl_usercmd;

/* The schema of zl_usercmd: what is sent, in which ranges, in wire order
 * (fields that change every command first). `sequence` is ZL_LOCAL. */
extern const zl_schema zl_usercmd_schema;

/* The largest whole part of an extrapolated drawing's fraction: 63 covers
 * Source's 250 ms of extrapolation past a pair of 128 Hz ticks. */
#define ZL_USERCMD_RENDER_WHOLE_MAX 63

/* ZL_OK when every field is in its documented range, else ZL_ERR_INVALID
 * (msec 0 or above 250, a move axis of -128, render_tick >= 2^31,
 * render_whole above ZL_USERCMD_RENDER_WHOLE_MAX). */
int zl_usercmd_validate(const zl_usercmd *cmd);

/* Writes cmd as a delta against prev, the command sent just before it
 * (NULL for the first of a run: then against the all-zero command). An
 * unchanged command costs 1 bit; a typical one (new view angles, seed and
 * render time) about 70. Returns the number of bits written, the writer's
 * sticky ZL_ERR_OVERFLOW, or ZL_ERR_INVALID (nothing written) when cmd
 * fails zl_usercmd_validate or its sequence is not prev->sequence + 1. */
int zl_usercmd_write(zl_bitwriter *w, const zl_usercmd *prev, const zl_usercmd *cmd);

/* Reads a command written by zl_usercmd_write against the same prev into
 * out (which may alias prev; prev passes zl_usercmd_validate, as every
 * command read does), through plan: zl_usercmd_schema prepared by
 * zl_schema_plan_init (a server reads a command from every client every
 * tick; the plan makes each field's decisions once, not per read).
 * out->sequence becomes prev->sequence + 1, or 0 with a NULL prev (the
 * caller then sets it from the packet). Whatever
 * is accepted passes zl_usercmd_validate. Returns ZL_OK, or the reader's
 * sticky error (ZL_ERR_OVERFLOW, ZL_ERR_MALFORMED); out is then garbage. */
int zl_usercmd_read(zl_bitreader *r, const zl_schema_plan *plan, const zl_usercmd *prev,
                    zl_usercmd *out);

ZL_END_DECLS

#endif
