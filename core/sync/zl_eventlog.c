/* zl_eventlog.c - events in snapshots: the log, each client's window of it,
 * the section's wire format and the client's queue. */
#include "zl_eventlog.h"

#include <string.h>

#include "zl_bits.h"
#include "zl_ring.h"

/* Bits of an event's id on the wire when it does not follow the previous one. */
#define ID_BITS 16u

static zl_event_entry *entry_at(zl_event_log *log, uint32_t id)
{
    return &log->entry[id & (ZL_EVENT_LOG - 1u)];
}

static const zl_event_entry *entry_of(const zl_event_log *log, uint32_t id)
{
    return &log->entry[id & (ZL_EVENT_LOG - 1u)];
}

/* Whether id a comes after id b (ids wrap). */
static int after(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) > 0;
}

void zl_event_log_init(zl_event_log *log)
{
    ZL_ASSERT(log);
    memset(log, 0, sizeof(*log));
}

int zl_event_log_append(zl_event_log *log, const zl_schema_plan *plan, const zl_event *ev,
                        int predicted)
{
    zl_event_entry *e;
    zl_bitwriter w;
    int bits;
    ZL_ASSERT(log && plan && plan->schema && ev && plan->schema->size == sizeof(zl_event));
    ZL_ASSERT(ev->source >= -1 && ev->source < ZL_MAX_ENTITIES);
    e = entry_at(log, log->next);
    zl_bitwriter_init(&w, e->body, sizeof(e->body));
    zl_schema_plan_write_delta(plan, &w, NULL, ev, ZL_SCHEMA_WIRE);
    bits = w.error != ZL_OK ? w.error : (int)zl_bitwriter_bits_used(&w);
    if (bits < 0) {
        log->too_large++;
        return ZL_ERR_OVERFLOW;
    }
    e->tick = ev->tick;
    e->source = ev->source;
    e->target = ev->target;
    e->predicted = (uint8_t)(predicted != 0);
    e->bits = (uint16_t)bits;
    log->next++;
    return ZL_OK;
}

void zl_event_sender_reset(zl_event_sender *s, const zl_event_log *log)
{
    ZL_ASSERT(s && log);
    memset(s, 0, sizeof(*s));
    s->acked = log->next;
}

/* A sent record's state and due tick, packed in its `due`. */
#define DUE_BITS 14u
#define DUE_MASK ((1u << DUE_BITS) - 1u)

static uint32_t state_of(const zl_event_sent *r)
{
    return (uint32_t)r->due >> DUE_BITS;
}

static void set_state(zl_event_sent *r, uint32_t state)
{
    r->due = (uint16_t)(state << DUE_BITS | (r->due & DUE_MASK));
}

/* Whether tick has reached r's due tick (mod 2^14). */
static int overdue(const zl_event_sent *r, uint32_t tick)
{
    return ((tick - r->due) & DUE_MASK) < (DUE_MASK + 1u) / 2u;
}

void zl_event_sender_sent(zl_event_sender *s, uint16_t sequence, const zl_event_section *sec)
{
    zl_event_sent *r;
    ZL_ASSERT(s && sec);
    s->stats.sent += sec->count;
    s->stats.bits += sec->bits;
    if (sec->carried == 0)
        return;
    /* The slot's snapshot of ZL_SNAPSHOT_SENT ago, if still unacknowledged,
     * is forgotten: its events go again. */
    r = &s->sent[sequence % ZL_SNAPSHOT_SENT];
    s->flight[sequence % ZL_SNAPSHOT_SENT / 32u] |= 1u << (sequence % ZL_SNAPSHOT_SENT % 32u);
    r->sequence = sequence;
    r->due = (uint16_t)((uint32_t)ZL_EVENT_SENT_FLIGHT << DUE_BITS | (sec->due_tick & DUE_MASK));
    r->start = sec->start;
    r->carried = sec->carried;
}

/* Over the records in flight, highest bit first by a count of leading
 * zeros; each is decided on its own, so the order does not matter. */
void zl_event_sender_acked(zl_event_sender *s, uint16_t sequence)
{
    uint32_t w;
    ZL_ASSERT(s);
    for (w = 0; w < ZL_COUNTOF(s->flight); w++) {
        uint32_t todo = s->flight[w];
        while (todo != 0) {
            unsigned bit = zl_bits_required(todo) - 1u;
            zl_event_sent *r = &s->sent[w * 32u + bit];
            uint32_t state = ZL_EVENT_SENT_FLIGHT;
            todo &= ~(1u << bit);
            if (r->sequence == sequence)
                state = ZL_EVENT_SENT_ACKED;
            else if (zl_seq_diff(r->sequence, sequence) < 0)
                state = ZL_EVENT_SENT_LOST; /* a later packet got there, it did not */
            if (state != ZL_EVENT_SENT_FLIGHT) {
                set_state(r, state);
                s->flight[w] &= ~(1u << bit);
            }
        }
    }
}

/* What the sent snapshots say about the FATE_WINDOW ids from `base`,
 * gathered in one pass over them, a bit per id: the section's questions
 * are then bit tests, not a pass each. Copies are counted in bit planes
 * (plane j holds bit j of every id's count, saturating), so a snapshot's
 * ids are added at once; the answers are kept in 32-bit words. */
#define FATE_WINDOW 64u
#define FATE_WORDS (FATE_WINDOW / 32u)
#define COPY_PLANES 4u /* counts to 15: more than ZL_EVENT_COPIES (8 at most) */

typedef struct fates {
    uint32_t base;
    uint32_t done[FATE_WORDS]; /* an acknowledged snapshot carried it */
    uint32_t send[FATE_WORDS]; /* not done; in its first copies, or none may still arrive */
} fates;

static void gather(const zl_event_sender *s, uint32_t base, uint32_t tick, fates *t)
{
    uint64_t done = 0, coming = 0, copies[COPY_PLANES] = {0}, few = 0, same = ~(uint64_t)0, send;
    uint32_t i, j;
    t->base = base;
    for (i = 0; i < ZL_SNAPSHOT_SENT; i++) {
        const zl_event_sent *r = &s->sent[i];
        uint32_t state = state_of(r);
        int32_t at = (int32_t)(r->start - base);
        uint64_t ids, carry;
        if (state == ZL_EVENT_SENT_FREE || at <= -(int32_t)ZL_EVENT_SPAN ||
            at >= (int32_t)FATE_WINDOW)
            continue;
        ids = at >= 0 ? (uint64_t)r->carried << at : (uint64_t)r->carried >> -at;
        if (state == ZL_EVENT_SENT_ACKED)
            done |= ids;
        else if (state == ZL_EVENT_SENT_FLIGHT && !overdue(r, tick))
            coming |= ids;
        for (j = 0, carry = ids; j < COPY_PLANES && carry; j++) {
            uint64_t plane = copies[j];
            copies[j] = plane ^ carry;
            carry &= plane;
        }
        for (j = 0; j < COPY_PLANES && carry; j++)
            copies[j] |= carry; /* past the top: stays at the most */
    }
    /* The ids counted fewer than ZL_EVENT_COPIES, plane by plane from the
     * top: fewer where a plane first has a 0 where the bound has a 1. */
    for (j = COPY_PLANES; j-- > 0;) {
        if ((ZL_EVENT_COPIES >> j) & 1u) {
            few |= same & ~copies[j];
            same &= copies[j];
        } else {
            same &= ~copies[j];
        }
    }
    send = ~done & (few | ~coming);
    for (j = 0; j < FATE_WORDS; j++) {
        t->done[j] = (uint32_t)(done >> (32u * j));
        t->send[j] = (uint32_t)(send >> (32u * j));
    }
}

/* Bit `id` of one of t's sets (done or send), t moved on to cover id
 * first when it does not: ids are asked in order. */
static int fate_is(const zl_event_sender *s, fates *t, const uint32_t *set, uint32_t id,
                   uint32_t tick)
{
    uint32_t at = id - t->base;
    if (at >= FATE_WINDOW) {
        gather(s, id, tick, t);
        at = 0;
    }
    return (int)((set[at >> 5] >> (at & 31u)) & 1u);
}

static int concerns(const zl_event_entry *e, const zl_event_audience *a)
{
    if (e->source == a->client)
        return !e->predicted;
    if (!a->relevant || e->source < 0 || e->target == a->client)
        return 1;
    return (a->relevant[e->source >> 3] >> (e->source & 7)) & 1;
}

/* Moves the client's window past events the log no longer holds, events
 * done or that do not concern it, and events too old to send at `tick`,
 * counting the lost ones. */
static void retire(zl_event_sender *s, const zl_event_log *log, const zl_event_audience *a,
                   fates *t, uint32_t tick)
{
    if (log->next - s->acked > ZL_EVENT_LOG) {
        s->stats.overrun += log->next - s->acked - ZL_EVENT_LOG;
        s->acked = log->next - ZL_EVENT_LOG;
    }
    for (; s->acked != log->next; s->acked++) {
        const zl_event_entry *e = entry_of(log, s->acked);
        if (!concerns(e, a) || fate_is(s, t, t->done, s->acked, tick))
            continue;
        if (tick - e->tick <= ZL_EVENT_MAX_AGE)
            break;
        s->stats.aged++;
    }
}

/* Exp-Golomb code of v (< 2^15): n 0 bits, a 1 bit and the low n bits of
 * v + 1 (n its highest bit), lowest first; its bits into *bits. Small
 * values are far likelier than large ones: each doubling costs 2 bits. */
static uint32_t exp_golomb(uint32_t v, uint32_t *bits)
{
    uint32_t n = zl_bits_required(v + 1u) - 1u;
    *bits = 2u * n + 1u;
    return 1u << n | (v + 1u - (1u << n)) << (n + 1u);
}

/* Reads an exp-Golomb code of a value at most max (< 2^15; a larger one
 * is malformed). */
static uint32_t read_exp_golomb(zl_bitreader *r, uint32_t max)
{
    uint32_t n = 0, v;
    while (!zl_bitreader_bool(r) && r->error == ZL_OK)
        if ((1u << ++n) - 1u > max) {
            r->error = ZL_ERR_MALFORMED;
            return 0;
        }
    v = (1u << n) + zl_bitreader_bits(r, n) - 1u;
    if (v > max) {
        r->error = ZL_ERR_MALFORMED;
        return 0;
    }
    return v;
}

/* Bits of an age's code, the exp-Golomb code of the age: 1 bit for the
 * snapshot's own tick, 3 for 1..2, 5 for 3..6, up to 17 for 255. */
static uint32_t age_code_bits(uint32_t age)
{
    uint32_t bits;
    (void)exp_golomb(age, &bits);
    return bits;
}

/* Bits of base choice `which` (0 .. n) of an event whose reader holds its
 * source: the game lists its likeliest base first, so base 1 is a 1 bit;
 * the others are a 0 bit and 0 .. n - 1 ranged (0 the zero event, v base
 * v + 1). None when the game offers no bases. */
static uint32_t choice_bits(uint32_t n, uint32_t which)
{
    return n == 0 ? 0u : which == 1u ? 1u : 1u + zl_bits_required(n - 1u);
}

static void write_choice(zl_bitwriter *w, uint32_t n, uint32_t which)
{
    if (n == 0)
        return;
    if (which == 1u) {
        zl_bitwriter_bool(w, 1);
        return;
    }
    zl_bitwriter_bool(w, 0);
    zl_bitwriter_bits(w, which ? which - 1u : 0u, zl_bits_required(n - 1u));
}

/* Reads a base choice of n; a value above n is malformed. */
static uint32_t read_choice(zl_bitreader *r, uint32_t n)
{
    int32_t v;
    if (n == 0 || zl_bitreader_bool(r))
        return n == 0 ? 0u : 1u;
    v = zl_bitreader_ranged(r, 0, (int32_t)n - 1);
    return v == 0 ? 0u : (uint32_t)v + 1u;
}

/* Set bits of x. */
static uint32_t ones(uint32_t x)
{
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
}

/* Entities of map below number n (n <= ZL_MAX_ENTITIES), four bytes at a
 * time. */
static uint32_t held_below(const uint8_t *map, uint32_t n)
{
    uint32_t i = 0, count = 0, word;
    for (; i + 32u <= n; i += 32u) {
        memcpy(&word, map + i / 8u, sizeof word);
        count += ones(word);
    }
    for (; i + 8u <= n; i += 8u)
        count += ones(map[i / 8u]);
    if (i < n)
        count += ones(map[i / 8u] & ((1u << (n - i)) - 1u));
    return count;
}

/* Whether entity `e` is one of map's (NULL: none). */
static int bit_of(const uint8_t *map, int32_t e)
{
    return map && e >= 0 && ((map[e >> 3] >> (e & 7)) & 1);
}

/* The entities a reader holds, and how many: sources are named among
 * them. */
typedef struct view {
    const uint8_t *map; /* NULL: none */
    uint32_t count;
} view;

static view view_of(const uint8_t *map, uint32_t count)
{
    view v;
    v.map = map;
    v.count = count;
    return v;
}

static view counted_view(const uint8_t *map)
{
    return view_of(map, map ? held_below(map, ZL_MAX_ENTITIES) : 0u);
}

/* Bits of the code of `source` for a reader holding v: a source it holds
 * by its rank among them, the others whole. */
static uint32_t source_bits(const view *v, int32_t source)
{
    return 1u + (bit_of(v->map, source) ? zl_bits_required(v->count - 1u)
                                        : zl_bits_required(ZL_MAX_ENTITIES));
}

static void write_source(zl_bitwriter *w, const view *v, int32_t source)
{
    int held = bit_of(v->map, source);
    zl_bitwriter_bool(w, held);
    if (held)
        zl_bitwriter_bits(w, held_below(v->map, (uint32_t)source), zl_bits_required(v->count - 1u));
    else
        zl_bitwriter_ranged(w, source, -1, ZL_MAX_ENTITIES - 1);
}

/* Reads a source coded for a reader holding v: a rank past them, or one
 * of them sent whole, is malformed. */
static int32_t read_source(zl_bitreader *r, const view *v)
{
    uint32_t rank, e, byte = 0;
    int32_t source;
    if (!zl_bitreader_bool(r)) {
        source = zl_bitreader_ranged(r, -1, ZL_MAX_ENTITIES - 1);
        if (bit_of(v->map, source))
            r->error = ZL_ERR_MALFORMED;
        return source;
    }
    if (v->count == 0) {
        r->error = ZL_ERR_MALFORMED;
        return -1;
    }
    rank = (uint32_t)zl_bitreader_ranged(r, 0, (int32_t)v->count - 1);
    /* The byte holding it (count says there is one), then its bit. */
    for (e = 0; rank >= ones(byte = v->map[e / 8u]); e += 8u)
        rank -= ones(byte);
    for (; rank > 0 || !(byte & 1u); byte >>= 1, e++)
        if (byte & 1u)
            rank--;
    return (int32_t)e;
}

/* What the reader of a section holds of e's source, for its base. */
static int holds_source(const zl_event_bases *b, const zl_event_entry *e)
{
    return b && b->count && bit_of(b->held, e->source) ? b->holds(b->ctx, e->source)
                                                        : ZL_EVENT_HOLDS_NONE;
}

/* The head of an event: its age and its source for a reader holding v. */
static void write_head(zl_bitwriter *w, const view *v, uint32_t age, int32_t source)
{
    uint32_t bits, code = exp_golomb(age, &bits);
    zl_bitwriter_bits(w, code, bits);
    write_source(w, v, source);
}

/* Writes e's base choice and body for a reader holding its source's state
 * of the world at the run's tick: the cheapest of the zero event and the
 * bases of b, the first of them already built into *base. */
static void write_cheapest(zl_bitwriter *w, const zl_event_bases *b, const zl_event_entry *e,
                           zl_event *base)
{
    uint8_t best[ZL_EVENT_BODY_BYTES], code[ZL_EVENT_BODY_BYTES];
    uint32_t which, choice = 0, best_bits = e->bits + choice_bits(b->count, 0);
    zl_bitreader r;
    zl_event ev;
    memset(&ev, 0, sizeof ev);
    zl_bitreader_init(&r, e->body, ZL_EVENT_BODY_BYTES);
    zl_schema_plan_read_delta(b->plan, &r, NULL, &ev, ZL_SCHEMA_WIRE);
    for (which = 1; which <= b->count; which++) {
        zl_bitwriter cw;
        if (which > 1)
            b->build(b->ctx, e->source, which, base);
        zl_bitwriter_init(&cw, code, sizeof code);
        zl_schema_plan_write_delta(b->plan, &cw, base, &ev, ZL_SCHEMA_WIRE);
        if (cw.error == ZL_OK &&
            zl_bitwriter_bits_used(&cw) + choice_bits(b->count, which) < best_bits) {
            best_bits = zl_bitwriter_bits_used(&cw) + choice_bits(b->count, which);
            memcpy(best, code, sizeof best);
            choice = which;
        }
    }
    write_choice(w, b->count, choice);
    zl_bitwriter_copy(w, choice ? best : e->body, best_bits - choice_bits(b->count, choice));
}

/* Bits of the lead of an event that follows the previous one ([1][1]). */
#define FOLLOW_LEAD_BITS 2u

/* Codes the run of the snapshots of `tick` from event `from` (at most the
 * ZL_EVENT_RUN newest) unless it already covers them. Every event is
 * coded as following the previous one ([1][1]), with its age, its source
 * for a reader holding every entity of the world at tick (b->every) and
 * its base choice and body for a reader holding its source's state there
 * (its cheapest base) when the world has it, else its body against the
 * zero event: a section puts its own lead before an event that does not
 * follow the previous one, and a client holding just those entities
 * copies a run of events at once. It stops before an event whose age does
 * not fit the wire: such an event is never sent. */
static void code_run(zl_event_log *log, const zl_event_bases *b, uint32_t tick, uint32_t from)
{
    zl_event_run *run = &log->run;
    zl_bitwriter w;
    uint32_t id;
    view every;
    if (log->next - from > ZL_EVENT_RUN)
        from = log->next - ZL_EVENT_RUN;
    if (from == log->next || (run->coded && run->tick == tick && run->next == log->next &&
                              !after(run->first, from)))
        return;
    every = counted_view(b ? b->every : NULL);
    zl_bitwriter_init(&w, run->bits, sizeof run->bits);
    run->count = 0;
    for (id = from; id != log->next; id++) {
        const zl_event_entry *e = entry_of(log, id);
        zl_event base;
        if (tick - e->tick > ZL_EVENT_MAX_AGE)
            break;
        run->at[run->count] = zl_bitwriter_bits_used(&w);
        run->chose[run->count] =
            (uint8_t)(b && b->count && e->source >= 0 && b->build(b->ctx, e->source, 1, &base));
        zl_bitwriter_bits(&w, 3u, FOLLOW_LEAD_BITS);
        write_head(&w, &every, tick - e->tick, e->source);
        run->head[run->count] = (uint8_t)(zl_bitwriter_bits_used(&w) - run->at[run->count] -
                                          FOLLOW_LEAD_BITS);
        if (run->chose[run->count])
            write_cheapest(&w, b, e, &base);
        else
            zl_bitwriter_copy(&w, e->body, e->bits);
        run->count++;
    }
    run->every = every.count;
    run->at[run->count] = zl_bitwriter_bits_used(&w);
    run->tick = tick;
    run->next = log->next;
    run->first = from;
    run->coded = 1;
}

/* The lead of an event of a section (the first against ref): its bits
 * into *bits. */
static uint32_t lead_of(uint32_t count, uint32_t id, uint32_t prev, const zl_event_ref *ref,
                        uint32_t *bits)
{
    uint32_t lead = 1u, near;
    if (count > 0) {
        if (id == prev + 1u) {
            *bits = FOLLOW_LEAD_BITS;
            return 3u;
        }
        *bits = 2u + ID_BITS;
        return lead | (id & 0xFFFFu) << 2;
    }
    if (!ref || !ref->known) {
        *bits = 1u + ID_BITS;
        return lead | (id & 0xFFFFu) << 1;
    }
    if (id - ref->next < ZL_EVENT_NEAR) {
        lead |= exp_golomb(id - ref->next, &near) << 2;
        *bits = 2u + near;
        return lead;
    }
    *bits = 2u + ID_BITS;
    return lead | 2u | (id & 0xFFFFu) << 2;
}

/* Bits of event r of the run without its lead. */
static uint32_t run_body_bits(const zl_event_run *run, uint32_t r)
{
    return run->at[r + 1u] - run->at[r] - FOLLOW_LEAD_BITS;
}

/* Bits of the run waiting to be copied into a section: [from, to). */
typedef struct pending {
    uint32_t from, to;
} pending;

static void flush(zl_bitwriter *w, const zl_event_run *run, pending *p)
{
    zl_bitwriter_copy_at(w, run->bits, p->from, p->to - p->from);
    p->from = p->to = 0;
}

/* Puts event k of the run into the section through p. `own`: the run's
 * lead of it is the one the section needs; otherwise `lead` goes first. */
static void take_from_run(zl_bitwriter *w, const zl_event_run *run, pending *p, uint32_t k,
                          int own, uint32_t lead, uint32_t lead_bits)
{
    if (!own || p->to != run->at[k]) {
        flush(w, run, p);
        p->from = run->at[k];
        if (!own) {
            zl_bitwriter_bits(w, lead, lead_bits);
            p->from += FOLLOW_LEAD_BITS;
        }
    }
    p->to = run->at[k + 1u];
}

/* The entities the section's reader holds, counted; and whether they are
 * those the run was coded for (every entity of the world at tick), so
 * that the run's sources fit it: then they are counted already. */
static view reader_view(const zl_event_run *run, const zl_event_bases *b, int *fits)
{
    const uint8_t *held = b ? b->held : NULL, *every = b ? b->every : NULL;
    *fits = held == every ||
            (held && every && memcmp(held, every, ZL_EVENT_HELD_BYTES) == 0);
    return *fits ? view_of(held, run->every) : counted_view(held);
}

uint32_t zl_event_section_choose(zl_event_sender *s, zl_event_log *log,
                                 const zl_event_audience *audience, const zl_event_bases *bases,
                                 const zl_event_ref *ref, uint32_t tick, zl_event_section *out)
{
    const zl_event_run *run = &log->run;
    uint32_t id, start = log->next, count = 0, want = 0, bits = 1u, prev = 0, k;
    fates t;
    ZL_ASSERT(s && log && audience && out);
    ZL_ASSERT(!bases || bases->count == 0 || (bases->count <= ZL_EVENT_BASES_MAX && bases->plan));
    /* From where retire starts: the oldest id the log still holds. */
    gather(s, log->next - s->acked > ZL_EVENT_LOG ? log->next - ZL_EVENT_LOG : s->acked, tick, &t);
    retire(s, log, audience, &t, tick);
    /* The events that go: from the first that needs sending, within the span. */
    for (id = s->acked; id != log->next && count < ZL_EVENTS_PER_SNAPSHOT; id++) {
        const zl_event_entry *e = entry_of(log, id);
        if ((count > 0 && id - start >= ZL_EVENT_SPAN) || tick - e->tick > ZL_EVENT_MAX_AGE)
            break;
        if (!concerns(e, audience) || !fate_is(s, &t, t.send, id, tick))
            continue;
        if (count++ == 0)
            start = id;
        want |= 1u << (id - start);
    }
    /* What they will likely take: the run's code for a client holding
     * every entity of the world and their sources' state of this tick,
     * else whole against the zero event. */
    code_run(log, bases, tick, start);
    for (k = 0, count = 0; k < ZL_EVENT_SPAN && (want >> k) != 0; k++) {
        const zl_event_entry *e = entry_of(log, start + k);
        uint32_t r = start + k - run->first, lead_bits;
        if (!((want >> k) & 1u))
            continue;
        lead_of(count++, start + k, prev, ref, &lead_bits);
        bits += lead_bits + (r < run->count ? run_body_bits(run, r)
                                            : age_code_bits(tick - e->tick) + 1u +
                                                  zl_bits_required(ZL_MAX_ENTITIES) + e->bits);
        prev = start + k;
    }
    out->start = start;
    out->carried = want;
    out->count = count;
    out->bits = bits;
    out->due_tick = 0;
    return bits;
}

int zl_event_section_write(zl_event_log *log, const zl_event_bases *bases, zl_event_ref *ref,
                           uint32_t tick, uint32_t resend_ticks, uint32_t budget_bits,
                           zl_bitwriter *w, zl_event_section *sec)
{
    const zl_event_run *run = &log->run;
    uint32_t id, k, start = sec->start, want = sec->carried, used = 0, count = 0, prev = 0;
    uint32_t carried = 0;
    pending p = {0, 0};
    view reader;
    int fits;
    ZL_ASSERT(log && ref && w && sec && resend_ticks >= 1);
    ZL_ASSERT(!bases || bases->count == 0 || (bases->count <= ZL_EVENT_BASES_MAX && bases->plan));
    if (budget_bits < 1)
        return ZL_ERR_OVERFLOW;
    code_run(log, bases, tick, start);
    reader = reader_view(run, bases, &fits);
    for (k = 0; k < ZL_EVENT_SPAN && (want >> k) != 0; k++) {
        const zl_event_entry *e;
        uint32_t r, lead, lead_bits, bits;
        int holds, from_run;
        if (!((want >> k) & 1u))
            continue;
        id = start + k;
        e = entry_of(log, id);
        r = id - run->first;
        lead = lead_of(count, id, prev, ref, &lead_bits);
        holds = holds_source(bases, e);
        /* The run's base choice and body fit a reader holding the
         * world's state of the source, or no state where the world has
         * none; its age and source one holding every entity of the world. */
        from_run = r < run->count &&
                   (run->chose[r] ? holds == ZL_EVENT_HOLDS_SAME : holds == ZL_EVENT_HOLDS_NONE);
        bits = lead_bits;
        if (from_run && fits)
            bits += run_body_bits(run, r);
        else
            bits += age_code_bits(tick - e->tick) + source_bits(&reader, e->source) +
                    (from_run ? run_body_bits(run, r) - run->head[r]
                              : e->bits + (holds != ZL_EVENT_HOLDS_NONE
                                               ? choice_bits(bases->count, 0)
                                               : 0u));
        if (used + bits + 1u > budget_bits)
            break;
        if (from_run && fits) {
            take_from_run(w, run, &p, r, lead_bits == FOLLOW_LEAD_BITS, lead, lead_bits);
        } else {
            flush(w, run, &p);
            zl_bitwriter_bits(w, lead, lead_bits);
            write_head(w, &reader, tick - e->tick, e->source);
            if (from_run) {
                zl_bitwriter_copy_at(w, run->bits, run->at[r] + FOLLOW_LEAD_BITS + run->head[r],
                                     run_body_bits(run, r) - run->head[r]);
            } else {
                if (holds != ZL_EVENT_HOLDS_NONE)
                    write_choice(w, bases->count, 0);
                zl_bitwriter_copy(w, e->body, e->bits);
            }
        }
        used += bits;
        carried |= 1u << k;
        prev = id;
        count++;
    }
    flush(w, run, &p);
    zl_bitwriter_bool(w, 0);
    used++;
    if (w->error != ZL_OK)
        return w->error;
    if (count > 0) {
        ref->next = prev + 1u;
        ref->known = 1;
    }
    sec->carried = carried;
    sec->count = count;
    sec->bits = used;
    sec->due_tick = tick + resend_ticks;
    return (int)used;
}

void zl_event_queue_init(zl_event_queue *q)
{
    ZL_ASSERT(q);
    memset(q, 0, sizeof(*q));
}

/* The full id of an event from its low bits, nearest the next one expected. */
static uint32_t full_id(const zl_event_queue *q, uint32_t low)
{
    uint32_t ahead = (low - q->next) & 0xFFFFu; /* mod 2^16, sign-extended below */
    if (!q->have_next)
        return low;
    if (ahead & 0x8000u)
        ahead |= 0xFFFF0000u;
    return q->next + ahead;
}

/* The window's bit for id: ids map onto it modulo its size. */
static uint32_t *seen_word(zl_event_queue *q, uint32_t id, uint32_t *bit)
{
    *bit = 1u << (id & 31u);
    return &q->seen[(id >> 5) & (ZL_CLIENT_EVENT_WINDOW / 32u - 1u)];
}

/* Marks id received; 1 when it was new, 0 for a copy or an id the window
 * has passed (counted). */
static int take_id(zl_event_queue *q, uint32_t id)
{
    uint32_t bit, *word;
    if (!q->have_next || after(id + 1u, q->next)) {
        /* Newer than any: the ids the window moves over start unseen. */
        uint32_t from = q->have_next ? q->next : id + 1u - ZL_CLIENT_EVENT_WINDOW, k;
        if (id + 1u - from >= ZL_CLIENT_EVENT_WINDOW) {
            memset(q->seen, 0, sizeof q->seen);
        } else {
            for (k = from; k != id + 1u; k++) {
                word = seen_word(q, k, &bit);
                *word &= ~bit;
            }
        }
        q->next = id + 1u;
        q->have_next = 1;
    } else if (q->next - 1u - id >= ZL_CLIENT_EVENT_WINDOW) {
        q->stats.stale++;
        return 0;
    }
    word = seen_word(q, id, &bit);
    if (*word & bit) {
        q->stats.duplicates++;
        return 0;
    }
    *word |= bit;
    return 1;
}

/* Queues ev after every queued event of its tick or before. */
static void queue_in_order(zl_event_queue *q, const zl_event *ev)
{
    uint32_t at = q->count;
    while (at > 0 && after(q->item[at - 1u].tick, ev->tick)) {
        q->item[at] = q->item[at - 1u];
        at--;
    }
    q->item[at] = *ev;
    q->count++;
}

/* Reads an event's base choice and body into ev (its source set). */
static int read_body(const zl_schema *schema, const zl_event_bases *b, zl_bitreader *r,
                     zl_event *ev)
{
    zl_event base;
    uint32_t which = 0;
    if (b && b->count && bit_of(b->held, ev->source))
        which = read_choice(r, b->count);
    if (r->error != ZL_OK)
        return r->error;
    memset(&base, 0, sizeof base);
    if (which)
        b->build(b->ctx, ev->source, which, &base);
    return zl_schema_read_delta(schema, r, which ? &base : NULL, ev, ZL_SCHEMA_WIRE);
}

int zl_event_section_read(zl_event_queue *q, const zl_schema *schema,
                          const zl_event_bases *bases, zl_event_ref *ref, uint32_t tick,
                          zl_bitreader *r)
{
    const uint32_t left = zl_bitreader_bits_left(r);
    const view reader = counted_view(bases ? bases->held : NULL);
    uint32_t prev = 0;
    int count = 0;
    ZL_ASSERT(q && ref && r);
    while (zl_bitreader_bool(r)) {
        zl_event ev;
        uint32_t id;
        if (!schema) {
            r->error = ZL_ERR_MALFORMED;
            break;
        }
        if (count > 0 && zl_bitreader_bool(r))
            id = prev + 1u;
        else if (count == 0 && ref->known && !zl_bitreader_bool(r))
            id = ref->next + read_exp_golomb(r, ZL_EVENT_NEAR - 1u);
        else
            id = full_id(q, zl_bitreader_bits(r, ID_BITS));
        memset(&ev, 0, sizeof(ev));
        ev.tick = tick - read_exp_golomb(r, ZL_EVENT_MAX_AGE);
        ev.source = read_source(r, &reader);
        if (r->error != ZL_OK || read_body(schema, bases, r, &ev) != ZL_OK)
            break;
        prev = id;
        count++;
        if (!take_id(q, id))
            continue;
        if (q->count == ZL_CLIENT_EVENTS) {
            q->stats.dropped++;
            continue;
        }
        queue_in_order(q, &ev);
        q->stats.received++;
    }
    q->stats.bits += left - zl_bitreader_bits_left(r);
    if (r->error != ZL_OK) {
        q->stats.malformed++;
        return r->error;
    }
    if (count > 0) {
        ref->next = prev + 1u;
        ref->known = 1;
    }
    return ZL_OK;
}

int zl_event_queue_take(zl_event_queue *q, uint32_t due_tick, int32_t own, zl_event *out,
                        int max)
{
    uint32_t i, kept = 0;
    int n = 0;
    ZL_ASSERT(q && (out || max == 0));
    for (i = 0; i < q->count; i++) {
        const zl_event *ev = &q->item[i];
        if (n < max && ((int32_t)(ev->tick - due_tick) <= 0 || ev->source == own))
            out[n++] = *ev;
        else
            q->item[kept++] = *ev;
    }
    q->count = kept;
    return n;
}
