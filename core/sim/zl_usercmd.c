/* zl_usercmd.c - the user command's field table and the thin checks around
 * the schema's delta coding: commands have no serialiser of their own. */
#include "zl_usercmd.h"

/* Ranges mirror zl_usercmd_validate, so a decoded command is always valid.
 * render_tick usually moves by a tick or two per command: a difference.
 * render_frac (the render time's phase within a tick) and seed (a random
 * number) are not near the previous command's: sent whole, as FLAGS. */
static const zl_field usercmd_fields[] = {
    ZL_FIELD_INT(zl_usercmd, render_tick, 0, INT32_MAX, ZL_INTERP_LINEAR | ZL_DELTA),
    ZL_FIELD_FLAGS(zl_usercmd, render_frac, 16, ZL_INTERP_STEP),
    ZL_FIELD_FLAGS(zl_usercmd, seed, 8, ZL_INTERP_STEP),
    ZL_FIELD_ANGLE(zl_usercmd, yaw, 16, ZL_INTERP_ARC),
    ZL_FIELD_ANGLE(zl_usercmd, pitch, 16, ZL_INTERP_ARC),
    ZL_FIELD_FLAGS(zl_usercmd, buttons, 16, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_usercmd, forward, -ZL_USERCMD_MOVE_MAX, ZL_USERCMD_MOVE_MAX, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_usercmd, side, -ZL_USERCMD_MOVE_MAX, ZL_USERCMD_MOVE_MAX, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_usercmd, up, -ZL_USERCMD_MOVE_MAX, ZL_USERCMD_MOVE_MAX, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_usercmd, weapon, 0, 255, ZL_INTERP_STEP),
    /* Steady while the snapshot rate is: late in the wire order. */
    ZL_FIELD_INT(zl_usercmd, render_span, 0, 255, ZL_INTERP_STEP),
    ZL_FIELD_INT(zl_usercmd, msec, 1, ZL_USERCMD_MSEC_MAX, ZL_INTERP_STEP),
    /* Zero but while snapshots are late: last, where it costs nothing. */
    ZL_FIELD_INT(zl_usercmd, render_whole, 0, ZL_USERCMD_RENDER_WHOLE_MAX, ZL_INTERP_STEP),
    /* All 32 bits, for hashing and comparing commands; never sent. */
    ZL_FIELD_FLAGS(zl_usercmd, sequence, 32, ZL_INTERP_STEP | ZL_LOCAL),
};

const zl_schema zl_usercmd_schema = ZL_SCHEMA(zl_usercmd, usercmd_fields);

int zl_usercmd_validate(const zl_usercmd *cmd)
{
    ZL_ASSERT(cmd);
    if (cmd->msec < 1 || cmd->msec > ZL_USERCMD_MSEC_MAX)
        return ZL_ERR_INVALID;
    if (cmd->forward < -ZL_USERCMD_MOVE_MAX || cmd->side < -ZL_USERCMD_MOVE_MAX ||
        cmd->up < -ZL_USERCMD_MOVE_MAX)
        return ZL_ERR_INVALID;
    if (cmd->render_tick > (uint32_t)INT32_MAX || cmd->render_whole > ZL_USERCMD_RENDER_WHOLE_MAX)
        return ZL_ERR_INVALID;
    return ZL_OK;
}

int zl_usercmd_write(zl_bitwriter *w, const zl_usercmd *prev, const zl_usercmd *cmd)
{
    ZL_ASSERT(w && cmd);
    if (zl_usercmd_validate(cmd) != ZL_OK)
        return ZL_ERR_INVALID;
    if (prev && cmd->sequence != prev->sequence + 1u)
        return ZL_ERR_INVALID;
    return zl_schema_write_delta(&zl_usercmd_schema, w, prev, cmd, ZL_SCHEMA_WIRE);
}

/* What a delta from nothing (zl_usercmd_write's NULL prev) decodes to:
 * each field's code for 0, which is 0 but for msec, whose range starts at
 * 1. tests/test_usercmd.c reads random runs both ways. */
static const zl_usercmd from_nothing = {.msec = 1};

int zl_usercmd_read(zl_bitreader *r, const zl_schema_plan *plan, const zl_usercmd *prev,
                    zl_usercmd *out)
{
    /* Taken before out is written: out may alias prev. */
    uint32_t sequence = prev ? prev->sequence + 1u : 0u;
    int rc;
    ZL_ASSERT(r && plan && plan->schema == &zl_usercmd_schema && out);
    /* In place over a copy of the base: a valid command's every value is a
     * code of its field, so the fields the delta leaves alone keep the
     * base's bytes without coding them again, and reading stops at the
     * last field sent. From nothing, the code is read against nothing
     * (its values whole, zl_schema.h) over the fields' codes for 0. */
    if (out != prev)
        *out = prev ? *prev : from_nothing;
    rc = zl_schema_plan_read_delta(plan, r, prev ? out : NULL, out, ZL_SCHEMA_WIRE);
    out->sequence = sequence;
    return rc;
}
