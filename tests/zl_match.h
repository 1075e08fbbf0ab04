/* zl_match.h - a whole match on the test clock: a server and a few bot
 * clients over the loop network and link conditioners, with every shot's
 * client sight and server verdict recorded for joining. */
#ifndef ZL_MATCH_H
#define ZL_MATCH_H

#include "fps.h"
#include "zl_client.h"
#include "zl_conditioner.h"
#include "zl_loopnet.h"
#include "zl_server.h"

#define ZL_MATCH_BOTS (ZL_MAX_CLIENTS < 4 ? ZL_MAX_CLIENTS : 4)
#define ZL_MATCH_FRAME_US 8000u /* clients run commands at 125 frames/s */
#define ZL_MATCH_SHOTS 2048     /* shots and verdicts kept per match */

/* How the bots play. */
enum {
    ZL_MATCH_CIRCLES = 0, /* run in circles; when firing, stand and aim level
                             at the next bot's feet height */
    ZL_MATCH_DUEL = 1     /* strafe, changing direction every 150-400 ms,
                             jump and crouch now and then, and fire at the
                             head of the next bot as drawn */
};

/* A hitscan shot as its client predicted it: what the ray met among the
 * players as that client drew them. */
typedef struct zl_match_shot {
    int32_t shooter;      /* slot */
    uint32_t sequence;    /* the command that fired */
    int32_t target;       /* slot met, or -1 */
    uint8_t extrapolated; /* some player was drawn past its newest sample */
} zl_match_shot;

/* What the bots play: the FPS (the default) or another game. */
typedef struct zl_match_game {
    const zl_game *rules; /* server and clients alike; NULL: the FPS's */
    /* Bot i's input for frame zl_match_world.frame; msec is
     * ZL_MATCH_FRAME_US. Depends only on the bot, the frame and what its
     * client draws. */
    void (*command)(int bot, zl_usercmd *c);
    /* The player slot a shot event that bot i's client predicted meets
     * among the others as that client draws them, or -1. */
    int32_t (*sight)(int bot, const zl_event *shot);
    uint16_t fire_event; /* event type of a hitscan shot (at most
                            FPS_MAX_EVENTS_PER_COMMAND events a command) */
    uint16_t hit_event;  /* event type the server sends for a hit */
} zl_match_game;

/* An event as the server logged it for clients, or as a client handed it
 * over: `key` is a hash of everything the client receives (tick, source
 * and every field the event schema carries), so the two sides match. */
#define ZL_MATCH_EVENTS 8192 /* events kept per side; more are counted */
typedef struct zl_match_event {
    uint32_t key;
    uint32_t tick;
    int32_t source;
    uint8_t predicted; /* the server's: pushed by run_command */
    uint8_t taken;     /* matching: already paired with a received copy */
} zl_match_event;

/* A shot as the server traced it (zl_server_shots). */
typedef struct zl_match_verdict {
    int32_t shooter, target;
    uint32_t sequence;
    uint8_t flags;        /* ZL_LAGCOMP_* of the time traced at */
} zl_match_verdict;

/* Everything a match needs, static: the server and clients are large. */
typedef struct zl_match {
    zl_loopnet net;
    zl_platform clock;
    zl_loopnet_endpoint server_ep, client_ep[ZL_MATCH_BOTS];
    zl_platform server_hal, client_raw[ZL_MATCH_BOTS], client_hal[ZL_MATCH_BOTS];
    /* The sends the HALs above wrap, and the bytes each was handed. */
    zl_platform server_net, client_net[ZL_MATCH_BOTS];
    uint32_t server_bytes, client_bytes[ZL_MATCH_BOTS];
    uint32_t snapshot_bytes[ZL_MATCH_BOTS]; /* the last snapshot datagram
                                               the server sent each bot */
    uint8_t snapshot_type_byte[ZL_MATCH_BOTS]; /* and its type byte */
    zl_conditioner cond[ZL_MATCH_BOTS];
    fps_game game;
    const zl_match_game *bots; /* what the bots play */
    zl_game rules;        /* the server's: the game's, counting commands run */
    zl_game client_rules; /* the clients': the game's as it is */
    zl_server server;
    zl_client client[ZL_MATCH_BOTS];
    zl_connect_token token[ZL_MATCH_BOTS]; /* each bot's, kept while it connects */
    zl_addr server_addr;
    uint32_t frame;
    int style;            /* ZL_MATCH_* */
    int firing;           /* bots pull the trigger */
    int replays;          /* zl_match_setup.replays */
    uint32_t replayed;    /* datagrams the attacker replayed */
    int race;             /* zl_match_setup.race */
    zl_loopnet_endpoint racer_ep; /* the racing attacker's socket */
    zl_platform racer_hal;
    uint32_t raced;       /* copies it sent ahead of the originals */
    uint32_t relayed;     /* datagrams to it that it passed on to bot 0 */
    int junk_ahead;       /* set by a test: junk datagrams with bot 0's
                             connection id, each from another of 64 ports,
                             delivered ahead of each of bot 0's datagrams */
    uint32_t junked;      /* those sent */
    uint32_t fire_events; /* FIRE events the clients predicted */
    uint32_t client_hits; /* of those, shots that met a box as drawn */
    uint32_t server_hits; /* HIT events on a player the server sent */
    uint32_t traces;      /* shots the server traced and kept (zl_server_shots) */
    uint32_t traced_hits; /* of those, traces that met a player */
    uint32_t bad_records; /* kept traces whose boxes or shooter make no sense */
    /* Prediction: mispredictions while neither dead nor hurt (movement;
     * the FPS only), in all and per bot. */
    uint32_t mispredicted_moving;
    uint32_t mispredicted_moving_bot[ZL_MATCH_BOTS];
    /* Commands each bot's client took (zl_client_command: ZL_OK), and
     * those its prediction refused, its ring full (ZL_ERR_FULL). */
    uint32_t made[ZL_MATCH_BOTS], refused_full[ZL_MATCH_BOTS];
    /* Commands the server ran, and those it ran again (never expected). */
    uint32_t executed, repeats;
    uint32_t last_run[ZL_MATCH_BOTS]; /* newest sequence run, per slot */
    uint32_t shots, verdicts, unkept; /* unkept: beyond ZL_MATCH_SHOTS */
    /* Events in snapshots: what the server logged (read from its log after
     * each tick) and what each client handed over, with how far its
     * render time was past the event's when it did (other players' events;
     * its own are handed over on arrival). */
    uint32_t logged_next;               /* next log id to read */
    uint32_t logged_count, heard_count[ZL_MATCH_BOTS], events_unkept;
    uint32_t heard_early;               /* others' events handed over before
                                           the render time reached them */
    uint32_t heard_within_frame;        /* ... within one frame after it */
    uint32_t heard_others;              /* others' events handed over */
    zl_match_event logged[ZL_MATCH_EVENTS];
    zl_match_event heard[ZL_MATCH_BOTS][ZL_MATCH_EVENTS];
    zl_match_shot shot[ZL_MATCH_SHOTS];
    zl_match_verdict verdict[ZL_MATCH_SHOTS];
} zl_match;

extern zl_match zl_match_world;

/* How a match is set up. */
typedef struct zl_match_setup {
    uint32_t rtt_us;      /* half of it each way */
    uint32_t jitter_us;   /* each way */
    uint32_t loss_ppm;    /* each way */
    int lag_compensation; /* the server rewinds (1) or traces the present */
    uint32_t maxunlag_us; /* the server's farthest rewind; 0: its default */
    int style;            /* ZL_MATCH_* */
    int firing;           /* bots pull the trigger */
    int plain;            /* 1: no tokens, CRC-sealed packets; 0: tokens and
                             every packet encrypted (the default) */
    int replays;          /* an attacker on the path delivers every datagram
                             of bot 0 this many times more, from its address */
    int race;             /* 1: once bot 0 is connected, an attacker who reads
                             its traffic sends a copy of each of its
                             datagrams from its own address just ahead of
                             the original, and passes
                             whatever the server sends it on to bot 0 as if
                             from the server */
    const zl_match_game *game; /* NULL: the FPS; else kept, must outlive
                                  the match */
} zl_match_setup;

/* Starts a match at the test clock's 1 s mark: a server and ZL_MATCH_BOTS
 * clients connecting, each client's traffic through its own conditioner. */
void zl_match_start(const zl_match_setup *setup);

/* Advances the match by us microseconds in 1 ms steps. */
void zl_match_run(uint32_t us);

/* Clients connected. */
int zl_match_connected(void);

/* The Unix time the match's server starts at, its backend's key, and a token
 * for bot i made as the harness makes them (zl_token_mint). */
#define ZL_MATCH_UNIX_S 1800000000u
extern const uint8_t zl_match_key[ZL_TOKEN_KEY_SIZE];
void zl_match_mint(int i, zl_connect_token *out);

/* Shots joined by (shooter, command): judged (a verdict exists), of those
 * agreeing (same player met, or both missed; a verdict whose time was
 * clamped disagrees), and of the judged, the client's that were drawn
 * while extrapolating. Shots recorded from index `from` on. */
typedef struct zl_match_tally {
    uint32_t shots, judged, agree, hits, extrapolated, clamped;
    uint32_t disagree_extrapolated; /* disagreements drawn extrapolating */
} zl_match_tally;
void zl_match_tally_shots(uint32_t from, zl_match_tally *out);

/* Starts a duel of bots firing over 100 ms round trips with 20 ms of
 * jitter and 2% loss each way, lag compensation on, records it from its
 * start (zl_server_record_start, game configuration "fps") for us
 * microseconds into buf (cap bytes) and stops the record. change_us (0:
 * none): at that point of the match the game is reloaded (fps_game_init)
 * and a new match, ZL_MATCH_NEXT_ID, starts on the same connections.
 * Returns the record's size (a ZL_CHECK fails when it does not fit) and
 * the live server's match hash at the end in *hash. */
#define ZL_MATCH_NEXT_ID 7u
uint32_t zl_match_record(uint32_t us, uint32_t change_us, uint8_t *buf, uint32_t cap,
                         uint32_t *hash);

#endif
