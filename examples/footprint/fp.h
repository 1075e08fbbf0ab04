/* fp.h - what the footprint programs share: how they set up a server and a
 * client of the reference FPS, and the few things each board supplies. */
#ifndef FP_H
#define FP_H

#include "fps.h"
#include "zl_client.h"
#include "zl_server.h"

/* The address the programs' server uses, and the rates they run at: 64
 * ticks/s; the client asks for 20 snapshots/s (the embedded
 * configuration's short histories are sized for that), runs one 16 ms
 * command per frame and sends 32 command packets/s. */
#define FP_SERVER_ADDR "10.0.0.1:27015"
#define FP_TICK_RATE 64
#define FP_UPDATE_RATE 20
#define FP_COMMAND_RATE 32
#define FP_FRAME_US 16000u

/* Starts a server of the FPS rules on net at now_us (game: caller-owned,
 * must outlive s). */
void fp_server_start(zl_server *s, fps_game *game, const zl_platform *net, uint64_t now_us);

/* Starts a client of the FPS rules on net and begins connecting to server;
 * blocks from the server (its gamestate) land in block, block_bytes long
 * (caller-owned, kept as long as c). */
void fp_client_start(zl_client *c, const zl_platform *net, const zl_addr *server,
                     uint8_t *block, uint32_t block_bytes, uint64_t now_us);

/* One frame of a scripted player: draws the world, then runs a movement
 * command (run in circles, jump now and then) chosen from the frame
 * number. Returns zl_client_command's result. */
int fp_client_play(zl_client *c, uint32_t frame, uint64_t now_us);

/* Takes every datagram waiting on net into the server or the client. */
void fp_server_pump(zl_server *s, const zl_platform *net, uint64_t now_us);
void fp_client_pump(zl_client *c, const zl_platform *net, uint64_t now_us);

/* Text output: a string, and "name value" lines. */
void fp_say(const char *text);
void fp_say_u32(const char *name, uint32_t value);

/* ---- Supplied by the board file (fp_board_<board>.c) ---- */

/* Opens the programs' transport, fills *net, and sets *peer to the address
 * a client there sends to. Cortex-M3: the UART, whose peer is
 * FP_SERVER_ADDR (the host bridge's server). Host: a UDP socket on
 * 127.0.0.1 whose peer is itself, so nothing leaves the process. ZL_OK, or
 * an error after saying what failed. */
int fp_board_open(zl_platform *net, zl_addr *peer);
/* Finishes output that is still on its way (the UART's last frame). */
void fp_board_close(void);
/* Prints the transport's counters, where it keeps any (the UART's). */
void fp_board_report(void);
/* Writes text to the console. */
void fp_board_write(const char *text, size_t len);
/* Stack measurement where the board can do it: fp_board_stack_paint marks
 * the free stack below the caller, fp_board_stack_used then returns the
 * bytes used below the caller since (0 when the board cannot tell). */
void fp_board_stack_paint(void);
uint32_t fp_board_stack_used(void);

#endif
