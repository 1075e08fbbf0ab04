/* test_admission.c - who gets and keeps a slot on a real server: many
 * clients behind one address, silent connections, late goodbyes, oversize. */
#include <string.h>

#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

#define CLIENTS ZL_SIM_CLIENTS
#define FRAME_MS (ZL_SIM_FRAME_US / 1000u)

static zl_sim *const S = &zl_sim_world;

/* Walks in circles: a client that plays. */
static int walker(zl_sim *sim, int i, zl_usercmd *cmd)
{
    uint32_t f = (uint32_t)(zl_test_time_us / ZL_SIM_FRAME_US);
    (void)sim;
    cmd->msec = (uint16_t)FRAME_MS;
    cmd->forward = 127;
    cmd->yaw = (zl_angle)(f * (200u + 40u * (uint32_t)i));
    return 1;
}

/* Finishes the handshake and never plays: a connection flood that
 * completes, or a client stuck before its first frame. */
static int silent(zl_sim *sim, int i, zl_usercmd *cmd)
{
    (void)sim, (void)i, (void)cmd;
    return 0;
}

static int connected_count(int from, int to)
{
    int i, n = 0;
    for (i = from; i < to; i++)
        n += zl_sim_connected(S, i);
    return n;
}

/* The defaults with `clients` slots, plain (who gets a slot does not
 * depend on sealing; the tests that configure nothing play with tokens
 * and sealed packets, the simulation's default). */
static void plain_config(zl_server_config *sc, int clients)
{
    zl_server_config_default(sc);
    sc->security = ZL_SECURITY_PLAIN;
    sc->max_clients = (uint16_t)clients;
}

static uint32_t drops_of(int reason)
{
    uint32_t d[ZL_SERVER_DROP_COUNT];
    zl_server_get_drops(&S->server, d);
    return d[reason];
}

/* Every client joins at once from one address (a LAN party behind a NAT);
 * returns the milliseconds until the last is connected, or 0 when some
 * were not within 10 s. */
static uint32_t join_together(const zl_ratelimit_config *limits)
{
    zl_server_config sc;
    uint64_t start;
    int i;
    plain_config(&sc, CLIENTS);
    sc.max_per_address = CLIENTS;
    if (limits)
        sc.ratelimit = *limits;
    zl_sim_init(S, CLIENTS, &sc, NULL, 51);
    S->shared_address = 1;
    start = zl_test_time_us;
    for (i = 0; i < CLIENTS; i++)
        zl_sim_join(S, i, walker);
    while (connected_count(0, CLIENTS) < CLIENTS && zl_test_time_us - start < 10000000u)
        zl_sim_step(S);
    return connected_count(0, CLIENTS) == CLIENTS
               ? (uint32_t)((zl_test_time_us - start) / 1000u)
               : 0u;
}

/* The join limit answers a burst of clients behind one address at once;
 * the old per-address bucket (4 per second, burst 4) made them queue. */
static void test_shared_address_joins(void)
{
    zl_ratelimit_config old;
    uint32_t now_ms, old_ms, old_refused;
    zl_ratelimit_config_default(&old);
    old.socket_rate = old.socket_burst = 1000000u;
    old.addr_rate = old.addr_burst = 4u;
    old_ms = join_together(&old);
    old_refused = drops_of(ZL_SERVER_DROP_RATE);
    now_ms = join_together(NULL);
    zl_test_note("%d clients behind one address joining at once: all in %u ms with %u requests "
                 "refused (per-address bucket of 4/s, burst 4: %u ms, %u refused)",
                 CLIENTS, now_ms, drops_of(ZL_SERVER_DROP_RATE), old_ms, old_refused);
    ZL_CHECK(now_ms > 0 && now_ms <= 500u);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_RATE), 0);
    ZL_CHECK(old_ms == 0 || old_ms > now_ms);
    /* They play: the server runs everyone's commands. */
    zl_sim_run(S, 1000000u);
    ZL_CHECK_EQ(connected_count(0, CLIENTS), CLIENTS);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_SILENT), 0);
}

/* REQUESTs from one address, a new port each, 10 a millisecond for 2 s:
 * answered no faster than the address's bucket allows. */
static void test_shared_address_flood(void)
{
    zl_server_config sc;
    uint8_t pkt[ZL_PACKET_HEADER_SIZE + ZL_REQUEST_SIZE];
    zl_msg_request m;
    uint32_t sent = 0, answered, budget;
    uint64_t start;
    int len, k;
    plain_config(&sc, 1);
    zl_sim_init(S, 1, &sc, NULL, 52);
    m.protocol_id = ZL_PROTOCOL_ID;
    zl_client_settings_default(&m.settings);
    start = zl_test_time_us;
    while (zl_test_time_us - start < 2000000u) {
        for (k = 0; k < 10; k++) {
            zl_addr from = zl_addr_ipv4(198, 51, 100, 9, (uint16_t)(1024u + sent % 60000u));
            m.nonce = 0x1000u + sent++;
            zl_msg_write(ZL_MSG_REQUEST, pkt + ZL_PACKET_HEADER_SIZE, ZL_REQUEST_SIZE, &m);
            len = zl_conn_seal_unlinked(pkt, ZL_REQUEST_SIZE, ZL_MSG_REQUEST);
            zl_server_receive(&S->server, &from, pkt, (size_t)len, zl_test_time_us);
        }
        zl_sim_step(S);
    }
    answered = S->unbound; /* the challenges went to the flood's ports */
    budget = sc.ratelimit.addr_burst + 2u * sc.ratelimit.addr_rate;
    zl_test_note("%u REQUESTs from one address in 2 s: %u answered (budget %u), %u refused", sent,
                 answered, budget, drops_of(ZL_SERVER_DROP_RATE));
    ZL_CHECK(answered <= budget);
    ZL_CHECK_EQ(answered + drops_of(ZL_SERVER_DROP_RATE), sent);
}

/* Connections that finish the handshake and send no command are ended
 * after the grace (1.5 s), counted; a playing client beside them stays.
 * Without the grace they hold their slots for the whole 5 s timeout. */
static void test_silent_connections(void)
{
    zl_server_config sc;
    int i, held_at_4s;
    plain_config(&sc, CLIENTS);
    sc.grace_us = 0;
    zl_sim_init(S, CLIENTS, &sc, NULL, 53);
    for (i = 0; i < CLIENTS; i++)
        zl_sim_join(S, i, i == 0 ? walker : silent);
    zl_sim_run(S, 4000000u);
    held_at_4s = connected_count(1, CLIENTS);

    plain_config(&sc, CLIENTS);
    zl_sim_init(S, CLIENTS, &sc, NULL, 53);
    for (i = 0; i < CLIENTS; i++)
        zl_sim_join(S, i, i == 0 ? walker : silent);
    zl_sim_run(S, 1000000u);
    ZL_CHECK_EQ(connected_count(0, CLIENTS), CLIENTS);
    zl_sim_run(S, sc.grace_us - 1000000u + 100000u);
    zl_test_note("%d silent connections: %d still held after 4 s without the grace, %d after "
                 "%u ms with it (%u counted silent)",
                 CLIENTS - 1, held_at_4s, connected_count(1, CLIENTS),
                 (sc.grace_us + 100000u) / 1000u, drops_of(ZL_SERVER_DROP_SILENT));
    ZL_CHECK_EQ(held_at_4s, CLIENTS - 1);
    ZL_CHECK_EQ(connected_count(1, CLIENTS), 0);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_SILENT), CLIENTS - 1);
    ZL_CHECK(zl_sim_connected(S, 0));
    /* The freed slots take new players. */
    for (i = 1; i < CLIENTS; i++)
        zl_sim_join(S, i, walker);
    zl_sim_run(S, 2000000u);
    ZL_CHECK_EQ(connected_count(0, CLIENTS), CLIENTS);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_SILENT), CLIENTS - 1);
}

/* One address holds at most max_per_address slots; the rest are denied
 * (the clients are told the server is full) and counted, and other
 * addresses still get in. */
static void test_slots_per_address(void)
{
    zl_server_config sc;
    int i;
    plain_config(&sc, CLIENTS);
    zl_sim_init(S, CLIENTS, &sc, NULL, 54);
    S->shared_address = 1;
    for (i = 0; i < CLIENTS - 1; i++)
        zl_sim_join(S, i, walker);
    S->shared_address = 0;
    zl_sim_join(S, CLIENTS - 1, walker);
    zl_sim_run(S, 2000000u);
    zl_test_note("%d clients from one address, one from another: %d and %d connected, %u denied "
                 "for their address",
                 CLIENTS - 1, connected_count(0, CLIENTS - 1),
                 connected_count(CLIENTS - 1, CLIENTS), drops_of(ZL_SERVER_DROP_CROWDED));
    ZL_CHECK_EQ(connected_count(0, CLIENTS - 1), (int)sc.max_per_address);
    ZL_CHECK(zl_sim_connected(S, CLIENTS - 1));
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_CROWDED), (uint32_t)(CLIENTS - 1) - sc.max_per_address);
    for (i = 0; i < CLIENTS - 1; i++)
        ZL_CHECK(zl_sim_connected(S, i) ||
                 zl_client_state(&S->c[i].client) == ZL_CLIENT_DENIED);
}

/* A client's goodbye is sent several times; those after the first find
 * the slot freed and are counted as late, not as bad packets. */
static void test_late_goodbyes(void)
{
    zl_sim_init(S, 2, NULL, NULL, 55);
    zl_sim_join(S, 0, walker);
    zl_sim_join(S, 1, walker);
    zl_sim_run(S, 1000000u);
    zl_sim_leave(S, 0);
    zl_sim_run(S, 500000u);
    zl_test_note("a goodbye sent %d times: %u late, %u bad packets", ZL_DISCONNECT_REPEAT,
                 drops_of(ZL_SERVER_DROP_LATE), drops_of(ZL_SERVER_DROP_PACKET));
    ZL_CHECK(!zl_sim_connected(S, 0) && zl_sim_connected(S, 1));
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_LATE), ZL_DISCONNECT_REPEAT - 1);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_PACKET), 0);
}

/* A closed server (draining, or waiting for its fleet) denies newcomers
 * as full while its players play on; opened again, it admits them. */
static void test_closed_server(void)
{
    zl_sim_init(S, 3, NULL, NULL, 57);
    zl_sim_join(S, 0, walker);
    zl_sim_run(S, 1000000u);
    zl_server_set_open(&S->server, 0);
    ZL_CHECK_EQ(zl_server_is_open(&S->server), 0);
    zl_sim_join(S, 1, walker);
    zl_sim_run(S, 2000000u);
    zl_test_note("closed: %u denied as full, the player before still connected: %d",
                 drops_of(ZL_SERVER_DROP_FULL), zl_sim_connected(S, 0));
    ZL_CHECK(zl_sim_connected(S, 0) && !zl_sim_connected(S, 1));
    ZL_CHECK_EQ(zl_client_state(&S->c[1].client), ZL_CLIENT_DENIED);
    ZL_CHECK(drops_of(ZL_SERVER_DROP_FULL) >= 1);
    zl_server_set_open(&S->server, 1);
    zl_sim_join(S, 2, walker);
    zl_sim_run(S, 1000000u);
    ZL_CHECK(zl_server_is_open(&S->server) && zl_sim_connected(S, 2));
}

/* What the caller drops for size is counted with the rest. */
static void test_oversize_counted(void)
{
    zl_sim_init(S, 1, NULL, NULL, 56);
    zl_server_count_oversize(&S->server);
    zl_server_count_oversize(&S->server);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_OVERSIZE), 2);
    ZL_CHECK_EQ(drops_of(ZL_SERVER_DROP_PACKET), 0);
}

void zl_suite_admission(void)
{
    ZL_RUN(test_shared_address_joins);
    ZL_RUN(test_shared_address_flood);
    ZL_RUN(test_silent_connections);
    ZL_RUN(test_slots_per_address);
    ZL_RUN(test_late_goodbyes);
    ZL_RUN(test_closed_server);
    ZL_RUN(test_oversize_counted);
}

#else

void zl_suite_admission(void)
{
    zl_print("  admission left out: no room for a server in this image (zl_sim.h)\n");
}

#endif
