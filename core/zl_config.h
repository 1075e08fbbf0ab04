/* zl_config.h - compile-time capacities and defaults of zerolag.
 * Every value is an #ifndef default: override with -D or a zl_user_config.h. */
#ifndef ZL_CONFIG_H
#define ZL_CONFIG_H

/* Define ZL_USER_CONFIG (e.g. -DZL_USER_CONFIG) to include "zl_user_config.h"
 * first, the one place a user sets their capacities. */
#ifdef ZL_USER_CONFIG
#include "zl_user_config.h"
#endif

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

/* ---- Packet link (core/zl_link.h) ---- */

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

/* ---- Client-side prediction (core/zl_predict.h) ---- */

/* Commands kept with their predicted results (a power of two). Prediction
 * stops, and says so, when this many are unacknowledged: 128 is 1 s at
 * 128 commands/s. */
#ifndef ZL_PREDICT_COMMANDS
#define ZL_PREDICT_COMMANDS 128
#endif

/* ---- Entity interpolation (core/zl_interp.h) ---- */

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

/* ---- Lag compensation (core/zl_lagcomp.h) ---- */

/* Server ticks of player history kept for rewinding (a power of two); it
 * bounds sv_maxunlag: 128 is 1 s at 128 Hz. */
#ifndef ZL_LAGCOMP_TICKS
#define ZL_LAGCOMP_TICKS 128
#endif

#endif
