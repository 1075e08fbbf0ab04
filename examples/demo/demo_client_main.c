/* demo_client_main.c - the zerolag client program: joins a server over UDP and
 * plays in the terminal or as a bot; Ctrl-C disconnects cleanly. */
#include <stdio.h>
#include <string.h>

#include "demo_host.h"
#include "demo_net.h"
#include "demo_player.h"
#include "demo_replay.h"
#include "demo_view.h"
#include "demo_watch.h"

#define NET_RECORD_US 100000u /* the launcher's timeline: 10 samples a second */
#define DRAW_US 50000u        /* the terminal view: 20 frames a second */
#define CEASEFIRE_US 1000000u /* bots hold fire this long before the end */

static demo_options opt;
static demo_net net;
static demo_player player;
static demo_view view;
static FILE *text; /* what people read: stdout, or stderr under --machine */

static void keyboard_input(void *ctx, const zl_client *c, int self, uint64_t now_us,
                           uint16_t msec, int may_fire, zl_usercmd *out)
{
    (void)may_fire;
    demo_view_command((demo_view *)ctx, c, self, (uint32_t)(now_us / 1000u), msec, out);
}

static int start(void)
{
    zl_addr server_addr, bind_addr;
    zl_client_config cfg;
    zl_platform sys;
    demo_sink sink;
    char text_addr[ZL_ADDR_TEXT_MAX];
    uint64_t seed, nonce;
    int rc;
    if (zl_addr_parse(&server_addr, opt.address) != ZL_OK) {
        fprintf(stderr, "zl_client: '%s' is not an IPv4 or IPv6 address\n", opt.address);
        return -1;
    }
    if (server_addr.port == 0)
        server_addr.port = (uint16_t)opt.port;
    zl_addr_parse(&bind_addr, server_addr.family == ZL_ADDR_IPV6 ? "::" : "0.0.0.0");
    zl_port_clock_only(&sys);
    if (sys.random(sys.ctx, &seed, sizeof seed) != ZL_OK ||
        sys.random(sys.ctx, &nonce, sizeof nonce) != ZL_OK) {
        fprintf(stderr, "zl_client: no random bytes from the system\n");
        return -1;
    }
    rc = demo_net_open(&net, &bind_addr, &opt, 0, seed);
    if (rc != ZL_OK) {
        fprintf(stderr, "zl_client: cannot open a UDP socket: %s\n", zl_strerror(rc));
        return -1;
    }
    zl_client_config_default(&cfg);
    cfg.settings = demo_options_settings(&opt);
    sink.put = opt.machine ? demo_record_put : NULL;
    sink.ctx = stdout;
    rc = demo_player_init(&player, &cfg, &net.hal, &net.cond, nonce, opt.seed ? opt.seed : seed,
                          sink);
    if (rc != ZL_OK) {
        fprintf(stderr, "zl_client: cannot start the client: %s\n", zl_strerror(rc));
        return -1;
    }
    if (!opt.bot) {
        player.input = keyboard_input;
        player.input_ctx = &view;
    }
    if (opt.record[0] && demo_replay_record_start(&player.client, opt.record) != 0)
        return -1;
    if (opt.token[0]) {
        /* Read by the client until it is connected: kept in static storage. */
        static zl_connect_token token;
        static uint8_t wire[ZL_TOKEN_WIRE_SIZE];
        if (!demo_hex_read(opt.token, wire, sizeof wire) ||
            zl_token_read(wire, sizeof wire, &token) != ZL_OK) {
            fprintf(stderr, "zl_client: --token is not a connect token\n");
            return -1;
        }
        server_addr = token.addresses[0];
        zl_client_connect_token(&player.client, &token, net.hal.now_us(net.hal.ctx));
    } else {
        zl_client_connect(&player.client, &server_addr, net.hal.now_us(net.hal.ctx));
    }
    zl_addr_format(&server_addr, text_addr, sizeof text_addr);
    fprintf(text, "zl_client: connecting to %s\n", text_addr);
    fflush(text);
    return 0;
}

static const char *end_reason(void)
{
    switch (zl_client_state(&player.client)) {
    case ZL_CLIENT_DENIED: return "the server refused us (full?)";
    case ZL_CLIENT_TIMED_OUT: return "the server fell silent";
    case ZL_CLIENT_DISCONNECTED:
        switch (zl_client_reason(&player.client)) {
        case ZL_DISCONNECT_SHUTDOWN: return "the server shut down";
        case ZL_DISCONNECT_MATCH_OVER: return "the match is over";
        case ZL_DISCONNECT_KICKED: return "the server kicked us";
        case ZL_DISCONNECT_TIMEOUT: return "the server timed us out";
        default: return "the server ended the connection";
        }
    default: return NULL;
    }
}

/* Plays until Ctrl-C, the duration, the player quits or the server goes. */
static void play(void)
{
    uint8_t buf[ZL_MAX_PACKET];
    uint16_t msec = (uint16_t)((1000u + opt.fps / 2u) / opt.fps);
    uint64_t begin = net.hal.now_us(net.hal.ctx), next_frame = begin, next_net = begin;
    uint64_t next_draw = begin, end = begin + (uint64_t)opt.duration_s * 1000000u;
    int connected = 0, welcomed = 0;
    while (!demo_host_interrupted() && !view.quit && !end_reason()) {
        uint64_t now = net.hal.now_us(net.hal.ctx);
        zl_addr from;
        int n;
        if (opt.duration_s && now >= end)
            break;
        while ((n = demo_net_next(&net, &from, buf, sizeof buf)) != -1)
            if (n >= 0)
                demo_player_receive(&player, &from, buf, (size_t)n, now);
        demo_player_update(&player, now);
        if (!connected && player.hello) {
            fprintf(text, "zl_client: connected, slot %d\n", zl_client_slot(&player.client));
            fflush(text);
            connected = 1;
        }
        if (!welcomed && player.gamestate_read) {
            fprintf(text, "zl_client: gamestate of %lu bytes, %lu players, %s; \"%s\"\n",
                    (unsigned long)player.gamestate_bytes, (unsigned long)player.gamestate_players,
                    player.gamestate_ok ? "the arena and rules of this build"
                                        : "ANOTHER arena or rules: prediction will be wrong",
                    player.motd);
            fflush(text);
            welcomed = 1;
        }
        if (!opt.bot)
            demo_view_keys(&view, (uint32_t)(now / 1000u));
        /* Commands cover real time exactly: msec each, one per frame slot. */
        if (now >= next_frame) {
            demo_player_frame(&player, now, msec, !opt.duration_s || now + CEASEFIRE_US < end);
            next_frame += (uint64_t)msec * 1000u;
            if (next_frame + 100000u < now)
                next_frame = now; /* stalled: do not replay a burst */
        }
        if (opt.machine && connected && now >= next_net) {
            demo_rec_net r;
            demo_player_net(&player, now, &r);
            demo_record_write(stdout, DEMO_REC_NET, &r);
            next_net += NET_RECORD_US;
        }
        if (!opt.bot && now >= next_draw) {
            demo_rec_net r;
            demo_player_net(&player, now, &r);
            view.hit_ms = player.last_hit_ms;
            demo_view_draw(&view, &player, now, &r);
            next_draw = now + DRAW_US;
        }
        demo_net_pump(&net);
        if (next_frame > now + 1000u)
            demo_host_sleep_us(next_frame - now > 2000u ? 1000u : (uint32_t)(next_frame - now - 1000u));
    }
}

static void finish(void)
{
    uint64_t now = net.hal.now_us(net.hal.ctx);
    const char *why = end_reason();
    demo_rec_net r;
    demo_player_net(&player, now, &r);
    if (!opt.bot)
        demo_view_close(&view);
    demo_replay_record_stop(&player.client, text);
    demo_player_leave(&player, now);
    /* The goodbye waits in the conditioner for the fake lag (and a spike). */
    demo_net_flush(&net, demo_net_hold_us(&opt));
    demo_net_close(&net);
    fprintf(text,
            "zl_client: %s; ping %lu ms, %lu mispredicted of %lu reconciled (%lu on death or respawn, "
            "%lu from damage), %lu shots, %lu hits seen\n",
            why ? why : "disconnected", (unsigned long)(r.rtt_us / 1000u),
            (unsigned long)r.mispredicted, (unsigned long)r.reconciled,
            (unsigned long)r.mispredicted_dead, (unsigned long)r.mispredicted_hurt,
            (unsigned long)r.shots, (unsigned long)r.hits_seen);
}

int main(int argc, char **argv)
{
    int rc = demo_options_load(&opt, DEMO_FOR_CLIENT, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    text = opt.machine ? stderr : stdout;
    if (opt.watch[0])
        return demo_watch_run(&opt);
    if (opt.play[0])
        return demo_replay_play(&opt, text);
    if (!opt.bot && demo_view_open(&view) != 0) {
        fprintf(stderr, "zl_client: no terminal to play in; use --bot to let a bot play\n");
        return 2;
    }
    demo_host_catch_interrupt();
    if (start() != 0) {
        if (!opt.bot)
            demo_view_close(&view);
        return 1;
    }
    play();
    finish();
    return 0;
}
