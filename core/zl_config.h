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

/* ---- Link conditioner (core/zl_conditioner.h) ---- */

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

#endif
