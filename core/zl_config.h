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

#endif
