/* client_main.c - the client footprint program: the library, the FPS rules
 * and one client that starts connecting, runs one update and stops. */
#include "fp.h"

/* Caller-owned state, static: this is what the footprint table counts. */
static zl_client client;
/* Where the server's gamestate would land: a small block (ZL_BLOCK_MAX). */
static uint8_t block[ZL_BLOCK_MAX];

int main(void)
{
    zl_platform net;
    zl_addr server;
    uint64_t now;
    if (fp_board_open(&net, &server) != ZL_OK)
        return 1;
    now = net.now_us(net.ctx);
    fp_client_start(&client, &net, &server, block, sizeof block, now);
    fp_client_pump(&client, &net, now);
    zl_client_update(&client, now);
    fp_board_close();
    fp_say_u32("client: state", (uint32_t)zl_client_state(&client));
    return zl_client_state(&client) == ZL_CLIENT_REQUESTING ? 0 : 1;
}
