/* zl_user_config.h - the benchmark build's capacities (bench objects only,
 * through -DZL_USER_CONFIG): room for the largest series, 256 players. */
#ifndef ZL_BENCH_USER_CONFIG_H
#define ZL_BENCH_USER_CONFIG_H

#define ZL_MAX_CLIENTS 256
/* Every player and the reference FPS's 32 rockets (FPS_MAX_ENTITIES). */
#define ZL_MAX_ENTITIES (ZL_MAX_CLIENTS + 32)
/* The server series sends no messages and mints no tokens: their per-slot
 * buffers stay small, so 256 slots fit the bench's memory block. */
#define ZL_RELIABLE_MESSAGES 2
#define ZL_RELIABLE_MESSAGE_MAX 16
#define ZL_TOKEN_USER_DATA 16
/* Blocks (the blocks group: four downloads at a time) get acks within a
 * tick or two here: 16 packets in flight, not 64, keep the 256 slots'
 * senders small. */
#define ZL_BLOCK_PACKETS 16
/* Steady links only: the input buffers and prediction rings keep half a
 * second's room for a stall's backlog (the library's defaults keep one to
 * two seconds), so 256 slots and their clients fit the bench's memory. */
#define ZL_CMDBUF_CAPACITY 64
#define ZL_PREDICT_COMMANDS 128

#endif
