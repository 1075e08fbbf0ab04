/* zl_slip.c - SLIP frames over a byte stream: an encoder that can stop after
 * any byte (a full transmit register) and a decoder that never trusts input. */
#include "zl_slip.h"

/* Encoder stages, in the order a frame is written; DONE is 0 so that a
 * zeroed encoder is idle. */
enum { STAGE_DONE, STAGE_OPEN, STAGE_DATA, STAGE_ESCAPE_TAIL, STAGE_CLOSE };

/* Why a frame being received will be dropped at its END. */
enum { INTACT, BROKEN_OVERSIZE, BROKEN_GARBLED };

void zl_slip_encoder_start(zl_slip_encoder *e, const void *data, size_t len)
{
    ZL_ASSERT(e && (data || len == 0));
    e->data = (const uint8_t *)data;
    e->len = len;
    e->pos = 0;
    e->stage = STAGE_OPEN;
}

size_t zl_slip_encoder_write(zl_slip_encoder *e, uint8_t *out, size_t cap)
{
    size_t n = 0;
    ZL_ASSERT(e && (out || cap == 0));
    while (n < cap && e->stage != STAGE_DONE) {
        uint8_t b;
        switch (e->stage) {
        case STAGE_OPEN:
            out[n++] = ZL_SLIP_END;
            e->stage = STAGE_DATA;
            break;
        case STAGE_DATA:
            if (e->pos == e->len) {
                e->stage = STAGE_CLOSE;
                break;
            }
            b = e->data[e->pos];
            if (b == ZL_SLIP_END || b == ZL_SLIP_ESC) {
                /* The data byte counts as written only once its tail is. */
                out[n++] = ZL_SLIP_ESC;
                e->stage = STAGE_ESCAPE_TAIL;
            } else {
                out[n++] = b;
                e->pos++;
            }
            break;
        case STAGE_ESCAPE_TAIL:
            out[n++] = e->data[e->pos] == ZL_SLIP_END ? ZL_SLIP_ESC_END : ZL_SLIP_ESC_ESC;
            e->pos++;
            e->stage = STAGE_DATA;
            break;
        default: /* STAGE_CLOSE */
            out[n++] = ZL_SLIP_END;
            e->stage = STAGE_DONE;
            break;
        }
    }
    return n;
}

int zl_slip_encoder_done(const zl_slip_encoder *e)
{
    ZL_ASSERT(e);
    return e->stage == STAGE_DONE;
}

int zl_slip_encode(const void *data, size_t len, uint8_t *out, size_t cap)
{
    zl_slip_encoder e;
    size_t n;
    zl_slip_encoder_start(&e, data, len);
    n = zl_slip_encoder_write(&e, out, cap);
    if (!zl_slip_encoder_done(&e))
        return ZL_ERR_OVERFLOW;
    return (int)n;
}

void zl_slip_decoder_init(zl_slip_decoder *d, uint8_t *buf, size_t cap)
{
    ZL_ASSERT(d && buf && cap >= 1 && cap <= 65535);
    d->buf = buf;
    d->cap = cap;
    d->len = 0;
    d->escaped = 0;
    d->broken = INTACT;
    d->stats.frames = 0;
    d->stats.oversize = 0;
    d->stats.garbled = 0;
    d->stats.bytes = 0;
}

/* Ends the frame being received: returns its length when it is whole. */
static int end_frame(zl_slip_decoder *d)
{
    int len = (int)d->len;
    uint8_t broken = d->broken;
    d->len = 0;
    d->escaped = 0;
    d->broken = INTACT;
    if (broken == BROKEN_OVERSIZE) {
        d->stats.oversize++;
        return 0;
    }
    if (broken == BROKEN_GARBLED) {
        d->stats.garbled++;
        return 0;
    }
    if (len > 0)
        d->stats.frames++;
    return len;
}

/* The first fault found decides how a frame is counted. */
static void mark_broken(zl_slip_decoder *d, uint8_t why)
{
    if (d->broken == INTACT)
        d->broken = why;
}

int zl_slip_decoder_push(zl_slip_decoder *d, uint8_t byte)
{
    ZL_ASSERT(d);
    d->stats.bytes++;
    if (byte == ZL_SLIP_END) {
        /* An ESC right before END is an escape with nothing to stand for. */
        if (d->escaped)
            mark_broken(d, BROKEN_GARBLED);
        return end_frame(d);
    }
    if (d->escaped) {
        d->escaped = 0;
        if (byte == ZL_SLIP_ESC_END)
            byte = ZL_SLIP_END;
        else if (byte == ZL_SLIP_ESC_ESC)
            byte = ZL_SLIP_ESC;
        else {
            mark_broken(d, BROKEN_GARBLED);
            return 0;
        }
    } else if (byte == ZL_SLIP_ESC) {
        d->escaped = 1;
        return 0;
    }
    if (d->broken != INTACT)
        return 0; /* the frame is dropped anyway: skip to its END */
    if (d->len == d->cap) {
        mark_broken(d, BROKEN_OVERSIZE);
        return 0;
    }
    d->buf[d->len++] = byte;
    return 0;
}
