/* test_config_app.c - an application compiled with 8 player slots against a
 * library built with the default 64: its structs are smaller than the
 * library's, so its inits must be refused before they write anything. */
#define ZL_MAX_CLIENTS 8

#include <string.h>

#include "test_config_app.h"
#include "zl_client.h"
#include "zl_server.h"

/* Only the check runs: the game and the HAL are never looked at. */
static zl_game no_game;
static zl_platform no_net;

static int all_bytes(const void *p, size_t n, uint8_t value)
{
    const uint8_t *b = (const uint8_t *)p;
    size_t i;
    for (i = 0; i < n; i++)
        if (b[i] != value)
            return 0;
    return 1;
}

int test_config_app_server_init(int *untouched)
{
    static zl_server server;
    zl_server_config cfg;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    int rc;
    memset(&server, 0xA5, sizeof server);
    memset(&cfg, 0, sizeof cfg);
    memset(secret, 0, sizeof secret);
    rc = zl_server_init(&server, &cfg, &no_game, &no_net, secret, 0);
    *untouched = all_bytes(&server, sizeof server, 0xA5);
    return rc;
}

int test_config_app_client_init(int *untouched)
{
    static zl_client client;
    zl_client_config cfg;
    int rc;
    memset(&client, 0xA5, sizeof client);
    memset(&cfg, 0, sizeof cfg);
    rc = zl_client_init(&client, &cfg, &no_game, &no_net, 1);
    *untouched = all_bytes(&client, sizeof client, 0xA5);
    return rc;
}
