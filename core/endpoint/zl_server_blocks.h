/* zl_server_blocks.h - the server's blocks: reliable payloads of up to
 * ZL_BLOCK_MAX bytes to and from each client (the join gamestate, a map). */
#ifndef ZL_SERVER_BLOCKS_H
#define ZL_SERVER_BLOCKS_H

#include "zl_server.h"

ZL_BEGIN_DECLS

/* One block at a time each way on a connection (zl_block.h has the
 * machinery). Sending references the caller's bytes, copying nothing: keep
 * them unchanged until the sending progress says ZL_BLOCK_DONE (the server
 * also posts ZL_NOTICE_BLOCK_SENT), or the connection ends. Receiving
 * writes into the buffer the receiver's config names (server:
 * block_buffers and block_capacity; client: block_buffer and
 * block_capacity); a block larger than that buffer is refused, as is any
 * block while none is configured. A complete block waits there for the
 * application and holds back the next one until it is released.
 *
 * Pacing. The server's blocks take only what the client's byte rate
 * (zl_client_settings.rate) leaves after its snapshots, never so much that
 * a snapshot would find less credit than without them: a downloading
 * player's snapshots keep their size and rate, and the other players'
 * traffic is untouched. The client's blocks take its block_rate (or its
 * rate). Chunks travel in packets of their own until the receiver has
 * acknowledged one, then in the same datagram as the snapshot or the
 * commands.
 *
 * Join. The server's game gives a joining client its gamestate by calling
 * zl_server_block_send when it reads the client's ZL_NOTICE_JOIN; the
 * client reads it with zl_client_block_received (examples/fps: fps_gamestate). */

/* Sends len bytes at data to the client in slot: ZL_OK; ZL_ERR_INVALID for
 * a free slot, len 0 or above ZL_BLOCK_MAX; ZL_ERR_FULL while the previous
 * block to that client is under way. */
int zl_server_block_send(zl_server *s, int slot, const void *data, uint32_t len);

/* The complete block from the client in slot: *data points into that
 * slot's buffer; returns its length, ZL_ERR_AGAIN when none is complete,
 * ZL_ERR_INVALID for a free slot. It stays until zl_server_block_release. */
int zl_server_block_received(const zl_server *s, int slot, const uint8_t **data);
void zl_server_block_release(zl_server *s, int slot);

/* Progress both ways for slot (either pointer may be NULL): ZL_OK, or
 * ZL_ERR_INVALID for a free slot. */
int zl_server_block_progress(const zl_server *s, int slot, zl_block_status *sending,
                             zl_block_status *receiving);

/* The server loop's own hooks (zl_server.c), not for applications. */
/* Slot's connection starts: blocks empty, its receive buffer set. */
void zl_server_blocks_join(zl_server *s, int slot);

/* In a snapshot's packet: payload holds *bytes of the snapshot,
 * not yet charged to the slot's rate credit. Puts chunks in front within
 * what the credit leaves (zl_blocks_attach); returns the type to send. */
uint8_t zl_server_blocks_attach(zl_server *s, int slot, uint8_t *payload, int *bytes,
                                uint64_t now_us);

/* Each tick after the snapshots: packets of chunks alone, for
 * every slot whose block and credit allow one. */
void zl_server_blocks_send(zl_server *s, uint64_t now_us);

ZL_END_DECLS

#endif
