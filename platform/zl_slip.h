/* zl_slip.h - SLIP framing (RFC 1055) for byte-stream links such as a UART:
 * a resumable encoder and a bounded streaming decoder that survives any bytes. */
#ifndef ZL_SLIP_H
#define ZL_SLIP_H

#include "zl_base.h"

/* The wire: every frame is END, the datagram with END and ESC replaced by
 * two-byte escapes, END. The leading END ends whatever line noise came
 * before, so a receiver resynchronises on the first frame after it. */
#define ZL_SLIP_END 0xC0u
#define ZL_SLIP_ESC 0xDBu
#define ZL_SLIP_ESC_END 0xDCu /* ESC ESC_END stands for a data byte END */
#define ZL_SLIP_ESC_ESC 0xDDu /* ESC ESC_ESC stands for a data byte ESC */

/* The most bytes one frame of len data bytes takes on the wire (every byte
 * escaped, plus both ENDs). */
#define ZL_SLIP_ENCODED_MAX(len) (2u * (len) + 2u)

/* ---- Encoding ---- */

/* One frame being written out. Private: use the functions. It reads the
 * datagram in place, so the bytes must stay put until the frame is done.
 * An all-zero encoder (static storage, memset) has no frame: it is done. */
typedef struct zl_slip_encoder {
    const uint8_t *data;
    size_t len;
    size_t pos;     /* data bytes fully written */
    uint8_t stage;  /* where in the frame the next byte comes from */
} zl_slip_encoder;

/* Starts a frame of len bytes at data (read only, caller-owned; len 0
 * gives a frame of two ENDs, which receivers ignore). */
void zl_slip_encoder_start(zl_slip_encoder *e, const void *data, size_t len);

/* Writes the next encoded bytes into out, at most cap of them (cap 1 feeds
 * a transmit register byte by byte). Returns how many were written: 0 once
 * the frame is complete. An escape is never split in a way that loses a
 * byte: the second half simply comes with the next call. */
size_t zl_slip_encoder_write(zl_slip_encoder *e, uint8_t *out, size_t cap);

/* 1 when every byte of the frame has been written. */
int zl_slip_encoder_done(const zl_slip_encoder *e);

/* Encodes a whole frame of len bytes into out. Returns the encoded length
 * (at most ZL_SLIP_ENCODED_MAX(len)), or ZL_ERR_OVERFLOW when cap is too
 * small; out then holds a cut frame that must not be sent. */
int zl_slip_encode(const void *data, size_t len, uint8_t *out, size_t cap);

/* ---- Decoding ---- */

/* Counters since zl_slip_decoder_init; they wrap at 2^32. Every frame the
 * decoder sees ends up in exactly one of the first three. */
typedef struct zl_slip_stats {
    uint32_t frames;   /* delivered whole */
    uint32_t oversize; /* longer than the buffer: dropped */
    uint32_t garbled;  /* an ESC not followed by ESC_END or ESC_ESC: dropped */
    uint32_t bytes;    /* every byte pushed, ENDs included */
} zl_slip_stats;

/* A decoder over a caller-owned buffer of `cap` bytes, the largest frame
 * it accepts. Private except `stats`. */
typedef struct zl_slip_decoder {
    uint8_t *buf;
    size_t cap;
    size_t len;        /* data bytes of the frame being received */
    uint8_t escaped;   /* the previous byte was ESC */
    uint8_t broken;    /* 0, or the counter the frame will be dropped into */
    zl_slip_stats stats;
} zl_slip_decoder;

/* Starts a decoder that assembles frames in buf[0 .. cap-1] (cap 1..65535,
 * caller-owned, must outlive the decoder). */
void zl_slip_decoder_init(zl_slip_decoder *d, uint8_t *buf, size_t cap);

/* Takes one received byte. Returns the length (>= 1) of a frame this byte
 * completed, whose bytes are d->buf[0 .. length-1] until the next push, or
 * 0 when no frame is complete yet. Empty frames (END END) are skipped
 * silently; oversize and garbled frames are dropped at their END and
 * counted, and the next frame decodes normally. Any byte sequence is
 * fine: nothing is ever written beyond buf[cap - 1]. SLIP has no checksum,
 * so line noise between frames can arrive as a frame: the layer above
 * checks its own (zerolag packets carry a CRC). */
int zl_slip_decoder_push(zl_slip_decoder *d, uint8_t byte);

#endif
