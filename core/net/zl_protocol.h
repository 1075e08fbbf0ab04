/* zl_protocol.h - the protocol's identity and vocabulary: its id and version,
 * the message types a packet header names, and the reasons a connection is refused or ended. */
#ifndef ZL_PROTOCOL_H
#define ZL_PROTOCOL_H

#include "zl_packet.h"

ZL_BEGIN_DECLS

/* Wire version, in the low 16 bits of the protocol id. */
#define ZL_PROTOCOL_VERSION 2u
/* Every packet is sealed under this id (zl_packet_seal): "ZL" and the version. */
#define ZL_PROTOCOL_ID (0x5A4C0000u | ZL_PROTOCOL_VERSION)

/* Packet types (zl_packet_header.type). "Connectionless" ones are sealed with
 * sequence, ack and ack_bits 0 under ZL_PROTOCOL_ID (zl_conn_send_unlinked);
 * the others travel on a connection's zl_link, sealed under its own id
 * (zl_conn.h). Every handshake message (zl_handshake.h) starts with the
 * client's nonce, which the receiver compares with the one it knows, so a
 * sender that cannot see the traffic cannot forge one for another's address. */
enum {
    ZL_MSG_REQUEST = 0,    /* client -> server, connectionless: asks for a cookie */
    ZL_MSG_CHALLENGE = 1,  /* server -> client, connectionless: the cookie */
    ZL_MSG_RESPONSE = 2,   /* client -> server, connectionless: echoes the cookie */
    ZL_MSG_ACCEPT = 3,     /* server -> client, connectionless: the slot */
    ZL_MSG_DENY = 4,       /* server -> client, connectionless: refused, and why */
    ZL_MSG_KEEPALIVE = 5,  /* either way, connected: nothing else to send */
    ZL_MSG_DISCONNECT = 6, /* either way, connected: sent several times */
    ZL_MSG_COMMANDS = 7,   /* client -> server, connected (zl_cmdstream) */
    ZL_MSG_SNAPSHOT = 8,   /* server -> client, connected (zl_snapshot) */
    ZL_MSG_SETTINGS = 9,   /* client -> server, connected: new settings */
    ZL_MSG_TOKEN_REQUEST = 10,  /* REQUEST with a connect token (zl_token.h) */
    ZL_MSG_TOKEN_RESPONSE = 11, /* RESPONSE with the same token again */
    ZL_MSG_RELIABLE = 12,  /* either way, connected: messages (zl_reliable) */
    ZL_MSG_PATH_CHALLENGE = 13, /* server -> client, connected, sent to an
                                   address the client's packets came from:
                                   prove you receive there */
    ZL_MSG_PATH_RESPONSE = 14,  /* client -> server, connected: the proof */
    ZL_MSG_CONTROL = 15,   /* server -> client, connected: a change of the
                              session the client must act on (below) */
    ZL_MSG_BLOCK = 16,     /* either way, connected: chunks of a block
                              (zl_block), then COMMANDS or SNAPSHOT or nothing */
    ZL_MSG_TYPE_COUNT
};
ZL_STATIC_ASSERT(ZL_MSG_TYPE_COUNT <= ZL_PACKET_TYPE_COUNT, zl_msg_types_fit);

/* Why the server refused a client (zl_msg_deny.reason). A source that is
 * rate limited gets no answer at all: a DENY would be the very reply the
 * limit exists to withhold. */
enum {
    ZL_DENY_FULL = 0,    /* every slot is taken */
    ZL_DENY_VERSION = 1, /* the request named another ZL_PROTOCOL_ID */
    ZL_DENY_BANNED = 2,  /* the application refuses this client */
    ZL_DENY_TOKEN = 3,   /* a plain request to a server that wants tokens */
    ZL_DENY_COUNT
};

/* Why a connection ended (zl_msg_disconnect.reason). */
enum {
    ZL_DISCONNECT_QUIT = 0,     /* the sender closed the connection */
    ZL_DISCONNECT_TIMEOUT = 1,  /* the peer was heard from too long ago (the
                                   server's verdict, or a client's own:
                                   zl_client_reason) */
    ZL_DISCONNECT_KICKED = 2,   /* the server's application removed the client */
    ZL_DISCONNECT_SHUTDOWN = 3, /* the server is stopping */
    ZL_DISCONNECT_MATCH_OVER = 4, /* the match ended and its server closes
                                     every connection (a backend that hands
                                     out new tokens for the next one) */
    ZL_DISCONNECT_COUNT
};

/* CONTROL (zl_msg_control, type 15): what the server tells a connected
 * client about its session beyond one match, by kind (a kind byte, so
 * later notices take a new kind rather than a type). Sent on the link and
 * repeated every
 * resend interval (a round trip and a quarter, as reliable messages)
 * until a packet carrying it is acknowledged.
 *   ZL_CONTROL_MATCH: the server started a new match on the same
 *     connections (zl_server_change_match: a map change or a restart).
 *     match_id is the application's name for it; tick is its first tick:
 *     every snapshot before it belongs to the old match and is dropped.
 *     The client resets its match state (snapshots, prediction, clock,
 *     interpolation, events) once, keeps its connection and slot, and
 *     tells the game (zl_client_next_notice). The server sends the client
 *     no snapshot until it has acknowledged the notice, and numbers its
 *     commands of the new match from the first snapshot's acknowledged
 *     command on, far above any it predicted in the old one (which are
 *     then refused as old). */
enum {
    ZL_CONTROL_MATCH = 0,
    ZL_CONTROL_COUNT
};

ZL_END_DECLS

#endif
