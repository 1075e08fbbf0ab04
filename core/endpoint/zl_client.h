/* zl_client.h - the client: connects, predicts its own player at once, draws
 * everyone else interpolated in the past, and sends its commands up. */
#ifndef ZL_CLIENT_H
#define ZL_CLIENT_H

#include "zl_block.h"
#include "zl_clock.h"
#include "zl_cmdstream.h"
#include "zl_conn.h"
#include "zl_interp.h"
#include "zl_platform.h"
#include "zl_predict.h"
#include "zl_snapshot.h"
#include "zl_version.h"

ZL_BEGIN_DECLS

/* Where a client is. */
enum {
    ZL_CLIENT_IDLE = 0,     /* not connecting */
    ZL_CLIENT_REQUESTING,   /* sending REQUEST, waiting for a CHALLENGE */
    ZL_CLIENT_RESPONDING,   /* sending RESPONSE, waiting for ACCEPT */
    ZL_CLIENT_CONNECTED,    /* has a slot */
    ZL_CLIENT_DENIED,       /* the server said no (zl_client.deny_reason) */
    ZL_CLIENT_TIMED_OUT,    /* the server fell silent */
    ZL_CLIENT_DISCONNECTED, /* the server or we ended it */
    ZL_CLIENT_PLAYING       /* playing a demo back (zl_client_demo.h):
                               no connection, nothing sent */
};

struct zl_client_recorder;

/* How a client runs. Fill with zl_client_config_default, then change. */
typedef struct zl_client_config {
    zl_client_settings settings; /* asked for; the server clamps them */
    uint32_t timeout_us;   /* silence of the server that ends a
                              connection, or a handshake, as TIMED_OUT
                              (5 s): how soon the game learns of a dead
                              server, at the first zl_client_update after
                              it; keep it above the server's longest
                              pause (a stall, a map load) */
    uint32_t resend_us;    /* handshake retry interval (100 ms) */
    uint32_t cmd_backup_ms; /* every packet carries each command the server
                               has not yet received, up to this much of
                               the newest commands' time (2000: a loss
                               burst or lag spike of two seconds loses no
                               input), at most ZL_CMDSTREAM_MAX_PER_PACKET
                               commands; 1..60000 */
    uint32_t extrapolate_us; /* cl_extrapolate_amount (250000) */
    zl_clock_settings timeline; /* the render timeline: snapshot clock and
                                   adaptive interpolation delay (adaptive on) */
    zl_predict_settings predict; /* smoothing (origin and teleport fields
                                    come from the game) */
    /* Blocks from the server (zl_blocks.h) land in block_buffer,
     * block_capacity bytes, caller-owned and kept as long as the client;
     * NULL and 0 (the default): they are refused. */
    void *block_buffer;
    uint32_t block_capacity;
    /* Bytes per second our blocks to the server may take (0: the rate of
     * our settings). */
    uint32_t block_rate;
} zl_client_config;

void zl_client_config_default(zl_client_config *c);

/* The client's net graph. */
typedef struct zl_client_stats {
    zl_link_stats link;        /* ping, jitter, loss both ways, bytes/s */
    zl_predict_stats predict;  /* mispredictions, replays */
    zl_clock_stats clock;      /* the render timeline */
    uint32_t snapshots;        /* decoded */
    uint32_t snapshots_undecodable; /* base frame missing, old or malformed */
    uint32_t snapshots_left;   /* of a match the client has left, overtaken
                                  by the notice of the new one: dropped */
    uint32_t last_snapshot_bytes; /* its datagram, as the network handed it:
                                     header, payload (a block chunk it carried
                                     included) and tag */
    uint32_t interp_us;        /* the lerp in use (the adaptive delay) */
    uint32_t interp_floor_us;  /* Source's max(cl_interp, ratio / updaterate) */
    uint32_t behind_us;        /* last frame: newest snapshot time minus the
                                  render time (negative: 0, extrapolating) */
    uint32_t draws;            /* entity draws (one per entity per frame) */
    uint32_t extrapolated;     /* of those, draws past the entity's newest sample */
    uint32_t bad_messages;
    zl_reliable_stats messages; /* the reliable channel both ways */
    zl_event_queue_stats events; /* events received in snapshots */
    zl_seal_stats seal;        /* sealed packets both ways and what failed */
    zl_block_stats blocks;     /* blocks both ways (zl_blocks.h) */
} zl_client_stats;

/* A client. Caller-owned (static storage); every field is private. Three
 * lifetimes, in this order: what zl_client_init sets once; from `state` on,
 * the session, cleared whole by every connect (zl_client.c, start_session);
 * from `has_player` on, the match, cleared whole by every connect and by a
 * new match on the same connection (start_match). A new field goes into
 * the part whose lifetime it has. */
typedef struct zl_client {
    zl_client_config config;
    zl_game game;
    zl_platform hal;             /* send, and random for later nonces */
    uint64_t nonce;              /* the last connection attempt's */
    uint32_t connects;           /* connection attempts started */
    zl_schema_plan plan[2];            /* players, entities: prepared once */
    zl_schema_plan cmd_plan;           /* commands, for demo playback */
    struct zl_client_recorder *recorder; /* recording a demo, or NULL */
    zl_interp_config interp_config[2]; /* players, entities */
    zl_interp_config timeline_config;
    zl_snapshot_layout layout;
    /* ---- the session ---- */
    uint8_t state;
    uint8_t deny_reason;       /* ZL_DENY_* once DENIED */
    uint8_t disconnect_reason; /* ZL_DISCONNECT_* once DISCONNECTED */
    uint8_t match_notice;      /* 1: a new match the game has not taken */
    zl_conn conn;              /* the server's address, our nonce, the link */
    zl_reliable reliable;      /* messages both ways */
    const zl_connect_token *token; /* the caller's, while connecting with one */
    uint32_t window;
    uint64_t cookie;
    uint16_t slot;
    uint16_t tick_rate;
    uint32_t tick_us;
    zl_client_settings settings; /* as the server clamped them */
    uint64_t next_send_us;
    /* The newest command the server has received: carried by a packet its
     * link acknowledged. Per packet sent (by link sequence), the newest
     * command it carried. */
    uint32_t cmd_received;
    uint32_t cmd_carried[ZL_LINK_SENT_CAPACITY];
    uint64_t last_heard_us;
    uint32_t snapshots, undecodable, left, last_snapshot_bytes, bad_messages;
    uint32_t draws, extrapolated;
    uint32_t match_id;           /* the match the server plays (CONTROL) */
    uint32_t match_tick;         /* its first tick: older snapshots are the
                                    old match's (0: the connection's first) */
    uint64_t play_origin_us;     /* PLAYING: our time at demo time 0 */
    /* ---- the match ---- */
    uint8_t has_player;          /* a first snapshot arrived */
    uint64_t newest_us;          /* server time of the newest snapshot */
    uint64_t render_us;          /* the last frame's render time */
    zl_interp_pick pick;         /* what the last frame drew, for commands */
    zl_interp_history timeline;  /* snapshot ticks: the pair commands report */
    zl_clock clock;
    zl_predict predict;
    zl_snapshot_receiver rx;
    zl_event_queue events;       /* received, waiting for the render time */
    uint8_t drawn[ZL_MAX_ENTITIES];
    uint32_t view[ZL_MAX_ENTITIES][ZL_STATE_MAX / 4];
    zl_interp_history history[ZL_MAX_ENTITIES];
    zl_blocks blocks;            /* blocks both ways */
    int64_t block_credit;        /* bytes our blocks may still send */
    uint64_t block_credit_us;    /* when the credit was last topped up */
} zl_client;

/* Starts an idle client. game: the same rules as the server's (copied; only
 * run_command, the schemas and the field indices are used). net: send, and
 * random for the nonce of each later connection (copied; random may be
 * NULL, see zl_client_connect). nonce: 8 fresh bytes from the HAL's
 * random(), as a number: it names the first connection attempt. Returns
 * ZL_OK, or
 * ZL_ERR_CONFIG without touching c when the caller was compiled with
 * another configuration than the library (zl_version.h). */
#define zl_client_init(c, config, game, net, nonce)                                    \
    zl_client_init_((c), (config), (game), (net), (nonce), zl_config_fingerprint(), \
                    sizeof(zl_client))
/* The function behind zl_client_init: fingerprint and size are the caller's. */
int zl_client_init_(zl_client *c, const zl_client_config *config, const zl_game *game,
                    const zl_platform *net, uint64_t nonce, uint32_t fingerprint, size_t size);

/* Starts connecting to a plain server (ZL_SECURITY_PLAIN) at now_us: sends
 * the first REQUEST. Nothing the client sends or receives is protected
 * beyond a CRC.
 * Any client may connect again, in any state, to the same server or
 * another: each connect starts a fresh session, as from zl_client_init
 * (state, connection, link, keys, reliable messages, snapshots,
 * prediction, clock, interpolation, events and counters; the config and
 * game stay). A connected client first says goodbye (QUIT), so its old
 * slot is freed at once. Every attempt after the first takes a new nonce:
 * 8 bytes from the HAL's random(), mixed with the last nonce so that even
 * a random source that repeats itself (or none) never gives one client the
 * same nonce twice in a row. */
void zl_client_connect(zl_client *c, const zl_addr *server, uint64_t now_us);

/* Starts connecting with a connect token from the game's backend
 * (zl_token.h) to the first server it names, at now_us: the token goes in
 * the handshake, and once connected every packet both ways is sealed with
 * its session keys (copied into the connection then). The token is the
 * caller's and is read until the client is connected or gives up (DENIED,
 * TIMED_OUT): keep it until then, and wipe it after. A fresh session, as
 * zl_client_connect. Returns ZL_OK, or ZL_ERR_INVALID for a token naming
 * no address (nothing changes). */
int zl_client_connect_token(zl_client *c, const zl_connect_token *token, uint64_t now_us);

/* Takes one datagram from `from`; anything not from the server or not
 * valid is dropped and counted. data is the caller's receive buffer: a
 * sealed packet is decrypted in place. */
void zl_client_receive(zl_client *c, const zl_addr *from, void *data, size_t len,
                       uint64_t now_us);

/* Handshake retries, timeouts, and the command packet when cmdrate says
 * one is due. Call it every frame. */
void zl_client_update(zl_client *c, uint64_t now_us);

/* Draws the world for a frame at now_us: the render time (the snapshot
 * clock minus the interpolation delay, zl_clock.h) and every other entity's
 * state at it; the pair it used goes into the next commands. Call it once
 * per frame before zl_client_command and zl_client_entity. */
void zl_client_frame(zl_client *c, uint64_t now_us);

/* Runs one command of the player's input at once (prediction) and queues
 * it for sending. cmd: the input (msec, angles, buttons, moves, weapon,
 * seed); its sequence and render fields are filled here. events gets the
 * command's sounds and effects (first prediction only); may be NULL.
 * Returns ZL_OK; ZL_ERR_AGAIN before the first snapshot; ZL_ERR_FULL when
 * ZL_PREDICT_COMMANDS commands wait for the server (prediction stops);
 * ZL_ERR_INVALID when cmd fails zl_usercmd_validate. */
int zl_client_command(zl_client *c, const zl_usercmd *cmd, zl_events *events);

/* The player's own state to draw at now_us (predicted, with the correction
 * smoothing), into out. ZL_OK, or ZL_ERR_AGAIN before the first snapshot. */
int zl_client_player(const zl_client *c, uint64_t now_us, void *out);

/* The predicted state exactly (no smoothing), or NULL before the first
 * snapshot. */
const void *zl_client_predicted(const zl_client *c);

/* The state entity `entity` is drawn with this frame, or NULL when it is
 * not in the world (or is the player's own). */
const void *zl_client_entity(const zl_client *c, int entity);

/* The server's present as estimated at now_us: the snapshot clock plus half
 * the round trip, microseconds on the server's tick timeline. For display
 * (a match timer); nothing is drawn or claimed at it. 0 before a snapshot. */
uint64_t zl_client_server_time(zl_client *c, uint64_t now_us);

/* The events (other players' shots, footsteps, hits; zl_eventlog.h) due
 * this frame, oldest first, into out (at most max): those whose tick the
 * render time of the last zl_client_frame has reached, and those of the
 * player's own entity at once. Call it after zl_client_frame; returns how
 * many. Each event arrives once; the player's own predicted events never
 * do (they were played on their first prediction). */
int zl_client_events(zl_client *c, zl_event *out, int max);

/* Reliable, ordered messages to and from the server (zl_reliable.h). Send
 * queues len bytes (copied): ZL_OK, ZL_ERR_AGAIN when not connected,
 * ZL_ERR_INVALID for len 0 or above ZL_RELIABLE_MESSAGE_MAX, ZL_ERR_FULL
 * when ZL_RELIABLE_MESSAGES wait for acks. Receive hands over the next
 * message in order: its length, ZL_ERR_AGAIN when none is waiting,
 * ZL_ERR_OVERFLOW when cap is too small (it stays). zl_client_update sends
 * them and resends until acknowledged. */
int zl_client_send_message(zl_client *c, const void *data, size_t len);
int zl_client_receive_message(zl_client *c, void *buf, size_t cap);

/* The newest snapshot frame decoded, or NULL. */
const zl_snapshot_frame *zl_client_latest(const zl_client *c);

/* Changes the settings (sent to the server, which clamps them). */
void zl_client_set_settings(zl_client *c, const zl_client_settings *s, uint64_t now_us);

/* Ends the connection, telling the server. */
void zl_client_disconnect(zl_client *c, uint64_t now_us);

/* Why the client stopped: ZL_DENY_* when DENIED; ZL_DISCONNECT_* when
 * DISCONNECTED (the server's reason: SHUTDOWN, MATCH_OVER, KICKED, ...;
 * QUIT when zl_client_disconnect ended it); ZL_DISCONNECT_TIMEOUT when
 * TIMED_OUT (the server silent for config.timeout_us); -1 otherwise. */
int zl_client_reason(const zl_client *c);

/* Something the game acts on, taken once (as zl_server_next_notice). */
enum {
    /* The server started a new match on this connection
     * (zl_server_change_match: a map change or a restart). The client has
     * already dropped everything of the old match (snapshots, prediction,
     * clock, interpolation, queued events) and keeps its slot; the game
     * loads match_id's map and resets its own state of the old one. The
     * new match's first snapshot follows within a round trip. */
    ZL_CLIENT_NOTICE_MATCH = 1
};
typedef struct zl_client_notice {
    uint8_t kind;      /* ZL_CLIENT_NOTICE_* */
    uint32_t match_id; /* MATCH: the server application's name for it */
    uint32_t tick;     /* MATCH: its first server tick */
} zl_client_notice;

/* Takes the unread notice into *out: 1, or 0 when none. Only the newest
 * is kept: two new matches between two calls give the second. */
int zl_client_next_notice(zl_client *c, zl_client_notice *out);

/* The state (ZL_CLIENT_*), the slot (valid when connected) and the net
 * graph at now_us. */
int zl_client_state(const zl_client *c);
int zl_client_slot(const zl_client *c);
void zl_client_get_stats(zl_client *c, uint64_t now_us, zl_client_stats *out);

ZL_END_DECLS

#endif
