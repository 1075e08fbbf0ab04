/* zl_cmdstream.c - the commands message's codec: its header and the run of
 * commands, each delta-coded against the one before. */
#include "zl_cmdstream.h"

int zl_commands_header_write(zl_bitwriter *w, const zl_commands_header *h)
{
    uint32_t delay = h->view_delay_us / ZL_VIEW_DELAY_UNIT_US;
    const uint32_t most = (1u << ZL_VIEW_DELAY_BITS) - 1u;
    ZL_ASSERT(w && h);
    zl_bitwriter_bool(w, h->need_full);
    zl_bitwriter_bits(w, delay < most ? delay : most, ZL_VIEW_DELAY_BITS);
    return w->error ? w->error : 1 + ZL_VIEW_DELAY_BITS;
}

int zl_commands_header_read(zl_bitreader *r, zl_commands_header *h)
{
    ZL_ASSERT(r && h);
    h->need_full = (uint8_t)zl_bitreader_bool(r);
    h->view_delay_us = zl_bitreader_bits(r, ZL_VIEW_DELAY_BITS) * ZL_VIEW_DELAY_UNIT_US;
    return r->error;
}

int zl_cmdstream_write(zl_bitwriter *w, const zl_usercmd *cmds, int count)
{
    uint32_t start;
    int i;
    ZL_ASSERT(w && count >= 0 && count <= ZL_CMDSTREAM_MAX_PER_PACKET);
    ZL_ASSERT(cmds || count == 0);
    /* Checked first so a refused run leaves the packet untouched. */
    for (i = 0; i < count; i++) {
        if (zl_usercmd_validate(&cmds[i]) != ZL_OK)
            return ZL_ERR_INVALID;
        if (i > 0 && cmds[i].sequence != cmds[i - 1].sequence + 1u)
            return ZL_ERR_INVALID;
    }
    start = zl_bitwriter_bits_used(w);
    zl_bitwriter_ranged(w, count, 0, ZL_CMDSTREAM_MAX_PER_PACKET);
    if (count > 0)
        zl_bitwriter_bits(w, cmds[0].sequence & 0xFFFFu, 16);
    for (i = 0; i < count; i++)
        zl_usercmd_write(w, i > 0 ? &cmds[i - 1] : NULL, &cmds[i]);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - start);
}

int zl_cmdstream_read(zl_bitreader *r, const zl_schema_plan *plan, uint32_t newest_known,
                      zl_usercmd *out, int max)
{
    int count, i;
    uint32_t first;
    ZL_ASSERT(r && max >= 0 && (out || max == 0));
    count = (int)zl_bitreader_ranged(r, 0, ZL_CMDSTREAM_MAX_PER_PACKET);
    if (r->error != ZL_OK)
        return r->error;
    if (count > max)
        return ZL_ERR_MALFORMED;
    if (count == 0)
        return 0;
    /* Adding the signed distance as uint32 wraps the same way the client's
     * counter does, so runs straddling 2^16 or 2^32 widen correctly. */
    first = newest_known +
            (uint32_t)zl_seq_diff((uint16_t)zl_bitreader_bits(r, 16), (uint16_t)newest_known);
    /* Each read numbers its command from the one before, so numbering the
     * first is enough. */
    for (i = 0; i < count; i++) {
        if (zl_usercmd_read(r, plan, i > 0 ? &out[i - 1] : NULL, &out[i]) != ZL_OK)
            return r->error;
        if (i == 0)
            out[0].sequence = first;
    }
    return count;
}
