/* demo_player.h - one client as the demo runs it: the zl_client, its input
 * (a bot or a person), and the records of what it saw, shot and mispredicted. */
#ifndef DEMO_PLAYER_H
#define DEMO_PLAYER_H

#include "demo_bot.h"
#include "demo_game.h"
#include "zl_conditioner.h"

/* Others' shots a view keeps on screen, and kill feed lines. */
#define DEMO_SEEN_SHOTS 16
#define DEMO_FEED_LINES 3
#define DEMO_SEEN_MS 200u /* how long a seen shot stays drawn */
/* Own hitscan shots remembered until the server's impact message names
 * them, and the impacts a view keeps on screen. */
#define DEMO_FIRED_KEPT 32
#define DEMO_IMPACTS 8
#define DEMO_IMPACT_MS 2000u

/* A shot of another player, played when its shooter was drawn firing. */
typedef struct demo_seen_shot {
    zl_vec3 origin;
    int32_t shooter;
    uint32_t time_ms;
} demo_seen_shot;

/* A kill feed line (DEMO_MSG_KILL). */
typedef struct demo_feed_line {
    int32_t killer, victim;
    uint32_t frags, time_ms;
} demo_feed_line;

/* One own hitscan shot: the box of the player it met as drawn (zeroed for
 * a miss). */
typedef struct demo_fired {
    uint32_t sequence;
    zl_box drawn;
} demo_fired;

/* A hit of ours as sv_showimpacts shows it: the box we drew, the box the
 * server rewound, the target when the server traced. */
typedef struct demo_shown_impact {
    uint32_t time_ms;    /* when the server's message came; 0: empty */
    int32_t target;
    uint8_t drawn_known; /* the shot was still remembered: drawn is ours */
    zl_box drawn, rewound, current;
} demo_shown_impact;

/* Fills out with one frame's command; c is drawn for this frame. */
typedef void (*demo_input)(void *ctx, const zl_client *c, int self, uint64_t now_us,
                           uint16_t msec, int may_fire, zl_usercmd *out);

/* Large (a zl_client): static storage. Fields are the owner's to read. */
typedef struct demo_player {
    demo_game game;
    zl_client client;
    demo_bot bot;
    demo_input input;  /* NULL: the bot plays */
    void *input_ctx;
    const zl_conditioner *cond; /* its link's impairment, for the net graph */
    demo_sink sink;
    uint32_t shots, hits_seen, rockets;
    uint32_t commands_made, commands_refused; /* by zl_client_command */
    uint32_t last_hit_ms;   /* when one of its shots last met someone drawn */
    /* Mispredictions by what the client could not know: while its player
     * was dead (the server counts the respawn down) and damage taken. */
    uint32_t mispredicted_dead, mispredicted_hurt;
    uint8_t guessing;       /* this frame drew someone extrapolated */
    uint8_t hello;          /* the HELLO record is out */
    /* From the snapshots' events and the kill feed: */
    uint32_t events_heard;  /* events handed over by zl_client_events */
    uint32_t kills_heard;   /* kill feed messages */
    uint32_t seen_next, feed_next;
    demo_seen_shot seen[DEMO_SEEN_SHOTS];
    demo_feed_line feed[DEMO_FEED_LINES];
    uint32_t fired_next, impacts_next; /* rings below, counting all time */
    demo_fired fired[DEMO_FIRED_KEPT];
    demo_shown_impact impacts[DEMO_IMPACTS]; /* from DEMO_MSG_IMPACT */
    /* The server's gamestate (fps_gamestate), a block received into
     * gamestate_buffer: read once complete, then released. */
    uint8_t gamestate_read;   /* 1 once one was read */
    uint8_t gamestate_ok;     /* its arena and rules are this build's */
    uint32_t gamestate_bytes, gamestate_players;
    char names[ZL_MAX_CLIENTS][FPS_NAME_MAX + 1]; /* by slot; "" when unknown */
    char motd[DEMO_MOTD_MAX];                     /* its first line */
    uint8_t gamestate_buffer[DEMO_GAMESTATE_MAX];
} demo_player;

/* Starts the client over hal (cond: the conditioner inside hal, or NULL)
 * with a bot seeded by bot_seed; records go to sink. Returns
 * zl_client_init's result. */
int demo_player_init(demo_player *p, const zl_client_config *cfg, const zl_platform *hal,
                     const zl_conditioner *cond, uint64_t nonce, uint64_t bot_seed,
                     demo_sink sink);

/* Takes one datagram, blaming any misprediction it reveals. */
void demo_player_receive(demo_player *p, const zl_addr *from, void *data, size_t len,
                         uint64_t now_us);

/* zl_client_update, the HELLO record once connected, and the kill feed. */
void demo_player_update(demo_player *p, uint64_t now_us);

/* One frame: draw, play the events due (others' shots are kept for the
 * view), take the input's command, predict it, witness its shots. */
void demo_player_frame(demo_player *p, uint64_t now_us, uint16_t msec, int may_fire);

/* The net graph now. */
void demo_player_net(demo_player *p, uint64_t now_us, demo_rec_net *out);

/* The last NET and the BYE records, then the disconnect. */
void demo_player_leave(demo_player *p, uint64_t now_us);

#endif
