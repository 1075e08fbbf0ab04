/* demo_agones.h - the server program's side of an Agones fleet: Ready,
 * Health, the GameServer's allocation and Shutdown over the SDK sidecar's
 * REST interface on the loopback, one non-blocking request at a time. */
#ifndef DEMO_AGONES_H
#define DEMO_AGONES_H

#include <stdint.h>

#include "demo_http.h"

/* The sidecar's port when AGONES_SDK_HTTP_PORT is not set. */
#define DEMO_AGONES_PORT 9358
#define DEMO_AGONES_HEALTH_US 2000000u /* between health pings */
#define DEMO_AGONES_POLL_US 1000000u   /* between looks for an allocation */
#define DEMO_AGONES_TIMEOUT_US 2000000u /* a request unanswered this long failed */
#define DEMO_AGONES_BACKOFF_MIN_US 100000u
#define DEMO_AGONES_BACKOFF_MAX_US 1000000u

enum { DEMO_AGONES_READY, DEMO_AGONES_HEALTH, DEMO_AGONES_GAMESERVER, DEMO_AGONES_SHUTDOWN,
       DEMO_AGONES_CALLS };

/* What one demo_agones_update saw happen (a mask). */
#define DEMO_AGONES_DID_READY 1u     /* the sidecar took Ready */
#define DEMO_AGONES_DID_ALLOCATE 2u  /* the GameServer is Allocated: address and port known */
#define DEMO_AGONES_DID_SHUTDOWN 4u  /* the sidecar took Shutdown */
#define DEMO_AGONES_DID_FAIL 8u      /* a request failed (no sidecar yet, an error, a bad
                                        reply): retried after the backoff */

/* Caller-owned (static storage: it holds a reply buffer). Fields are read
 * by the program for its log and metrics, written only here. */
typedef struct demo_agones {
    uint16_t port;
    int sock;              /* the request in flight, or -1 */
    int call;              /* DEMO_AGONES_* of that request */
    uint64_t started_us, retry_us, backoff_us, next_health_us, next_poll_us;
    char out[256];
    int out_len, out_sent;
    char in[DEMO_HTTP_MAX];
    int in_len;
    uint8_t ready, allocated, want_shutdown, shut_down;
    char address[64];      /* status.address once allocated */
    unsigned game_port;    /* status.ports[0].port once allocated */
    uint32_t ok[DEMO_AGONES_CALLS]; /* requests answered 2xx, by call */
    uint32_t failed;       /* no connection, an error status, a timeout */
    uint32_t malformed;    /* replies that are not HTTP as documented */
    uint32_t oversized;    /* replies over DEMO_HTTP_MAX bytes: dropped */
} demo_agones;

/* Starts with Ready due at once, talking to 127.0.0.1:port. */
void demo_agones_init(demo_agones *a, uint16_t port, uint64_t now_us);

/* Drives the request in flight (connect, send, receive: never waits) or
 * starts the next one due: Ready until taken, then Health every
 * DEMO_AGONES_HEALTH_US and GameServer every DEMO_AGONES_POLL_US until
 * Allocated, Shutdown once asked. Call from the game loop, so a stuck
 * loop stops the health pings. Returns a DEMO_AGONES_DID_* mask. */
unsigned demo_agones_update(demo_agones *a, uint64_t now_us);

/* Asks for Shutdown: sent as soon as the request in flight ends (retried
 * with backoff until taken). */
void demo_agones_shutdown(demo_agones *a);

void demo_agones_close(demo_agones *a);

#endif
