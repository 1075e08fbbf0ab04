/* demo_watch.h - zl_client --watch URL: a spectator following a broadcast
 * over HTTP on its delay, in the terminal view or headless. */
#ifndef DEMO_WATCH_H
#define DEMO_WATCH_H

#include "demo_options.h"

/* Follows the broadcast at o->watch until it ends, o->fragments were
 * played, o->duration_s passed or Ctrl-C (or q in the view). Returns the
 * process exit status: 0, 1 when nothing could be played, 2 when this
 * build has no HTTP client (a port without libcurl). */
int demo_watch_run(const demo_options *o);

#endif
