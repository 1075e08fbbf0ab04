/* zl_msg.h - the one writer and reader of every fixed-size message: the
 * handshake's and the small connected ones (zl_handshake.h, their structs).
 * Not part of the API (docs/ARCHITECTURE.md): public because zl_conn.h
 * includes it; an application never writes or reads these messages itself. */
#ifndef ZL_MSG_H
#define ZL_MSG_H

#include "zl_handshake.h"

ZL_BEGIN_DECLS

/* Writes the message of `type` (one of zl_handshake.h's; another is a
 * programmer error) from *msg, which must be that type's struct
 * (zl_msg_request for ZL_MSG_REQUEST, ...), into buf (cap bytes,
 * caller-owned). Returns the payload size (zl_msg_size), ZL_ERR_OVERFLOW
 * when cap is too small or ZL_ERR_INVALID when a field is out of range
 * (settings out of their wire range, slot >= ZL_MAX_CLIENTS, tick_rate 0 or
 * above 1000, a reason >= its *_COUNT); buf is untouched on error. */
int zl_msg_write(uint8_t type, void *buf, size_t cap, const void *msg);

/* Reads the len received payload bytes (read only; payload may be NULL when
 * len is 0) as a message of `type` into *out (that type's struct). Returns
 * ZL_OK, or ZL_ERR_MALFORMED for a wrong size, a value out of range or a
 * padding bit that is not zero; *out is then zeroed. Every accepted payload
 * is the one zl_msg_write produces from *out. */
int zl_msg_read(uint8_t type, const void *payload, size_t len, void *out);

/* The payload size of `type`'s message, bytes. */
size_t zl_msg_size(uint8_t type);

ZL_END_DECLS

#endif
