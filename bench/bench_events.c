/* bench_events.c - what events and messages cost on the wire: bits of the
 * FPS's events in a snapshot's events section, and of reliable messages. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_eventlog.h"
#include "zl_reliable.h"

typedef struct events_bench {
    zl_event_log log;
    zl_schema_plan plan; /* fps_event_schema, prepared */
    zl_event_sender sender;
    zl_reliable channel;
    uint8_t buf[ZL_MAX_PACKET];
} events_bench;

ZL_STATIC_ASSERT(sizeof(events_bench) <= ZL_BENCH_ARENA_BYTES, events_bench_fits_arena);

static zl_vec3 vec(int32_t x, int32_t y, int32_t z)
{
    zl_vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

/* An event as the FPS makes them (fps_emit), of player 5 at tick 1000. */
static zl_event fps_event(uint16_t type, uint16_t param, int32_t target, zl_vec3 origin,
                          zl_vec3 dir)
{
    zl_event ev;
    zl_events sink;
    zl_events_init(&sink, &ev, 1);
    sink.source = 5;
    sink.tick = 1000;
    fps_emit(&sink, type, param, target, origin, dir);
    return ev;
}

/* The reader of the section holds player 5 as `shooter` (its snapshot
 * carried it) among 16 players: the bases are the FPS's, from that state. */
static fps_player shooter;
static uint8_t sixteen[ZL_EVENT_HELD_BYTES] = {0xFF, 0xFF};

static int holds_shooter(const void *ctx, int32_t source)
{
    (void)ctx;
    return source == 5 ? ZL_EVENT_HOLDS_SAME : ZL_EVENT_HOLDS_NONE;
}

static int build_from_shooter(const void *ctx, int32_t source, uint32_t which, zl_event *base)
{
    const zl_game *rules = (const zl_game *)ctx;
    fps_player p;
    if (source != 5)
        return 0;
    memset(&p, 0, sizeof p);
    zl_schema_copy(&fps_player_schema, &p, &shooter, ZL_SCHEMA_SHARED);
    zl_schema_quantize_shared(&fps_player_schema, &p);
    memset(base, 0, sizeof *base);
    rules->event_base(&p, source, which, base);
    return 1;
}

/* Bits of a section holding `count` copies of ev for one client (the end
 * bit included), coded against the bases of `rules` (NULL: none), its
 * first id against *ref (the log's ids start at 0). */
static uint32_t section_bits(events_bench *b, const zl_event *ev, uint32_t count,
                             const zl_game *rules, zl_event_ref ref)
{
    zl_event_audience everyone = {ZL_MAX_CLIENTS - 1, NULL};
    zl_event_bases bases;
    zl_event_section sec;
    zl_bitwriter w;
    uint32_t i;
    zl_event_log_init(&b->log);
    (void)zl_schema_plan_init(&b->plan, &fps_event_schema);
    zl_event_sender_reset(&b->sender, &b->log);
    for (i = 0; i < count; i++)
        zl_event_log_append(&b->log, &b->plan, ev, 0);
    bases.count = rules ? rules->event_bases : 0u;
    bases.held = sixteen;
    bases.every = sixteen;
    bases.holds = holds_shooter;
    bases.build = build_from_shooter;
    bases.ctx = rules;
    bases.plan = &b->plan;
    zl_bitwriter_init(&w, b->buf, sizeof b->buf);
    zl_event_section_choose(&b->sender, &b->log, &everyone, &bases, &ref, ev->tick + 1u, &sec);
    if (zl_event_section_write(&b->log, &bases, &ref, ev->tick + 1u, 1u,
                               8u * sizeof b->buf, &w, &sec) < 0)
        return 0;
    return sec.bits;
}

/* Bits of a RELIABLE block carrying one message of len bytes. */
static uint32_t message_bits(events_bench *b, size_t len)
{
    uint8_t text[ZL_RELIABLE_MESSAGE_MAX];
    zl_bitwriter w;
    memset(text, 'x', sizeof text);
    zl_reliable_init(&b->channel);
    if (zl_reliable_send(&b->channel, text, len) != ZL_OK)
        return 0;
    zl_bitwriter_init(&w, b->buf, sizeof b->buf);
    if (zl_reliable_write(&b->channel, &w, 1, 1000u, 100000u) != 1)
        return 0;
    return zl_bitwriter_bits_used(&w);
}

void zl_bench_events(void)
{
    events_bench *b = (events_bench *)zl_bench_arena(sizeof *b);
    const zl_fx one = ZL_FX_ONE;
    const zl_game rules = fps_game_interface(NULL);
    struct {
        const char *name;
        zl_event ev;
    } kinds[5];
    size_t lens[2] = {4, ZL_RELIABLE_MESSAGE_MAX};
    const zl_event_ref none = {0, 0}, next = {0, 1}; /* the id after the base's last */
    uint32_t i;
    /* Player 5 stands at (812, -1530, 0) looking north-east and a little
     * up; its shot leaves its eye with a spread off its view. */
    memset(&shooter, 0, sizeof shooter);
    shooter.origin = vec(812 * one + one / 4, -1530 * one - one / 8, 0);
    shooter.yaw = 8192;
    shooter.pitch = 1040;
    shooter.weapon = FPS_WEAPON_RIFLE;
    shooter.flags = FPS_PF_ON_GROUND;
    kinds[0].name = "hitscan shot (origin, aim, weapon)";
    kinds[0].ev = fps_event(FPS_EV_FIRE, FPS_WEAPON_RIFLE, -1, fps_player_eye(&shooter),
                            fps_aim((zl_angle)(shooter.yaw + 40), (zl_angle)(shooter.pitch - 25)));
    kinds[1].name = "footstep (origin)";
    kinds[1].ev = fps_event(FPS_EV_FOOTSTEP, 0, -1, shooter.origin, vec(0, 0, 0));
    kinds[2].name = "hit (point, damage, target)";
    kinds[2].ev = fps_event(FPS_EV_HIT, 90, 3, vec(1012 * one, -1330 * one, 60 * one), vec(0, 0, 0));
    kinds[3].name = "kill (killer, victim)";
    kinds[3].ev = fps_event(FPS_EV_KILL, 0, 3, vec(0, 0, 0), vec(0, 0, 0));
    /* A jump takes off a tick's run (5 units) behind where it is drawn. */
    kinds[4].name = "jump (origin)";
    kinds[4].ev = fps_event(FPS_EV_JUMP, 0, -1, vec(shooter.origin.x - 5 * one, shooter.origin.y, 0),
                            vec(0, 0, 0));
    zl_bench_note("events", "an events section costs 1 bit without events; each event: its id "
                  "(the first: 2 bits when it is the one after the last its base's section "
                  "carried, up to 16 within 254 after it, else 17; 16 in a full snapshot; the "
                  "others 1 when it follows the previous, else 17), its age (1 bit for the snapshot's "
                  "tick, 3 for 1..2 ticks, 5 for 3..6, up to 17), its source (1 + %u bits for one "
                  "of the 16 entities the client holds, else 1 + %u), when the client holds the "
                  "source its base (1 bit for the FPS's first, else %u: the zero event or another "
                  "of the FPS's %u built from the source's state) and its body through the FPS's "
                  "event schema against that base; events of 1 tick before the snapshot:",
                  zl_bits_required(15u), zl_bits_required(ZL_MAX_ENTITIES),
                  1u + zl_bits_required(rules.event_bases - 1u), (unsigned)rules.event_bases);
    for (i = 0; i < ZL_COUNTOF(kinds); i++) {
        uint32_t zero = section_bits(b, &kinds[i].ev, 1, NULL, next) - 1u;
        uint32_t one_bits = section_bits(b, &kinds[i].ev, 1, &rules, next) - 1u;
        uint32_t full = section_bits(b, &kinds[i].ev, 1, &rules, none) - 1u;
        uint32_t run_bits =
            (section_bits(b, &kinds[i].ev, 9, &rules, next) - 1u - one_bits) / 8u;
        zl_bench_note("events", "%-36s %3u bits alone, %3u bits each in a run (%u.%u bytes); "
                      "%3u alone against the zero event; %3u alone in a full snapshot",
                      kinds[i].name, (unsigned)one_bits, (unsigned)run_bits,
                      (unsigned)(run_bits / 8u), (unsigned)(run_bits % 8u * 10u / 8u),
                      (unsigned)zero, (unsigned)full);
    }
    zl_bench_note("events", "each new event rides in %u snapshots (ZL_EVENT_COPIES), then "
                  "again only when each copy is known lost or overdue",
                  (unsigned)ZL_EVENT_COPIES);
    for (i = 0; i < 2; i++) {
        uint32_t bits = message_bits(b, lens[i]);
        zl_bench_note("events", "reliable message of %3u bytes (the longest this build allows: "
                      "%u): %4u bits in a RELIABLE packet's block, %u bytes more than the message, "
                      "plus the packet header; sent until acknowledged",
                      (unsigned)lens[i], (unsigned)ZL_RELIABLE_MESSAGE_MAX, (unsigned)bits,
                      (unsigned)((bits + 7u) / 8u - lens[i]));
    }
}
