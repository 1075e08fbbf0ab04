/* test_predict.c - client prediction against a small deterministic server
 * over the link conditioner: replays, corrections, smoothing, edge cases. */
#include <string.h>

#include "fps.h"
#include "zl_conditioner.h"
#include "zl_loopnet.h"
#include "zl_predict.h"
#include "zl_test.h"

/* How commands are read: zl_usercmd_schema prepared once per run. */
static zl_schema_plan cmd_plan;

#define FX(u) ZL_FX_INT(u)
#define MAX_SEQ 12288u  /* commands one scenario can record */
#define REDUNDANCY 64u  /* unacknowledged commands one client packet repeats */

/* Long scenarios shortened on slow ports, but never below `floor`
 * commands, where every check still has cases to see (the emulated M3 runs
 * the floors in about a second). */
static uint32_t scenario_len(uint32_t n, uint32_t floor)
{
    uint32_t k = ZL_TEST_ITERATIONS(n);
    return k < floor ? floor : k;
}

/* ---- The scenario: one client, one server, a conditioned link ----
 * The client's endpoint is wrapped by the conditioner: its send lane is the
 * uplink (commands), its receive lane the downlink (snapshots). Every
 * millisecond: due uplink datagrams are pumped, the server runs, then the
 * client samples and predicts its command, sends, and reads snapshots. So a
 * command sent at t whose answer comes back after exactly the round trip is
 * acknowledged at the end of the frame of t + rtt. */
typedef struct sim sim;
struct sim {
    zl_loopnet net;
    zl_loopnet_endpoint ep_client, ep_server;
    zl_platform raw_client, raw_server, client_hal;
    zl_conditioner cond;
    zl_addr addr_client, addr_server;
    uint32_t t_ms;

    /* client */
    zl_game game;
    zl_predict pred;
    zl_test_rng rng;
    uint16_t msec;
    uint32_t next_cmd_ms;
    int sending;
    void (*input)(sim *s, zl_usercmd *cmd);
    void (*after_reconcile)(sim *s, uint32_t acked, int rc);
    zl_usercmd held; /* random_input's current intent */
    uint32_t refused;
    zl_vec3 drawn_before, offset_before, predicted_before;
    uint32_t send_ms[MAX_SEQ];
    uint16_t cmd_msec[MAX_SEQ];
    uint32_t client_sig[MAX_SEQ], client_wsig[MAX_SEQ];
    uint8_t first_runs[MAX_SEQ];
    uint32_t replays, replay_sinks, replay_only, client_fires;
    int count_replay_only;

    /* server */
    fps_game world;
    fps_player server;
    uint32_t server_last;
    uint32_t snap_ms; /* 0: answer in every millisecond commands ran */
    int acking;
    void (*server_hook)(sim *s);
    uint32_t server_sig[MAX_SEQ], server_wsig[MAX_SEQ];
    uint32_t server_dupes, server_gaps, server_fires, snapshots;
};

static sim S;

static int field_index(const char *name)
{
    int i;
    for (i = 0; i < (int)fps_player_schema.count; i++)
        if (strcmp(fps_player_schema.fields[i].name, name) == 0)
            return i;
    return -1;
}

static void fps_settings(zl_predict_settings *ps)
{
    zl_predict_settings_default(ps);
    ps->origin_field = field_index("origin.x");
    ps->teleport_field = field_index("teleport");
}

/* Events of one command folded into a number: everything (full) or only
 * the weapon's, which movement corrections cannot change. */
static uint32_t signature(const zl_events *e, int weapons_only)
{
    uint32_t sig = 0, i;
    for (i = 0; i < e->count; i++) {
        uint16_t t = e->items[i].type;
        if (weapons_only && (t == FPS_EV_FOOTSTEP || t == FPS_EV_JUMP))
            continue;
        sig = sig * 131u + t * 16u + e->items[i].param + 1u;
    }
    return sig;
}

static uint32_t count_type(const zl_events *e, uint16_t type)
{
    uint32_t n = 0, i;
    for (i = 0; i < e->count; i++)
        n += e->items[i].type == type;
    return n;
}

/* The client's rules: fps_run_command, watched. Each call is counted by
 * sequence and kind; a replay handed an event sink is a failure; with
 * count_replay_only, the events a replay would have fired are compared
 * with those its first prediction fired (they differ after a correction:
 * those are the effects that must never be shown late). */
static void watched_run(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                        int first_prediction, zl_events *events)
{
    sim *s = (sim *)ctx;
    uint32_t i = cmd->sequence % MAX_SEQ;
    if (first_prediction) {
        s->first_runs[i]++;
    } else {
        s->replays++;
        s->replay_sinks += events != NULL;
        if (s->count_replay_only) {
            zl_event items[FPS_MAX_EVENTS_PER_COMMAND];
            zl_events would;
            fps_player scratch;
            zl_events_init(&would, items, FPS_MAX_EVENTS_PER_COMMAND);
            fps_run_command((const fps_player *)from, cmd, &scratch, 1, &would);
            s->replay_only += signature(&would, 0) != s->client_sig[i];
        }
    }
    fps_run_command((const fps_player *)from, cmd, (fps_player *)to, first_prediction, events);
}

static zl_conditioner_settings lane(uint32_t latency_ms, uint32_t jitter_ms, uint32_t loss_ppm)
{
    zl_conditioner_settings c;
    memset(&c, 0, sizeof c);
    c.enabled = 1;
    c.latency_us = latency_ms * 1000u;
    c.jitter_us = jitter_ms * 1000u;
    c.loss_ppm = loss_ppm;
    return c;
}

static void sim_setup(uint64_t seed, const zl_conditioner_settings *up,
                      const zl_conditioner_settings *down, uint16_t msec, uint32_t first_cmd_ms)
{
    zl_platform clock;
    zl_predict_settings ps;
    memset(&S, 0, sizeof S);
    zl_test_fake_platform(&clock);
    zl_test_time_us = 0;
    zl_loopnet_init(&S.net, &clock);
    S.addr_client = zl_addr_ipv4(10, 0, 0, 1, 27005);
    S.addr_server = zl_addr_ipv4(10, 0, 0, 2, 27015);
    zl_loopnet_open(&S.net, &S.ep_client, &S.addr_client, &S.raw_client);
    zl_loopnet_open(&S.net, &S.ep_server, &S.addr_server, &S.raw_server);
    zl_conditioner_init(&S.cond, &S.raw_client, seed, &S.client_hal);
    ZL_CHECK_EQ(zl_conditioner_configure(&S.cond, ZL_CONDITIONER_SEND, up), ZL_OK);
    ZL_CHECK_EQ(zl_conditioner_configure(&S.cond, ZL_CONDITIONER_RECEIVE, down), ZL_OK);
    zl_test_rng_seed(&S.rng, seed);

    fps_game_init(&S.world);
    fps_player_spawn(&S.world, &S.server);
    S.game = fps_game_interface(&S.world);
    S.game.ctx = &S; /* only run_command is used by prediction */
    S.game.run_command = watched_run;
    fps_settings(&ps);
    zl_predict_init(&S.pred, &S.game, &ps, &S.server);
    S.msec = msec;
    S.next_cmd_ms = first_cmd_ms;
    S.sending = 1;
    S.acking = 1;
}

/* ---- Server ---- */

static void server_run(sim *s, const zl_usercmd *cmd)
{
    zl_event items[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events ev;
    uint32_t i = cmd->sequence % MAX_SEQ;
    zl_events_init(&ev, items, FPS_MAX_EVENTS_PER_COMMAND);
    ev.source = 0;
    fps_run_command(&s->server, cmd, &s->server, 1, &ev);
    s->server_last = cmd->sequence;
    s->server_sig[i] = signature(&ev, 0);
    s->server_wsig[i] = signature(&ev, 1);
    s->server_fires += count_type(&ev, FPS_EV_FIRE);
}

/* A packet repeats a run of commands: the first sequence, how many, then
 * each delta-coded against the one before. Only the next one in order
 * runs; repeats are counted. Returns how many ran. */
static int server_read(sim *s, const uint8_t *buf, int len)
{
    zl_bitreader r;
    zl_usercmd prev, cmd;
    uint32_t first, n, k;
    int ran = 0;
    zl_bitreader_init(&r, buf, (size_t)len);
    first = zl_bitreader_bits(&r, 32);
    n = zl_bitreader_bits(&r, 8);
    for (k = 0; k < n; k++) {
        if (zl_usercmd_read(&r, &cmd_plan, k ? &prev : NULL, &cmd) != ZL_OK)
            return ran;
        if (k == 0)
            cmd.sequence = first;
        prev = cmd;
        if (cmd.sequence == s->server_last + 1u) {
            server_run(s, &cmd);
            ran++;
        } else if (cmd.sequence <= s->server_last) {
            s->server_dupes++;
        } else {
            s->server_gaps++;
            return ran;
        }
    }
    return ran;
}

static void server_send(sim *s)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_bitwriter w;
    int len;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, s->server_last, 32);
    zl_schema_write_delta(&fps_player_schema, &w, NULL, &s->server, ZL_SCHEMA_WIRE);
    len = zl_bitwriter_finish(&w);
    ZL_CHECK(len > 0);
    ZL_CHECK_EQ(s->raw_server.send(s->raw_server.ctx, &s->addr_client, buf, (size_t)len), ZL_OK);
    s->snapshots++;
}

static void server_frame(sim *s)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int len, ran = 0;
    if (s->server_hook)
        s->server_hook(s);
    while ((len = s->raw_server.receive(s->raw_server.ctx, &from, buf, sizeof buf)) >= 0)
        ran += server_read(s, buf, len);
    if (s->acking && (s->snap_ms ? s->t_ms % s->snap_ms == 0 : ran > 0))
        server_send(s);
}

/* ---- Client ---- */

static zl_vec3 origin_of(const void *state)
{
    return ((const fps_player *)state)->origin;
}

static zl_vec3 drawn_origin(const sim *s)
{
    fps_player out;
    zl_predict_draw(&s->pred, zl_test_time_us, &out);
    return out.origin;
}

static void client_send(sim *s)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_bitwriter w;
    uint32_t first = zl_predict_acked(&s->pred) + 1u, n = zl_predict_unacked(&s->pred), k;
    const zl_usercmd *prev = NULL;
    int len;
    if (n == 0)
        return;
    n = n > REDUNDANCY ? REDUNDANCY : n;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, first, 32);
    zl_bitwriter_bits(&w, n, 8);
    for (k = 0; k < n; k++) {
        const zl_usercmd *cmd = zl_predict_command_at(&s->pred, first + k);
        ZL_CHECK(cmd != NULL);
        zl_usercmd_write(&w, prev, cmd);
        prev = cmd;
    }
    len = zl_bitwriter_finish(&w);
    ZL_CHECK(len > 0);
    s->client_hal.send(s->client_hal.ctx, &s->addr_server, buf, (size_t)len);
}

static void client_command(sim *s)
{
    zl_event items[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events ev;
    zl_usercmd cmd;
    uint32_t i;
    int rc;
    memset(&cmd, 0, sizeof cmd);
    cmd.sequence = zl_predict_newest(&s->pred) + 1u;
    cmd.msec = s->msec;
    if (s->input)
        s->input(s, &cmd);
    i = cmd.sequence % MAX_SEQ;
    zl_events_init(&ev, items, FPS_MAX_EVENTS_PER_COMMAND);
    ev.source = 0;
    rc = zl_predict_command(&s->pred, &cmd, &ev);
    if (rc == ZL_OK) {
        s->send_ms[i] = s->t_ms;
        s->cmd_msec[i] = cmd.msec;
        s->client_sig[i] = signature(&ev, 0);
        s->client_wsig[i] = signature(&ev, 1);
        s->client_fires += count_type(&ev, FPS_EV_FIRE);
    } else {
        ZL_CHECK_EQ(rc, ZL_ERR_FULL);
        ZL_CHECK_EQ(ev.count, 0);
        s->refused++;
    }
    client_send(s);
}

static void client_read(sim *s)
{
    uint8_t buf[ZL_MAX_PACKET];
    zl_addr from;
    int len;
    while ((len = s->client_hal.receive(s->client_hal.ctx, &from, buf, sizeof buf)) >= 0) {
        zl_bitreader r;
        fps_player st;
        uint32_t acked;
        int rc;
        zl_bitreader_init(&r, buf, (size_t)len);
        acked = zl_bitreader_bits(&r, 32);
        memset(&st, 0, sizeof st); /* client-only fields do not travel */
        ZL_CHECK_EQ(zl_schema_read_delta(&fps_player_schema, &r, NULL, &st, ZL_SCHEMA_WIRE), ZL_OK);
        s->drawn_before = drawn_origin(s);
        s->offset_before = zl_predict_offset(&s->pred, zl_test_time_us);
        s->predicted_before = origin_of(zl_predict_state(&s->pred));
        rc = zl_predict_reconcile(&s->pred, acked, &st, zl_test_time_us);
        if (s->after_reconcile)
            s->after_reconcile(s, acked, rc);
    }
}

static void sim_step(sim *s)
{
    zl_test_time_us = (uint64_t)s->t_ms * 1000u;
    zl_conditioner_pump(&s->cond);
    server_frame(s);
    if (s->sending && s->t_ms >= s->next_cmd_ms) {
        client_command(s);
        s->next_cmd_ms += s->msec;
    }
    client_read(s);
    s->t_ms++;
}

static void sim_run_until(sim *s, uint32_t end_ms)
{
    while (s->t_ms < end_ms)
        sim_step(s);
}

/* Stops sampling and lets every answer arrive. */
static void sim_drain(sim *s, uint32_t ms)
{
    s->sending = 0;
    sim_run_until(s, s->t_ms + ms);
}

/* Running, strafing, turning, jumping, crouching, firing, reloading and
 * switching weapons, changed every few commands as a player would. */
static void random_input(sim *s, zl_usercmd *cmd)
{
    zl_usercmd *h = &s->held;
    zl_test_rng *rng = &s->rng;
    if (zl_test_rng_range(rng, 0, 7) == 0 || h->msec == 0) {
        h->forward = (int8_t)zl_test_rng_range(rng, -127, 127);
        h->side = (int8_t)zl_test_rng_range(rng, -127, 127);
        h->buttons = 0;
        if (zl_test_rng_range(rng, 0, 1) == 0)
            h->buttons |= FPS_BUTTON_ATTACK;
        if (zl_test_rng_range(rng, 0, 15) == 0)
            h->buttons |= FPS_BUTTON_JUMP;
        if (zl_test_rng_range(rng, 0, 9) == 0)
            h->buttons |= FPS_BUTTON_DUCK;
        if (zl_test_rng_range(rng, 0, 29) == 0)
            h->buttons |= FPS_BUTTON_RELOAD;
        h->msec = 1;
    }
    h->yaw = (zl_angle)(h->yaw + zl_test_rng_range(rng, -900, 900));
    h->pitch = (zl_angle)zl_test_rng_range(rng, -3000, 3000);
    cmd->forward = h->forward;
    cmd->side = h->side;
    cmd->buttons = h->buttons;
    cmd->yaw = h->yaw;
    cmd->pitch = h->pitch;
    cmd->weapon = zl_test_rng_range(rng, 0, 199) == 0 ? (uint8_t)zl_test_rng_range(rng, 1, 3) : 0;
    cmd->seed = (uint8_t)zl_test_rng_u32(rng);
}

/* Item 7: after a replay every kept state equals a prediction from
 * scratch, from the corrected acked state through the kept commands. */
static int history_consistent(const zl_predict *p)
{
    uint32_t seq, acked = zl_predict_acked(p), newest = zl_predict_newest(p);
    const void *base = zl_predict_state_after(p, acked);
    fps_player st;
    if (!base)
        return 0;
    memcpy(&st, base, sizeof st);
    for (seq = acked + 1u; seq != newest + 1u; seq++) {
        const void *kept = zl_predict_state_after(p, seq);
        const zl_usercmd *cmd = zl_predict_command_at(p, seq);
        if (!kept || !cmd || cmd->sequence != seq)
            return 0;
        fps_run_command(&st, cmd, &st, 0, NULL);
        if (!zl_schema_equal(&fps_player_schema, kept, &st, ZL_SCHEMA_ALL))
            return 0;
    }
    return zl_schema_equal(&fps_player_schema, zl_predict_state(p), &st, ZL_SCHEMA_ALL);
}

/* Moves the server's player without a command (a shove the client cannot
 * know about), towards the middle of the arena so it stays inside. */
static void shove(fps_player *p, int units)
{
    p->origin.x = zl_fx_add(p->origin.x, p->origin.x > 0 ? FX(-units) : FX(units));
    zl_schema_quantize(&fps_player_schema, p);
}

/* ---- Bernier's example ---- */

static uint32_t bernier_pushes, bernier_bad_rtt, bernier_bad_window, bernier_bad_replay;
static uint32_t bernier_five;

static void bernier_hook(sim *s)
{
    /* Commands arrive at 60 + 20k ms: shove just before one of them runs. */
    if (s->t_ms % 200u == 60u && s->t_ms < 3900u) {
        shove(&s->server, 4);
        bernier_pushes++;
    }
}

static void bernier_check(sim *s, uint32_t acked, int rc)
{
    if (rc < 0 || !s->sending)
        return;
    bernier_bad_rtt += s->t_ms - s->send_ms[acked % MAX_SEQ] != 100u;
    bernier_bad_window += zl_predict_unacked(&s->pred) != 5u;
    if (rc > 0) {
        bernier_bad_replay += rc != 5;
        bernier_five += rc == 5;
    }
}

/* 50 commands/s and a 100 ms round trip (50 ms each way, no jitter, no
 * loss; the server answers in the millisecond a command arrives). The ack
 * of command k, sent at t, arrives at t + 100 ms, in the frame that has
 * just sent k + 5 (at t + 5 * 20 ms): five commands are ahead of the ack,
 * and a misprediction replays exactly those five. */
static void test_bernier_five_commands(void)
{
    zl_conditioner_settings up = lane(50, 0, 0), down = lane(50, 0, 0);
    const zl_predict_stats *st;
    bernier_pushes = bernier_bad_rtt = bernier_bad_window = bernier_bad_replay = 0;
    bernier_five = 0;
    sim_setup(11, &up, &down, 20, 10);
    S.input = random_input;
    S.server_hook = bernier_hook;
    S.after_reconcile = bernier_check;
    sim_run_until(&S, 4000);
    sim_drain(&S, 300);
    st = zl_predict_get_stats(&S.pred);
    ZL_CHECK_EQ(bernier_pushes, 20);
    ZL_CHECK_EQ(st->mispredicted, bernier_pushes);
    ZL_CHECK_EQ(bernier_five, bernier_pushes);
    ZL_CHECK_EQ(st->replayed, 5u * bernier_pushes);
    ZL_CHECK_EQ(bernier_bad_replay, 0);
    ZL_CHECK_EQ(bernier_bad_rtt, 0);
    ZL_CHECK_EQ(bernier_bad_window, 0);
    /* Commands 1 .. 200 at 10 + 20k ms, every one answered. */
    ZL_CHECK_EQ(zl_predict_newest(&S.pred), 200);
    ZL_CHECK_EQ(st->reconciled, 200);
    ZL_CHECK_EQ(zl_predict_acked(&S.pred), 200);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, zl_predict_state(&S.pred), &S.server,
                             ZL_SCHEMA_WIRE));
    zl_test_note("%u reconciliations, %u mispredictions, each replaying 5 of 5 unacked",
                 (unsigned)st->reconciled, (unsigned)st->mispredicted);
}

/* ---- Zero mispredictions under 200 ms latency, jitter and 10% loss ---- */

static uint32_t soak_max_unacked;

static void soak_check(sim *s, uint32_t acked, int rc)
{
    uint32_t u = zl_predict_unacked(&s->pred);
    (void)acked;
    (void)rc;
    soak_max_unacked = u > soak_max_unacked ? u : soak_max_unacked;
}

static uint32_t sig_mismatches(const sim *s, uint32_t newest, int weapons_only)
{
    uint32_t seq, bad = 0;
    for (seq = 1; seq <= newest; seq++) {
        uint32_t i = seq % MAX_SEQ;
        if (weapons_only)
            bad += s->client_wsig[i] != s->server_wsig[i];
        else
            bad += s->client_sig[i] != s->server_sig[i];
        bad += s->first_runs[i] != 1u;
    }
    return bad;
}

/* Only deterministic movement and weapons: the server computes exactly
 * what the client predicted, whatever the network does to the packets. */
static void test_zero_mispredictions_soak(void)
{
    uint32_t commands = scenario_len(10000u, 2000u);
    zl_conditioner_settings up = lane(200, 50, 100000), down = lane(200, 50, 100000);
    const zl_predict_stats *st;
    const zl_conditioner_stats *cu, *cd;
    uint64_t mean_us;
    fps_player drawn;
    down.duplicate_ppm = 20000;
    down.reorder_ppm = 20000;
    down.reorder_delay_us = 40000;
    soak_max_unacked = 0;
    sim_setup(4242, &up, &down, 16, 0);
    S.input = random_input;
    S.snap_ms = 15;
    S.after_reconcile = soak_check;
    while (zl_predict_newest(&S.pred) < commands)
        sim_step(&S);
    sim_drain(&S, 2000);
    st = zl_predict_get_stats(&S.pred);
    cu = zl_conditioner_get_stats(&S.cond, ZL_CONDITIONER_SEND);
    cd = zl_conditioner_get_stats(&S.cond, ZL_CONDITIONER_RECEIVE);

    ZL_CHECK_EQ(st->mispredicted, 0);
    ZL_CHECK_EQ(st->replayed, 0);
    ZL_CHECK_EQ(st->refused_full, 0);
    ZL_CHECK_EQ(st->resyncs, 0);
    ZL_CHECK_EQ(S.replays, 0);
    ZL_CHECK_EQ(S.server_last, commands);
    ZL_CHECK_EQ(zl_predict_acked(&S.pred), commands);
    ZL_CHECK(st->reconciled > 0);
    /* Copies and held-back snapshots show up as ignored acks. */
    ZL_CHECK(st->ignored > 0);
    ZL_CHECK(cd->duplicated > 0 && cd->reordered > 0);
    /* Every effect of every command, fired once, equal to the server's. */
    ZL_CHECK_EQ(sig_mismatches(&S, commands, 0), 0);
    ZL_CHECK_EQ(S.client_fires, S.server_fires);
    ZL_CHECK(S.server_fires > 0);
    /* The conditioner really lost about 10% and delayed about 200 ms. */
    ZL_CHECK(cu->dropped_loss + cu->seen / 20u + 10u >= cu->seen / 10u);
    ZL_CHECK(cu->dropped_loss <= cu->seen / 10u + cu->seen / 20u + 10u);
    ZL_CHECK(cd->dropped_loss + cd->seen / 20u + 10u >= cd->seen / 10u);
    ZL_CHECK(cd->dropped_loss <= cd->seen / 10u + cd->seen / 20u + 10u);
    mean_us = cu->delivered ? cu->delay_total_us / cu->delivered : 0;
    ZL_CHECK(mean_us >= 190000u && mean_us <= 260000u);
    ZL_CHECK(S.server_dupes > 0); /* redundancy did the work of lost packets */
    ZL_CHECK(soak_max_unacked < ZL_PREDICT_COMMANDS);
    zl_predict_draw(&S.pred, zl_test_time_us, &drawn);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, &drawn, zl_predict_state(&S.pred), ZL_SCHEMA_ALL));
    zl_test_note("%u commands, %u acks (%u ignored), uplink loss %u/%u, mean delay %u us, "
                 "max unacked %u, %u shots",
                 (unsigned)commands, (unsigned)st->reconciled, (unsigned)st->ignored,
                 (unsigned)cu->dropped_loss, (unsigned)cu->seen, (unsigned)mean_us,
                 (unsigned)soak_max_unacked, (unsigned)S.server_fires);
}

/* ---- A shove the client could not know: corrected, then smoothed ---- */

static uint32_t push_times[4], push_count, fix_times[4], fix_count, fix_bad;

static void push_hook(sim *s)
{
    if (s->t_ms == 1000u || s->t_ms == 1030u) {
        shove(&s->server, 24);
        push_times[push_count++] = s->t_ms;
    }
}

/* Standing still, a shove of 24 units moves the whole prediction by
 * exactly that: the drawn origin must not move at the instant of the
 * correction, so the offset grows by exactly -24 units in x. */
static void push_check(sim *s, uint32_t acked, int rc)
{
    zl_vec3 off = zl_predict_offset(&s->pred, zl_test_time_us);
    (void)acked;
    if (rc <= 0)
        return;
    if (fix_count < 4)
        fix_times[fix_count++] = s->t_ms;
    fix_bad += !zl_vec3_equal(drawn_origin(s), s->drawn_before);
    fix_bad += off.x != s->offset_before.x - FX(24) || off.y != s->offset_before.y ||
               off.z != s->offset_before.z;
    fix_bad += !history_consistent(&s->pred);
}

static void test_push_corrected_and_smoothed(void)
{
    zl_conditioner_settings up = lane(50, 0, 0), down = lane(50, 0, 0);
    const zl_predict_stats *st;
    int32_t last = INT32_MIN;
    uint32_t t0, bad_decay = 0, bad_draw = 0;
    push_count = fix_count = fix_bad = 0;
    sim_setup(7, &up, &down, 16, 0);
    S.server_hook = push_hook;
    S.after_reconcile = push_check;
    sim_run_until(&S, 1000);
    ZL_CHECK_EQ(zl_predict_get_stats(&S.pred)->mispredicted, 0);
    /* Run until the second correction has been applied. */
    while (fix_count < 2 && S.t_ms < 2000)
        sim_step(&S);
    ZL_CHECK_EQ(push_count, 2);
    ZL_CHECK_EQ(fix_count, 2);
    ZL_CHECK_EQ(fix_bad, 0);
    /* Each correction arrives within one round trip of its shove. */
    ZL_CHECK(fix_times[0] - push_times[0] <= 100u);
    ZL_CHECK(fix_times[1] - push_times[1] <= 100u);
    /* The second came while the first was still fading: the remainder of
     * the first is part of the offset (checked in push_check), so it is
     * larger than one shove. */
    ZL_CHECK(fix_times[1] - fix_times[0] < 100u);
    /* From the second correction the offset fades linearly to zero over
     * 100 ms: against a double-precision line, within one raw unit, never
     * growing, and the drawn origin is always prediction plus offset. */
    t0 = fix_times[1];
    {
        double start = (double)zl_predict_offset(&S.pred, (uint64_t)t0 * 1000u).x;
        ZL_CHECK(start < (double)FX(-24));
        for (; S.t_ms <= t0 + 120u;) {
            uint64_t now = (uint64_t)S.t_ms * 1000u;
            zl_vec3 off = zl_predict_offset(&S.pred, now);
            double el = (double)(now - (uint64_t)t0 * 1000u);
            double want = el >= 100000.0 ? 0.0 : start * (1.0 - el / 100000.0);
            double diff = (double)off.x - want;
            zl_vec3 d = origin_of(zl_predict_state(&S.pred));
            bad_decay += diff > 1.0 || diff < -1.0 || off.y != 0 || off.z != 0;
            bad_decay += off.x < last; /* negative and shrinking */
            last = off.x;
            zl_test_time_us = now;
            bad_draw += !zl_vec3_equal(drawn_origin(&S), zl_vec3_add(d, off));
            sim_step(&S);
        }
    }
    ZL_CHECK_EQ(bad_decay, 0);
    ZL_CHECK_EQ(bad_draw, 0);
    ZL_CHECK_EQ(zl_predict_offset(&S.pred, (uint64_t)(t0 + 100u) * 1000u).x, 0);
    ZL_CHECK_EQ(zl_predict_offset(&S.pred, (uint64_t)(t0 + 99u) * 1000u).x < 0, 1);
    sim_drain(&S, 300);
    st = zl_predict_get_stats(&S.pred);
    ZL_CHECK_EQ(st->mispredicted, 2);
    ZL_CHECK_EQ(st->snaps, 0);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, zl_predict_state(&S.pred), &S.server,
                             ZL_SCHEMA_WIRE));
    zl_test_note("shoves at %u, %u ms corrected at %u, %u ms; offset %d raw at the second",
                 (unsigned)push_times[0], (unsigned)push_times[1], (unsigned)fix_times[0],
                 (unsigned)fix_times[1],
                 (int)zl_predict_offset(&S.pred, (uint64_t)t0 * 1000u).x);
}

/* ---- Respawns, teleports and large corrections snap ---- */

static uint32_t snap_step, snap_bad;
static uint32_t snaps_seen[4];

static void snap_hook(sim *s)
{
    switch (s->t_ms) {
    case 1000: /* a long shove: beyond snap_distance */
        shove(&s->server, 100);
        break;
    case 1500: /* a short one, but the teleport counter moved */
        shove(&s->server, 10);
        s->server.teleport++;
        break;
    case 2000: /* a short one: smoothed */
        shove(&s->server, 10);
        break;
    case 2500: /* death and respawn elsewhere */
        fps_player_spawn(&s->world, &s->server);
        break;
    default:
        break;
    }
}

static void snap_check(sim *s, uint32_t acked, int rc)
{
    (void)acked;
    if (rc <= 0 || snap_step >= 4)
        return;
    snaps_seen[snap_step++] = zl_predict_get_stats(&s->pred)->snaps;
    /* Snapped: the drawn origin is the prediction itself. */
    if (snap_step != 3)
        snap_bad += !zl_vec3_equal(drawn_origin(s), origin_of(zl_predict_state(&s->pred)));
    else
        snap_bad += !zl_vec3_equal(drawn_origin(s), s->drawn_before);
}

static void test_respawn_snaps(void)
{
    zl_conditioner_settings up = lane(40, 0, 0), down = lane(40, 0, 0);
    const zl_predict_stats *st;
    const fps_player *now;
    snap_step = snap_bad = 0;
    sim_setup(99, &up, &down, 16, 0);
    S.snap_ms = 20;
    S.server_hook = snap_hook;
    S.after_reconcile = snap_check;
    sim_run_until(&S, 2800);
    sim_drain(&S, 200);
    st = zl_predict_get_stats(&S.pred);
    ZL_CHECK_EQ(st->mispredicted, 4);
    ZL_CHECK_EQ(snap_step, 4);
    ZL_CHECK_EQ(snaps_seen[0], 1);
    ZL_CHECK_EQ(snaps_seen[1], 2);
    ZL_CHECK_EQ(snaps_seen[2], 2);
    ZL_CHECK_EQ(snaps_seen[3], 3);
    ZL_CHECK_EQ(snap_bad, 0);
    now = (const fps_player *)zl_predict_state(&S.pred);
    ZL_CHECK_EQ(now->teleport, 3); /* spawned once at start, bumped, respawned */
    ZL_CHECK(zl_schema_equal(&fps_player_schema, now, &S.server, ZL_SCHEMA_WIRE));
}

/* ---- Every effect once per command across any number of replays ---- */

static uint32_t knock_count, history_bad;

static void knock_hook(sim *s)
{
    if (s->t_ms % 251u == 0 && s->t_ms > 0) {
        fps_player *p = &s->server;
        p->velocity.x = zl_fx_add(p->velocity.x, p->origin.x > 0 ? FX(-200) : FX(200));
        p->velocity.z = zl_fx_add(p->velocity.z, FX(100));
        zl_schema_quantize(&fps_player_schema, p);
        knock_count++;
    }
}

static void knock_check(sim *s, uint32_t acked, int rc)
{
    (void)acked;
    if (rc > 0)
        history_bad += !history_consistent(&s->pred);
}

static void test_effects_once_across_replays(void)
{
    uint32_t commands = scenario_len(2000u, 1000u);
    zl_conditioner_settings up = lane(60, 10, 50000), down = lane(60, 10, 50000);
    const zl_predict_stats *st;
    uint32_t newest;
    knock_count = history_bad = 0;
    sim_setup(2024, &up, &down, 16, 0);
    S.input = random_input;
    S.snap_ms = 20;
    S.server_hook = knock_hook;
    S.after_reconcile = knock_check;
    S.count_replay_only = 1;
    while (zl_predict_newest(&S.pred) < commands)
        sim_step(&S);
    S.server_hook = NULL;
    sim_drain(&S, 500);
    st = zl_predict_get_stats(&S.pred);
    newest = zl_predict_newest(&S.pred);
    ZL_CHECK(st->mispredicted > knock_count / 2u);
    ZL_CHECK(st->replayed > st->mispredicted);
    ZL_CHECK_EQ(S.replays, st->replayed);
    ZL_CHECK_EQ(S.replay_sinks, 0);
    ZL_CHECK_EQ(history_bad, 0);
    /* One first prediction per command, and its weapon effects equal the
     * server's shot for shot, however often the command was replayed. */
    ZL_CHECK_EQ(sig_mismatches(&S, newest, 1), 0);
    ZL_CHECK_EQ(S.client_fires, S.server_fires);
    ZL_CHECK(S.server_fires > 0);
    /* Replays would have fired effects the first prediction did not (or
     * not the same): none of them reached the client's sink. */
    ZL_CHECK(S.replay_only > 0);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, zl_predict_state(&S.pred), &S.server,
                             ZL_SCHEMA_WIRE));
    zl_test_note("%u commands, %u knocks, %u mispredictions, %u replayed, %u shots, "
                 "%u replay-only effect sets withheld",
                 (unsigned)newest, (unsigned)knock_count, (unsigned)st->mispredicted,
                 (unsigned)st->replayed, (unsigned)S.server_fires, (unsigned)S.replay_only);
}

/* ---- The server stops answering: the ring fills, prediction stops ---- */

/* The server falls silent at 500 ms, long enough for the ring to fill
 * (8 ms commands) with 50 to spare, and speaks again 100 ms after. */
#define RING_FULL_MS (500u + (ZL_PREDICT_COMMANDS + 50u) * 8u)
static void silence_hook(sim *s)
{
    if (s->t_ms == 500u)
        s->acking = 0;
    if (s->t_ms == RING_FULL_MS + 100u)
        s->acking = 1;
}

static void test_ring_full_when_server_silent(void)
{
    zl_conditioner_settings up = lane(50, 0, 0), down = lane(50, 0, 0);
    const zl_predict_stats *st;
    uint32_t newest_at_full, acked_at_full, seq, kept_bad = 0;
    sim_setup(5, &up, &down, 8, 0);
    S.input = random_input;
    S.snap_ms = 16;
    S.server_hook = silence_hook;
    sim_run_until(&S, RING_FULL_MS);
    st = zl_predict_get_stats(&S.pred);
    acked_at_full = zl_predict_acked(&S.pred);
    newest_at_full = zl_predict_newest(&S.pred);
    /* Full: every slot unacknowledged, nothing overwritten, every refusal
     * counted and reported to the caller. */
    ZL_CHECK_EQ(zl_predict_unacked(&S.pred), ZL_PREDICT_COMMANDS);
    ZL_CHECK_EQ(newest_at_full - acked_at_full, ZL_PREDICT_COMMANDS);
    ZL_CHECK(st->refused_full > 0);
    ZL_CHECK_EQ(st->refused_full, S.refused);
    ZL_CHECK_EQ(st->predicted + st->refused_full, RING_FULL_MS / 8u + 1u);
    ZL_CHECK(zl_predict_state_after(&S.pred, acked_at_full) == NULL); /* slot reused */
    for (seq = acked_at_full + 1u; seq != newest_at_full + 1u; seq++) {
        const zl_usercmd *c = zl_predict_command_at(&S.pred, seq);
        kept_bad += !c || c->sequence != seq || !zl_predict_state_after(&S.pred, seq);
    }
    ZL_CHECK_EQ(kept_bad, 0);
    ZL_CHECK(S.server_last <= newest_at_full);
    /* Answers resume: prediction resumes, nothing was mispredicted. */
    sim_run_until(&S, RING_FULL_MS + 2100u);
    ZL_CHECK(zl_predict_newest(&S.pred) > newest_at_full);
    ZL_CHECK(zl_predict_unacked(&S.pred) < 20u);
    sim_drain(&S, 300);
    ZL_CHECK_EQ(st->mispredicted, 0);
    ZL_CHECK_EQ(zl_predict_acked(&S.pred), zl_predict_newest(&S.pred));
    ZL_CHECK_EQ(S.server_last, zl_predict_newest(&S.pred));
    zl_test_note("%u commands refused while %u were unacknowledged", (unsigned)st->refused_full,
                 (unsigned)ZL_PREDICT_COMMANDS);
}

/* ---- Changing the command rate at run time: 8, 16 then 33 ms ---- */

static uint32_t rate_bad_rtt, rate_steady[3], rate_bad_window;

static void rate_check(sim *s, uint32_t acked, int rc)
{
    uint32_t seq, newest = zl_predict_newest(&s->pred), m = s->cmd_msec[acked % MAX_SEQ];
    int same = 1;
    if (rc < 0 || !s->sending)
        return;
    rate_bad_rtt += s->t_ms - s->send_ms[acked % MAX_SEQ] != 100u;
    for (seq = acked; seq != newest + 1u; seq++)
        same &= s->cmd_msec[seq % MAX_SEQ] == m;
    if (!same)
        return;
    /* Commands at t, t + m, ... up to the newest and the one after it: those
     * sent in (t, t + 100] are ahead. */
    rate_bad_window += zl_predict_unacked(&s->pred) != 100u / m;
    rate_steady[m == 8 ? 0 : m == 16 ? 1 : 2]++;
}

static void test_command_rate_change(void)
{
    zl_conditioner_settings up = lane(50, 0, 0), down = lane(50, 0, 0);
    const zl_predict_stats *st;
    rate_bad_rtt = rate_bad_window = 0;
    memset(rate_steady, 0, sizeof rate_steady);
    sim_setup(33, &up, &down, 8, 0);
    S.input = random_input;
    S.after_reconcile = rate_check;
    sim_run_until(&S, 1000);
    S.msec = 16;
    sim_run_until(&S, 2000);
    S.msec = 33;
    sim_run_until(&S, 3000);
    sim_drain(&S, 300);
    st = zl_predict_get_stats(&S.pred);
    ZL_CHECK_EQ(st->mispredicted, 0);
    ZL_CHECK_EQ(rate_bad_rtt, 0);
    ZL_CHECK_EQ(rate_bad_window, 0);
    ZL_CHECK(rate_steady[0] > 50 && rate_steady[1] > 30 && rate_steady[2] > 15);
    ZL_CHECK_EQ(zl_predict_acked(&S.pred), zl_predict_newest(&S.pred));
    zl_test_note("steady windows checked: %u at 8 ms (12 ahead), %u at 16 (6), %u at 33 (3)",
                 (unsigned)rate_steady[0], (unsigned)rate_steady[1], (unsigned)rate_steady[2]);
}

/* ---- Direct tests of the API, without a network ---- */

static zl_game unit_game;
static fps_game unit_world;
static zl_predict P;
static fps_player start;
static zl_usercmd cmds[ZL_PREDICT_COMMANDS + 8];

static zl_usercmd walk_cmd(uint32_t seq)
{
    zl_usercmd c;
    memset(&c, 0, sizeof c);
    c.sequence = seq;
    c.msec = 16;
    c.forward = 127;
    c.yaw = (zl_angle)(ZL_ANGLE_DEG(45) + seq * 50u);
    c.buttons = (seq % 10 == 0) ? FPS_BUTTON_ATTACK : 0;
    return c;
}

static void unit_setup(uint32_t smooth_us)
{
    zl_predict_settings ps;
    fps_game_init(&unit_world);
    memset(&start, 0, sizeof start);
    fps_player_spawn(&unit_world, &start);
    unit_game = fps_game_interface(&unit_world);
    fps_settings(&ps);
    ps.smooth_us = smooth_us;
    zl_predict_init(&P, &unit_game, &ps, &start);
}

/* Predicts commands first .. last; returns how many were accepted. */
static int predict_range(uint32_t first, uint32_t last)
{
    uint32_t seq;
    int ok = 0;
    for (seq = first; seq != last + 1u; seq++) {
        zl_usercmd c = walk_cmd(seq);
        cmds[seq % ZL_COUNTOF(cmds)] = c;
        ok += zl_predict_command(&P, &c, NULL) == ZL_OK;
    }
    return ok;
}

/* What the server computes for commands first .. last from `from`. */
static fps_player server_chain(fps_player from, uint32_t first, uint32_t last)
{
    uint32_t seq;
    for (seq = first; seq != last + 1u; seq++) {
        zl_usercmd c = walk_cmd(seq);
        fps_run_command(&from, &c, &from, 1, NULL);
    }
    return from;
}

static void test_prediction_matches_rules(void)
{
    zl_event items[FPS_MAX_EVENTS_PER_COMMAND];
    zl_events ev;
    zl_usercmd c;
    fps_player want;
    unit_setup(100000);
    ZL_CHECK_EQ(zl_schema_validate(&fps_player_schema), ZL_OK);
    ZL_CHECK_EQ(predict_range(1, 9), 9);
    want = server_chain(start, 1, 9);
    ZL_CHECK(memcmp(zl_predict_state(&P), &want, sizeof want) == 0);
    ZL_CHECK_EQ(zl_predict_newest(&P), 9);
    ZL_CHECK_EQ(zl_predict_acked(&P), 0);
    ZL_CHECK_EQ(zl_predict_unacked(&P), 9);
    /* Command 10 attacks: its shot is in the caller's sink at once. */
    zl_events_init(&ev, items, FPS_MAX_EVENTS_PER_COMMAND);
    c = walk_cmd(10);
    ZL_CHECK_EQ(zl_predict_command(&P, &c, &ev), ZL_OK);
    ZL_CHECK_EQ(count_type(&ev, FPS_EV_FIRE), 1);
    /* Misuse: a gap, a repeat, an invalid command; nothing runs. */
    c = walk_cmd(12);
    ZL_CHECK_EQ(zl_predict_command(&P, &c, NULL), ZL_ERR_INVALID);
    c = walk_cmd(10);
    ZL_CHECK_EQ(zl_predict_command(&P, &c, NULL), ZL_ERR_INVALID);
    c = walk_cmd(11);
    c.msec = 0;
    ZL_CHECK_EQ(zl_predict_command(&P, &c, NULL), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_predict_newest(&P), 10);
    ZL_CHECK_EQ(zl_predict_get_stats(&P)->predicted, 10);
    ZL_CHECK(zl_predict_state_after(&P, 11) == NULL);
    ZL_CHECK(zl_predict_command_at(&P, 11) == NULL);
    ZL_CHECK(zl_predict_command_at(&P, 0) == NULL);
    ZL_CHECK(zl_predict_state_after(&P, 0) != NULL);
}

static void test_ring_full_unit(void)
{
    const zl_predict_stats *st;
    fps_player acked;
    unit_setup(100000);
    ZL_CHECK_EQ(predict_range(1, ZL_PREDICT_COMMANDS), ZL_PREDICT_COMMANDS);
    ZL_CHECK(zl_predict_state_after(&P, 0) == NULL); /* its slot now holds the newest */
    ZL_CHECK_EQ(predict_range(ZL_PREDICT_COMMANDS + 1u, ZL_PREDICT_COMMANDS + 1u), 0);
    st = zl_predict_get_stats(&P);
    ZL_CHECK_EQ(st->refused_full, 1);
    ZL_CHECK_EQ(zl_predict_newest(&P), ZL_PREDICT_COMMANDS);
    ZL_CHECK_EQ(zl_predict_command_at(&P, 1)->sequence, 1); /* not overwritten */
    acked = server_chain(start, 1, 1);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, 1, &acked, 0), 0);
    ZL_CHECK_EQ(predict_range(ZL_PREDICT_COMMANDS + 1u, ZL_PREDICT_COMMANDS + 1u), 1);
    ZL_CHECK_EQ(zl_predict_unacked(&P), ZL_PREDICT_COMMANDS);
}

static void test_stale_duplicate_reordered_acks(void)
{
    const zl_predict_stats *st;
    fps_player s4, s20;
    uint32_t base = 0xFFFFFFF0u; /* across the wrap of the sequence space */
    unit_setup(100000);
    zl_predict_reset(&P, base, &start);
    ZL_CHECK_EQ(predict_range(base + 1u, base + 30u), 30);
    s4 = server_chain(start, base + 1u, base + 4u);
    s20 = server_chain(s4, base + 5u, base + 20u);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, base + 4u, &s4, 0), 0);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, base + 4u, &s4, 0), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, base + 2u, &s4, 0), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, base + 20u, &s20, 0), 0); /* past the wrap */
    ZL_CHECK_EQ(zl_predict_acked(&P), base + 20u);
    ZL_CHECK_EQ(zl_predict_acked(&P), 4u);
    /* A late, older snapshot carrying a wrong state changes nothing. */
    s4.origin.x = zl_fx_add(s4.origin.x, FX(50));
    ZL_CHECK_EQ(zl_predict_reconcile(&P, base + 10u, &s4, 0), ZL_ERR_DUPLICATE);
    st = zl_predict_get_stats(&P);
    ZL_CHECK_EQ(st->ignored, 3);
    ZL_CHECK_EQ(st->reconciled, 2);
    ZL_CHECK_EQ(st->mispredicted, 0);
    ZL_CHECK_EQ(zl_predict_unacked(&P), 10);
    ZL_CHECK(history_consistent(&P));
}

static void test_resync_on_ack_beyond_newest(void)
{
    const zl_predict_stats *st;
    fps_player far;
    zl_usercmd c;
    unit_setup(100000);
    ZL_CHECK_EQ(predict_range(1, 5), 5);
    far = server_chain(start, 1, 40);
    far.step_time = 0;
    ZL_CHECK_EQ(zl_predict_reconcile(&P, 50, &far, 1000), 0);
    st = zl_predict_get_stats(&P);
    ZL_CHECK_EQ(st->resyncs, 1);
    ZL_CHECK_EQ(st->reconciled, 0);
    ZL_CHECK_EQ(zl_predict_newest(&P), 50);
    ZL_CHECK_EQ(zl_predict_acked(&P), 50);
    ZL_CHECK_EQ(zl_predict_unacked(&P), 0);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, zl_predict_state(&P), &far, ZL_SCHEMA_WIRE));
    ZL_CHECK(zl_predict_state_after(&P, 5) == NULL);
    ZL_CHECK(zl_predict_state_after(&P, 50) != NULL);
    /* Numbering continues after the ack. */
    c = walk_cmd(6);
    ZL_CHECK_EQ(zl_predict_command(&P, &c, NULL), ZL_ERR_INVALID);
    ZL_CHECK_EQ(predict_range(51, 52), 2);
    ZL_CHECK_EQ(zl_predict_reconcile(&P, 50, &far, 1000), ZL_ERR_DUPLICATE);
}

/* Bernier's intermediate results: step_time is client-only. The server's
 * value never travels; the kept prediction's value must survive a
 * correction and feed the replay. */
static void test_local_fields_carried_over(void)
{
    fps_player wire, kept8;
    const fps_player *after;
    int rc;
    unit_setup(100000);
    ZL_CHECK_EQ(predict_range(1, 20), 20);
    memcpy(&kept8, zl_predict_state_after(&P, 8), sizeof kept8);
    ZL_CHECK(kept8.step_time != 0); /* walking: a footstep is pending */
    /* What arrives: the wire fields of the server's state, a shove of one
     * unit, local fields zero. */
    memset(&wire, 0, sizeof wire);
    {
        fps_player srv = server_chain(start, 1, 8);
        srv.step_time = 999;
        srv.origin.y = zl_fx_add(srv.origin.y, FX(1));
        zl_schema_copy(&fps_player_schema, &wire, &srv, ZL_SCHEMA_WIRE);
    }
    ZL_CHECK_EQ(wire.step_time, 0);
    rc = zl_predict_reconcile(&P, 8, &wire, 5000);
    ZL_CHECK_EQ(rc, 12);
    after = (const fps_player *)zl_predict_state_after(&P, 8);
    ZL_CHECK_EQ(after->step_time, kept8.step_time);
    ZL_CHECK(zl_schema_equal(&fps_player_schema, after, &wire, ZL_SCHEMA_WIRE));
    ZL_CHECK(history_consistent(&P));
    /* A right prediction arrives with its local field zeroed by the wire:
     * it is no misprediction and the kept local value stays. */
    {
        uint16_t kept12 = ((const fps_player *)zl_predict_state_after(&P, 12))->step_time;
        memcpy(&wire, zl_predict_state_after(&P, 12), sizeof wire);
        wire.step_time = 0;
        ZL_CHECK_EQ(zl_predict_reconcile(&P, 12, &wire, 6000), 0);
        ZL_CHECK_EQ(zl_predict_get_stats(&P)->mispredicted, 1);
        ZL_CHECK_EQ(((const fps_player *)zl_predict_state_after(&P, 12))->step_time, kept12);
    }
}

static void test_smoothing_off(void)
{
    fps_player srv, drawn;
    unit_setup(0);
    ZL_CHECK_EQ(predict_range(1, 10), 10);
    srv = server_chain(start, 1, 3);
    srv.origin.x = zl_fx_add(srv.origin.x, FX(5));
    ZL_CHECK_EQ(zl_predict_reconcile(&P, 3, &srv, 1000), 7);
    ZL_CHECK(zl_vec3_equal(zl_predict_offset(&P, 1000), zl_vec3_make(0, 0, 0)));
    zl_predict_draw(&P, 1000, &drawn);
    ZL_CHECK(memcmp(&drawn, zl_predict_state(&P), sizeof drawn) == 0);
    ZL_CHECK_EQ(zl_predict_get_stats(&P)->snaps, 0);
}

void zl_suite_predict(void)
{
    (void)zl_schema_plan_init(&cmd_plan, &zl_usercmd_schema);
    ZL_RUN(test_prediction_matches_rules);
    ZL_RUN(test_ring_full_unit);
    ZL_RUN(test_stale_duplicate_reordered_acks);
    ZL_RUN(test_resync_on_ack_beyond_newest);
    ZL_RUN(test_local_fields_carried_over);
    ZL_RUN(test_smoothing_off);
    ZL_RUN(test_bernier_five_commands);
    ZL_RUN(test_zero_mispredictions_soak);
    ZL_RUN(test_push_corrected_and_smoothed);
    ZL_RUN(test_respawn_snaps);
    ZL_RUN(test_effects_once_across_replays);
    ZL_RUN(test_ring_full_when_server_silent);
    ZL_RUN(test_command_rate_change);
}
