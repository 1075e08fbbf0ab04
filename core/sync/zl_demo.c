/* zl_demo.c - the demo and broadcast format: writes fragments into a caller
 * buffer and checks hostile ones before anything reads their items. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_crc32.h"
#include "zl_demo.h"

static const uint8_t magic[4] = {'Z', 'L', 'D', 'M'};

void zl_demo_writer_init(zl_demo_writer *w, void *buf, uint32_t cap)
{
    ZL_ASSERT(w && buf && cap >= ZL_DEMO_HEADER_SIZE + ZL_DEMO_ITEM_HEADER_SIZE);
    memset(w, 0, sizeof *w);
    w->buf = (uint8_t *)buf;
    w->cap = cap;
}

int zl_demo_begin(zl_demo_writer *w, uint64_t start_us)
{
    ZL_ASSERT(w);
    if (w->open || start_us < w->last_us || start_us >> 52)
        return ZL_ERR_INVALID;
    w->open = 1;
    w->start_us = start_us;
    w->last_us = start_us;
    w->len = ZL_DEMO_HEADER_SIZE;
    return ZL_OK;
}

uint8_t *zl_demo_item_begin(zl_demo_writer *w, uint8_t kind, uint64_t time_us, uint32_t *room)
{
    int first;
    ZL_ASSERT(w && room);
    *room = 0;
    first = w->len == ZL_DEMO_HEADER_SIZE;
    if (!w->open || w->in_item || kind == 0 || (kind == ZL_DEMO_KEYFRAME) != first ||
        time_us < w->last_us || time_us - w->start_us > 0xFFFFFFFFu ||
        w->cap - w->len < ZL_DEMO_ITEM_HEADER_SIZE)
        return NULL;
    w->item = w->len;
    w->buf[w->len] = kind;
    zl_put_le32(w->buf + w->len + 5, (uint32_t)(time_us - w->start_us));
    w->last_us = time_us;
    w->in_item = 1;
    *room = w->cap - w->len - ZL_DEMO_ITEM_HEADER_SIZE;
    return w->buf + w->len + ZL_DEMO_ITEM_HEADER_SIZE;
}

void zl_demo_item_end(zl_demo_writer *w, uint32_t len)
{
    ZL_ASSERT(w && w->in_item && len <= w->cap - w->item - ZL_DEMO_ITEM_HEADER_SIZE);
    zl_put_le32(w->buf + w->item + 1, len);
    w->len = w->item + ZL_DEMO_ITEM_HEADER_SIZE + len;
    w->in_item = 0;
}

int zl_demo_item(zl_demo_writer *w, uint8_t kind, uint64_t time_us, const void *data,
                 uint32_t len)
{
    uint32_t room;
    uint8_t *p;
    ZL_ASSERT(w && (data || len == 0));
    if (w->open && !w->in_item && w->cap - w->len < ZL_DEMO_ITEM_HEADER_SIZE + (uint64_t)len)
        return ZL_ERR_FULL;
    p = zl_demo_item_begin(w, kind, time_us, &room);
    if (!p)
        return ZL_ERR_INVALID;
    if (len)
        memcpy(p, data, len);
    zl_demo_item_end(w, len);
    return ZL_OK;
}

int zl_demo_finish(zl_demo_writer *w, const uint8_t **out)
{
    uint8_t *h;
    uint32_t crc;
    ZL_ASSERT(w && out);
    if (!w->open || w->in_item)
        return ZL_ERR_INVALID;
    h = w->buf;
    memcpy(h, magic, 4);
    h[4] = ZL_DEMO_VERSION;
    h[5] = h[6] = h[7] = 0;
    zl_put_le32(h + 8, w->sequence);
    zl_put_le(h + 12, w->start_us, 8);
    zl_put_le32(h + 20, w->len - ZL_DEMO_HEADER_SIZE);
    crc = zl_crc32_update(0, h, 24);
    crc = zl_crc32_update(crc, h + ZL_DEMO_HEADER_SIZE, w->len - ZL_DEMO_HEADER_SIZE);
    zl_put_le32(h + 24, crc);
    w->open = 0;
    w->sequence++;
    *out = h;
    return (int)w->len;
}

/* The item at body[offset], whose header and data the caller knows fit. */
static void item_at(const zl_demo_fragment *f, uint32_t offset, zl_demo_item_view *item)
{
    const uint8_t *p = f->body + offset;
    item->kind = p[0];
    item->len = zl_get_le32(p + 1);
    item->time_us = f->start_us + zl_get_le32(p + 5);
    item->data = p + ZL_DEMO_ITEM_HEADER_SIZE;
}

/* Every item of f's body within it, of a known kind, the keyframe first
 * and only there, times never going back. */
static int check_items(zl_demo_fragment *f)
{
    uint32_t offset = 0;
    uint64_t last = f->start_us;
    int n = 0;
    while (offset < f->body_len) {
        zl_demo_item_view it;
        if (f->body_len - offset < ZL_DEMO_ITEM_HEADER_SIZE)
            return ZL_ERR_MALFORMED;
        item_at(f, offset, &it);
        if (it.len > f->body_len - offset - ZL_DEMO_ITEM_HEADER_SIZE || it.kind == 0 ||
            (it.kind > ZL_DEMO_FRAME && it.kind < ZL_DEMO_APP) ||
            (it.kind == ZL_DEMO_KEYFRAME) != (n == 0) || it.time_us < last)
            return ZL_ERR_MALFORMED;
        last = it.time_us;
        offset += ZL_DEMO_ITEM_HEADER_SIZE + it.len;
        n++;
    }
    if (n == 0)
        return ZL_ERR_MALFORMED;
    f->end_us = last;
    return ZL_OK;
}

int zl_demo_fragment_open(const void *data, size_t len, zl_demo_fragment *out)
{
    const uint8_t *h = (const uint8_t *)data;
    uint32_t crc;
    ZL_ASSERT(out && (data || len == 0));
    memset(out, 0, sizeof *out);
    if (len < ZL_DEMO_HEADER_SIZE)
        return len >= 4 && memcmp(h, magic, 4) != 0 ? ZL_ERR_MALFORMED : ZL_ERR_TRUNCATED;
    if (memcmp(h, magic, 4) != 0 || h[5] || h[6] || h[7])
        return ZL_ERR_MALFORMED;
    if (h[4] != ZL_DEMO_VERSION)
        return ZL_ERR_UNSUPPORTED;
    out->sequence = zl_get_le32(h + 8);
    out->start_us = zl_get_le(h + 12, 8);
    out->body_len = zl_get_le32(h + 20);
    if (out->body_len > ZL_DEMO_FRAGMENT_MAX || out->start_us >> 52)
        return ZL_ERR_MALFORMED;
    if (len - ZL_DEMO_HEADER_SIZE < out->body_len)
        return ZL_ERR_TRUNCATED;
    out->body = h + ZL_DEMO_HEADER_SIZE;
    out->size = ZL_DEMO_HEADER_SIZE + out->body_len;
    crc = zl_crc32_update(0, h, 24);
    crc = zl_crc32_update(crc, out->body, out->body_len);
    if (crc != zl_get_le32(h + 24))
        return ZL_ERR_CHECKSUM;
    return check_items(out);
}

int zl_demo_fragment_next(const zl_demo_fragment *f, uint32_t *offset, zl_demo_item_view *item)
{
    ZL_ASSERT(f && offset && item);
    if (*offset >= f->body_len)
        return 0;
    item_at(f, *offset, item);
    *offset += ZL_DEMO_ITEM_HEADER_SIZE + item->len;
    return 1;
}
