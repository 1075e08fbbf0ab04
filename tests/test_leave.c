/* test_leave.c - players leave (timing out, kicked, saying goodbye) while
 * others shoot at them: no shot or blast reaches a free slot, in the tick
 * of the leave or after, and slots churn through a minute of joins. */
#include <string.h>

#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

#if ZL_SIM_AVAILABLE

#define VICTIM 0
#define SHOOTERS 3
#define FRAME_MS (ZL_SIM_FRAME_US / 1000u)
/* Leaves of each kind; enough that shots land in the tick of a leave and
 * in the one after (asserted) at this fire rate. */
#define CYCLES 12
#define CHURN_US 60000000u
#define CHURN_EVERY_US 250000u
#define CHURN_CLIENTS 10

static zl_sim *const S = &zl_sim_world;

/* What the referee saw, tick by tick. */
typedef struct watch {
    uint32_t hits;          /* HIT events on a player */
    uint32_t on_free;       /* HIT or KILL events on a slot nobody holds */
    int slot;               /* the victim's slot: kept alive, its free watched */
    uint32_t freed_before;  /* the free came before tick freed_before + 1 */
    uint8_t freeing;        /* the two ticks after a free are being watched */
    uint32_t shots_same;    /* shots traced in the first tick after a free */
    uint32_t shots_next;    /* and in the tick after that */
} watch;

static watch w;
/* Slot each shooter aims at (-1: none), in server order. */
static int aim_slot[ZL_SIM_CLIENTS];

static fps_player *server_player(int slot)
{
    return (fps_player *)S->server.players + slot;
}

/* Stands still: keeps its connection alive, never fires. */
static int idle_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    (void)sim;
    (void)i;
    cmd->msec = (uint16_t)FRAME_MS;
    return 1;
}

/* Aims at the body of its target as the server has it now (a test may
 * cheat), fires whenever its own prediction says the rifle is ready. */
static int shooter_bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    const fps_player *me = (const fps_player *)zl_client_predicted(&sim->c[i].client);
    int target = aim_slot[i];
    cmd->msec = (uint16_t)FRAME_MS;
    if (!me || target < 0 || (me->flags & (FPS_PF_DEAD | FPS_PF_RELOADING)))
        return 1;
    {
        zl_vec3 eye = fps_player_eye(me), at = server_player(target)->origin, to;
        zl_fx flat;
        at.z += ZL_FX_INT(30);
        to = zl_vec3_sub(at, eye);
        flat = zl_vec3_length(zl_vec3_make(to.x, to.y, 0));
        cmd->yaw = zl_atan2(to.y, to.x);
        cmd->pitch = zl_atan2(to.z, flat);
    }
    if (me->clip[me->weapon] == 0)
        cmd->buttons |= FPS_BUTTON_RELOAD;
    else if (me->weapon_time <= cmd->msec)
        cmd->buttons |= FPS_BUTTON_ATTACK;
    return 1;
}

/* Keeps the victim alive so it stays a target (body shots: at most
 * three rifles' 25 each between two steps). */
static void heal(int slot)
{
    if (slot >= 0 && zl_server_connected(&S->server, slot))
        server_player(slot)->health = FPS_HEALTH_MAX;
}

/* Counts the shots of the two ticks after the victim's slot was freed:
 * `before` is the last tick run before the free. */
static void watch_free(uint32_t before)
{
    w.freeing = 1;
    w.freed_before = before;
}

/* One step of the simulation, refereed: every tick's events are checked
 * against the slots held. A leave or a timeout frees a slot inside the
 * step, before that step's tick runs. */
static void step(void)
{
    uint32_t before = S->server.tick, n, k;
    const zl_events *ev;
    int held = w.slot >= 0 && zl_server_connected(&S->server, w.slot);
    heal(w.slot);
    zl_sim_step(S);
    if (held && !zl_server_connected(&S->server, w.slot))
        watch_free(before);
    if (S->server.tick == before)
        return;
    ZL_CHECK_EQ(S->server.tick - before, 1); /* no tick's events unseen */
    ev = zl_server_events(&S->server);
    for (k = 0; k < ev->count; k++) {
        const zl_event *e = &ev->items[k];
        if ((e->type != FPS_EV_HIT && e->type != FPS_EV_KILL) || e->target < 0)
            continue;
        w.hits += e->type == FPS_EV_HIT;
        w.on_free += !zl_server_connected(&S->server, e->target);
    }
    if (!w.freeing)
        return;
    (void)zl_server_shots(&S->server, &n, NULL);
    if (S->server.tick == w.freed_before + 1u)
        w.shots_same += n;
    else if (S->server.tick == w.freed_before + 2u)
        w.shots_next += n;
    else
        w.freeing = 0;
}

/* Steps until cond(arg) holds or us pass; returns whether it held. */
static int step_until(int (*cond)(int), int arg, uint64_t us)
{
    uint64_t end = zl_test_time_us + us;
    while (zl_test_time_us < end) {
        if (cond(arg))
            return 1;
        step();
    }
    return cond(arg);
}

static int connected(int i)
{
    return zl_sim_connected(S, i);
}

static int slot_free(int slot)
{
    return !zl_server_connected(&S->server, slot);
}

static void run_for(uint64_t us)
{
    uint64_t end = zl_test_time_us + us;
    while (zl_test_time_us < end)
        step();
}

static void start_match(uint64_t seed)
{
    int i;
    zl_sim_init(S, SHOOTERS + 1, NULL, NULL, seed);
    memset(&w, 0, sizeof w);
    w.slot = -1;
    zl_sim_join(S, VICTIM, idle_bot);
    ZL_CHECK(step_until(connected, VICTIM, 1000000u));
    for (i = 1; i <= SHOOTERS; i++) {
        aim_slot[i] = zl_client_slot(&S->c[VICTIM].client);
        zl_sim_join(S, i, shooter_bot);
        ZL_CHECK(step_until(connected, i, 1000000u));
    }
}

static void leave_by(uint8_t reason)
{
    int slot, cycle;
    uint32_t shots_same = 0, shots_next = 0;
    start_match(0x1EAFu + reason);
    slot = zl_client_slot(&S->c[VICTIM].client);
    w.slot = slot;
    for (cycle = 0; cycle < CYCLES; cycle++) {
        uint32_t hits = w.hits;
        uint64_t end = zl_test_time_us + 2000000u;
        while (zl_test_time_us < end && w.hits < hits + 3u)
            step();
        ZL_CHECK(w.hits >= hits + 3u); /* the shooters do hit the victim */
        if (reason == ZL_DISCONNECT_KICKED) {
            zl_server_disconnect(&S->server, slot, ZL_DISCONNECT_KICKED, zl_test_time_us);
            watch_free(S->server.tick);
        } else if (reason == ZL_DISCONNECT_QUIT) {
            zl_sim_leave(S, VICTIM);
        } else {
            zl_sim_vanish(S, VICTIM);
        }
        ZL_CHECK(step_until(slot_free, slot, 7000000u));
        /* A while of shots at the empty place, then the victim is back in
         * the same slot. */
        run_for(300000u);
        zl_sim_join(S, VICTIM, idle_bot);
        ZL_CHECK(step_until(connected, VICTIM, 1000000u));
        ZL_CHECK_EQ(zl_client_slot(&S->c[VICTIM].client), slot);
        shots_same += w.shots_same;
        shots_next += w.shots_next;
        w.shots_same = w.shots_next = 0;
    }
    zl_test_note("leave (reason %u): %u shots in the leave's tick, %u in the next, %u hits, "
                 "%u on a free slot",
                 (unsigned)reason, (unsigned)shots_same, (unsigned)shots_next, (unsigned)w.hits,
                 (unsigned)w.on_free);
    ZL_CHECK(shots_same > 0 && shots_next > 0);
    ZL_CHECK_EQ(w.on_free, 0);
}

static void test_shot_while_timing_out(void)
{
    leave_by(ZL_DISCONNECT_TIMEOUT);
}

static void test_shot_while_kicked(void)
{
    leave_by(ZL_DISCONNECT_KICKED);
}

static void test_shot_while_quitting(void)
{
    leave_by(ZL_DISCONNECT_QUIT);
}

/* Each shooter aims at the next slot held after its own. */
static void aim_at_neighbours(void)
{
    int i, k, n = S->server.config.max_clients;
    for (i = 0; i < CHURN_CLIENTS; i++) {
        int own = zl_sim_connected(S, i) ? zl_client_slot(&S->c[i].client) : -1;
        aim_slot[i] = -1;
        for (k = 1; own >= 0 && k < n && aim_slot[i] < 0; k++)
            if (zl_server_connected(&S->server, (own + k) % n))
                aim_slot[i] = (own + k) % n;
    }
}

/* A minute of churn: every 250 ms a client joins, or one that plays
 * vanishes (its slot frees only at the timeout), while everyone playing
 * shoots at someone. Every slot is taken again, and nothing lands on a
 * free one. */
static void test_churn(void)
{
    zl_server_config sc;
    zl_test_rng rng;
    uint32_t taken[ZL_MAX_CLIENTS], joins = 0, vanishes = 0, reused = 0;
    uint64_t end, next;
    zl_server_notice notice;
    int i;
    zl_sim_init(S, CHURN_CLIENTS, NULL, NULL, 0xC4u);
    sc = S->server.config;
    memset(&w, 0, sizeof w);
    w.slot = -1;
    memset(taken, 0, sizeof taken);
    zl_test_rng_seed(&rng, 0xC4u);
    end = zl_test_time_us + CHURN_US;
    next = zl_test_time_us;
    while (zl_test_time_us < end) {
        if (zl_test_time_us >= next) {
            int who = zl_test_rng_range(&rng, 0, CHURN_CLIENTS - 1);
            if (S->c[who].live) {
                zl_sim_vanish(S, who);
                vanishes++;
            } else {
                zl_sim_join(S, who, shooter_bot);
                joins++;
            }
            next += CHURN_EVERY_US;
        }
        if (zl_test_time_us % ZL_SIM_FRAME_US == 0)
            aim_at_neighbours();
        step();
        while (zl_server_next_notice(&S->server, &notice))
            if (notice.kind == ZL_NOTICE_JOIN) {
                reused += taken[notice.slot] > 0;
                taken[notice.slot]++;
            }
    }
    zl_test_note("churn: %u joins, %u vanished, %u slots taken again, %u hits, %u on a free slot",
                 (unsigned)joins, (unsigned)vanishes, (unsigned)reused, (unsigned)w.hits,
                 (unsigned)w.on_free);
    ZL_CHECK(w.hits > 100);
    ZL_CHECK_EQ(w.on_free, 0);
    for (i = 0; i < sc.max_clients; i++)
        ZL_CHECK(taken[i] >= 2);
}

void zl_suite_leave(void)
{
    ZL_RUN(test_shot_while_timing_out);
    ZL_RUN(test_shot_while_kicked);
    ZL_RUN(test_shot_while_quitting);
    ZL_RUN(test_churn);
}

#else
void zl_suite_leave(void)
{
    zl_test_note("leave: the simulation does not fit this port's memory");
}
#endif
