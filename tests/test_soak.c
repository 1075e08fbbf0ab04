/* test_soak.c - the soak: clients over bad links for a long simulated time,
 * joining, leaving and vanishing at random; nothing grows, no command is lost unseen. */
#include <string.h>

#include "zl_port.h"
#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

/* `make soak` builds with ZL_SOAK_LONG: a full server for 10 minutes. The
 * suite in `make test` is the same soak, shorter and smaller. */
#ifdef ZL_SOAK_LONG
#define SOAK_US 600000000u
#else
#define SOAK_US 20000000u
#endif
#define SOAK_CLIENTS ZL_SIM_CLIENTS
#define LATENCY_US 250000u /* one way, each direction */
#define JITTER_US 50000u
/* Stats of every slot are sampled this often: a slot's last sample is
 * what is left of it once the server has freed it. */
#define SAMPLE_US 100000u
/* Before a polite leave the bot stops for this long, so everything it
 * sent has been run or counted when it says goodbye. */
#define IDLE_US 2000000u
/* After the soak: long enough for every vanished client to time out. */
#define DRAIN_US 6000000u

enum { AWAY, PLAYING, IDLING };

typedef struct soak_client {
    uint8_t phase;
    uint64_t until_us; /* end of the phase */
    uint32_t style;    /* how its bot moves */
} soak_client;

/* A vanished connection, kept by slot until the server times it out. */
typedef struct ghost {
    uint8_t active;
    uint64_t nonce;
    uint32_t made;
} ghost;

/* The last sample of a slot's stats. */
typedef struct sample {
    uint64_t nonce;
    uint32_t newest; /* newest command sequence taken */
    zl_server_client_stats st;
} sample;

/* What the soak saw; [0] first half, [1] second half for the maxima. */
typedef struct figures {
    uint32_t joins, denied, quits, vanished, timeouts, quit_timeouts, checked;
    uint32_t made, executed, lost, shed, overflow, invalid, in_flight;
    uint32_t mispredicted, gaps, reconciled, repeats;
    uint32_t depth_cmds[2], depth_us[2], unacked[2], cond_queued[2], events[2];
    uint32_t notices_peak, events_dropped;
} figures;

static zl_sim *const S = &zl_sim_world;
static soak_client soak[SOAK_CLIENTS];
static ghost ghosts[ZL_MAX_CLIENTS];
static sample samples[ZL_MAX_CLIENTS];
static figures fig;
static zl_test_rng rng;
static uint64_t start_us;

static uint64_t rand_us(uint64_t lo, uint64_t hi)
{
    return lo + (uint64_t)zl_test_rng_u32(&rng) % (hi - lo + 1u);
}

/* Movement only, different for each client: nothing another client or
 * the server can change, so prediction is exact unless commands go missing. */
static int soak_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    uint32_t f = (uint32_t)(zl_test_time_us / ZL_SIM_FRAME_US), style = soak[i].style;
    (void)sim;
    if (soak[i].phase != PLAYING)
        return 0;
    cmd->msec = (uint16_t)(ZL_SIM_FRAME_US / 1000u);
    cmd->forward = (int8_t)((f / 40u + style) % 4u == 3u ? -100 : 127);
    cmd->side = (int8_t)((f / 64u + style) % 2u ? 90 : -90);
    cmd->yaw = (zl_angle)(f * (150u + 13u * style));
    cmd->buttons = (uint16_t)((f + style) % 97u == 0    ? FPS_BUTTON_JUMP
                              : (f + style) % 211u < 20u ? FPS_BUTTON_DUCK
                                                         : 0);
    cmd->seed = (uint8_t)(f * 31u + (uint32_t)i);
    return 1;
}

static int half(void)
{
    return zl_test_time_us - start_us >= SOAK_US / 2u;
}

static void raise_to(uint32_t *max, uint32_t v)
{
    if (v > *max)
        *max = v;
}

/* What one connection's bookkeeping must satisfy, from the client's count
 * of commands made and the server's of what became of them. `drained`:
 * the client stopped long enough ago that nothing is in flight. */
static void account(uint32_t made, uint32_t newest, const zl_server_client_stats *st,
                    const zl_sim_ledger *l, int drained)
{
    const zl_cmdbuf_stats *cs = &st->commands;
    zl_sim_ledger none;
    if (!l) {
        memset(&none, 0, sizeof none);
        l = &none;
    }
    fig.checked++;
    /* Nothing invented, nothing run twice. */
    ZL_CHECK(newest <= made);
    ZL_CHECK_EQ(l->repeats, 0);
    /* Every sequence the server took is in exactly one bucket. */
    ZL_CHECK_EQ(cs->executed + cs->lost + cs->dropped_ahead + cs->overflow + cs->invalid +
                    cs->depth_cmds,
                newest);
    ZL_CHECK_EQ(l->executed, cs->executed);
    /* A sequence the game jumped over was lost, shed or refused. */
    ZL_CHECK(l->skipped <= cs->lost + cs->dropped_ahead + cs->overflow + cs->invalid);
    if (drained) {
        ZL_CHECK_EQ(newest, made);
        ZL_CHECK_EQ(cs->depth_cmds, 0);
        ZL_CHECK_EQ(l->last, made);
        ZL_CHECK_EQ(l->skipped, cs->lost + cs->dropped_ahead + cs->overflow + cs->invalid);
    }
    fig.made += made;
    fig.executed += cs->executed;
    fig.lost += cs->lost;
    fig.shed += cs->dropped_ahead;
    fig.overflow += cs->overflow;
    fig.invalid += cs->invalid;
    fig.in_flight += made - newest;
    fig.repeats += l->repeats;
}

/* The client side of a connection that ends now: every misprediction of
 * its movement follows a jump in what the server ran; after each, the
 * replay from the server's state is exact again. */
static void account_prediction(int i)
{
    zl_client_stats cs;
    const zl_sim_ledger *l = zl_sim_ledger_of(S, i);
    uint32_t gaps = l ? l->gaps : 0u;
    zl_client_get_stats(&S->c[i].client, zl_test_time_us, &cs);
    ZL_CHECK(cs.predict.mispredicted <= gaps);
    ZL_CHECK_EQ(cs.predict.refused_full, 0);
    fig.mispredicted += cs.predict.mispredicted;
    fig.reconciled += cs.predict.reconciled;
    fig.gaps += gaps;
}

/* A connection that stopped sending IDLE_US ago: exact books. */
static void account_drained(int i)
{
    zl_server_client_stats st;
    int slot = zl_client_slot(&S->c[i].client);
    if (zl_sim_server_stats(S, i, &st) != ZL_OK)
        return; /* the server already let it go: counted as a timeout */
    account(S->c[i].made, zl_cmdbuf_newest(&S->server.slot[slot].commands), &st,
            zl_sim_ledger_of(S, i), 1);
    account_prediction(i);
}

/* Client i stops dead; if it was connected the server must notice. */
static void vanish(int i)
{
    int slot = zl_client_slot(&S->c[i].client);
    if (zl_sim_connected(S, i)) {
        account_prediction(i);
        ghosts[slot].active = 1;
        ghosts[slot].nonce = S->c[i].client.conn.nonce;
        ghosts[slot].made = S->c[i].made;
        fig.vanished++;
    }
    zl_sim_vanish(S, i);
}

/* The server timed a slot out: if it was a vanished client, settle its
 * books from the slot's last sample (nothing could arrive for the 5 s
 * before it, so the sample is final). */
static void settle_ghost(int slot)
{
    ghost *g = &ghosts[slot];
    const sample *sm = &samples[slot];
    if (!g->active) {
        fig.quit_timeouts++; /* every copy of a goodbye was lost */
        return;
    }
    g->active = 0;
    ZL_CHECK(sm->nonce == g->nonce);
    if (sm->nonce != g->nonce)
        return;
    ZL_CHECK_EQ(sm->st.commands.depth_cmds, 0);
    account(g->made, sm->newest, &sm->st,
            S->ledger[slot].nonce == g->nonce ? &S->ledger[slot] : NULL, 0);
}

static void read_notices(void)
{
    zl_server_notice n;
    uint32_t backlog = S->server.notices_written - S->server.notices_read;
    raise_to(&fig.notices_peak, backlog);
    while (zl_server_next_notice(&S->server, &n)) {
        if (n.kind == ZL_NOTICE_JOIN) {
            fig.joins++;
        } else if (n.reason == ZL_DISCONNECT_TIMEOUT) {
            fig.timeouts++;
            settle_ghost(n.slot);
        } else {
            fig.quits++;
        }
    }
}

static void take_samples(void)
{
    int i, h = half();
    zl_conditioner_stats links[2];
    for (i = 0; i < ZL_MAX_CLIENTS; i++) {
        sample *sm = &samples[i];
        if (!zl_server_connected(&S->server, i))
            continue;
        sm->nonce = S->server.slot[i].conn.nonce;
        sm->newest = zl_cmdbuf_newest(&S->server.slot[i].commands);
        zl_server_get_client_stats(&S->server, i, zl_test_time_us, &sm->st);
        raise_to(&fig.depth_cmds[h], sm->st.commands.depth_cmds);
        raise_to(&fig.depth_us[h], sm->st.commands.depth_us);
    }
    for (i = 0; i < S->clients; i++) {
        const zl_client *c = &S->c[i].client;
        if (S->c[i].live && c->has_player)
            raise_to(&fig.unacked[h], zl_predict_unacked(&c->predict));
        if (S->c[i].sessions > 0) {
            raise_to(&fig.cond_queued[h],
                     zl_conditioner_get_stats(&S->c[i].cond, ZL_CONDITIONER_SEND)->queued +
                         zl_conditioner_get_stats(&S->c[i].cond, ZL_CONDITIONER_RECEIVE)->queued);
        }
    }
    zl_sim_link_totals(S, links);
    ZL_CHECK_EQ(links[0].dropped_pool + links[1].dropped_pool, 0);
}

/* Moves each client through away, playing and idling at random times. */
static void churn(int ending)
{
    int i;
    for (i = 0; i < S->clients; i++) {
        soak_client *sc = &soak[i];
        int st = zl_client_state(&S->c[i].client);
        if (sc->phase == PLAYING && (st == ZL_CLIENT_DENIED || st == ZL_CLIENT_TIMED_OUT)) {
            fig.denied += st == ZL_CLIENT_DENIED;
            zl_sim_vanish(S, i);
            sc->phase = AWAY;
            sc->until_us = zl_test_time_us + rand_us(500000u, 4000000u);
            continue;
        }
        if (zl_test_time_us < sc->until_us && !(ending && sc->phase == PLAYING))
            continue;
        if (sc->phase == AWAY && !ending) {
            zl_sim_join(S, i, soak_bot);
            sc->phase = PLAYING;
            sc->until_us = zl_test_time_us + rand_us(SOAK_US / 8u, SOAK_US / 3u);
        } else if (sc->phase == PLAYING) {
            if (ending || zl_test_rng_u32(&rng) % 10u < 6u) {
                sc->phase = IDLING;
                sc->until_us = zl_test_time_us + IDLE_US;
            } else {
                vanish(i);
                sc->phase = AWAY;
                sc->until_us = zl_test_time_us + rand_us(500000u, 4000000u);
            }
        } else if (sc->phase == IDLING && !ending) {
            account_drained(i);
            zl_sim_leave(S, i);
            sc->phase = AWAY;
            sc->until_us = zl_test_time_us + rand_us(500000u, 4000000u);
        }
    }
}

static void step(int ending)
{
    const zl_events *ev;
    churn(ending);
    zl_sim_step(S);
    ev = zl_server_events(&S->server);
    fig.events_dropped += ev->dropped;
    raise_to(&fig.events[half()], ev->count);
    read_notices();
    if (zl_test_time_us % SAMPLE_US == 0)
        take_samples();
}

/* The conditioners did what they were told, within tolerance. */
static void check_impairment(void)
{
    zl_conditioner_stats t[2];
    int d;
    zl_sim_link_totals(S, t);
    for (d = 0; d < 2; d++) {
        uint32_t loss = (uint32_t)((uint64_t)t[d].dropped_burst * 1000u / t[d].seen);
        uint32_t dups = (uint32_t)((uint64_t)t[d].duplicated * 1000u / t[d].seen);
        uint32_t late = (uint32_t)((uint64_t)t[d].reordered * 1000u / t[d].delivered);
        uint32_t delay = (uint32_t)(t[d].delay_total_us / t[d].delivered / 1000u);
        zl_test_note("%s: %u datagrams, %u per mille lost in bursts, %u duplicated, %u "
                     "reordered, mean delay %u ms",
                     d == 0 ? "clients to server" : "server to clients", t[d].seen, loss, dups,
                     late, delay);
        ZL_CHECK(loss >= 80u && loss <= 120u);
        ZL_CHECK(dups >= 40u && dups <= 60u);
        ZL_CHECK(late >= 20u && late <= 80u);
        ZL_CHECK(delay >= LATENCY_US / 1000u && delay <= (LATENCY_US + JITTER_US) / 1000u);
        ZL_CHECK_EQ(t[d].dropped_pool + t[d].dropped_refused + t[d].dropped_loss, 0);
    }
}

static void check_bounds(void)
{
    int h;
    for (h = 0; h < 2; h++) {
        zl_test_note("%s half: most buffered %u commands (%u ms), most unacked %u, most held "
                     "by a conditioner %u, most events in a tick %u",
                     h ? "second" : "first", fig.depth_cmds[h], fig.depth_us[h] / 1000u,
                     fig.unacked[h], fig.cond_queued[h], fig.events[h]);
        ZL_CHECK(fig.depth_cmds[h] < ZL_CMDBUF_CAPACITY);
        ZL_CHECK(fig.unacked[h] < ZL_PREDICT_COMMANDS);
        ZL_CHECK(fig.cond_queued[h] < ZL_CONDITIONER_PACKETS);
        ZL_CHECK(fig.events[h] < ZL_SERVER_EVENTS);
    }
    /* No drift: the second half needs no more room than the first. */
    ZL_CHECK(fig.depth_us[1] <= 2u * fig.depth_us[0] + 50000u);
    ZL_CHECK(fig.unacked[1] <= 2u * fig.unacked[0] + 8u);
    ZL_CHECK(fig.cond_queued[1] <= 2u * fig.cond_queued[0] + 16u);
    ZL_CHECK_EQ(fig.events_dropped, 0);
    ZL_CHECK_EQ(S->server.notices_lost, 0);
    ZL_CHECK(fig.notices_peak < ZL_SERVER_NOTICES);
    ZL_CHECK_EQ(S->server_inbox_dropped, 0);
    {
        uint32_t peak = 0, dropped = 0;
        int i;
        for (i = 0; i < S->clients; i++) {
            raise_to(&peak, S->c[i].inbox_peak);
            dropped += S->c[i].inbox_dropped;
        }
        ZL_CHECK_EQ(dropped, 0);
        zl_test_note("network queues: at most %u datagrams for the server, %u for a client",
                     S->server_inbox_peak, peak);
    }
}

static void test_soak(void)
{
    zl_conditioner_settings link;
    zl_platform host;
    uint64_t t0, end;
    int i;
    zl_port_clock_only(&host);
    t0 = host.now_us(host.ctx);
    memset(soak, 0, sizeof soak);
    memset(ghosts, 0, sizeof ghosts);
    memset(samples, 0, sizeof samples);
    memset(&fig, 0, sizeof fig);
    zl_test_rng_seed(&rng, 11);
    zl_sim_hostile_link(&link, LATENCY_US, JITTER_US);
    zl_sim_init(S, SOAK_CLIENTS, NULL, &link, 11);
    start_us = zl_test_time_us;
    for (i = 0; i < S->clients; i++) {
        soak[i].phase = AWAY;
        soak[i].until_us = start_us + rand_us(0, 2000000u);
        soak[i].style = (uint32_t)i * 7u;
    }
    end = start_us + SOAK_US;
    while (zl_test_time_us < end)
        step(0);
    /* Everyone still playing stops, idles, and is settled exactly. */
    step(1);
    end = zl_test_time_us + DRAIN_US;
    while (zl_test_time_us < end)
        step(1);
    for (i = 0; i < S->clients; i++)
        if (soak[i].phase == IDLING)
            account_drained(i);
    for (i = 0; i < ZL_MAX_CLIENTS; i++)
        ZL_CHECK(!ghosts[i].active); /* every vanished client timed out */

    zl_test_note("%d clients, %u s simulated in %u s: %u joins, %u denied (full), %u quit, "
                 "%u vanished, %u timeouts (%u of them lost goodbyes)",
                 S->clients, SOAK_US / 1000000u,
                 (uint32_t)((host.now_us(host.ctx) - t0) / 1000000u), fig.joins, fig.denied,
                 fig.quits, fig.vanished, fig.timeouts, fig.quit_timeouts);
    zl_test_note("%u connections settled: %u commands made = %u executed + %u lost + %u shed + "
                 "%u overflow + %u invalid + %u in flight when their client vanished",
                 fig.checked, fig.made, fig.executed, fig.lost, fig.shed, fig.overflow,
                 fig.invalid, fig.in_flight);
    zl_test_note("prediction: %u reconciliations, %u mispredicted after %u jumps in the "
                 "commands run, %u commands run twice",
                 fig.reconciled, fig.mispredicted, fig.gaps, fig.repeats);
    ZL_CHECK(fig.joins > (uint32_t)S->clients);
    ZL_CHECK(fig.quits > 0 && fig.vanished > 0);
    ZL_CHECK_EQ(fig.timeouts, fig.vanished + fig.quit_timeouts);
    ZL_CHECK_EQ(fig.made, fig.executed + fig.lost + fig.shed + fig.overflow + fig.invalid +
                              fig.in_flight);
    ZL_CHECK(fig.executed > fig.made / 2u);
    ZL_CHECK_EQ(fig.overflow + fig.invalid, 0);
    check_bounds();
    check_impairment();
}

void zl_suite_soak(void)
{
    ZL_RUN(test_soak);
}

#else

void zl_suite_soak(void)
{
    zl_print("  soak left out: no room for a server in this image (zl_sim.h)\n");
}

#endif
