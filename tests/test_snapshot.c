/* test_snapshot.c - delta snapshots: exact round trips against random
 * baselines, loss, full fallbacks, budgets and priorities, hostile bytes, and
 * the bandwidth of a 64-player match. */
#include <string.h>

#include "fps.h"
#include "zl_packet.h"
#include "zl_ring.h"
#include "zl_snapshot.h"
#include "zl_test.h"

/* 64 players, or half the entity numbers on a small configuration. */
#define PLAYERS (ZL_MAX_ENTITIES >= 128 ? 64 : ZL_MAX_ENTITIES / 2)
/* Bytes per snapshot packet besides the entity section: UDP/IPv4 28,
 * zerolag's packet header, and about 8 for the snapshot's own header
 * (tick, time, command ack). */
#define PACKET_OVERHEAD (28 + ZL_PACKET_HEADER_SIZE + 8)
#define BUF_BYTES ZL_MAX_PACKET
#define NO_BUDGET (BUF_BYTES * 8u)

static const zl_snapshot_layout layout = {&fps_player_schema, &fps_entity_schema, PLAYERS,
                                             NULL, NULL};

/* Large: shared by the tests, each starts them afresh. */
static zl_snapshot_world world;
static zl_snapshot_client client;
static zl_snapshot_receiver rx;
static fps_player players[ZL_MAX_ENTITIES];
static fps_entity things[ZL_MAX_ENTITIES];
static uint8_t alive[ZL_MAX_ENTITIES];

static void start(void)
{
    zl_snapshot_world_init(&world);
    zl_snapshot_client_reset(&client);
    zl_snapshot_receiver_init(&rx);
    memset(players, 0, sizeof players);
    memset(things, 0, sizeof things);
    memset(alive, 0, sizeof alive);
}

/* ---- random states ---- */

static void random_player(zl_test_rng *rng, fps_player *p)
{
    p->origin.x = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    p->origin.y = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    p->origin.z = zl_test_rng_range(rng, ZL_FX_INT(-100), ZL_FX_INT(600));
    p->velocity.x = zl_test_rng_range(rng, ZL_FX_INT(-400), ZL_FX_INT(400));
    p->velocity.y = zl_test_rng_range(rng, ZL_FX_INT(-400), ZL_FX_INT(400));
    p->velocity.z = zl_test_rng_range(rng, ZL_FX_INT(-800), ZL_FX_INT(800));
    p->yaw = (zl_angle)zl_test_rng_u32(rng);
    p->pitch = (zl_angle)zl_test_rng_u32(rng);
    p->weapon_time = (uint16_t)zl_test_rng_range(rng, 0, 4000);
    p->respawn_time = (uint16_t)zl_test_rng_range(rng, 0, FPS_RESPAWN_MS);
    p->step_time = (uint16_t)zl_test_rng_range(rng, 0, 1000); /* local: never sent */
    p->flags = (uint8_t)zl_test_rng_range(rng, 0, 63);
    p->health = (uint8_t)zl_test_rng_range(rng, 0, FPS_HEALTH_MAX);
    p->weapon = (uint8_t)zl_test_rng_range(rng, 0, FPS_WEAPON_COUNT - 1);
    p->clip[0] = (uint8_t)zl_test_rng_range(rng, 0, 30);
    p->clip[1] = (uint8_t)zl_test_rng_range(rng, 0, 12);
    p->clip[2] = (uint8_t)zl_test_rng_range(rng, 0, 4);
    p->teleport = (uint8_t)zl_test_rng_u32(rng);
}

static void random_thing(zl_test_rng *rng, fps_entity *e)
{
    e->origin.x = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    e->origin.y = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    e->origin.z = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    e->velocity.x = zl_test_rng_range(rng, ZL_FX_INT(-2048), ZL_FX_INT(2047));
    e->velocity.y = zl_test_rng_range(rng, ZL_FX_INT(-2048), ZL_FX_INT(2047));
    e->velocity.z = zl_test_rng_range(rng, ZL_FX_INT(-2048), ZL_FX_INT(2047));
    e->age = (uint16_t)zl_test_rng_u32(rng);
    e->type = (uint8_t)zl_test_rng_range(rng, 0, FPS_ENTITY_ROCKET);
    e->owner = (uint8_t)zl_test_rng_range(rng, 0, FPS_MAX_PLAYERS - 1);
}

/* One tick of churn: entities enter and leave, some stay still, some move
 * a little, some change completely. */
static void churn(zl_test_rng *rng, int count, int enter_leave_pm)
{
    int e;
    for (e = 0; e < count; e++) {
        int roll = zl_test_rng_range(rng, 0, 999);
        if (roll < enter_leave_pm) {
            alive[e] = (uint8_t)!alive[e];
            if (alive[e]) {
                random_player(rng, &players[e]);
                random_thing(rng, &things[e]);
            }
        } else if (roll < 400) {
            /* unchanged */
        } else if (roll < 900) {
            players[e].origin.x += zl_test_rng_range(rng, -ZL_FX_INT(8), ZL_FX_INT(8));
            players[e].yaw = (zl_angle)(players[e].yaw + zl_test_rng_range(rng, -300, 300));
            things[e].origin.y += zl_test_rng_range(rng, -ZL_FX_INT(30), ZL_FX_INT(30));
            things[e].age = (uint16_t)(things[e].age + 16u);
        } else {
            random_player(rng, &players[e]);
            random_thing(rng, &things[e]);
        }
    }
}

static void record_tick(uint32_t tick, int count)
{
    int e;
    zl_snapshot_world_begin(&world, tick);
    for (e = 0; e < count; e++)
        if (alive[e])
            zl_snapshot_world_set(&world, &layout, (uint16_t)e,
                                  e < PLAYERS ? (const void *)&players[e]
                                              : (const void *)&things[e]);
}

/* The own entity of the last snapshot encoded: the decoder must be told. */
static uint16_t encoded_own = ZL_SNAPSHOT_NONE;

/* 1 when got is what a client holds of truth, the world's state of entity
 * e: every wire field for the own entity, the shared ones (owner fields
 * zero) on their coarser grid for the others. */
static int holds(uint16_t e, const void *got, const void *truth)
{
    const zl_schema *s = e < PLAYERS ? layout.player_schema : layout.entity_schema;
    uint32_t expect[ZL_STATE_MAX / 4];
    memset(expect, 0, sizeof expect);
    if (e == encoded_own) {
        zl_schema_copy(s, expect, truth, ZL_SCHEMA_WIRE);
    } else {
        zl_schema_copy(s, expect, truth, ZL_SCHEMA_SHARED);
        zl_schema_quantize_shared(s, expect); /* others' coarser grid */
    }
    return memcmp(expect, got, ZL_STATE_MAX) == 0;
}

/* The frame holds exactly the world's states of its tick for the wanted
 * entities (NULL: all present), and nothing else. Returns 1 when so. */
static int frame_matches(const zl_snapshot_frame *f, const uint8_t *wanted)
{
    int e, ok = 1, count = 0;
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const void *truth = zl_snapshot_world_state(&world, f->tick, (uint16_t)e);
        const void *got = zl_snapshot_frame_state(f, (uint16_t)e);
        if (wanted && !wanted[e])
            truth = NULL;
        if ((truth == NULL) != (got == NULL))
            ok = 0;
        else if (truth && !holds((uint16_t)e, got, truth))
            ok = 0;
        count += got != NULL;
    }
    return ok && count == f->count;
}

/* Encodes the snapshot of tick into buf after a delta bit, as the
 * message's header gives it (1: the section has a base); returns its bytes
 * (or an error). */
static int encode(uint8_t *buf, uint32_t tick, const uint16_t *relevant, int relevant_count,
                  const uint32_t *priority, uint16_t own, uint32_t budget, uint16_t seq)
{
    zl_bitwriter w;
    int bits;
    zl_bitwriter_init(&w, buf, BUF_BYTES);
    encoded_own = own;
    zl_bitwriter_bool(&w, zl_snapshot_client_base(&client, tick) != NULL);
    bits = zl_snapshot_write(&client, &world, &layout, tick, relevant, relevant_count, priority,
                             own, budget, seq, &w);
    if (bits < 0)
        return bits;
    ZL_CHECK_EQ(buf[0] & 1, !client.last.full);
    return zl_bitwriter_finish(&w);
}

/* Reads encode's delta bit and the section after it from r. */
static int read_section(zl_bitreader *r, uint32_t tick, const zl_snapshot_frame **out)
{
    int delta = zl_bitreader_bool(r);
    return zl_snapshot_read(&rx, &layout, tick, delta, encoded_own, r, out);
}

static int decode(const uint8_t *buf, int len, uint32_t tick, const zl_snapshot_frame **out)
{
    zl_bitreader r;
    zl_bitreader_init(&r, buf, (size_t)len);
    return read_section(&r, tick, out);
}

/* ---- tests ---- */

/* Random states and entities entering and leaving; every snapshot arrives
 * but acknowledgements are random, so each delta goes against a random
 * earlier snapshot. The decoded frame is always the world, bit for bit
 * (player 3 is the client's own, with its owner fields). */
static void test_round_trip_random(void)
{
    zl_test_rng rng;
    static uint8_t buf[BUF_BYTES];
    uint32_t tick, ticks = ZL_TEST_ITERATIONS(3000);
    uint16_t seq = 0;
    int bad = 0, deltas = 0, fulls = 0, entered = 0, left = 0;
    start();
    zl_test_rng_seed(&rng, 11);
    for (tick = 1; tick <= ticks; tick++) {
        const zl_snapshot_frame *f = NULL;
        int len;
        churn(&rng, 80, 30);
        record_tick(tick, 80);
        len = encode(buf, tick, NULL, 0, NULL, 3, NO_BUDGET, seq);
        if (len < 0 || decode(buf, len, tick, &f) != ZL_OK || !frame_matches(f, NULL))
            bad++;
        deltas += !client.last.full;
        fulls += client.last.full;
        entered += client.last.entered;
        left += client.last.left;
        ZL_CHECK_EQ(client.last.carried, 0);
        /* Acknowledge one of the recent snapshots, or none. */
        if (zl_test_rng_range(&rng, 0, 3) != 0)
            zl_snapshot_acked(&client, (uint16_t)(seq - (uint16_t)zl_test_rng_range(&rng, 0, 20)));
        seq++;
    }
    ZL_CHECK_EQ(bad, 0);
    ZL_CHECK_EQ(rx.missing_base + rx.malformed + rx.refused_old, 0);
    /* It really exercised deltas, fulls, entries and exits. */
    ZL_CHECK(deltas > (int)ticks / 2 && fulls >= 1);
    ZL_CHECK(entered > (int)ticks && left > (int)ticks / 2);
    zl_test_note("%d snapshots: %d delta, %d full; %d entries, %d exits", (int)ticks, deltas, fulls,
                 entered, left);
}

/* Clients that hold the same baseline are served from the tick's run
 * (the first one's section with each client's own entry swapped in), and
 * those whose baseline holds what the run's first client's did are not
 * sorted out again (its needs are theirs but for the own entities): the
 * bytes, the stats and the records must be what writing each alone gives.
 * Four clients a tick, the first client's run kept for the others; each
 * client is then written again from its state before, with the world's
 * codes forgotten, and compared. Each client acknowledges each snapshot
 * with probability ack_in_4 / 4; tight: the last client's budget on odd
 * ticks holds a few entries only. Returns the writes that differed;
 * served: those served from a run. */
static int shared_vs_alone(uint32_t ticks, int ack_in_4, int tight, uint64_t seed, int *served)
{
    enum { CLIENTS = 4 };
    static zl_snapshot_client c[CLIENTS], before, again;
    static uint8_t buf[CLIENTS][BUF_BYTES], alone[BUF_BYTES];
    zl_test_rng rng;
    uint32_t tick, i;
    int k, bad = 0;
    start();
    zl_test_rng_seed(&rng, seed);
    *served = 0;
    for (k = 0; k < CLIENTS; k++)
        zl_snapshot_client_reset(&c[k]);
    for (tick = 1; tick <= ticks; tick++) {
        static zl_snapshot_client kept[CLIENTS];
        int bits[CLIENTS];
        uint32_t budget[CLIENTS];
        churn(&rng, 80, tick == 1 ? 900 : 30);
        record_tick(tick, 80);
        for (k = 0; k < CLIENTS; k++) {
            zl_bitwriter w;
            kept[k] = c[k];
            budget[k] = tight && k == CLIENTS - 1 && (tick & 1u) ? 400u : NO_BUDGET;
            zl_bitwriter_init(&w, buf[k], BUF_BYTES);
            bits[k] = zl_snapshot_write(&c[k], &world, &layout, tick, NULL, 0, NULL,
                                        (uint16_t)(k * 5), budget[k], (uint16_t)tick, &w);
        }
        *served += (int)world.run.hits;
        for (k = 0; k < CLIENTS; k++) {
            zl_bitwriter w;
            int len;
            before = kept[k];
            again = before;
            world.codes_valid = 0; /* no codes, no run: the client alone */
            zl_bitwriter_init(&w, alone, BUF_BYTES);
            len = zl_snapshot_write(&again, &world, &layout, tick, NULL, 0, NULL,
                                    (uint16_t)(k * 5), budget[k], (uint16_t)tick, &w);
            /* Which run a record came from is the one thing that differs:
             * alone, a client is a run's first. */
            for (i = 0; i < ZL_SNAPSHOT_SENT; i++)
                again.record[i].content = c[k].record[i].content;
            if (len != bits[k] || memcmp(alone, buf[k], ((size_t)len + 7u) / 8u) != 0 ||
                memcmp(&again, &c[k], sizeof again) != 0)
                bad++;
            if (zl_test_rng_range(&rng, 0, 3) < ack_in_4)
                zl_snapshot_acked(&c[k], (uint16_t)tick);
        }
    }
    return bad;
}

static void test_shared_run_same_as_alone(void)
{
    int served;
    ZL_CHECK_EQ(shared_vs_alone(4, 4, 0, 29, &served), 0);
    /* Every tick, three clients were served from the run (the first
     * tick's full snapshots, their values whole codes, fit a packet). */
    ZL_CHECK_EQ(served, 12);
}

/* Acknowledgements lost at random: baselines part and meet again, so
 * clients switch between being served, sorted out again and written
 * alone; the last client's budget is short every other tick, so a client
 * sorted out as the run's first client was is sometimes not served after
 * all (then what it is owed must be what sorting out gives). */
static void test_shared_run_random_acks(void)
{
    int served, bad = shared_vs_alone(ZL_TEST_ITERATIONS(200), 3, 1, 31, &served);
    ZL_CHECK_EQ(bad, 0);
    ZL_CHECK(served > 0);
    zl_test_note("%d of %d clients' sections served from a run", served,
                 3 * (int)ZL_TEST_ITERATIONS(200));
}

/* ---- a lossy, delaying, reordering channel ---- */

#define FLIGHT 64
typedef struct flight {
    uint8_t used;
    uint32_t due, tick;
    uint16_t seq;
    int len;
    uint8_t data[BUF_BYTES];
} flight;
static flight flights[FLIGHT];

typedef struct ack_flight {
    uint8_t used;
    uint32_t due;
    uint16_t newest;
    uint32_t mask; /* bit i: newest - 1 - i received */
} ack_flight;
static ack_flight ack_flights[FLIGHT];

static uint8_t client_got[65536 / 8];
static uint8_t server_heard[65536 / 8];

static int bit_get(const uint8_t *m, uint32_t i) { return (m[i >> 3] >> (i & 7u)) & 1; }
static void bit_set(uint8_t *m, uint32_t i) { m[i >> 3] = (uint8_t)(m[i >> 3] | (1u << (i & 7u))); }

typedef struct sim {
    zl_test_rng rng;
    int loss_pm, delay_min, delay_max;
    uint32_t sent, lost, acks_lost, decoded, refused, fulls;
    int bad; /* decoded frames that did not match the world */
    uint16_t client_newest;
    int client_any;
} sim;

static void sim_start(sim *s, uint64_t seed, int loss_pm, int delay_min, int delay_max)
{
    memset(s, 0, sizeof *s);
    zl_test_rng_seed(&s->rng, seed);
    s->loss_pm = loss_pm;
    s->delay_min = delay_min;
    s->delay_max = delay_max;
    memset(flights, 0, sizeof flights);
    memset(ack_flights, 0, sizeof ack_flights);
    memset(client_got, 0, sizeof client_got);
    memset(server_heard, 0, sizeof server_heard);
}

static int sim_lost(sim *s) { return zl_test_rng_range(&s->rng, 0, 999) < s->loss_pm; }
static uint32_t sim_due(sim *s, uint32_t now)
{
    return now + (uint32_t)zl_test_rng_range(&s->rng, s->delay_min, s->delay_max);
}

static void sim_send(sim *s, uint32_t now, const uint8_t *data, int len, uint16_t seq)
{
    int i;
    s->sent++;
    if (sim_lost(s)) {
        s->lost++;
        return;
    }
    for (i = 0; i < FLIGHT; i++)
        if (!flights[i].used) {
            flights[i].used = 1;
            flights[i].due = sim_due(s, now);
            flights[i].tick = now;
            flights[i].seq = seq;
            flights[i].len = len;
            memcpy(flights[i].data, data, (size_t)len);
            return;
        }
    ZL_CHECK(0); /* the simulation is too small */
}

/* Delivers what is due to the client: decodes it and checks it. Returns
 * the number of decoded frames that did not match the world. */
static int sim_deliver(sim *s, uint32_t now)
{
    int i, bad = 0;
    for (i = 0; i < FLIGHT; i++) {
        const zl_snapshot_frame *f;
        int r;
        if (!flights[i].used || flights[i].due != now)
            continue;
        flights[i].used = 0;
        r = decode(flights[i].data, flights[i].len, flights[i].tick, &f);
        /* Like the client: a packet is acknowledged only when its snapshot
         * decoded (a late one, older than the newest frame, is not). */
        if (r == ZL_OK) {
            bit_set(client_got, flights[i].seq);
            if (!s->client_any || zl_seq_newer(flights[i].seq, s->client_newest))
                s->client_newest = flights[i].seq;
            s->client_any = 1;
        }
        if (r == ZL_ERR_DUPLICATE) {
            s->refused++;
        } else if (r != ZL_OK || !frame_matches(f, NULL)) {
            bad++;
        } else {
            s->decoded++;
        }
    }
    return bad;
}

/* The client's packet of the tick carries its acks; the server reports
 * each newly acknowledged sequence once, oldest first (as zl_link does). */
static void sim_acks(sim *s, uint32_t now)
{
    int i;
    if (s->client_any && !sim_lost(s)) {
        for (i = 0; i < FLIGHT; i++)
            if (!ack_flights[i].used) {
                uint32_t b;
                ack_flights[i].used = 1;
                ack_flights[i].due = sim_due(s, now);
                ack_flights[i].newest = s->client_newest;
                ack_flights[i].mask = 0;
                for (b = 0; b < 32; b++)
                    if (bit_get(client_got, (uint16_t)(s->client_newest - 1u - b)))
                        ack_flights[i].mask |= 1u << b;
                break;
            }
    } else if (s->client_any) {
        s->acks_lost++;
    }
    for (i = 0; i < FLIGHT; i++) {
        int b;
        if (!ack_flights[i].used || ack_flights[i].due != now)
            continue;
        ack_flights[i].used = 0;
        for (b = 31; b >= -1; b--) {
            uint16_t seq = (uint16_t)(ack_flights[i].newest - 1 - b);
            if (b >= 0 && !((ack_flights[i].mask >> b) & 1u))
                continue;
            if (!bit_get(server_heard, seq)) {
                bit_set(server_heard, seq);
                zl_snapshot_acked(&client, seq);
            }
        }
    }
}

/* One tick over the channel: the snapshot of tick for `own` encoded and
 * sent, what is due delivered and checked, the acks taken. Returns the
 * snapshot's bytes (in buf). */
static int sim_tick(sim *s, uint8_t *buf, uint32_t tick, uint16_t own, uint16_t seq)
{
    int len = encode(buf, tick, NULL, 0, NULL, own, NO_BUDGET, seq);
    ZL_CHECK(len > 0);
    s->fulls += client.last.full;
    sim_send(s, tick, buf, len, seq);
    s->bad += sim_deliver(s, tick);
    sim_acks(s, tick);
    return len;
}

/* Snapshots and acks both lost, delayed and reordered: every snapshot the
 * client decodes is exact, and it never meets a delta whose base it lacks. */
static void test_baseline_under_loss(void)
{
    static sim s;
    static uint8_t buf[BUF_BYTES];
    zl_test_rng rng;
    /* Long enough for the loss rate to show even on a slow port. */
    uint32_t tick, ticks = ZL_TEST_ITERATIONS(2000) < 400 ? 400 : ZL_TEST_ITERATIONS(2000);
    uint16_t seq = 0;
    int scenario;
    /* 20% loss with 1..6 ticks of delay; 50% loss with 2..12. */
    static const int params[2][3] = {{200, 1, 6}, {500, 2, 12}};
    for (scenario = 0; scenario < 2; scenario++) {
        start();
        sim_start(&s, 77u + (uint64_t)scenario, params[scenario][0], params[scenario][1],
                  params[scenario][2]);
        zl_test_rng_seed(&rng, 5u + (uint64_t)scenario);
        for (tick = 1; tick <= ticks; tick++) {
            churn(&rng, 80, 10);
            record_tick(tick, 80);
            sim_tick(&s, buf, tick, ZL_SNAPSHOT_NONE, seq++);
        }
        ZL_CHECK_EQ(s.bad, 0);
        ZL_CHECK_EQ(rx.missing_base, 0);
        ZL_CHECK_EQ(rx.malformed, 0);
        ZL_CHECK(!rx.need_full);
        /* The channel did what it says: loss near the setting both ways,
         * and reordering happened (some snapshots arrived late). */
        ZL_CHECK(s.lost * 1000u > s.sent * (uint32_t)(params[scenario][0] - 50) &&
                 s.lost * 1000u < s.sent * (uint32_t)(params[scenario][0] + 50));
        ZL_CHECK(s.acks_lost > 0 && s.refused > 0);
        ZL_CHECK(s.decoded + s.refused + s.lost + 20u >= s.sent);
        ZL_CHECK(s.fulls < s.sent / 4u);
        zl_test_note("loss %d%%: %u sent, %u lost, %u decoded, %u late, %u full",
                     params[scenario][0] / 10, (unsigned)s.sent, (unsigned)s.lost,
                     (unsigned)s.decoded, (unsigned)s.refused, (unsigned)s.fulls);
    }
}

/* Full snapshots: a new client, a baseline that left the world history,
 * and a client that asked (it lost the base of a delta). */
static void test_full_fallback(void)
{
    static uint8_t buf[BUF_BYTES];
    zl_test_rng rng;
    const zl_snapshot_frame *f;
    uint32_t tick;
    int len;
    start();
    zl_test_rng_seed(&rng, 3);
    churn(&rng, 40, 900);
    record_tick(1, 40);
    len = encode(buf, 1, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, 100);
    ZL_CHECK(client.last.full && client.last.entered > 10);
    ZL_CHECK(decode(buf, len, 1, &f) == ZL_OK && frame_matches(f, NULL));
    zl_snapshot_acked(&client, 100);

    /* With the ack, the next is a delta; without a new ack the baseline
     * ages: at 3 ticks per snapshot it leaves the 64-tick history after 21
     * snapshots, well before the 32 sent records run out. */
    for (tick = 4; tick < 1 + ZL_SNAPSHOT_WORLD_TICKS; tick += 3) {
        churn(&rng, 40, 20);
        record_tick(tick, 40);
        len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, (uint16_t)(100 + tick));
        ZL_CHECK(!client.last.full && client.last.base_tick == 1);
        ZL_CHECK(decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
    }
    churn(&rng, 40, 20);
    record_tick(tick, 40);
    len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, (uint16_t)(100 + tick));
    ZL_CHECK(client.last.full);
    /* A full snapshot needs no old frame: a fresh receiver decodes it. */
    zl_snapshot_receiver_init(&rx);
    ZL_CHECK(decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
    zl_snapshot_acked(&client, (uint16_t)(100 + tick));

    /* The client loses its frames (say it restarted): a delta fails, it
     * asks, the server resets and the next snapshot is full again. */
    tick++;
    churn(&rng, 40, 20);
    record_tick(tick, 40);
    len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, 900);
    ZL_CHECK(!client.last.full);
    zl_snapshot_receiver_init(&rx);
    ZL_CHECK_EQ(decode(buf, len, tick, &f), ZL_ERR_AGAIN);
    ZL_CHECK(f == NULL && rx.need_full && rx.missing_base == 1);
    zl_snapshot_client_reset(&client);
    tick++;
    record_tick(tick, 40);
    len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, 901);
    ZL_CHECK(client.last.full);
    ZL_CHECK(decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
    ZL_CHECK(!rx.need_full);

    /* One snapshot per tick and no more acks: the sent records run out
     * (after ZL_SNAPSHOT_SENT) before the world history (64 ticks). */
    zl_snapshot_acked(&client, 901);
    for (tick = tick + 1; client.written < 3u + ZL_SNAPSHOT_SENT; tick++) {
        uint32_t before = client.written;
        record_tick(tick, 40);
        len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET,
                     (uint16_t)(1000 + tick));
        ZL_CHECK(len > 0);
        ZL_CHECK_EQ(client.last.full, before >= ZL_SNAPSHOT_SENT);
    }
}

/* A budget far too small for everything: the packet never exceeds it, the
 * own entity is always current, every entity is sent again and again (no
 * starvation, higher priority more often), the client only ever holds real
 * past states, and everything catches up once movement stops. */
static void test_budget_priority(void)
{
    static uint8_t buf[BUF_BYTES];
    static uint32_t sends[PLAYERS];
    static uint16_t relevant[PLAYERS];
    static uint32_t priority[PLAYERS];
    static uint32_t stale[PLAYERS]; /* ticks since the client's copy was current */
    uint32_t sends_by_weight[2] = {0, 0};
    zl_test_rng rng;
    const zl_snapshot_frame *f = NULL;
    uint32_t tick, max_stale = 0, budget = 340;
    uint16_t own = 7;
    int e, over = 0, own_stale = 0, not_past = 0, caught_up = 0;
    start();
    memset(sends, 0, sizeof sends);
    memset(stale, 0, sizeof stale);
    zl_test_rng_seed(&rng, 9);
    for (e = 0; e < PLAYERS; e++) {
        alive[e] = 1;
        random_player(&rng, &players[e]);
        relevant[e] = (uint16_t)(PLAYERS - 1 - e); /* any order */
        priority[e] = (PLAYERS - 1 - e) < 8 ? 10u : 1u; /* entities 0..7 weigh more */
    }
    for (tick = 1; tick <= 400; tick++) {
        int len, moving = tick <= 300;
        if (moving)
            for (e = 0; e < PLAYERS; e++)
                players[e].origin.x += ZL_FX_INT(3);
        record_tick(tick, PLAYERS);
        len = encode(buf, tick, relevant, PLAYERS, priority, own, budget, (uint16_t)tick);
        ZL_CHECK(len > 0);
        over += client.last.bits > budget;
        ZL_CHECK(decode(buf, len, tick, &f) == ZL_OK);
        zl_snapshot_acked(&client, (uint16_t)tick); /* instant, lossless */
        if (!f)
            continue;
        for (e = 0; e < PLAYERS; e++) {
            const void *got = zl_snapshot_frame_state(f, (uint16_t)e);
            uint32_t back;
            int past = 0;
            if (got && holds((uint16_t)e, got, zl_snapshot_world_state(&world, tick, (uint16_t)e))) {
                sends[e] += (uint32_t)moving; /* a mover is current only when just sent */
                stale[e] = 0;
                continue;
            }
            stale[e]++;
            if (stale[e] > max_stale)
                max_stale = stale[e];
            own_stale += e == own;
            /* Whatever the client holds is a state the entity really had. */
            for (back = 1; back < ZL_SNAPSHOT_WORLD_TICKS && back < tick && got; back++) {
                const void *then = zl_snapshot_world_state(&world, tick - back, (uint16_t)e);
                if (then && holds((uint16_t)e, got, then)) {
                    past = 1;
                    break;
                }
            }
            not_past += got && !past;
        }
        if (tick > 300 && !caught_up && frame_matches(f, NULL))
            caught_up = (int)(tick - 300);
    }
    ZL_CHECK_EQ(over, 0);
    ZL_CHECK_EQ(own_stale, 0);
    ZL_CHECK_EQ(not_past, 0);
    ZL_CHECK(caught_up > 0);
    /* A fraction of the 64 moving entities fits each snapshot (a 3-unit
     * step is a short difference, ~25 bits an entry): each is refreshed
     * within a few dozen ticks, not starved. */
    ZL_CHECK(max_stale > 4 && max_stale < 60);
    for (e = 0; e < PLAYERS; e++) {
        ZL_CHECK(e == own || sends[e] >= 5);
        if (e != own)
            sends_by_weight[e < 8] += sends[e];
    }
    /* Entities 0..7 (own excepted) have ten times the weight: they go
     * nearly every snapshot, the others several times less often. */
    ZL_CHECK(sends_by_weight[1] / 7u > 250u);
    ZL_CHECK(sends_by_weight[1] / 7u > 2u * (sends_by_weight[0] / 56u));
    zl_test_note("budget %u bits, 64 movers, 300 ticks: longest wait %u ticks, sent %u times "
                 "(weight 1) vs %u (weight 10), caught up %d ticks after stopping",
                 (unsigned)budget, (unsigned)max_stale, (unsigned)(sends_by_weight[0] / 56u),
                 (unsigned)(sends_by_weight[1] / 7u),
                 caught_up);
}

/* A budget so small that entities wait longer than the world history: the
 * state the client holds can no longer be compared, so they are re-sent
 * against zero, and the client still converges once movement stops. */
static void test_budget_starved(void)
{
    static uint8_t buf[BUF_BYTES];
    zl_test_rng rng;
    const zl_snapshot_frame *f = NULL;
    uint32_t tick, budget = 200, resent_full = 0;
    int e, prev_count = 0, caught_up = 0, over = 0, bad = 0;
    start();
    zl_test_rng_seed(&rng, 10);
    for (e = 0; e < PLAYERS; e++) {
        alive[e] = 1;
        random_player(&rng, &players[e]);
    }
    for (tick = 1; tick <= 900; tick++) {
        int len;
        if (tick <= 400)
            for (e = 0; e < PLAYERS; e++)
                random_player(&rng, &players[e]); /* about 120 bits each */
        record_tick(tick, PLAYERS);
        len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, budget, (uint16_t)tick);
        ZL_CHECK(len > 0);
        over += client.last.bits > budget;
        if (prev_count == PLAYERS)
            resent_full += client.last.entered; /* all held: these are re-sends */
        bad += decode(buf, len, tick, &f) != ZL_OK;
        zl_snapshot_acked(&client, (uint16_t)tick);
        if (!f)
            continue;
        prev_count = f->count;
        if (tick > 400 && !caught_up && frame_matches(f, NULL))
            caught_up = (int)(tick - 400);
    }
    ZL_CHECK_EQ(over, 0);
    ZL_CHECK_EQ(bad, 0);
    ZL_CHECK(resent_full > 0);
    ZL_CHECK(caught_up > 0);
    zl_test_note("budget %u bits: %u entries re-sent in full, caught up %d ticks after stopping",
                 (unsigned)budget, (unsigned)resent_full, caught_up);
}

/* An entity leaves, comes back with another state, and the client follows. */
/* Two server entities just past the players. */
#define THING_A (PLAYERS + 6)
#define THING_B (PLAYERS + 7)

static void test_leave_and_reenter(void)
{
    static uint8_t buf[BUF_BYTES];
    zl_test_rng rng;
    const zl_snapshot_frame *f;
    uint16_t relevant[3] = {2, THING_A, THING_B};
    uint8_t wanted[ZL_MAX_ENTITIES];
    uint32_t tick;
    int len;
    start();
    zl_test_rng_seed(&rng, 21);
    alive[2] = alive[THING_A] = alive[THING_B] = 1;
    random_player(&rng, &players[2]);
    random_thing(&rng, &things[THING_A]);
    random_thing(&rng, &things[THING_B]);
    for (tick = 1; tick <= 6; tick++) {
        if (tick == 3)
            alive[THING_A] = 0; /* it dies */
        if (tick == 5) {
            alive[THING_A] = 1; /* a new one in the same slot */
            random_thing(&rng, &things[THING_A]);
        }
        record_tick(tick, 80);
        len = encode(buf, tick, relevant, tick == 4 ? 1 : 3, NULL, 2, NO_BUDGET, (uint16_t)tick);
        ZL_CHECK(decode(buf, len, tick, &f) == ZL_OK);
        zl_snapshot_acked(&client, (uint16_t)tick);
        switch (tick) {
        case 1:
            ZL_CHECK(client.last.entered == 3 && f->count == 3);
            break;
        case 2:
            /* Nothing but the prefix: the base age (6 bits), the older
             * age (1 bit: the base age, or 8) and the count (3 fewer than
             * the base's: 5 bits). */
            ZL_CHECK(client.last.unchanged == 3 && client.last.bits <= 19);
            break;
        case 3:
            ZL_CHECK(client.last.left == 1 && f->count == 2 && !zl_snapshot_frame_state(f, THING_A));
            break;
        case 4: /* THING_B no longer relevant (out of view): it leaves too */
            ZL_CHECK(client.last.left == 1 && f->count == 1 && !zl_snapshot_frame_state(f, THING_B));
            break;
        default:
            ZL_CHECK(tick != 5 || (client.last.entered == 2 && f->count == 3));
            break;
        }
        memset(wanted, 0, sizeof wanted);
        wanted[2] = wanted[THING_A] = 1;
        wanted[THING_B] = tick != 4;
        ZL_CHECK(frame_matches(f, wanted));
    }
}

/* A real snapshot cut at every length, and the same with bits flipped:
 * errors, never a crash, and a failed read leaves the receiver usable. */
/* The section's older age (bits 7..12 of a delta's section). */
/* The older age of a section encode wrote (PROTOCOL 9.3), 0 for a full
 * one: after the delta bit and the base age, 1 for the base age, 0 1 s
 * for one less (s 0) or one more, 0 0 and the age's bits. */
static uint32_t older_age_of(const uint8_t *buf, int len)
{
    unsigned age = zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u);
    zl_bitreader r;
    uint32_t base_age;
    zl_bitreader_init(&r, buf, (size_t)len);
    if (!zl_bitreader_bool(&r))
        return 0;
    base_age = zl_bitreader_bits(&r, age);
    if (zl_bitreader_bool(&r))
        return base_age;
    if (zl_bitreader_bool(&r))
        return zl_bitreader_bool(&r) ? base_age + 1u : base_age - 1u;
    return zl_bitreader_bits(&r, age);
}

/* Bits of player e's state code at `tick` against its world state at
 * `from`, as another client gets it: what an entry coded against the plain
 * base costs. */
static int plain_code_bits(uint16_t e, uint32_t tick, uint32_t from)
{
    uint8_t scratch[64];
    zl_bitwriter w;
    zl_bitwriter_init(&w, scratch, sizeof scratch);
    return zl_schema_write_delta(layout.player_schema, &w,
                                 zl_snapshot_world_state(&world, from, e),
                                 zl_snapshot_world_state(&world, tick, e),
                                 ZL_SCHEMA_SHARED | ZL_SCHEMA_CHANGED);
}

/* Sends the snapshot of tick, decodes it (it must match the world) and,
 * when `ack`, acknowledges it at once. Returns its bytes into buf. */
static int send_tick(uint8_t *buf, uint32_t tick, int ack)
{
    const zl_snapshot_frame *f;
    int len;
    record_tick(tick, 2);
    len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, (uint16_t)tick);
    ZL_CHECK(len > 0 && decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
    if (ack)
        zl_snapshot_acked(&client, (uint16_t)tick);
    return len;
}

/* A steady runner's entry is coded against where its two newest held
 * states carry it: one "nothing changed" bit; a teleport between them, an
 * older snapshot lost or unacknowledged, or an entity the older one lacks
 * fall back to the plain base. Every frame decodes exact. */
static void test_extrapolated_entries(void)
{
    static uint8_t buf[BUF_BYTES];
    uint32_t tick;
    start();
    alive[0] = 1;
    players[0].origin.x = ZL_FX_INT(100);
    players[0].yaw = 1000;
    players[0].health = 100;
    for (tick = 1; tick <= 12; tick++) {
        /* The first packet is lost: tick 2 is full, tick 3 a delta with
         * nothing older acknowledged, the older frame exists from tick 4
         * (1 unit and 16/65536 of a turn a tick). */
        send_tick(buf, tick, tick != 1);
        if (tick == 3)
            ZL_CHECK_EQ(older_age_of(buf, (int)sizeof buf), 0u);
        if (tick >= 4) {
            ZL_CHECK_EQ(older_age_of(buf, (int)sizeof buf), 1u);
            ZL_CHECK_EQ(client.last.updated, 1);
            ZL_CHECK_EQ(client.last.update_bits, 3u); /* head 01, kind's 1: nothing changed */
            ZL_CHECK_EQ(client.last.own_bits, 0u);    /* no own player */
        }
        players[0].origin.x += ZL_FX_INT(1);
        players[0].yaw = (zl_angle)(players[0].yaw + 16u);
    }
    /* Respawned far away: the next entry against the prediction of the
     * old run, the one after against the base (the counter differs). */
    players[0].origin.x = ZL_FX_INT(-2000);
    players[0].teleport++;
    send_tick(buf, tick++, 1);
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick, 1);
    ZL_CHECK_EQ(older_age_of(buf, (int)sizeof buf), 1u);
    /* A head of 1 stands for the next number and the kind 1 (changed);
     * x and the counter moved between the two held states, only x changed
     * since: a 0 bit says the changed fields are not the moved ones. */
    ZL_CHECK_EQ(client.last.update_bits, 2u + (uint32_t)plain_code_bits(0, tick, tick - 1u));
    tick++;
    /* Running on from there, both states past the respawn: predicted again. */
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick++, 1);
    ZL_CHECK_EQ(client.last.update_bits, 3u);
    /* The older snapshots' packets lost: only the baseline is held, so
     * nothing is extrapolated and the entry costs the plain difference. */
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick++, 0);
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick++, 0);
    zl_snapshot_client_hold_only_baseline(&client);
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick, 1);
    ZL_CHECK_EQ(older_age_of(buf, (int)sizeof buf), 0u);
    ZL_CHECK_EQ(client.last.update_bits, 1u + (uint32_t)plain_code_bits(0, tick, tick - 3u));
    tick++;
    /* Player 1 enters; next tick the older frame lacks it: plain base for
     * it, extrapolated for the runner. */
    alive[1] = 1;
    players[1].origin.y = ZL_FX_INT(50);
    players[0].origin.x += ZL_FX_INT(1);
    send_tick(buf, tick++, 1);
    players[0].origin.x += ZL_FX_INT(1);
    players[1].origin.y += ZL_FX_INT(2);
    send_tick(buf, tick, 1);
    ZL_CHECK(older_age_of(buf, (int)sizeof buf) > 0u);
    ZL_CHECK_EQ(client.last.updated, 2);
    ZL_CHECK_EQ(client.last.update_bits,
                3u + 1u + (uint32_t)plain_code_bits(1, tick, tick - 1u));
}

/* Bits of player e's code at `tick` against its world state at `from`
 * extrapolated from `older` (`from - older` ticks before), as another
 * client gets it (as its own client with `which` ZL_SCHEMA_WIRE), by the
 * walk: with the moved set of the two held states when `with_moved`, else
 * without. */
static int moved_code_bits_for(uint16_t e, uint32_t tick, uint32_t from, uint32_t older,
                               int with_moved, int which)
{
    const zl_schema *s = layout.player_schema;
    const void *base = zl_snapshot_world_state(&world, from, e);
    const void *was = zl_snapshot_world_state(&world, older, e);
    uint32_t pred[ZL_STATE_MAX / 4];
    uint8_t scratch[64];
    zl_bitwriter w;
    ZL_CHECK(zl_schema_extrapolate(s, pred, base, was, tick - from, from - older, which) == 1);
    zl_moved moved;
    zl_bitwriter_init(&w, scratch, sizeof scratch);
    zl_schema_moved(s, base, was, which, &moved);
    return zl_schema_write_moved(s, &w, pred, zl_snapshot_world_state(&world, tick, e),
                                 which | ZL_SCHEMA_CHANGED, with_moved ? &moved : NULL);
}

static int moved_code_bits(uint16_t e, uint32_t tick, uint32_t from, uint32_t older,
                           int with_moved)
{
    return moved_code_bits_for(e, tick, from, older, with_moved, ZL_SCHEMA_SHARED);
}

/* A runner that speeds up changes exactly what moved between its two held
 * states: one bit says so and only the values follow (the place of the
 * last change and the changed bits are left out). A change of something
 * else as well costs one bit more than the plain code. */
static void test_moved_set_entries(void)
{
    static uint8_t buf[BUF_BYTES];
    uint32_t tick, step = 1;
    int alike, plain;
    start();
    alive[0] = 1;
    players[0].origin.x = ZL_FX_INT(100);
    players[0].health = 100;
    for (tick = 1; tick <= 6; tick++) {
        send_tick(buf, tick, 1);
        players[0].origin.x += ZL_FX_INT(step);
        step += 2; /* speeding up: the extrapolation falls short */
    }
    send_tick(buf, tick, 1);
    ZL_CHECK_EQ(older_age_of(buf, (int)sizeof buf), 1u);
    ZL_CHECK_EQ(client.last.updated, 1);
    alike = moved_code_bits(0, tick, tick - 1u, tick - 2u, 1);
    plain = moved_code_bits(0, tick, tick - 1u, tick - 2u, 0);
    /* Head 1 (kind 1), then the code with its moved-set bit. */
    ZL_CHECK_EQ(client.last.update_bits, 1u + (uint32_t)alike);
    ZL_CHECK(alike < plain);
    tick++;
    /* Hit as well: x moved, x and health changed. */
    players[0].origin.x += ZL_FX_INT(step);
    players[0].health = 75;
    send_tick(buf, tick, 1);
    ZL_CHECK_EQ(client.last.update_bits,
                1u + (uint32_t)moved_code_bits(0, tick, tick - 1u, tick - 2u, 1));
    ZL_CHECK_EQ(moved_code_bits(0, tick, tick - 1u, tick - 2u, 1),
                1 + moved_code_bits(0, tick, tick - 1u, tick - 2u, 0));
}

/* Bits of player e's code at `tick` as its own client gets it (every wire
 * field) against its world state at `from` (0: the zero state); `changed`
 * leaves out the leading changed bit, as an update's code does. */
static int own_code_bits(uint16_t e, uint32_t tick, uint32_t from, int changed)
{
    uint8_t scratch[64];
    zl_bitwriter w;
    zl_bitwriter_init(&w, scratch, sizeof scratch);
    return zl_schema_write_delta(layout.player_schema, &w,
                                 from ? zl_snapshot_world_state(&world, from, e) : NULL,
                                 zl_snapshot_world_state(&world, tick, e),
                                 ZL_SCHEMA_WIRE | (changed ? ZL_SCHEMA_CHANGED : 0));
}

/* The stats' own-entry bits are the own player's entry as written (head,
 * kind, every wire field's code), whatever it is coded against: the zero
 * state, the plain base, the extrapolated one with its moved set, nothing
 * changed. Another player's entry is the rest (0 with no own player:
 * test_extrapolated_entries). */
static void test_own_entry_bits(void)
{
    static uint8_t buf[BUF_BYTES];
    const zl_snapshot_frame *f;
    uint32_t tick;
    int len;
    start();
    alive[0] = alive[1] = 1;
    players[0].origin.x = ZL_FX_INT(100);
    players[0].velocity.x = ZL_FX_INT(64); /* a unit a tick */
    players[0].health = players[1].health = 100;
    players[1].origin.y = ZL_FX_INT(-300);
    for (tick = 1; tick <= 4; tick++) {
        record_tick(tick, 2);
        len = encode(buf, tick, NULL, 0, NULL, 0, NO_BUDGET, (uint16_t)tick);
        ZL_CHECK(len > 0 && decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
        zl_snapshot_acked(&client, (uint16_t)tick);
        switch (tick) {
        case 1: /* full: head 1, the whole code against zero */
            ZL_CHECK_EQ(client.last.own_bits, 1u + (uint32_t)own_code_bits(0, tick, 0, 0));
            break;
        case 2: /* nothing older held: head 1 (kind 1), the plain difference */
            ZL_CHECK_EQ(client.last.own_bits, 1u + (uint32_t)own_code_bits(0, tick, 1, 1));
            ZL_CHECK_EQ(client.last.update_bits,
                        client.last.own_bits + 1u + (uint32_t)plain_code_bits(1, tick, 1));
            break;
        case 3: /* running steadily: extrapolated exactly, head 01, kind's 1 */
            ZL_CHECK_EQ(client.last.own_bits, 3u);
            break;
        default: /* speeding up: the extrapolation falls short, the speed
                  * changed; player 1 stands still (no entry) */
            ZL_CHECK_EQ(client.last.own_bits,
                        1u + (uint32_t)moved_code_bits_for(0, tick, 3, 2, 1, ZL_SCHEMA_WIRE));
            ZL_CHECK(client.last.own_bits > 3u);
            ZL_CHECK_EQ(client.last.update_bits, client.last.own_bits);
            break;
        }
        if (tick == 3)
            players[0].velocity.x += ZL_FX_INT(64);
        players[0].origin.x += players[0].velocity.x / 64;
        if (tick == 1)
            players[1].origin.y += ZL_FX_INT(3);
    }
}

/* Runners that speed up, turn, respawn (a teleport), enter and leave, the
 * client's own player among them, over a channel that loses, delays and
 * reorders both ways: the older frame is often several ticks back, or
 * lacks an entity, and every frame still decodes exact. */
static void test_moved_set_under_loss(void)
{
    static sim s;
    static uint8_t buf[BUF_BYTES];
    int32_t speed[8];
    int e;
    uint32_t tick, older_far = 0, ticks = ZL_TEST_ITERATIONS(1500);
    zl_test_rng rng;
    uint16_t seq = 0;
    if (ticks < 300)
        ticks = 300; /* long enough for the loss to spread the frames */
    start();
    sim_start(&s, 91u, 200, 1, 6);
    zl_test_rng_seed(&rng, 17u);
    for (e = 0; e < 8; e++) {
        alive[e] = 1;
        players[e].health = 100;
        speed[e] = 1;
    }
    for (tick = 1; tick <= ticks; tick++) {
        for (e = 0; e < 8; e++) {
            int roll = zl_test_rng_range(&rng, 0, 99);
            if (roll < 2) { /* respawn far away */
                players[e].origin.x = ZL_FX_INT(zl_test_rng_range(&rng, -3000, 3000));
                players[e].teleport++;
            } else if (roll < 3 && e != 3) {
                alive[e] = (uint8_t)!alive[e];
            } else if (roll < 20) {
                speed[e] = zl_test_rng_range(&rng, -8, 8);
            } else if (roll < 30) {
                players[e].yaw = (zl_angle)(players[e].yaw + 300u);
            }
            players[e].origin.x += ZL_FX_INT(speed[e]);
            if (players[e].origin.x > ZL_FX_INT(4000) || players[e].origin.x < ZL_FX_INT(-4000))
                players[e].origin.x = 0;
        }
        record_tick(tick, 8);
        older_far += older_age_of(buf, sim_tick(&s, buf, tick, 3, seq++)) > 1u;
    }
    ZL_CHECK_EQ(s.bad, 0);
    ZL_CHECK_EQ(rx.missing_base, 0);
    ZL_CHECK_EQ(rx.malformed, 0);
    ZL_CHECK(s.decoded > ticks / 3u);
    ZL_CHECK(s.decoded + s.refused + s.lost + 20u >= s.sent);
    ZL_CHECK(older_far > ticks / 20u); /* loss spreads the two held frames */
    zl_test_note("%u sent, %u lost, %u decoded exact, %u extrapolated over more than a tick",
                 (unsigned)s.sent, (unsigned)s.lost, (unsigned)s.decoded, (unsigned)older_far);
}

/* Decodes a delta of tick whose prefix is written by hand: its base age,
 * then the older age's code and the count's, each `bits` long. */
static int decode_prefix(uint8_t *buf, uint32_t tick, uint32_t base_age, uint32_t older,
                         unsigned older_bits, uint32_t count, unsigned count_bits,
                         const zl_snapshot_frame **f)
{
    zl_bitwriter w;
    zl_bitwriter_init(&w, buf, BUF_BYTES);
    zl_bitwriter_bool(&w, 1);
    zl_bitwriter_bits(&w, base_age, zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u));
    zl_bitwriter_bits(&w, older, older_bits);
    zl_bitwriter_bits(&w, count, count_bits);
    return decode(buf, zl_bitwriter_finish(&w), tick, f);
}

/* An older age the client cannot hold: with the base age past 63 or the
 * world history (malformed), or naming a frame it does not keep (it asks
 * for a full one). */
static void test_older_age_refused(void)
{
    static uint8_t buf[BUF_BYTES];
    const zl_snapshot_frame *f;
    unsigned age = zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u);
    uint32_t limit = ZL_SNAPSHOT_WORLD_TICKS < 64u ? ZL_SNAPSHOT_WORLD_TICKS : 64u;
    uint32_t base_age = limit / 2u, tick = 1u + base_age;
    start();
    alive[0] = 1;
    send_tick(buf, 1, 1);
    /* A delta against tick 1 whose older frame lies one tick too far back,
     * named by its whole age (0 0, then the age) or as the base age (1). */
    ZL_CHECK_EQ(decode_prefix(buf, tick, base_age, (limit - base_age) << 2, 2u + age, 1, 1, &f),
                ZL_ERR_MALFORMED);
    ZL_CHECK(f == NULL);
    ZL_CHECK_EQ(rx.malformed, 1u);
    if (limit == 2u * base_age) {
        ZL_CHECK_EQ(decode_prefix(buf, tick, base_age, 1, 1, 1, 1, &f), ZL_ERR_MALFORMED);
        ZL_CHECK_EQ(rx.malformed, 2u);
    }
    /* One tick less (0 1 0: one less than the base age) is allowed, but
     * no frame older than tick 1 is kept. */
    ZL_CHECK_EQ(decode_prefix(buf, tick, base_age, 2, 3, 1, 1, &f), ZL_ERR_AGAIN);
    ZL_CHECK(rx.need_full && rx.missing_base == 1u);
}

/* The prefix's codes at their edges, read: base ages 1 and the largest,
 * the older age 0 said as one less than a base age of 1 and in whole, a
 * count of none against a base of two (two fewer: 0 0 1 0 0) and counts
 * below 0 or above ZL_MAX_ENTITIES (malformed). */
static void test_prefix_codes_read(void)
{
    static uint8_t buf[BUF_BYTES];
    const zl_snapshot_frame *f;
    unsigned age = zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u);
    unsigned wide = zl_bits_required(ZL_MAX_ENTITIES) + 1u;
    uint32_t oldest = ZL_SNAPSHOT_WORLD_TICKS < 64u ? ZL_SNAPSHOT_WORLD_TICKS - 1u : 63u;
    start();
    alive[0] = alive[1] = 1;
    send_tick(buf, 1, 1);
    ZL_CHECK_EQ(decode_prefix(buf, 2, 1, 2, 3, 4, 5, &f), ZL_OK);
    ZL_CHECK(f != NULL && f->count == 2 && f->tick == 2);
    ZL_CHECK(f && zl_snapshot_frame_state(f, 0) && zl_snapshot_frame_state(f, 1));
    /* One fewer than none, one more than ZL_MAX_ENTITIES. */
    ZL_CHECK_EQ(decode_prefix(buf, 3, 1, 1, 1, 20, 5, &f), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(decode_prefix(buf, 3, 1, 1, 1, 2u * (ZL_MAX_ENTITIES + 1u - 2u) << 5, 5u + wide,
                              &f),
                ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(rx.malformed, 2u);
    /* The oldest base, its older age 0 in whole. */
    ZL_CHECK_EQ(decode_prefix(buf, 1u + oldest, oldest, 0, 2u + age, 4, 5, &f), ZL_OK);
    ZL_CHECK(f != NULL && f->count == 2 && f->tick == 1u + oldest);
}

/* The count's code at its edges, written and read: a full snapshot of
 * nothing (the base's 0: 1 bit), every entity entering (ZL_MAX_ENTITIES
 * more, the escape), none changed against them all (as many fewer, the
 * escape: the section is its prefix alone) and every one leaving (the
 * base's count again: 1 bit). */
static void test_prefix_count_edges(void)
{
    static uint8_t buf[BUF_BYTES];
    const unsigned age = zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u);
    const unsigned escape = 5u + zl_bits_required(ZL_MAX_ENTITIES) + 1u;
    const zl_snapshot_frame *f;
    uint32_t tick;
    int e;
    start();
    for (tick = 1; tick <= 4; tick++) {
        int len;
        for (e = 0; e < ZL_MAX_ENTITIES; e++)
            alive[e] = tick == 2 || tick == 3;
        record_tick(tick, ZL_MAX_ENTITIES);
        len = encode(buf, tick, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, (uint16_t)tick);
        ZL_CHECK(len > 0 && decode(buf, len, tick, &f) == ZL_OK && frame_matches(f, NULL));
        zl_snapshot_acked(&client, (uint16_t)tick);
        switch (tick) {
        case 1:
            ZL_CHECK(client.last.full && client.last.bits == 1u);
            break;
        case 2:
            ZL_CHECK_EQ(client.last.entered, (uint16_t)ZL_MAX_ENTITIES);
            break;
        case 3: /* base age 1, its older age the same (1 bit) */
            ZL_CHECK_EQ(client.last.unchanged, (uint16_t)ZL_MAX_ENTITIES);
            ZL_CHECK_EQ(client.last.bits, age + 1u + escape);
            break;
        default:
            ZL_CHECK_EQ(client.last.left, (uint16_t)ZL_MAX_ENTITIES);
            ZL_CHECK_EQ(f->count, 0);
            break;
        }
    }
}

static void test_hostile_input(void)
{
    static uint8_t buf[BUF_BYTES];
    static uint8_t bent[BUF_BYTES];
    zl_test_rng rng;
    const zl_snapshot_frame *f;
    int len, cut, i, accepted = 0, refused = 0;
    start();
    zl_test_rng_seed(&rng, 33);
    churn(&rng, 90, 900);
    record_tick(1, 90);
    len = encode(buf, 1, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, 1);
    ZL_CHECK(decode(buf, len, 1, &f) == ZL_OK);
    zl_snapshot_acked(&client, 1);
    churn(&rng, 90, 50);
    record_tick(2, 90);
    len = encode(buf, 2, NULL, 0, NULL, ZL_SNAPSHOT_NONE, NO_BUDGET, 2);
    ZL_CHECK(len > 20);
    for (cut = 0; cut < len; cut++) {
        uint8_t *exact = (uint8_t *)zl_test_exact_buffer((size_t)cut);
        zl_bitreader r;
        int res;
        memcpy(exact, buf, (size_t)cut);
        zl_bitreader_init(&r, exact, (size_t)cut);
        res = read_section(&r, 2, &f);
        ZL_CHECK(res == ZL_ERR_OVERFLOW || res == ZL_ERR_MALFORMED);
        ZL_CHECK(f == NULL);
        zl_test_release_buffer(exact);
    }
    ZL_CHECK_EQ(rx.malformed, (uint32_t)len);
    for (i = 0; i < ZL_TEST_ITERATIONS(2000); i++) {
        zl_bitreader r;
        int res, flips = zl_test_rng_range(&rng, 1, 4);
        memcpy(bent, buf, (size_t)len);
        while (flips-- > 0) {
            int bit = zl_test_rng_range(&rng, 0, len * 8 - 1);
            bent[bit / 8] = (uint8_t)(bent[bit / 8] ^ (1u << (bit % 8)));
        }
        zl_bitreader_init(&r, bent, (size_t)(i & 1 ? len : zl_test_rng_range(&rng, 0, len)));
        rx.have_newest = 0; /* let tick 2 be read again */
        rx.newest = 1;
        res = read_section(&r, 2, &f);
        if (res == ZL_OK) {
            int e, count = 0;
            accepted++;
            for (e = 0; e < ZL_MAX_ENTITIES; e++)
                count += zl_snapshot_frame_state(f, (uint16_t)e) != NULL;
            ZL_CHECK_EQ(count, f->count);
            rx.valid[f - rx.frame] = 0; /* forget it: tick 1 stays the only base */
        } else {
            refused++;
            ZL_CHECK(res == ZL_ERR_OVERFLOW || res == ZL_ERR_MALFORMED || res == ZL_ERR_AGAIN);
        }
    }
    ZL_CHECK(refused > 0);
    /* The untouched snapshot still decodes against the kept base. */
    rx.have_newest = 0;
    ZL_CHECK(decode(buf, len, 2, &f) == ZL_OK && frame_matches(f, NULL));
    /* An old tick is refused before any byte is read. */
    ZL_CHECK_EQ(decode(buf, len, 2, &f), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(rx.refused_old, 1);
    zl_test_note("%d corrupted snapshots: %d refused, %d decoded to a consistent frame",
                 (int)ZL_TEST_ITERATIONS(2000), refused, accepted);
}

/* ---- the 64-player match ---- */

#define TICK_HZ 64
#define RTT_TICKS 6 /* about 94 ms */

/* Bots run through the arena with the FPS rules, steering towards a new
 * heading every second or so and jumping now and then. */
static void bot_command(zl_test_rng *rng, uint32_t tick, int e, zl_usercmd *c, zl_angle *heading)
{
    int16_t turn;
    memset(c, 0, sizeof *c);
    c->msec = (uint16_t)((tick & 1u) ? 16 : 15); /* 64 Hz on average */
    if (zl_test_rng_range(rng, 0, 63) == 0)
        heading[e] = (zl_angle)zl_test_rng_u32(rng);
    /* Turn towards the heading at up to 2 degrees per tick. */
    turn = (int16_t)(uint16_t)(heading[e] - players[e].yaw);
    if (turn > 364)
        turn = 364;
    if (turn < -364)
        turn = -364;
    c->yaw = (zl_angle)(players[e].yaw + turn);
    c->pitch = players[e].pitch;
    c->forward = 127;
    c->buttons = zl_test_rng_range(rng, 0, 199) == 0 ? FPS_BUTTON_JUMP : 0;
}

typedef struct match_figures {
    uint32_t snapshots, moving, moving_bits, section_bits, full_bits, skip_bits;
} match_figures;

/* Runs the match for `ticks` at `rate` snapshots per second (acks come
 * back RTT_TICKS later). standing: players with odd numbers stand still. */
static void run_match(uint32_t rate, uint32_t ticks, int standing, match_figures *m)
{
    static uint8_t buf[BUF_BYTES];
    static zl_snapshot_client full_client;
    static uint16_t ack_at[RTT_TICKS + 1];
    static zl_angle heading[PLAYERS];
    zl_test_rng rng;
    fps_game game;
    uint32_t tick;
    int e;
    start();
    memset(m, 0, sizeof *m);
    memset(ack_at, 0xFF, sizeof ack_at);
    zl_test_rng_seed(&rng, 64);
    fps_game_init(&game);
    for (e = 0; e < PLAYERS; e++) {
        fps_player_spawn(&game, &players[e]);
        heading[e] = (zl_angle)zl_test_rng_u32(&rng);
        alive[e] = 1;
    }
    for (tick = 1; tick <= ticks; tick++) {
        uint16_t *due = &ack_at[tick % (RTT_TICKS + 1)];
        for (e = 0; e < PLAYERS; e++) {
            zl_usercmd c;
            bot_command(&rng, tick, e, &c, heading);
            if (!(standing && (e & 1)))
                fps_run_command(&players[e], &c, &players[e], 0, NULL);
        }
        record_tick(tick, PLAYERS);
        if (*due != 0xFFFFu)
            zl_snapshot_acked(&client, *due);
        *due = 0xFFFFu;
        /* A snapshot whenever the rate's clock passes a whole snapshot. */
        if ((tick * rate) / TICK_HZ != ((tick - 1u) * rate) / TICK_HZ) {
            zl_bitwriter w;
            zl_bitwriter_init(&w, buf, sizeof buf);
            ZL_CHECK(zl_snapshot_write(&client, &world, &layout, tick, NULL, 0, NULL, 0, NO_BUDGET,
                                       (uint16_t)tick, &w) > 0);
            *due = (uint16_t)tick; /* its ack arrives RTT_TICKS later */
            /* Skip the first second: it starts with a full snapshot. */
            if (tick > TICK_HZ) {
                m->snapshots++;
                m->moving += client.last.updated;
                m->moving_bits += client.last.update_bits;
                m->section_bits += client.last.bits;
                /* A number costs at least 1 bit; the rest pays for skips. */
                m->skip_bits += client.last.number_bits - client.last.updated -
                                client.last.entered - client.last.left;
                zl_snapshot_client_reset(&full_client);
                zl_bitwriter_init(&w, buf, sizeof buf);
                ZL_CHECK(zl_snapshot_write(&full_client, &world, &layout, tick, NULL, 0, NULL, 0,
                                           NO_BUDGET, 0, &w) > 0);
                m->full_bits += full_client.last.bits;
            }
        }
    }
}

/* The figures: bits per moving and per unchanged player, and the
 * bandwidth per client at 20 and 64 snapshots/s against full states. */
static void test_match_numbers(void)
{
    static const uint32_t rates[2] = {20, 64};
    match_figures m, still;
    uint32_t ticks = ZL_TEST_ITERATIONS(100) < 100 ? 2 * TICK_HZ : 6 * TICK_HZ;
    int i;
    for (i = 0; i < 2; i++) {
        uint32_t bytes_s, full_s, per_moving_x10, per_full_x10;
        run_match(rates[i], ticks, 0, &m);
        ZL_CHECK(m.snapshots > 0 && m.moving > 0);
        if (!m.snapshots || !m.moving)
            continue;
        per_moving_x10 = 10u * m.moving_bits / m.moving;
        per_full_x10 = 10u * m.full_bits / (m.snapshots * PLAYERS);
        /* Snapshot entity section plus a packet header per snapshot. */
        bytes_s = (m.section_bits / 8u + m.snapshots * PACKET_OVERHEAD) * rates[i] /
                  m.snapshots;
        full_s = (m.full_bits / 8u + m.snapshots * PACKET_OVERHEAD) * rates[i] /
                 m.snapshots;
        zl_test_note("%u/s, 64 running players: %u.%u bits per moving player (target 40; %u.%u "
                     "in a full snapshot), %u moving of 64 per snapshot; %u bytes/s per client "
                     "vs %u with full states (%u%%)",
                     (unsigned)rates[i], (unsigned)(per_moving_x10 / 10),
                     (unsigned)(per_moving_x10 % 10), (unsigned)(per_full_x10 / 10),
                     (unsigned)(per_full_x10 % 10), (unsigned)(m.moving / m.snapshots),
                     (unsigned)bytes_s, (unsigned)full_s, (unsigned)(100u * bytes_s / full_s));
        /* A runner's x and y move ~250 steps of the 1/8 unit others get
         * and a turning one's yaw ~160 of 4,096 between a snapshot and its
         * baseline: differences of 9, 9 and 8 bits plus signs, each behind
         * a 2-bit size class. The codec must give a clear saving on full
         * states, whose cost is measured on the same ticks. */
        ZL_CHECK(per_moving_x10 * 3u < per_full_x10 * 2u);
        ZL_CHECK(bytes_s < full_s);
    }
    /* Half the players stand still, every other number: the worst spread
     * for skipping them. They have no entry; they cost only the longer
     * entity numbers of the movers between them. */
    run_match(20, ticks, 1, &still);
    ZL_CHECK(still.snapshots > 0);
    if (still.snapshots) {
        uint32_t standing = 32u * still.snapshots;
        /* Nothing but a prefix per snapshot and the movers' entries was
         * written: the base age, the older age (1 to 8 bits) and the count
         * (32 below the base's 64: its Golomb code escapes, 15 bits). */
        uint32_t age = zl_bits_required(ZL_SNAPSHOT_WORLD_TICKS - 1u);
        uint32_t prefix = still.section_bits - still.moving_bits;
        ZL_CHECK(still.section_bits > still.moving_bits);
        ZL_CHECK(prefix >= (age + 1u + 15u) * still.snapshots &&
                 prefix <= (age + 8u + 15u) * still.snapshots);
        zl_test_note("20/s, 32 moving + 32 still (interleaved): %u.%02u bits per still player",
                     (unsigned)(still.skip_bits / standing),
                     (unsigned)(100u * (still.skip_bits % standing) / standing));
        ZL_CHECK(still.skip_bits > 0 && still.skip_bits <= 2u * standing);
    }
}

/* Writes the snapshot message of tick into buf (no events); its bytes. */
static int encode_message(uint8_t *buf, uint32_t tick, uint16_t seq)
{
    zl_bitwriter w;
    zl_bitwriter_init(&w, buf, BUF_BYTES);
    encoded_own = ZL_SNAPSHOT_NONE;
    if (zl_snapshot_message_write(&client, &world, &layout, tick, tick ^ 0x5A5A5A5Au, NULL, 0,
                                  NULL, ZL_SNAPSHOT_NONE, NULL, NO_BUDGET, seq, &w) < 0)
        return -1;
    return zl_bitwriter_finish(&w);
}

/* The message header: a full snapshot names its tick in 32 bits, a delta
 * by its low 16, widened against the receiver's newest frame. Across the
 * 16-bit and 32-bit wraps, for a late (older) delta as for the newest, the
 * tick read is the tick written; a receiver without frames cannot widen a
 * delta's tick and asks for a full snapshot. */
static void test_message_tick_wraps(void)
{
    static const uint32_t starts[] = {0xFFF0u, 0xFFFFFFF0u, 0x7FFFFFF0u, 0u};
    static uint8_t buf[2][BUF_BYTES];
    size_t k;
    for (k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        const zl_snapshot_frame *f;
        zl_test_rng rng;
        uint32_t tick, got, executed = 0, thin = 0, i;
        int len[2] = {0, 0};
        start();
        zl_test_rng_seed(&rng, 11u + (uint32_t)k);
        for (i = 0; i < 40u; i++) {
            uint8_t *now = buf[i & 1u], *late = buf[(i + 1u) & 1u];
            tick = starts[k] + 3u * i;
            churn(&rng, 20, 50);
            record_tick(tick, 20);
            len[i & 1u] = encode_message(now, tick, (uint16_t)i);
            ZL_CHECK(len[i & 1u] > 0);
            /* bit 0 of the payload: 0 a full snapshot's tick, 1 a delta's */
            ZL_CHECK_EQ(now[0] & 1u, i == 0 ? 0u : 1u);
            ZL_CHECK(zl_snapshot_message_tick(&rx, now, (size_t)len[i & 1u], &got) == ZL_OK &&
                     got == tick);
            ZL_CHECK(zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, now,
                                              (size_t)len[i & 1u], &executed, &f) == ZL_OK &&
                     f->tick == tick && frame_matches(f, NULL));
            ZL_CHECK_EQ(executed, tick ^ 0x5A5A5A5Au);
            /* A peer without frames reads the same command from either
             * form, widened against the one it read before. */
            executed = thin;
            ZL_CHECK(zl_snapshot_message_executed(now, (size_t)len[i & 1u], &executed) == ZL_OK &&
                     executed == (tick ^ 0x5A5A5A5Au));
            thin = executed;
            ZL_CHECK_EQ(zl_snapshot_message_executed(now, i == 0 ? 4u : 2u, &executed),
                        ZL_ERR_OVERFLOW);
            if (i > 0) {
                /* The one before, arriving late: its tick read right, then refused. */
                ZL_CHECK(zl_snapshot_message_tick(&rx, late, (size_t)len[(i + 1u) & 1u], &got) ==
                             ZL_OK &&
                         got == tick - 3u);
                ZL_CHECK(zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, late,
                                                  (size_t)len[(i + 1u) & 1u], &executed,
                                                  &f) == ZL_ERR_DUPLICATE);
            }
            if (i % 2u == 0)
                zl_snapshot_acked(&client, (uint16_t)i);
        }
        zl_snapshot_receiver_init(&rx);
        ZL_CHECK(zl_snapshot_message_tick(&rx, buf[1], (size_t)len[1], &got) == ZL_ERR_AGAIN);
        ZL_CHECK(zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, buf[1],
                                          (size_t)len[1], &executed, &f) == ZL_ERR_AGAIN &&
                 rx.need_full && rx.missing_base == 1);
    }
}

/* A delta names its command in 6 bits when it is within 63 after its
 * baseline's (the header then takes 3 bytes), widened against the newest
 * the receiver read; farther, in 32. Commands that jump about, snapshots
 * acknowledged one in two and late copies refused: every command read is
 * the one written, by the receiver and by a peer without frames. */
static void test_message_executed_near(void)
{
    static uint8_t buf[2][BUF_BYTES];
    zl_test_rng rng;
    uint32_t executed = 5000u, got, thin = 0, i, near = 0;
    start();
    zl_test_rng_seed(&rng, 21u);
    for (i = 0; i < 200u; i++) {
        const zl_snapshot_frame *f;
        uint32_t tick = 100u + i, read = 0;
        uint8_t *now = buf[i & 1u];
        zl_bitwriter w;
        int len;
        executed += (uint32_t)zl_test_rng_range(&rng, 0, i % 50u == 49u ? 200 : 3);
        churn(&rng, 8, 20);
        record_tick(tick, 8);
        zl_bitwriter_init(&w, now, BUF_BYTES);
        ZL_CHECK(zl_snapshot_message_write(&client, &world, &layout, tick, executed, NULL, 0, NULL,
                                           ZL_SNAPSHOT_NONE, NULL, NO_BUDGET, (uint16_t)i,
                                           &w) >= 0);
        len = zl_bitwriter_finish(&w);
        /* delta, then near: bit 17 of the payload 0 */
        if ((now[0] & 1u) && !((now[2] >> 1) & 1u))
            near++;
        ZL_CHECK(zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, now,
                                          (size_t)len, &read, &f) == ZL_OK);
        ZL_CHECK_EQ(read, executed);
        got = thin;
        ZL_CHECK(zl_snapshot_message_executed(now, (size_t)len, &got) == ZL_OK && got == executed);
        thin = got;
        if (i > 0)
            ZL_CHECK(zl_snapshot_message_read(&rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL,
                                              buf[(i + 1u) & 1u], BUF_BYTES, &read,
                                              &f) == ZL_ERR_DUPLICATE);
        if (i % 2u == 0)
            zl_snapshot_acked(&client, (uint16_t)i);
    }
    zl_test_note("%u of 200 snapshots named their command in 6 bits", (unsigned)near);
    ZL_CHECK(near >= 150u);
}

/* ---- events coded against the entity section ---- */

static zl_event_log ev_log;
static zl_schema_plan ev_plan;
static zl_event_sender ev_sender;
static zl_event_queue ev_queue;

/* The message of `tick` to client 0 with the events due; player 1 steps
 * (event param k) and moves. */
static int encode_with_events(const zl_game *rules, uint8_t *buf, uint32_t tick, uint32_t k)
{
    zl_snapshot_events to;
    zl_event ev;
    zl_bitwriter w;
    players[1].origin.x += ZL_FX_INT(3);
    record_tick(tick, 4);
    memset(&ev, 0, sizeof ev);
    ev.type = FPS_EV_FOOTSTEP;
    ev.param = (uint16_t)k;
    ev.source = 1;
    ev.target = -1;
    ev.origin = players[1].origin;
    ev.tick = tick;
    ZL_CHECK_EQ(zl_event_log_append(&ev_log, &ev_plan, &ev, 0), ZL_OK);
    to.sender = &ev_sender;
    to.log = &ev_log;
    to.audience.client = 0;
    to.audience.relevant = NULL;
    to.resend_ticks = 8u; /* no resend by the clock here: only on evidence */
    to.game = rules;
    to.plan = &ev_plan;
    zl_bitwriter_init(&w, buf, BUF_BYTES);
    encoded_own = 0;
    if (zl_snapshot_message_write(&client, &world, &layout, tick, tick, NULL, 0, NULL, 0, &to,
                                  NO_BUDGET, (uint16_t)tick, &w) < 0)
        return -1;
    return zl_bitwriter_finish(&w);
}

/* The client's rule: a snapshot it read is acknowledged (the server's
 * records and event sender learn it), one it could not read is not. */
static int take_message(const zl_game *rules, const uint8_t *buf, int len, uint32_t tick)
{
    const zl_snapshot_frame *f;
    uint32_t executed;
    int rc;
    ZL_CHECK(len > 0);
    rc = zl_snapshot_message_read(&rx, &layout, 0, &ev_queue, rules, buf, (size_t)len, &executed,
                                  &f);
    if (rc == ZL_OK) {
        zl_snapshot_acked(&client, (uint16_t)tick);
        zl_event_sender_acked(&ev_sender, (uint16_t)tick);
    }
    if (rx.need_full)
        zl_snapshot_client_reset(&client);
    return rc;
}

/* Events are coded against the source's state the entity section leaves,
 * so the events of a snapshot whose entity section cannot be decoded are
 * unread and the packet unacknowledged: its base frame gone (2), or
 * arriving after a newer one (3 after 4). Both copies of the footstep of
 * tick 2 are in such snapshots; it goes again on that evidence and every
 * footstep arrives exactly once, in order, where it was made. */
static void test_events_of_undecodable_snapshot(void)
{
    static uint8_t buf[6][BUF_BYTES];
    const zl_game rules = fps_game_interface(NULL);
    zl_event out[8];
    int len[6], k, n, i;
    start();
    zl_event_log_init(&ev_log);
    ZL_CHECK_EQ(zl_schema_plan_init(&ev_plan, &fps_event_schema), ZL_OK);
    zl_event_sender_reset(&ev_sender, &ev_log);
    zl_event_queue_init(&ev_queue);
    for (k = 0; k < 4; k++) {
        alive[k] = 1;
        players[k].origin.x = ZL_FX_INT(100 * k);
        players[k].health = 100;
    }
    len[1] = encode_with_events(&rules, buf[1], 1u, 1u);
    ZL_CHECK_EQ(take_message(&rules, buf[1], len[1], 1u), ZL_OK);
    len[2] = encode_with_events(&rules, buf[2], 2u, 2u);
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++)
        if (rx.valid[i] && rx.frame[i].tick == 1u)
            rx.valid[i] = 0; /* its base frame is gone */
    ZL_CHECK_EQ(take_message(&rules, buf[2], len[2], 2u), ZL_ERR_AGAIN);
    ZL_CHECK(rx.need_full);
    len[3] = encode_with_events(&rules, buf[3], 3u, 3u); /* full: held back */
    len[4] = encode_with_events(&rules, buf[4], 4u, 4u);
    ZL_CHECK_EQ(take_message(&rules, buf[4], len[4], 4u), ZL_OK);
    ZL_CHECK_EQ(take_message(&rules, buf[3], len[3], 3u), ZL_ERR_DUPLICATE);
    /* Footsteps 1, 3 (its second copy) and 4; both copies of 2 unread. */
    ZL_CHECK_EQ(ev_queue.stats.received, 3);
    len[5] = encode_with_events(&rules, buf[5], 5u, 5u);
    ZL_CHECK_EQ(take_message(&rules, buf[5], len[5], 5u), ZL_OK);
    /* A copy arriving again changes nothing. */
    ZL_CHECK_EQ(take_message(&rules, buf[5], len[5], 5u), ZL_ERR_DUPLICATE);
    ZL_CHECK_EQ(ev_queue.stats.received, 5);
    ZL_CHECK_EQ(ev_queue.stats.duplicates, 0);
    n = zl_event_queue_take(&ev_queue, 5u, -1, out, 8);
    ZL_CHECK_EQ(n, 5);
    for (k = 0; k < n; k++) {
        ZL_CHECK_EQ(out[k].param, k + 1);
        ZL_CHECK_EQ(out[k].tick, (uint32_t)k + 1u);
        ZL_CHECK_EQ(out[k].source, 1);
        ZL_CHECK_EQ(out[k].origin.x, ZL_FX_INT(100 + 3 * (k + 1)));
    }
    ZL_CHECK_EQ(rx.missing_base, 1);
    ZL_CHECK_EQ(rx.refused_old, 2);
}

void zl_suite_snapshot(void)
{
    ZL_RUN(test_round_trip_random);
    ZL_RUN(test_events_of_undecodable_snapshot);
    ZL_RUN(test_message_executed_near);
    ZL_RUN(test_shared_run_same_as_alone);
    ZL_RUN(test_shared_run_random_acks);
    ZL_RUN(test_baseline_under_loss);
    ZL_RUN(test_full_fallback);
    ZL_RUN(test_budget_priority);
    ZL_RUN(test_budget_starved);
    ZL_RUN(test_leave_and_reenter);
    ZL_RUN(test_extrapolated_entries);
    ZL_RUN(test_own_entry_bits);
    ZL_RUN(test_moved_set_entries);
    ZL_RUN(test_moved_set_under_loss);
    ZL_RUN(test_older_age_refused);
    ZL_RUN(test_prefix_codes_read);
    ZL_RUN(test_prefix_count_edges);
    ZL_RUN(test_hostile_input);
    ZL_RUN(test_match_numbers);
    ZL_RUN(test_message_tick_wraps);
}
