/* zl_handshake.h - the connection handshake's messages (REQUEST, CHALLENGE,
 * RESPONSE, ACCEPT, DENY) and the small connected ones (KEEPALIVE, DISCONNECT,
 * SETTINGS, PATH_CHALLENGE, PATH_RESPONSE and CONTROL): fixed-size payloads,
 * each described once by a field table, written and read by zl_msg.h.
 * Not part of the API (docs/ARCHITECTURE.md): public because zl_conn.h
 * includes it; an application never builds these messages. */
#ifndef ZL_HANDSHAKE_H
#define ZL_HANDSHAKE_H

#include "zl_protocol.h"
#include "zl_settings.h"
#include "zl_token.h"

ZL_BEGIN_DECLS

/* Payloads are the bytes after the packet header, fixed in size per type,
 * bit-packed, integers least significant bit first, zero padding to the
 * size. */

#define ZL_CHALLENGE_SIZE 20    /* nonce, window, cookie */
#define ZL_ACCEPT_SIZE 25       /* nonce, slot, tick rate, server tick, settings */
#define ZL_DENY_SIZE 9          /* nonce, reason */
#define ZL_DISCONNECT_SIZE 9    /* nonce, reason */
#define ZL_KEEPALIVE_SIZE 8     /* nonce */
#define ZL_SETTINGS_MSG_SIZE 17 /* nonce, settings */
#define ZL_PATH_SIZE 16         /* nonce, token */
#define ZL_CONTROL_SIZE 17      /* nonce, kind, match id, tick */
/* Content before the padding of REQUEST (protocol id, nonce, settings) and
 * RESPONSE (nonce, window, cookie, settings). */
#define ZL_REQUEST_CONTENT 21
#define ZL_RESPONSE_CONTENT 29

/* No amplification: every reply to a REQUEST or RESPONSE is no larger. */
ZL_STATIC_ASSERT(ZL_REQUEST_SIZE >= ZL_REQUEST_CONTENT && ZL_REQUEST_SIZE >= ZL_RESPONSE_CONTENT,
                 zl_request_holds_content);
ZL_STATIC_ASSERT(ZL_CHALLENGE_SIZE <= ZL_REQUEST_SIZE && ZL_DENY_SIZE <= ZL_REQUEST_SIZE &&
                     ZL_ACCEPT_SIZE <= ZL_REQUEST_SIZE,
                 zl_no_reply_larger_than_request);
ZL_STATIC_ASSERT(ZL_REQUEST_SIZE <= ZL_PACKET_MAX_PAYLOAD, zl_request_fits_packet);
ZL_STATIC_ASSERT(ZL_MAX_CLIENTS >= 1 && ZL_MAX_CLIENTS <= 65536, zl_slot_fits_16_bits);

/* REQUEST: a client asks to connect. nonce is 64 bits from the client's HAL
 * random(), fresh per attempt; it ties every later message to this attempt.
 * A protocol_id other than ZL_PROTOCOL_ID is valid data (the server answers
 * ZL_DENY_VERSION), though only a server that opens REQUESTs under other ids
 * ever sees one: the packet CRC already covers the id. */
typedef struct zl_msg_request {
    uint32_t protocol_id;
    uint64_t nonce;
    zl_client_settings settings; /* what the client asks for */
} zl_msg_request;

/* CHALLENGE: the server's stateless answer. A client drops one whose nonce
 * is not the nonce of its pending request. */
typedef struct zl_msg_challenge {
    uint64_t nonce;  /* echoed from the REQUEST */
    uint32_t window; /* zl_cookie_window at the server when made */
    uint64_t cookie; /* zl_cookie_make(secret, client address, window, nonce) */
} zl_msg_challenge;

/* RESPONSE: the client echoes the challenge, with its settings again (the
 * server kept nothing of the REQUEST). */
typedef struct zl_msg_response {
    uint64_t nonce;
    uint32_t window;
    uint64_t cookie;
    zl_client_settings settings;
} zl_msg_response;

/* ACCEPT: the client has a slot. */
typedef struct zl_msg_accept {
    uint64_t nonce;
    uint16_t slot;               /* 0 .. ZL_MAX_CLIENTS - 1, also the player's entity */
    uint16_t tick_rate;          /* server ticks per second, 1 .. 1000 */
    uint32_t server_tick;        /* the server's tick when it wrote the ACCEPT */
    zl_client_settings settings; /* as clamped by the server */
} zl_msg_accept;

/* DENY: the server refuses (reason ZL_DENY_*). */
typedef struct zl_msg_deny {
    uint64_t nonce;
    uint8_t reason;
} zl_msg_deny;

/* DISCONNECT: either side ends the connection (reason ZL_DISCONNECT_*). */
typedef struct zl_msg_disconnect {
    uint64_t nonce;
    uint8_t reason;
} zl_msg_disconnect;

/* KEEPALIVE: proof of life when nothing else is due. */
typedef struct zl_msg_keepalive {
    uint64_t nonce;
} zl_msg_keepalive;

/* SETTINGS: a connected client changes its settings (the server clamps). */
typedef struct zl_msg_settings {
    uint64_t nonce;
    zl_client_settings settings;
} zl_msg_settings;

/* PATH_CHALLENGE and PATH_RESPONSE: before a connection moves to a new
 * address, the server sends a token there and the client echoes it (the
 * packets are sealed: only the client can read the token). */
typedef struct zl_msg_path {
    uint64_t nonce;
    uint64_t token;
} zl_msg_path;

/* CONTROL: a notice about the session (zl_protocol.h, ZL_CONTROL_*). */
typedef struct zl_msg_control {
    uint64_t nonce;
    uint8_t kind;      /* ZL_CONTROL_*, below its count */
    uint32_t match_id; /* MATCH: the application's name of the new match */
    uint32_t tick;     /* MATCH: the new match's first server tick */
} zl_msg_control;

/* Payload bytes of TOKEN_REQUEST and TOKEN_RESPONSE, padding included:
 * REQUEST's and RESPONSE's fields plus the token's expiry, nonce and sealed
 * private part. Every reply stays smaller (no amplification). */
#define ZL_TOKEN_REQUEST_SIZE (ZL_TOKEN_SEALED_SIZE + 64)
ZL_STATIC_ASSERT(ZL_TOKEN_REQUEST_SIZE <= ZL_PACKET_MAX_PAYLOAD, zl_token_request_fits_packet);

/* The token a TOKEN_REQUEST or TOKEN_RESPONSE carries: what the server needs
 * to open it (zl_token_open). */
typedef struct zl_msg_token {
    uint64_t expire_s;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    uint8_t sealed[ZL_TOKEN_SEALED_SIZE];
} zl_msg_token;

/* TOKEN_REQUEST: REQUEST with a connect token. */
typedef struct zl_msg_token_request {
    uint32_t protocol_id;
    uint64_t nonce;
    zl_client_settings settings;
    zl_msg_token token;
} zl_msg_token_request;

/* TOKEN_RESPONSE: RESPONSE with the token again (the server keeps nothing
 * between the two). */
typedef struct zl_msg_token_response {
    uint64_t nonce;
    uint32_t window;
    uint64_t cookie;
    zl_client_settings settings;
    zl_msg_token token;
} zl_msg_token_response;

ZL_END_DECLS

#endif
