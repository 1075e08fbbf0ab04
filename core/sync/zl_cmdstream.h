/* zl_cmdstream.h - user commands up the wire: the commands message's header
 * and the redundant run of commands a client packet carries.
 * Not part of the API (docs/ARCHITECTURE.md): public because the endpoints use
 * its sizes and types; an application calls none of it. */
#ifndef ZL_CMDSTREAM_H
#define ZL_CMDSTREAM_H

#include "zl_ring.h"
#include "zl_usercmd.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_CMDSTREAM_MAX_PER_PACKET >= 1 && ZL_CMDSTREAM_MAX_PER_PACKET <= 255,
                 zl_cmdstream_max_per_packet);

/* ---- The wire: the commands message's header ----
 * Before the run, a command packet says two things about its client:
 * whether it lost its snapshot baseline (1 bit), and how far behind its
 * snapshot clock it draws the other players (its interpolation delay in
 * use, ZL_VIEW_DELAY_BITS in units of ZL_VIEW_DELAY_UNIT_US): the server
 * needs the delay to estimate that client's view time for lag compensation,
 * and an adaptive client changes it as its link changes. */
#define ZL_VIEW_DELAY_UNIT_US 32u
#define ZL_VIEW_DELAY_BITS 16

typedef struct zl_commands_header {
    uint8_t need_full;      /* 1: send a full snapshot (no baseline held) */
    uint32_t view_delay_us; /* the client's interpolation delay in use */
} zl_commands_header;

/* Writes h; a delay above what the field holds (about 2.1 s) is sent as
 * the largest. Returns the writer's sticky error or the bits written. */
int zl_commands_header_write(zl_bitwriter *w, const zl_commands_header *h);

/* Reads a header into *h (the delay rounded down to the unit). ZL_OK, or
 * the reader's sticky ZL_ERR_OVERFLOW (*h then garbage). */
int zl_commands_header_read(zl_bitreader *r, zl_commands_header *h);

/* ---- The wire: a run of consecutive commands ----
 * Layout: the count (0..ZL_CMDSTREAM_MAX_PER_PACKET, 6 bits by default);
 * when it is not 0, the low 16 bits of the first command's sequence, then
 * each command delta-coded against the one before (zl_usercmd_write; the
 * first against the all-zero command). An empty run costs only the count. */

/* Writes cmds[0 .. count-1] (caller-owned, read only), whose sequences must
 * be consecutive, oldest first: typically every command the server has not
 * acknowledged, newest last. count is 0 .. ZL_CMDSTREAM_MAX_PER_PACKET
 * (outside: programmer error). Returns the bits written; ZL_ERR_INVALID,
 * writing nothing, when a command fails zl_usercmd_validate or the
 * sequences are not consecutive; the writer's sticky ZL_ERR_OVERFLOW when
 * the run does not fit (the packet is then unusable). */
int zl_cmdstream_write(zl_bitwriter *w, const zl_usercmd *cmds, int count);

/* Reads a run written by zl_cmdstream_write into out[0 .. max-1] (max >= 0,
 * caller-owned), through plan (zl_usercmd_schema prepared, as
 * zl_usercmd_read takes it). The 16-bit first sequence is widened to the 32-bit
 * sequence nearest newest_known (within -32768 .. +32767): pass the newest
 * sequence received from this client (zl_cmdbuf_newest, zl_cmdbuf.h),
 * which before the first packet is the sequence just before the client's
 * first command.
 * Every command returned passes zl_usercmd_validate and out[i].sequence is
 * out[0].sequence + i. Returns the count (0 included); on hostile bytes
 * ZL_ERR_OVERFLOW (the stream ends early) or ZL_ERR_MALFORMED (a value out
 * of range, or a count above max): out is then garbage. */
int zl_cmdstream_read(zl_bitreader *r, const zl_schema_plan *plan, uint32_t newest_known,
                      zl_usercmd *out, int max);

ZL_END_DECLS

#endif
