/* demo_welcome.c - the gamestate the demo server gives each joining client,
 * written fresh for each (who is in changes) into that slot's own bytes. */
#include <string.h>

#include "demo_welcome.h"
#include "zl_server_blocks.h"

/* The name a token's user data gives ("name=" then up to FPS_NAME_MAX
 * printable bytes), else "player N". */
static void name_of(const zl_server *s, int slot, char *out)
{
    const uint8_t *u = zl_server_user_data(s, slot);
    size_t n = 0;
    if (u && memcmp(u, "name=", 5) == 0)
        while (n < FPS_NAME_MAX && 5u + n < ZL_TOKEN_USER_DATA && u[5 + n] >= 32u &&
               u[5 + n] < 127u) {
            out[n] = (char)u[5 + n];
            n++;
        }
    if (n == 0) {
        strcpy(out, "player ");
        n = 7;
        if (slot >= 10)
            out[n++] = (char)('0' + slot / 10);
        out[n++] = (char)('0' + slot % 10);
    }
    out[n] = 0;
}

int demo_welcome_send(demo_welcome *w, zl_server *s, int slot, const char *motd)
{
    static char names[ZL_MAX_CLIENTS][FPS_NAME_MAX + 1];
    const char *by_slot[ZL_MAX_CLIENTS];
    int i, n;
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    for (i = 0; i < ZL_MAX_CLIENTS; i++) {
        by_slot[i] = NULL;
        if (zl_server_connected(s, i)) {
            name_of(s, i, names[i]);
            by_slot[i] = names[i];
        }
    }
    n = fps_gamestate_write(w->bytes[slot], sizeof w->bytes[slot], (uint16_t)s->config.tick_rate,
                            by_slot, ZL_MAX_CLIENTS, motd);
    if (n < 0)
        return n;
    n = zl_server_block_send(s, slot, w->bytes[slot], (uint32_t)n) == ZL_OK ? n : ZL_ERR_FULL;
    return n;
}
