/* zerolag.h - the one header an application includes: server, client, game
 * interface, schemas, the HAL and its in-memory network, configuration, errors.
 *
 * The API at a glance (each header says units, ownership and bad input):
 *  - The platform (zl_platform.h): a zl_platform is send, receive, now_us
 *    and random over one context. A port's zl_port_open (its zl_port.h)
 *    fills one with a UDP socket; a zl_loopnet endpoint (many in one
 *    program) and a zl_conditioner (latency, jitter, loss over any
 *    zl_platform) are platforms too.
 *  - The game (zl_game.h, zl_schema.h, zl_usercmd.h, zl_ray.h): a game's
 *    rules are a zl_game: its state layouts described once by zl_schema
 *    field tables, the same zl_usercmd run on server and client, shots
 *    traced against boxes (examples/fps is one).
 *  - The server (zl_server.h): `static zl_server s;` then
 *    zl_server_config_default, zl_server_init(&s, &config, &game, &net,
 *    secret, now_us); each datagram to zl_server_receive, and
 *    zl_server_update(&s, now_us) every loop; zl_server_next_notice tells
 *    joins and leaves; messages, stats and disconnects by slot.
 *  - The client (zl_client.h): zl_client_init, then zl_client_connect (or
 *    zl_client_connect_token with a zl_token.h connect token); each datagram
 *    to zl_client_receive, zl_client_update every loop; each frame
 *    zl_client_frame, zl_client_command with the player's input (predicted
 *    at once), zl_client_player and zl_client_entity to draw.
 *  - Configuration (zl_config.h): capacities are compile-time #ifndef
 *    defaults that a zl_user_config.h overrides; zl_server_init and
 *    zl_client_init refuse with ZL_ERR_CONFIG an application compiled with
 *    other ones than the library (zl_version.h).
 *  - Errors (zl_base.h): ZL_OK or a count, else a negative ZL_ERR_* that
 *    zl_strerror names; hostile bytes are dropped and counted, never fatal.
 *
 * Public headers are this one and every header it includes, directly or
 * not; they are installed and safe in C++. Those whose opening comment says
 * "Not part of the API" are public only for the structs the application
 * allocates inside zl_server and zl_client (docs/ARCHITECTURE.md lists
 * both kinds). The other headers of core/ and platform/ are the library's
 * own (wire formats, crypto internals, tables). */
#ifndef ZEROLAG_H
#define ZEROLAG_H

#include "zl_version.h"  /* version, configuration check (zl_config.h, zl_base.h: errors) */
#include "zl_server.h"   /* the authoritative server */
#include "zl_client.h"   /* the predicting, interpolating client */
#include "zl_broadcast.h" /* the spectator stream: fragments for any HTTP server */
#include "zl_server_blocks.h" /* blocks to and from clients: the join gamestate */
#include "zl_client_blocks.h" /* blocks to and from the server */
#include "zl_client_demo.h" /* client demos: record, play back (zl_demo.h: the format) */
#include "zl_replay.h"   /* match records re-run (zl_record.h: the records) */
#include "zl_game.h"     /* the interface a game's rules implement */
#include "zl_schema.h"   /* state layouts as field tables */
#include "zl_platform.h" /* the HAL: send, receive, clock, random */
#include "zl_loopnet.h"  /* an in-memory network: many endpoints in one program */
#include "zl_conditioner.h" /* latency, jitter and loss on any zl_platform */

#endif
