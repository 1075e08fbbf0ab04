/* zl_block.c - blocks: a chunk bitmap and the packets that carried each run
 * on the sending side, a chunk bitmap over the caller's buffer on the other. */
#include <string.h>

#include "zl_block.h"
#include "zl_protocol.h"

/* Section header widths (docs/PROTOCOL.md 11.2). */
#define INNER_BITS ZL_PACKET_TYPE_BITS
#define ID_BITS 16u
#define RUNS_BITS 2u
#define TOTAL_BITS zl_bits_required(ZL_BLOCK_MAX - 1u)
#define CHUNK_BITS zl_bits_required(ZL_BLOCK_CHUNKS - 1u)
#define HEAD_BITS (INNER_BITS + ID_BITS + TOTAL_BITS + RUNS_BITS)
#define RUN_BITS (2u * CHUNK_BITS)
/* Inner type "none": a packet of the block alone. */
#define INNER_NONE 0u

/* Resend delay before the link has measured a round trip (yojimbo waits a
 * quarter second for a fragment's ack), and the shortest ever. */
#define RESEND_FIRST_US 250000u
#define RESEND_MIN_US 10000u
/* The link's loss out (65536 = all) from which the end of a block goes
 * twice: 1%. */
#define TAIL_COPY_LOSS_Q16 655u
/* Packets copied at the end of any block, lossy link or not. */
#define TAIL_PROBES 2u

ZL_STATIC_ASSERT(ZL_MSG_TYPE_COUNT <= (1u << INNER_BITS), zl_block_inner_fits);

static int id_diff(uint16_t a, uint16_t b) { return (int16_t)(uint16_t)(a - b); }

static int bit_get(const uint32_t *m, uint32_t k) { return (int)((m[k >> 5] >> (k & 31u)) & 1u); }
static void bit_set(uint32_t *m, uint32_t k) { m[k >> 5] |= 1u << (k & 31u); }
static void bit_clear(uint32_t *m, uint32_t k) { m[k >> 5] &= ~(1u << (k & 31u)); }

static unsigned lowest_bit(uint32_t v)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(v);
#else
    unsigned n = 0;
    while (!(v & 1u)) {
        v >>= 1;
        n++;
    }
    return n;
#endif
}

/* Bytes of chunk k of a block of `total` bytes: whole but the last. */
static uint32_t chunk_bytes(uint32_t total, uint32_t k)
{
    uint32_t at = k * (uint32_t)ZL_BLOCK_CHUNK;
    return total - at < ZL_BLOCK_CHUNK ? total - at : ZL_BLOCK_CHUNK;
}

static uint16_t chunks_of(uint32_t total)
{
    return (uint16_t)((total + ZL_BLOCK_CHUNK - 1u) / ZL_BLOCK_CHUNK);
}

/* Bytes of a section header with n runs. */
static uint32_t header_bytes(unsigned n) { return (HEAD_BITS + n * RUN_BITS + 7u) / 8u; }

void zl_blocks_init(zl_blocks *b, void *buffer, uint32_t capacity)
{
    ZL_ASSERT(b && (buffer || capacity == 0));
    memset(b, 0, sizeof *b);
    b->in.buffer = (uint8_t *)buffer;
    b->in.capacity = capacity;
}

/* ---- Sending ---- */

int zl_blocks_send(zl_blocks *b, const void *data, uint32_t len)
{
    zl_block_sender *s;
    ZL_ASSERT(b && (data || len == 0));
    s = &b->out;
    if (len == 0 || len > ZL_BLOCK_MAX)
        return ZL_ERR_INVALID;
    if (s->state == ZL_BLOCK_ACTIVE)
        return ZL_ERR_FULL;
    if (s->state == ZL_BLOCK_DONE)
        s->id++;
    s->data = (const uint8_t *)data;
    s->total = len;
    s->acked_bytes = 0;
    s->chunks = chunks_of(len);
    s->acked_chunks = 0;
    s->fresh = 0;
    s->state = ZL_BLOCK_ACTIVE;
    s->accepted = 0;
    s->copies = 0;
    s->lossy = 0;
    memset(s->acked, 0, sizeof s->acked);
    memset(s->flying, 0, sizeof s->flying);
    memset(s->record, 0, sizeof s->record);
    return ZL_OK;
}

int zl_blocks_pending(const zl_blocks *b)
{
    ZL_ASSERT(b);
    return b->out.state == ZL_BLOCK_ACTIVE;
}

/* 1 when chunk k is in a live record other than r (a tail copy's). */
static int flying_elsewhere(const zl_block_sender *s, const zl_block_record *r, uint32_t k)
{
    int i;
    unsigned j;
    for (i = 0; i < ZL_BLOCK_PACKETS; i++) {
        const zl_block_record *q = &s->record[i];
        if (q == r || !q->live || !q->copied)
            continue;
        for (j = 0; j < q->runs; j++)
            if (k >= q->run[j].first && k < (uint32_t)q->run[j].first + q->run[j].count)
                return 1;
    }
    return 0;
}

/* Record r's chunks are no longer in flight in it: acknowledged (acked 1)
 * or lost (the ones not acknowledged since become due again, unless a
 * copy of them is still in flight). */
static void settle(zl_blocks *b, zl_block_record *r, int acked)
{
    zl_block_sender *s = &b->out;
    unsigned i;
    r->live = 0;
    for (i = 0; i < r->runs; i++) {
        uint32_t k, end = (uint32_t)r->run[i].first + r->run[i].count;
        for (k = r->run[i].first; k < end; k++) {
            if (!acked) {
                if (!bit_get(s->acked, k) && !(r->copied && flying_elsewhere(s, r, k)))
                    bit_clear(s->flying, k);
                continue;
            }
            bit_clear(s->flying, k);
            if (bit_get(s->acked, k))
                continue;
            bit_set(s->acked, k);
            s->acked_chunks++;
            s->acked_bytes += chunk_bytes(s->total, k);
        }
    }
}

int zl_blocks_acked(zl_blocks *b, const zl_link_acks *acks)
{
    zl_block_sender *s;
    uint32_t a;
    int i;
    ZL_ASSERT(b && acks);
    s = &b->out;
    if (s->state != ZL_BLOCK_ACTIVE)
        return 0;
    for (a = 0; a < acks->count; a++) {
        for (i = 0; i < ZL_BLOCK_PACKETS; i++) {
            zl_block_record *r = &s->record[i];
            if (r->live && r->sequence == acks->sequence[a]) {
                settle(b, r, 1);
                s->accepted = 1;
                break;
            }
        }
    }
    if (s->acked_chunks < s->chunks)
        return 0;
    s->state = ZL_BLOCK_DONE;
    s->data = NULL;
    b->stats.blocks_sent++;
    return 1;
}

/* How long a packet's chunks may go unacknowledged before they are taken
 * as lost: RFC 6298's timeout (the round trip with four mean deviations),
 * or once every chunk went out, one deviation: nothing new waits behind
 * them, and a late ack only costs the copy. */
static uint32_t resend_after(const zl_link *l, int tail)
{
    uint32_t srtt = l->srtt8 >> 3, var = l->rttvar4 >> 2, us;
    if (!l->have_rtt)
        return RESEND_FIRST_US;
    if (tail) /* a young link's deviation is still half its first sample */
        us = srtt + (2u * var < srtt / 4u ? 2u * var : srtt / 4u);
    else
        us = srtt + (4u * var > srtt / 4u ? 4u * var : srtt / 4u);
    return us < RESEND_MIN_US ? RESEND_MIN_US : us;
}

/* Live records older than the resend delay give their chunks back. */
static void expire(zl_blocks *b, const zl_link *l, uint64_t now_us)
{
    zl_block_sender *s = &b->out;
    uint32_t wait = resend_after(l, s->fresh == s->chunks), now = (uint32_t)now_us;
    int i;
    for (i = 0; i < ZL_BLOCK_PACKETS; i++) {
        zl_block_record *r = &s->record[i];
        if (r->live && now - r->sent_us >= wait) {
            s->lossy = 1;
            settle(b, r, 0);
            b->stats.expired++;
        }
    }
}

/* The first chunk at or after k neither acknowledged nor in flight, or
 * s->chunks when none is. */
static uint32_t next_due(const zl_block_sender *s, uint32_t k)
{
    while (k < s->chunks) {
        uint32_t w = k >> 5, free = ~(s->acked[w] | s->flying[w]) & (0xFFFFFFFFu << (k & 31u));
        if (free) {
            k = (w << 5) + lowest_bit(free);
            return k < s->chunks ? k : s->chunks;
        }
        k = (w + 1u) << 5;
    }
    return s->chunks;
}

/* Chooses runs of due chunks, lowest first, for a section of at most room
 * bytes; returns its bytes (0: nothing fits). */
static uint32_t plan(const zl_block_sender *s, uint32_t room, zl_block_run *run, unsigned *runs)
{
    uint32_t data = 0, k = 0;
    unsigned n = 0;
    while (n < ZL_BLOCK_RUNS) {
        uint32_t head = header_bytes(n + 1u);
        k = next_due(s, k);
        if (k >= s->chunks || head + data + chunk_bytes(s->total, k) > room)
            break;
        run[n].first = (uint16_t)k;
        run[n].count = 0;
        while (k < s->chunks && !bit_get(s->acked, k) && !bit_get(s->flying, k) &&
               head + data + chunk_bytes(s->total, k) <= room) {
            data += chunk_bytes(s->total, k);
            run[n].count++;
            k++;
        }
        n++;
        if (k < s->chunks && !bit_get(s->acked, k) && !bit_get(s->flying, k))
            break; /* the room ran out inside a run */
    }
    *runs = n;
    return n ? header_bytes(n) + data : 0;
}

/* When every chunk has gone and the link loses packets: the chunks not
 * yet acknowledged of the newest live record not copied yet, for a
 * section of at most room bytes (marked copied, with *from it); returns
 * the section's bytes, 0 when there is nothing to copy or it does not fit. */
static uint32_t plan_copy(zl_block_sender *s, const zl_link *l, uint32_t room, zl_block_run *run,
                          unsigned *runs, uint64_t now_us)
{
    zl_block_record *newest = NULL;
    uint32_t data = 0;
    unsigned n = 0, i;
    int r;
    *runs = 0;
    if (s->fresh != s->chunks)
        return 0;
    for (r = 0; r < ZL_BLOCK_PACKETS; r++) {
        zl_block_record *q = &s->record[r];
        /* Not one sent this instant: a copy a tick later meets other luck. */
        if (q->live && !q->copied && q->sent_us != (uint32_t)now_us &&
            (!newest || (int16_t)(uint16_t)(q->sequence - newest->sequence) > 0))
            newest = q;
    }
    /* Unless this block or the link lost packets lately, only the block's
     * last two: a loss there is the one no later ack reveals early. */
    if (!newest || (l->stats.loss_out_q16 < TAIL_COPY_LOSS_Q16 && !s->lossy &&
                    s->copies >= TAIL_PROBES))
        return 0;
    s->copies++;
    newest->copied = 1;
    for (i = 0; i < newest->runs && n < ZL_BLOCK_RUNS; i++) {
        uint32_t k = newest->run[i].first, end = k + newest->run[i].count;
        while (k < end) {
            uint32_t head = header_bytes(n + 1u);
            if (bit_get(s->acked, k)) {
                k++;
                continue;
            }
            if (n == ZL_BLOCK_RUNS || head + data + chunk_bytes(s->total, k) > room)
                break;
            run[n].first = (uint16_t)k;
            run[n].count = 0;
            while (k < end && !bit_get(s->acked, k) &&
                   head + data + chunk_bytes(s->total, k) <= room) {
                data += chunk_bytes(s->total, k);
                run[n].count++;
                k++;
            }
            n++;
            if (k < end && !bit_get(s->acked, k))
                break; /* the room ran out */
        }
    }
    *runs = n;
    return n ? header_bytes(n) + data : 0;
}

/* Writes a section of at most room bytes at out (header, then the runs'
 * bytes) for the packet with link sequence `sequence`, recording it.
 * Returns its bytes; 0 when nothing is due, nothing fits or every record
 * is in flight (the window of ZL_BLOCK_PACKETS packets is full). */
static uint32_t write_section(zl_blocks *b, const zl_link *l, uint8_t *out, uint8_t inner,
                              uint32_t room, uint64_t now_us, const uint8_t *move,
                              uint32_t move_len)
{
    zl_block_sender *s = &b->out;
    zl_block_record *rec = NULL;
    zl_block_run run[ZL_BLOCK_RUNS];
    zl_bitwriter w;
    uint32_t size, at, k;
    unsigned n, i;
    int copy;
    if (s->state != ZL_BLOCK_ACTIVE)
        return 0;
    expire(b, l, now_us);
    for (i = 0; i < ZL_BLOCK_PACKETS && !rec; i++)
        if (!s->record[i].live)
            rec = &s->record[i];
    if (!rec)
        return 0;
    size = plan(s, room, run, &n);
    copy = size == 0;
    if (copy)
        size = plan_copy(s, l, room, run, &n, now_us);
    if (size == 0)
        return 0;
    if (move_len)
        memmove(out + size, move, move_len);
    zl_bitwriter_init(&w, out, size);
    zl_bitwriter_bits(&w, inner, INNER_BITS);
    zl_bitwriter_bits(&w, s->id, ID_BITS);
    zl_bitwriter_bits(&w, s->total - 1u, TOTAL_BITS);
    zl_bitwriter_bits(&w, n - 1u, RUNS_BITS);
    for (i = 0; i < n; i++) {
        zl_bitwriter_bits(&w, run[i].first, CHUNK_BITS);
        zl_bitwriter_bits(&w, run[i].count - 1u, CHUNK_BITS);
    }
    at = (uint32_t)zl_bitwriter_finish(&w);
    ZL_ASSERT(at == header_bytes(n));
    b->stats.header_bytes += at;
    for (i = 0; i < n; i++) {
        uint32_t first = run[i].first, end = first + run[i].count;
        uint32_t bytes = (end - 1u) * (uint32_t)ZL_BLOCK_CHUNK +
                         chunk_bytes(s->total, end - 1u) - first * (uint32_t)ZL_BLOCK_CHUNK;
        memcpy(out + at, s->data + first * (uint32_t)ZL_BLOCK_CHUNK, bytes);
        at += bytes;
        b->stats.bytes_sent += bytes;
        for (k = first; k < end; k++) {
            bit_set(s->flying, k);
            if (k < s->fresh)
                b->stats.bytes_resent += chunk_bytes(s->total, k);
        }
        if (end > s->fresh)
            s->fresh = (uint16_t)end;
    }
    rec->live = 1;
    rec->copied = (uint8_t)copy;
    b->stats.tail_copies += (uint32_t)copy;
    rec->sequence = zl_link_next_sequence(l);
    rec->sent_us = (uint32_t)now_us;
    rec->runs = (uint8_t)n;
    memcpy(rec->run, run, sizeof run);
    return size;
}

uint8_t zl_blocks_attach(zl_blocks *b, const zl_link *l, uint8_t *payload, int *bytes,
                         uint8_t type, uint32_t budget, uint64_t now_us)
{
    uint32_t room, size;
    ZL_ASSERT(b && l && payload && bytes && type < ZL_MSG_TYPE_COUNT);
    if (b->out.state != ZL_BLOCK_ACTIVE || !b->out.accepted || *bytes < 0 ||
        *bytes >= ZL_PACKET_MAX_PAYLOAD)
        return type;
    room = (uint32_t)(ZL_PACKET_MAX_PAYLOAD - *bytes);
    if (room > budget)
        room = budget;
    size = write_section(b, l, payload, type, room, now_us, payload, (uint32_t)*bytes);
    if (size == 0)
        return type;
    *bytes += (int)size;
    b->stats.beside++;
    return ZL_MSG_BLOCK;
}

int zl_blocks_send_alone(zl_blocks *b, zl_conn *c, uint32_t budget, uint64_t now_us)
{
    uint8_t packet[ZL_MAX_PACKET];
    uint32_t cost = zl_conn_overhead(c), size;
    ZL_ASSERT(b && c);
    if (b->out.state != ZL_BLOCK_ACTIVE || budget <= cost)
        return 0;
    budget -= cost;
    size = write_section(b, &c->link, packet + ZL_PACKET_HEADER_SIZE, INNER_NONE,
                         budget < ZL_PACKET_MAX_PAYLOAD ? budget : ZL_PACKET_MAX_PAYLOAD, now_us,
                         NULL, 0);
    if (size == 0)
        return 0;
    b->stats.alone++;
    return zl_conn_send(c, ZL_MSG_BLOCK, packet, (int)size, now_us);
}

/* ---- Receiving ---- */

/* A section as read. */
typedef struct section {
    uint8_t inner;
    uint16_t id;
    uint32_t total;
    unsigned runs;
    zl_block_run run[ZL_BLOCK_RUNS];
    uint32_t data_at;  /* first byte of the runs' bytes */
    uint32_t inner_at; /* first byte of the inner message */
} section;

/* Decodes a section's header and checks that its runs lie inside the block
 * and their bytes inside the packet; ZL_OK or ZL_ERR_MALFORMED. */
static int parse(const uint8_t *p, size_t len, section *sec)
{
    zl_bitreader r;
    uint32_t chunks, data = 0;
    unsigned i;
    zl_bitreader_init(&r, p, len);
    sec->inner = (uint8_t)zl_bitreader_bits(&r, INNER_BITS);
    sec->id = (uint16_t)zl_bitreader_bits(&r, ID_BITS);
    sec->total = zl_bitreader_bits(&r, TOTAL_BITS) + 1u;
    sec->runs = zl_bitreader_bits(&r, RUNS_BITS) + 1u;
    if (r.error != ZL_OK || sec->total > ZL_BLOCK_MAX)
        return ZL_ERR_MALFORMED;
    chunks = chunks_of(sec->total);
    for (i = 0; i < sec->runs; i++) {
        uint32_t first = zl_bitreader_bits(&r, CHUNK_BITS);
        uint32_t count = zl_bitreader_bits(&r, CHUNK_BITS) + 1u, end = first + count;
        if (r.error != ZL_OK || first >= chunks || count > chunks - first)
            return ZL_ERR_MALFORMED;
        sec->run[i].first = (uint16_t)first;
        sec->run[i].count = (uint16_t)count;
        data += (end - 1u - first) * (uint32_t)ZL_BLOCK_CHUNK + chunk_bytes(sec->total, end - 1u);
    }
    sec->data_at = (r.bit_pos + 7u) / 8u;
    if (data > len - sec->data_at)
        return ZL_ERR_MALFORMED;
    sec->inner_at = sec->data_at + data;
    if (sec->inner == INNER_NONE && sec->inner_at != len)
        return ZL_ERR_MALFORMED;
    return ZL_OK;
}

/* What the receiver does with a section's block: takes it (1), ignores it
 * as old or finished (0), or refuses the packet (a ZL_ERR_*). */
static int judge(const zl_block_receiver *in, const section *sec)
{
    if (in->state == ZL_BLOCK_IDLE) {
        if (id_diff(sec->id, in->next) < 0)
            return 0; /* a late copy of a released block */
        return sec->total > in->capacity ? ZL_ERR_OVERFLOW : 1;
    }
    if (id_diff(sec->id, in->id) < 0)
        return 0;
    if (sec->id == in->id) {
        if (in->state == ZL_BLOCK_DONE)
            return 0;
        return sec->total == in->total ? 1 : ZL_ERR_MALFORMED;
    }
    /* A newer block: the sender gave up the one arriving, or finished the
     * one held (which the application has not released yet). */
    if (in->state == ZL_BLOCK_DONE)
        return ZL_ERR_FULL;
    return sec->total > in->capacity ? ZL_ERR_OVERFLOW : 1;
}

int zl_blocks_check(zl_blocks *b, const uint8_t *payload, size_t len, uint8_t inner)
{
    section sec;
    int j;
    ZL_ASSERT(b && (payload || len == 0));
    if (parse(payload, len, &sec) != ZL_OK ||
        (sec.inner != INNER_NONE && sec.inner != inner)) {
        b->stats.malformed++;
        return ZL_ERR_MALFORMED;
    }
    j = judge(&b->in, &sec);
    if (j >= 0)
        return ZL_OK;
    if (j == ZL_ERR_FULL)
        b->stats.refused_busy++;
    else if (j == ZL_ERR_OVERFLOW)
        b->stats.refused_large++;
    else
        b->stats.malformed++;
    return j;
}

/* Starts receiving block sec->id into the buffer. */
static void begin(zl_blocks *b, const section *sec)
{
    zl_block_receiver *in = &b->in;
    if (in->state == ZL_BLOCK_ACTIVE)
        b->stats.abandoned++;
    in->state = ZL_BLOCK_ACTIVE;
    in->id = sec->id;
    in->total = sec->total;
    in->bytes = 0;
    in->chunks = chunks_of(sec->total);
    in->missing = in->chunks;
    memset(in->have, 0, sizeof in->have);
}

int zl_blocks_unwrap(zl_blocks *b, uint8_t *type, const uint8_t **payload, size_t *len)
{
    zl_block_receiver *in;
    section sec;
    int j, done = 0;
    unsigned i;
    ZL_ASSERT(b && type && payload && len);
    in = &b->in;
    if (parse(*payload, *len, &sec) != ZL_OK) {
        *type = ZL_MSG_KEEPALIVE; /* zl_blocks_check was skipped: nothing to read */
        *len = 0;
        return 0;
    }
    j = judge(in, &sec);
    if (j > 0 && (in->state != ZL_BLOCK_ACTIVE || sec.id != in->id))
        begin(b, &sec);
    for (i = 0; i < sec.runs; i++) {
        uint32_t k, end = (uint32_t)sec.run[i].first + sec.run[i].count;
        const uint8_t *src = *payload + sec.data_at;
        for (k = sec.run[i].first; k < end; k++) {
            uint32_t n = chunk_bytes(sec.total, k);
            if (j > 0 && !bit_get(in->have, k)) {
                memcpy(in->buffer + k * (uint32_t)ZL_BLOCK_CHUNK, src, n);
                bit_set(in->have, k);
                in->bytes += n;
                in->missing--;
                b->stats.bytes_received += n;
            } else {
                b->stats.duplicates++;
            }
            src += n;
        }
        sec.data_at = (uint32_t)(src - *payload);
    }
    if (j > 0 && in->state == ZL_BLOCK_ACTIVE && in->missing == 0) {
        in->state = ZL_BLOCK_DONE;
        b->stats.blocks_received++;
        done = 1;
    }
    *type = sec.inner == INNER_NONE ? (uint8_t)ZL_MSG_KEEPALIVE : sec.inner;
    *payload += sec.inner_at;
    *len -= sec.inner_at;
    return done;
}

int zl_blocks_peek(const uint8_t *payload, size_t len, uint8_t *type)
{
    section sec;
    ZL_ASSERT((payload || len == 0) && type);
    if (parse(payload, len, &sec) != ZL_OK)
        return ZL_ERR_MALFORMED;
    *type = sec.inner == INNER_NONE ? (uint8_t)ZL_MSG_KEEPALIVE : sec.inner;
    return (int)sec.inner_at;
}

int zl_blocks_received(const zl_blocks *b, const uint8_t **data)
{
    ZL_ASSERT(b && data);
    if (b->in.state != ZL_BLOCK_DONE)
        return ZL_ERR_AGAIN;
    *data = b->in.buffer;
    return (int)b->in.total;
}

void zl_blocks_release(zl_blocks *b)
{
    ZL_ASSERT(b);
    if (b->in.state != ZL_BLOCK_DONE)
        return;
    b->in.state = ZL_BLOCK_IDLE;
    b->in.next = (uint16_t)(b->in.id + 1u);
}

void zl_blocks_progress(const zl_blocks *b, zl_block_status *sending, zl_block_status *receiving)
{
    ZL_ASSERT(b);
    if (sending) {
        sending->state = b->out.state;
        sending->id = b->out.id;
        sending->done = b->out.acked_bytes;
        sending->total = b->out.total;
    }
    if (receiving) {
        receiving->state = b->in.state;
        receiving->id = b->in.state == ZL_BLOCK_IDLE ? b->in.next : b->in.id;
        receiving->done = b->in.state == ZL_BLOCK_IDLE ? 0u : b->in.bytes;
        receiving->total = b->in.state == ZL_BLOCK_IDLE ? 0u : b->in.total;
    }
}
