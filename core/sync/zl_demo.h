/* zl_demo.h - the demo and broadcast format: fragments, each a keyframe and
 * timed items after it, written into caller buffers and read back checked. */
#ifndef ZL_DEMO_H
#define ZL_DEMO_H

#include "zl_base.h"

ZL_BEGIN_DECLS

/* A stream (a demo file, a broadcast) is fragments one after another; each
 * starts with a keyframe, so playback can start at any fragment. Layout
 * (little-endian; docs/RECORD.md):
 *   fragment header, ZL_DEMO_HEADER_SIZE bytes:
 *     0  magic "ZLDM"           4 bytes
 *     4  version                1 byte  (ZL_DEMO_VERSION)
 *     5  reserved               3 bytes (zero)
 *     8  sequence               4 bytes (0, 1, 2 ... in the stream)
 *    12  start_us               8 bytes (the stream time it starts at,
 *                                       microseconds since the stream began;
 *                                       below 2^52, 142 years)
 *    20  body length            4 bytes
 *    24  CRC-32 of bytes 0..23 and the body
 *   body: items, each ZL_DEMO_ITEM_HEADER_SIZE bytes then its data:
 *     0  kind                   1 byte  (ZL_DEMO_*)
 *     1  data length            4 bytes
 *     5  time                   4 bytes (microseconds after start_us)
 *   The first item is the one KEYFRAME; item times never go back. */
#define ZL_DEMO_VERSION 1
#define ZL_DEMO_HEADER_SIZE 28
#define ZL_DEMO_ITEM_HEADER_SIZE 9
/* The largest fragment body a reader takes: a format limit, not a buffer
 * (writers choose their buffer; readers read the caller's bytes). */
#define ZL_DEMO_FRAGMENT_MAX (16u * 1024u * 1024u)

/* Item kinds. Below ZL_DEMO_APP the format's own (a reader refuses one it
 * does not know); from ZL_DEMO_APP on, the application's (players skip
 * them). */
enum {
    ZL_DEMO_KEYFRAME = 1, /* what playback starts from (zl_client_demo.h) */
    ZL_DEMO_SNAPSHOT = 2, /* an opened SNAPSHOT payload as it arrived */
    ZL_DEMO_COMMAND = 3,  /* one command the player ran (zl_cmdstream, count 1) */
    ZL_DEMO_FRAME = 4,    /* a frame drawn at the item's time (no data) */
    ZL_DEMO_APP = 128
};

/* Writes one fragment at a time into a caller buffer. Caller-owned; fields
 * private. */
typedef struct zl_demo_writer {
    uint8_t *buf;      /* the caller's, cap bytes */
    uint32_t cap;
    uint32_t len;      /* bytes of the open fragment so far */
    uint32_t item;     /* offset of the item being written (item_begin) */
    uint32_t sequence; /* of the next fragment */
    uint64_t start_us; /* of the open fragment */
    uint64_t last_us;  /* the newest item time */
    uint8_t open;      /* a fragment is open */
    uint8_t in_item;   /* between item_begin and item_end */
} zl_demo_writer;

/* Starts a writer over buf (cap bytes, caller-owned, kept while writing;
 * at least ZL_DEMO_HEADER_SIZE + ZL_DEMO_ITEM_HEADER_SIZE). The first
 * fragment gets sequence 0. */
void zl_demo_writer_init(zl_demo_writer *w, void *buf, uint32_t cap);

/* Opens a fragment starting at stream time start_us (not before the last
 * fragment's items, below 2^52). ZL_OK, or ZL_ERR_INVALID when one is
 * open or the time goes back or is too late. The next item must be its KEYFRAME. */
int zl_demo_begin(zl_demo_writer *w, uint64_t start_us);

/* Starts an item of `kind` at stream time time_us (not before the last
 * item nor more than 2^32 - 1 us after the fragment's start) and returns
 * where its data goes, with *room bytes free there; NULL (nothing changes,
 * *room 0) when no fragment is open, an item is open, the kind is not the
 * one due (the KEYFRAME first, then any other), the time is out of range,
 * or the item header does not fit. Finish it with zl_demo_item_end. */
uint8_t *zl_demo_item_begin(zl_demo_writer *w, uint8_t kind, uint64_t time_us, uint32_t *room);

/* Ends the open item with len data bytes (at most the room given). */
void zl_demo_item_end(zl_demo_writer *w, uint32_t len);

/* One whole item: zl_demo_item_begin, len bytes from data, item_end.
 * ZL_OK; ZL_ERR_FULL (nothing written) when it does not fit the buffer;
 * ZL_ERR_INVALID as zl_demo_item_begin. */
int zl_demo_item(zl_demo_writer *w, uint8_t kind, uint64_t time_us, const void *data,
                 uint32_t len);

/* Closes the open fragment: fills its header (length, CRC) and points
 * *out at its bytes (in the writer's buffer, valid until the next begin),
 * returning their count; ZL_ERR_INVALID when none is open or an item is. */
int zl_demo_finish(zl_demo_writer *w, const uint8_t **out);

/* A fragment checked by zl_demo_fragment_open. */
typedef struct zl_demo_fragment {
    uint32_t sequence;
    uint64_t start_us;
    const uint8_t *body; /* the caller's bytes */
    uint32_t body_len;
    uint32_t size;       /* header and body: where the next fragment starts */
    uint64_t end_us;     /* the time of its last item */
} zl_demo_fragment;

/* One item of a fragment. */
typedef struct zl_demo_item_view {
    uint8_t kind;
    uint64_t time_us;    /* stream time */
    const uint8_t *data; /* the caller's bytes */
    uint32_t len;
} zl_demo_item_view;

/* Checks the fragment at the start of data (len bytes, hostile bytes
 * fine, read only) and describes it in *out: the header, the CRC and
 * every item's bounds, kind and time. ZL_OK, or:
 *   ZL_ERR_TRUNCATED  the bytes end inside the header or the body;
 *   ZL_ERR_MALFORMED  not a fragment (magic, reserved bytes), a start
 *                     time from 2^52 on, a body beyond ZL_DEMO_FRAGMENT_MAX, or items that do not
 *                     fill the body exactly, a first item not a keyframe,
 *                     a second keyframe, an unknown kind, a time going back;
 *   ZL_ERR_UNSUPPORTED  another version of the format;
 *   ZL_ERR_CHECKSUM   the CRC does not match (damaged bytes). */
int zl_demo_fragment_open(const void *data, size_t len, zl_demo_fragment *out);

/* Walks the items of a fragment opened by zl_demo_fragment_open:
 * *offset starts at 0; each call fills *item and advances it. Returns 1,
 * or 0 after the last item. */
int zl_demo_fragment_next(const zl_demo_fragment *f, uint32_t *offset, zl_demo_item_view *item);

ZL_END_DECLS

#endif
