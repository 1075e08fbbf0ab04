/* zl_snapshot_message.c - the snapshot message: its header (tick and the
 * newest command run), the entity section and the events section coded
 * against what it leaves the client, written and read in one place. */
#include "zl_snapshot_wire.h"

#include <string.h>

/* Where an event's bases come from (zl_event_bases' ctx): the writer's
 * world at the snapshot's tick and what its client holds once it applies
 * the snapshot, or the reader's frame. */
typedef struct sources {
    const zl_snapshot_layout *layout;
    const zl_game *game;
    const zl_snapshot_world *world; /* writer */
    const zl_snapshot_client *client;
    uint32_t tick;
    const zl_snapshot_frame *frame; /* reader */
} sources;

static int holds(const void *ctx, int32_t source)
{
    const sources *c = (const sources *)ctx;
    if (source >= ZL_MAX_ENTITIES || !schema_of(c->layout, (uint32_t)source))
        return ZL_EVENT_HOLDS_NONE;
    if (c->frame)
        return zl_snapshot_frame_state(c->frame, (uint16_t)source) ? ZL_EVENT_HOLDS_SAME
                                                                    : ZL_EVENT_HOLDS_NONE;
    return client_holds(c->client, (uint16_t)source);
}

/* The source's state as every client holding it sees it (its shared
 * fields at shared precision), then the game's base from it. */
static int build(const void *ctx, int32_t source, uint32_t which, zl_event *base)
{
    const sources *c = (const sources *)ctx;
    uint32_t shared[ZL_STATE_MAX / 4];
    const zl_schema *schema;
    const void *state;
    if (source < 0 || source >= ZL_MAX_ENTITIES)
        return 0;
    schema = schema_of(c->layout, (uint32_t)source);
    state = c->frame ? zl_snapshot_frame_state(c->frame, (uint16_t)source)
                     : zl_snapshot_world_state(c->world, c->tick, (uint16_t)source);
    if (!schema || !state)
        return 0;
    memset(shared, 0, sizeof shared);
    zl_schema_copy(schema, shared, state, ZL_SCHEMA_SHARED);
    zl_schema_quantize_shared(schema, shared);
    memset(base, 0, sizeof *base);
    c->game->event_base(shared, source, which, base);
    return 1;
}

ZL_STATIC_ASSERT(ZL_EVENT_HELD_BYTES == ZL_SNAPSHOT_BITMAP_BYTES, zl_event_held_bitmap);

/* What the reader holds (`held`, the reader's frame or the writer's
 * record of what its client holds), for the writer every entity of its
 * world at the tick, and the bases of c's game (none when it offers
 * none). */
static const zl_event_bases *bases_of(const sources *c, const zl_schema_plan *plan,
                                      const uint8_t *held, zl_event_bases *b)
{
    const int offers = c->game && c->game->event_base && c->game->event_bases > 0;
    const zl_snapshot_world_slot *now =
        c->world ? &c->world->slot[c->tick & (ZL_SNAPSHOT_WORLD_TICKS - 1u)] : NULL;
    ZL_ASSERT(!offers || c->game->event_bases <= ZL_EVENT_BASES_MAX);
    b->count = offers ? c->game->event_bases : 0u;
    b->held = held;
    b->every = now && now->used && now->tick == c->tick ? now->present : NULL;
    b->holds = holds;
    b->build = build;
    b->ctx = c;
    b->plan = plan;
    return b;
}

/* A delta names its command as the low EXECUTED_NEAR_BITS bits of it
 * when it is less than 2^EXECUTED_NEAR_BITS after the baseline's: the
 * receiver read the baseline, and no snapshot newer than this one, so the
 * newest command it read is in [baseline's, this one] and the low bits
 * widen against it. Otherwise a 1 bit and all 32. */
#define EXECUTED_NEAR_BITS 6u
#define EXECUTED_NEAR (1u << EXECUTED_NEAR_BITS)

/* Bits of the header, to the byte the entity section starts on. */
static uint32_t header_bits(int delta, int near)
{
    uint32_t bits = delta ? 1u + ZL_SNAPSHOT_TICK_BITS + 1u + (near ? EXECUTED_NEAR_BITS : 32u)
                          : 1u + 32u + 32u;
    return (bits + 7u) / 8u * 8u;
}

int zl_snapshot_message_write(zl_snapshot_client *c, zl_snapshot_world *world,
                              const zl_snapshot_layout *layout, uint32_t tick, uint32_t executed,
                              const uint16_t *relevant, int relevant_count,
                              const uint32_t *priority, uint16_t own_entity,
                              const zl_snapshot_events *events, uint32_t budget_bits,
                              uint16_t packet_sequence, zl_bitwriter *bw)
{
    zl_event_section section = {0, 0, 0, 1, 0};
    const zl_event_bases *bases = NULL;
    const zl_snapshot_record *base = zl_snapshot_client_base(c, tick);
    zl_event_ref ref = {0, 0};
    zl_event_bases b;
    sources src;
    uint32_t reserve = 1u, start;
    const int delta = base != NULL;
    const int near = delta && executed - base->executed < EXECUTED_NEAR;
    zl_snapshot_record *made;
    int bits;
    ZL_ASSERT(bw != NULL);
    if (budget_bits <= header_bits(delta, near) + 1u)
        return ZL_ERR_OVERFLOW;
    budget_bits -= header_bits(delta, near);
    start = zl_bitwriter_bits_used(bw);
    zl_bitwriter_bool(bw, delta);
    if (delta) {
        zl_bitwriter_bits(bw, tick & ((1u << ZL_SNAPSHOT_TICK_BITS) - 1u), ZL_SNAPSHOT_TICK_BITS);
        zl_bitwriter_bool(bw, !near);
        if (near)
            zl_bitwriter_bits(bw, executed & (EXECUTED_NEAR - 1u), EXECUTED_NEAR_BITS);
        else
            zl_bitwriter_bits(bw, executed, 32);
    } else {
        zl_bitwriter_bits(bw, tick, 32);
        zl_bitwriter_bits(bw, executed, 32);
    }
    /* The entity section starts on a byte: the shared sections of clients
     * with the same baseline are then copied a byte at a time. The events
     * follow it, coded against what it leaves the client; room for them
     * is kept first, at most half of what is left. */
    zl_bitwriter_align(bw);
    ZL_ASSERT(zl_bitwriter_bits_used(bw) - start == header_bits(delta, near));
    if (base)
        ref = base->events; /* read before zl_snapshot_write may reuse its record */
    if (events) {
        memset(&src, 0, sizeof src);
        src.layout = layout;
        src.game = events->game;
        src.world = world;
        src.client = c;
        src.tick = tick;
        /* Room for the events as a client holding every entity takes them. */
        bases = bases_of(&src, events->plan, NULL, &b);
        reserve = zl_event_section_choose(events->sender, events->log, &events->audience, bases,
                                          &ref, tick, &section);
        if (reserve > budget_bits / 2u)
            reserve = budget_bits / 2u;
    }
    bits = zl_snapshot_write(c, world, layout, tick, relevant, relevant_count, priority,
                             own_entity, budget_bits - reserve, packet_sequence, bw);
    if (bits < 0)
        return bits;
    made = &c->record[(c->written - 1u) % ZL_SNAPSHOT_SENT];
    made->executed = executed;
    if (events) {
        int ev;
        bases = bases_of(&src, events->plan, made->held, &b);
        ev = zl_event_section_write(events->log, bases, &ref, tick, events->resend_ticks,
                                        budget_bits - (uint32_t)bits, bw, &section);
        if (ev < 0)
            return ev;
        zl_event_sender_sent(events->sender, packet_sequence, &section);
    } else {
        zl_bitwriter_bool(bw, 0);
    }
    made->events = ref;
    return bw->error != ZL_OK ? bw->error : bits;
}

/* Reads the header into *delta, *tick and *executed, a delta's command widened
 * against `newest` (the newest command the receiver read): ZL_OK, the
 * reader's error, or ZL_ERR_AGAIN for a delta's tick with no frame of rx
 * (NULL: a reader without frames, which gets no tick) to widen it against. */
static int read_header(const zl_snapshot_receiver *rx, uint32_t newest, zl_bitreader *r,
                       int *delta, uint32_t *tick, uint32_t *executed)
{
    const uint32_t half = 1u << (ZL_SNAPSHOT_TICK_BITS - 1u);
    uint32_t low;
    *delta = zl_bitreader_bool(r);
    if (!*delta) {
        *tick = zl_bitreader_bits(r, 32);
        *executed = zl_bitreader_bits(r, 32);
        return r->error;
    }
    low = zl_bitreader_bits(r, ZL_SNAPSHOT_TICK_BITS);
    if (zl_bitreader_bool(r)) {
        *executed = zl_bitreader_bits(r, 32);
    } else {
        /* The command with these low bits in [newest, newest + NEAR). */
        *executed = newest + ((zl_bitreader_bits(r, EXECUTED_NEAR_BITS) - newest) &
                              (EXECUTED_NEAR - 1u));
    }
    if (r->error != ZL_OK)
        return r->error;
    if (!rx)
        return ZL_OK;
    if (!rx->have_newest)
        return ZL_ERR_AGAIN;
    /* The tick with these low bits in [newest - half, newest + half). */
    *tick = rx->newest - half +
            ((low - (rx->newest - half)) & ((1u << ZL_SNAPSHOT_TICK_BITS) - 1u));
    return ZL_OK;
}

int zl_snapshot_message_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout,
                             uint16_t own_entity, zl_event_queue *events, const zl_game *game,
                             const void *payload, size_t len, uint32_t *executed,
                             const zl_snapshot_frame **out)
{
    zl_bitreader r;
    uint32_t tick = 0;
    int rc, delta;
    ZL_ASSERT(rx != NULL && executed != NULL && out != NULL);
    *out = NULL;
    zl_bitreader_init(&r, payload, len);
    rc = read_header(rx, rx->executed, &r, &delta, &tick, executed);
    if (rc == ZL_ERR_AGAIN) {
        rx->missing_base++;
        rx->need_full = 1;
        return rc;
    }
    zl_bitreader_align(&r);
    if (r.error != ZL_OK) {
        rx->malformed++;
        return r.error;
    }
    rc = zl_snapshot_read(rx, layout, tick, delta, own_entity, &r, out);
    if (rc != ZL_OK)
        return rc; /* its events unread: the caller must not acknowledge it */
    rx->executed = *executed;
    if (events && game && game->event_schema) {
        sources src;
        zl_event_bases b;
        memset(&src, 0, sizeof src);
        src.layout = layout;
        src.game = game;
        src.frame = *out;
        /* The frame starts from its base's reference (zl_snapshot_read). */
        rc = zl_event_section_read(events, game->event_schema,
                                   bases_of(&src, NULL, (*out)->present, &b),
                                   &rx->frame[*out - rx->frame].events, tick, &r);
    } else if (zl_bitreader_bool(&r)) {
        rc = ZL_ERR_MALFORMED;
    }
    if (rc != ZL_OK) {
        rx->malformed++;
        *out = NULL;
    }
    return rc;
}

int zl_snapshot_message_tick(const zl_snapshot_receiver *rx, const void *payload, size_t len,
                             uint32_t *tick)
{
    zl_bitreader r;
    uint32_t executed;
    int delta;
    ZL_ASSERT(rx != NULL && tick != NULL && (payload != NULL || len == 0));
    zl_bitreader_init(&r, payload, len);
    *tick = 0;
    return read_header(rx, rx->executed, &r, &delta, tick, &executed);
}

int zl_snapshot_message_executed(const void *payload, size_t len, uint32_t *executed)
{
    zl_bitreader r;
    uint32_t tick, newest;
    int delta;
    ZL_ASSERT(executed != NULL && (payload != NULL || len == 0));
    zl_bitreader_init(&r, payload, len);
    newest = *executed;
    return read_header(NULL, newest, &r, &delta, &tick, executed);
}

const zl_snapshot_frame *zl_snapshot_receiver_newest(const zl_snapshot_receiver *rx)
{
    uint32_t i;
    ZL_ASSERT(rx != NULL);
    if (!rx->have_newest)
        return NULL;
    for (i = 0; i < ZL_SNAPSHOT_FRAMES; i++)
        if (rx->valid[i] && rx->frame[i].tick == rx->newest)
            return &rx->frame[i];
    return NULL;
}
