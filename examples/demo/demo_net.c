/* demo_net.c - stacks the link conditioner on the port's UDP socket, so the
 * demo's impairment is core's own, identical on every platform. */
#include <string.h>

#include "demo_host.h"
#include "demo_net.h"

/* One direction carrying datagrams_per_s as o says; ZL_ERR_INVALID when
 * its bursts cannot fit. */
static int direction(const demo_options *o, uint32_t datagrams_per_s, zl_conditioner_settings *cs)
{
    memset(cs, 0, sizeof *cs);
    cs->enabled = o->fakelag_ms || o->fakejitter_ms || o->fakeloss_ppm || o->fakeburst ||
                  o->fakespike_ms;
    cs->latency_us = o->fakelag_ms * 500u;
    cs->jitter_us = o->fakejitter_ms * 1000u;
    cs->loss_ppm = o->fakeloss_ppm;
    if (o->fakespike_ms) {
        cs->spike_every_us = DEMO_SPIKE_EVERY_MS * 1000u;
        cs->spike_us = o->fakespike_ms * 1000u;
    }
    if (o->fakeburst)
        return zl_conditioner_bursts(cs, o->fakeburst, DEMO_BURST_EVERY_MS * 1000u,
                                     datagrams_per_s);
    return ZL_OK;
}

int demo_net_open(demo_net *n, const zl_addr *bind_addr, const demo_options *o, int server,
                  uint64_t seed)
{
    zl_conditioner_settings out, in;
    int rc;
    memset(n, 0, sizeof *n);
    if (direction(o, server ? o->updaterate : o->cmdrate, &out) != ZL_OK ||
        direction(o, server ? o->cmdrate : o->updaterate, &in) != ZL_OK)
        return ZL_ERR_INVALID;
    rc = zl_port_open(&n->port, bind_addr, &n->socket);
    if (rc != ZL_OK)
        return rc;
    zl_conditioner_init(&n->cond, &n->socket, seed, &n->hal);
    /* The options' ranges keep every value within what configure takes. */
    zl_conditioner_configure(&n->cond, ZL_CONDITIONER_SEND, &out);
    zl_conditioner_configure(&n->cond, ZL_CONDITIONER_RECEIVE, &in);
    /* Unimpaired, the program uses the socket itself: a conditioner that
     * does nothing still pulls every waiting datagram into its pool, which
     * a flood fills with junk, dropping honest datagrams with it. */
    if (!out.enabled)
        n->hal = n->socket;
    return ZL_OK;
}

int demo_net_next(demo_net *n, zl_addr *from, void *buf, size_t cap)
{
    int len = n->hal.receive(n->hal.ctx, from, buf, cap);
    if (len >= 0 || len == ZL_ERR_TRUNCATED)
        return len;
    return -1;
}

void demo_net_pump(demo_net *n)
{
    zl_conditioner_pump(&n->cond);
}

void demo_net_flush(demo_net *n, uint32_t max_us)
{
    uint64_t end = n->hal.now_us(n->hal.ctx) + max_us;
    zl_conditioner_pump(&n->cond);
    while (zl_conditioner_next_due(&n->cond, ZL_CONDITIONER_SEND) != UINT64_MAX &&
           n->hal.now_us(n->hal.ctx) < end) {
        demo_host_sleep_us(1000);
        zl_conditioner_pump(&n->cond);
    }
}

uint32_t demo_net_hold_us(const demo_options *o)
{
    return o->fakelag_ms * 500u + o->fakejitter_ms * 1000u + o->fakespike_ms * 1000u + 50000u;
}

void demo_net_close(demo_net *n)
{
    zl_port_close(&n->port);
}
