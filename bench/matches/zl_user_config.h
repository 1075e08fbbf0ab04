/* zl_user_config.h - the matches program's capacities (bench/matches/):
 * servers of 64 slots, so that several fit one image. */
#ifndef ZL_BENCH_MATCHES_USER_CONFIG_H
#define ZL_BENCH_MATCHES_USER_CONFIG_H

#define ZL_MAX_CLIENTS 64
/* Every player and the reference FPS's 32 rockets (FPS_MAX_ENTITIES). */
#define ZL_MAX_ENTITIES (ZL_MAX_CLIENTS + 32)
/* As the main benchmark's (bench/zl_user_config.h): no messages, no tokens. */
#define ZL_RELIABLE_MESSAGES 2
#define ZL_RELIABLE_MESSAGE_MAX 16
#define ZL_TOKEN_USER_DATA 16
/* As the main benchmark's: input buffers and prediction rings for steady
 * links. */
#define ZL_CMDBUF_CAPACITY 64
#define ZL_PREDICT_COMMANDS 128

#endif
