/* zl_user_config.h - the small embedded configuration: 8 players, 4 rockets,
 * a 32-command prediction ring; the client fits a 16 KiB-RAM microcontroller. */
#ifndef ZL_FOOTPRINT_USER_CONFIG_H
#define ZL_FOOTPRINT_USER_CONFIG_H

/* Used by `make footprint` (mk/footprint.mk) through -DZL_USER_CONFIG
 * -Iexamples/footprint. Server and client must share every value that
 * shapes the wire (ZL_MAX_CLIENTS, ZL_MAX_ENTITIES, ZL_MAX_PACKET,
 * ZL_CMDSTREAM_MAX_PER_PACKET): a small client joins a server built with
 * this same file. The footprint programs ask for 20 snapshots/s, which is
 * what the short histories below are sized for. */

/* 576 bytes: the smallest datagram every IPv4 host must accept. A snapshot
 * that would not fit sends its most urgent entities and carries the rest
 * to the next ones. The UART's two frame buffers and the receive buffers
 * on the stack scale with it. */
#define ZL_MAX_PACKET 576

/* The reference FPS player is 44 bytes, its rocket 28: every stored state
 * (prediction ring, interpolation samples, snapshot frames) is this big. */
#define ZL_STATE_MAX 44

/* 8 players and 4 rockets in flight (entity numbers 8..11). Each entity
 * number costs a client about 490 bytes (its interpolation samples, its
 * state in every snapshot frame, the drawn copy). */
#define ZL_MAX_CLIENTS 8
#define ZL_MAX_ENTITIES 12
#define FPS_MAX_ENTITIES 4

/* ---- The client ---- */

/* Prepared schemas sized for the FPS player, the larger of its two
 * schemas: 18 fields and 8 byte runs. */
#define ZL_SCHEMA_PLAN_FIELDS 18
#define ZL_SCHEMA_PLAN_RUNS 8

/* Connect tokens for one server address with 16 bytes of user data: the
 * handshake's largest message, and the stack that builds it, shrink with
 * them (the backend mints tokens with the same values). */
#define ZL_TOKEN_ADDRESSES 1
#define ZL_TOKEN_USER_DATA 16

/* Two reliable messages of at most 32 bytes in flight each way. */
#define ZL_RELIABLE_MESSAGES 2
#define ZL_RELIABLE_MESSAGE_MAX 32

/* Blocks of up to 512 bytes each way (a small game's gamestate: the FPS's
 * arena, rules and a few names take about 300), in 16-byte chunks, two
 * packets of them in flight; the client program gives a 512-byte buffer. */
#define ZL_BLOCK_MAX 512
#define ZL_BLOCK_CHUNK 16
#define ZL_BLOCK_PACKETS 2

/* Two received events waiting for the render time (the client takes
 * them every frame; more in one frame are dropped and counted). */
#define ZL_CLIENT_EVENTS 2
/* Received event ids remembered: 64, a few round trips of 8 players' events. */
#define ZL_CLIENT_EVENT_WINDOW 64

/* 32 unacknowledged commands: 0.5 s at 64 commands/s. */
#define ZL_PREDICT_COMMANDS 32
/* 4 samples per entity: 200 ms at 20 snapshots/s, the 100 ms
 * interpolation delay plus one lost snapshot. */
#define ZL_INTERP_SAMPLES 4
/* Decoded snapshots kept as delta bases: 200 ms of round trip at 20/s
 * (a slower link asks for full snapshots). */
#define ZL_SNAPSHOT_FRAMES 4
/* Packets remembered for acks and round-trip times: the smallest allowed. */
#define ZL_LINK_SENT_CAPACITY 64
/* At most 16 commands per packet (the client sends up to 16 anyway). */
#define ZL_CMDSTREAM_MAX_PER_PACKET 16

/* ---- The server ---- */

/* 16 ticks of world history for delta baselines, 16 unacknowledged
 * snapshots per client, 32 ticks of rewind (0.5 s at 64 Hz), 32 buffered
 * commands per client. */
#define ZL_SNAPSHOT_WORLD_TICKS 16
#define ZL_SNAPSHOT_SENT 16
#define ZL_LAGCOMP_TICKS 32
#define ZL_CMDBUF_CAPACITY 32
/* Entry codes shared by clients within a tick: 12 entities against a few
 * baselines each. */
#define ZL_SNAPSHOT_CODES 64
#define ZL_SNAPSHOT_CODE_BYTES 1024
/* Shot traces one tick keeps for the application. */
#define ZL_SERVER_SHOTS 16
/* Events of one tick: 8 players x a few commands x FPS_MAX_EVENTS_PER_COMMAND,
 * and the hits. */
#define ZL_SERVER_EVENTS 128
#define ZL_SERVER_NOTICES 8
/* Events kept for clients to acknowledge: 64 ticks of a small match. */
#define ZL_EVENT_LOG 256
/* Challenge rate-limit buckets (a power of two): a LAN-sized table. */
#define ZL_RATELIMIT_BUCKETS 16

/* ---- The in-image network of the self-test (platform/zl_loopnet.h) ---- */
#define ZL_LOOPNET_ENDPOINTS 4
#define ZL_LOOPNET_PACKETS 16

#endif
