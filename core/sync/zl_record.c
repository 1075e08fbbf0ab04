/* zl_record.c - the match record's writer and its validating reader: a
 * byte header, then one bit stream of entries (docs/RECORD.md). */
#include "zl_record.h"

#include <string.h>

#include "zl_bytes.h"

/* Entry codes after the leading 0 bit of a non-command entry. */
enum { CODE_TICK = 0, CODE_JOIN = 1, CODE_LEAVE = 2, CODE_MORE = 3 };

static int bit_of(const uint8_t *set, int i)
{
    return (set[i >> 3] >> (i & 7)) & 1;
}

static void set_bit(uint8_t *set, int i, int on)
{
    if (on)
        set[i >> 3] = (uint8_t)(set[i >> 3] | (1u << (i & 7)));
    else
        set[i >> 3] = (uint8_t)(set[i >> 3] & ~(1u << (i & 7)));
}

static uint8_t slot_bits_of(uint16_t max_clients)
{
    return (uint8_t)zl_bits_required((uint32_t)max_clients - 1u);
}

/* ---- writing ---- */

/* Hands the buffer's whole bytes to the sink and keeps the partial byte. */
static void hand_over(zl_record *r, uint32_t bytes)
{
    int rc;
    if (r->error == ZL_OK && r->w.error != ZL_OK)
        r->error = r->w.error;
    if (r->error != ZL_OK) {
        r->w.bit_pos = 0;
        return;
    }
    rc = r->sink(r->ctx, r->buf, bytes);
    if (rc < 0) {
        r->error = rc;
        r->w.bit_pos = 0;
        return;
    }
    r->bytes += bytes;
    if (r->w.bit_pos & 7u)
        r->buf[0] = r->buf[bytes];
    r->w.bit_pos -= bytes * 8u;
}

static void spill(zl_record *r)
{
    if (zl_bitwriter_bits_used(&r->w) >= ZL_RECORD_BUFFER * 4u)
        hand_over(r, zl_bitwriter_bits_used(&r->w) / 8u);
}

/* Ticks ended since the last entry go out before the next one. */
static void write_ticks(zl_record *r)
{
    if (r->empty == 0)
        return;
    zl_bitwriter_bits(&r->w, 0, 1);
    zl_bitwriter_bits(&r->w, CODE_TICK, 2);
    zl_bitwriter_delta(&r->w, (int32_t)(r->empty - 1u));
    r->empty = 0;
}

int zl_record_begin(zl_record *r, const zl_record_header *h, zl_record_sink sink, void *ctx)
{
    ZL_ASSERT(r && h && sink && (h->config || h->config_len == 0));
    if (h->tick_rate < 20 || h->tick_rate > 128 || h->max_clients < 1 ||
        h->max_clients > ZL_MAX_CLIENTS || h->state_size < 1 || h->state_size > ZL_STATE_MAX ||
        (h->origin_axes != 2 && h->origin_axes != 3) || h->origin_field < -1 ||
        !ZL_IS_POW2(h->lagcomp_ticks) || h->lagcomp_ticks < 2 || h->events < 1 ||
        h->start_tick >= ZL_RECORD_TICK_END)
        return ZL_ERR_INVALID;
    memset(r, 0, sizeof *r);
    r->sink = sink;
    r->ctx = ctx;
    r->tick = h->start_tick;
    r->max_clients = h->max_clients;
    r->slot_bits = slot_bits_of(h->max_clients);
    zl_bitwriter_init(&r->w, r->buf, sizeof r->buf);
    zl_bitwriter_bits(&r->w, ZL_RECORD_MAGIC, 32);
    zl_bitwriter_bits(&r->w, ZL_RECORD_VERSION, 8);
    zl_bitwriter_bits(&r->w, h->protocol, 8);
    zl_bitwriter_bits(&r->w, h->tick_rate, 16);
    zl_bitwriter_bits(&r->w, h->max_clients, 16);
    zl_bitwriter_bits(&r->w, h->state_size, 16);
    zl_bitwriter_bits(&r->w, h->max_entities, 16);
    zl_bitwriter_bits(&r->w, h->lagcomp_ticks, 16);
    zl_bitwriter_bits(&r->w, h->events, 16);
    zl_bitwriter_bits(&r->w, h->origin_axes, 8);
    zl_bitwriter_bits(&r->w, (uint8_t)h->origin_field, 8);
    zl_bitwriter_bits(&r->w, (uint32_t)h->teleport_distance, 32);
    zl_bitwriter_bits(&r->w, h->start_tick, 32);
    zl_bitwriter_bits(&r->w, h->config_len, 8);
    hand_over(r, zl_bitwriter_bits_used(&r->w) / 8u);
    if (r->error == ZL_OK && h->config_len) {
        int rc = sink(ctx, h->config, h->config_len);
        if (rc < 0)
            r->error = rc;
        else
            r->bytes += h->config_len;
    }
    return r->error;
}

void zl_record_command(zl_record *r, int slot, const zl_usercmd *cmd, const zl_lagcomp_time *when)
{
    zl_usercmd prev;
    int first;
    ZL_ASSERT(r && cmd && !r->ended && slot >= 0 && slot < r->max_clients);
    first = !bit_of(r->have_prev, slot);
    prev = r->prev[slot];
    ZL_ASSERT(first || cmd->sequence - prev.sequence - 1u < 0x80000000u);
    write_ticks(r);
    zl_bitwriter_bits(&r->w, 1, 1);
    zl_bitwriter_bits(&r->w, (uint32_t)slot, r->slot_bits);
    if (first) {
        /* A slot's first command says its number whole. */
        zl_bitwriter_bits(&r->w, cmd->sequence, 32);
    } else {
        /* Commands the server never received are skipped: say how many. */
        uint32_t gap = cmd->sequence - prev.sequence - 1u;
        zl_bitwriter_bool(&r->w, gap != 0);
        if (gap)
            zl_bitwriter_delta(&r->w, (int32_t)gap);
        prev.sequence = cmd->sequence - 1u;
    }
    (void)zl_usercmd_write(&r->w, first ? NULL : &prev, cmd);
    zl_bitwriter_bool(&r->w, when != NULL);
    if (when) {
        ZL_ASSERT(when->tick_a <= when->tick_b && when->tick_b <= r->tick && when->t >= 0);
        zl_bitwriter_delta(&r->w, (int32_t)(r->tick - when->tick_a));
        zl_bitwriter_delta(&r->w, (int32_t)(when->tick_b - when->tick_a));
        zl_bitwriter_delta(&r->w, when->t);
    }
    r->prev[slot] = *cmd;
    set_bit(r->have_prev, slot, 1);
    spill(r);
}

void zl_record_tick(zl_record *r)
{
    ZL_ASSERT(r && !r->ended);
    r->tick++;
    r->empty++;
}

static void write_slot_entry(zl_record *r, unsigned code, int slot)
{
    ZL_ASSERT(r && !r->ended && slot >= 0 && slot < r->max_clients);
    write_ticks(r);
    zl_bitwriter_bits(&r->w, 0, 1);
    zl_bitwriter_bits(&r->w, code, 2);
    zl_bitwriter_bits(&r->w, (uint32_t)slot, r->slot_bits);
    /* A new player's commands start a new numbering. */
    set_bit(r->have_prev, slot, 0);
    spill(r);
}

void zl_record_join(zl_record *r, int slot)
{
    write_slot_entry(r, CODE_JOIN, slot);
}

void zl_record_leave(zl_record *r, int slot)
{
    write_slot_entry(r, CODE_LEAVE, slot);
}

static void write_more(zl_record *r, unsigned end, uint32_t value)
{
    ZL_ASSERT(r && !r->ended);
    write_ticks(r);
    zl_bitwriter_bits(&r->w, 0, 1);
    zl_bitwriter_bits(&r->w, CODE_MORE, 2);
    zl_bitwriter_bits(&r->w, end, 1);
    zl_bitwriter_bits(&r->w, value, 32);
}

void zl_record_match(zl_record *r, uint32_t match_id)
{
    write_more(r, 0, match_id);
    /* Every player's numbering jumps at a new match. */
    memset(r->have_prev, 0, sizeof r->have_prev);
    spill(r);
}

int zl_record_end(zl_record *r, uint32_t hash)
{
    write_more(r, 1, hash);
    r->ended = 1;
    zl_bitwriter_align(&r->w);
    hand_over(r, zl_bitwriter_bits_used(&r->w) / 8u);
    return r->error != ZL_OK ? r->error : (int)r->bytes;
}

uint32_t zl_record_hash(const zl_game *game, const void *players, const uint8_t *present,
                        int count, void *scratch)
{
    uint32_t h = ZL_SCHEMA_HASH_INIT;
    int i;
    ZL_ASSERT(game && players && present && scratch);
    for (i = 0; i < count; i++)
        if (present[i])
            h = zl_schema_hash(game->player_schema,
                               (const uint8_t *)players + (size_t)i * game->player_schema->size,
                               ZL_SCHEMA_ALL, h);
    for (i = 0; i < game->max_entities; i++)
        if (game->entity_state(game->ctx, i, scratch))
            h = zl_schema_hash(game->entity_schema, scratch, ZL_SCHEMA_ALL, h);
    return h;
}

/* ---- reading ---- */

int zl_record_reader_init(zl_record_reader *rd, const void *data, size_t len)
{
    zl_record_header *h = &rd->header;
    const uint8_t *bytes = (const uint8_t *)data;
    ZL_ASSERT(rd && (data || len == 0));
    memset(rd, 0, sizeof *rd);
    if (len > 0x7FFFFFFFu)
        return ZL_ERR_UNSUPPORTED;
    if (len < 29u)
        return len >= 4u && zl_get_le32(bytes) != ZL_RECORD_MAGIC ? ZL_ERR_MALFORMED
                                                                     : ZL_ERR_TRUNCATED;
    zl_bitreader_init(&rd->r, data, len);
    if (zl_bitreader_bits(&rd->r, 32) != ZL_RECORD_MAGIC)
        return ZL_ERR_MALFORMED;
    h->version = (uint8_t)zl_bitreader_bits(&rd->r, 8);
    h->protocol = (uint8_t)zl_bitreader_bits(&rd->r, 8);
    h->tick_rate = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->max_clients = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->state_size = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->max_entities = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->lagcomp_ticks = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->events = (uint16_t)zl_bitreader_bits(&rd->r, 16);
    h->origin_axes = (uint8_t)zl_bitreader_bits(&rd->r, 8);
    h->origin_field = (int8_t)(uint8_t)zl_bitreader_bits(&rd->r, 8);
    h->teleport_distance = (zl_fx)zl_bitreader_bits(&rd->r, 32);
    h->start_tick = zl_bitreader_bits(&rd->r, 32);
    h->config_len = (uint8_t)zl_bitreader_bits(&rd->r, 8);
    if (h->version != ZL_RECORD_VERSION)
        return ZL_ERR_UNSUPPORTED;
    if (h->tick_rate < 20 || h->tick_rate > 128 || h->max_clients < 1 || h->state_size < 1 ||
        (h->origin_axes != 2 && h->origin_axes != 3) || h->origin_field < -1 ||
        !ZL_IS_POW2(h->lagcomp_ticks) || h->lagcomp_ticks < 2 || h->events < 1 ||
        h->start_tick >= ZL_RECORD_TICK_END)
        return ZL_ERR_MALFORMED;
    if (h->max_clients > ZL_MAX_CLIENTS || h->state_size > ZL_STATE_MAX)
        return ZL_ERR_UNSUPPORTED;
    if (len < 29u + h->config_len)
        return ZL_ERR_TRUNCATED;
    h->config = bytes + 29;
    zl_bitreader_init(&rd->r, bytes + 29 + h->config_len, len - 29u - h->config_len);
    rd->bytes = (uint32_t)len;
    rd->tick = h->start_tick;
    rd->slot_bits = slot_bits_of(h->max_clients);
    (void)zl_schema_plan_init(&rd->plan, &zl_usercmd_schema);
    return ZL_OK;
}

/* A stream that ran out reads as truncated, a bad value as malformed; both
 * stick in the bit reader. */
static int failed(zl_record_reader *rd)
{
    if (rd->r.error == ZL_ERR_OVERFLOW)
        return ZL_ERR_TRUNCATED;
    return rd->r.error != ZL_OK ? ZL_ERR_MALFORMED : ZL_OK;
}

static int refuse(zl_record_reader *rd)
{
    rd->r.error = ZL_ERR_MALFORMED;
    return ZL_ERR_MALFORMED;
}

static int read_slot(zl_record_reader *rd)
{
    int slot = (int)zl_bitreader_bits(&rd->r, rd->slot_bits);
    return slot < rd->header.max_clients ? slot : -1;
}

/* A rewind time the server could have traced at: within the history it
 * kept, its later sample no newer than the present. */
static int read_when(zl_record_reader *rd, zl_lagcomp_time *w)
{
    int32_t back = zl_bitreader_delta(&rd->r), span = zl_bitreader_delta(&rd->r);
    int32_t t = zl_bitreader_delta(&rd->r);
    memset(w, 0, sizeof *w);
    if (back < 0 || span < 0 || span > back || t < 0 || (uint32_t)back > rd->tick ||
        (uint32_t)back >= rd->header.lagcomp_ticks || (span == 0 && t >= ZL_FX_ONE))
        return refuse(rd);
    w->tick_a = rd->tick - (uint32_t)back;
    w->tick_b = w->tick_a + (uint32_t)span;
    w->t = t;
    return ZL_OK;
}

static int read_command(zl_record_reader *rd, zl_record_entry *out)
{
    int slot = read_slot(rd), first;
    zl_usercmd prev;
    if (slot < 0 || !bit_of(rd->present, slot))
        return refuse(rd);
    first = !bit_of(rd->have_prev, slot);
    prev = rd->prev[slot];
    if (first) {
        out->cmd.sequence = zl_bitreader_bits(&rd->r, 32);
    } else {
        uint32_t gap = 0;
        if (zl_bitreader_bool(&rd->r)) {
            int32_t g = zl_bitreader_delta(&rd->r);
            if (g <= 0)
                return refuse(rd);
            gap = (uint32_t)g;
        }
        prev.sequence += gap;
    }
    {
        uint32_t sequence = first ? out->cmd.sequence : prev.sequence + 1u;
        if (zl_usercmd_read(&rd->r, &rd->plan, first ? NULL : &prev, &out->cmd) != ZL_OK)
            return failed(rd);
        out->cmd.sequence = sequence;
    }
    out->kind = ZL_RECORD_COMMAND;
    out->slot = slot;
    out->has_when = zl_bitreader_bool(&rd->r);
    if (out->has_when && read_when(rd, &out->when) != ZL_OK)
        return ZL_ERR_MALFORMED;
    if (failed(rd) != ZL_OK)
        return failed(rd);
    rd->prev[slot] = out->cmd;
    set_bit(rd->have_prev, slot, 1);
    rd->in_tick = 1;
    return ZL_OK;
}

/* The end: its hash, zero padding to the byte, then nothing. */
static int read_end(zl_record_reader *rd, zl_record_entry *out)
{
    uint32_t pad;
    out->kind = ZL_RECORD_END;
    out->hash = zl_bitreader_bits(&rd->r, 32);
    if (failed(rd) != ZL_OK)
        return failed(rd);
    pad = (8u - (rd->r.bit_pos & 7u)) & 7u;
    if (zl_bitreader_bits(&rd->r, pad) != 0 || zl_bitreader_bits_left(&rd->r) != 0)
        return refuse(rd);
    rd->ended = 1;
    return ZL_OK;
}

int zl_record_next(zl_record_reader *rd, zl_record_entry *out)
{
    unsigned code;
    ZL_ASSERT(rd && out);
    memset(out, 0, sizeof *out);
    if (rd->r.error != ZL_OK)
        return failed(rd);
    if (rd->ended)
        return ZL_ERR_AGAIN;
    if (zl_bitreader_bool(&rd->r))
        return read_command(rd, out);
    code = zl_bitreader_bits(&rd->r, 2);
    if (code == CODE_TICK) {
        int32_t n = zl_bitreader_delta(&rd->r);
        if (failed(rd) != ZL_OK)
            return failed(rd);
        if (n < 0 || (uint32_t)n >= ZL_RECORD_TICK_END - rd->tick - 1u)
            return refuse(rd);
        out->kind = ZL_RECORD_TICK;
        out->ticks = (uint32_t)n + 1u;
        rd->tick += out->ticks;
        rd->in_tick = 0;
        return ZL_OK;
    }
    /* The rest come only between ticks. */
    if (rd->in_tick)
        return refuse(rd);
    if (code == CODE_JOIN || code == CODE_LEAVE) {
        int slot = read_slot(rd);
        if (failed(rd) != ZL_OK)
            return failed(rd);
        if (slot < 0 || bit_of(rd->present, slot) != (code == CODE_LEAVE))
            return refuse(rd);
        set_bit(rd->present, slot, code == CODE_JOIN);
        set_bit(rd->have_prev, slot, 0);
        out->kind = code == CODE_JOIN ? ZL_RECORD_JOIN : ZL_RECORD_LEAVE;
        out->slot = slot;
        return ZL_OK;
    }
    if (zl_bitreader_bool(&rd->r))
        return read_end(rd, out);
    out->kind = ZL_RECORD_MATCH;
    out->match_id = zl_bitreader_bits(&rd->r, 32);
    memset(rd->have_prev, 0, sizeof rd->have_prev);
    return failed(rd);
}
