/* demo_report.h - the demo's text: the live net graph, one line per bot
 * refreshed in place, and the final report per bot and overall. */
#ifndef DEMO_REPORT_H
#define DEMO_REPORT_H

#include <stdio.h>

#include "demo_match.h"

/* Prints the net graph at now_ms (launcher clock). in_place: move the
 * cursor back over the previous graph first (a terminal); *lines holds the
 * lines drawn last time, for that. */
void demo_report_graph(FILE *f, const demo_match *m, uint32_t now_ms, int in_place, int *lines);

/* Room for demo_drops_format's text. */
#define DEMO_DROPS_TEXT_MAX 256

/* Writes the server's drop counters (ZL_SERVER_DROP_COUNT of them), each
 * by its name ("packet 3, message 0, ..."), into out (cap bytes, always
 * terminated): one wording for the server's status and the report. */
void demo_drops_format(const uint32_t dropped[ZL_SERVER_DROP_COUNT], char *out, size_t cap);
/* One drop reason's short name ("forged", ...), for ZL_SERVER_DROP_*. */
const char *demo_drop_name(int reason);

/* The same for what the server refused of one client
 * (demo_rec_slot.refused), by demo_refusal_names. */
void demo_refusals_format(const uint32_t refused[DEMO_CLIENT_DROPS], char *out, size_t cap);

/* The words for --fakeburst and --fakespike (", loss bursts of N datagrams
 * about every 2 s each way, a M ms lag spike every 5 s"), "" for neither;
 * a static buffer, valid until the next call. */
const char *demo_report_stalls(uint32_t fakeburst, uint32_t fakespike_ms);

/* Prints the final report; the file names are mentioned as given (NULL:
 * that picture failed; log_dir NULL: there are no logs). */
void demo_report_final(FILE *f, const demo_match *m, const char *hits_svg,
                       const char *timeline_svg, const char *log_dir);

#endif
