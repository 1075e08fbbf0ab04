/* zerolag.h - the one header an application includes: server, client, game
 * interface, schemas, the HAL and its in-memory network, configuration, errors.
 *
 * Public headers are this one and every header it includes, directly or
 * not; they are installed and safe in C++. The other headers of core/ and
 * platform/ are the library's own (wire formats, crypto internals, tables).
 * A platform's constructor is in its port's zl_port.h (zl_port_open). */
#ifndef ZEROLAG_H
#define ZEROLAG_H

#include "zl_version.h"  /* version, configuration check (zl_config.h, zl_base.h: errors) */
#include "zl_server.h"   /* the authoritative server */
#include "zl_client.h"   /* the predicting, interpolating client */
#include "zl_server_blocks.h" /* blocks to and from clients: the join gamestate */
#include "zl_client_blocks.h" /* blocks to and from the server */
#include "zl_game.h"     /* the interface a game's rules implement */
#include "zl_schema.h"   /* state layouts as field tables */
#include "zl_platform.h" /* the HAL: send, receive, clock, random */
#include "zl_loopnet.h"  /* an in-memory network: many endpoints in one program */
#include "zl_conditioner.h" /* latency, jitter and loss on any zl_platform */

#endif
