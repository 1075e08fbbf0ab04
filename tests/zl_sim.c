/* zl_sim.c - the in-test network and step loop of zl_sim.h: sockets as
 * queues, one conditioner per client, bots, and the ledger of commands run. */
#include <string.h>

#include "zl_crc32.h"
#include "zl_port.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

zl_sim zl_sim_world;

/* The simulation whose server runs the ledger's rules: there is one. */
static zl_sim *ledger_sim;

#define CLIENT_PORT_BASE 40000u

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15u;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9u;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBu;
    return x ^ (x >> 31);
}

/* n bytes drawn from a seed: keys and nonces for the simulation's tokens. */
static void fill_bytes(uint8_t *out, size_t n, uint64_t seed)
{
    size_t k;
    for (k = 0; k < n; k++)
        out[k] = (uint8_t)mix(seed + k);
}

/* Client i's socket in its nth session: 10.1.hi.lo, port 40000 + n; with
 * a shared address, 10.2.0.1 port 40000 + 256 i + n (n below 256). */
static zl_addr client_address(const zl_sim *sim, int i, uint16_t session)
{
    if (sim->shared_address)
        return zl_addr_ipv4(10, 2, 0, 1, (uint16_t)(CLIENT_PORT_BASE + 256u * (unsigned)i +
                                                    (session & 0xFFu)));
    return zl_addr_ipv4(10, 1, (uint8_t)(i >> 8), (uint8_t)(i & 0xFF),
                        (uint16_t)(CLIENT_PORT_BASE + session));
}

/* The client whose open socket has this address, or -1. */
static int client_at(const zl_sim *sim, const zl_addr *a)
{
    int i;
    if (a->family != ZL_ADDR_IPV4 || a->ip[0] != 10 || (a->ip[1] != 1 && a->ip[1] != 2))
        return -1;
    i = a->ip[1] == 2 ? (int)((a->port - CLIENT_PORT_BASE) >> 8) : a->ip[2] * 256 + a->ip[3];
    if (i >= sim->clients || !sim->c[i].open || !zl_addr_equal(a, &sim->c[i].addr))
        return -1;
    return i;
}

/* Writes a datagram into a queue slot; count is the queue's new length,
 * peak its deepest so far. */
static void enqueue(zl_sim_datagram *d, const zl_addr *from, const void *data, size_t len,
                    uint32_t count, uint32_t *peak)
{
    d->from = *from;
    d->len = (uint16_t)len;
    memcpy(d->data, data, len);
    if (count > *peak)
        *peak = count;
}

static int server_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_sim *sim = (zl_sim *)ctx;
    zl_sim_client *c;
    int i = client_at(sim, to);
    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    sim->sent_digest = zl_crc32_update(zl_crc32_update(sim->sent_digest, to, sizeof *to), data, len);
    if (i < 0) {
        sim->unbound++; /* as UDP: gone, and nobody is told */
        return ZL_OK;
    }
    c = &sim->c[i];
    if (ZL_RING_FULL(&c->inbox)) {
        c->inbox_dropped++;
        return ZL_ERR_AGAIN;
    }
    enqueue(ZL_RING_NEXT(&c->inbox), &sim->server_addr, data, len, ZL_RING_COUNT(&c->inbox) + 1u,
            &c->inbox_peak);
    ZL_RING_COMMIT(&c->inbox);
    return ZL_OK;
}

static int wire_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_sim_client *c = (zl_sim_client *)ctx;
    uint8_t copy[ZL_MAX_PACKET];
    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    if (!zl_addr_equal(to, &c->sim->server_addr)) {
        c->sim->unbound++;
        return ZL_OK;
    }
    memcpy(copy, data, len);
    if (c->outbound)
        c->outbound(c->sim, c->index, copy, len);
    else
        zl_sim_deliver(c->sim, c->index, copy, len);
    return ZL_OK;
}

static int wire_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_sim_client *c = (zl_sim_client *)ctx;
    const zl_sim_datagram *d;
    int n;
    if (ZL_RING_EMPTY(&c->inbox))
        return ZL_ERR_AGAIN;
    d = ZL_RING_AT(&c->inbox, 0);
    *from = d->from;
    n = d->len <= cap ? (int)d->len : ZL_ERR_TRUNCATED;
    if (n > 0)
        memcpy(buf, d->data, d->len);
    ZL_RING_POP(&c->inbox);
    return n;
}

void zl_sim_deliver(zl_sim *sim, int i, const uint8_t *data, size_t len)
{
    ZL_ASSERT(i >= 0 && i < sim->clients);
    zl_sim_deliver_from(sim, &sim->c[i].addr, data, len);
}

void zl_sim_deliver_from(zl_sim *sim, const zl_addr *from, const uint8_t *data, size_t len)
{
    ZL_ASSERT(len > 0 && len <= ZL_MAX_PACKET);
    if (ZL_RING_FULL(&sim->server_inbox)) {
        sim->server_inbox_dropped++;
        return;
    }
    enqueue(ZL_RING_NEXT(&sim->server_inbox), from, data, len,
            ZL_RING_COUNT(&sim->server_inbox) + 1u, &sim->server_inbox_peak);
    ZL_RING_COMMIT(&sim->server_inbox);
}

/* The server's run_command: the FPS's, plus the ledger of its slot. The
 * server names the slot in the event sink's source before each command. */
static void ledger_run_command(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                               int first_prediction, zl_events *events)
{
    (void)ctx;
    if (events && events->source >= 0 && events->source < ZL_MAX_CLIENTS) {
        zl_sim_ledger *l = &ledger_sim->ledger[events->source];
        uint64_t nonce = ledger_sim->server.slot[events->source].conn.nonce;
        uint32_t ahead;
        if (l->nonce != nonce) {
            memset(l, 0, sizeof *l);
            l->nonce = nonce;
        }
        ahead = cmd->sequence - l->last;
        if (ahead == 0u || ahead >= 0x80000000u) {
            l->repeats++;
        } else {
            if (ahead > 1u) {
                l->gaps++;
                l->skipped += ahead - 1u;
            }
            l->last = cmd->sequence;
        }
        l->executed++;
    }
    fps_run_command((const fps_player *)from, cmd, (fps_player *)to, first_prediction, events);
}

void zl_sim_hostile_link(zl_conditioner_settings *out, uint32_t latency_us, uint32_t jitter_us)
{
    memset(out, 0, sizeof *out);
    out->enabled = 1;
    out->latency_us = latency_us;
    out->jitter_us = jitter_us;
    /* Bad 10% of the time (27778 / (27778 + 250000)), losing all there. */
    out->burst_enter_ppm = 27778;
    out->burst_exit_ppm = 250000;
    out->burst_loss_bad_ppm = ZL_CONDITIONER_PPM;
    out->duplicate_ppm = 50000;
    out->reorder_ppm = 50000;
    out->reorder_delay_us = 30000;
}

void zl_sim_init(zl_sim *sim, int clients, const zl_server_config *sc,
                 const zl_conditioner_settings *impair, uint64_t seed)
{
    zl_server_config cfg;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    size_t k;
    int i;
    ZL_ASSERT(sim && clients >= 1 && clients <= ZL_SIM_CLIENTS);
    /* The client objects are cleared as they are used: they are most of it. */
    memset(sim, 0, offsetof(zl_sim, c));
    zl_test_time_us = 1000000u;
    ledger_sim = sim;
    sim->clients = clients;
    sim->seed = seed;
    sim->start_us = zl_test_time_us;
    zl_test_fake_platform(&sim->clock);
    fps_game_init(&sim->game);
    sim->client_rules = fps_game_interface(&sim->game);
    sim->rules = sim->client_rules;
    sim->rules.run_command = ledger_run_command;
    sim->server_addr = zl_addr_ipv4(10, 0, 0, 1, 27015);
    /* Sockets take the test clock's time and random bytes (its functions
     * read no ctx) and add the network; the server's never receives. */
    sim->server_hal = sim->clock;
    sim->server_hal.ctx = sim;
    sim->server_hal.send = server_send;
    if (impair)
        sim->impair = *impair;
    if (sc) {
        cfg = *sc;
    } else {
        zl_server_config_default(&cfg);
        cfg.max_clients = (uint16_t)clients;
        /* Connect tokens and sealed packets, as a real match plays. */
        fill_bytes(cfg.private_key, sizeof cfg.private_key, seed);
        cfg.public_address_count = 1;
        cfg.public_addresses[0] = sim->server_addr;
        cfg.unix_time_s = ZL_SIM_UNIX_S;
    }
    for (k = 0; k < sizeof secret; k++)
        secret[k] = (uint8_t)mix(seed + k);
    ZL_CHECK_EQ(zl_server_init(&sim->server, &cfg, &sim->rules, &sim->server_hal, secret,
                               zl_test_time_us),
                ZL_OK);
    for (i = 0; i < clients; i++) {
        zl_sim_client *c = &sim->c[i];
        memset(c, 0, sizeof *c);
        c->sim = sim;
        c->index = i;
        c->wire = sim->clock;
        c->wire.ctx = c;
        c->wire.send = wire_send;
        c->wire.receive = wire_receive;
    }
}

static void add_stats(zl_conditioner_stats *sum, const zl_conditioner_stats *s)
{
    sum->seen += s->seen;
    sum->duplicated += s->duplicated;
    sum->delivered += s->delivered;
    sum->queued += s->queued;
    sum->reordered += s->reordered;
    sum->dropped_loss += s->dropped_loss;
    sum->dropped_burst += s->dropped_burst;
    sum->dropped_bandwidth += s->dropped_bandwidth;
    sum->dropped_pool += s->dropped_pool;
    sum->dropped_refused += s->dropped_refused;
    sum->bytes_seen += s->bytes_seen;
    sum->bytes_delivered += s->bytes_delivered;
    sum->delay_total_us += s->delay_total_us;
}

void zl_sim_link_totals(const zl_sim *sim, zl_conditioner_stats out[2])
{
    int d, i;
    for (d = 0; d < 2; d++) {
        out[d] = sim->closed_links[d];
        for (i = 0; i < sim->clients; i++)
            if (sim->c[i].sessions > 0)
                add_stats(&out[d], zl_conditioner_get_stats(&sim->c[i].cond,
                                                             (zl_conditioner_dir)d));
    }
}

void zl_sim_join(zl_sim *sim, int i, zl_sim_bot bot)
{
    zl_sim_client *c = &sim->c[i];
    zl_client_config cc;
    uint64_t key;
    int d;
    ZL_ASSERT(i >= 0 && i < sim->clients);
    /* The old conditioner's counters are kept in the totals, its held
     * datagrams die with its socket. */
    for (d = 0; d < 2 && c->sessions > 0; d++) {
        zl_conditioner_stats s = *zl_conditioner_get_stats(&c->cond, (zl_conditioner_dir)d);
        s.queued = 0;
        add_stats(&sim->closed_links[d], &s);
    }
    c->sessions++;
    key = mix(sim->seed ^ mix((uint64_t)i << 16 | c->sessions));
    c->addr = client_address(sim, i, c->sessions);
    c->open = 1;
    c->live = 1;
    c->bot = bot;
    c->made = 0;
    c->fires = 0;
    ZL_RING_CLEAR(&c->inbox);
    zl_conditioner_init(&c->cond, &c->wire, key, &c->hal);
    zl_conditioner_configure(&c->cond, ZL_CONDITIONER_SEND, &sim->impair);
    zl_conditioner_configure(&c->cond, ZL_CONDITIONER_RECEIVE, &sim->impair);
    zl_client_config_default(&cc);
    ZL_CHECK_EQ(zl_client_init(&c->client, &cc, &sim->client_rules, &c->hal, mix(key) | 1u), ZL_OK);
    if (sim->server.config.security == ZL_SECURITY_PLAIN) {
        zl_client_connect(&c->client, &sim->server_addr, zl_test_time_us);
    } else {
        /* The backend's token for this session: fresh keys and nonce. */
        zl_token_grant g;
        uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
        uint64_t now_s = ZL_SIM_UNIX_S + (zl_test_time_us - sim->start_us) / 1000000u;
        memset(&g, 0, sizeof g);
        g.client_id = (uint64_t)i << 16 | c->sessions;
        g.timeout_s = 5;
        g.address_count = 1;
        g.addresses[0] = sim->server_addr;
        fill_bytes(g.client_key, sizeof g.client_key, key ^ 1u);
        fill_bytes(g.server_key, sizeof g.server_key, key ^ 2u);
        fill_bytes(nonce, sizeof nonce, key ^ 3u);
        ZL_CHECK_EQ(zl_token_mint(&c->token, &g, now_s, now_s + 60u, nonce,
                                  sim->server.config.private_key),
                    ZL_OK);
        ZL_CHECK_EQ(zl_client_connect_token(&c->client, &c->token, zl_test_time_us), ZL_OK);
    }
}

void zl_sim_leave(zl_sim *sim, int i)
{
    zl_sim_client *c = &sim->c[i];
    zl_client_disconnect(&c->client, zl_test_time_us);
    c->live = 0;
    c->close_at_us = zl_test_time_us + 1000000u;
}

void zl_sim_vanish(zl_sim *sim, int i)
{
    sim->c[i].live = 0;
    sim->c[i].open = 0;
}

static void client_frame(zl_sim *sim, zl_sim_client *c)
{
    zl_event store[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events events;
    zl_usercmd cmd;
    uint32_t k;
    zl_client_frame(&c->client, zl_test_time_us);
    memset(&cmd, 0, sizeof cmd);
    if (!c->bot(sim, c->index, &cmd))
        return;
    zl_events_init(&events, store, FPS_MAX_EVENTS_PER_COMMAND);
    if (zl_client_command(&c->client, &cmd, &events) != ZL_OK)
        return;
    c->made++;
    for (k = 0; k < events.count; k++)
        c->fires += store[k].type == FPS_EV_FIRE;
}

static void client_step(zl_sim *sim, zl_sim_client *c)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int n;
    if (!c->live) {
        /* Leaving: the link still carries the goodbye, nobody reads. */
        if (zl_test_time_us >= c->close_at_us) {
            c->open = 0;
            return;
        }
        zl_conditioner_pump(&c->cond);
        while (c->hal.receive(c->hal.ctx, &from, buf, sizeof buf) != ZL_ERR_AGAIN) {
        }
        return;
    }
    zl_conditioner_pump(&c->cond);
    while ((n = c->hal.receive(c->hal.ctx, &from, buf, sizeof buf)) != ZL_ERR_AGAIN)
        if (n >= 0)
            zl_client_receive(&c->client, &from, buf, (size_t)n, zl_test_time_us);
    zl_client_update(&c->client, zl_test_time_us);
    if (c->bot && zl_client_state(&c->client) == ZL_CLIENT_CONNECTED &&
        (zl_test_time_us / ZL_SIM_STEP_US + (uint64_t)c->index) %
                (ZL_SIM_FRAME_US / ZL_SIM_STEP_US) ==
            0)
        client_frame(sim, c);
}

void zl_sim_time_server(zl_sim *sim)
{
    zl_port_clock_only(&sim->host);
    sim->timing = 1;
}

static uint64_t host_now(const zl_sim *sim)
{
    return sim->timing ? sim->host.now_us(sim->host.ctx) : 0u;
}

void zl_sim_step(zl_sim *sim)
{
    uint64_t t0, t1;
    int i;
    zl_test_time_us += ZL_SIM_STEP_US;
    t0 = host_now(sim);
    if (sim->drain_many) {
        static zl_server_datagram all[ZL_SIM_SERVER_QUEUE];
        size_t n = 0;
        for (; n < ZL_RING_COUNT(&sim->server_inbox); n++) {
            zl_sim_datagram *d = ZL_RING_AT(&sim->server_inbox, n);
            all[n].from = d->from;
            all[n].data = d->data;
            all[n].len = d->len;
        }
        zl_server_receive_many(&sim->server, all, n, zl_test_time_us);
    }
    while (!ZL_RING_EMPTY(&sim->server_inbox)) {
        zl_sim_datagram *d = ZL_RING_AT(&sim->server_inbox, 0);
        if (!sim->drain_many)
            zl_server_receive(&sim->server, &d->from, d->data, d->len, zl_test_time_us);
        ZL_RING_POP(&sim->server_inbox);
        sim->received++;
    }
    t1 = host_now(sim);
    sim->ticks += (uint32_t)zl_server_update(&sim->server, zl_test_time_us);
    sim->receive_us += t1 - t0;
    sim->update_us += host_now(sim) - t1;
    for (i = 0; i < sim->clients; i++)
        if (sim->c[i].open)
            client_step(sim, &sim->c[i]);
}

void zl_sim_run(zl_sim *sim, uint64_t us)
{
    uint64_t end = zl_test_time_us + us;
    while (zl_test_time_us < end)
        zl_sim_step(sim);
}

/* The server slot of client i's connection, or -1. */
static int slot_of(const zl_sim *sim, int i)
{
    const zl_sim_client *c = &sim->c[i];
    int slot;
    if (zl_client_state(&c->client) != ZL_CLIENT_CONNECTED)
        return -1;
    slot = zl_client_slot(&c->client);
    if (!zl_server_connected(&sim->server, slot) ||
        sim->server.slot[slot].conn.nonce != c->client.conn.nonce)
        return -1;
    return slot;
}

int zl_sim_connected(const zl_sim *sim, int i)
{
    return slot_of(sim, i) >= 0;
}

int zl_sim_server_stats(zl_sim *sim, int i, zl_server_client_stats *out)
{
    int slot = slot_of(sim, i);
    if (slot < 0)
        return ZL_ERR_INVALID;
    return zl_server_get_client_stats(&sim->server, slot, zl_test_time_us, out);
}

const zl_sim_ledger *zl_sim_ledger_of(const zl_sim *sim, int i)
{
    int slot = slot_of(sim, i);
    if (slot < 0 || sim->ledger[slot].nonce != sim->c[i].client.conn.nonce)
        return NULL;
    return &sim->ledger[slot];
}

#else
/* ISO C wants something in every file. */
typedef int zl_sim_left_out;
#endif
