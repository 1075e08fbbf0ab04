/* demo_record.h - the records the programs print for the demo launcher with
 * --machine: one line each, a name and the integer fields of one struct. */
#ifndef DEMO_RECORD_H
#define DEMO_RECORD_H

#include <stdint.h>
#include <stdio.h>

#include "zl_fixed.h"
#include "zl_ray.h"
#include "zl_server.h"

/* Every record is a struct of 32-bit integers only (positions are raw
 * Q16.16), so one writer and one parser serve them all. Times are
 * milliseconds of the host's monotonic clock, the same in every process
 * (wrapping; compare by difference). */
enum {
    DEMO_REC_LISTEN,   /* server: the port it listens on */
    DEMO_REC_JOIN,     /* server: a client took a slot */
    DEMO_REC_LEAVE,    /* server: a client left */
    DEMO_REC_SLOT,     /* server: one client's net graph as the server sees it */
    DEMO_REC_VERDICT,  /* server: the outcome of one hitscan shot */
    DEMO_REC_DEADFIRE, /* server: a command fired while the server had the shooter dead */
    DEMO_REC_TICKS,    /* server: tick cost summary (at the end) */
    DEMO_REC_DROPS,    /* server: datagrams dropped before a connection (at the end) */
    DEMO_REC_HELLO,    /* client: connected, with its slot */
    DEMO_REC_NET,      /* client: its net graph */
    DEMO_REC_SHOT,     /* client: one hitscan shot as the client saw it */
    DEMO_REC_BYE,      /* client: it ended */
    DEMO_REC_COUNT
};

typedef struct demo_rec_listen {
    uint32_t port;
} demo_rec_listen;

typedef struct demo_rec_join {
    int32_t slot;
    uint32_t reason; /* LEAVE: ZL_DISCONNECT_* */
} demo_rec_join;

/* What the server refused of one client, by reason (demo_referee_refusals
 * fills them, demo_refusals_format names them): each refused datagram or
 * command in exactly one. */
#define DEMO_CLIENT_DROPS 14

typedef struct demo_rec_slot {
    uint32_t time_ms;
    int32_t slot;
    uint32_t choked, snapshots, snapshot_bytes;
    uint32_t rtt_us, bytes_out, bytes_in;
    uint32_t commands_lost, hits, depth_us;
    uint32_t moves; /* its address changed (NAT rebinding) */
    uint32_t refused[DEMO_CLIENT_DROPS];
    /* The input buffer (zl_cmdbuf_stats): commands received (copies
     * included), run, shed (dropped_ahead: arrived while the client was
     * ahead of real time), dropped on overflow, and run beyond their
     * tick's time on credit kept through a stall (caught up). */
    uint32_t commands_received, commands_run, commands_shed, commands_overflow;
    uint32_t commands_caught_up;
} demo_rec_slot;

/* A hitscan shot as the server resolved it. Boxes are unions of the
 * target's hitboxes: rewound as the shooter's command claims it drew the
 * target, and in the present when the shot was traced. */
typedef struct demo_rec_verdict {
    uint32_t time_ms;
    int32_t shooter;
    uint32_t sequence; /* of the command that fired */
    uint32_t weapon;
    uint32_t traced;   /* 0: the rules refused the shot (shooter dead) */
    int32_t target;    /* slot hit, or -1 */
    uint32_t rebuilt;  /* 1: traced at exactly the pose the command claims
                          (the server's shot record says so) */
    zl_vec3 eye, dir, point;
    zl_box rewound, current;
} demo_rec_verdict;

typedef struct demo_rec_deadfire {
    int32_t shooter;
    uint32_t sequence;
} demo_rec_deadfire;

typedef struct demo_rec_ticks {
    uint32_t ticks;
    uint32_t median, p99, max; /* nanoseconds, or instructions */
    uint32_t tick_rate;
    uint32_t instructions;     /* 1: counted in instructions (emulated board) */
} demo_rec_ticks;

typedef struct demo_rec_drops {
    uint32_t dropped[ZL_SERVER_DROP_COUNT];
    uint32_t timeouts;
} demo_rec_drops;

typedef struct demo_rec_hello {
    int32_t slot;
} demo_rec_hello;

typedef struct demo_rec_net {
    uint32_t time_ms;
    uint32_t rtt_us, jitter_us, loss_in_q16, loss_out_q16;
    uint32_t bytes_in, bytes_out;
    uint32_t interp_us;  /* the interpolation delay in use (adaptive) */
    uint32_t behind_us;  /* newest snapshot time minus the render time */
    uint32_t draws;      /* entity draws so far (extrapolated: of those) */
    uint32_t mispredicted, reconciled, snapshots, snapshot_bytes;
    uint32_t mispredicted_dead; /* of mispredicted: while the player was dead */
    uint32_t mispredicted_hurt; /* of mispredicted: damage taken */
    zl_fx prediction_error; /* drawn minus predicted position, units */
    uint32_t shots, hits_seen, rockets, extrapolated, undecodable;
    uint32_t cond_lost; /* datagrams the conditioner dropped, both ways */
    /* Both ways: datagrams lost in loss bursts, bursts begun, datagrams a
     * lag spike held; and lag spikes (each freezes both ways at once). */
    uint32_t cond_burst_lost, cond_bursts, cond_spiked, cond_spikes;
    uint32_t commands_made;    /* zl_client_command took them */
    uint32_t commands_refused; /* ... refused them: prediction full, so the
                                  player's input never left */
    uint32_t events_heard; /* snapshot events played (others' shots, hits...) */
    uint32_t event_bytes;  /* of the snapshots' events sections received */
    uint32_t kills_heard;  /* kill feed messages received */
    uint32_t message_bytes; /* reliable message blocks, both ways */
    uint32_t sealed, opened;     /* packets sealed out, authenticated in */
    uint32_t forged, replayed;   /* refused: tag failed, replay window */
} demo_rec_net;

/* A hitscan shot as the shooter predicted it and saw it land. */
typedef struct demo_rec_shot {
    uint32_t time_ms;
    uint32_t sequence;
    uint32_t weapon;
    int32_t target; /* slot the ray met as drawn, or -1 */
    uint32_t extrapolated; /* 1: the frame drew someone past the newest
                              snapshot (a guess the server cannot rebuild) */
    zl_vec3 eye, dir;
    zl_box drawn;   /* the target as drawn (zero without one) */
} demo_rec_shot;

typedef struct demo_rec_bye {
    uint32_t state; /* ZL_CLIENT_* it ended in */
} demo_rec_bye;

/* Where records go: printed for the launcher, or straight into a match in
 * a single-image demo. A NULL put discards them. */
typedef struct demo_sink {
    void (*put)(void *ctx, int type, const void *rec);
    void *ctx;
} demo_sink;

static inline void demo_sink_put(const demo_sink *s, int type, const void *rec)
{
    if (s->put)
        s->put(s->ctx, type, rec);
}

/* A sink printing to a FILE * given as ctx (demo_record_write). */
void demo_record_put(void *file, int type, const void *rec);

/* Largest record, for a parse buffer. */
#define DEMO_REC_MAX_BYTES 256

/* Longest record line, newline and terminator included. */
#define DEMO_REC_MAX_LINE (16 + 12 * (DEMO_REC_MAX_BYTES / 4))

/* Formats one record line ("name n1 n2 ...\n") into buf (cap >=
 * DEMO_REC_MAX_LINE is always enough); returns its length. */
size_t demo_record_format(char *buf, size_t cap, int type, const void *rec);

/* Writes one record line to f and flushes it: the reader is waiting. */
void demo_record_write(FILE *f, int type, const void *rec);

/* Parses one line (with or without its newline) into rec, which has room
 * for DEMO_REC_MAX_BYTES. Returns the type, or -1 for a line that is not
 * a well-formed record (a program's plain text). */
int demo_record_parse(const char *line, void *rec);

#endif
