/* zl_snapshot.h - the entity section of a snapshot: each client's entities
 * delta-coded against the last snapshot it acknowledged, by priority when short of room.
 * Not part of the API (docs/ARCHITECTURE.md): public because the endpoints,
 * which the application allocates, embed its world history, records and
 * frames; an application calls only zl_snapshot_frame_state, on a frame
 * zl_client_latest gives. */
#ifndef ZL_SNAPSHOT_H
#define ZL_SNAPSHOT_H

#include "zl_eventlog.h"
#include "zl_schema.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_SNAPSHOT_WORLD_TICKS) && ZL_SNAPSHOT_WORLD_TICKS >= 2 &&
                     ZL_SNAPSHOT_WORLD_TICKS <= 32768,
                 zl_snapshot_world_ticks);
ZL_STATIC_ASSERT(ZL_SNAPSHOT_SENT >= 2 && ZL_SNAPSHOT_SENT <= 32768, zl_snapshot_sent);
ZL_STATIC_ASSERT(ZL_SNAPSHOT_CODES >= 1 && ZL_SNAPSHOT_CODES <= 65535 &&
                     ZL_SNAPSHOT_CODE_BYTES >= 1,
                 zl_snapshot_codes);
ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_SNAPSHOT_FRAMES) && ZL_SNAPSHOT_FRAMES >= 2, zl_snapshot_frames);
ZL_STATIC_ASSERT(ZL_MAX_ENTITIES >= 1 && ZL_MAX_ENTITIES <= 65535, zl_snapshot_max_entities);
/* States are stored as uint32_t words so a frame's state can be read as the
 * game's struct (schema fields are at most 4 bytes wide). */
ZL_STATIC_ASSERT(ZL_STATE_MAX % 4 == 0, zl_snapshot_state_words);

/* "No entity": pass as own_entity when the client has no player. */
#define ZL_SNAPSHOT_NONE 0xFFFFu

/* Bytes of a bitmap with one bit per entity number. */
#define ZL_SNAPSHOT_BITMAP_BYTES ((ZL_MAX_ENTITIES + 7) / 8)

/* Which schema describes each entity number: numbers below `players` are
 * players (player_schema), the rest use entity_schema (NULL when the game
 * has no other entities). Both sides must use the same layout. Schema
 * sizes must not exceed ZL_STATE_MAX (checked by ZL_ASSERT). */
typedef struct zl_snapshot_layout {
    const zl_schema *player_schema;
    const zl_schema *entity_schema;
    uint16_t players;
    /* The two schemas prepared (zl_schema_plan_init), or NULL: decoding
     * then walks the field tables. Same results either way. */
    const zl_schema_plan *player_plan;
    const zl_schema_plan *entity_plan;
} zl_snapshot_layout;

/* ---- Server: the world history ---- */

/* Private: the entities of one tick. A state holds only its wire fields,
 * quantised, everything else zero, so equal bytes mean an equal state. */
typedef struct zl_snapshot_world_slot {
    uint32_t tick;
    uint8_t used;
    uint8_t present[ZL_SNAPSHOT_BITMAP_BYTES];
    uint32_t states[ZL_MAX_ENTITIES][ZL_STATE_MAX / 4];
} zl_snapshot_world_slot;

/* Private: one entity's entry body (kind and state code) against one
 * base, written once per tick. */
typedef struct zl_snapshot_code {
    uint32_t from;       /* the base state's tick (0 when coded against zero) */
    uint16_t pfrom;      /* the older state's age below the tick when
                            extrapolated (2 or more), else 0 */
    uint8_t ahead, behind; /* the extrapolation's ticks (0 when not) */
    uint32_t offset;     /* where the body starts in code_bytes */
    uint16_t next;       /* index + 1 of the entity's next code; 0: none */
    uint16_t bits;       /* the body */
    uint16_t state_bits; /* of which the state code */
    uint8_t op;          /* the kind of entry */
    uint8_t which;       /* the fields it carries (ZL_SCHEMA_WIRE or SHARED) */
} zl_snapshot_code;

/* Private: a whole entity section written once per tick for the clients
 * that hold the same baseline and need the same entries, every entry with
 * its shared fields: such a client's section is this one with its own
 * entity's entry swapped for the one with every field. */
/* What the writer sorts entities into (private), and bitmaps of them in
 * 32-bit words. */
#define ZL_SNAPSHOT_OPS 6
#define ZL_SNAPSHOT_MAP_WORDS ((ZL_MAX_ENTITIES + 31) / 32)

typedef struct zl_snapshot_run {
    uint8_t valid;
    uint8_t written; /* bytes, start, end and size hold the section */
    uint8_t has_base;
    uint32_t base_tick;
    uint32_t base_count; /* the entities the baseline's client holds */
    uint32_t bits;  /* the section, header included */
    uint32_t hits;  /* clients served from it */
    uint16_t count; /* entries */
    uint16_t entity[ZL_MAX_ENTITIES]; /* per entry, ascending */
    uint8_t op[ZL_MAX_ENTITIES];
    uint32_t from[ZL_MAX_ENTITIES];   /* the base state's tick, as in a code */
    /* By entity: the older state's age of an entry, as in a code (0 for
     * an entry without one; other entities' are stale and never read),
     * copied whole into a twin's job. */
    uint16_t pfrom_of[ZL_MAX_ENTITIES];
    uint32_t pred_age;   /* the extrapolation's older frame before the base, 0: none */
    uint16_t start[ZL_MAX_ENTITIES];  /* bit where the entry's head starts */
    uint16_t end[ZL_MAX_ENTITIES];    /* bit after its state code */
    uint32_t enter_bits, update_bits, number_bits; /* as zl_snapshot_stats's,
                                                      of the first client served */
    uint8_t bytes[ZL_MAX_PACKET];
    /* Every client whose record comes from this run holds the same: its
     * records carry `content`. A client whose baseline has the same content
     * as the run's first client's (base_content) needs what that client
     * needed, entity for entity, but for the two clients' own entities:
     * `op` is that client's sorting-out, `own` its entity; twin 0 when the
     * run was written from a relevance list (clients' lists differ). */
    uint8_t twin;
    uint16_t own;
    uint32_t content, base_content, pred_content;
    uint8_t op_of[ZL_MAX_ENTITIES];
    uint32_t op_map[ZL_SNAPSHOT_OPS][ZL_SNAPSHOT_MAP_WORDS];
} zl_snapshot_run;

/* The server's entity states of the last ZL_SNAPSHOT_WORLD_TICKS ticks,
 * shared by every client, and the state codes written for the tick being
 * sent. Caller-owned (static: it is large); private. */
typedef struct zl_snapshot_world {
    uint32_t newest; /* the tick being or last recorded */
    uint8_t started;
    uint8_t codes_valid;  /* the codes below encode states of codes_tick */
    uint32_t codes_tick;
    uint32_t code_count, code_used;
    uint16_t code_head[ZL_MAX_ENTITIES]; /* index + 1 of an entity's first code */
    zl_snapshot_code code[ZL_SNAPSHOT_CODES];
    uint8_t code_bytes[ZL_SNAPSHOT_CODE_BYTES];
    /* Whether an entity's shared fields at codes_tick equal its state at
     * tick same_from[e]: 0 not known yet, 1 equal, 2 different. Every
     * client holding that state asks the same question. */
    uint8_t same[ZL_MAX_ENTITIES];
    uint32_t same_from[ZL_MAX_ENTITIES];
    zl_snapshot_run run;
    uint32_t contents; /* run contents numbered so far (never 0) */
    /* The layout's player and entity schemas, prepared at their first
     * state: every state recorded is copied and quantised through them. */
    zl_schema_plan plan[2];
    zl_snapshot_world_slot slot[ZL_SNAPSHOT_WORLD_TICKS];
} zl_snapshot_world;

/* Empties the history. */
void zl_snapshot_world_init(zl_snapshot_world *w);

/* Starts recording `tick` with no entity present; it replaces the tick
 * ZL_SNAPSHOT_WORLD_TICKS before it. Ticks must increase from one call to
 * the next (gaps are fine); anything else is a programmer error. */
void zl_snapshot_world_begin(zl_snapshot_world *w, uint32_t tick);

/* Records entity `entity` (< ZL_MAX_ENTITIES) as present in the tick being
 * recorded, with `state` (a struct of the layout's schema for that number,
 * read only). Its wire fields are copied and quantised: what is stored is
 * exactly what a client reconstructs. Setting an entity again overwrites. */
void zl_snapshot_world_set(zl_snapshot_world *w, const zl_snapshot_layout *layout,
                           uint16_t entity, const void *state);

/* zl_snapshot_world_set for a state already quantised (zl_schema_quantize:
 * a game's states, which zl_game requires quantised), copied without
 * quantising it again. A state that is not is stored as it is: the wire
 * still carries its quantised codes, but comparisons with it see changes
 * the client never receives. */
void zl_snapshot_world_set_quantized(zl_snapshot_world *w, const zl_snapshot_layout *layout,
                                     uint16_t entity, const void *state);

/* The stored state of `entity` at `tick`, or NULL when that entity was not
 * present or the tick is not (or no longer) in the history. */
const void *zl_snapshot_world_state(const zl_snapshot_world *w, uint32_t tick, uint16_t entity);

/* ---- Server: one client's snapshots ---- */

/* State tick of an entity a sent record holds (its held map), as an age
 * below the record's tick: AGED when that state is older than any age
 * worth counting. Ages of entities not held are not kept. */
#define ZL_SNAPSHOT_AGED 0xFFFEu

/* Private: what one sent snapshot leaves on the client once applied. */
typedef struct zl_snapshot_record {
    uint32_t tick;
    uint32_t serial; /* zl_snapshot_client.written when it was made */
    uint16_t sequence; /* the packet that carried it */
    uint8_t used;
    uint8_t acked; /* its packet was acknowledged: the client holds it */
    /* State tick = tick - age, where held; whole words of 32 entities,
     * set a word at a time. */
    uint16_t age[ZL_SNAPSHOT_MAP_WORDS * 32];
    uint8_t held[ZL_SNAPSHOT_BITMAP_BYTES]; /* the entities the client holds */
    uint16_t count; /* of them */
    uint32_t content; /* the tick's run it holds the entities of, 0: its own */
    uint32_t executed; /* the command its message named (zl_snapshot_message_write) */
    zl_event_ref events; /* its events section's reference (zl_eventlog.h) */
} zl_snapshot_record;

/* What the last zl_snapshot_write did, for statistics and tests. Entity
 * counts are per kind of entry; `unchanged` entities cost nothing (the
 * client keeps them); `carried` ones did not fit the budget and will be
 * sent later (the client keeps its older state meanwhile). */
typedef struct zl_snapshot_stats {
    uint32_t base_tick;   /* the baseline's tick; meaningless when full */
    uint8_t full;         /* 1: coded against nothing (no usable baseline) */
    uint16_t entered;     /* coded against the zero state (new, or their
                             baseline state left the world history) */
    uint16_t updated;     /* coded against the baseline's state */
    uint16_t left;        /* removed from the client */
    uint16_t unchanged;
    uint16_t carried;
    uint32_t enter_bits;  /* bits of the entered entries (number, kind, state) */
    uint32_t update_bits; /* bits of the updated entries (number, kind, delta) */
    uint32_t number_bits; /* of which entity numbers: at least 1 per entry, the
                             rest is the cost of the numbers skipped */
    uint32_t own_bits;    /* of which the own entity's entry (number, kind,
                             state code); 0 when it has none */
    uint32_t bits;        /* the whole entity section */
} zl_snapshot_stats;

/* One client's snapshot bookkeeping on the server (about 17 KiB at the
 * defaults). Caller-owned, fixed size; private except `last`, which the
 * caller may read after zl_snapshot_write. */
typedef struct zl_snapshot_client {
    zl_snapshot_record record[ZL_SNAPSHOT_SENT];
    uint32_t written;  /* records made; the next goes to written % SENT */
    int32_t baseline;  /* index of the newest acknowledged record, or -1 */
    uint32_t last_tick;
    uint8_t have_last;
    uint32_t accum[ZL_MAX_ENTITIES]; /* priority accumulated while not sent */
    uint8_t owed;      /* 0: every accum is 0 (the last section held every entry) */
    zl_snapshot_stats last; /* what the last zl_snapshot_write did */
} zl_snapshot_client;

/* A new client (or one that asked for a full snapshot): forgets every sent
 * record and the baseline, so snapshots are full until one written after
 * this is acknowledged. Call it when the client connects and whenever it
 * asks for a full snapshot (zl_snapshot_receiver.need_full). */
void zl_snapshot_client_reset(zl_snapshot_client *c);

/* The snapshot zl_snapshot_write of `tick` would now write a delta
 * against (one the client acknowledged and can still be sent a delta
 * against), or NULL when it would write a full one. */
const zl_snapshot_record *zl_snapshot_client_base(const zl_snapshot_client *c, uint32_t tick);

/* Writes the entity section of the snapshot of `tick` for this client into
 * bw and remembers it as carried by packet `packet_sequence`.
 *   world: must hold `tick` (zl_snapshot_world_begin/set); ticks passed to
 *     successive calls must increase.
 *   relevant, relevant_count: the entity numbers this client should hold
 *     (ascending or not, no duplicates); NULL = every entity present at
 *     tick. Numbers not present in the world at tick are ignored.
 *   priority: one weight per relevant entry (per entity number when
 *     relevant is NULL), e.g. larger when closer; NULL = all 1; 0 counts as
 *     1. Each snapshot an entity needs sending but is left out, its weight
 *     is added to its accumulator; entries go highest accumulator first, so
 *     every entity is eventually sent (Fiedler's priority accumulator).
 *   own_entity: the client's player, relevant whether listed or not and
 *     never carried (prediction needs it every snapshot); ZL_SNAPSHOT_NONE
 *     for none.
 *   budget_bits: the most this section may take; bw must have that much
 *     room left. Entries that do not fit are carried to a later snapshot.
 * Unchanged entities cost nothing; changed ones are delta-coded through
 * their schema (own_entity with every wire field, the others without their
 * ZL_OWNER fields) against the state the client holds, its ZL_EXTRAPOLATE
 * fields extrapolated from an older acknowledged snapshot when there is one
 * (docs/PROTOCOL.md 9.3), entering ones (and those whose baseline state, or
 * that older state, left the world history) against zero. With no
 * usable baseline the snapshot is full and the client needs no old frame;
 * the section does not say which (c->last.full, zl_snapshot_client_base
 * before the call): the caller's header does.
 * Returns the bits written (stats in c->last), or ZL_ERR_OVERFLOW (nothing
 * written or recorded) when even the header and the own entity do not fit
 * the budget or bw. The world is written only to keep the tick's state
 * codes, which later clients of the same tick reuse. Uses about 3 KiB of stack. */
int zl_snapshot_write(zl_snapshot_client *c, zl_snapshot_world *world,
                      const zl_snapshot_layout *layout, uint32_t tick, const uint16_t *relevant,
                      int relevant_count, const uint32_t *priority, uint16_t own_entity,
                      uint32_t budget_bits, uint16_t packet_sequence, zl_bitwriter *bw);

/* What the client holds of `entity` once it applies the snapshot last
 * written: ZL_EVENT_HOLDS_NONE, ZL_EVENT_HOLDS_SAME (the world's state of
 * that snapshot's tick) or ZL_EVENT_HOLDS_OTHER (an older one: the entity
 * was left out for room). */
int zl_snapshot_client_holds(const zl_snapshot_client *c, uint16_t entity);

/* The link reports packet `packet_sequence` acknowledged (zl_link_acks). If
 * it carried a snapshot still remembered, that snapshot becomes the
 * baseline when newer than the current one. Unknown sequences are ignored. */
void zl_snapshot_acked(zl_snapshot_client *c, uint16_t packet_sequence);

/* Makes the baseline the only snapshot the client counts as held: the
 * next deltas are coded against it alone, never extrapolated from an older
 * one (9.3). For a relay whose receivers may start at the baseline, as a
 * broadcast's spectators start at a fragment's keyframe. */
void zl_snapshot_client_hold_only_baseline(zl_snapshot_client *c);

/* ---- Client: decoding ---- */

/* One decoded snapshot: the entities present at `tick` and their states
 * (wire fields as sent, every other byte zero). Read it through
 * zl_snapshot_frame_state. */
typedef struct zl_snapshot_frame {
    uint32_t tick;
    uint16_t count; /* entities present */
    zl_event_ref events; /* its events section's reference (zl_eventlog.h) */
    uint8_t present[ZL_SNAPSHOT_BITMAP_BYTES];
    uint32_t states[ZL_MAX_ENTITIES][ZL_STATE_MAX / 4];
} zl_snapshot_frame;

/* The state of `entity` in f, aligned for the game's struct, or NULL when
 * it is absent (or entity >= ZL_MAX_ENTITIES). */
const void *zl_snapshot_frame_state(const zl_snapshot_frame *f, uint16_t entity);

/* FNV-1a over what f shows, chained from `hash` (ZL_SCHEMA_HASH_INIT to
 * start): each entity present, in order, its number and its wire fields
 * through the layout's schema. Equal frames hash equal on every host: a
 * spectator's or a demo's view, compared. */
uint32_t zl_snapshot_frame_hash(const zl_snapshot_frame *f, const zl_snapshot_layout *layout,
                                uint32_t hash);

/* The client's recent frames, the bases of the deltas to come (about
 * 513 KiB at the defaults: lower ZL_SNAPSHOT_FRAMES or ZL_MAX_ENTITIES on a
 * small target). Caller-owned; fields private except the flag and counters. */
typedef struct zl_snapshot_receiver {
    zl_snapshot_frame frame[ZL_SNAPSHOT_FRAMES];
    uint8_t valid[ZL_SNAPSHOT_FRAMES];
    uint32_t newest; /* tick of the newest frame decoded */
    uint32_t executed; /* the command its message named: a delta's is widened against it */
    uint8_t have_newest;
    /* Set when a snapshot's base frame is missing; cleared by the next full
     * snapshot decoded. While set, the client should ask the server for a
     * full snapshot (the server calls zl_snapshot_client_reset). */
    uint8_t need_full;
    uint32_t refused_old;  /* snapshots not newer than the newest decoded */
    uint32_t missing_base; /* snapshots whose base frame was not kept */
    uint32_t malformed;    /* snapshots whose bytes did not decode */
} zl_snapshot_receiver;

/* Empties the receiver: no frame, need_full clear, counters zero. */
void zl_snapshot_receiver_init(zl_snapshot_receiver *rx);

/* Decodes the entity section of the snapshot of `tick` (read from the
 * snapshot's header by the caller, as is has_base: 1 for a delta, 0 for a
 * full snapshot) from r, builds the new frame from its
 * base frame and the entries, keeps it and points *out at it (valid until
 * the next call). own_entity: the receiving client's player, the one entry
 * with ZL_OWNER fields (the number the server passed to zl_snapshot_write;
 * ZL_SNAPSHOT_NONE for none); other entities hold those fields as zero. Returns ZL_OK, or (nothing kept, *out NULL, counted):
 *   ZL_ERR_DUPLICATE  tick not newer than the newest frame decoded: drop it;
 *   ZL_ERR_AGAIN      its base frame, or the older frame it extrapolates
 *                     from, is not kept: need_full is set;
 *   ZL_ERR_MALFORMED / ZL_ERR_OVERFLOW  hostile or cut bytes (r's error),
 *                     a base age of 0 or ages adding up past the world
 *                     history among them.
 * Whatever the bytes, nothing outside the receiver is written. */
int zl_snapshot_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout, uint32_t tick,
                     int has_base, uint16_t own_entity, zl_bitreader *r,
                     const zl_snapshot_frame **out);

/* The kept frames oldest first: the oldest with prev NULL, else the one
 * after prev (a frame of rx); NULL after the newest. */
const zl_snapshot_frame *zl_snapshot_receiver_next(const zl_snapshot_receiver *rx,
                                                   const zl_snapshot_frame *prev);

/* Keeps a frame made elsewhere (a demo keyframe's, zl_client_demo.h) as
 * the newest: an empty frame of `tick` for the caller to fill through
 * zl_snapshot_frame_put, or NULL (nothing changes) when tick is not newer
 * than the newest kept. The oldest frame makes room. */
zl_snapshot_frame *zl_snapshot_receiver_add(zl_snapshot_receiver *rx, uint32_t tick);

/* Marks `entity` present in f and returns its state, zeroed, to fill
 * (ZL_STATE_MAX bytes); NULL for entity >= ZL_MAX_ENTITIES. */
void *zl_snapshot_frame_put(zl_snapshot_frame *f, uint16_t entity);

/* The newest frame decoded, or NULL before the first. */
const zl_snapshot_frame *zl_snapshot_receiver_newest(const zl_snapshot_receiver *rx);

/* ---- The snapshot message (ZL_MSG_SNAPSHOT) ----
 * Its payload: the server tick (a delta: a 1 bit and the tick's low
 * ZL_SNAPSHOT_TICK_BITS, the tick nearest the receiver's newest frame
 * with them; a full snapshot: a 0 bit and 32 bits), the newest command the
 * server has run of this client (what prediction reconciles against: a
 * full snapshot's 32 bits; a delta's a 0 bit and its low 6 bits when it is
 * less than 64 after its baseline's, widened against the newest the
 * receiver read, else a 1 bit and 32 bits), zero bits to the next byte, the entity section above, then
 * the events section (zl_eventlog.h; one 0 bit when there are none), each
 * event whose source the client holds once it applied the entity section
 * coded against a base built from that state (zl_game.event_base). A
 * receiver whose newest frame is less than 2^(ZL_SNAPSHOT_TICK_BITS - 1)
 * ticks away widens a delta's tick right. The events of a snapshot whose
 * entity section the receiver cannot decode are unread: it must not
 * acknowledge the packet, so that its events go again. Server and client
 * write and read it only here. */
#define ZL_SNAPSHOT_TICK_BITS 16u

/* The events a snapshot message carries to one client. */
typedef struct zl_snapshot_events {
    zl_event_sender *sender;
    zl_event_log *log;
    zl_event_audience audience;
    uint32_t resend_ticks; /* zl_event_section_write's */
    const zl_game *game;   /* its event_base and event_bases */
    const zl_schema_plan *plan; /* its event schema, prepared */
} zl_snapshot_events;

/* Writes a whole snapshot message into bw: the header, the entity section
 * of zl_snapshot_write with the same arguments in budget_bits less the
 * room kept for the events of `events` (NULL: none; at most half of what
 * is left after the header), then the events section in what is left.
 * The events' sender learns which packet carried them only when the
 * message is written whole. Returns the bits of the entity section, or
 * ZL_ERR_OVERFLOW as zl_snapshot_write (bw then unusable). */
int zl_snapshot_message_write(zl_snapshot_client *c, zl_snapshot_world *world,
                              const zl_snapshot_layout *layout, uint32_t tick, uint32_t executed,
                              const uint16_t *relevant, int relevant_count,
                              const uint32_t *priority, uint16_t own_entity,
                              const zl_snapshot_events *events, uint32_t budget_bits,
                              uint16_t packet_sequence, zl_bitwriter *bw);

/* Reads a snapshot message of len payload bytes (read only, hostile bytes
 * fine): *executed gets the header's command; the entity section as
 * zl_snapshot_read (same results), then, only when it decoded, the events
 * section into `events` through game's event schema and bases (both NULL
 * for a client without events: then a section holding any is malformed).
 * A delta reaching a receiver without any frame: ZL_ERR_AGAIN, counted in
 * missing_base, need_full set, nothing read. A header or events section
 * cut short or malformed is counted malformed, *out NULL. Anything but
 * ZL_OK leaves events of the snapshot unread (but those before a
 * malformed one): the packet must not be acknowledged. */
int zl_snapshot_message_read(zl_snapshot_receiver *rx, const zl_snapshot_layout *layout,
                             uint16_t own_entity, zl_event_queue *events, const zl_game *game,
                             const void *payload, size_t len, uint32_t *executed,
                             const zl_snapshot_frame **out);

/* The tick a snapshot message of len payload bytes (read only, hostile
 * bytes fine) names in its header, into *tick, widened against rx's newest
 * frame, without reading the rest: ZL_OK, ZL_ERR_OVERFLOW when the header
 * is cut short, or ZL_ERR_AGAIN for a delta's tick when rx holds no frame
 * (a receiver starts with a full snapshot). A client drops the snapshots
 * of a match it has left with it, before their events reach its queue. */
int zl_snapshot_message_tick(const zl_snapshot_receiver *rx, const void *payload, size_t len,
                             uint32_t *tick);

/* The newest command the server had run, from a snapshot message's header
 * (read only, hostile bytes fine), for a peer that keeps no frames (a
 * thin test or benchmark client): *executed is, on entry, the one the
 * peer read from the newest snapshot before this one (0 before any: a
 * delta's command is widened against it) and on return this one's.
 * ZL_OK, or ZL_ERR_OVERFLOW when the header is cut short. */
int zl_snapshot_message_executed(const void *payload, size_t len, uint32_t *executed);

ZL_END_DECLS

#endif
