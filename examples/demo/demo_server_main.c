/* demo_server_main.c - the zerolag server program: runs the FPS rules for its
 * clients over UDP, prints joins, leaves and status, drains on SIGTERM or
 * Ctrl-C; optionally one of an Agones fleet and a Prometheus target. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "demo_agones.h"
#include "demo_broadcast.h"
#include "demo_game.h"
#include "demo_metrics.h"
#include "demo_host.h"
#include "demo_net.h"
#include "demo_referee.h"
#include "demo_report.h"
#include "demo_welcome.h"
#include "zl_port.h"

#define SLOT_RECORD_US 250000u /* how often the launcher gets each slot's graph */
/* Datagrams taken from the socket between two looks at the clock and the
 * tick: enough to empty the receive buffer quickly under a flood, few
 * enough (well under a millisecond of work) that a tick is never late
 * for it. */
#define RECEIVE_BURST 256

static demo_options opt;
static demo_net net;
static demo_game game;
static zl_server server;
static demo_stopwatch cost;
static demo_stopwatch recent; /* the ticks since the last status line */
static FILE *text;   /* what people read: stdout, or stderr under --machine */
static uint32_t timeouts;
static demo_sink sink;   /* the launcher's records, or nowhere */
static demo_welcome welcome; /* each joining client's gamestate */
static demo_agones agones;   /* --agones */
static demo_metrics metrics; /* --metrics */
/* How long the Shutdown call may take at the end before the program exits
 * anyway (the fleet kills a server that outstays its grace period). */
#define SHUTDOWN_WAIT_US 3000000u
static demo_broadcast tv;    /* the spectator stream, with --broadcast */
#define MOTD "zerolag demo: the reference FPS. Hitscan rifle and pistol, rockets; " \
             "lag compensation on. Have fun."

static const char *leave_reason(uint8_t reason)
{
    static const char *names[ZL_DISCONNECT_COUNT] = {"quit", "timed out", "kicked", "shutdown",
                                                      "match over"};
    return reason < ZL_DISCONNECT_COUNT ? names[reason] : "?";
}

static void print_drops(void)
{
    uint32_t d[ZL_SERVER_DROP_COUNT];
    char line[DEMO_DROPS_TEXT_MAX];
    zl_server_get_drops(&server, d);
    demo_drops_format(d, line, sizeof line);
    fprintf(text, "drops: %s\n", line);
}

static void print_status(uint64_t now_us)
{
    int slot;
    fprintf(text, "status: tick %lu, %d/%lu players, tick cost median %.1f us (since the last "
                  "status %.1f us), max %.1f us; ",
            (unsigned long)zl_server_tick(&server), zl_server_client_count(&server),
            (unsigned long)opt.maxclients, demo_stopwatch_quantile(&cost, 500) / 1000.0,
            demo_stopwatch_quantile(&recent, 500) / 1000.0, cost.max / 1000.0);
    demo_stopwatch_reset(&recent);
    print_drops();
    for (slot = 0; slot < (int)opt.maxclients; slot++) {
        zl_server_client_stats st;
        char addr[ZL_ADDR_TEXT_MAX], refused[DEMO_DROPS_TEXT_MAX];
        uint32_t counts[DEMO_CLIENT_DROPS];
        if (zl_server_get_client_stats(&server, slot, now_us, &st) != ZL_OK)
            continue;
        zl_addr_format(&st.address, addr, sizeof addr);
        demo_referee_refusals(&st, counts);
        demo_refusals_format(counts, refused, sizeof refused);
        fprintf(text,
                "  slot %2d %-21s ping %4lu ms  loss %4.1f%%/%4.1f%%  choke %lu  snapshot %lu B  "
                "out %5.1f KB/s  in %4.1f KB/s  commands lost %lu, caught up %lu  hits %lu  "
                "moves %lu\n"
                "    refused: %s\n"
                "    rewinds %lu (untrusted %lu, clamped %lu, refused %lu); "
                "early shots %lu, dry fires %lu, pitch clamps %lu\n"
                "    sealed: %lu out, %lu in (+%lu B of tags); path challenges %lu\n",
                slot, addr, (unsigned long)(st.link.rtt_us / 1000u),
                st.link.loss_in_q16 * 100.0 / 65536.0, st.link.loss_out_q16 * 100.0 / 65536.0,
                (unsigned long)st.choked, (unsigned long)st.last_snapshot_bytes,
                st.link.bytes_out_per_s / 1000.0, st.link.bytes_in_per_s / 1000.0,
                (unsigned long)st.commands.lost, (unsigned long)st.commands.caught_up,
                (unsigned long)st.hits, (unsigned long)st.moves,
                refused, (unsigned long)st.rewinds,
                (unsigned long)st.rewinds_untrusted, (unsigned long)st.rewinds_clamped,
                (unsigned long)st.rewinds_refused,
                (unsigned long)game.fps.refusals[slot].early_shots,
                (unsigned long)game.fps.refusals[slot].dry_fires,
                (unsigned long)game.fps.refusals[slot].pitch_clamps,
                (unsigned long)st.seal.sealed, (unsigned long)st.seal.opened,
                (unsigned long)(ZL_PACKET_TAG_SIZE * (st.seal.sealed + st.seal.opened)),
                (unsigned long)st.path_challenges);
    }
    fflush(text);
}

static void take_notices(void)
{
    zl_server_notice n;
    while (zl_server_next_notice(&server, &n)) {
        char addr[ZL_ADDR_TEXT_MAX];
        demo_rec_join r;
        zl_addr_format(&n.addr, addr, sizeof addr);
        r.slot = n.slot;
        r.reason = n.reason;
        if (n.kind == ZL_NOTICE_BLOCK_SENT) {
            fprintf(text, "gamestate: slot %u has it whole\n", n.slot);
            fflush(text);
            continue;
        }
        if (n.kind == ZL_NOTICE_BLOCK_RECEIVED)
            continue; /* the demo's clients send none */
        if (n.kind == ZL_NOTICE_JOIN) {
            int bytes = demo_welcome_send(&welcome, &server, n.slot, MOTD);
            fprintf(text, "join: slot %u from %s (%d players), gamestate of %d bytes on its way\n",
                    n.slot, addr, zl_server_client_count(&server), bytes);
        } else {
            fprintf(text, "leave: slot %u %s (%s)\n", n.slot, addr, leave_reason(n.reason));
            timeouts += n.reason == ZL_DISCONNECT_TIMEOUT;
        }
        fflush(text);
        demo_sink_put(&sink, n.kind == ZL_NOTICE_JOIN ? DEMO_REC_JOIN : DEMO_REC_LEAVE, &r);
    }
}

/* 0.0.0.0 or :: (listen everywhere): no address a client could name. */
static int is_unspecified(const zl_addr *a)
{
    static const uint8_t zero[16];
    return memcmp(a->ip, zero, a->family == ZL_ADDR_IPV4 ? 4u : 16u) == 0;
}

static int start(void)
{
    zl_server_config cfg;
    zl_addr bind_addr, local;
    zl_platform sys;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    uint64_t seed;
    char addr[ZL_ADDR_TEXT_MAX];
    int rc;
    if (zl_addr_parse(&bind_addr, opt.address) != ZL_OK) {
        fprintf(stderr, "zl_server: '%s' is not an IPv4 or IPv6 address\n", opt.address);
        return -1;
    }
    bind_addr.port = (uint16_t)opt.port;
    if (opt.key[0] && is_unspecified(&bind_addr) && !opt.agones) {
        fprintf(stderr, "zl_server: --key needs --address, the address clients reach this "
                        "server at, or --agones (the allocation names it): a connect token names the server's address, and %s is "
                        "nobody's, so every token would be refused as foreign\n",
                opt.address);
        return -1;
    }
    zl_port_clock_only(&sys);
    if (sys.random(sys.ctx, &seed, sizeof seed) != ZL_OK ||
        sys.random(sys.ctx, secret, sizeof secret) != ZL_OK) {
        fprintf(stderr, "zl_server: no random bytes from the system\n");
        return -1;
    }
    rc = demo_net_open(&net, &bind_addr, &opt, 1, seed);
    if (rc != ZL_OK || zl_port_local_addr(&net.port, &local) != ZL_OK) {
        fprintf(stderr, "zl_server: cannot listen on %s port %lu: %s\n", opt.address,
                (unsigned long)opt.port, zl_strerror(rc));
        return -1;
    }
    demo_game_init(&game);
    zl_server_config_default(&cfg);
    if (opt.key[0]) {
        /* Only connect tokens minted with this key, for this address. */
        if (!demo_hex_read(opt.key, cfg.private_key, sizeof cfg.private_key)) {
            fprintf(stderr, "zl_server: --key takes 64 hex digits\n");
            return -1;
        }
        cfg.public_address_count = 1;
        cfg.public_addresses[0] = local;
        cfg.unix_time_s = (uint64_t)time(NULL);
    } else {
        cfg.security = ZL_SECURITY_PLAIN; /* anyone joins; packets in clear */
    }
    cfg.tick_rate = (uint16_t)opt.tickrate;
    cfg.max_clients = (uint16_t)opt.maxclients;
    cfg.max_per_address = (uint16_t)opt.peraddress;
    cfg.lag_compensation = (uint8_t)!opt.nolagcomp;
    cfg.limits.updaterate_max = (uint16_t)(opt.updaterate < opt.tickrate ? opt.updaterate : opt.tickrate);
    cfg.limits.cmdrate_max = (uint16_t)opt.cmdrate;
    cfg.limits.rate_max = opt.rate;
    if (cfg.limits.rate_min > opt.rate)
        cfg.limits.rate_min = opt.rate;
    rc = zl_server_init(&server, &cfg, &game.rules, &net.hal, secret, net.hal.now_us(net.hal.ctx));
    if (rc != ZL_OK) {
        fprintf(stderr, "zl_server: cannot start the server: %s\n", zl_strerror(rc));
        return -1;
    }
    demo_game_watch(&game, &server);
    if (opt.broadcast[0] && demo_broadcast_open(&tv, &opt, &server, text) != 0)
        return -1;
    zl_addr_format(&local, addr, sizeof addr);
    fprintf(text, "zl_server: listening on %s, %lu ticks/s, %lu slots, lag compensation %s",
            addr, (unsigned long)opt.tickrate, (unsigned long)opt.maxclients,
            opt.nolagcomp ? "off" : "on");
    if (opt.fakelag_ms || opt.fakejitter_ms || opt.fakeloss_ppm)
        fprintf(text, ", fake lag %lu ms +/- %lu ms, loss %.1f%%", (unsigned long)opt.fakelag_ms,
                (unsigned long)opt.fakejitter_ms, opt.fakeloss_ppm / 10000.0);
    fprintf(text, "%s", demo_report_stalls(opt.fakeburst, opt.fakespike_ms));
    fprintf(text, "; receive buffer %d bytes\n", zl_port_receive_buffer(&net.port));
    fflush(text);
    {
        demo_rec_listen r;
        r.port = local.port;
        demo_sink_put(&sink, DEMO_REC_LISTEN, &r);
    }
    metrics.listener = -1;
    if (opt.metrics_port) {
        if (demo_metrics_open(&metrics, opt.metrics_address, (uint16_t)opt.metrics_port) != 0) {
            fprintf(stderr, "zl_server: cannot serve metrics on %s port %lu\n",
                    opt.metrics_address, (unsigned long)opt.metrics_port);
            return -1;
        }
        fprintf(text, "zl_server: metrics on http://%s:%lu/metrics\n", opt.metrics_address,
                (unsigned long)opt.metrics_port);
    }
    if (opt.agones) {
        const char *env = getenv("AGONES_SDK_HTTP_PORT");
        unsigned long port = env && *env ? strtoul(env, NULL, 10) : DEMO_AGONES_PORT;
        if (port == 0 || port > 65535) {
            fprintf(stderr, "zl_server: AGONES_SDK_HTTP_PORT '%s' is not a port\n", env);
            return -1;
        }
        demo_agones_init(&agones, (uint16_t)port, net.hal.now_us(net.hal.ctx));
        /* Players come once the fleet has given this server a match. */
        zl_server_set_open(&server, 0);
        fprintf(text, "zl_server: Agones SDK at 127.0.0.1:%lu; closed to players until "
                      "Allocated\n",
                port);
    }
    fflush(text);
    return 0;
}

/* Reports what the Agones calls did; an allocation opens the match. */
static void fleet_update(uint64_t now, int draining)
{
    unsigned did;
    if (!opt.agones)
        return;
    did = demo_agones_update(&agones, now);
    if (did & DEMO_AGONES_DID_READY)
        fprintf(text, "agones: Ready taken\n");
    if (did & DEMO_AGONES_DID_ALLOCATE) {
        /* Behind the fleet's port mapping, tokens name the allocated
         * address and port, not the ones bound. */
        zl_addr public_addr;
        int named = opt.key[0] && zl_addr_parse(&public_addr, agones.address) == ZL_OK &&
                    agones.game_port != 0;
        if (named) {
            public_addr.port = (uint16_t)agones.game_port;
            named = zl_server_set_public_addresses(&server, &public_addr, 1) == ZL_OK;
        }
        fprintf(text, "agones: Allocated at %s port %u%s%s\n", agones.address, agones.game_port,
                named ? ", the address tokens name" : "",
                draining ? " (draining: stays closed)" : "; open to players");
        if (!draining)
            zl_server_set_open(&server, 1);
    }
    if (did & DEMO_AGONES_DID_SHUTDOWN)
        fprintf(text, "agones: Shutdown taken\n");
    if (did & DEMO_AGONES_DID_FAIL) {
        /* The 1st, 2nd, 4th, 8th... failure: a missing sidecar does not
         * flood the log (the metrics count every one). */
        uint32_t n = agones.failed + agones.malformed + agones.oversized;
        if ((n & (n - 1u)) == 0)
            fprintf(text, "agones: a request failed (errors %lu, malformed %lu, oversized %lu); "
                          "retrying\n",
                    (unsigned long)agones.failed, (unsigned long)agones.malformed,
                    (unsigned long)agones.oversized);
    }
    if (did)
        fflush(text);
}

static void run(void)
{
    /* What arrived, handed over ZL_AEAD_LANES_MAX at a time: their
     * keystreams are made side by side (zl_server_receive_many). */
    static uint8_t bufs[ZL_AEAD_LANES_MAX][ZL_MAX_PACKET];
    zl_server_datagram got[ZL_AEAD_LANES_MAX];
    uint64_t begin = net.hal.now_us(net.hal.ctx);
    uint64_t next_status = begin + (uint64_t)opt.status_s * 1000000u;
    uint64_t next_slots = begin, drain_end = 0;
    int draining = 0;
    for (;;) {
        uint64_t now = net.hal.now_us(net.hal.ctx), t0;
        int n = 0, ticks, k, m = 0;
        if (opt.duration_s && now - begin >= (uint64_t)opt.duration_s * 1000000u)
            break;
        if (demo_host_interrupted() && !draining) {
            /* Drain: nobody new; those playing finish, up to the limit. */
            draining = 1;
            drain_end = now + (uint64_t)opt.drain_s * 1000000u;
            zl_server_set_open(&server, 0);
            fprintf(text, "zl_server: draining: closed to new players, %d playing, at most "
                          "%lu s\n",
                    zl_server_client_count(&server), (unsigned long)opt.drain_s);
            fflush(text);
        }
        if (draining && (zl_server_client_count(&server) == 0 || now >= drain_end))
            break;
        for (k = 0; k < RECEIVE_BURST &&
                    (n = demo_net_next(&net, &got[m].from, bufs[m], sizeof bufs[m])) != -1;
             k++) {
            if (n == ZL_ERR_TRUNCATED) {
                zl_server_count_oversize(&server);
                continue;
            }
            got[m].data = bufs[m];
            got[m].len = (size_t)n;
            if (++m == ZL_AEAD_LANES_MAX) {
                zl_server_receive_many(&server, got, (size_t)m, now);
                m = 0;
            }
        }
        zl_server_receive_many(&server, got, (size_t)m, now);
        t0 = zl_port_timer_now();
        ticks = zl_server_update(&server, now);
        /* The broadcast is part of the tick's cost: written once, whoever watches. */
        if (ticks > 0 && opt.broadcast[0])
            demo_broadcast_update(&tv, &server);
        if (ticks > 0) {
            uint32_t each = (uint32_t)((zl_port_timer_now() - t0) / (uint64_t)ticks);
            int i;
            for (i = 0; i < ticks; i++) {
                demo_stopwatch_add(&cost, each);
                demo_metrics_tick(&metrics, each);
                demo_stopwatch_add(&recent, each);
            }
        }
        demo_game_impacts(&game, &server);
        demo_game_flush(&game, (uint32_t)(now / 1000u), &sink);
        demo_game_kill_feed(&game, &server);
        take_notices();
        demo_net_pump(&net);
        fleet_update(now, draining);
        demo_metrics_serve(&metrics, &server, opt.agones ? &agones : NULL, now);
        if (opt.status_s && now >= next_status) {
            print_status(now);
            next_status += (uint64_t)opt.status_s * 1000000u;
        }
        if (now >= next_slots) {
            demo_referee_slots(&server, (int)opt.maxclients, now, &sink);
            next_slots += SLOT_RECORD_US;
        }
        /* Sleep only once the socket is empty: under a flood the loop goes
         * round again at once, and the kernel's buffer never fills. */
        if (n == -1)
            demo_host_sleep_us(1000);
    }
}

/* Tells the fleet the match is over and waits (serving metrics) until it
 * took the Shutdown or SHUTDOWN_WAIT_US went by. */
static void fleet_stop(void)
{
    uint64_t begin = net.hal.now_us(net.hal.ctx), now = begin;
    if (!opt.agones)
        return;
    demo_agones_shutdown(&agones);
    while (!agones.shut_down && now - begin < SHUTDOWN_WAIT_US) {
        fleet_update(now, 1);
        demo_metrics_serve(&metrics, &server, &agones, now);
        demo_host_sleep_us(1000);
        now = net.hal.now_us(net.hal.ctx);
    }
    if (!agones.shut_down)
        fprintf(text, "agones: Shutdown not taken in %lu s\n",
                (unsigned long)(SHUTDOWN_WAIT_US / 1000000u));
    demo_agones_close(&agones);
}

static void stop(void)
{
    uint64_t now = net.hal.now_us(net.hal.ctx);
    int slot;
    /* The match is over: each client is told so (and needs a new token
     * for the next). */
    for (slot = 0; slot < (int)opt.maxclients; slot++)
        if (zl_server_connected(&server, slot))
            zl_server_disconnect(&server, slot, ZL_DISCONNECT_MATCH_OVER, now);
    take_notices();
    /* The goodbyes wait in the conditioner for the fake lag (and a spike). */
    demo_net_flush(&net, demo_net_hold_us(&opt));
    fprintf(text, "zl_server: stopped after %lu ticks; tick cost median %.1f us, 99%% %.1f us, "
                  "max %.1f us\n",
            (unsigned long)zl_server_tick(&server), demo_stopwatch_quantile(&cost, 500) / 1000.0,
            demo_stopwatch_quantile(&cost, 990) / 1000.0, cost.max / 1000.0);
    print_drops();
    if (opt.broadcast[0])
        demo_broadcast_close(&tv, &server);
    demo_referee_close(&server, &cost, opt.tickrate, 0, timeouts, &sink);
    demo_net_close(&net);
    fleet_stop();
    demo_metrics_close(&metrics);
}

int main(int argc, char **argv)
{
    int rc = demo_options_load(&opt, DEMO_FOR_SERVER, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    text = opt.machine ? stderr : stdout;
    sink.put = opt.machine ? demo_record_put : NULL;
    sink.ctx = stdout;
    demo_host_catch_interrupt();
    if (start() != 0)
        return 1;
    run();
    stop();
    return 0;
}
