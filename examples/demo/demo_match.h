/* demo_match.h - everything the launcher learns about a match from its
 * programs' records, and the per-shot join of client sight and server verdict. */
#ifndef DEMO_MATCH_H
#define DEMO_MATCH_H

#include "demo_record.h"

/* Capacities; a small board builds with smaller ones. */
#ifndef DEMO_MAX_BOTS
#define DEMO_MAX_BOTS 32
#endif
#ifndef DEMO_SAMPLES
#define DEMO_SAMPLES 1024 /* net records kept per client (10 a second) */
#endif
#ifndef DEMO_SHOTS
#define DEMO_SHOTS 16384  /* shots and verdicts kept per match */
#endif

/* One bot as the launcher knows it. */
typedef struct demo_bot_view {
    int32_t slot;          /* -1 until it said hello */
    uint8_t running;       /* its output is still open */
    uint8_t said_bye;
    demo_rec_net net;      /* its newest net graph */
    demo_rec_net prev_net; /* the one before: rates between the two */
    demo_rec_slot server;  /* the server's newest view of its slot */
    demo_rec_bye bye;
    uint32_t samples, samples_lost;
    demo_rec_net sample[DEMO_SAMPLES];
} demo_bot_view;

/* How the match was set up, for the report's header. */
typedef struct demo_setup {
    uint32_t bots, duration_s, tickrate, updaterate;
    uint32_t fakelag_ms, fakejitter_ms, fakeloss_ppm;
    uint32_t fakeburst, fakespike_ms; /* 0: none */
    uint32_t lagcomp;
    uint32_t sealed; /* connect tokens, every packet encrypted */
} demo_setup;

/* Large: static storage. */
typedef struct demo_match {
    demo_setup setup;
    uint32_t start_ms;  /* the launcher's clock at the start */
    uint32_t end_ms;    /* ... when the last bot left (0 while running) */
    uint32_t interrupted; /* 1: stopped by Ctrl-C before the duration */
    uint32_t port;      /* the server's, once it said so */
    uint32_t joins, leaves, server_done;
    demo_bot_view bot[DEMO_MAX_BOTS];
    uint32_t shots, verdicts, deadfires, lost; /* lost: records beyond capacity */
    int32_t shot_owner[DEMO_SHOTS];            /* slot of each client shot */
    demo_rec_shot shot[DEMO_SHOTS];
    demo_rec_verdict verdict[DEMO_SHOTS];
    demo_rec_deadfire deadfire[DEMO_SHOTS];
    demo_rec_ticks ticks;
    demo_rec_drops drops;
} demo_match;

void demo_match_init(demo_match *m, const demo_setup *setup, uint32_t start_ms);

/* Takes one record from the server (bot < 0) or from bot `bot`. */
void demo_match_take(demo_match *m, int bot, int type, const void *rec);

/* The shots of one slot (or of everyone, slot < 0), client sight joined
 * with server verdict by (shooter slot, command sequence). */
typedef struct demo_tally {
    uint32_t shots;        /* hitscan shots the clients predicted */
    uint32_t client_hits;  /* of those, rays that met a player as drawn */
    uint32_t judged;       /* shots with a server verdict */
    uint32_t agree;        /* judged shots whose outcome (target or miss) matched */
    uint32_t server_hits;  /* verdicts that hit a player (rewound) */
    uint32_t judged_hits;  /* client hits among the judged shots */
    uint32_t confirmed;    /* of those, hits the server scored too, same target */
    uint32_t shooter_dead; /* never fired on the server: the shooter was dead there */
    uint32_t unjudged;     /* no verdict and no record why (in flight at the end) */
    uint32_t other_shot;   /* disagreements where the shot itself differed
                              (the shooter's position or aim was mispredicted) */
    uint32_t guessed;      /* disagreements where the client drew the target
                              extrapolated and the server traced another
                              time (the claim not honoured) */
    uint32_t drawn_ahead;  /* disagreements where the client drew the target
                              otherwise than its snapshots held it at the
                              claimed time (a respawned player shown early) */
    uint32_t other_pose;   /* disagreements where the claim matches the client
                              but the server traced another time (a claim
                              outside the trust window, a teleport) */
    uint32_t server_only;  /* verdicts of shots the client never predicted */
    uint32_t rebuilt;      /* server hits traced at exactly the pose the command claims */
    uint32_t hit_dead;     /* server hits on a target dead in the present
                              (killed meanwhile by another shot: no damage) */
} demo_tally;

void demo_match_tally(const demo_match *m, int slot, demo_tally *out);

/* The client's sight of the shot a verdict judged, or NULL. */
const demo_rec_shot *demo_match_sight(const demo_match *m, const demo_rec_verdict *v);

/* The bot with this slot, or NULL. */
const demo_bot_view *demo_match_bot_by_slot(const demo_match *m, int32_t slot);

#endif
