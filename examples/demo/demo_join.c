/* demo_join.c - what zl_client and zl_window share: joining a server over UDP
 * with a connect token or plainly, the first lines and the goodbye. */
#include <string.h>

#include "demo_host.h"
#include "demo_join.h"

int demo_join_start(demo_join *j, const demo_options *o, FILE *text, const char *name)
{
    zl_addr server_addr, bind_addr;
    zl_client_config cfg;
    zl_platform sys;
    demo_sink sink;
    char text_addr[ZL_ADDR_TEXT_MAX];
    uint64_t seed, nonce;
    int rc;
    j->opt = o;
    j->text = text;
    j->name = name;
    j->connected = j->welcomed = 0;
    j->msec = (uint16_t)((1000u + o->fps / 2u) / o->fps);
    if (zl_addr_parse(&server_addr, o->address) != ZL_OK) {
        fprintf(stderr, "%s: '%s' is not an IPv4 or IPv6 address\n", name, o->address);
        return -1;
    }
    if (server_addr.port == 0)
        server_addr.port = (uint16_t)o->port;
    zl_addr_parse(&bind_addr, server_addr.family == ZL_ADDR_IPV6 ? "::" : "0.0.0.0");
    zl_port_clock_only(&sys);
    if (sys.random(sys.ctx, &seed, sizeof seed) != ZL_OK ||
        sys.random(sys.ctx, &nonce, sizeof nonce) != ZL_OK) {
        fprintf(stderr, "%s: no random bytes from the system\n", name);
        return -1;
    }
    rc = demo_net_open(&j->net, &bind_addr, o, 0, seed);
    if (rc != ZL_OK) {
        fprintf(stderr, "%s: cannot open a UDP socket: %s\n", name, zl_strerror(rc));
        return -1;
    }
    zl_client_config_default(&cfg);
    cfg.settings = demo_options_settings(o);
    sink.put = o->machine ? demo_record_put : NULL;
    sink.ctx = stdout;
    rc = demo_player_init(&j->player, &cfg, &j->net.hal, &j->net.cond, nonce,
                          o->seed ? o->seed : seed, sink);
    if (rc != ZL_OK) {
        fprintf(stderr, "%s: cannot start the client: %s\n", name, zl_strerror(rc));
        return -1;
    }
    if (o->token[0]) {
        /* Read by the client until it is connected: kept in static storage. */
        static zl_connect_token token;
        static uint8_t wire[ZL_TOKEN_WIRE_SIZE];
        if (!demo_hex_read(o->token, wire, sizeof wire) ||
            zl_token_read(wire, sizeof wire, &token) != ZL_OK) {
            fprintf(stderr, "%s: --token is not a connect token\n", name);
            return -1;
        }
        server_addr = token.addresses[0];
        zl_client_connect_token(&j->player.client, &token, j->net.hal.now_us(j->net.hal.ctx));
    } else {
        zl_client_connect(&j->player.client, &server_addr, j->net.hal.now_us(j->net.hal.ctx));
    }
    zl_addr_format(&server_addr, text_addr, sizeof text_addr);
    fprintf(text, "%s: connecting to %s\n", name, text_addr);
    fflush(text);
    j->next_frame = j->net.hal.now_us(j->net.hal.ctx);
    return 0;
}

void demo_join_poll(demo_join *j, uint64_t now_us)
{
    uint8_t buf[ZL_MAX_PACKET];
    demo_player *p = &j->player;
    zl_addr from;
    int n;
    while ((n = demo_net_next(&j->net, &from, buf, sizeof buf)) != -1)
        if (n >= 0)
            demo_player_receive(p, &from, buf, (size_t)n, now_us);
    demo_player_update(p, now_us);
    if (!j->connected && p->hello) {
        fprintf(j->text, "%s: connected, slot %d\n", j->name, zl_client_slot(&p->client));
        fflush(j->text);
        j->connected = 1;
    }
    if (!j->welcomed && p->gamestate_read) {
        fprintf(j->text, "%s: gamestate of %lu bytes, %lu players, %s; \"%s\"\n", j->name,
                (unsigned long)p->gamestate_bytes, (unsigned long)p->gamestate_players,
                p->gamestate_ok ? "the arena and rules of this build"
                                : "ANOTHER arena or rules: prediction will be wrong",
                p->motd);
        fflush(j->text);
        j->welcomed = 1;
    }
}

void demo_join_frame(demo_join *j, uint64_t now_us, int may_fire)
{
    if (j->next_frame + 100000u < now_us)
        j->next_frame = now_us; /* stalled: do not replay a burst */
    /* A slow loop (a window's drawing) still makes every frame's command. */
    while (now_us >= j->next_frame) {
        demo_player_frame(&j->player, now_us, j->msec, may_fire);
        j->next_frame += (uint64_t)j->msec * 1000u;
    }
}

void demo_join_rest(demo_join *j, uint64_t now_us)
{
    uint64_t ahead = j->next_frame > now_us ? j->next_frame - now_us : 0;
    demo_net_pump(&j->net);
    if (ahead > 1000u)
        demo_host_sleep_us(ahead > 2000u ? 1000u : (uint32_t)(ahead - 1000u));
}

const char *demo_join_end_reason(const demo_join *j)
{
    switch (zl_client_state(&j->player.client)) {
    case ZL_CLIENT_DENIED: return "the server refused us (full?)";
    case ZL_CLIENT_TIMED_OUT: return "the server fell silent";
    case ZL_CLIENT_DISCONNECTED:
        switch (zl_client_reason(&j->player.client)) {
        case ZL_DISCONNECT_SHUTDOWN: return "the server shut down";
        case ZL_DISCONNECT_MATCH_OVER: return "the match is over";
        case ZL_DISCONNECT_KICKED: return "the server kicked us";
        case ZL_DISCONNECT_TIMEOUT: return "the server timed us out";
        default: return "the server ended the connection";
        }
    default: return NULL;
    }
}

void demo_join_finish(demo_join *j)
{
    uint64_t now = j->net.hal.now_us(j->net.hal.ctx);
    const char *why = demo_join_end_reason(j);
    demo_rec_net r;
    demo_player_net(&j->player, now, &r);
    demo_player_leave(&j->player, now);
    /* The goodbye waits in the conditioner for the fake lag (and a spike). */
    demo_net_flush(&j->net, demo_net_hold_us(j->opt));
    demo_net_close(&j->net);
    fprintf(j->text,
            "%s: %s; ping %lu ms, %lu mispredicted of %lu reconciled (%lu on death or respawn, "
            "%lu from damage), %lu shots, %lu hits seen\n",
            j->name, why ? why : "disconnected", (unsigned long)(r.rtt_us / 1000u),
            (unsigned long)r.mispredicted, (unsigned long)r.reconciled,
            (unsigned long)r.mispredicted_dead, (unsigned long)r.mispredicted_hurt,
            (unsigned long)r.shots, (unsigned long)r.hits_seen);
    fflush(j->text);
}
