/* zl_config.h - every compile-time option of zerolag, in one place: capacities
 * and defaults, each an #ifndef default that a user configuration overrides.
 *
 * Overriding: write the values you change in a file named zl_user_config.h,
 * put its folder on the include path and define ZL_USER_CONFIG. The build
 * carries that define, not your code: `make USER_CONFIG_DIR=<folder>`, CMake's
 * ZEROLAG_USER_CONFIG_DIR (a PUBLIC definition of the zerolag target), and
 * an installed package (its zerolag.pc and zerolag::zerolag carry the define
 * and the file). Plain -D flags work too. The define is explicit rather than a
 * file silently picked up from the include path: a header search cannot be
 * ordered portably (lwIP makes lwipopts.h mandatory instead), and a stray
 * file would change capacities unseen.
 *
 * The library and the application must agree on every value here: they
 * size the structs the application allocates. zl_server_init and
 * zl_client_init check it (zl_version.h) and return ZL_ERR_CONFIG when the
 * application was compiled with other values than the library. */
#ifndef ZL_CONFIG_H
#define ZL_CONFIG_H

#ifdef ZL_USER_CONFIG
#include "zl_user_config.h"
#endif

/* ZL_ASSERT(cond), the check for misuse of the API, is an option too: define
 * it in zl_user_config.h to route failures elsewhere (NDEBUG turns it off).
 * Its default needs a function declaration, so it stands in zl_base.h. */

/* Largest datagram zerolag ever writes or accepts, in bytes. 1200 stays below
 * every common path MTU once IPv6 and UDP headers are added. */
#ifndef ZL_MAX_PACKET
#define ZL_MAX_PACKET 1200
#endif

/* ---- Link conditioner (platform/zl_conditioner.h) ---- */

/* Datagrams one conditioner holds at once, both directions together. It must
 * cover rate x delay: 60 datagrams/s each way held 1 s needs 120; a datagram
 * that finds the pool full is dropped and counted. At most 32767. */
#ifndef ZL_CONDITIONER_PACKETS
#define ZL_CONDITIONER_PACKETS 256
#endif

/* ---- Packet link (zl_link.h) ---- */

/* Sent packets remembered per connection for acks and round-trip times (a
 * power of two, at most 32768). Must cover a round trip's worth of packets:
 * 256 is 2 s at 128 packets/s. */
#ifndef ZL_LINK_SENT_CAPACITY
#define ZL_LINK_SENT_CAPACITY 256
#endif
/* Packet loss estimates move 2^-ZL_LINK_LOSS_SHIFT of the way towards each
 * new packet's outcome (1 to 12): 7 averages over about 128 packets. */
#ifndef ZL_LINK_LOSS_SHIFT
#define ZL_LINK_LOSS_SHIFT 7
#endif

/* ---- Game states (every module that stores player or entity states) ---- */

/* Largest player or entity state struct, in bytes (a schema's size). Every
 * stored copy (prediction ring, interpolation history, snapshots, rewind
 * history) reserves this much, so keep it tight for small targets. */
#ifndef ZL_STATE_MAX
#define ZL_STATE_MAX 64
#endif

/* Fields and byte runs a prepared schema (zl_schema_plan) holds. A schema
 * with more still works through its plan, at the field-table walk's speed.
 * About 16 bytes per field and 4 per run; the FPS player needs 18 and 8. */
#ifndef ZL_SCHEMA_PLAN_FIELDS
#define ZL_SCHEMA_PLAN_FIELDS 20
#endif
#ifndef ZL_SCHEMA_PLAN_RUNS
#define ZL_SCHEMA_PLAN_RUNS 16
#endif

/* ---- Client-side prediction (zl_predict.h) ---- */

/* Commands kept with their predicted results (a power of two). Prediction
 * stops, and says so, when this many are unacknowledged: 512 is 4 s at
 * 128 commands/s, a stall of two seconds and its round trip. */
#ifndef ZL_PREDICT_COMMANDS
#define ZL_PREDICT_COMMANDS 512
#endif

/* ---- Entity interpolation (zl_interp.h) ---- */

/* Received samples kept per entity (a power of two). Must cover interp +
 * extrapolation at the snapshot rate: 32 is 0.5 s at 64 snapshots/s. */
#ifndef ZL_INTERP_SAMPLES
#define ZL_INTERP_SAMPLES 32
#endif

/* ---- Server capacities ---- */

/* Player slots on a server; entity numbers 0 .. ZL_MAX_CLIENTS - 1 are the
 * players. */
#ifndef ZL_MAX_CLIENTS
#define ZL_MAX_CLIENTS 64
#endif
/* Entity numbers a snapshot can carry, players included. */
#ifndef ZL_MAX_ENTITIES
#define ZL_MAX_ENTITIES 256
#endif

/* ---- Lag compensation (zl_lagcomp.h) ---- */

/* Server ticks of player history kept for rewinding (a power of two); it
 * bounds sv_maxunlag: 128 is 1 s at 128 Hz. */
#ifndef ZL_LAGCOMP_TICKS
#define ZL_LAGCOMP_TICKS 128
#endif
/* Hitboxes one player state may have (zl_game.hitboxes is asked for at
 * most this many; more are cut). */
#ifndef ZL_LAGCOMP_HITBOXES
#define ZL_LAGCOMP_HITBOXES 4
#endif

/* ---- Server (zl_server.h) ---- */

/* Events one server tick can hold (commands' shots and footsteps, hits,
 * kills, respawns); more are dropped and counted in the sink. */
#ifndef ZL_SERVER_EVENTS
#define ZL_SERVER_EVENTS 1024
#endif
/* Events shared with clients (zl_eventlog.h) the server keeps until every
 * client they concern acknowledged them or they age out (a power of two,
 * 2..16384): about ZL_EVENT_BODY_BYTES + 16 bytes each. Events the log
 * drops before a client acknowledged them are counted (overrun). */
#ifndef ZL_EVENT_LOG
#define ZL_EVENT_LOG 1024
#endif
/* Largest coded event body, bytes (1..255); a game whose event schema
 * codes longer bodies has them refused and counted (too_large). */
#ifndef ZL_EVENT_BODY_BYTES
#define ZL_EVENT_BODY_BYTES 24
#endif
/* Snapshots in a row that carry each new event (1..8), before it waits
 * for its acknowledgement and goes again only when none came within a
 * round trip: 2 keeps an event on time unless two snapshots in a row are
 * lost, at twice the bytes of sending it once. */
#ifndef ZL_EVENT_COPIES
#define ZL_EVENT_COPIES 2
#endif
/* Most events one snapshot carries (1..255); the rest ride in the next. */
#ifndef ZL_EVENTS_PER_SNAPSHOT
#define ZL_EVENTS_PER_SNAPSHOT 32
#endif
/* Join and leave notices kept until the application reads them (a power of
 * two); older unread ones are overwritten and counted. */
#ifndef ZL_SERVER_NOTICES
#define ZL_SERVER_NOTICES 64
#endif
/* Other addresses one connection's packets may come from at once, each
 * with its own allowance of authentication tries (a NAT rebinding, and
 * copies or junk others send with its id); 2..255. */
#ifndef ZL_SERVER_PATHS
#define ZL_SERVER_PATHS 4
#endif
/* Lag-compensated traces one tick keeps for the application (hit
 * pictures, replays, anti-cheat review); more are traced but not kept, and
 * counted. */
#ifndef ZL_SERVER_SHOTS
#define ZL_SERVER_SHOTS 256
#endif

/* ---- Snapshots (zl_snapshot.h) ---- */

/* Server ticks of entity states kept for delta coding (a power of two). A
 * client whose acknowledged snapshot is older than this gets a full one:
 * 64 is 1 s at 64 Hz. Memory: this x ZL_MAX_ENTITIES x ZL_STATE_MAX. */
#ifndef ZL_SNAPSHOT_WORLD_TICKS
#define ZL_SNAPSHOT_WORLD_TICKS 64
#endif
/* Snapshots remembered per client on the server, awaiting acknowledgement.
 * A client that acknowledges none of the last this many gets full ones. */
#ifndef ZL_SNAPSHOT_SENT
#define ZL_SNAPSHOT_SENT 32
#endif
/* Decoded snapshots a client keeps as possible bases (a power of two). It
 * must cover the snapshots in flight over one round trip, or deltas come
 * against frames already dropped (then the client asks for a full one);
 * ZL_SNAPSHOT_SENT is always enough. */
#ifndef ZL_SNAPSHOT_FRAMES
#define ZL_SNAPSHOT_FRAMES 32
#endif
/* Entity state codes the server keeps for the tick being sent, so that
 * clients whose entries start from the same state share one encoding
 * (most clients acknowledge the same recent snapshots): how many codes,
 * and the bytes they may fill. When either runs out, entries are simply
 * encoded again for each client. */
#ifndef ZL_SNAPSHOT_CODES
#define ZL_SNAPSHOT_CODES 1024
#endif
#ifndef ZL_SNAPSHOT_CODE_BYTES
#define ZL_SNAPSHOT_CODE_BYTES 16384
#endif

/* ---- Broadcast to spectators (zl_broadcast.h) ---- */

/* Bytes of one fragment of deltas (a fragment closes early when the next
 * record might not fit), and fragments the server holds back for the
 * broadcast delay: they must cover (delay - fragment - 1 s) / fragment + 1
 * fragments, or zl_broadcast_init refuses the settings. Memory: this x
 * (ZL_BROADCAST_BYTES + ZL_MAX_PACKET). */
#ifndef ZL_BROADCAST_BYTES
#define ZL_BROADCAST_BYTES 32768
#endif
#ifndef ZL_BROADCAST_HELD
#define ZL_BROADCAST_HELD 4
#endif

/* ---- Events in snapshots, the client's side (zl_eventlog.h) ---- */

/* Events a client holds until its render time reaches them (1..1024), about
 * 44 bytes each; one arriving at a full queue is dropped and counted. */
#ifndef ZL_CLIENT_EVENTS
#define ZL_CLIENT_EVENTS 64
#endif
/* Event ids a client remembers having received (a power of two, 32..32768,
 * one bit each), so a resent copy is known; an event older than this
 * many ids behind the newest is dropped and counted (stale). */
#ifndef ZL_CLIENT_EVENT_WINDOW
#define ZL_CLIENT_EVENT_WINDOW 1024
#endif

/* ---- Commands up (zl_cmdstream.h, zl_cmdbuf.h) ---- */

/* Most commands one packet can carry (the wire count field is sized from
 * it): 255 is 2 s at 125 commands/s. A client sends every command the
 * server has not received, up to a time (zl_client_config.cmd_backup_ms). */
#ifndef ZL_CMDSTREAM_MAX_PER_PACKET
#define ZL_CMDSTREAM_MAX_PER_PACKET 255
#endif
/* Commands one client's input buffer holds (a power of two). 256 is 2 s of
 * 8 ms commands: the backlog the longest stall it pays for leaves. */
#ifndef ZL_CMDBUF_CAPACITY
#define ZL_CMDBUF_CAPACITY 256
#endif
/* Defaults of zl_cmdbuf_settings (budget_ms, catchup_ticks, max_target_ms,
 * jitter_scale_q4, slack_ms, window_ms); their meaning is documented there. */
#ifndef ZL_CMDBUF_BUDGET_MS
#define ZL_CMDBUF_BUDGET_MS 2000
#endif
#ifndef ZL_CMDBUF_CATCHUP_TICKS
#define ZL_CMDBUF_CATCHUP_TICKS 3
#endif
#ifndef ZL_CMDBUF_MAX_TARGET_MS
#define ZL_CMDBUF_MAX_TARGET_MS 100
#endif
#ifndef ZL_CMDBUF_JITTER_SCALE_Q4
#define ZL_CMDBUF_JITTER_SCALE_Q4 16 /* 1 x the measured jitter */
#endif
#ifndef ZL_CMDBUF_SLACK_MS
#define ZL_CMDBUF_SLACK_MS 50
#endif
#ifndef ZL_CMDBUF_WINDOW_MS
#define ZL_CMDBUF_WINDOW_MS 1000
#endif

/* ---- The render timeline (zl_clock.h) ---- */

/* Defaults of zl_clock_settings (snap_us, max_slew_ppm, settle_us,
 * delay_max_us, grow_ppm, shrink_ppm); their meaning is documented there. */
#ifndef ZL_CLOCK_SNAP_US
#define ZL_CLOCK_SNAP_US 250000u
#endif
#ifndef ZL_CLOCK_MAX_SLEW_PPM
#define ZL_CLOCK_MAX_SLEW_PPM 50000u
#endif
#ifndef ZL_CLOCK_SETTLE_US
#define ZL_CLOCK_SETTLE_US 250000u
#endif
#ifndef ZL_CLOCK_DELAY_MAX_US
#define ZL_CLOCK_DELAY_MAX_US 500000u
#endif
#ifndef ZL_CLOCK_DELAY_GROW_PPM
#define ZL_CLOCK_DELAY_GROW_PPM 100000u
#endif
#ifndef ZL_CLOCK_DELAY_SHRINK_PPM
#define ZL_CLOCK_DELAY_SHRINK_PPM 10000u
#endif
/* Consecutive samples beyond the snap threshold that make the clock jump:
 * fewer would let one badly delayed packet throw the clock around. */
#ifndef ZL_CLOCK_SNAP_SAMPLES
#define ZL_CLOCK_SNAP_SAMPLES 3
#endif

/* ---- Handshake and connections (zl_handshake.h, zl_cookie.h,
 * zl_ratelimit.h, zl_conn.h) ---- */

/* Payload bytes of every REQUEST and RESPONSE, zero padding included. Every
 * reply the server sends to a peer it has not accepted yet (CHALLENGE, DENY,
 * ACCEPT) is smaller, so a spoofed source gains no amplification: 128 makes
 * a CHALLENGE datagram (33 bytes) a quarter of the request (141 bytes). */
#ifndef ZL_REQUEST_SIZE
#define ZL_REQUEST_SIZE 128
#endif
/* A cookie is valid in the window it was made in and the next one, so it
 * lives between one and two windows (5 to 10 s). */
#ifndef ZL_COOKIE_WINDOW_US
#define ZL_COOKIE_WINDOW_US 5000000u
#endif
/* Token buckets shared by all source addresses, and as many again shared by
 * all source sockets (a power of two). More buckets mean fewer honest
 * clients sharing a bucket with a flooding source. */
#ifndef ZL_RATELIMIT_BUCKETS
#define ZL_RATELIMIT_BUCKETS 256
#endif
/* DISCONNECT is sent this many times in a row: it is not acknowledged, so
 * repeating it makes losing every copy unlikely (10% loss: 1 in 1000). */
#ifndef ZL_DISCONNECT_REPEAT
#define ZL_DISCONNECT_REPEAT 3
#endif

/* ---- Connect tokens (zl_token.h) ----
 * These three shape the token's bytes: the backend, the servers and the
 * clients must be built with the same values. */

/* Bytes of game data a token carries (a login payload: account id, rank,
 * loadout); the server reads them at connect. */
#ifndef ZL_TOKEN_USER_DATA
#define ZL_TOKEN_USER_DATA 256
#endif
/* Server addresses one token may name (a match's server and its fallbacks). */
#ifndef ZL_TOKEN_ADDRESSES
#define ZL_TOKEN_ADDRESSES 4
#endif
/* Tokens a server remembers as used (zl_token_cache): a power of two, at
 * least the connections it accepts within a token's lifetime. */
#ifndef ZL_TOKEN_CACHE
#define ZL_TOKEN_CACHE 64
#endif

/* ---- Reliable messages (zl_reliable.h) ---- */

/* Messages one connection end keeps waiting for acknowledgement, and keeps
 * ahead of the next one it hands over (a power of two, 2..1024): a send
 * that finds the queue full is refused with ZL_ERR_FULL. Each costs about
 * twice ZL_RELIABLE_MESSAGE_MAX bytes per connection end. */
#ifndef ZL_RELIABLE_MESSAGES
#define ZL_RELIABLE_MESSAGES 8
#endif
/* Longest message, bytes (1..1024): a chat line, a score table row, a kill
 * feed entry. Longer ones are refused with ZL_ERR_INVALID. */
#ifndef ZL_RELIABLE_MESSAGE_MAX
#define ZL_RELIABLE_MESSAGE_MAX 200
#endif

/* ---- Blocks (zl_block.h) ---- */

/* Largest block, bytes (1..16777216), either way: a gamestate, a map, a
 * replay. It shapes the wire (the width of a block's size and chunk
 * numbers), so server and clients must agree. What a block costs lives
 * mostly in the buffers the application gives the endpoints; the
 * connection end itself keeps two bits per chunk to send and one to receive. */
#ifndef ZL_BLOCK_MAX
#define ZL_BLOCK_MAX 65536
#endif
/* The unit a block is cut into (a power of two, 16..1024; shapes the
 * wire): a packet carries whole chunks (a block's last may be short), so
 * smaller chunks fill the room beside a snapshot more closely and cost
 * more bits of bookkeeping. */
#ifndef ZL_BLOCK_CHUNK
#define ZL_BLOCK_CHUNK 64
#endif
/* Packets with chunks a sender keeps in flight (1..1024), 24 bytes each:
 * the window. It must cover a round trip of the packets the block rides
 * in: 64 is a second at 64 snapshots a second. */
#ifndef ZL_BLOCK_PACKETS
#define ZL_BLOCK_PACKETS 64
#endif

/* ---- Loop network (platform/zl_loopnet.h) ---- */

/* Endpoints one in-memory network can bind, and datagrams it holds in
 * flight at once (a send that finds the pool full is dropped and counted). */
#ifndef ZL_LOOPNET_ENDPOINTS
#define ZL_LOOPNET_ENDPOINTS 16
#endif
#ifndef ZL_LOOPNET_PACKETS
#define ZL_LOOPNET_PACKETS 64
#endif

/* ---- The list ----
 * Every option above, once: the configuration the library and the
 * application must agree on (zl_config_fingerprint in zl_version.h). A new
 * option goes here too; tools/check-install.sh fails when one is missing. */
#define ZL_CONFIG_OPTIONS(X)        \
    X(ZL_MAX_PACKET)                \
    X(ZL_CONDITIONER_PACKETS)       \
    X(ZL_LINK_SENT_CAPACITY)        \
    X(ZL_LINK_LOSS_SHIFT)           \
    X(ZL_STATE_MAX)                 \
    X(ZL_SCHEMA_PLAN_FIELDS)        \
    X(ZL_SCHEMA_PLAN_RUNS)          \
    X(ZL_PREDICT_COMMANDS)          \
    X(ZL_INTERP_SAMPLES)            \
    X(ZL_MAX_CLIENTS)               \
    X(ZL_MAX_ENTITIES)              \
    X(ZL_LAGCOMP_TICKS)             \
    X(ZL_LAGCOMP_HITBOXES)          \
    X(ZL_SERVER_EVENTS)             \
    X(ZL_EVENT_LOG)                 \
    X(ZL_EVENT_BODY_BYTES)          \
    X(ZL_EVENT_COPIES)              \
    X(ZL_EVENTS_PER_SNAPSHOT)       \
    X(ZL_CLIENT_EVENTS)             \
    X(ZL_CLIENT_EVENT_WINDOW)       \
    X(ZL_SERVER_NOTICES)            \
    X(ZL_SERVER_PATHS)              \
    X(ZL_SERVER_SHOTS)              \
    X(ZL_SNAPSHOT_WORLD_TICKS)      \
    X(ZL_SNAPSHOT_SENT)             \
    X(ZL_SNAPSHOT_FRAMES)           \
    X(ZL_SNAPSHOT_CODES)            \
    X(ZL_BROADCAST_BYTES)           \
    X(ZL_BROADCAST_HELD)            \
    X(ZL_SNAPSHOT_CODE_BYTES)       \
    X(ZL_CMDSTREAM_MAX_PER_PACKET)  \
    X(ZL_CMDBUF_CAPACITY)           \
    X(ZL_CMDBUF_BUDGET_MS)          \
    X(ZL_CMDBUF_CATCHUP_TICKS)      \
    X(ZL_CMDBUF_MAX_TARGET_MS)      \
    X(ZL_CMDBUF_JITTER_SCALE_Q4)    \
    X(ZL_CMDBUF_SLACK_MS)           \
    X(ZL_CMDBUF_WINDOW_MS)          \
    X(ZL_CLOCK_SNAP_US)             \
    X(ZL_CLOCK_MAX_SLEW_PPM)        \
    X(ZL_CLOCK_SETTLE_US)           \
    X(ZL_CLOCK_DELAY_MAX_US)        \
    X(ZL_CLOCK_DELAY_GROW_PPM)      \
    X(ZL_CLOCK_DELAY_SHRINK_PPM)    \
    X(ZL_CLOCK_SNAP_SAMPLES)        \
    X(ZL_REQUEST_SIZE)              \
    X(ZL_COOKIE_WINDOW_US)          \
    X(ZL_RATELIMIT_BUCKETS)         \
    X(ZL_DISCONNECT_REPEAT)         \
    X(ZL_TOKEN_USER_DATA)           \
    X(ZL_TOKEN_ADDRESSES)           \
    X(ZL_TOKEN_CACHE)               \
    X(ZL_RELIABLE_MESSAGES)         \
    X(ZL_RELIABLE_MESSAGE_MAX)      \
    X(ZL_BLOCK_MAX)                 \
    X(ZL_BLOCK_CHUNK)               \
    X(ZL_BLOCK_PACKETS)             \
    X(ZL_LOOPNET_ENDPOINTS)         \
    X(ZL_LOOPNET_PACKETS)

#endif
