/* zl_server.h - the authoritative server: handshake and slots, commands in,
 * a fixed tick through the game's rules, rewind for shots, snapshots out. */
#ifndef ZL_SERVER_H
#define ZL_SERVER_H

#include "zl_block.h"
#include "zl_cmdbuf.h"
#include "zl_cmdstream.h"
#include "zl_conn.h"
#include "zl_lagcomp.h"
#include "zl_platform.h"
#include "zl_ratelimit.h"
#include "zl_record.h"
#include "zl_reliable.h"
#include "zl_snapshot.h"
#include "zl_version.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_SERVER_NOTICES), zl_server_notices_pow2);

/* A new match's notice is resent only after a round trip and a quarter
 * went by unacknowledged (zl_conn_resend_us), so the sequences of its last
 * few sendings are all an acknowledgement can name. */
#define ZL_SERVER_MATCH_SENT 8

/* How a server runs. Fill with zl_server_config_default, then change. */
typedef struct zl_server_config {
    uint16_t tick_rate;      /* ticks per second, 20..128 (64) */
    uint16_t max_clients;    /* slots in use, 1..ZL_MAX_CLIENTS */
    uint32_t timeout_us;     /* a client silent this long is dropped (5 s) */
    /* A connection that has sent no valid command this long after it was
     * accepted is dropped (1.5 s; 0: never) and counted
     * (ZL_SERVER_DROP_SILENT): a finished handshake alone cannot hold a
     * slot for the whole timeout. An honest client sends its first command
     * one frame after ACCEPT. */
    uint32_t grace_us;
    /* Slots one source address (an IPv4 address or an IPv6 /64, as the
     * rate limiter names it) may hold at once, >= 1 (8); a
     * RESPONSE beyond it is denied as if the server were full and counted
     * (ZL_SERVER_DROP_CROWDED). 8 seats a household or a small LAN party
     * behind one NAT while a single host cannot take a 64-slot server; a
     * server for one LAN, or the demo's bots on one host, raises it. */
    uint16_t max_per_address;
    /* Datagrams per second, and in one burst, that a connection may send;
     * more are dropped unread and counted (zl_server_client_stats.flooded).
     * An honest client sends cmdrate of them (at most the tick rate), so
     * the defaults, twice the tick rate and half a second of it, leave room
     * for network duplicates and bunching. Both >= 1. */
    uint16_t packet_rate, packet_burst;
    /* RELIABLE packets per second, and in one burst, a client may send
     * (each holds up to 32 messages); more are dropped unread, counted and
     * not acknowledged, so its channel resends them later. Both >= 1 (16,
     * 16). */
    uint16_t message_rate, message_burst;
    uint8_t lag_compensation;/* 1: shots are traced as the shooter saw the
                                world (rewind); 0: against the present */
    zl_server_limits limits; /* clamps on every client's settings */
    zl_ratelimit_config ratelimit; /* challenges per address and in all */
    zl_lagcomp_settings lagcomp; /* the origin comes from the game */
    zl_cmdbuf_settings cmdbuf; /* every client's input jitter buffer */
    /* Who may connect and how packets are protected: ZL_SECURITY_TOKENS
     * (the default) admits only holders of a connect token minted with
     * private_key for one of public_addresses, and seals every connected
     * packet with the token's session keys; ZL_SECURITY_PLAIN (LAN tools,
     * tests) admits anyone and seals packets with a CRC only: anyone on the
     * path reads and rewrites them. */
    uint8_t security;
    uint8_t private_key[ZL_TOKEN_KEY_SIZE]; /* shared with the backend */
    uint8_t public_address_count;           /* 1 .. ZL_TOKEN_ADDRESSES */
    zl_addr public_addresses[ZL_TOKEN_ADDRESSES]; /* as tokens name them */
    uint64_t unix_time_s; /* Unix time at zl_server_init's now_us: tokens
                             expire by it */
    zl_aead aead;         /* seals packets: zl_aead_default or a port's engine */
    /* Blocks from clients (zl_blocks.h) land here: max_clients buffers of
     * block_capacity bytes, slot i's at i * block_capacity. Caller-owned,
     * kept as long as the server. NULL and 0 (the default): blocks from
     * clients are refused. */
    void *block_buffers;
    uint32_t block_capacity;
} zl_server_config;

enum { ZL_SECURITY_TOKENS = 0, ZL_SECURITY_PLAIN = 1 };

/* tick_rate 64, max_clients ZL_MAX_CLIENTS, timeout 5 s, grace 1.5 s,
 * max_per_address 8, compensation on,
 * packet_rate 128 and packet_burst 32, and the defaults of each part (the
 * update and command rate maxima are set to the tick rate). Security is
 * ZL_SECURITY_TOKENS with no key and no address: the caller sets
 * private_key, public_addresses and unix_time_s, or chooses
 * ZL_SECURITY_PLAIN explicitly. */
void zl_server_config_default(zl_server_config *c);

/* Something the application may want to print or act on. */
enum {
    ZL_NOTICE_JOIN = 1,
    ZL_NOTICE_LEAVE = 2,
    ZL_NOTICE_BLOCK_SENT = 3,    /* the client acknowledged the whole block
                                    sent to it (zl_server_block_send) */
    ZL_NOTICE_BLOCK_RECEIVED = 4 /* a block from the client is complete
                                    (zl_server_block_received) */
};
typedef struct zl_server_notice {
    uint8_t kind;   /* ZL_NOTICE_* */
    uint8_t reason; /* LEAVE: ZL_DISCONNECT_* */
    uint16_t slot;
    zl_addr addr;
    uint32_t tick;
} zl_server_notice;

/* Datagrams the server dropped before any connection took them, by reason
 * (a connection's own drops are in its link's stats), and connections it
 * refused or ended for holding a slot unused. */
enum {
    ZL_SERVER_DROP_PACKET = 0,  /* failed zl_packet_open (size, CRC, format) */
    ZL_SERVER_DROP_MESSAGE,     /* a malformed message, or a type this
                                   direction never carries */
    ZL_SERVER_DROP_STRANGER,    /* a connected-only type from an unknown address */
    ZL_SERVER_DROP_RATE,        /* a REQUEST over the rate limit: unanswered */
    ZL_SERVER_DROP_COOKIE,      /* a RESPONSE with a stale or forged cookie */
    ZL_SERVER_DROP_NONCE,       /* a message naming another connection attempt */
    ZL_SERVER_DROP_FULL,        /* a valid RESPONSE finding every slot taken:
                                   answered with a DENY */
    ZL_SERVER_DROP_VERSION,     /* a REQUEST for another protocol version:
                                   answered with a DENY */
    ZL_SERVER_DROP_PLAIN,       /* a request without a token to a server that
                                   wants one: answered with a DENY (or a token
                                   to a plain server: dropped) */
    ZL_SERVER_DROP_TOKEN_FORGED,  /* a token that does not open under our key */
    ZL_SERVER_DROP_TOKEN_EXPIRED, /* a token past its expiry */
    ZL_SERVER_DROP_TOKEN_FOREIGN, /* a token for other servers' addresses */
    ZL_SERVER_DROP_TOKEN_REUSED,  /* a token already used from another address */
    ZL_SERVER_DROP_OVERSIZE,    /* larger than ZL_MAX_PACKET: the caller
                                   read no bytes (zl_server_count_oversize) */
    ZL_SERVER_DROP_LATE,        /* sealed for a connection that has ended
                                   (its goodbye's repeats, packets in flight) */
    ZL_SERVER_DROP_CROWDED,     /* a valid RESPONSE from an address holding
                                   max_per_address slots: denied as FULL */
    ZL_SERVER_DROP_SILENT,      /* a connection that sent no command within
                                   grace_us: ended (its notice says TIMEOUT) */
    ZL_SERVER_DROP_COUNT
};

/* One trace of a shot in the last tick: who fired it with which command,
 * and what the rewind did (zl_lagcomp_hit: the target or -1, the time
 * traced with the time the command claimed, the target's box as traced and
 * in the present: Source's sv_showimpacts picture). */
typedef struct zl_server_shot {
    int32_t shooter;   /* slot */
    uint32_t sequence; /* the command that fired */
    zl_lagcomp_hit hit;
} zl_server_shot;

/* The net graph of one client, as the server sees it. */
typedef struct zl_server_client_stats {
    zl_addr address;           /* where its packets come from now */
    zl_link_stats link;        /* ping, jitter, loss both ways, bytes/s */
    zl_cmdbuf_stats commands;  /* received, lost, duplicates, depth, jitter */
    zl_client_settings settings; /* as clamped */
    uint32_t snapshots;        /* snapshots sent */
    uint32_t choked;           /* snapshots due but held back by the rate */
    uint32_t last_snapshot_bytes; /* its datagram, as handed to the HAL:
                                     header, payload (a block chunk it carried
                                     included) and tag */
    uint32_t executed;         /* newest command run */
    uint32_t hits;             /* shots of this client whose trace met a player */
    uint32_t bad_messages;     /* malformed payloads on the connection */
    uint32_t flooded;          /* datagrams over packet_rate: dropped unread */
    uint32_t forged_acks;      /* datagrams acknowledging a sequence we never
                                  sent (those acks are ignored) */
    zl_reliable_stats messages; /* its reliable channel both ways */
    zl_event_sender_stats events; /* events sent to it in snapshots */
    uint32_t messages_flooded; /* RELIABLE packets over message_rate: dropped
                                  unread (the client resends them) */
    /* Its address (NAT rebinding). A connection moves to a new address
     * once packets from there authenticate under its key, the old address
     * has gone silent and the new one has answered a path challenge (so a
     * copy of its packets raced from elsewhere cannot steal it): */
    uint32_t moves;            /* times its address changed */
    uint32_t path_challenges;  /* challenges sent to new addresses */
    uint32_t moves_refused;    /* challenges answered while the old address
                                  still spoke: raced copies, or a client
                                  back at its old address */
    uint32_t path_limited;     /* datagrams with its id from other addresses
                                  over their allowance: dropped unread */
    /* Commands whose shots asked for a rewind (lag compensation on), by
     * what became of the render time they claimed (zl_lagcomp_target): */
    uint32_t rewinds;          /* all of them */
    uint32_t rewinds_untrusted; /* outside the trust window: the server's
                                   own estimate was used instead */
    uint32_t rewinds_clamped;  /* older than the history allows: moved up */
    uint32_t rewinds_refused;  /* in the future: traced in the present */
    zl_seal_stats seal;        /* sealed packets both ways and what failed */
    zl_block_stats blocks;     /* blocks both ways (zl_blocks.h) */
} zl_server_client_stats;

/* Private: another address a connection's packets came from. */
typedef struct zl_server_path {
    zl_addr addr;
    uint8_t used;            /* 1: holds an address */
    uint8_t proven;          /* 1: a packet from it authenticated */
    zl_ratelimit_bucket tries; /* its authentication tries */
    uint64_t seen_us;        /* its last datagram */
    uint64_t token;          /* the challenge sent there (0: none yet) */
    uint64_t challenged_us;  /* when */
} zl_server_path;

/* Private: one slot. */
typedef struct zl_server_slot {
    uint8_t connected;
    uint8_t full_requested;
    uint8_t commanded;       /* 1 once a valid command arrived */
    zl_conn conn;            /* the client's address, nonce, link, keys */
    uint64_t client_id;      /* from its token (0 in plain mode) */
    uint32_t timeout_us;     /* silence that ends it */
    uint8_t user_data[ZL_TOKEN_USER_DATA]; /* from its token */
    zl_client_settings settings;
    uint32_t view_delay_us;  /* the interpolation delay the client reports */
    uint64_t joined_us;
    uint64_t last_heard_us;
    uint64_t next_snapshot_us;
    int64_t rate_credit;     /* bytes the rate still allows */
    uint64_t rate_us;        /* when the credit was last topped up */
    zl_ratelimit_bucket packets; /* the connection's datagram allowance */
    uint32_t executed;
    uint32_t snapshots, choked, last_snapshot_bytes, hits, bad_messages;
    uint32_t flooded, forged_acks, messages_flooded;
    uint32_t moves, path_challenges, moves_refused, path_limited;
    uint64_t peer_heard_us;  /* the last datagram from its address that
                                authenticated, copies included */
    zl_server_path path[ZL_SERVER_PATHS]; /* other addresses heard */
    zl_reliable reliable;    /* messages both ways */
    zl_ratelimit_bucket message_packets; /* its RELIABLE packet allowance */
    uint32_t rewinds, rewinds_untrusted, rewinds_clamped, rewinds_refused;
    /* A new match the client has not acknowledged yet (zl_server_change_match):
     * it gets the CONTROL notice every resend interval and no snapshot. */
    uint8_t match_pending;
    uint32_t match_sends;    /* notices sent; the newest sequences kept: */
    uint16_t match_sent[ZL_SERVER_MATCH_SENT];
    uint64_t match_next_us;  /* when the notice goes again */
    zl_cmdbuf commands;
    zl_snapshot_client snapshot;
    zl_event_sender events;  /* its place in the event log */
    zl_blocks blocks;        /* blocks both ways */
} zl_server_slot;

/* The snapshots a tick seals side by side: as many as ChaCha20's vector
 * lanes run at once where the build has them (x86-64), else 1 (each
 * snapshot sealed and sent at once, the batch unused). */
#ifdef ZL_CHACHA20_AVX2
#define ZL_SERVER_SEALS ZL_AEAD_LANES_MAX
#else
#define ZL_SERVER_SEALS 1
#endif

/* Snapshot packets framed but not yet sealed nor sent (a tick seals up to
 * ZL_SERVER_SEALS side by side, zl_chacha20poly1305_seal_many, then
 * sends them in the order they were framed): each packet, its AEAD's
 * associated data and nonce, and where it goes. */
typedef struct zl_server_seals {
    uint8_t packet[ZL_SERVER_SEALS][ZL_MAX_PACKET];
    uint8_t aad[ZL_SERVER_SEALS][4 + ZL_PACKET_HEADER_SIZE];
    uint8_t nonce[ZL_SERVER_SEALS][ZL_AEAD_NONCE_SIZE];
    zl_aead_seal_job job[ZL_SERVER_SEALS];
    zl_addr to[ZL_SERVER_SEALS];
    size_t len[ZL_SERVER_SEALS];
    size_t count;
} zl_server_seals;

/* A server. Caller-owned and large (see the README's footprint table):
 * place it in static storage. Every field is private. */
typedef struct zl_server {
    zl_server_config config;
    zl_game game;
    zl_sender out;           /* the HAL's send: bytes out */
    uint8_t cookie_secret[ZL_SIPHASH_KEY_SIZE];
    uint32_t tick_us;
    uint32_t tick;           /* the last tick run */
    uint32_t match_id;       /* the application's name of the match */
    uint32_t match_tick;     /* the match's first tick (0: since init) */
    uint32_t closed;         /* 1: new players are refused (zl_server_set_open) */
    uint64_t next_tick_us;
    zl_snapshot_layout layout;
    zl_schema_plan usercmd_plan; /* how commands are read */
    zl_schema_plan event_plan;   /* how events are coded (game.event_schema) */
    zl_ratelimit limiter;
    zl_token_cache tokens;   /* tokens admitted, so none is used twice */
    uint64_t start_us;       /* zl_server_init's now_us (config.unix_time_s) */
    uint32_t dropped[ZL_SERVER_DROP_COUNT];
    uint32_t notices_written, notices_read, notices_lost;
    zl_server_notice notice[ZL_SERVER_NOTICES];
    zl_event event_store[ZL_SERVER_EVENTS];
    uint8_t event_predicted[ZL_SERVER_EVENTS]; /* 1: pushed by run_command */
    zl_events events;        /* the last tick's events */
    zl_event_log event_log;  /* the events clients receive in snapshots */
    uint32_t shot_count;     /* the last tick's traces kept in shot */
    uint32_t shots_unkept;   /* traces beyond ZL_SERVER_SHOTS in a tick, in all */
    zl_server_shot shot[ZL_SERVER_SHOTS];
    uint8_t present[ZL_MAX_CLIENTS]; /* 1: the slot's player is in the game */
    /* Per slot: 0x10000 | its peer's port while connected, else 0; every
     * datagram looks its sender up here first. */
    uint32_t slot_port[ZL_MAX_CLIENTS];
    /* By port modulo ZL_MAX_CLIENTS: 1 + the slot last connected from such
     * a port, else 0; a guess find_slot checks before scanning. */
    uint16_t port_hint[ZL_MAX_CLIENTS];
    uint32_t players[ZL_MAX_CLIENTS * ZL_STATE_MAX / 4]; /* live states, packed
                                                          at the schema's size */
    uint32_t scratch[ZL_STATE_MAX / 4];
    zl_server_slot slot[ZL_MAX_CLIENTS];
    zl_lagcomp lagcomp;
    zl_snapshot_world world;
    zl_record *record;       /* the match record being written, or NULL */
    zl_server_seals seals;   /* the tick's snapshots waiting for their seal */
} zl_server;

/* Starts a server with no clients at now_us (microseconds, any origin; the
 * clock the later calls use). game: the rules (copied; its ctx must outlive
 * s), player states at most ZL_STATE_MAX bytes. net: only net->send is
 * used, to send datagrams (copied). secret: 32 bytes from the HAL's
 * random(): the first half keys connection cookies, the second the rate
 * limiter. Settings out of range are programmer errors (ZL_ASSERT).
 * Returns ZL_OK, or ZL_ERR_CONFIG without touching s when the caller was
 * compiled with another configuration than the library (zl_version.h). */
#define zl_server_init(s, c, game, net, secret, now_us)                                     \
    zl_server_init_((s), (c), (game), (net), (secret), (now_us), zl_config_fingerprint(), \
                    sizeof(zl_server))
/* The function behind zl_server_init: fingerprint and size are the caller's. */
int zl_server_init_(zl_server *s, const zl_server_config *c, const zl_game *game,
                    const zl_platform *net, const uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE],
                    uint64_t now_us, uint32_t fingerprint, size_t size);

/* Takes one datagram of len bytes that arrived from `from` at now_us. Any
 * bytes are fine: what is not a valid message is dropped and counted. data
 * is the caller's receive buffer: a sealed packet is decrypted in place. */
void zl_server_receive(zl_server *s, const zl_addr *from, void *data, size_t len,
                       uint64_t now_us);

/* One datagram for zl_server_receive_many: len bytes at data (the
 * caller's, writable) from `from`. */
typedef struct zl_server_datagram {
    zl_addr from;
    void *data;
    size_t len;
} zl_server_datagram;

/* Takes the n datagrams at d (NULL when n is 0), all arrived by now_us,
 * exactly as n calls of zl_server_receive in order would: the same state,
 * counters, replies and drops, hostile bytes fine. Faster where the
 * ChaCha20 path has vector lanes: the keystreams of up to
 * ZL_AEAD_LANES_MAX sealed datagrams from connected clients are made side
 * by side in one pass (zl_aead_ahead_make) before they are taken in turn;
 * one whose connection changed meanwhile makes its own again. Those heads
 * and their keys (about 1.4 KB) live on the stack during the call and are
 * wiped before it returns. */
void zl_server_receive_many(zl_server *s, const zl_server_datagram *d, size_t n,
                            uint64_t now_us);

/* Counts one datagram the caller dropped unread because it was larger
 * than ZL_MAX_PACKET (the HAL's receive said ZL_ERR_TRUNCATED), so every
 * datagram that reached the server shows in its drops. */
void zl_server_count_oversize(zl_server *s);

/* Runs every tick due by now_us (each: commands, the game's tick, history,
 * snapshots), drops clients that timed out or sent no command within the
 * grace. Returns the ticks run. Call it at least once per tick; a late
 * call catches up tick by tick. */
int zl_server_update(zl_server *s, uint64_t now_us);

/* Takes the oldest unread join/leave notice into *out: 1, or 0 when none. */
int zl_server_next_notice(zl_server *s, zl_server_notice *out);

/* The events of the last tick (read only; cleared by the next tick). */
const zl_events *zl_server_events(const zl_server *s);

/* The shots traced in the last tick, in order, *count of them (read only;
 * cleared by the next tick). *unkept, when not NULL, gets how many traces
 * ever found the list full. */
const zl_server_shot *zl_server_shots(const zl_server *s, uint32_t *count, uint32_t *unkept);

/* The client id and user data of a connected slot's token (what the
 * backend put in it), or 0 and NULL for a free slot or a plain server. */
uint64_t zl_server_client_id(const zl_server *s, int slot);
const uint8_t *zl_server_user_data(const zl_server *s, int slot);

/* Reliable, ordered messages (zl_reliable.h). Sends queue len bytes
 * (copied) for one client: ZL_OK, ZL_ERR_INVALID (a free slot, len 0 or
 * above ZL_RELIABLE_MESSAGE_MAX), ZL_ERR_FULL (ZL_RELIABLE_MESSAGES wait for
 * its acks: try later). Broadcast queues for every connected client and
 * returns how many took it. Receive hands over slot's next message from
 * its client in order: its length, ZL_ERR_AGAIN when none is waiting,
 * ZL_ERR_OVERFLOW when cap is too small (it stays), ZL_ERR_INVALID for a
 * free slot. Messages go out with the tick, resent until acknowledged. */
int zl_server_send_message(zl_server *s, int slot, const void *data, size_t len);
int zl_server_broadcast_message(zl_server *s, const void *data, size_t len);
int zl_server_receive_message(zl_server *s, int slot, void *buf, size_t cap);

/* The live state of a connected slot's player, or NULL for a free slot. */
const void *zl_server_player(const zl_server *s, int slot);

/* 1 when the slot holds a connected client. */
int zl_server_connected(const zl_server *s, int slot);

/* The net graph of a connected slot at now_us: ZL_OK, or ZL_ERR_INVALID
 * for a free slot. */
int zl_server_get_client_stats(zl_server *s, int slot, uint64_t now_us,
                               zl_server_client_stats *out);

/* Ends a client's connection (reason ZL_DISCONNECT_*), telling it so. */
void zl_server_disconnect(zl_server *s, int slot, uint8_t reason, uint64_t now_us);

/* Disconnects everyone with ZL_DISCONNECT_SHUTDOWN: each client is told
 * at once (ZL_DISCONNECT_REPEAT datagrams) and reports DISCONNECTED with
 * that reason as soon as one arrives. To end a match whose next one needs
 * new tokens, disconnect every slot with ZL_DISCONNECT_MATCH_OVER instead. */
void zl_server_shutdown(zl_server *s, uint64_t now_us);

/* Starts a new match on the same connections at now_us: a map change or a
 * restart (Source's changelevel), without a new handshake or token. Call
 * it after the application has reloaded its game (the zl_game ctx: world,
 * entities, scores, spawn rotation). Then for every connected client:
 *   - its player state is zeroed and given to game.player_join again (no
 *     player_leave: the reloaded game never knew it);
 *   - the old match is forgotten: its next snapshot is full, lag
 *     compensation's history holds no player, no event logged so far is
 *     sent to it, and the commands it predicted in the old match are never
 *     run (its command numbering jumps past them);
 *   - it is sent a CONTROL notice (ZL_CONTROL_MATCH: match_id and the new
 *     match's first tick, zl_server_tick() + 1) at once and every resend
 *     interval until acknowledged, and no snapshot before that, so it never
 *     mixes two matches; the client clears its match state and tells its
 *     game (zl_client_next_notice).
 * A client that connects later joins the new match directly: tell it the
 * map the application's way (a reliable message on its JOIN notice).
 * match_id: the application's name for the match (a map number), passed
 * on as is. Returns the number of clients told, or ZL_ERR_AGAIN (nothing
 * done) when a new match already started in this tick: run zl_server_update
 * first. */
int zl_server_change_match(zl_server *s, uint32_t match_id, uint64_t now_us);

/* The match the server plays: the match_id of the last
 * zl_server_change_match (0 before any). */
uint32_t zl_server_match(const zl_server *s);

/* Opens (open 1, the state after zl_server_init) or closes (0) the server
 * to new players. A closed server answers every new connection's RESPONSE
 * with DENY FULL and counts it as ZL_SERVER_DROP_FULL, while the clients
 * already connected play on: a server draining before it stops, or one
 * waiting for its fleet to hand it a match. */
void zl_server_set_open(zl_server *s, int open);
/* Replaces the addresses a connect token must name (count 1 ..
 * ZL_TOKEN_ADDRESSES, each IPv4 or IPv6: else ZL_ERR_INVALID and nothing
 * changes): for a server that learns the address clients reach it at only
 * after it started, behind a port mapping (a fleet's allocation). ZL_OK.
 * Connections already admitted are not affected. */
int zl_server_set_public_addresses(zl_server *s, const zl_addr *addresses, int count);

/* 1 while the server admits new players, else 0. */
int zl_server_is_open(const zl_server *s);

/* The last tick run, and the current count of connected clients. */
uint32_t zl_server_tick(const zl_server *s);
int zl_server_client_count(const zl_server *s);

/* ---- Match records (zl_record.h, docs/RECORD.md) ----
 * Starts recording the match into rec (caller-owned, kept until
 * zl_server_record_stop): from the next tick on, every command the server
 * runs (with the time its shots were traced at), every join, leave and new
 * match goes to sink, enough for zl_replay to re-run the match to the same
 * hash with no network. config: the game's own configuration (seeds, map)
 * the replay needs to set its game up, config_len bytes (at most
 * ZL_RECORD_CONFIG_MAX; copied into the header). A record starts with an
 * empty game: ZL_ERR_INVALID (nothing done) while a client is connected
 * or for a longer config; else ZL_OK or the sink's code. */
int zl_server_record_start(zl_server *s, zl_record *rec, zl_record_sink sink, void *ctx,
                           const void *config, size_t config_len);

/* Ends the record with the match hash now (zl_server_match_hash): the
 * record's size in bytes, or the first error a write met (a sink's code,
 * or ZL_ERR_OVERFLOW). Recording must have started. */
int zl_server_record_stop(zl_server *s);

/* The match hash of the server's game now: zl_record_hash of every player
 * in the game and every server entity. */
uint32_t zl_server_match_hash(zl_server *s);

/* ---- Kill cam ----
 * How far behind the present a connected player draws the world, as the
 * server estimates it now: its round trip, its commands' wait in the input
 * buffer and its interpolation delay (the estimate lag compensation checks
 * claimed render times against), in microseconds; 0 for a free slot. */
uint32_t zl_server_view_delay(zl_server *s, int viewer);

/* What a viewer delay_us behind saw of player `slot` at server tick
 * `tick`: the player as lag compensation rewinds it to tick's time minus
 * delay_us, written into out (a state of the game's player schema). Call
 * it for each tick of the last second to play a kill cam. Returns
 * ZL_LAGCOMP_REWOUND or ZL_LAGCOMP_CURRENT (teleported: the present) with
 * out written, or ZL_LAGCOMP_ABSENT (out untouched) when the slot was not
 * in the game, tick is after the last tick run, or the time lies beyond
 * the rewind lag compensation allows (maxunlag, ZL_LAGCOMP_TICKS). */
int zl_server_killcam(const zl_server *s, uint32_t tick, uint32_t delay_us, int slot, void *out);

/* Copies the counters of datagrams dropped before any connection took them
 * (ZL_SERVER_DROP_COUNT entries). */
void zl_server_get_drops(const zl_server *s, uint32_t out[ZL_SERVER_DROP_COUNT]);

ZL_END_DECLS

#endif
