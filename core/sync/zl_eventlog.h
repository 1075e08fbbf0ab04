/* zl_eventlog.h - events in snapshots: the server's log of the events
 * clients should see (shots, footsteps, hits), each coded once, the part of
 * it each snapshot carries until the client acknowledges it, and the
 * client's queue that hands them over when its render time reaches them.
 * Not part of the API (docs/ARCHITECTURE.md): public because the server, which
 * the application allocates, embeds the log and the client the queue; their
 * stats carry its counters, a game reports events through zl_game.h and reads
 * them through zl_client.h, calling none of it. */
#ifndef ZL_EVENTLOG_H
#define ZL_EVENTLOG_H

#include "zl_game.h"
#include "zl_schema.h"

ZL_BEGIN_DECLS

ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_EVENT_LOG) && ZL_EVENT_LOG >= 2 && ZL_EVENT_LOG <= 16384,
                 zl_event_log_pow2);
ZL_STATIC_ASSERT(ZL_EVENT_BODY_BYTES >= 1 && ZL_EVENT_BODY_BYTES <= 255, zl_event_body_bytes);
ZL_STATIC_ASSERT(ZL_EVENT_COPIES >= 1 && ZL_EVENT_COPIES <= 8, zl_event_copies);
ZL_STATIC_ASSERT(ZL_EVENTS_PER_SNAPSHOT >= 1 && ZL_EVENTS_PER_SNAPSHOT <= 255,
                 zl_events_per_snapshot);
ZL_STATIC_ASSERT(ZL_CLIENT_EVENTS >= 1 && ZL_CLIENT_EVENTS <= 1024, zl_client_events);
ZL_STATIC_ASSERT(ZL_IS_POW2(ZL_CLIENT_EVENT_WINDOW) && ZL_CLIENT_EVENT_WINDOW >= 32 &&
                     ZL_CLIENT_EVENT_WINDOW <= 32768,
                 zl_client_event_window);

/* The model (Quake 3's entity events and Source's temp entities, made
 * reliable). Every event the game shares is appended to the server's log
 * with an id (consecutive, 32 bits) and its tick, and its body is coded
 * once through the game's event schema. Each snapshot to a client carries,
 * oldest first, the log's events that concern it and need sending, all
 * within ZL_EVENT_SPAN ids of the first: a new event in its first
 * ZL_EVENT_COPIES snapshots, and afterwards an event only on evidence that
 * no copy of it will arrive: every snapshot that carried it is known lost
 * (the link acknowledged a later packet and not it) or overdue (a round
 * trip and a bit has passed without an acknowledgement), each event by
 * its own copies. The link reports snapshots acknowledged; the events each
 * carried are done. So a lost snapshot loses nothing, an event is on time
 * unless ZL_EVENT_COPIES snapshots in a row are lost, and on a link that
 * loses nothing it costs exactly ZL_EVENT_COPIES sendings. An event
 * older than ZL_EVENT_MAX_AGE ticks is not sent again (counted as aged
 * out). The client hands each event over once (a window of the last
 * ZL_CLIENT_EVENT_WINDOW ids says which it has) and only when its render
 * time has reached the event's tick: another player's shot plays when that
 * player is drawn at the moment he fired. Its own player's events play on
 * arrival (its present is its prediction).
 *
 * Who an event concerns: not its source's own client when run_command
 * pushed it (the owner played it on its first prediction: Source's
 * suppression of the predicting player); everyone else when the server has
 * no relevance hook; with one, a client whose relevant entities include the
 * source, the client it targets, and everyone for events without a source.
 * Relevance is read when a snapshot is written.
 *
 * Wire, the events section of a snapshot message: for each event a 1 bit,
 * then its id (the first: against the section's reference, zl_event_ref,
 * when there is one: a 0 bit and an exp-Golomb code of first - reference
 * when that is 0 .. ZL_EVENT_NEAR - 1, else a 1 bit and its low 16 bits;
 * without a reference its low 16 bits; the next ones: a 1 bit when it
 * follows the previous id, else 0 and its low 16 bits), its age below the
 * snapshot's tick (0 .. ZL_EVENT_MAX_AGE, an exp-Golomb code: 1 bit for
 * 0, 3 for 1..2, 5 for 3..6, up to 17), its source (one the reader's frame holds,
 * zl_event_bases.held: a 1 bit and its rank among the h entities held,
 * 0 .. h - 1 ranged; else a 0 bit and -1 .. ZL_MAX_ENTITIES - 1
 * ranged), its base when the reader holds the source's state and the
 * game offers bases (zl_event_bases: a 1 bit for base 1, the game's
 * likeliest; else a 0 bit and 0 .. count - 1 ranged, 0 the zero event and
 * v base v + 1) and its body (zl_schema_write_delta against that base,
 * ZL_SCHEMA_WIRE); a 0 bit ends the section. Without events it costs 1 bit.
 * The schema describes zl_event; leave `source` and `tick` out of it. */
#define ZL_EVENT_AGE_BITS 8
/* Ids one snapshot's events span at most: a sent snapshot remembers which
 * it carried in as many bits. */
#define ZL_EVENT_SPAN 32u
#define ZL_EVENT_MAX_AGE ((1u << ZL_EVENT_AGE_BITS) - 1u)

/* First ids at most this far past the reference take the short code. */
#define ZL_EVENT_NEAR 255u

/* What a snapshot's events section codes its first id against, the same
 * at both ends for every snapshot frame: a full snapshot has none; a
 * delta starts from its base's, and a section that carried events leaves
 * the id after its last one. The server keeps one per snapshot it sent,
 * the client one per frame it decoded; a delta's base is a snapshot the
 * client acknowledged, so both hold the base's. */
typedef struct zl_event_ref {
    uint32_t next;  /* the id after the newest event of the chain */
    uint32_t known; /* 0: no reference (the first id goes in 16 bits) */
} zl_event_ref;

/* ---- Server ---- */

/* Private: one logged event. */
typedef struct zl_event_entry {
    uint32_t tick;
    int32_t source;
    int32_t target;
    uint8_t predicted; /* pushed by run_command: its owner played it */
    uint16_t bits;     /* of the body */
    uint8_t body[ZL_EVENT_BODY_BYTES]; /* the schema's code against the zero event */
} zl_event_entry;

/* Private: the newest events coded the way a section carries an event
 * that follows the previous one ([1][1], its age, its source and body)
 * for a reader holding every entity of the world, one after another for
 * the snapshots of one tick, so that a client's run of consecutive events
 * is one copy. Event i of it starts at bit at[i]. */
#define ZL_EVENT_RUN ZL_EVENTS_PER_SNAPSHOT
typedef struct zl_event_run {
    uint32_t tick;  /* the snapshots' tick it was coded for */
    uint32_t next;  /* the log's next id then: a new event codes it again */
    uint32_t first; /* id of its first event */
    uint32_t count; /* events coded */
    uint32_t every; /* entities of the world the sources are ranked among */
    uint8_t coded;
    uint32_t at[ZL_EVENT_RUN + 1];
    /* Event i carries a base choice (its source is in the world at tick):
     * its code is for a reader holding the source's state of tick. */
    uint8_t chose[ZL_EVENT_RUN];
    uint8_t head[ZL_EVENT_RUN]; /* bits of event i's age and source */
    uint8_t bits[(ZL_EVENT_RUN * (2u + 17u + 17u + 8u + 8u * ZL_EVENT_BODY_BYTES) + 7u) / 8u];
} zl_event_run;

/* The events clients should see, shared by every client. Caller-owned. */
typedef struct zl_event_log {
    uint32_t next;       /* id the next event gets */
    uint32_t too_large;  /* events whose body did not fit ZL_EVENT_BODY_BYTES: not logged */
    zl_event_entry entry[ZL_EVENT_LOG];
    zl_event_run run;
} zl_event_log;

void zl_event_log_init(zl_event_log *log);

/* Codes ev (its tick and source as stamped) through plan (the game's event
 * schema, prepared by zl_schema_plan_init) and logs it;
 * predicted: it was pushed by run_command. The oldest event gives way to
 * it when the log is full. ZL_OK, or ZL_ERR_OVERFLOW (counted in too_large). */
int zl_event_log_append(zl_event_log *log, const zl_schema_plan *plan, const zl_event *ev,
                        int predicted);

/* Measurements of what one client was sent; counters only grow. */
typedef struct zl_event_sender_stats {
    uint32_t sent;    /* events put into snapshots, resends included */
    uint32_t bits;    /* their sections' bits, ids, ages and end bits included */
    uint32_t aged;    /* events that concerned it but aged out unacknowledged */
    uint32_t overrun; /* events the log dropped before the client acknowledged
                         them (whether they concerned it or not) */
} zl_event_sender_stats;

/* Private: the events one sent snapshot carried, and what became of it. */
enum { ZL_EVENT_SENT_FREE = 0, ZL_EVENT_SENT_FLIGHT, ZL_EVENT_SENT_ACKED, ZL_EVENT_SENT_LOST };
typedef struct zl_event_sent {
    uint16_t sequence;
    /* ZL_EVENT_SENT_* << 14 | the low 14 bits of the tick from which,
     * unacknowledged, it counts as lost. A record matters only while its
     * events can still be sent (ZL_EVENT_MAX_AGE ticks), far within 2^13. */
    uint16_t due;
    uint32_t start;   /* id of bit 0 of carried */
    uint32_t carried; /* bit i: event start + i went in it */
} zl_event_sent;
/* One client's place in the log. Caller-owned; private but `stats`. */
typedef struct zl_event_sender {
    uint32_t acked; /* every event below this id is done */
    zl_event_sent sent[ZL_SNAPSHOT_SENT];
    /* Bit i of word i / 32: sent[i] is in flight, so an acknowledgement
     * visits only those (a few) rather than every record. */
    uint32_t flight[(ZL_SNAPSHOT_SENT + 31) / 32];
    zl_event_sender_stats stats;
} zl_event_sender;
/* A client that joins now: it is sent the events logged from now on. */
void zl_event_sender_reset(zl_event_sender *s, const zl_event_log *log);

/* The link reports packet `sequence` acknowledged: the events the snapshot
 * carried are done, and every snapshot sent before it and not
 * acknowledged yet is known lost. The link reports the acknowledgements of
 * one header oldest first. Sequences that carried no events count as
 * evidence all the same. */
void zl_event_sender_acked(zl_event_sender *s, uint16_t sequence);

/* Who reads the snapshot being written: its entity number (player slot)
 * and the entities it receives this tick (a bitmap of ZL_MAX_ENTITIES
 * bits), or NULL for every one. */
typedef struct zl_event_audience {
    int32_t client;
    const uint8_t *relevant;
} zl_event_audience;

/* What the reader of a section holds once it has read the snapshot's
 * entity section, and what an event may be coded against besides the
 * zero event: the bases its source offers (zl_game.event_base), built
 * from the source's state as that reader holds it. The snapshot message
 * fills it (zl_snapshot.h). */
enum { ZL_EVENT_HOLDS_NONE = 0, ZL_EVENT_HOLDS_OTHER, ZL_EVENT_HOLDS_SAME };
#define ZL_EVENT_BASES_MAX 15u
typedef struct zl_event_bases {
    uint32_t count; /* bases a source offers, 0 .. ZL_EVENT_BASES_MAX; 0: none */
    /* The entities the reader's frame holds (ZL_EVENT_HELD_BYTES, bit e of
     * byte e / 8; NULL: none): a source among them is coded by its rank.
     * The writer's `every`: the entities present in its world at the
     * snapshot's tick (NULL: none), for whom the tick's events are coded
     * once; a reader holding just those is sent that code. */
    const uint8_t *held;
    const uint8_t *every;
    /* What the reader holds of `source`, one of `held` (no other is
     * asked): OTHER (a state older than the one build reads: the writer
     * only) or SAME (the state build reads). */
    int (*holds)(const void *ctx, int32_t source);
    /* Fills all of *base (the writer does not clear it first) with base
     * `which` (1 .. count) of source, built from the state the writer's
     * world has at the snapshot's tick (0 when it has none: nothing
     * written) or the reader's frame holds (always 1). */
    int (*build)(const void *ctx, int32_t source, uint32_t which, zl_event *base);
    const void *ctx;
    const zl_schema_plan *plan; /* the writer's event schema, prepared */
} zl_event_bases;

/* Bytes of a zl_event_bases.held bitmap. */
#define ZL_EVENT_HELD_BYTES ((ZL_MAX_ENTITIES + 7) / 8)

/* What one events section carried. */
typedef struct zl_event_section {
    uint32_t start;    /* id of bit 0 of carried */
    uint32_t carried;  /* bit i: event start + i is in it */
    uint32_t count;    /* events */
    uint32_t bits;     /* the section, end bit included */
    uint32_t due_tick; /* when its events go again unless acknowledged */
} zl_event_section;
/* Chooses the events of the snapshot of `tick` for a client, at most
 * ZL_EVENTS_PER_SNAPSHOT, into *out (start, carried, count) and returns
 * the bits their section will likely take (end bit included; each as for
 * a client holding every entity of the world and its source's state of
 * this tick, through `bases`, NULL for none; bases->held is not read):
 * the room to keep for it. The section may turn out longer
 * (the client holds older states): zl_event_section_write then leaves
 * out what does not fit. */
uint32_t zl_event_section_choose(zl_event_sender *s, zl_event_log *log,
                                 const zl_event_audience *audience, const zl_event_bases *bases,
                                 const zl_event_ref *ref, uint32_t tick, zl_event_section *out);
/* Writes the events section of the snapshot of `tick` with the events
 * *sec chose (zl_event_section_choose, with the same *ref), its first id
 * against *ref (the base's reference; then this snapshot's), in
 * ascending id, as many as fit
 * budget_bits (the end bit included), each against the cheapest base
 * (bases NULL: the zero event), and describes it in *sec. resend_ticks:
 * how long an event waits for its acknowledgement before it is sent
 * again (a round trip and a margin, in ticks, at least 1). Returns the
 * bits written, or ZL_ERR_OVERFLOW when not even the end bit fits. The
 * log keeps its newest events coded for `tick` (the first client of a
 * tick codes them, the others copy). */
int zl_event_section_write(zl_event_log *log, const zl_event_bases *bases, zl_event_ref *ref,
                           uint32_t tick, uint32_t resend_ticks, uint32_t budget_bits,
                           zl_bitwriter *w, zl_event_section *sec);

/* Remembers that packet `sequence` went out with section *sec. */
void zl_event_sender_sent(zl_event_sender *s, uint16_t sequence, const zl_event_section *sec);

/* ---- Client ---- */

/* Measurements of what a client received; counters only grow. */
typedef struct zl_event_queue_stats {
    uint32_t received;   /* events queued */
    uint32_t duplicates; /* copies of events already queued */
    uint32_t stale;      /* events older than the window: dropped unread */
    uint32_t dropped;    /* events refused: the queue was full */
    uint32_t bits;       /* of the events sections read */
    uint32_t malformed;  /* sections whose bytes did not decode */
} zl_event_queue_stats;

/* The events received and not yet handed over. Caller-owned; private but
 * `stats`. */
typedef struct zl_event_queue {
    uint32_t next; /* the id after the newest event received */
    uint8_t have_next;
    /* Bit i: id next - 1 - i has been received. */
    uint32_t seen[ZL_CLIENT_EVENT_WINDOW / 32];
    uint32_t count;
    zl_event item[ZL_CLIENT_EVENTS]; /* in tick order */
    zl_event_queue_stats stats;
} zl_event_queue;

void zl_event_queue_init(zl_event_queue *q);

/* Reads the events section of the snapshot of `tick` from r (hostile bytes
 * fine; schema NULL: the game shares no events; bases: what the snapshot
 * left the reader, NULL for none; *ref: its base's reference, on ZL_OK
 * this snapshot's) and queues the events not queued before. ZL_OK, or
 * the reader's error (ZL_ERR_MALFORMED / ZL_ERR_OVERFLOW; counted, events
 * before the error kept, *ref then meaningless). */
int zl_event_section_read(zl_event_queue *q, const zl_schema *schema,
                          const zl_event_bases *bases, zl_event_ref *ref, uint32_t tick,
                          zl_bitreader *r);

/* Hands over, in tick order, up to max queued events that are due: their
 * tick at or before due_tick, or their source `own`. Returns how many were
 * copied to out; the rest stay queued. */
int zl_event_queue_take(zl_event_queue *q, uint32_t due_tick, int32_t own, zl_event *out,
                        int max);

ZL_END_DECLS

#endif
