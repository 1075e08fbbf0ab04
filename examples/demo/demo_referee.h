/* demo_referee.h - the server's side of the demo's records: each slot's net
 * graph as the server sees it, and the closing figures (tick cost, drops). */
#ifndef DEMO_REFEREE_H
#define DEMO_REFEREE_H

#include "demo_record.h"
#include "demo_stopwatch.h"

/* What the server refused of a client, from its stats, by reason
 * (demo_refusals_format names them). */
void demo_referee_refusals(const zl_server_client_stats *st, uint32_t out[DEMO_CLIENT_DROPS]);

/* A SLOT record for every connected slot below max_clients. */
void demo_referee_slots(zl_server *s, int max_clients, uint64_t now_us, const demo_sink *sink);

/* The TICKS record from the stopwatch (instructions: 1 when it counted
 * emulated instructions, not nanoseconds) and the DROPS record. */
void demo_referee_close(const zl_server *s, const demo_stopwatch *cost, uint32_t tick_rate,
                        int instructions, uint32_t timeouts, const demo_sink *sink);

#endif
