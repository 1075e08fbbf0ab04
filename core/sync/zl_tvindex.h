/* zl_tvindex.h - the broadcast's index: a few text lines naming the newest
 * fragment published, the server's clock and the delay, for spectators to poll. */
#ifndef ZL_TVINDEX_H
#define ZL_TVINDEX_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* The index, as text: "zerolag-broadcast 1\nfragment N\ntick T\nunix_ms M\n"
 * "tick_rate R\nfragment_ticks F\ndelay_ms D\n". Fragment N is the newest
 * published; tick T is the server's present when it was published, at
 * Unix time M (milliseconds), from which a spectator places its clock; it
 * plays D ms behind it. Fragments are F ticks long (the last may be shorter). */
typedef struct zl_tvindex {
    uint32_t fragment, tick, tick_rate, fragment_ticks, delay_ms;
    uint64_t unix_ms;
} zl_tvindex;

#define ZL_TVINDEX_MAX 192 /* bytes the index text takes at most */

/* Writes the index as text into buf (cap >= ZL_TVINDEX_MAX: ZL_ASSERT);
 * returns its length. */
size_t zl_tvindex_write(const zl_tvindex *idx, char *buf, size_t cap);

/* Reads an index of len bytes (hostile text fine): ZL_OK, or
 * ZL_ERR_MALFORMED when a line is missing, out of order, not a decimal
 * number that fits, or tick_rate is 0 (*out then unspecified). */
int zl_tvindex_read(const char *text, size_t len, zl_tvindex *out);

ZL_END_DECLS

#endif
