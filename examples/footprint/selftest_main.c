/* selftest_main.c - proves a configuration works, not just links: a server
 * and two clients in one image play 4 s over the in-image network. */
#include "fp.h"
#include "zl_client_blocks.h"
#include "zl_loopnet.h"
#include "zl_port.h"
#include "zl_server_blocks.h"

#define CLIENTS 2
#define START_US 1000000u
#define PLAY_US 4000000u
/* After the last command: long enough for the server to run every
 * buffered command and for its snapshot to come back. */
#define SETTLE_US 500000u
#define STEP_US 1000u

static zl_loopnet net;
static zl_server server;
static fps_game game;
static zl_client client[CLIENTS];
/* The gamestate the server gives each client as it joins (a small block),
 * and where each client receives it. */
static uint8_t gamestate[ZL_BLOCK_MAX], block[CLIENTS][ZL_BLOCK_MAX];
static int gamestate_bytes;
static uint32_t gamestates_read;

static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* Prints a figure the run is judged by; returns whether it is in bounds. */
static int expect(const char *what, uint32_t value, int ok)
{
    fp_say_u32(what, value);
    if (!ok)
        fp_say("selftest: ^ out of bounds\n");
    return ok;
}

static uint32_t player_hash(const void *state)
{
    return state ? zl_schema_hash(&fps_player_schema, state, ZL_SCHEMA_WIRE, ZL_SCHEMA_HASH_INIT)
                 : 0;
}

/* The server's notices: each joining client gets the gamestate. */
static void give_gamestates(void)
{
    zl_server_notice n;
    while (zl_server_next_notice(&server, &n))
        if (n.kind == ZL_NOTICE_JOIN)
            (void)zl_server_block_send(&server, n.slot, gamestate, (uint32_t)gamestate_bytes);
}

/* Client i reads its gamestate when it is complete: it must be this
 * build's arena and rules, naming both players. */
static void read_gamestate(int i)
{
    fps_gamestate gs;
    const uint8_t *data;
    int n = zl_client_block_received(&client[i], &data);
    if (n <= 0)
        return;
    if (fps_gamestate_read(data, (size_t)n, &gs) == ZL_OK && gs.arena_ok && gs.rules_ok &&
        gs.players == CLIENTS)
        gamestates_read++;
    zl_client_block_release(&client[i]);
}

/* The checks on client i once play has settled. */
static int judge(int i, uint64_t now)
{
    zl_client_stats st;
    const zl_client *c = &client[i];
    int other = zl_client_slot(&client[(i + 1) % CLIENTS]), ok = 1;
    uint32_t mine = player_hash(zl_client_predicted(c));
    zl_client_get_stats(&client[i], now, &st);
    ok &= expect("selftest: connected", (uint32_t)(zl_client_state(c) == ZL_CLIENT_CONNECTED),
                 zl_client_state(c) == ZL_CLIENT_CONNECTED);
    ok &= expect("selftest: snapshots decoded", st.snapshots,
                 st.snapshots >= PLAY_US / 1000000u * FP_UPDATE_RATE * 3u / 4u);
    ok &= expect("selftest: snapshots undecodable", st.snapshots_undecodable,
                 st.snapshots_undecodable == 0);
    ok &= expect("selftest: reconciliations", st.predict.reconciled,
                 st.predict.reconciled >= st.snapshots / 2u);
    ok &= expect("selftest: mispredictions", st.predict.mispredicted,
                 st.predict.mispredicted == 0);
    /* The other player is drawn from snapshots, between two samples. */
    ok &= expect("selftest: other player drawn", (uint32_t)(zl_client_entity(c, other) != NULL),
                 zl_client_entity(c, other) != NULL);
    fp_say_u32("selftest: extrapolated draws", st.extrapolated);
    /* Once the server has run every command, its player is the client's
     * prediction, field for field. */
    ok &= expect("selftest: predicted player hash", mine,
                 mine != 0 && mine == player_hash(zl_server_player(&server, zl_client_slot(c))));
    return ok;
}

int main(void)
{
    zl_platform clock, server_net, client_net[CLIENTS];
    zl_loopnet_endpoint server_ep, client_ep[CLIENTS];
    zl_addr server_addr, client_addr;
    uint64_t now = START_US;
    uint32_t frame = 0, server_stack = 0, client_stack = 0, largest = 0;
    int i, ok = 1;

    zl_port_clock_only(&clock);
    zl_loopnet_init(&net, &clock);
    zl_addr_parse(&server_addr, FP_SERVER_ADDR);
    zl_addr_parse(&client_addr, "10.0.1.1:0");
    if (zl_loopnet_open(&net, &server_ep, &server_addr, &server_net) != ZL_OK) {
        fp_say("selftest: cannot open the in-image network\n");
        return 1;
    }
    fp_server_start(&server, &game, &server_net, now);
    {
        static const char *const names[CLIENTS] = {"ada", "brunel"};
        gamestate_bytes = fps_gamestate_write(gamestate, sizeof gamestate, FP_TICK_RATE, names,
                                              CLIENTS, "zerolag selftest");
    }
    for (i = 0; i < CLIENTS; i++) {
        if (zl_loopnet_open(&net, &client_ep[i], &client_addr, &client_net[i]) != ZL_OK) {
            fp_say("selftest: cannot open the in-image network\n");
            return 1;
        }
        fp_client_start(&client[i], &client_net[i], &server_addr, block[i], sizeof block[i],
                        now);
    }

    for (; now < START_US + PLAY_US + SETTLE_US; now += STEP_US) {
        int play = now % FP_FRAME_US == 0 && now < START_US + PLAY_US;
        fp_board_stack_paint();
        fp_server_pump(&server, &server_net, now);
        (void)zl_server_update(&server, now);
        server_stack = max_u32(server_stack, fp_board_stack_used());
        give_gamestates(); /* the game's work, outside the measure */
        for (i = 0; i < CLIENTS; i++) {
            zl_client_stats st;
            fp_board_stack_paint();
            fp_client_pump(&client[i], &client_net[i], now);
            zl_client_update(&client[i], now);
            /* The two players run the script half a lap apart. */
            if (play)
                (void)fp_client_play(&client[i], frame + 150u * (uint32_t)i, now);
            client_stack = max_u32(client_stack, fp_board_stack_used());
            read_gamestate(i);
            zl_client_get_stats(&client[i], now, &st);
            largest = max_u32(largest, st.last_snapshot_bytes);
        }
        frame += (uint32_t)play;
    }

    for (i = 0; i < CLIENTS; i++)
        ok &= judge(i, now);
    fp_say_u32("selftest: gamestate bytes", (uint32_t)gamestate_bytes);
    ok &= expect("selftest: gamestates read", gamestates_read, gamestates_read == CLIENTS);
    fp_say_u32("selftest: largest snapshot bytes", largest);
    if (client_stack > 0) { /* 0: the board cannot measure its stack */
        fp_say_u32("selftest: client stack bytes", client_stack);
        fp_say_u32("selftest: server stack bytes", server_stack);
    }
    fp_say(ok ? "selftest: OK\n" : "selftest: FAILED\n");
    return ok ? 0 : 1;
}
