/* fp_setup.c - the server, client and scripted player the footprint programs
 * share, plus number printing that needs no printf (no stdio on bare metal). */
#include <stdlib.h>
#include <string.h>

#include "fp.h"

ZL_STATIC_ASSERT(sizeof(fps_player) <= ZL_STATE_MAX && sizeof(fps_entity) <= ZL_STATE_MAX,
                 fp_states_fit);

/* A program that cannot start its endpoint (built with another
 * configuration than its library) says so and stops. */
static void must_start(int rc, const char *what)
{
    if (rc == ZL_OK)
        return;
    fp_say(what);
    fp_say(": ");
    fp_say(zl_strerror(rc));
    fp_say("\n");
    exit(2);
}

void fp_server_start(zl_server *s, fps_game *game, const zl_platform *net, uint64_t now_us)
{
    zl_server_config config;
    zl_game rules;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    fps_game_init(game);
    rules = fps_game_interface(game);
    zl_server_config_default(&config);
    config.security = ZL_SECURITY_PLAIN; /* the smallest client: no token to carry */
    config.tick_rate = FP_TICK_RATE;
    config.limits.updaterate_max = FP_TICK_RATE;
    config.limits.cmdrate_max = FP_TICK_RATE;
    (void)net->random(net->ctx, secret, sizeof secret);
    must_start(zl_server_init(s, &config, &rules, net, secret, now_us), "zl_server_init");
}

void fp_client_start(zl_client *c, const zl_platform *net, const zl_addr *server,
                     uint8_t *block, uint32_t block_bytes, uint64_t now_us)
{
    zl_client_config config;
    /* A client predicts with run_command alone: it needs no game state. */
    zl_game rules = fps_game_interface(NULL);
    uint8_t nonce[8];
    uint64_t n = 0;
    int i;
    zl_client_config_default(&config);
    config.block_buffer = block;
    config.block_capacity = block_bytes;
    config.settings.updaterate = FP_UPDATE_RATE;
    config.settings.cmdrate = FP_COMMAND_RATE;
    (void)net->random(net->ctx, nonce, sizeof nonce);
    for (i = 0; i < 8; i++)
        n = n << 8 | nonce[i];
    must_start(zl_client_init(c, &config, &rules, net, n), "zl_client_init");
    zl_client_connect(c, server, now_us);
}

int fp_client_play(zl_client *c, uint32_t frame, uint64_t now_us)
{
    zl_usercmd cmd;
    zl_event ev;
    zl_client_frame(c, now_us);
    while (zl_client_events(c, &ev, 1) == 1)
        continue; /* a game plays its sounds and effects here */
    memset(&cmd, 0, sizeof cmd);
    cmd.msec = (uint16_t)(FP_FRAME_US / 1000u);
    cmd.forward = 127;
    cmd.side = (int8_t)(frame / 64u % 2u ? 90 : -90);
    cmd.yaw = (zl_angle)(frame * 200u);
    cmd.buttons = (uint16_t)(frame % 97u == 13u ? FPS_BUTTON_JUMP : 0);
    cmd.seed = (uint8_t)(frame * 31u);
    return zl_client_command(c, &cmd, NULL);
}

/* The next waiting datagram's length, skipping those too large to take
 * (each is consumed); negative once nothing is waiting. */
static int next_datagram(const zl_platform *net, zl_addr *from, uint8_t *buf)
{
    int n;
    do
        n = net->receive(net->ctx, from, buf, ZL_MAX_PACKET);
    while (n == ZL_ERR_TRUNCATED);
    return n;
}

void fp_server_pump(zl_server *s, const zl_platform *net, uint64_t now_us)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    while ((n = next_datagram(net, &from, buf)) >= 0)
        zl_server_receive(s, &from, buf, (size_t)n, now_us);
}

void fp_client_pump(zl_client *c, const zl_platform *net, uint64_t now_us)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    while ((n = next_datagram(net, &from, buf)) >= 0)
        zl_client_receive(c, &from, buf, (size_t)n, now_us);
}

void fp_say(const char *text) { fp_board_write(text, strlen(text)); }

void fp_say_u32(const char *name, uint32_t value)
{
    char digits[12];
    size_t i = sizeof digits;
    digits[--i] = '\n';
    do {
        digits[--i] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value);
    fp_say(name);
    fp_say(" ");
    fp_board_write(digits + i, sizeof digits - i);
}

/* The programs' own handler for API misuse: the library's default one
 * (platform/zl_assert.c) prints with fprintf, whose stdio would dwarf a
 * small image, so it is left out of the link. */
void zl_assert_failed(const char *expr, const char *file, int line)
{
    fp_say("assertion failed: ");
    fp_say(expr);
    fp_say(" at ");
    fp_say(file);
    fp_say_u32(" line", (uint32_t)line);
    exit(3);
}
