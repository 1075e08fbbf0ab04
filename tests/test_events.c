/* test_events.c - events in snapshots (zl_eventlog.h): each reaches every
 * client it concerns once, at its tick, never echoed to the player who
 * predicted it, through loss, copies and reordering. */
#include <string.h>

#include "zl_match.h"
#include "zl_test.h"

#define BOTS ZL_MATCH_BOTS
#define m zl_match_world

#ifdef ZL_TEST_SLOW
#define MATCH_US 20000000u /* the emulated board: a shorter match */
#else
#define MATCH_US 60000000u
#endif

/* The first logged event at or after `tick` (logged is in tick order). */
static uint32_t first_logged(uint32_t tick)
{
    uint32_t lo = 0, hi = m.logged_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (m.logged[mid].tick < tick)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* Pairs each event bot i handed over with a logged one (bit i of taken).
 * Returns the events that had no partner left: made up, or handed over twice. */
static uint32_t pair_heard(int i, uint32_t *echoed)
{
    const int32_t slot = zl_client_slot(&m.client[i]);
    uint32_t k, unpaired = 0;
    for (k = 0; k < m.heard_count[i]; k++) {
        const zl_match_event *h = &m.heard[i][k];
        uint32_t j = first_logged(h->tick);
        for (; j < m.logged_count && m.logged[j].tick == h->tick; j++) {
            zl_match_event *l = &m.logged[j];
            if (l->key == h->key && !(l->taken & (1u << i)))
                break;
        }
        if (j == m.logged_count || m.logged[j].tick != h->tick) {
            unpaired++;
            continue;
        }
        m.logged[j].taken = (uint8_t)(m.logged[j].taken | (1u << i));
        *echoed += (uint32_t)(m.logged[j].predicted && m.logged[j].source == slot);
    }
    return unpaired;
}

/* Starts a match of 4 bots duelling (strafe, jump, fire at each other's
 * heads), lag compensated, on links of this round trip, jitter and loss. */
static void duel(uint32_t rtt_us, uint32_t jitter_us, uint32_t loss_ppm)
{
    zl_match_setup s;
    memset(&s, 0, sizeof s);
    s.rtt_us = rtt_us;
    s.jitter_us = jitter_us;
    s.loss_ppm = loss_ppm;
    s.lag_compensation = 1;
    s.style = ZL_MATCH_DUEL;
    s.firing = 1;
    zl_match_start(&s);
}

/* 4 bots duel (strafe, jump, fire at each other's heads) for a minute at
 * 200 ms round trip with 10% loss each way: every logged event that
 * concerns a client reaches it exactly once, or is counted as aged out. */
static void test_events_exactly_once(void)
{
    uint32_t cutoff, total_missing = 0, total_expected = 0, total_heard = 0, total_aged = 0;
    int i;
    duel(200000u, 10000u, 100000u);
    zl_match_run(MATCH_US);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    ZL_CHECK_EQ(m.events_unkept, 0);
    ZL_CHECK(m.logged_count > MATCH_US / 50000u); /* 20 a second at least */
    /* Events of the last second may still be on their way. */
    cutoff = zl_server_tick(&m.server) - m.server.config.tick_rate;
    for (i = 0; i < BOTS; i++) {
        const int32_t slot = zl_client_slot(&m.client[i]);
        zl_server_client_stats ss;
        zl_client_stats cs;
        uint32_t echoed = 0, expected = 0, missing = 0, k;
        ZL_CHECK_EQ(pair_heard(i, &echoed), 0);
        ZL_CHECK_EQ(echoed, 0);
        for (k = 0; k < m.logged_count && m.logged[k].tick <= cutoff; k++) {
            const zl_match_event *l = &m.logged[k];
            if (l->predicted && l->source == slot)
                continue;
            /* Events of the seconds before the client's slot existed. */
            if (l->tick < m.logged[0].tick + m.server.config.tick_rate)
                continue;
            expected++;
            missing += !(l->taken & (1u << i));
        }
        ZL_CHECK(zl_server_get_client_stats(&m.server, slot, zl_test_time_us, &ss) == ZL_OK);
        zl_client_get_stats(&m.client[i], zl_test_time_us, &cs);
        ZL_CHECK(missing <= ss.events.aged + ss.events.overrun);
        ZL_CHECK_EQ(cs.events.dropped, 0);
        ZL_CHECK_EQ(cs.events.malformed, 0);
        total_missing += missing;
        total_expected += expected;
        total_heard += m.heard_count[i];
        total_aged += ss.events.aged + ss.events.overrun;
    }
    /* Never before the render time reached them, and nearly always in the
     * first frame after (late only when the snapshot came later). */
    ZL_CHECK_EQ(m.heard_early, 0);
    ZL_CHECK(m.heard_within_frame * 100u >= m.heard_others * 95u);
    zl_test_note("%u events logged in %u s; %u expected by the 4 clients, %u handed over, "
            "%u missing (%u counted aged out); of others' events %u of %u played within "
            "one frame of their tick, 0 early",
            (unsigned)m.logged_count, (unsigned)(MATCH_US / 1000000u), (unsigned)total_expected,
            (unsigned)total_heard, (unsigned)total_missing, (unsigned)total_aged,
            (unsigned)m.heard_within_frame, (unsigned)m.heard_others);
}

/* 4 bots duel for 10 s at 100 ms round trip with 2 ms jitter and no loss:
 * each event reaches a client in at most ZL_EVENT_COPIES copies. */
static void test_match_copies_loss_free(void)
{
    uint32_t sent = 0, received = 0;
    int i;
    duel(100000u, 2000u, 0);
    zl_match_run(10000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    for (i = 0; i < BOTS; i++) {
        zl_server_client_stats ss;
        zl_client_stats cs;
        ZL_CHECK(zl_server_get_client_stats(&m.server, zl_client_slot(&m.client[i]),
                                            zl_test_time_us, &ss) == ZL_OK);
        zl_client_get_stats(&m.client[i], zl_test_time_us, &cs);
        ZL_CHECK(cs.events.received > 100u);
        ZL_CHECK(cs.events.duplicates <= cs.events.received * (ZL_EVENT_COPIES - 1u));
        sent += ss.events.sent;
        received += cs.events.received;
    }
    zl_test_note("%u events received, %u sent: %u.%02u copies each (ZL_EVENT_COPIES %u)",
                 (unsigned)received, (unsigned)sent, (unsigned)(sent / received),
                 (unsigned)(sent * 100u / received % 100u), (unsigned)ZL_EVENT_COPIES);
}

/* ---- The log, a sender and a queue over a simulated channel ---- */

#define CLIENT 1
#define DELAY 4      /* ticks a packet may wait: reordering */
#define IN_FLIGHT 16 /* packets a slot of the channel holds */

typedef struct flight {
    uint32_t tick;     /* of the snapshot */
    uint16_t sequence; /* the packet's */
    uint8_t bytes[ZL_MAX_PACKET];
} flight;

static zl_event_log log_;
static zl_schema_plan event_plan; /* fps_event_schema, prepared */
static zl_event_sender sender;
static zl_event_queue queue;

/* The section of the snapshot of `tick` for audience a, every event
 * against the zero event, as in a full snapshot (no reference). */
static int write_section(const zl_event_audience *a, uint32_t tick, uint32_t resend_ticks,
                         uint32_t budget_bits, zl_bitwriter *w, zl_event_section *sec)
{
    zl_event_ref none = {0, 0};
    zl_event_section_choose(&sender, &log_, a, NULL, &none, tick, sec);
    return zl_event_section_write(&log_, NULL, &none, tick, resend_ticks, budget_bits, w, sec);
}

/* Reads a section written by write_section. */
static int read_section(const zl_schema *schema, uint32_t tick, zl_bitreader *r)
{
    zl_event_ref none = {0, 0};
    return zl_event_section_read(&queue, schema, NULL, &none, tick, r);
}
static flight channel[DELAY + 1][IN_FLIGHT];
static uint32_t channel_count[DELAY + 1];
static int loss_free; /* the channel loses, copies and reorders nothing */

/* A random event of `source` at `tick`. */
static zl_event random_event(zl_test_rng *rng, int32_t source, uint32_t tick)
{
    zl_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = (uint16_t)zl_test_rng_range(rng, FPS_EV_FOOTSTEP, FPS_EV_RESPAWN);
    ev.param = (uint16_t)zl_test_rng_range(rng, 0, 1023);
    ev.source = source;
    ev.target = zl_test_rng_range(rng, -1, FPS_MAX_PLAYERS - 1);
    ev.origin.x = zl_test_rng_range(rng, -4096, 4095) * 65536;
    ev.origin.y = zl_test_rng_range(rng, -300, 300) * 8192;
    ev.tick = tick;
    return ev;
}

/* The client takes the packets due at `tick`; 4 acknowledgements in 5 get
 * back to the server. */
static void deliver(zl_test_rng *rng, uint32_t tick)
{
    uint32_t slot = tick % (DELAY + 1), k;
    for (k = 0; k < channel_count[slot]; k++) {
        const flight *f = &channel[slot][k];
        zl_bitreader r;
        zl_bitreader_init(&r, f->bytes, sizeof f->bytes);
        ZL_CHECK_EQ(read_section(&fps_event_schema, f->tick, &r), ZL_OK);
        if (loss_free || zl_test_rng_range(rng, 0, 4) > 0)
            zl_event_sender_acked(&sender, f->sequence);
    }
    channel_count[slot] = 0;
}

/* The snapshot of `tick`: lost 1 time in 5, else delivered 1 to DELAY
 * ticks later, a second copy 1 time in 10. */
static void send(zl_test_rng *rng, uint32_t tick, uint16_t sequence)
{
    zl_event_audience a = {CLIENT, NULL};
    zl_event_section sec;
    zl_bitwriter w;
    flight f;
    int copies = !loss_free && zl_test_rng_range(rng, 0, 9) == 0 ? 2 : 1;
    memset(&f, 0, sizeof f);
    f.tick = tick;
    f.sequence = sequence;
    zl_bitwriter_init(&w, f.bytes, sizeof f.bytes);
    ZL_CHECK(write_section(&a, tick, 6u, 8u * ZL_MAX_PACKET, &w, &sec) > 0);
    ZL_CHECK(zl_bitwriter_finish(&w) > 0);
    zl_event_sender_sent(&sender, sequence, &sec);
    for (; copies > 0; copies--) {
        uint32_t at = (tick + (loss_free ? DELAY : (uint32_t)zl_test_rng_range(rng, 1, DELAY))) %
                      (DELAY + 1);
        if ((loss_free || zl_test_rng_range(rng, 0, 4) > 0) && channel_count[at] < IN_FLIGHT)
            channel[at][channel_count[at]++] = f;
    }
}

/* The expected event (an id in the log) a handed-over one is, or -1. */
static int32_t find_expected(const uint32_t *expected, uint8_t *taken, uint32_t n,
                             const zl_event *ev)
{
    uint32_t k;
    for (k = 0; k < n; k++) {
        const zl_event_entry *e = &log_.entry[expected[k] & (ZL_EVENT_LOG - 1u)];
        zl_event logged;
        zl_bitreader r;
        if (taken[k] || e->tick != ev->tick || e->source != ev->source)
            continue;
        memset(&logged, 0, sizeof logged);
        zl_bitreader_init(&r, e->body, sizeof e->body);
        zl_schema_read_delta(&fps_event_schema, &r, NULL, &logged, ZL_SCHEMA_WIRE);
        if (logged.type == ev->type && logged.param == ev->param &&
            logged.target == ev->target && logged.origin.x == ev->origin.x &&
            logged.origin.y == ev->origin.y)
            return (int32_t)k;
    }
    return -1;
}

/* Every event reaches the client once, in tick order, through 20% loss,
 * 10% copies, reordering and lost acknowledgements, and none of its own
 * predicted ones comes back. */
static void test_section_exactly_once(void)
{
    static uint32_t expected[8192];
    static uint8_t taken[8192];
    uint32_t tick, n_expected = 0, n_heard = 0, unknown = 0, backwards = 0, last_tick = 0;
    zl_test_rng rng;
    zl_test_rng_seed(&rng, 22);
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    zl_event_queue_init(&queue);
    memset(channel_count, 0, sizeof channel_count);
    memset(taken, 0, sizeof taken);
    for (tick = 1; tick <= 3000; tick++) {
        zl_event out[ZL_CLIENT_EVENTS];
        int n, i;
        /* 0-3 events a tick, some the client's own predicted ones. */
        for (i = zl_test_rng_range(&rng, 0, 3); i > 0; i--) {
            int32_t source = zl_test_rng_range(&rng, -1, 3);
            int predicted = source >= 0 && zl_test_rng_range(&rng, 0, 1);
            zl_event ev = random_event(&rng, source, tick);
            ZL_CHECK_EQ(zl_event_log_append(&log_, &event_plan, &ev, predicted), ZL_OK);
            if (!(predicted && source == CLIENT) && n_expected < ZL_COUNTOF(expected))
                expected[n_expected++] = log_.next - 1u;
        }
        deliver(&rng, tick);
        /* Events are played 12 ticks after their own: the render delay. */
        n = zl_event_queue_take(&queue, tick - 12u, -2, out, (int)ZL_COUNTOF(out));
        for (i = 0; i < n; i++, n_heard++) {
            int32_t k = find_expected(expected, taken, n_expected, &out[i]);
            if (k < 0) {
                unknown++;
                continue;
            }
            taken[k] = 1;
            backwards += out[i].tick < last_tick;
            last_tick = out[i].tick;
        }
        send(&rng, tick, (uint16_t)tick);
    }
    ZL_CHECK_EQ(unknown, 0);
    ZL_CHECK_EQ(sender.stats.aged, 0);
    ZL_CHECK_EQ(sender.stats.overrun, 0);
    ZL_CHECK_EQ(queue.stats.dropped, 0);
    ZL_CHECK_EQ(queue.stats.stale, 0);
    /* All but those of the last ticks arrived. */
    ZL_CHECK(n_heard <= n_expected && n_heard + 40u >= n_expected);
    ZL_CHECK(queue.stats.duplicates > 0);
    zl_test_note("%u events for the client, %u handed over once each (%u after a later "
                 "tick's: they came late); %u copies dropped; %u events sent in all "
                 "(%u copies each)",
                 (unsigned)n_expected, (unsigned)n_heard, (unsigned)backwards,
                 (unsigned)queue.stats.duplicates, (unsigned)sender.stats.sent,
                 (unsigned)ZL_EVENT_COPIES);
}

/* On a channel that loses nothing (acknowledgements back DELAY ticks
 * after their snapshot, before the resend timer of 6 ticks),
 * each event goes out exactly ZL_EVENT_COPIES times: counted per event
 * in the sections as they arrive, each read on its own. */
static void test_copies_loss_free(void)
{
    enum { TICKS = 600 }; /* fewer events than the log holds */
    static uint32_t expected[4096], copies[4096];
    static uint8_t none[4096];
    uint32_t tick, k, n_expected = 0, counted = 0, most = 0, total = 0;
    zl_test_rng rng;
    zl_test_rng_seed(&rng, 23);
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    memset(channel_count, 0, sizeof channel_count);
    memset(copies, 0, sizeof copies);
    loss_free = 1;
    for (tick = 1; tick <= TICKS; tick++) {
        uint32_t slot = tick % (DELAY + 1);
        int i;
        /* 0-3 events a tick, each of another source: each one unlike any other. */
        for (i = zl_test_rng_range(&rng, 0, 3); i > 0; i--) {
            zl_event ev = random_event(&rng, i - 1, tick);
            ZL_CHECK_EQ(zl_event_log_append(&log_, &event_plan, &ev, 0), ZL_OK);
            if (n_expected < ZL_COUNTOF(expected))
                expected[n_expected++] = log_.next - 1u;
        }
        for (k = 0; k < channel_count[slot]; k++) {
            zl_event out[ZL_EVENTS_PER_SNAPSHOT];
            zl_bitreader r;
            int n;
            zl_event_queue_init(&queue);
            zl_bitreader_init(&r, channel[slot][k].bytes, sizeof channel[slot][k].bytes);
            ZL_CHECK_EQ(read_section(&fps_event_schema, channel[slot][k].tick, &r),
                        ZL_OK);
            n = zl_event_queue_take(&queue, tick, -2, out, (int)ZL_COUNTOF(out));
            for (i = 0; i < n; i++) {
                int32_t e = find_expected(expected, none, n_expected, &out[i]);
                ZL_CHECK(e >= 0);
                if (e >= 0)
                    copies[e]++;
            }
        }
        deliver(&rng, tick);
        send(&rng, tick, (uint16_t)tick);
    }
    loss_free = 0;
    for (k = 0; k < n_expected; k++) {
        if (log_.entry[expected[k] & (ZL_EVENT_LOG - 1u)].tick + 2u * DELAY > TICKS)
            continue; /* still on its way */
        counted++;
        total += copies[k];
        most = copies[k] > most ? copies[k] : most;
        ZL_CHECK_EQ(copies[k], ZL_EVENT_COPIES);
    }
    ZL_CHECK(counted > TICKS);
    zl_test_note("%u events, %u.%02u copies each on average, %u at most (ZL_EVENT_COPIES %u)",
                 (unsigned)counted, (unsigned)(total / counted),
                 (unsigned)(total * 100u / counted % 100u), (unsigned)most,
                 (unsigned)ZL_EVENT_COPIES);
}

/* A client that hears nothing: events older than ZL_EVENT_MAX_AGE ticks
 * are no longer sent and are counted; a full queue refuses and counts. */
static void test_aged_and_full(void)
{
    zl_event_audience a = {CLIENT, NULL};
    zl_event_section sec;
    uint8_t buf[ZL_MAX_PACKET];
    zl_bitwriter w;
    zl_bitreader r;
    zl_test_rng rng;
    uint32_t tick, i;
    zl_test_rng_seed(&rng, 7);
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    zl_event_queue_init(&queue);
    for (tick = 1; tick <= 10; tick++) {
        zl_event ev = random_event(&rng, 2, tick);
        zl_event_log_append(&log_, &event_plan, &ev, 0);
    }
    zl_bitwriter_init(&w, buf, sizeof buf);
    /* At tick 5 + the bound, ticks 1..4 are too old; 5..10 are not, yet. */
    ZL_CHECK(write_section(&a, 5u + ZL_EVENT_MAX_AGE, 1u, 8u * sizeof buf,
                                    &w, &sec) > 1);
    ZL_CHECK_EQ(sec.count, 6);
    ZL_CHECK_EQ(sender.stats.aged, 4);
    /* The budget: the end bit always fits, events only whole. */
    zl_bitwriter_init(&w, buf, sizeof buf);
    ZL_CHECK_EQ(write_section(&a, 12u, 1u, 20u, &w, &sec), 1);
    ZL_CHECK_EQ(sec.count, 0);
    ZL_CHECK_EQ(write_section(&a, 12u, 1u, 0u, &w, &sec), ZL_ERR_OVERFLOW);
    /* More events than the queue holds, none taken: the rest are counted. */
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    for (i = 0; i < ZL_CLIENT_EVENTS + 5u; i++) {
        zl_event ev = random_event(&rng, 2, 1);
        zl_event_log_append(&log_, &event_plan, &ev, 0);
    }
    for (i = 0; i < (ZL_CLIENT_EVENTS + 5u + ZL_EVENTS_PER_SNAPSHOT - 1u) / ZL_EVENTS_PER_SNAPSHOT;
         i++) {
        memset(buf, 0, sizeof buf);
        zl_bitwriter_init(&w, buf, sizeof buf);
        write_section(&a, 2u, 1u, 8u * sizeof buf, &w, &sec);
        zl_event_sender_sent(&sender, (uint16_t)i, &sec);
        zl_event_sender_acked(&sender, (uint16_t)i);
        zl_bitreader_init(&r, buf, sizeof buf);
        ZL_CHECK_EQ(read_section(&fps_event_schema, 2u, &r), ZL_OK);
    }
    ZL_CHECK_EQ(queue.stats.received, ZL_CLIENT_EVENTS);
    ZL_CHECK_EQ(queue.stats.dropped, 5);
}

/* With relevance, a client receives the events of the entities it sees,
 * those aimed at it and those without a source; never its own predicted. */
static void test_audience(void)
{
    static const struct {
        int32_t source, target;
        int predicted, heard;
    } cases[] = {
        {3, -1, 0, 1},     /* a relevant player's */
        {4, -1, 0, 0},     /* another's: not relevant */
        {4, CLIENT, 0, 1}, /* ... aimed at the client */
        {-1, -1, 0, 1},    /* the world's */
        {CLIENT, -1, 1, 0}, /* its own predicted */
        {CLIENT, 4, 0, 1},  /* its own, found by the server (a hit) */
    };
    uint8_t relevant[ZL_SNAPSHOT_BITMAP_BYTES], buf[ZL_MAX_PACKET];
    zl_event_audience a;
    zl_event_section sec;
    zl_event out[8];
    zl_bitwriter w;
    zl_bitreader r;
    zl_test_rng rng;
    uint32_t i;
    int n, k = 0;
    zl_test_rng_seed(&rng, 9);
    memset(relevant, 0, sizeof relevant);
    relevant[0] = (uint8_t)((1u << 3) | (1u << CLIENT));
    a.client = CLIENT;
    a.relevant = relevant;
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    zl_event_queue_init(&queue);
    for (i = 0; i < ZL_COUNTOF(cases); i++) {
        zl_event ev = random_event(&rng, cases[i].source, 1);
        ev.target = cases[i].target;
        zl_event_log_append(&log_, &event_plan, &ev, cases[i].predicted);
    }
    memset(buf, 0, sizeof buf);
    zl_bitwriter_init(&w, buf, sizeof buf);
    write_section(&a, 1u, 1u, 8u * sizeof buf, &w, &sec);
    zl_bitreader_init(&r, buf, sizeof buf);
    ZL_CHECK_EQ(read_section(&fps_event_schema, 1u, &r), ZL_OK);
    n = zl_event_queue_take(&queue, 1u, CLIENT, out, 8);
    for (i = 0; i < ZL_COUNTOF(cases); i++) {
        if (!cases[i].heard)
            continue;
        ZL_CHECK(k < n && out[k].source == cases[i].source && out[k].target == cases[i].target);
        k++;
    }
    ZL_CHECK_EQ(n, k);
}

/* Another player's event waits for the render time; the player's own goes
 * at once. */
static void test_due_on_the_timeline(void)
{
    zl_event out[4];
    zl_event_queue_init(&queue);
    memset(&queue.item[0], 0, sizeof queue.item[0]);
    queue.item[0].tick = 100;
    queue.item[0].source = 3;
    queue.item[1] = queue.item[0];
    queue.item[1].source = CLIENT;
    queue.count = 2;
    ZL_CHECK_EQ(zl_event_queue_take(&queue, 99u, CLIENT, out, 4), 1);
    ZL_CHECK_EQ(out[0].source, CLIENT);
    ZL_CHECK_EQ(zl_event_queue_take(&queue, 99u, CLIENT, out, 4), 0);
    ZL_CHECK_EQ(zl_event_queue_take(&queue, 100u, CLIENT, out, 4), 1);
    ZL_CHECK_EQ(out[0].source, 3);
}

/* Hostile bytes: whatever they are, the reader stops at the buffer's end
 * and counts what does not decode. */
static void test_hostile_sections(void)
{
    uint8_t buf[64];
    zl_test_rng rng;
    uint32_t i, errors = 0;
    zl_test_rng_seed(&rng, 5);
    zl_event_queue_init(&queue);
    for (i = 0; i < 20000; i++) {
        zl_bitreader r;
        uint32_t k, len = (uint32_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf);
        for (k = 0; k < len; k++)
            buf[k] = (uint8_t)zl_test_rng_u32(&rng);
        zl_bitreader_init(&r, buf, len);
        errors += read_section(&fps_event_schema, 1000u, &r) != ZL_OK;
        zl_event_queue_take(&queue, 0xFFFFFFFFu, 0, NULL, 0);
        queue.count = 0;
    }
    ZL_CHECK_EQ(queue.stats.malformed, errors);
    ZL_CHECK(errors > 0);
    /* Without an event schema any event is malformed. */
    buf[0] = 0xFF;
    {
        zl_bitreader r;
        zl_bitreader_init(&r, buf, 1);
        ZL_CHECK_EQ(read_section(NULL, 1u, &r), ZL_ERR_MALFORMED);
    }
}

/* The first id against the shared reference (PROTOCOL 9.2), through 25%
 * loss of snapshots and of acknowledgements, ids crossing 2^16: the
 * server codes each snapshot against the newest one acknowledged (the
 * client decoded it), keeping per sent snapshot the reference the client
 * keeps per frame, and both always agree; every event arrives once. */
static void test_reference_under_loss(void)
{
    enum { TICKS = 1500, SENT = 64 };
    static zl_event_ref server_ref[SENT], client_ref[SENT];
    static uint8_t carried[SENT];
    uint32_t tick, logged = 0, lost = 0, empty_base = 0, short_ids = 0, base = 0;
    int have_base = 0;
    zl_test_rng rng;
    zl_test_rng_seed(&rng, 37);
    zl_event_log_init(&log_);
    log_.next = 0xFFF0u; /* the ids wrap 16 bits early on */
    zl_event_sender_reset(&sender, &log_);
    zl_event_queue_init(&queue);
    for (tick = 1; tick <= TICKS + 40u; tick++) {
        zl_event_audience a = {CLIENT, NULL};
        zl_event out[ZL_CLIENT_EVENTS];
        zl_event_section sec;
        zl_event_ref ref = {0, 0}, none = {0, 0};
        uint32_t whole;
        uint8_t bytes[ZL_MAX_PACKET];
        zl_bitwriter w;
        zl_bitreader r;
        int i;
        /* 0-2 events a tick (none in the last 40: all get through), a
         * tick in three without any. */
        for (i = tick <= TICKS ? zl_test_rng_range(&rng, -1, 2) : 0; i > 0; i--) {
            zl_event ev = random_event(&rng, 2, tick);
            ZL_CHECK_EQ(zl_event_log_append(&log_, &event_plan, &ev, 0), ZL_OK);
            logged++;
        }
        if (have_base && tick - base < SENT)
            ref = server_ref[base % SENT];
        else
            have_base = 0;
        empty_base += have_base && ref.known && !carried[base % SENT];
        zl_bitwriter_init(&w, bytes, sizeof bytes);
        whole = zl_event_section_choose(&sender, &log_, &a, NULL, &none, tick, &sec);
        short_ids += zl_event_section_choose(&sender, &log_, &a, NULL, &ref, tick, &sec) < whole;
        ZL_CHECK(zl_event_section_write(&log_, NULL, &ref, tick, 6u, 8u * sizeof bytes, &w,
                                        &sec) > 0);
        ZL_CHECK(zl_bitwriter_finish(&w) > 0);
        zl_event_sender_sent(&sender, (uint16_t)tick, &sec);
        server_ref[tick % SENT] = ref;
        carried[tick % SENT] = sec.count > 0;
        if (zl_test_rng_range(&rng, 0, 3) == 0) {
            lost++;
            continue;
        }
        /* The client decodes it on the frame it was coded against. */
        if (have_base)
            client_ref[tick % SENT] = client_ref[base % SENT];
        else
            memset(&client_ref[tick % SENT], 0, sizeof client_ref[0]);
        zl_bitreader_init(&r, bytes, sizeof bytes);
        ZL_CHECK_EQ(zl_event_section_read(&queue, &fps_event_schema, NULL,
                                          &client_ref[tick % SENT], tick, &r),
                    ZL_OK);
        ZL_CHECK_EQ(client_ref[tick % SENT].known, server_ref[tick % SENT].known);
        ZL_CHECK_EQ(client_ref[tick % SENT].next, server_ref[tick % SENT].next);
        (void)zl_event_queue_take(&queue, tick, -2, out, (int)ZL_COUNTOF(out));
        if (zl_test_rng_range(&rng, 0, 3) > 0) {
            zl_event_sender_acked(&sender, (uint16_t)tick);
            base = tick;
            have_base = 1;
        }
    }
    ZL_CHECK(log_.next > 0x10000u);
    ZL_CHECK_EQ(queue.stats.received, logged);
    ZL_CHECK_EQ(queue.stats.stale, 0);
    ZL_CHECK(queue.stats.duplicates > 0);
    ZL_CHECK(lost > 0 && empty_base > 0 && short_ids > 0);
    zl_test_note("%u events, %u snapshots of %u lost, %u coded on a base that carried none, "
                 "%u sections' first ids shorter than 16 bits",
                 (unsigned)logged, (unsigned)lost, (unsigned)(TICKS + 40u),
                 (unsigned)empty_base, (unsigned)short_ids);
}

/* ---- The codes at their edges ---- */

/* The reader holds entities 1, 3 and 70 (ranks 0, 1, 2); players 1 and 3
 * stand where `standing` does, entity 70 offers no base. */
static fps_player standing;

static int holds_edge(const void *ctx, int32_t source)
{
    (void)ctx;
    return source == 1 || source == 3 || source == 70 ? ZL_EVENT_HOLDS_SAME : ZL_EVENT_HOLDS_NONE;
}

static int build_edge(const void *ctx, int32_t source, uint32_t which, zl_event *base)
{
    if (source != 1 && source != 3)
        return 0;
    memset(base, 0, sizeof *base);
    ((const zl_game *)ctx)->event_base(&standing, source, which, base);
    return 1;
}

static zl_event_bases edge_bases(const zl_game *rules, uint8_t *held, int shared)
{
    zl_event_bases b;
    memset(held, 0, ZL_EVENT_HELD_BYTES);
    held[0] = 0x0A; /* 1 and 3 */
    held[70 / 8] |= 1u << (70 % 8);
    b.count = rules->event_bases;
    b.held = held;
    b.every = shared ? held : NULL;
    b.holds = holds_edge;
    b.build = build_edge;
    b.ctx = rules;
    b.plan = &event_plan;
    return b;
}

/* Each field's code has the length PROTOCOL 9.2 gives it at its edges, in
 * a full snapshot's section (no reference): the first event's id in 16
 * bits, ages 0 (1 bit) and 255 (17), a held source by its rank (1 + 2
 * bits among 3 held), one not held, a player or none, whole (1 + 8 bits
 * for -1 .. 255), base 1 in 1 bit, the zero event in 2; and they decode
 * to the events logged. Written for it alone (the world holds other
 * entities) or from the tick's shared code (it holds every entity of the
 * world), the section is the same. */
static void codes_at_their_edges(int shared)
{
    const zl_game rules = fps_game_interface(NULL);
    const uint32_t tick = 1000u;
    static const int32_t sources[4] = {3, 200, 70, -1};
    uint8_t held[ZL_EVENT_HELD_BYTES], buf[64];
    zl_event_bases b = edge_bases(&rules, held, shared);
    zl_event_audience a = {CLIENT, NULL};
    zl_event_ref ref = {0, 0};
    zl_event_section sec;
    zl_event out[4];
    zl_bitwriter w;
    zl_bitreader r;
    uint32_t i, want;
    memset(&standing, 0, sizeof standing);
    standing.origin.x = ZL_FX_INT(812);
    standing.origin.y = -ZL_FX_INT(1530);
    zl_event_log_init(&log_);
    zl_event_sender_reset(&sender, &log_);
    zl_event_queue_init(&queue);
    for (i = 0; i < 4; i++) {
        zl_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = FPS_EV_FOOTSTEP;
        ev.origin = standing.origin; /* base 1 of players 1 and 3 exactly */
        ev.target = -1;
        ev.source = sources[i];
        ev.tick = i == 0 ? tick - ZL_EVENT_MAX_AGE : tick;
        ZL_CHECK_EQ(zl_event_log_append(&log_, &event_plan, &ev, 0), ZL_OK);
    }
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_event_section_choose(&sender, &log_, &a, &b, &ref, tick, &sec);
    ZL_CHECK_EQ(sec.count, 4u);
    ZL_CHECK(zl_event_section_write(&log_, &b, &ref, tick, 1u, 8u * sizeof buf, &w, &sec) > 0);
    ZL_CHECK(zl_bitwriter_finish(&w) > 0);
    /* [1][id 16][age 255: 17][1, rank 1: 2][base 1: 1][unchanged: 1] */
    want = 1u + 16u + 17u + 3u + 1u + 1u;
    /* [1][follows][age 0][0, 200 whole][body against zero] */
    want += 2u + 1u + 1u + zl_bits_required(ZL_MAX_ENTITIES) + log_.entry[1].bits;
    /* [1][follows][age 0][1, rank 2: 2][zero event: 0, 0][body] */
    want += 2u + 1u + 3u + 2u + log_.entry[2].bits;
    /* [1][follows][age 0][0, -1 whole][body], then the end */
    want += 2u + 1u + 1u + zl_bits_required(ZL_MAX_ENTITIES) + log_.entry[3].bits + 1u;
    ZL_CHECK_EQ(sec.bits, want);
    memset(&ref, 0, sizeof ref);
    zl_bitreader_init(&r, buf, sizeof buf);
    ZL_CHECK_EQ(zl_event_section_read(&queue, &fps_event_schema, &b, &ref, tick, &r), ZL_OK);
    ZL_CHECK_EQ(queue.stats.bits, want);
    ZL_CHECK_EQ(zl_event_queue_take(&queue, tick, CLIENT, out, 4), 4);
    for (i = 0; i < 4; i++) {
        ZL_CHECK_EQ(out[i].source, sources[i]);
        ZL_CHECK_EQ(out[i].tick, i == 0 ? tick - ZL_EVENT_MAX_AGE : tick);
        ZL_CHECK_EQ(out[i].type, FPS_EV_FOOTSTEP);
        ZL_CHECK_EQ(out[i].origin.x, standing.origin.x);
    }
}

static void test_codes_at_their_edges(void)
{
    codes_at_their_edges(0);
    codes_at_their_edges(1);
}

/* Reads `bits` (lowest first) as a full snapshot's section for the
 * reader of edge_bases. */
static int read_bits(uint64_t bits, uint32_t count)
{
    const zl_game rules = fps_game_interface(NULL);
    uint8_t held[ZL_EVENT_HELD_BYTES], buf[16];
    zl_event_bases b = edge_bases(&rules, held, 0);
    zl_event_ref ref = {0, 0};
    zl_bitwriter w;
    zl_bitreader r;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, (uint32_t)bits, count < 32u ? count : 32u);
    if (count > 32u)
        zl_bitwriter_bits(&w, (uint32_t)(bits >> 32), count - 32u);
    zl_bitwriter_bits(&w, 0, 32); /* a footstep's body needs a few more */
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    zl_event_queue_init(&queue);
    return zl_event_section_read(&queue, &fps_event_schema, &b, &ref, 1000u, &r);
}

/* What the codes cannot say is refused: a rank past the entities held, a
 * held source sent whole, an age past 255, an age code longer than 17 bits. */
static void test_codes_refused(void)
{
    /* [1][id 0: 16] then [age 0: 1][1, rank 3 of 3] */
    const uint64_t lead = 1u;
    ZL_CHECK_EQ(read_bits(lead | 1u << 17 | 1u << 18 | 3u << 19, 23), ZL_ERR_MALFORMED);
    /* The same with rank 2 (entity 70, no base there: the zero event), read. */
    ZL_CHECK_EQ(read_bits(lead | 1u << 17 | 1u << 18 | 2u << 19, 24), ZL_OK);
    ZL_CHECK_EQ(queue.count, 1u);
    ZL_CHECK_EQ(queue.item[0].source, 70);
    /* [age 0][0, 3 whole: 3 + 1 in 9 bits]: 3 is held, it goes by rank. */
    ZL_CHECK_EQ(read_bits(lead | 1u << 17 | 4u << 19, 28), ZL_ERR_MALFORMED);
    /* [0, 5 whole] is fine: 5 is not held; the zero event follows. */
    ZL_CHECK_EQ(read_bits(lead | 1u << 17 | 6u << 19, 28), ZL_OK);
    ZL_CHECK_EQ(queue.item[0].source, 5);
    /* Age 256: 8 zero bits, a 1 and 8 bits of 1 (256 + 1 - 1). */
    ZL_CHECK_EQ(read_bits(lead | (uint64_t)1u << 25 | (uint64_t)1u << 26, 40), ZL_ERR_MALFORMED);
    /* Age 255: 8 zero bits, a 1 and 8 zero bits; then [0, 5 whole]. */
    ZL_CHECK_EQ(read_bits(lead | (uint64_t)1u << 25 | (uint64_t)6u << 35, 44), ZL_OK);
    ZL_CHECK_EQ(queue.item[0].tick, 1000u - 255u);
    /* 9 zero bits: longer than any age. */
    ZL_CHECK_EQ(read_bits(lead | (uint64_t)1u << 26, 40), ZL_ERR_MALFORMED);
}

void zl_suite_events(void)
{
    (void)zl_schema_plan_init(&event_plan, &fps_event_schema);
    ZL_RUN(test_section_exactly_once);
    ZL_RUN(test_copies_loss_free);
    ZL_RUN(test_reference_under_loss);
    ZL_RUN(test_aged_and_full);
    ZL_RUN(test_audience);
    ZL_RUN(test_due_on_the_timeline);
    ZL_RUN(test_hostile_sections);
    ZL_RUN(test_codes_at_their_edges);
    ZL_RUN(test_codes_refused);
    ZL_RUN(test_events_exactly_once);
    ZL_RUN(test_match_copies_loss_free);
}
