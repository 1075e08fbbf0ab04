/* test_record.c - match records: written live and replayed to the live hash,
 * a record made on the host replayed to its pinned hash, hostile records, the kill cam. */
#include <string.h>

#include "zl_match.h"
#include "zl_replay.h"
#include "zl_test.h"
#include "vectors/match_record.h"

#define m zl_match_world
#define LIVE_US 4000000u
#define LIVE_CAP 32768u
#define RECORD_CAP LIVE_CAP

static uint8_t live[LIVE_CAP]; /* the live match's record */
static uint32_t live_len;
static uint8_t record[RECORD_CAP]; /* a copy to damage, or entries written */
static zl_replay replay;
static fps_game replay_game;

static uint32_t reloads, reloaded_id;

/* The application's reload at a new match: a fresh FPS game. */
static void reload(void *ctx, uint32_t match_id)
{
    fps_game_init((fps_game *)ctx);
    reloads++;
    reloaded_id = match_id;
}

static int replay_record(const uint8_t *data, uint32_t len)
{
    zl_game g;
    int rc;
    fps_game_init(&replay_game);
    g = fps_game_interface(&replay_game);
    rc = zl_replay_init(&replay, &g, data, len, reload, &replay_game);
    return rc != ZL_OK ? rc : zl_replay_run(&replay);
}

/* Record size in bytes per player-minute, over the players the replay saw. */
static uint32_t per_player_minute(uint32_t bytes)
{
    uint64_t player_ticks = replay.player_ticks ? replay.player_ticks : 1u;
    return (uint32_t)((uint64_t)bytes * 60u * replay.rd.header.tick_rate / player_ticks);
}

static void test_live_replays_to_live_hash(void)
{
    uint32_t hash, len = zl_match_record(LIVE_US, 0, live, LIVE_CAP, &hash);
    live_len = len;
    ZL_CHECK_EQ(replay_record(live, len), ZL_OK);
    ZL_CHECK_EQ(replay.hash, hash);
    ZL_CHECK_EQ(replay.recorded_hash, hash);
    ZL_CHECK_EQ(replay.tick, zl_server_tick(&m.server));
    ZL_CHECK_EQ(replay.ticks, zl_server_tick(&m.server) - replay.rd.header.start_tick);
    ZL_CHECK_EQ(replay.commands, m.executed);
    ZL_CHECK_EQ(replay.joins, (uint32_t)ZL_MATCH_BOTS);
    ZL_CHECK(m.server_hits > 0u); /* shots hit: the rewind times were used */
    zl_test_note("%u s live: %u bytes, %u ticks, %u commands, %u B per player-minute, hash 0x%08x",
                 LIVE_US / 1000000u, len, replay.ticks, replay.commands, per_player_minute(len),
                 hash);
}

/* A map change in the middle: the replay reloads the game where the
 * server's application did, and every player joins the new match again. */
static void test_new_match_replays(void)
{
    static uint8_t buf[LIVE_CAP];
    uint32_t hash, len = zl_match_record(3000000u, 2000000u, buf, LIVE_CAP, &hash);
    reloads = 0;
    ZL_CHECK_EQ(replay_record(buf, len), ZL_OK);
    ZL_CHECK_EQ(replay.hash, hash);
    ZL_CHECK_EQ(replay.matches, 1u);
    ZL_CHECK_EQ(reloads, 1u);
    ZL_CHECK_EQ(reloaded_id, ZL_MATCH_NEXT_ID);
    ZL_CHECK_EQ(zl_server_match(&m.server), ZL_MATCH_NEXT_ID);
    /* Without a reload the record is refused. */
    fps_game_init(&replay_game);
    {
        zl_game g = fps_game_interface(&replay_game);
        ZL_CHECK_EQ(zl_replay_init(&replay, &g, buf, len, NULL, NULL), ZL_OK);
        ZL_CHECK_EQ(zl_replay_run(&replay), ZL_ERR_UNSUPPORTED);
    }
}

/* Recorded on x86-64 by `make record-vector`: every port replays it to the
 * hash the live server computed. */
static void test_host_record_replays_everywhere(void)
{
    ZL_CHECK_EQ(replay_record(zl_match_record_bytes, sizeof zl_match_record_bytes), ZL_OK);
    ZL_CHECK_EQ(replay.hash, ZL_MATCH_RECORD_HASH);
    ZL_CHECK_EQ(replay.ticks, ZL_MATCH_RECORD_TICKS);
    ZL_CHECK_EQ(replay.joins, (uint32_t)ZL_MATCH_BOTS);
    zl_test_note("host record: %u bytes, %u ticks, %u commands, %u B per player-minute",
                 (uint32_t)sizeof zl_match_record_bytes, replay.ticks, replay.commands,
                 per_player_minute((uint32_t)sizeof zl_match_record_bytes));
}

/* Reads every entry: ZL_OK at the end, or the reader's error. */
static int read_all(const uint8_t *data, uint32_t len)
{
    static zl_record_reader rd;
    zl_record_entry e;
    int rc = zl_record_reader_init(&rd, data, len);
    while (rc == ZL_OK) {
        rc = zl_record_next(&rd, &e);
        if (rc == ZL_OK && e.kind == ZL_RECORD_END)
            return ZL_OK;
    }
    return rc;
}

static int replay_init_only(const uint8_t *data, uint32_t len)
{
    zl_game g;
    fps_game_init(&replay_game);
    g = fps_game_interface(&replay_game);
    return zl_replay_init(&replay, &g, data, len, NULL, NULL);
}

/* Every cut of a record is refused as truncated or malformed; flipped bits
 * never crash; a header of another format or game is refused; a wrong end
 * hash is a desync. */
static void test_hostile_records(void)
{
    uint32_t len = live_len, cut, i;
    uint32_t refused = 0, cuts = 0;
    uint8_t *copy = record;
    ZL_CHECK(len > 64u && len <= RECORD_CAP);
    if (len <= 64u || len > RECORD_CAP)
        return;
    ZL_CHECK_EQ(read_all(live, len), ZL_OK);
    for (cut = 0; cut < len; cut += cut < 64u ? 1u : len / 97u) {
        int rc = read_all(live, cut);
        cuts++;
        refused += (uint32_t)(rc == ZL_ERR_TRUNCATED || rc == ZL_ERR_MALFORMED);
    }
    ZL_CHECK_EQ(refused, cuts);
    for (i = 0; i < 64u; i++) {
        uint32_t at = 32u + (i * 2654435761u) % (len - 32u);
        int rc;
        memcpy(copy, live, len);
        copy[at] ^= (uint8_t)(1u << (i & 7u));
        rc = read_all(copy, len);
        ZL_CHECK(rc == ZL_OK || rc == ZL_ERR_MALFORMED || rc == ZL_ERR_TRUNCATED);
    }
    memcpy(copy, live, len);
    copy[0] ^= 1u;
    ZL_CHECK_EQ(replay_init_only(copy, len), ZL_ERR_MALFORMED);
    copy[0] ^= 1u;
    copy[4] = 2u; /* format version */
    ZL_CHECK_EQ(replay_init_only(copy, len), ZL_ERR_UNSUPPORTED);
    copy[4] = ZL_RECORD_VERSION;
    copy[10] = 3u; /* player state size: another game */
    ZL_CHECK_EQ(replay_init_only(copy, len), ZL_ERR_INVALID);
    copy[10] = live[10];
    copy[len - 2u] ^= 0x10u; /* inside the end's hash */
    ZL_CHECK_EQ(replay_record(copy, len), ZL_ERR_DESYNC);
    ZL_CHECK(strcmp(zl_strerror(ZL_ERR_DESYNC), "ZL_ERR_DESYNC") == 0);
}

/* Entries come back as written: numbering gaps, rewind times, every kind. */
static int collect(void *ctx, const void *bytes, size_t len)
{
    uint32_t *used = (uint32_t *)ctx;
    if (len > RECORD_CAP - *used)
        return ZL_ERR_OVERFLOW;
    memcpy(record + *used, bytes, len);
    *used += (uint32_t)len;
    return ZL_OK;
}

/* A record header of a made-up game for entries written by hand. */
static void small_header(zl_record_header *h, uint16_t max_clients)
{
    memset(h, 0, sizeof *h);
    h->tick_rate = 64;
    h->max_clients = max_clients;
    h->state_size = 40;
    h->lagcomp_ticks = 128;
    h->events = 16;
    h->origin_axes = 3;
}

static void test_entries_round_trip(void)
{
    static zl_record w;
    static zl_record_reader rd;
    zl_record_header h;
    zl_record_entry e;
    zl_usercmd a, b;
    zl_lagcomp_time when;
    uint32_t used = 0;
    int size;
    small_header(&h, 3);
    h.start_tick = 100;
    ZL_CHECK_EQ(zl_record_begin(&w, &h, collect, &used), ZL_OK);
    memset(&a, 0, sizeof a);
    a.sequence = 7;
    a.msec = 16;
    a.yaw = 1000;
    b = a;
    b.sequence = 10; /* two never received */
    b.forward = -127;
    memset(&when, 0, sizeof when);
    when.tick_a = 98;
    when.tick_b = 99;
    when.t = ZL_FX_ONE / 3;
    zl_record_join(&w, 2);
    zl_record_command(&w, 2, &a, NULL);
    zl_record_tick(&w);
    zl_record_tick(&w);
    zl_record_command(&w, 2, &b, &when);
    zl_record_tick(&w);
    zl_record_leave(&w, 2);
    zl_record_match(&w, 42);
    size = zl_record_end(&w, 0xABCDEF01u);
    ZL_CHECK_EQ(size, (int)used);
    ZL_CHECK_EQ(zl_record_reader_init(&rd, record, used), ZL_OK);
    ZL_CHECK_EQ(rd.header.start_tick, 100u);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_JOIN && e.slot == 2);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_COMMAND && !e.has_when && memcmp(&e.cmd, &a, sizeof a) == 0);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_TICK && e.ticks == 2u);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_COMMAND && memcmp(&e.cmd, &b, sizeof b) == 0);
    ZL_CHECK(e.has_when && e.when.tick_a == 98u && e.when.tick_b == 99u &&
             e.when.t == ZL_FX_ONE / 3);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_TICK && e.ticks == 1u);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_LEAVE && e.slot == 2);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_MATCH && e.match_id == 42u);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
    ZL_CHECK(e.kind == ZL_RECORD_END && e.hash == 0xABCDEF01u);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_ERR_AGAIN);
    /* A command for a slot nobody holds is refused. */
    ZL_CHECK_EQ(zl_record_reader_init(&rd, record, used), ZL_OK);
    record[29] ^= 1u; /* the join becomes a command */
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_ERR_MALFORMED);
}

/* A join, leave, new match or end between a tick's commands and its end
 * is out of place: the server writes them only between ticks. */
static void test_entries_only_between_ticks(void)
{
    static zl_record w;
    static zl_record_reader rd;
    zl_record_header h;
    zl_record_entry e;
    zl_usercmd a;
    uint32_t used;
    int last;
    small_header(&h, 2);
    memset(&a, 0, sizeof a);
    a.sequence = 1;
    a.msec = 16;
    for (last = 0; last < 4; last++) {
        used = 0;
        ZL_CHECK_EQ(zl_record_begin(&w, &h, collect, &used), ZL_OK);
        zl_record_join(&w, 0);
        zl_record_command(&w, 0, &a, NULL);
        if (last == 0)
            zl_record_join(&w, 1);
        else if (last == 1)
            zl_record_leave(&w, 0);
        else if (last == 2)
            zl_record_match(&w, 7);
        ZL_CHECK(zl_record_end(&w, 0) > 0);
        ZL_CHECK_EQ(zl_record_reader_init(&rd, record, used), ZL_OK);
        ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
        ZL_CHECK(e.kind == ZL_RECORD_JOIN);
        ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_OK);
        ZL_CHECK(e.kind == ZL_RECORD_COMMAND);
        ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_ERR_MALFORMED);
    }
}

/* Every tick a record runs stays below ZL_RECORD_TICK_END, where lag
 * compensation's ticks end: a start tick at it is refused by the writer
 * and the reader, and from the last start tick allowed no tick entry can
 * follow. */
static void test_ticks_stay_below_the_end(void)
{
    static zl_record w;
    static zl_record_reader rd;
    zl_record_header h;
    zl_record_entry e;
    uint32_t used = 0;
    small_header(&h, 2);
    h.start_tick = ZL_RECORD_TICK_END;
    ZL_CHECK_EQ(zl_record_begin(&w, &h, collect, &used), ZL_ERR_INVALID);
    h.start_tick = ZL_RECORD_TICK_END - 1u;
    ZL_CHECK_EQ(zl_record_begin(&w, &h, collect, &used), ZL_OK);
    zl_record_tick(&w);
    ZL_CHECK(zl_record_end(&w, 0) > 0);
    ZL_CHECK_EQ(zl_record_reader_init(&rd, record, used), ZL_OK);
    ZL_CHECK_EQ(zl_record_next(&rd, &e), ZL_ERR_MALFORMED);
    zl_put_le32(record + 24, ZL_RECORD_TICK_END); /* the start tick */
    ZL_CHECK_EQ(zl_record_reader_init(&rd, record, used), ZL_ERR_MALFORMED);
}

/* The union of a player's hitboxes. */
static zl_box bound_of(const void *player)
{
    zl_hitbox boxes[ZL_LAGCOMP_HITBOXES];
    zl_box u;
    int n = fps_player_hitboxes((const fps_player *)player, 0, boxes, ZL_LAGCOMP_HITBOXES), i;
    memset(&u, 0, sizeof u);
    for (i = 0; i < n; i++) {
        zl_box b = boxes[i].box;
        if (i == 0)
            u = b;
        u.min.x = b.min.x < u.min.x ? b.min.x : u.min.x;
        u.min.y = b.min.y < u.min.y ? b.min.y : u.min.y;
        u.min.z = b.min.z < u.min.z ? b.min.z : u.min.z;
        u.max.x = b.max.x > u.max.x ? b.max.x : u.max.x;
        u.max.y = b.max.y > u.max.y ? b.max.y : u.max.y;
        u.max.z = b.max.z > u.max.z ? b.max.z : u.max.z;
    }
    return u;
}

static int near_box(const zl_box *a, const zl_box *b)
{
    return zl_fx_abs(a->min.x - b->min.x) <= ZL_FX_ONE &&
           zl_fx_abs(a->min.y - b->min.y) <= ZL_FX_ONE &&
           zl_fx_abs(a->min.z - b->min.z) <= ZL_FX_ONE &&
           zl_fx_abs(a->max.x - b->max.x) <= ZL_FX_ONE &&
           zl_fx_abs(a->max.y - b->max.y) <= ZL_FX_ONE && zl_fx_abs(a->max.z - b->max.z) <= ZL_FX_ONE;
}

/* The kill cam of a shooter at the tick of its hit shows the target where
 * lag compensation rewound it for the shot, and follows it tick by tick. */
static void test_killcam_shows_the_rewound_target(void)
{
    zl_match_setup s;
    fps_player seen;
    uint32_t step, checked = 0, views = 0;
    memset(&s, 0, sizeof s);
    s.rtt_us = 100000u;
    s.jitter_us = 10000u;
    s.lag_compensation = 1;
    s.style = ZL_MATCH_DUEL;
    s.firing = 1;
    zl_match_start(&s);
    zl_match_run(1500000u);
    for (step = 0; step < 3000u && checked < 3u; step++) {
        uint32_t count, i, present, delay;
        const zl_server_shot *shots;
        zl_match_run(1000u);
        shots = zl_server_shots(&m.server, &count, NULL);
        present = zl_server_tick(&m.server) - 1u; /* the history's present for the commands */
        for (i = 0; i < count && checked < 3u; i++) {
            const zl_lagcomp_hit *hit = &shots[i].hit;
            zl_box box;
            uint32_t back;
            if (hit->target < 0 || (hit->when.flags & (ZL_LAGCOMP_CLAMPED | ZL_LAGCOMP_REFUSED)))
                continue;
            delay = (uint32_t)((uint64_t)present * m.server.tick_us - hit->when.time_us);
            ZL_CHECK_EQ(zl_server_killcam(&m.server, present, delay, hit->target, &seen),
                        ZL_LAGCOMP_REWOUND);
            box = bound_of(&seen);
            ZL_CHECK(near_box(&box, &hit->rewound));
            ZL_CHECK(zl_server_view_delay(&m.server, shots[i].shooter) > 0u);
            /* The seconds before: one view per tick while the history holds them. */
            for (back = 0; back < 32u; back++)
                views += (uint32_t)(zl_server_killcam(&m.server, present - back, delay,
                                                      hit->target, &seen) != ZL_LAGCOMP_ABSENT);
            checked++;
        }
    }
    ZL_CHECK_EQ(checked, 3u);
    ZL_CHECK_EQ(views, 3u * 32u);
    /* A tick not run yet has no view. */
    ZL_CHECK_EQ(zl_server_killcam(&m.server, zl_server_tick(&m.server) + 1u, 0, 0, &seen),
                ZL_LAGCOMP_ABSENT);
}

void zl_suite_record(void)
{
    ZL_RUN(test_entries_round_trip);
    ZL_RUN(test_entries_only_between_ticks);
    ZL_RUN(test_ticks_stay_below_the_end);
    ZL_RUN(test_live_replays_to_live_hash);
    ZL_RUN(test_new_match_replays);
    ZL_RUN(test_host_record_replays_everywhere);
    ZL_RUN(test_hostile_records);
    ZL_RUN(test_killcam_shows_the_rewound_target);
}
