/* bench_bandwidth.c - what snapshots cost on the wire, in bits and bytes:
 * another player by movement, the own entry, a full snapshot, and bytes/s
 * per client, scored against the snapshot size targets. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_eventlog.h"
#include "zl_packet.h"
#include "zl_protocol.h"
#include "zl_snapshot.h"

#define TICK_HZ 64
#define PLAYERS_MAX 64
/* Acks arrive 6 ticks (~94 ms) after their snapshot. */
#define RTT_TICKS 6
/* Bytes per snapshot packet besides the snapshot message: UDP/IPv4 28,
 * zerolag's packet header as the server seals it (tokens, the default,
 * seal every packet) and the tag. The link is loss free and the client
 * sends every tick, so the server has had each of its last 32 packets:
 * the header's ack_bits are all set; acks come back within a few ticks,
 * so sequence and ack go short (zl_link.c). */
static uint32_t packet_overhead(void)
{
    zl_packet_header steady;
    memset(&steady, 0, sizeof steady);
    steady.type = ZL_MSG_SNAPSHOT;
    steady.ack_bits = 0xFFFFFFFFu;
    steady.short_fields = ZL_PACKET_SHORT_SEQUENCE | ZL_PACKET_SHORT_ACK;
    return 28u + (uint32_t)zl_packet_header_size(&steady, 0) + ZL_PACKET_TAG_SIZE;
}
/* Every run: a second to leave the full snapshot behind, then measured. */
#define WARMUP_TICKS TICK_HZ
#define RUN_TICKS (3 * TICK_HZ)
/* The client's own player. */
#define OWN 0

/* How the players move. MIXED is the snapshot suite's stream (runs
 * steering towards a new heading every second or so, jumps now and then). */
enum { STRAIGHT, STRAFE_TURN, JUMPING, IDLE_HALF, MIXED };

typedef struct bandwidth_bench {
    zl_snapshot_world world;
    zl_snapshot_client client, full_client;
    fps_game game;
    fps_player players[PLAYERS_MAX];
    zl_angle heading[PLAYERS_MAX];
    uint16_t ack_at[RTT_TICKS + 1];
    uint8_t buf[ZL_MAX_PACKET * 4];
    uint32_t rng;
    /* The events the players' commands make (footsteps, jumps), sent to
     * the client as the server sends them. */
    zl_event_log log;
    zl_schema_plan plan;
    zl_event_sender sender;
} bandwidth_bench;

ZL_STATIC_ASSERT(sizeof(bandwidth_bench) <= ZL_BENCH_ARENA_BYTES, bandwidth_bench_fits_arena);

static const zl_snapshot_layout layout = {&fps_player_schema, &fps_entity_schema, PLAYERS_MAX,
                                             NULL, NULL};

/* Sums over the measured snapshots. */
typedef struct figures {
    uint32_t snapshots, updated, update_bits, section_bits, full_bits;
    uint32_t own_bits, own_entries, skip_bits;
    uint32_t message_bytes; /* whole snapshot messages: header, events, entities */
    uint32_t events_sent, events_bits; /* measured snapshots' events and bits */
    uint32_t events_logged; /* events for the client, the whole run */
} figures;

static uint32_t next_random(bandwidth_bench *b)
{
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 17;
    b->rng ^= b->rng << 5;
    return b->rng;
}

static void command(bandwidth_bench *b, int pattern, uint32_t tick, uint32_t e, zl_usercmd *c)
{
    const fps_player *p = &b->players[e];
    memset(c, 0, sizeof *c);
    c->msec = (uint16_t)((tick & 1u) ? 16 : 15); /* 64 Hz on average */
    c->yaw = p->yaw;
    c->pitch = p->pitch;
    c->forward = 127;
    switch (pattern) {
    case STRAFE_TURN: {
        /* 105 to 200 degrees a second (298..568 of 65536 a tick), turning
         * back every 2 s, strafing the other way every half second. */
        int32_t turn = 298 + (int32_t)(e * 37u % 271u);
        c->yaw = (zl_angle)(p->yaw + (uint32_t)(((tick / 128u + e) & 1u) ? turn : -turn));
        c->side = (int8_t)(((tick / 32u + e) & 1u) ? 127 : -127);
        break;
    }
    case JUMPING: /* pressed every other tick: a new jump on each landing */
        c->buttons = (uint16_t)((tick & 1u) ? FPS_BUTTON_JUMP : 0);
        break;
    case MIXED: {
        int32_t turn;
        if (next_random(b) % 64u == 0)
            b->heading[e] = (zl_angle)next_random(b);
        /* Towards the heading at up to 2 degrees a tick. */
        turn = (int16_t)(uint16_t)(b->heading[e] - p->yaw);
        turn = turn > 364 ? 364 : turn < -364 ? -364 : turn;
        c->yaw = (zl_angle)(p->yaw + (uint32_t)turn);
        c->buttons = (uint16_t)(next_random(b) % 200u == 0 ? FPS_BUTTON_JUMP : 0);
        break;
    }
    default: /* STRAIGHT, and IDLE_HALF's runners */
        break;
    }
}

/* Logs the events of player e's command (run_command's: its own client
 * predicted them and is not sent them). */
static void log_events(bandwidth_bench *b, uint32_t e, const zl_event *ev, uint32_t count,
                       figures *m)
{
    uint32_t i;
    for (i = 0; i < count; i++)
        if (zl_event_log_append(&b->log, &b->plan, &ev[i], 1) == ZL_OK && e != OWN)
            m->events_logged++;
}

/* `players` move by `pattern` for RUN_TICKS; one client receives `rate`
 * snapshots a second; the second after the first is measured. With
 * `events`, the snapshots carry the events the commands make. */
static void run(bandwidth_bench *b, int pattern, uint32_t players, uint32_t rate, int events,
                figures *m)
{
    zl_snapshot_events to_client;
    zl_event_sender_stats sent;
    zl_game rules = fps_game_interface(&b->game);
    uint32_t tick, e;
    memset(m, 0, sizeof *m);
    zl_event_log_init(&b->log);
    (void)zl_schema_plan_init(&b->plan, &fps_event_schema);
    zl_event_sender_reset(&b->sender, &b->log);
    to_client.sender = &b->sender;
    to_client.log = &b->log;
    to_client.audience.client = OWN;
    to_client.audience.relevant = NULL;
    /* As the server's: the round trip and a command interval. */
    to_client.resend_ticks = RTT_TICKS + 2u;
    to_client.game = &rules;
    to_client.plan = &b->plan;
    zl_snapshot_world_init(&b->world);
    zl_snapshot_client_reset(&b->client);
    fps_game_init(&b->game);
    memset(b->ack_at, 0xFF, sizeof b->ack_at);
    b->rng = 0x2545F491u;
    for (e = 0; e < players; e++) {
        fps_player_spawn(&b->game, &b->players[e]);
        b->players[e].yaw = (zl_angle)next_random(b);
        b->heading[e] = (zl_angle)next_random(b);
    }
    for (tick = 1; tick <= RUN_TICKS; tick++) {
        uint16_t *due = &b->ack_at[tick % (RTT_TICKS + 1u)];
        zl_bitwriter w;
        zl_snapshot_world_begin(&b->world, tick);
        for (e = 0; e < players; e++) {
            zl_event made[FPS_MAX_EVENTS_PER_COMMAND];
            zl_events sink;
            zl_usercmd c;
            zl_events_init(&sink, made, FPS_MAX_EVENTS_PER_COMMAND);
            sink.source = (int32_t)e;
            sink.tick = tick;
            command(b, pattern, tick, e, &c);
            if (!(pattern == IDLE_HALF && (e & 1u)))
                fps_run_command(&b->players[e], &c, &b->players[e], events, events ? &sink : NULL);
            zl_snapshot_world_set(&b->world, &layout, (uint16_t)e, &b->players[e]);
            log_events(b, e, made, sink.count, m);
        }
        if (*due != 0xFFFFu) {
            zl_snapshot_acked(&b->client, *due);
            zl_event_sender_acked(&b->sender, *due);
        }
        *due = 0xFFFFu;
        if ((tick * rate) / TICK_HZ == ((tick - 1u) * rate) / TICK_HZ)
            continue;
        sent = b->sender.stats;
        zl_bitwriter_init(&w, b->buf, sizeof b->buf);
        zl_snapshot_message_write(&b->client, &b->world, &layout, tick, tick, NULL, 0, NULL, OWN,
                                  &to_client, sizeof b->buf * 8u, (uint16_t)tick, &w);
        *due = (uint16_t)tick;
        if (tick <= WARMUP_TICKS)
            continue;
        m->snapshots++;
        m->message_bytes += (uint32_t)zl_bitwriter_finish(&w);
        m->events_sent += b->sender.stats.sent - sent.sent;
        m->events_bits += b->sender.stats.bits - sent.bits;
        m->updated += b->client.last.updated;
        m->update_bits += b->client.last.update_bits;
        m->section_bits += b->client.last.bits;
        /* A number costs at least 1 bit; the rest pays for skips. */
        m->skip_bits += b->client.last.number_bits - b->client.last.updated -
                        b->client.last.entered - b->client.last.left;
        m->own_bits += b->client.last.own_bits;
        m->own_entries += b->client.last.own_bits > 0;
        zl_snapshot_client_reset(&b->full_client);
        zl_bitwriter_init(&w, b->buf, sizeof b->buf);
        zl_snapshot_write(&b->full_client, &b->world, &layout, tick, NULL, 0, NULL, OWN,
                          sizeof b->buf * 8u, 0, &w);
        m->full_bits += b->full_client.last.bits;
    }
}

/* Tenths of num / den. */
static uint32_t tenths(uint32_t num, uint32_t den)
{
    return den ? (uint32_t)((10ull * num + den / 2u) / den) : 0u;
}

static const char *verdict(int met)
{
    return met ? "met" : "NOT met";
}

/* Bytes a second per client: snapshot messages and packet overhead. */
static uint32_t bytes_per_s(const figures *m, uint32_t rate)
{
    return (uint32_t)(((uint64_t)m->message_bytes + (uint64_t)m->snapshots * packet_overhead()) *
                      rate / m->snapshots);
}

/* Bits per updated player (another's entry: number, kind, state code, the
 * own one's taken out), in tenths. */
static uint32_t other_bits_x10(const figures *m)
{
    return tenths(m->update_bits - m->own_bits, m->updated - m->own_entries);
}

void zl_bench_bandwidth(void)
{
    static const char *const names[4] = {"straight", "strafing and turning", "jumping", "idle"};
    static const uint32_t counts[2] = {16, 64}, rates[2] = {20, 64};
    bandwidth_bench *b = (bandwidth_bench *)zl_bench_arena(sizeof *b);
    figures m;
    uint32_t per, full_x10 = 0, moving_x10 = 0, idle_x100 = 0, bytes_64 = 0;
    int i, k;
    zl_bench_note("bandwidth", "64 players, 64 snapshots/s, acks %u ticks late (94 ms):",
                  (unsigned)RTT_TICKS);
    for (i = STRAIGHT; i <= IDLE_HALF; i++) {
        run(b, i, PLAYERS_MAX, TICK_HZ, 0, &m);
        if (i == IDLE_HALF) {
            /* Half stand still between runners: no entry, only the longer
             * numbers of the runners around them. */
            idle_x100 = 10u * tenths(m.skip_bits, m.snapshots * PLAYERS_MAX / 2u);
            zl_bench_note("bandwidth", "  another player, %-21s %u.%02u bits", names[i],
                          (unsigned)(idle_x100 / 100u), (unsigned)(idle_x100 % 100u));
            continue;
        }
        per = other_bits_x10(&m);
        zl_bench_note("bandwidth", "  another player, %-21s %u.%u bits (%u of %u updated per "
                      "snapshot)", names[i], (unsigned)(per / 10u), (unsigned)(per % 10u),
                      (unsigned)(m.updated / m.snapshots), (unsigned)PLAYERS_MAX);
        if (i == STRAIGHT) {
            uint32_t own = tenths(m.own_bits, m.own_entries);
            zl_bench_note("bandwidth", "  own entry (every wire field), running     %u.%u bits",
                          (unsigned)(own / 10u), (unsigned)(own % 10u));
        }
    }
    zl_bench_note("bandwidth", "the snapshot suite's stream (running, steering, jumping now and "
                  "then), bytes/s per client with packet headers:");
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 2; i++) {
            uint32_t bytes, own;
            run(b, MIXED, counts[k], rates[i], 0, &m);
            bytes = bytes_per_s(&m, rates[i]);
            per = other_bits_x10(&m);
            own = tenths(m.own_bits, m.snapshots);
            zl_bench_note("bandwidth", "  %2u players, %2u/s: %6u bytes/s (%u.%u bits per moving "
                          "player, own entry %u.%u)", (unsigned)counts[k], (unsigned)rates[i],
                          (unsigned)bytes, (unsigned)(per / 10u), (unsigned)(per % 10u),
                          (unsigned)(own / 10u), (unsigned)(own % 10u));
            if (counts[k] == 64 && rates[i] == 64) {
                bytes_64 = bytes;
                moving_x10 = per;
                full_x10 = tenths(m.full_bits, m.snapshots * PLAYERS_MAX);
            }
        }
    }
    zl_bench_note("bandwidth", "the same stream with the events its commands make (footsteps, "
                  "jumps; none to their own client):");
    for (k = 0; k < 4; k++) {
        const uint32_t players = counts[k / 2], rate = rates[1 - k % 2];
        figures with;
        uint32_t plain, bytes, x10;
        run(b, MIXED, players, rate, 0, &m);
        run(b, MIXED, players, rate, 1, &with);
        if (with.events_logged == 0 || with.events_sent == 0)
            continue; /* a game without events: nothing to report */
        plain = bytes_per_s(&m, rate);
        bytes = bytes_per_s(&with, rate);
        x10 = tenths(with.events_bits - with.snapshots, with.events_sent);
        /* Copies: every copy sent in the whole run, for every event logged
         * (the last ones' second copies are not sent yet). */
        zl_bench_note("bandwidth", "  %2u players, %2u/s: %u bytes a snapshot without events, %u "
                      "with (%u bytes/s against %u, events %u%%); %u events, %u.%02u copies each, "
                      "%u.%u bits a copy", (unsigned)players, (unsigned)rate,
                      (unsigned)(plain / rate), (unsigned)(bytes / rate), (unsigned)bytes,
                      (unsigned)plain, (unsigned)((bytes - plain) * 100u / bytes),
                      (unsigned)with.events_logged,
                      (unsigned)(b->sender.stats.sent / with.events_logged),
                      (unsigned)(b->sender.stats.sent * 100u / with.events_logged % 100u),
                      (unsigned)(x10 / 10u), (unsigned)(x10 % 10u));
    }
    zl_bench_note("bandwidth", "  full snapshot of 64 players: %u bytes, %u.%u bits per player",
                  (unsigned)(full_x10 * PLAYERS_MAX / 80u), (unsigned)(full_x10 / 10u),
                  (unsigned)(full_x10 % 10u));
    /* The targets of the snapshot-size work, against the figures before
     * it (55 bits per moving player, 1.93 per idle one, full / delta 1.65,
     * 31,341 bytes/s). */
    zl_bench_note("bandwidth", "target: moving player <= 40 bits: %s (%u.%u)",
                  verdict(moving_x10 <= 400u), (unsigned)(moving_x10 / 10u),
                  (unsigned)(moving_x10 % 10u));
    zl_bench_note("bandwidth", "target: idle player <= 2 bits: %s (%u.%02u)",
                  verdict(idle_x100 <= 200u), (unsigned)(idle_x100 / 100u),
                  (unsigned)(idle_x100 % 100u));
    zl_bench_note("bandwidth", "target: full / moving delta >= 2: %s (%u.%02u)",
                  verdict(full_x10 >= 2u * moving_x10),
                  (unsigned)(full_x10 / (moving_x10 ? moving_x10 : 1u)),
                  (unsigned)(100u * full_x10 / (moving_x10 ? moving_x10 : 1u) % 100u));
    zl_bench_note("bandwidth", "target: 64 players at 64/s <= 23506 bytes/s (31341 less 25%%): "
                  "%s (%u)", verdict(bytes_64 <= 23506u), (unsigned)bytes_64);
}
