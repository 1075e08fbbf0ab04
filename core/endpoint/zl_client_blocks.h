/* zl_client_blocks.h - the client's blocks: reliable payloads of up to
 * ZL_BLOCK_MAX bytes to and from the server (the join gamestate, a map). */
#ifndef ZL_CLIENT_BLOCKS_H
#define ZL_CLIENT_BLOCKS_H

#include "zl_client.h"

ZL_BEGIN_DECLS

/* The model, pacing and the join: zl_server_blocks.h; the machinery and
 * its wire: zl_block.h. */

/* Sends len bytes at data to the server: ZL_OK; ZL_ERR_AGAIN when not
 * connected; ZL_ERR_INVALID for len 0 or above ZL_BLOCK_MAX; ZL_ERR_FULL
 * while the previous block is under way. */
int zl_client_block_send(zl_client *c, const void *data, uint32_t len);

/* The complete block from the server: *data points into block_buffer;
 * returns its length, or ZL_ERR_AGAIN when none is complete. It stays
 * until zl_client_block_release; the next block waits for that. */
int zl_client_block_received(const zl_client *c, const uint8_t **data);
void zl_client_block_release(zl_client *c);

/* Progress both ways (either pointer may be NULL): bytes received of the
 * total for a loading bar. */
void zl_client_block_progress(const zl_client *c, zl_block_status *sending,
                              zl_block_status *receiving);

/* The client loop's own hooks (zl_client.c), not for applications. */
/* The connection starts (ACCEPT read). */
void zl_client_blocks_join(zl_client *c, uint64_t now_us);

/* In a command packet: as zl_server_blocks_attach, paced by the
 * client's block rate. */
uint8_t zl_client_blocks_attach(zl_client *c, uint8_t *payload, int *bytes, uint64_t now_us);

/* After a command packet: a packet of chunks alone when the block
 * and the credit allow one. */
void zl_client_blocks_send(zl_client *c, uint64_t now_us);

ZL_END_DECLS

#endif
