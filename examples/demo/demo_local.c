/* demo_local.c - one step of a one-program match's server and of a player:
 * the loop the demo image and the page share, and the server's start. */
#include "demo_local.h"
#include "zl_port.h"

int demo_local_server_start(zl_server *s, demo_game *g, zl_loopnet *net, zl_loopnet_endpoint *ep,
                            zl_platform *hal, int max_clients, uint64_t now_us,
                            zl_server_config *sc)
{
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    zl_addr addr;
    int rc;
    zl_addr_parse(&addr, DEMO_LOCAL_SERVER);
    rc = zl_loopnet_open(net, ep, &addr, hal);
    if (rc != ZL_OK)
        return rc;
    demo_game_init(g);
    zl_server_config_default(sc);
    sc->security = ZL_SECURITY_PLAIN;
    sc->max_clients = (uint16_t)max_clients;
    net->clock.random(net->clock.ctx, secret, sizeof secret);
    rc = zl_server_init(s, sc, &g->rules, hal, secret, now_us);
    if (rc == ZL_OK)
        demo_game_watch(g, s);
    return rc;
}

int demo_local_server_step(zl_server *s, demo_game *g, const zl_platform *hal,
                           demo_welcome *welcome, const char *motd, demo_stopwatch *cost,
                           uint64_t now_us, const demo_sink *sink)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_server_notice notice;
    zl_addr from;
    uint64_t t0;
    int n, ticks, joins = 0;
    while ((n = hal->receive(hal->ctx, &from, buf, sizeof buf)) >= 0)
        zl_server_receive(s, &from, buf, (size_t)n, now_us);
    t0 = zl_port_timer_now();
    ticks = zl_server_update(s, now_us);
    if (ticks > 0) {
        uint32_t each = (uint32_t)((zl_port_timer_now() - t0) / (uint64_t)ticks);
        for (n = 0; n < ticks; n++)
            demo_stopwatch_add(cost, each);
    }
    demo_game_flush(g, (uint32_t)(now_us / 1000u), sink);
    demo_game_kill_feed(g, s);
    while (zl_server_next_notice(s, &notice))
        if (notice.kind == ZL_NOTICE_JOIN) {
            joins++;
            (void)demo_welcome_send(welcome, s, notice.slot, motd);
        }
    return joins;
}

void demo_local_player_step(demo_player *p, zl_conditioner *cond, const zl_platform *hal,
                            uint64_t now_us)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    zl_conditioner_pump(cond);
    while ((n = hal->receive(hal->ctx, &from, buf, sizeof buf)) >= 0)
        demo_player_receive(p, &from, buf, (size_t)n, now_us);
    demo_player_update(p, now_us);
}
