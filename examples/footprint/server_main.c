/* server_main.c - the server footprint program: the library, the FPS rules
 * and one server that starts, takes what is waiting, runs one update. */
#include "fp.h"

/* Caller-owned state, static: this is what the footprint table counts. */
static zl_server server;
static fps_game game;

int main(void)
{
    zl_platform net;
    zl_addr peer;
    uint64_t now;
    if (fp_board_open(&net, &peer) != ZL_OK)
        return 1;
    now = net.now_us(net.ctx);
    fp_server_start(&server, &game, &net, now);
    fp_server_pump(&server, &net, now);
    /* The first tick is due one tick after the start. */
    (void)zl_server_update(&server, now + 1000000u / FP_TICK_RATE);
    fp_board_close();
    fp_say_u32("server: tick", zl_server_tick(&server));
    return zl_server_tick(&server) >= 1 ? 0 : 1;
}
