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

/* What the inits get for their object. The library must refuse before it
 * writes a byte, so a guard block of known bytes stands in for the real
 * object (megabytes the Cortex-M3's test image has no room for): a write
 * shows in the block, and one past it traps AddressSanitizer on hosts. */
static union {
    uint64_t align;
    uint8_t bytes[4096];
} guard;

static int guard_untouched(void)
{
    size_t i;
    for (i = 0; i < sizeof guard.bytes; i++)
        if (guard.bytes[i] != 0xA5)
            return 0;
    return 1;
}

int test_config_app_server_init(int *untouched)
{
    zl_server_config cfg;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    int rc;
    memset(guard.bytes, 0xA5, sizeof guard.bytes);
    memset(&cfg, 0, sizeof cfg);
    memset(secret, 0, sizeof secret);
    rc = zl_server_init((zl_server *)(void *)guard.bytes, &cfg, &no_game, &no_net, secret, 0);
    *untouched = guard_untouched();
    return rc;
}

int test_config_app_client_init(int *untouched)
{
    zl_client_config cfg;
    int rc;
    memset(guard.bytes, 0xA5, sizeof guard.bytes);
    memset(&cfg, 0, sizeof cfg);
    rc = zl_client_init((zl_client *)(void *)guard.bytes, &cfg, &no_game, &no_net, 1);
    *untouched = guard_untouched();
    return rc;
}
