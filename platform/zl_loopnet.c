/* zl_loopnet.c - the in-memory network: one shared pool of packets, one FIFO
 * queue per bound endpoint, so behaviour is exact and allocation-free. */
#include "zl_loopnet.h"

#include <string.h>

#define FIRST_EPHEMERAL_PORT 49152u

static int16_t pool_take(zl_loopnet *net)
{
    int16_t p = net->free_head;
    if (p >= 0)
        net->free_head = net->packet[p].next;
    return p;
}

static void pool_give(zl_loopnet *net, int16_t p)
{
    net->packet[p].next = net->free_head;
    net->free_head = p;
}

void zl_loopnet_init(zl_loopnet *net, const zl_platform *clock)
{
    int i;
    ZL_ASSERT(net && clock && clock->now_us && clock->random);
    memset(net, 0, sizeof *net);
    net->clock = *clock;
    net->free_head = -1;
    for (i = ZL_LOOPNET_PACKETS - 1; i >= 0; i--)
        pool_give(net, (int16_t)i);
    for (i = 0; i < ZL_LOOPNET_ENDPOINTS; i++)
        net->slot[i].head = net->slot[i].tail = -1;
    net->next_port = FIRST_EPHEMERAL_PORT;
}

static int find_bound(const zl_loopnet *net, const zl_addr *addr)
{
    int i;
    for (i = 0; i < ZL_LOOPNET_ENDPOINTS; i++)
        if (net->slot[i].bound && zl_addr_equal(&net->slot[i].addr, addr))
            return i;
    return -1;
}

static int loop_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_loopnet_endpoint *ep = (zl_loopnet_endpoint *)ctx;
    zl_loopnet *net = ep->net;
    zl_loopnet_slot *dst;
    int target;
    int16_t p;

    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    if (to->family != net->slot[ep->index].addr.family)
        return ZL_ERR_UNSUPPORTED;
    target = find_bound(net, to);
    if (target < 0) {
        net->dropped_unbound++;
        return ZL_OK; /* like UDP: accepted, never delivered */
    }
    p = pool_take(net);
    if (p < 0) {
        net->dropped_full++;
        return ZL_ERR_AGAIN;
    }
    net->packet[p].from = net->slot[ep->index].addr;
    net->packet[p].len = (uint16_t)len;
    net->packet[p].next = -1;
    memcpy(net->packet[p].data, data, len);
    dst = &net->slot[target];
    if (dst->tail >= 0)
        net->packet[dst->tail].next = p;
    else
        dst->head = p;
    dst->tail = p;
    net->sent++;
    return ZL_OK;
}

static int loop_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_loopnet_endpoint *ep = (zl_loopnet_endpoint *)ctx;
    zl_loopnet *net = ep->net;
    zl_loopnet_slot *s = &net->slot[ep->index];
    int16_t p = s->head;
    int len;

    if (p < 0)
        return ZL_ERR_AGAIN;
    s->head = net->packet[p].next;
    if (s->head < 0)
        s->tail = -1;
    *from = net->packet[p].from;
    len = net->packet[p].len;
    if ((size_t)len > cap) {
        pool_give(net, p);
        return ZL_ERR_TRUNCATED;
    }
    memcpy(buf, net->packet[p].data, (size_t)len);
    pool_give(net, p);
    return len;
}

static uint64_t loop_now(void *ctx)
{
    zl_loopnet *net = ((zl_loopnet_endpoint *)ctx)->net;
    return net->clock.now_us(net->clock.ctx);
}

static int loop_random(void *ctx, void *out, size_t len)
{
    zl_loopnet *net = ((zl_loopnet_endpoint *)ctx)->net;
    return net->clock.random(net->clock.ctx, out, len);
}

int zl_loopnet_open(zl_loopnet *net, zl_loopnet_endpoint *ep, const zl_addr *bind_addr,
                    zl_platform *hal)
{
    zl_addr addr = *bind_addr;
    int i, free_slot = -1;

    if (addr.family != ZL_ADDR_IPV4 && addr.family != ZL_ADDR_IPV6)
        return ZL_ERR_INVALID;
    if (addr.port != 0 && find_bound(net, &addr) >= 0)
        return ZL_ERR_ADDRESS;
    for (i = 0; i < ZL_LOOPNET_ENDPOINTS && free_slot < 0; i++)
        if (!net->slot[i].bound)
            free_slot = i;
    if (free_slot < 0)
        return ZL_ERR_FULL;
    if (addr.port == 0) {
        /* Ephemeral: the next port nobody on this address uses. */
        do {
            addr.port = net->next_port;
            net->next_port = (uint16_t)(net->next_port == 65535u ? FIRST_EPHEMERAL_PORT
                                                                  : net->next_port + 1u);
        } while (find_bound(net, &addr) >= 0);
    }
    net->slot[free_slot].addr = addr;
    net->slot[free_slot].bound = 1;
    net->slot[free_slot].head = net->slot[free_slot].tail = -1;
    ep->net = net;
    ep->index = free_slot;
    hal->ctx = ep;
    hal->send = loop_send;
    hal->receive = loop_receive;
    hal->now_us = loop_now;
    hal->random = loop_random;
    return ZL_OK;
}

zl_addr zl_loopnet_address(const zl_loopnet_endpoint *ep)
{
    return ep->net->slot[ep->index].addr;
}

void zl_loopnet_close(zl_loopnet_endpoint *ep)
{
    zl_loopnet *net = ep->net;
    zl_loopnet_slot *s;
    if (!net)
        return; /* never opened, or closed already */
    s = &net->slot[ep->index];
    while (s->head >= 0) {
        int16_t p = s->head;
        s->head = net->packet[p].next;
        pool_give(net, p);
    }
    s->tail = -1;
    s->bound = 0;
    ep->net = 0; /* a second close must not unbind the slot's next owner */
}
