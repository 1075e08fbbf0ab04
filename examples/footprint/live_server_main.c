/* live_server_main.c - a real-time server for the live test: serves UDP on
 * 127.0.0.1, and when a client leaves prints its player's last state hash. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fp.h"
#include "zl_port.h"

/* Nap between polls: far below a 15.6 ms tick. */
#define IDLE_NS 200000L

static zl_server server;
static fps_game game;
static zl_port port;
/* Per slot, as of the last tick: the player's state hash and the commands
 * run, kept so they can be printed after the slot is gone. */
static uint32_t last_hash[ZL_MAX_CLIENTS], last_executed[ZL_MAX_CLIENTS];

static void record_players(uint64_t now)
{
    int slot;
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        const void *p = zl_server_player(&server, slot);
        zl_server_client_stats st;
        if (!p || zl_server_get_client_stats(&server, slot, now, &st) != ZL_OK)
            continue;
        last_hash[slot] = zl_schema_hash(&fps_player_schema, p, ZL_SCHEMA_WIRE, ZL_SCHEMA_HASH_INIT);
        last_executed[slot] = st.executed;
    }
}

static void print_notices(void)
{
    zl_server_notice n;
    while (zl_server_next_notice(&server, &n)) {
        if (n.kind == ZL_NOTICE_JOIN)
            printf("live server: slot %u joined at tick %u\n", (unsigned)n.slot, (unsigned)n.tick);
        else
            printf("live server: slot %u left (reason %u): commands executed %u, "
                   "player hash %u\n",
                   (unsigned)n.slot, (unsigned)n.reason, (unsigned)last_executed[n.slot],
                   (unsigned)last_hash[n.slot]);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    zl_platform net;
    zl_addr bind_addr;
    uint64_t now, end;
    if (argc != 3 || zl_addr_parse(&bind_addr, argv[1]) != ZL_OK || atoi(argv[2]) <= 0) {
        fputs("usage: live_server ADDRESS:PORT SECONDS\n", stderr);
        return 2;
    }
    if (zl_port_open(&port, &bind_addr, &net) != ZL_OK) {
        fprintf(stderr, "live server: cannot bind %s\n", argv[1]);
        return 1;
    }
    now = net.now_us(net.ctx);
    end = now + (uint64_t)atoi(argv[2]) * 1000000u;
    fp_server_start(&server, &game, &net, now);
    printf("live server: listening on %s for %s s\n", argv[1], argv[2]);
    fflush(stdout);
    while ((now = net.now_us(net.ctx)) < end) {
        struct timespec nap = {0, IDLE_NS};
        fp_server_pump(&server, &net, now);
        if (zl_server_update(&server, now) > 0)
            record_players(now);
        print_notices();
        nanosleep(&nap, NULL);
    }
    zl_server_shutdown(&server, now);
    print_notices();
    zl_port_close(&port);
    return 0;
}
