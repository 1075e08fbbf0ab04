/* zl_tvindex.c - writes and reads the broadcast index: each line a known
 * key and a decimal number, checked against overflow, in a fixed order. */
#include "zl_tvindex.h"

#include <string.h>

static const char *const index_keys[] = {"fragment", "tick", "unix_ms", "tick_rate",
                                         "fragment_ticks", "delay_ms"};
#define INDEX_HEAD "zerolag-broadcast 1\n"
#define INDEX_KEYS 6

static size_t put_decimal(char *out, uint64_t v)
{
    char digits[20];
    size_t n = 0, i;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    for (i = 0; i < n; i++)
        out[i] = digits[n - 1 - i];
    return n;
}

size_t zl_tvindex_write(const zl_tvindex *idx, char *buf, size_t cap)
{
    uint64_t v[INDEX_KEYS];
    size_t n = sizeof INDEX_HEAD - 1, k;
    ZL_ASSERT(cap >= ZL_TVINDEX_MAX);
    v[0] = idx->fragment;
    v[1] = idx->tick;
    v[2] = idx->unix_ms;
    v[3] = idx->tick_rate;
    v[4] = idx->fragment_ticks;
    v[5] = idx->delay_ms;
    memcpy(buf, INDEX_HEAD, n);
    for (k = 0; k < INDEX_KEYS; k++) {
        size_t klen = strlen(index_keys[k]);
        memcpy(buf + n, index_keys[k], klen);
        n += klen;
        buf[n++] = ' ';
        n += put_decimal(buf + n, v[k]);
        buf[n++] = '\n';
    }
    return n;
}

/* One line "key value\n" at text[*at]: the value, or -1. */
static int read_line(const char *text, size_t len, size_t *at, const char *key, uint64_t max,
                     uint64_t *value)
{
    size_t klen = strlen(key), i = *at, digits = 0;
    uint64_t v = 0;
    if (len - i < klen + 1 || memcmp(text + i, key, klen) != 0 || text[i + klen] != ' ')
        return -1;
    for (i += klen + 1; i < len && text[i] >= '0' && text[i] <= '9'; i++, digits++) {
        if (v > (max - (uint64_t)(text[i] - '0')) / 10u)
            return -1;
        v = v * 10u + (uint64_t)(text[i] - '0');
    }
    if (digits == 0 || i >= len || text[i] != '\n')
        return -1;
    *at = i + 1;
    *value = v;
    return 0;
}

int zl_tvindex_read(const char *text, size_t len, zl_tvindex *out)
{
    uint64_t v[INDEX_KEYS];
    size_t at = sizeof INDEX_HEAD - 1, k;
    if (len < at || memcmp(text, INDEX_HEAD, at) != 0)
        return ZL_ERR_MALFORMED;
    for (k = 0; k < INDEX_KEYS; k++)
        if (read_line(text, len, &at, index_keys[k], k == 2 ? UINT64_MAX : 0xFFFFFFFFu, &v[k]) != 0)
            return ZL_ERR_MALFORMED;
    if (v[3] == 0)
        return ZL_ERR_MALFORMED;
    out->fragment = (uint32_t)v[0];
    out->tick = (uint32_t)v[1];
    out->unix_ms = v[2];
    out->tick_rate = (uint32_t)v[3];
    out->fragment_ticks = (uint32_t)v[4];
    out->delay_ms = (uint32_t)v[5];
    return ZL_OK;
}
