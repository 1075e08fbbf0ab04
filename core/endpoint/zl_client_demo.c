/* zl_client_demo.c - client demos: the recorder's fragments and keyframes,
 * and playback that restores a keyframe and replays items through the client. */
#include <stddef.h>
#include <string.h>

#include "zl_client_demo.h"

/* ---- Keyframes (docs/DEMOS.md) ---- */

/* A state's every field as stored, little-endian in its own size: what
 * the game's struct holds, quantised or not, on any byte order. */
static void put_state(zl_bitwriter *w, const zl_schema *s, const void *state)
{
    const uint8_t *p = (const uint8_t *)state;
    uint16_t i;
    for (i = 0; i < s->count; i++) {
        const zl_field *f = &s->fields[i];
        uint32_t v = 0;
        if (f->size == 1) {
            v = p[f->offset];
        } else if (f->size == 2) {
            uint16_t h;
            memcpy(&h, p + f->offset, 2);
            v = h;
        } else {
            memcpy(&v, p + f->offset, 4);
        }
        zl_bitwriter_bits(w, v, 8u * f->size);
    }
}

/* 1 when v, a field's stored bits, is what its schema allows: an INT or
 * FX within its bounds, FLAGS within its bits (what any decoded or
 * simulated state holds; a hostile one could take a game's rules out of
 * bounds). */
static int field_ok(const zl_field *f, uint32_t v)
{
    int64_t x;
    if (f->kind == ZL_FIELD_KIND_FLAGS)
        return f->bits >= 32 || (v >> f->bits) == 0;
    if (f->kind != ZL_FIELD_KIND_INT && f->kind != ZL_FIELD_KIND_FX)
        return 1;
    x = v;
    if (f->min < 0 && f->size < 4 && (v >> (8u * f->size - 1u)))
        x -= (int64_t)1 << (8u * f->size); /* signed storage */
    else if (f->min < 0 && f->size == 4 && (v >> 31))
        x -= (int64_t)1 << 32;
    return x >= f->min && x <= f->max;
}

/* Reads a state written by put_state: ZL_OK, the reader's error, or
 * ZL_ERR_MALFORMED for a field out of its schema's range. */
static int get_state(zl_bitreader *r, const zl_schema *s, void *state)
{
    uint8_t *p = (uint8_t *)state;
    uint16_t i;
    for (i = 0; i < s->count; i++) {
        const zl_field *f = &s->fields[i];
        uint32_t v = zl_bitreader_bits(r, 8u * f->size);
        if (r->error != ZL_OK)
            return r->error;
        if (!field_ok(f, v))
            return ZL_ERR_MALFORMED;
        if (f->size == 1) {
            p[f->offset] = (uint8_t)v;
        } else if (f->size == 2) {
            uint16_t h = (uint16_t)v;
            memcpy(p + f->offset, &h, 2);
        } else {
            memcpy(p + f->offset, &v, 4);
        }
    }
    return ZL_OK;
}

static const zl_schema *schema_of(const zl_client *c, uint32_t entity)
{
    return entity < ZL_MAX_CLIENTS ? c->game.player_schema : c->game.entity_schema;
}

static void put_frame(zl_bitwriter *w, const zl_client *c, const zl_snapshot_frame *f)
{
    uint16_t e;
    zl_bitwriter_bits(w, f->tick, 32);
    zl_bitwriter_bits(w, f->count, 16);
    zl_bitwriter_bool(w, f->events.known != 0);
    if (f->events.known)
        zl_bitwriter_bits(w, f->events.next, 32);
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const void *state = zl_snapshot_frame_state(f, e);
        if (state) {
            zl_bitwriter_bits(w, e, 16);
            put_state(w, schema_of(c, e), state);
        }
    }
}

static void put_prediction(zl_bitwriter *w, const zl_client *c)
{
    uint32_t acked = zl_predict_acked(&c->predict), n = zl_predict_unacked(&c->predict), i;
    const zl_usercmd *prev = NULL;
    zl_bitwriter_bits(w, acked, 32);
    zl_bitwriter_bits(w, n, 16);
    put_state(w, c->game.player_schema, zl_predict_state_after(&c->predict, acked));
    for (i = 1; i <= n; i++) {
        const zl_usercmd *cmd = zl_predict_command_at(&c->predict, acked + i);
        zl_usercmd_write(w, prev, cmd);
        prev = cmd;
    }
}

/* The keyframe: what zl_client_play_start makes a client of again. */
static int put_keyframe(zl_bitwriter *w, const zl_client *c, uint64_t origin_us)
{
    const zl_snapshot_frame *f = NULL;
    uint32_t frames = 0;
    zl_bitwriter_bits64(w, origin_us);
    zl_bitwriter_bits(w, c->slot, 16);
    zl_bitwriter_bits(w, c->tick_rate, 16);
    zl_bitwriter_bits(w, c->settings.updaterate, 16);
    zl_bitwriter_bits(w, c->settings.cmdrate, 16);
    zl_bitwriter_bits(w, c->settings.rate, 32);
    zl_bitwriter_bits(w, c->settings.interp_us, 32);
    zl_bitwriter_bits(w, c->settings.interp_ratio, 16);
    zl_bitwriter_bits(w, c->match_tick, 32);
    while ((f = zl_snapshot_receiver_next(&c->rx, f)) != NULL)
        frames++;
    zl_bitwriter_bits(w, frames, 16);
    while ((f = zl_snapshot_receiver_next(&c->rx, f)) != NULL)
        put_frame(w, c, f);
    zl_bitwriter_bits(w, c->rx.executed, 32);
    zl_bitwriter_bool(w, c->has_player);
    if (c->has_player)
        put_prediction(w, c);
    zl_clock_save(&c->clock, w);
    return zl_bitwriter_finish(w);
}

static int malformed(zl_bitreader *r)
{
    return r->error != ZL_OK ? r->error : ZL_ERR_MALFORMED;
}

/* One kept frame into the receiver and the histories, as its snapshot
 * did when it arrived. */
static int get_frame(zl_bitreader *r, zl_client *c)
{
    uint32_t tick = zl_bitreader_bits(r, 32), count = zl_bitreader_bits(r, 16), i;
    zl_event_ref ref = {0, 0};
    int32_t last = -1;
    int rc;
    zl_snapshot_frame *f;
    if ((ref.known = (uint32_t)zl_bitreader_bool(r)) != 0)
        ref.next = zl_bitreader_bits(r, 32);
    if (r->error != ZL_OK || count > ZL_MAX_ENTITIES)
        return malformed(r);
    f = zl_snapshot_receiver_add(&c->rx, tick);
    if (!f)
        return ZL_ERR_MALFORMED;
    f->events = ref;
    for (i = 0; i < count; i++) {
        uint32_t e = zl_bitreader_bits(r, 16);
        const zl_schema *s = e < ZL_MAX_ENTITIES ? schema_of(c, e) : NULL;
        if (r->error != ZL_OK || !s || (int32_t)e <= last)
            return malformed(r);
        last = (int32_t)e;
        if ((rc = get_state(r, s, zl_snapshot_frame_put(f, (uint16_t)e))) != ZL_OK)
            return rc;
    }
    zl_client_take_frame_(c, f, 0, c->play_origin_us);
    return ZL_OK;
}

/* The predicted player: its acknowledged state and the commands after it,
 * run again as they ran live. */
static int get_prediction(zl_bitreader *r, zl_client *c)
{
    uint8_t state[ZL_STATE_MAX];
    zl_usercmd cmd, prev;
    uint32_t acked = zl_bitreader_bits(r, 32), n = zl_bitreader_bits(r, 16), i;
    int rc;
    if (r->error != ZL_OK || n >= ZL_PREDICT_COMMANDS)
        return malformed(r);
    memset(state, 0, sizeof state);
    if ((rc = get_state(r, c->game.player_schema, state)) != ZL_OK)
        return rc;
    zl_predict_init(&c->predict, &c->game, &c->config.predict, state);
    zl_predict_reset(&c->predict, acked, state);
    for (i = 1; i <= n; i++) {
        if (zl_usercmd_read(r, &c->cmd_plan, i > 1 ? &prev : NULL, &cmd) != ZL_OK)
            return malformed(r);
        cmd.sequence = acked + i;
        if (zl_predict_command(&c->predict, &cmd, NULL) != ZL_OK)
            return ZL_ERR_MALFORMED;
        prev = cmd;
    }
    c->has_player = 1;
    return ZL_OK;
}

static int get_keyframe(zl_bitreader *r, zl_client *c)
{
    uint32_t frames, i;
    int rc;
    c->play_origin_us = zl_bitreader_bits64(r);
    c->slot = (uint16_t)zl_bitreader_bits(r, 16);
    c->tick_rate = (uint16_t)zl_bitreader_bits(r, 16);
    c->settings.updaterate = (uint16_t)zl_bitreader_bits(r, 16);
    c->settings.cmdrate = (uint16_t)zl_bitreader_bits(r, 16);
    c->settings.rate = zl_bitreader_bits(r, 32);
    c->settings.interp_us = zl_bitreader_bits(r, 32);
    c->settings.interp_ratio = (uint16_t)zl_bitreader_bits(r, 16);
    c->match_tick = zl_bitreader_bits(r, 32);
    frames = zl_bitreader_bits(r, 16);
    if (r->error != ZL_OK || c->slot >= ZL_MAX_CLIENTS || c->tick_rate == 0 ||
        c->tick_rate > ZL_SETTINGS_RATE_HZ_MAX || !zl_client_settings_valid(&c->settings) ||
        frames > ZL_SNAPSHOT_FRAMES || c->play_origin_us >> 52)
        return malformed(r);
    c->tick_us = (1000000u + c->tick_rate / 2u) / c->tick_rate;
    for (i = 0; i < frames; i++)
        if ((rc = get_frame(r, c)) != ZL_OK)
            return rc;
    c->rx.executed = zl_bitreader_bits(r, 32);
    c->has_player = 0;
    if (zl_bitreader_bool(r) && (rc = get_prediction(r, c)) != ZL_OK)
        return rc;
    return zl_clock_load(&c->clock, r);
}

/* ---- Recording ---- */

void zl_client_record_start(zl_client *c, zl_client_recorder *r, void *buf, uint32_t cap,
                            uint32_t keyframe_us, zl_demo_sink sink, void *ctx)
{
    ZL_ASSERT(c && r && buf && sink && keyframe_us >= 1u && keyframe_us <= 0x80000000u);
    memset(r, 0, sizeof *r);
    zl_demo_writer_init(&r->writer, buf, cap);
    r->sink = sink;
    r->ctx = ctx;
    r->keyframe_us = keyframe_us;
    r->frame_hash = ZL_SCHEMA_HASH_INIT;
    c->recorder = r;
}

/* Hands the open fragment, if any, to the sink. */
static void flush(zl_client_recorder *r)
{
    const uint8_t *bytes;
    int n = zl_demo_finish(&r->writer, &bytes);
    if (n > 0) {
        r->sink(r->ctx, bytes, (uint32_t)n);
        r->fragments++;
        r->bytes += (uint32_t)n;
    }
}

/* Ends the open fragment and starts the next with a keyframe at stream
 * time t; 0, or -1 (recording stopped) when the keyframe does not fit. */
static int cut(zl_client *c, zl_client_recorder *r, uint64_t t)
{
    zl_bitwriter w;
    uint32_t room;
    uint8_t *p;
    int n;
    flush(r);
    (void)zl_demo_begin(&r->writer, t);
    p = zl_demo_item_begin(&r->writer, ZL_DEMO_KEYFRAME, t, &room);
    if (p) {
        zl_bitwriter_init(&w, p, room);
        n = put_keyframe(&w, c, r->origin_us);
        if (n >= 0) {
            zl_demo_item_end(&r->writer, (uint32_t)n);
            r->next_key_us = t + r->keyframe_us;
            return 0;
        }
        zl_demo_item_end(&r->writer, 0);
    }
    r->failed = 1;
    c->recorder = NULL;
    return -1;
}

void zl_client_record_(zl_client *c, uint8_t kind, const void *data, uint32_t len,
                       uint64_t now_us)
{
    zl_client_recorder *r = c->recorder;
    uint64_t t;
    if (c->state != ZL_CLIENT_CONNECTED)
        return;
    if (!r->started) {
        r->started = 1;
        r->origin_us = now_us;
        if (cut(c, r, 0) < 0)
            return;
    }
    t = now_us > r->origin_us ? now_us - r->origin_us : 0;
    if (t < r->writer.last_us)
        t = r->writer.last_us;
    if (t >= r->next_key_us && cut(c, r, t) < 0)
        return;
    if (zl_demo_item(&r->writer, kind, t, data, len) == ZL_ERR_FULL) {
        if (cut(c, r, t) < 0)
            return;
        if (zl_demo_item(&r->writer, kind, t, data, len) != ZL_OK) {
            /* An item larger than a fragment can hold beside a keyframe. */
            r->failed = 1;
            c->recorder = NULL;
        }
    }
}

void zl_client_record_drawn_(zl_client *c)
{
    zl_client_recorder *r = c->recorder;
    if (!r->started || c->state != ZL_CLIENT_CONNECTED)
        return;
    r->frames++;
    r->frame_hash = zl_demo_hash_fold(r->frame_hash, zl_client_frame_hash(c));
}

void zl_client_record_command_(zl_client *c, const zl_usercmd *cmd)
{
    uint8_t buf[64];
    zl_bitwriter w;
    int n;
    if (!c->recorder->started)
        return;
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_usercmd_write(&w, NULL, cmd);
    n = zl_bitwriter_finish(&w);
    if (n >= 0)
        zl_client_record_(c, ZL_DEMO_COMMAND, buf, (uint32_t)n,
                          c->recorder->origin_us + c->recorder->writer.last_us);
}

int zl_client_record_stop(zl_client *c)
{
    zl_client_recorder *r;
    ZL_ASSERT(c);
    r = c->recorder;
    c->recorder = NULL;
    if (!r)
        return ZL_OK;
    if (r->writer.open)
        flush(r);
    return r->failed ? ZL_ERR_OVERFLOW : ZL_OK;
}

/* ---- Playback ---- */

/* Clears the session and the match, as a fresh zl_client_init left them. */
static void clear(zl_client *c)
{
    memset(&c->state, 0, offsetof(zl_client, has_player) - offsetof(zl_client, state));
    zl_client_start_match_(c);
}

int zl_client_play_start(zl_client *c, const zl_demo_fragment *f)
{
    zl_demo_item_view key;
    zl_bitreader r;
    uint32_t offset = 0;
    int rc;
    ZL_ASSERT(c && f);
    zl_client_disconnect(c, 0);
    clear(c);
    c->recorder = NULL;
    if (!zl_demo_fragment_next(f, &offset, &key) || key.kind != ZL_DEMO_KEYFRAME)
        return ZL_ERR_MALFORMED;
    zl_bitreader_init(&r, key.data, key.len);
    rc = get_keyframe(&r, c);
    if (rc != ZL_OK) {
        clear(c);
        return rc;
    }
    c->state = ZL_CLIENT_PLAYING;
    return ZL_OK;
}

uint64_t zl_client_play_time(const zl_client *c, uint64_t time_us)
{
    ZL_ASSERT(c);
    return c->play_origin_us + time_us;
}

int zl_client_play_item(zl_client *c, const zl_demo_item_view *item, zl_events *events)
{
    uint64_t now_us;
    ZL_ASSERT(c && item);
    if (c->state != ZL_CLIENT_PLAYING)
        return ZL_ERR_INVALID;
    now_us = zl_client_play_time(c, item->time_us);
    if (item->kind == ZL_DEMO_SNAPSHOT) {
        /* A demo keeps the payload, not the datagram: the net graph's size
         * is the plain datagram's. */
        zl_client_on_snapshot_(c, item->data, item->len, item->len + ZL_PACKET_HEADER_SIZE, now_us);
    } else if (item->kind == ZL_DEMO_FRAME) {
        zl_client_frame(c, now_us);
    } else if (item->kind == ZL_DEMO_COMMAND) {
        zl_bitreader r;
        zl_usercmd cmd;
        zl_bitreader_init(&r, item->data, item->len);
        if (zl_usercmd_read(&r, &c->cmd_plan, NULL, &cmd) != ZL_OK)
            return ZL_ERR_MALFORMED;
        (void)zl_client_command(c, &cmd, events);
    }
    return item->kind;
}

uint32_t zl_client_frame_hash(const zl_client *c)
{
    uint32_t h = ZL_SCHEMA_HASH_INIT;
    const void *own;
    int e;
    ZL_ASSERT(c);
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const void *state = zl_client_entity(c, e);
        if (state) {
            h = (h ^ (uint32_t)e) * 16777619u;
            h = zl_schema_hash(schema_of(c, (uint32_t)e), state, ZL_SCHEMA_ALL, h);
        }
    }
    own = zl_client_predicted(c);
    if (own)
        h = zl_schema_hash(c->game.player_schema, own, ZL_SCHEMA_ALL, h ^ 0xFFu);
    return h;
}
