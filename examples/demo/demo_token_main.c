/* demo_token_main.c - a game backend's minting step as a program: makes a connect
 * token for one player and one match and writes it as hex for the client. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_options.h"
#include "zl_port.h"
#include "zl_token.h"

static void usage(void)
{
    fprintf(stderr,
            "usage: zl_token KEY SERVER[,SERVER...] [CLIENT_ID [SECONDS [TIMEOUT]]]\n"
            "  KEY        the 32-byte private key the servers were given, as 64 hex digits\n"
            "  SERVER     an address the token is good for (ip:port), at most %d\n"
            "  CLIENT_ID  the player's id (1)   SECONDS  how long it is valid (30)\n"
            "  TIMEOUT    seconds of silence that end the connection (5)\n"
            "Prints the token (%d bytes) as hex: give it to one client, once.\n",
            ZL_TOKEN_ADDRESSES, ZL_TOKEN_WIRE_SIZE);
    exit(2);
}

static int parse_servers(char *list, zl_token_grant *g)
{
    char *item = strtok(list, ",");
    while (item) {
        if (g->address_count == ZL_TOKEN_ADDRESSES ||
            zl_addr_parse(&g->addresses[g->address_count], item) != ZL_OK)
            return 0;
        g->address_count++;
        item = strtok(NULL, ",");
    }
    return g->address_count > 0;
}

int main(int argc, char **argv)
{
    static uint8_t wire[ZL_TOKEN_WIRE_SIZE];
    static char text[2 * ZL_TOKEN_WIRE_SIZE + 1];
    uint8_t key[ZL_TOKEN_KEY_SIZE], nonce[ZL_TOKEN_NONCE_SIZE];
    zl_token_grant grant;
    zl_connect_token token;
    zl_platform hal;
    uint64_t now = (uint64_t)time(NULL);
    unsigned long seconds = 30;
    if (argc < 3 || argc > 6)
        usage();
    memset(&grant, 0, sizeof grant);
    grant.client_id = argc > 3 ? strtoull(argv[3], NULL, 10) : 1u;
    seconds = argc > 4 ? strtoul(argv[4], NULL, 10) : 30u;
    grant.timeout_s = argc > 5 ? (uint32_t)strtoul(argv[5], NULL, 10) : 5u;
    if (!demo_hex_read(argv[1], key, sizeof key) || !parse_servers(argv[2], &grant) || seconds == 0)
        usage();
    /* Session keys and the nonce: the OS's random source, through the port. */
    zl_port_clock_only(&hal);
    if (hal.random(hal.ctx, grant.client_key, sizeof grant.client_key) != ZL_OK ||
        hal.random(hal.ctx, grant.server_key, sizeof grant.server_key) != ZL_OK ||
        hal.random(hal.ctx, nonce, sizeof nonce) != ZL_OK) {
        fprintf(stderr, "zl_token: no random source\n");
        return 1;
    }
    if (zl_token_mint(&token, &grant, now, now + seconds, nonce, key) != ZL_OK ||
        zl_token_write(wire, sizeof wire, &token) != ZL_TOKEN_WIRE_SIZE) {
        fprintf(stderr, "zl_token: could not mint\n");
        return 1;
    }
    demo_hex_write(text, wire, sizeof wire);
    printf("%s\n", text);
    return 0;
}
