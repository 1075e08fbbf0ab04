/* demo_metrics.h - the server program's Prometheus endpoint: its counters
 * in the text exposition format on GET /metrics, from a tiny non-blocking
 * HTTP server that never holds up a tick. */
#ifndef DEMO_METRICS_H
#define DEMO_METRICS_H

#include <stdint.h>

#include "demo_agones.h"
#include "zl_server.h"

#define DEMO_METRICS_CONNS 4        /* scrapes served at once; more wait */
#define DEMO_METRICS_TEXT 131072    /* the most bytes of one exposition */
#define DEMO_METRICS_REQUEST 1024   /* a request head larger is refused */
#define DEMO_METRICS_TIMEOUT_US 5000000u /* a connection this old is closed */
#define DEMO_METRICS_BUCKETS 10     /* the tick duration histogram's, +Inf last */

typedef struct demo_metrics_conn {
    int sock;             /* -1: free */
    uint64_t since_us;
    int in_len;
    char in[DEMO_METRICS_REQUEST];
    int out_len, out_sent; /* 0 out_len: still reading the request */
    char out[DEMO_METRICS_TEXT];
} demo_metrics_conn;

/* Large: static storage. */
typedef struct demo_metrics {
    int listener;         /* -1: off */
    uint64_t tick_count;  /* ticks observed, and their cost, for the histogram */
    uint64_t tick_ns_sum;
    uint64_t bucket[DEMO_METRICS_BUCKETS];
    uint32_t served;      /* /metrics replies */
    uint32_t refused;     /* requests malformed, oversized, for another path or timed out */
    demo_metrics_conn conn[DEMO_METRICS_CONNS];
} demo_metrics;

/* Listens on address (IPv4 text) port: 0, or -1 when it cannot (m off). */
int demo_metrics_open(demo_metrics *m, const char *address, uint16_t port);

/* Adds one tick that took ns nanoseconds to the histogram. */
void demo_metrics_tick(demo_metrics *m, uint32_t ns);

/* Accepts, reads and answers what is waiting, never waiting itself: a
 * /metrics request gets the exposition of s (every connected slot's link,
 * by slot number) and of a (NULL: no fleet) at now_us. */
void demo_metrics_serve(demo_metrics *m, zl_server *s, const demo_agones *a, uint64_t now_us);

/* Writes the exposition into out (cap bytes): its length (cut short at
 * cap, with the cut lines left out). */
int demo_metrics_render(const demo_metrics *m, zl_server *s, const demo_agones *a,
                        uint64_t now_us, char *out, int cap);

void demo_metrics_close(demo_metrics *m);

#endif
