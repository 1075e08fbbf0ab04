/* test_session.c - beyond one match: a used client connects again, a server
 * restarts or dies, the map changes under connected clients (zl_match.h). */
#include <string.h>

#include "zl_match.h"
#include "zl_test.h"

#define BOTS ZL_MATCH_BOTS
#define m zl_match_world
#define RTT_US 100000u
/* A new session must play within the handshake (two round trips) and one
 * more round trip (its first snapshot down, its first command up), plus
 * the ticks and frames that wait on the way: the server's tick and
 * snapshot (15.6 ms each at 64 Hz), the client's frame (8 ms) and command
 * packet (15.6 ms). */
#define PLAY_BOUND_US (3u * RTT_US + 80000u)

static void start(int plain, uint32_t rtt_us, uint32_t jitter_us, uint32_t loss_ppm)
{
    zl_match_setup s;
    memset(&s, 0, sizeof s);
    s.rtt_us = rtt_us;
    s.jitter_us = jitter_us;
    s.loss_ppm = loss_ppm;
    s.lag_compensation = 1;
    s.style = ZL_MATCH_DUEL;
    s.firing = 1;
    s.plain = plain;
    zl_match_start(&s);
}

/* A token for bot i from the match's backend, new for each `generation`:
 * other session keys and another nonce than zl_match_mint's. */
static void mint(int i, int generation, zl_connect_token *t)
{
    zl_token_grant g;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    uint64_t now_s = ZL_MATCH_UNIX_S + (zl_test_time_us - 1000000u) / 1000000u;
    memset(&g, 0, sizeof g);
    g.client_id = 2000u + (uint64_t)i;
    g.timeout_s = 5;
    g.address_count = 1;
    g.addresses[0] = m.server_addr;
    memset(g.client_key, 0x40 + 16 * generation + i, sizeof g.client_key);
    memset(g.server_key, 0x80 + 16 * generation + i, sizeof g.server_key);
    memset(nonce, 0xC0 + 16 * generation + i, sizeof nonce);
    ZL_CHECK_EQ(zl_token_mint(t, &g, now_s, now_s + 600u, nonce, zl_match_key), ZL_OK);
}

static zl_connect_token fresh_token[BOTS];

/* Connects bot i again on its used client object: plainly, or with a
 * token of that generation. The harness's count of the commands its slot
 * ran starts over (a new session numbers its commands from 1). */
static void reconnect(int i, int plain, int generation)
{
    if (plain) {
        zl_client_connect(&m.client[i], &m.server_addr, zl_test_time_us);
    } else {
        mint(i, generation, &fresh_token[i]);
        ZL_CHECK_EQ(zl_client_connect_token(&m.client[i], &fresh_token[i], zl_test_time_us),
                    ZL_OK);
    }
}

/* How a session plays from its start (the connect call at start_us). */
typedef struct session_play {
    uint64_t start_us;
    uint32_t connected_us; /* until CONNECTED (0: never) */
    uint32_t played_us;    /* until the server ran a command of it (0: never) */
    uint32_t first;        /* the first command run */
    uint32_t ran;          /* commands of it the server ran */
} session_play;

static session_play play[BOTS];

/* Runs the match for us microseconds, timing each bot's session: when it
 * connects and when the server first runs one of its commands. */
static void run_timed(uint32_t us)
{
    uint32_t t;
    int i;
    for (t = 0; t < us; t += 1000u) {
        zl_match_run(1000u);
        for (i = 0; i < BOTS; i++) {
            session_play *p = &play[i];
            int slot = zl_client_slot(&m.client[i]);
            uint32_t since = (uint32_t)(zl_test_time_us - p->start_us);
            if (zl_client_state(&m.client[i]) != ZL_CLIENT_CONNECTED)
                continue;
            if (!p->connected_us) {
                p->connected_us = since;
                /* The harness's newest command run restarts with the
                 * session (an old one's may still arrive before). */
                if (slot < BOTS)
                    m.last_run[slot] = 0;
            }
            if (slot < BOTS && m.last_run[slot] != 0) {
                if (!p->played_us) {
                    p->played_us = since;
                    p->first = m.last_run[slot];
                }
                p->ran = m.last_run[slot] - p->first + 1u;
            }
        }
    }
}

/* Starts timing every bot's new session now. */
static void time_sessions(void)
{
    int i;
    memset(play, 0, sizeof play);
    memset(m.last_run, 0, sizeof m.last_run);
    for (i = 0; i < BOTS; i++)
        play[i].start_us = zl_test_time_us;
}

/* What a client's session did: its counters start with it. */
typedef struct session_check {
    uint32_t decoded, undecodable, left, refused_full, mispredicted;
} session_check;

static void session_counts(int i, session_check *out)
{
    zl_client_stats st;
    zl_client_get_stats(&m.client[i], zl_test_time_us, &st);
    out->decoded = st.snapshots;
    out->undecodable = st.snapshots_undecodable;
    out->left = st.snapshots_left;
    out->refused_full = st.predict.refused_full;
    out->mispredicted = st.predict.mispredicted;
}

/* Bot i's new session, run_us after its connect call, plays: connected,
 * its first command run within PLAY_BOUND_US, then commands run and
 * snapshots decoded steadily (at least one per 20 ms), none undecodable
 * and none refused by a full prediction. */
static void check_plays(int i, uint32_t run_us, session_check *out)
{
    session_counts(i, out);
    ZL_CHECK_EQ(zl_client_state(&m.client[i]), ZL_CLIENT_CONNECTED);
    ZL_CHECK(play[i].played_us > 0 && play[i].played_us <= PLAY_BOUND_US);
    ZL_CHECK(play[i].ran > run_us / 20000u);
    ZL_CHECK(out->decoded > run_us / 20000u);
    ZL_CHECK_EQ(out->undecodable, 0);
    ZL_CHECK_EQ(out->refused_full, 0);
}

/* (a) A used client connects again on the same object, after quitting:
 * a new nonce, and it plays (commands run on the server, snapshots
 * decode, prediction never full) within a round trip plus the handshake. */
static void reconnect_after_quit(int plain)
{
    uint64_t nonce[BOTS];
    uint32_t worst = 0;
    int i;
    start(plain, RTT_US, 0, 0);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    for (i = 0; i < BOTS; i++) {
        nonce[i] = m.client[i].conn.nonce;
        zl_client_disconnect(&m.client[i], zl_test_time_us);
        ZL_CHECK_EQ(zl_client_state(&m.client[i]), ZL_CLIENT_DISCONNECTED);
    }
    /* The goodbyes reach the server: every slot is free again. */
    zl_match_run(RTT_US);
    ZL_CHECK_EQ(zl_server_client_count(&m.server), 0);
    time_sessions();
    for (i = 0; i < BOTS; i++) {
        reconnect(i, plain, 1);
        ZL_CHECK(m.client[i].conn.nonce != nonce[i]);
    }
    run_timed(1000000u);
    for (i = 0; i < BOTS; i++) {
        session_check sc;
        check_plays(i, 1000000u, &sc);
        if (play[i].played_us > worst || !play[i].played_us)
            worst = play[i].played_us ? play[i].played_us : 0xFFFFFFFFu;
        if (i == 0)
            zl_test_note("%s, %u ms round trip: connected in %u ms, first command run in %u ms; "
                         "in 1 s %u commands run, %u snapshots decoded, %u undecodable, "
                         "%u commands refused (prediction full)",
                         plain ? "plain" : "token", RTT_US / 1000u, play[i].connected_us / 1000u,
                         play[i].played_us / 1000u, play[i].ran, sc.decoded, sc.undecodable,
                         sc.refused_full);
    }
    zl_test_note("slowest of %d: first command run %u ms after connect (bound %u ms)", BOTS,
                 worst == 0xFFFFFFFFu ? 0u : worst / 1000u, PLAY_BOUND_US / 1000u);
    ZL_CHECK_EQ(m.repeats, 0);
}

static void test_reconnect_plain(void)
{
    reconnect_after_quit(1);
}

static void test_reconnect_token(void)
{
    reconnect_after_quit(0);
}

/* A client still connected connects again: it says goodbye first, so the
 * server frees its old slot at once (a QUIT notice, not a timeout) and
 * seats the new session beside the others. */
static void test_reconnect_while_connected(void)
{
    zl_server_notice notice;
    int old_slot, quits = 0, timeouts = 0;
    start(0, RTT_US, 0, 0);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    while (zl_server_next_notice(&m.server, &notice))
        ;
    old_slot = zl_client_slot(&m.client[0]);
    time_sessions();
    reconnect(0, 0, 1);
    run_timed(1000000u);
    while (zl_server_next_notice(&m.server, &notice)) {
        quits += notice.kind == ZL_NOTICE_LEAVE && notice.slot == old_slot &&
                 notice.reason == ZL_DISCONNECT_QUIT;
        timeouts += notice.kind == ZL_NOTICE_LEAVE && notice.reason == ZL_DISCONNECT_TIMEOUT;
    }
    ZL_CHECK_EQ(quits, 1);
    ZL_CHECK_EQ(timeouts, 0);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    ZL_CHECK_EQ(zl_server_client_count(&m.server), BOTS);
    {
        session_check sc;
        check_plays(0, 1000000u, &sc);
    }
}

/* (b) The server stops cleanly: every client is told at once (one
 * delivery: the one-way delay) with the reason SHUTDOWN. A new server
 * starts at the same address; the clients connect again with new tokens
 * on their used objects and play. */
static void test_server_restart(void)
{
    zl_server_config sc;
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    uint32_t old_tick;
    int i;
    start(0, RTT_US, 0, 0);
    zl_match_run(3000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    zl_server_shutdown(&m.server, zl_test_time_us);
    zl_match_run(RTT_US / 2u + 1000u);
    for (i = 0; i < BOTS; i++) {
        ZL_CHECK_EQ(zl_client_state(&m.client[i]), ZL_CLIENT_DISCONNECTED);
        ZL_CHECK_EQ(zl_client_reason(&m.client[i]), ZL_DISCONNECT_SHUTDOWN);
    }
    /* A new server process: its own secret, its game loaded afresh, its
     * ticks from 0 (the old one had run about 190). */
    old_tick = zl_server_tick(&m.server);
    zl_server_config_default(&sc);
    sc.max_clients = BOTS;
    memcpy(sc.private_key, zl_match_key, sizeof zl_match_key);
    sc.public_address_count = 1;
    sc.public_addresses[0] = m.server_addr;
    sc.unix_time_s = ZL_MATCH_UNIX_S + (zl_test_time_us - 1000000u) / 1000000u;
    memset(secret, 0x44, sizeof secret);
    fps_game_init(&m.game);
    ZL_CHECK_EQ(zl_server_init(&m.server, &sc, &m.rules, &m.server_hal, secret, zl_test_time_us),
                ZL_OK);
    m.logged_next = 0; /* the harness reads the new server's event log */
    zl_match_run(100000u);
    time_sessions();
    for (i = 0; i < BOTS; i++)
        reconnect(i, 0, 2);
    run_timed(2000000u);
    for (i = 0; i < BOTS; i++) {
        session_check c;
        check_plays(i, 2000000u, &c);
        if (i == 0)
            zl_test_note("restart (old server at tick %u, new one at %u): first command run "
                         "%u ms after connect; in 2 s %u commands run, %u snapshots decoded, "
                         "%u undecodable, %u commands refused (prediction full)",
                         old_tick, zl_server_tick(&m.server), play[i].played_us / 1000u,
                         play[i].ran, c.decoded, c.undecodable, c.refused_full);
    }
}

/* (d) A server that dies without a word: each client reports TIMED_OUT
 * once the timeout it was configured with has passed since it last heard
 * the server, and not before. */
static void test_dead_server_times_out(void)
{
    static const uint32_t timeout_us[BOTS > 1 ? 2 : 1] = {
        1500000u,
#if BOTS > 1
        800000u
#endif
    };
    zl_client_config cc;
    zl_conditioner_settings deaf;
    uint64_t timed_out_at[BOTS];
    uint32_t k;
    int i;
    start(0, RTT_US, 0, 0);
    zl_client_config_default(&cc);
    for (i = 0; i < BOTS; i++) {
        cc.timeout_us = timeout_us[i % (BOTS > 1 ? 2 : 1)];
        ZL_CHECK_EQ(zl_client_init(&m.client[i], &cc, &m.client_rules, &m.client_hal[i],
                                   0x7100u + (uint64_t)i),
                    ZL_OK);
        ZL_CHECK_EQ(zl_client_connect_token(&m.client[i], &m.token[i], zl_test_time_us), ZL_OK);
    }
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    /* The server falls silent: nothing of it reaches any client again. */
    memset(&deaf, 0, sizeof deaf);
    deaf.enabled = 1;
    deaf.loss_ppm = 1000000u;
    for (i = 0; i < BOTS; i++) {
        zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_RECEIVE, &deaf);
        timed_out_at[i] = 0;
    }
    for (k = 0; k < 2000u; k++) {
        zl_match_run(1000u);
        for (i = 0; i < BOTS; i++)
            if (!timed_out_at[i] && zl_client_state(&m.client[i]) == ZL_CLIENT_TIMED_OUT)
                timed_out_at[i] = zl_test_time_us;
    }
    for (i = 0; i < BOTS; i++) {
        uint64_t heard = m.client[i].last_heard_us;
        uint32_t limit = m.client[i].config.timeout_us;
        ZL_CHECK(timed_out_at[i] != 0);
        ZL_CHECK_EQ(zl_client_reason(&m.client[i]), ZL_DISCONNECT_TIMEOUT);
        ZL_CHECK(timed_out_at[i] - heard > limit);
        ZL_CHECK(timed_out_at[i] - heard <= limit + 1000u);
        if (i < 2)
            zl_test_note("timeout %u ms: TIMED_OUT %u ms after the server was last heard",
                         limit / 1000u, (uint32_t)(timed_out_at[i] - heard) / 1000u);
    }
}

/* ---- (c) A new match on the same connections ---- */

#define MATCH_ID 7u
#define FRESH (BOTS - 1) /* the bot that joins the new match afresh */

/* Before the change the bots run and fire at each other as drawn (their
 * states, health and the world drift from the spawn); after it they stand
 * still, so every honest view of the new match is the same picture. */
static int idle;

static void change_command(int i, zl_usercmd *c)
{
    uint32_t f = m.frame;
    const fps_player *me = (const fps_player *)zl_client_predicted(&m.client[i]);
    int target = zl_client_slot(&m.client[(i + 1) % BOTS]);
    const fps_player *it = (const fps_player *)zl_client_entity(&m.client[i], target);
    memset(c, 0, sizeof *c);
    c->msec = (uint16_t)(ZL_MATCH_FRAME_US / 1000u);
    c->seed = (uint8_t)(f * 7u + (uint32_t)i);
    if (idle)
        return;
    c->forward = 100;
    c->side = (int8_t)((f / 40u + (uint32_t)i) % 2u ? 110 : -110);
    c->yaw = (zl_angle)(f * (uint32_t)(150 + 30 * i));
    if (me && it) {
        c->yaw = zl_atan2(it->origin.y - me->origin.y, it->origin.x - me->origin.x);
        if (f % 4u == (uint32_t)i % 4u)
            c->buttons |= FPS_BUTTON_ATTACK;
    }
}

static int32_t no_sight(int i, const zl_event *shot)
{
    (void)i;
    (void)shot;
    return -1;
}

static const zl_match_game change_bots = {NULL, change_command, no_sight, FPS_EV_FIRE, FPS_EV_HIT};

/* What one side holds of the world, hashed: every entity number, whether
 * it is there, and the fields every client receives of it (ZL_SCHEMA_SHARED:
 * a player's owner-only fields reach its own client alone). A client's own
 * player is its prediction, everyone else as it draws them; the server's
 * is its truth. */
static uint32_t mix(uint32_t h, uint32_t v)
{
    return (h ^ v) * 16777619u;
}

static uint32_t world_hash(int client)
{
    uint32_t h = ZL_SCHEMA_HASH_INIT, scratch[ZL_STATE_MAX / 4];
    int e;
    for (e = 0; e < ZL_MAX_CLIENTS + m.client_rules.max_entities; e++) {
        const zl_schema *schema = e < ZL_MAX_CLIENTS ? &fps_player_schema : &fps_entity_schema;
        const void *state;
        if (client >= 0) {
            const zl_client *c = &m.client[client];
            state = e == zl_client_slot(c) ? zl_client_predicted(c) : zl_client_entity(c, e);
        } else if (e < ZL_MAX_CLIENTS) {
            state = zl_server_player(&m.server, e);
        } else {
            state = m.rules.entity_state(m.rules.ctx, e - ZL_MAX_CLIENTS, scratch) ? scratch
                                                                                   : NULL;
        }
        h = mix(h, (uint32_t)e << 1 | (state != NULL));
        if (state)
            h = zl_schema_hash(schema, state, ZL_SCHEMA_SHARED, h);
    }
    return h;
}

/* Bot i's link both ways: half the round trip, 10 ms of jitter, 2% loss
 * and 30% of datagrams held back 60 ms (so the notice of the new match
 * overtakes the old one's last snapshots); deaf: its downlink hears
 * nothing. */
static void set_link(int i, int deaf)
{
    zl_conditioner_settings cs;
    memset(&cs, 0, sizeof cs);
    cs.enabled = 1;
    cs.latency_us = RTT_US / 2u;
    cs.jitter_us = 10000u;
    cs.loss_ppm = 20000u;
    cs.reorder_ppm = 300000u;
    cs.reorder_delay_us = 60000u;
    zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_SEND, &cs);
    if (deaf)
        cs.loss_ppm = 1000000u;
    zl_conditioner_configure(&m.cond[i], ZL_CONDITIONER_RECEIVE, &cs);
}

/* A match plays for a while; one bot leaves; the application reloads its
 * game and starts match 7 on the same connections. Every remaining client
 * is told, drops the old match and plays the new one with the same slot
 * and no new token; a fresh client then joins the new match. Once every
 * bot stands still, each client's view (its predicted player and every
 * entity it draws) is exactly the server's world and the fresh client's:
 * nothing of the old match is left anywhere. */
static void test_match_change(void)
{
    zl_match_setup setup;
    zl_client_config cc;
    zl_client_notice notice;
    uint32_t old_run[BOTS], noticed_us[BOTS], snapshot_us[BOTS], playing_us[BOTS];
    uint32_t old_tick, first_tick, k, slowest_notice = 0, slowest_play = 0;
    uint32_t fastest_notice = 0xFFFFFFFFu, stale = 0, heard_before[BOTS], j;
    int slot[BOTS], i;
    uint64_t change_us;
    memset(&setup, 0, sizeof setup);
    setup.lag_compensation = 1;
    setup.game = &change_bots;
    idle = 0;
    zl_match_start(&setup);
    for (i = 0; i < BOTS; i++)
        set_link(i, 0);
    zl_match_run(3000000u);
    ZL_CHECK_EQ(zl_match_connected(), BOTS);
    zl_client_disconnect(&m.client[FRESH], zl_test_time_us);
    zl_match_run(RTT_US);
    ZL_CHECK_EQ(zl_server_client_count(&m.server), BOTS - 1);
    for (i = 0; i < BOTS; i++) {
        slot[i] = zl_client_slot(&m.client[i]);
        old_run[i] = m.last_run[slot[i]];
        noticed_us[i] = snapshot_us[i] = playing_us[i] = 0;
    }
    ZL_CHECK(m.fire_events > 0 && m.server_hits > 0); /* the old match was played */
    /* The application loads the new map: its game afresh, then the server. */
    idle = 1;
    fps_game_init(&m.game);
    old_tick = zl_server_tick(&m.server);
    change_us = zl_test_time_us;
    ZL_CHECK_EQ(zl_server_change_match(&m.server, MATCH_ID, zl_test_time_us), BOTS - 1);
    ZL_CHECK_EQ(zl_server_change_match(&m.server, MATCH_ID + 1u, zl_test_time_us), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(zl_server_match(&m.server), MATCH_ID);
    first_tick = old_tick + 1u;
    /* Bot 0 hears nothing for the first 150 ms: it learns of the change
     * from a repeat of the notice, and nothing of the new match may reach
     * it before. */
    set_link(0, 1);
    for (k = 0; k < 1500u; k++) {
        if (k == 150u)
            set_link(0, 0);
        zl_match_run(1000u);
        for (i = 0; i < FRESH; i++) {
            uint32_t since = (uint32_t)(zl_test_time_us - change_us);
            uint32_t run = m.last_run[slot[i]];
            if (zl_client_next_notice(&m.client[i], &notice)) {
                ZL_CHECK(!noticed_us[i]); /* once */
                noticed_us[i] = since;
                ZL_CHECK_EQ(notice.kind, ZL_CLIENT_NOTICE_MATCH);
                ZL_CHECK_EQ(notice.match_id, MATCH_ID);
                ZL_CHECK_EQ(notice.tick, first_tick);
                /* The old match is gone at once: nothing predicted or drawn. */
                ZL_CHECK(zl_client_predicted(&m.client[i]) == NULL);
                ZL_CHECK(zl_client_latest(&m.client[i]) == NULL);
                heard_before[i] = m.heard_count[i];
            }
            /* Before the notice, only the old match. */
            if (!noticed_us[i] && zl_client_latest(&m.client[i]))
                ZL_CHECK(zl_client_latest(&m.client[i])->tick < first_tick);
            if (!snapshot_us[i] && noticed_us[i] && zl_client_latest(&m.client[i])) {
                snapshot_us[i] = since;
                ZL_CHECK(zl_client_latest(&m.client[i])->tick >= first_tick);
            }
            /* No command of the old match runs after the change: the
             * newest run stays, then jumps to the new numbering. */
            ZL_CHECK(run == old_run[i] || run - old_run[i] > (uint32_t)ZL_PREDICT_COMMANDS);
            if (!playing_us[i] && run != old_run[i])
                playing_us[i] = since;
            ZL_CHECK_EQ(zl_client_state(&m.client[i]), ZL_CLIENT_CONNECTED);
            ZL_CHECK_EQ(zl_client_slot(&m.client[i]), slot[i]);
        }
        /* A fresh client object joins the new match. */
        if (k == 300u) {
            zl_client_config_default(&cc);
            ZL_CHECK_EQ(zl_client_init(&m.client[FRESH], &cc, &m.client_rules,
                                       &m.client_hal[FRESH], 0xF7E5u),
                        ZL_OK);
            reconnect(FRESH, 0, 3);
            m.last_run[slot[FRESH]] = 0; /* the harness's count restarts with it */
        }
    }
    for (i = 0; i < FRESH; i++) {
        session_check sc;
        session_counts(i, &sc);
        ZL_CHECK(noticed_us[i] > 0 && snapshot_us[i] >= noticed_us[i] && playing_us[i] > 0);
        /* Playing two round trips after the notice: its acknowledgement
         * up, the first snapshot down, a command up (and the ticks and
         * frames on the way). */
        ZL_CHECK(playing_us[i] - noticed_us[i] <= 2u * RTT_US + 80000u);
        stale += sc.left;
        /* Every event handed over since is the new match's. */
        for (j = heard_before[i]; j < m.heard_count[i]; j++)
            ZL_CHECK(m.heard[i][j].tick >= first_tick);
        ZL_CHECK_EQ(sc.refused_full, 0);
        ZL_CHECK_EQ(sc.mispredicted, 0);
        slowest_notice = noticed_us[i] > slowest_notice ? noticed_us[i] : slowest_notice;
        fastest_notice = noticed_us[i] < fastest_notice ? noticed_us[i] : fastest_notice;
        slowest_play = playing_us[i] > slowest_play ? playing_us[i] : slowest_play;
    }
    ZL_CHECK(stale > 0); /* the overtaking happened, and was caught */
    ZL_CHECK_EQ(zl_client_state(&m.client[FRESH]), ZL_CLIENT_CONNECTED);
    ZL_CHECK(!zl_client_next_notice(&m.client[FRESH], &notice));
    zl_test_note("map change at %u ms round trip, 2%% loss, 30%% reordered: clients told within %u ms (%u ms for "
                 "the one deaf for 150 ms), first snapshot of the new match and commands running "
                 "within %u ms; %u snapshots of the old match overtaken by the notice, dropped",
                 RTT_US / 1000u, fastest_notice / 1000u, slowest_notice / 1000u,
                 slowest_play / 1000u, stale);
    /* Everyone stands still: the views settle on the same picture. */
    zl_match_run(2000000u);
    {
        uint32_t truth = world_hash(-1);
        for (i = 0; i < BOTS; i++) {
            const void *own = zl_client_predicted(&m.client[i]);
            const void *real = zl_server_player(&m.server, zl_client_slot(&m.client[i]));
            ZL_CHECK_EQ(world_hash(i), truth);
            /* Its own player to the last field it is sent. */
            ZL_CHECK(own && real && zl_schema_equal(&fps_player_schema, own, real, ZL_SCHEMA_WIRE));
        }
        zl_test_note("views after the change: the server's world 0x%x, the fresh client's "
                     "0x%x, the changed clients' 0x%x 0x%x 0x%x",
                     truth, world_hash(FRESH), world_hash(0), world_hash(BOTS > 1 ? 1 : 0),
                     world_hash(BOTS > 2 ? 2 : 0));
    }
    ZL_CHECK_EQ(m.repeats, 0);
}

void zl_suite_session(void)
{
    ZL_RUN(test_reconnect_plain);
    ZL_RUN(test_reconnect_token);
    ZL_RUN(test_reconnect_while_connected);
    ZL_RUN(test_server_restart);
    ZL_RUN(test_dead_server_times_out);
    ZL_RUN(test_match_change);
}
