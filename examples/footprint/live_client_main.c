/* live_client_main.c - the Cortex-M3 side of the live test: a client on the
 * UART joins a server on the host, plays in real time, reports its prediction. */
#include "fp.h"

#define CONNECT_TIMEOUT_US 10000000u
#define PLAY_US 6000000u
/* After the last command: the server runs what it has buffered and its
 * snapshot acknowledges the last command. */
#define SETTLE_US 1000000u

static zl_client client;
static uint8_t block[ZL_BLOCK_MAX];

int main(void)
{
    zl_platform net;
    zl_addr server;
    zl_client_stats st;
    uint64_t start, now, play_start = 0, next_frame = 0;
    uint32_t frame = 0, hash = 0;
    const void *mine;
    if (fp_board_open(&net, &server) != ZL_OK)
        return 1;
    start = now = net.now_us(net.ctx);
    fp_client_start(&client, &net, &server, block, sizeof block, now);
    for (;;) {
        now = net.now_us(net.ctx);
        fp_client_pump(&client, &net, now);
        zl_client_update(&client, now);
        if (play_start == 0) {
            if (zl_client_state(&client) == ZL_CLIENT_CONNECTED)
                play_start = next_frame = now;
            else if (now - start > CONNECT_TIMEOUT_US)
                break;
            continue;
        }
        if (now - play_start >= PLAY_US + SETTLE_US ||
            zl_client_state(&client) != ZL_CLIENT_CONNECTED)
            break;
        if (now >= next_frame && now - play_start < PLAY_US) {
            (void)fp_client_play(&client, frame++, now);
            next_frame += FP_FRAME_US;
        }
    }
    zl_client_get_stats(&client, now, &st);
    mine = zl_client_predicted(&client);
    if (mine)
        hash = zl_schema_hash(&fps_player_schema, mine, ZL_SCHEMA_WIRE, ZL_SCHEMA_HASH_INIT);
    fp_say_u32("live client: connected", (uint32_t)(zl_client_state(&client) == ZL_CLIENT_CONNECTED));
    zl_client_disconnect(&client, now);
    fp_board_close();
    fp_say_u32("live client: snapshots decoded", st.snapshots);
    fp_say_u32("live client: commands predicted", st.predict.predicted);
    fp_say_u32("live client: reconciliations", st.predict.reconciled);
    fp_say_u32("live client: mispredictions", st.predict.mispredicted);
    fp_say_u32("live client: round trip us", st.link.rtt_us);
    fp_say_u32("live client: predicted player hash", hash);
    fp_board_report();
    return play_start != 0 && st.predict.reconciled > 0 && st.predict.mispredicted == 0 ? 0 : 1;
}
