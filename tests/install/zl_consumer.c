/* zl_consumer.c - an application built against an installed zerolag
 * (tools/check-install.sh): it includes the one header, describes a state
 * with the schema macros and starts a server. Prints the init's result;
 * exits 0 on ZL_OK. Valid C and C++: the check compiles it as both. */
#include <stdio.h>
#include <string.h>

#include <zerolag.h>

typedef struct consumer_state {
    zl_vec3 origin;
    zl_angle yaw;
    uint8_t health;
} consumer_state;

static const zl_field consumer_fields[] = {
    ZL_FIELD_FX(consumer_state, origin.x, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(consumer_state, origin.y, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(consumer_state, origin.z, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_ANGLE(consumer_state, yaw, 16, ZL_INTERP_ARC),
    ZL_FIELD_INT(consumer_state, health, 0, 100, ZL_INTERP_STEP),
};
static const zl_schema consumer_schema = ZL_SCHEMA(consumer_state, consumer_fields);

static zl_server server;

static int send_nowhere(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx;
    (void)to;
    (void)data;
    (void)len;
    return ZL_OK;
}

/* A world of nothing: no boxes, no walls. */
static int no_hitboxes(void *ctx, const void *player, int32_t entity, zl_hitbox *out, int max)
{
    (void)ctx;
    (void)player;
    (void)entity;
    (void)out;
    (void)max;
    return 0;
}

static int no_trace(void *ctx, const zl_vec3 *start, const zl_vec3 *end, const zl_hitbox *boxes,
                    int count, zl_trace *out)
{
    (void)ctx;
    (void)start;
    (void)end;
    (void)boxes;
    (void)count;
    (void)out;
    return 0;
}

int main(void)
{
    zl_server_config cfg;
    zl_game game;
    zl_platform net;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    int rc;
    if (zl_schema_validate(&consumer_schema) != ZL_OK || zl_version() != ZL_VERSION) {
        printf("zl_consumer: bad schema or version\n");
        return 2;
    }
    memset(&game, 0, sizeof game);
    game.player_schema = &consumer_schema;
    game.origin_axes = 3; /* origin.x, y, z lead the schema */
    game.hitboxes = no_hitboxes;
    game.trace = no_trace;
    memset(&net, 0, sizeof net);
    net.send = send_nowhere;
    memset(secret, 1, sizeof secret);
    zl_server_config_default(&cfg);
    cfg.security = ZL_SECURITY_PLAIN; /* no backend here: the capacities are the point */
    rc = zl_server_init(&server, &cfg, &game, &net, secret, 0);
    printf("zl_consumer: %u player slots here, zl_server_init: %s\n", (unsigned)ZL_MAX_CLIENTS,
           zl_strerror(rc));
    return rc == ZL_OK ? 0 : 1;
}
