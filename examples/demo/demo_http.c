/* demo_http.c - bounded parsers for HTTP/1.1 replies (length, chunked or
 * close-delimited bodies) and GET requests, and a JSON field scanner. */
#include <string.h>

#include "demo_http.h"

/* Offset just past the blank line that ends the head, or 0 when the head
 * is not whole in buf[0..len). */
static size_t head_end(const char *buf, size_t len)
{
    size_t i;
    for (i = 3; i < len; i++)
        if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
            return i + 1;
    return 0;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* 1 when line[0..n) starts with name (any case) followed by ':'. */
static int is_header(const char *line, size_t n, const char *name)
{
    size_t k = strlen(name), i;
    if (n <= k || line[k] != ':')
        return 0;
    for (i = 0; i < k; i++)
        if (lower((unsigned char)line[i]) != name[i])
            return 0;
    return 1;
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Walks a chunked body from buf[at..len). Returns 1 when it is whole (and,
 * with compact, joins the chunks in place at buf + at, *out_len bytes),
 * 0 when more bytes are needed, -1 when malformed. Walked twice, first
 * without writing, so an incomplete body can be parsed again later. */
static int chunks(char *buf, size_t len, size_t at, int compact, size_t *out_len)
{
    size_t write = at, size;
    for (;;) {
        int digits = 0, h;
        size = 0;
        while (at < len && (h = hex_value((unsigned char)buf[at])) >= 0) {
            size = size * 16u + (size_t)h;
            if (++digits > 4 || size > DEMO_HTTP_MAX)
                return -1;
            at++;
        }
        if (at == len)
            return 0;
        if (digits == 0)
            return -1;
        while (at < len && buf[at] != '\r') /* chunk extensions: ignored */
            if (buf[at++] == '\n')
                return -1;
        if (len - at < 2)
            return 0;
        if (buf[at + 1] != '\n')
            return -1;
        at += 2;
        if (size == 0)
            break;
        if (len - at < size + 2)
            return 0;
        if (buf[at + size] != '\r' || buf[at + size + 1] != '\n')
            return -1;
        if (compact)
            memmove(buf + write, buf + at, size);
        write += size;
        at += size + 2;
    }
    /* No trailers are taken: the last chunk is followed by the blank line. */
    if (len - at < 2)
        return 0;
    if (buf[at] != '\r' || buf[at + 1] != '\n')
        return -1;
    *out_len = write;
    return 1;
}

int demo_http_parse_reply(char *buf, size_t len, int closed, demo_http_reply *r)
{
    size_t head = head_end(buf, len < DEMO_HTTP_MAX ? len : DEMO_HTTP_MAX), at, body_end = 0;
    size_t content_length = 0;
    int has_length = 0, chunked = 0, rc;
    memset(r, 0, sizeof *r);
    if (head == 0)
        return len >= DEMO_HTTP_MAX || closed ? -1 : 0;
    /* "HTTP/1.x DDD reason" */
    if (head < 14 || memcmp(buf, "HTTP/1.", 7) != 0 || !is_digit((unsigned char)buf[7]) ||
        buf[8] != ' ' || !is_digit((unsigned char)buf[9]) || !is_digit((unsigned char)buf[10]) ||
        !is_digit((unsigned char)buf[11]) || (buf[12] != ' ' && buf[12] != '\r'))
        return -1;
    r->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
    at = 0;
    while (buf[at] != '\n')
        at++;
    at++;
    while (at + 2 < head) { /* each header line up to the blank one */
        const char *line = buf + at;
        size_t n = 0;
        while (line[n] != '\r' || line[n + 1] != '\n')
            n++;
        if (!memchr(line, ':', n))
            return -1;
        if (is_header(line, n, "content-length")) {
            size_t i = strlen("content-length") + 1;
            while (i < n && line[i] == ' ')
                i++;
            if (i == n || has_length)
                return -1;
            for (; i < n; i++) {
                if (!is_digit((unsigned char)line[i]))
                    return -1;
                content_length = content_length * 10u + (size_t)(line[i] - '0');
                if (content_length > DEMO_HTTP_MAX)
                    return -1;
            }
            has_length = 1;
        } else if (is_header(line, n, "transfer-encoding")) {
            size_t i;
            for (i = 0; i + 7 <= n; i++)
                if (memcmp(line + i, "chunked", 7) == 0)
                    chunked = 1;
        }
        at += n + 2;
    }
    r->body = buf + head;
    if (chunked) {
        if (has_length)
            return -1;
        rc = chunks(buf, len, head, 0, &body_end);
        if (rc == 0)
            return len >= DEMO_HTTP_MAX || closed ? -1 : 0;
        if (rc < 0)
            return -1;
        chunks(buf, len, head, 1, &body_end);
        r->body_len = body_end - head;
        return 1;
    }
    if (has_length) {
        if (head + content_length > DEMO_HTTP_MAX)
            return -1;
        if (len < head + content_length)
            return closed ? -1 : 0;
        r->body_len = content_length;
        return 1;
    }
    if (r->status == 204 || r->status == 304 || r->status < 200) {
        r->body_len = 0;
        return 1;
    }
    /* Delimited by the close. */
    if (!closed)
        return len >= DEMO_HTTP_MAX ? -1 : 0;
    r->body_len = len - head;
    return 1;
}

int demo_http_parse_request(const char *buf, size_t len, char *path, size_t cap)
{
    size_t head = head_end(buf, len < DEMO_HTTP_MAX ? len : DEMO_HTTP_MAX), i, n;
    if (head == 0)
        return len >= DEMO_HTTP_MAX ? -1 : 0;
    if (head < 4 || memcmp(buf, "GET ", 4) != 0)
        return -1;
    for (i = 4; i < head && buf[i] > ' ' && buf[i] < 0x7f; i++)
        ;
    n = i - 4;
    if (n == 0 || n >= cap || i + 8 > head || memcmp(buf + i, " HTTP/1.", 8) != 0)
        return -1;
    memcpy(path, buf + 4, n);
    path[n] = '\0';
    return 1;
}

/* Offset just past `"name"` and the colon after it, searching json[from..len),
 * or 0 when absent. */
static size_t find_key(const char *json, size_t len, size_t from, const char *name)
{
    size_t k = strlen(name), i;
    for (i = from; i + k + 2 <= len; i++) {
        size_t at;
        if (json[i] != '"' || memcmp(json + i + 1, name, k) != 0 || json[i + k + 1] != '"')
            continue;
        at = i + k + 2;
        while (at < len && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' ||
                            json[at] == '\t'))
            at++;
        if (at < len && json[at] == ':') {
            at++;
            while (at < len && (json[at] == ' ' || json[at] == '\n' || json[at] == '\r' ||
                                json[at] == '\t'))
                at++;
            return at;
        }
    }
    return 0;
}

/* Where key's value starts (after `within`'s key when given), or 0. */
static size_t value_at(const char *json, size_t len, const char *within, const char *key)
{
    size_t from = 0;
    if (within && (from = find_key(json, len, 0, within)) == 0)
        return 0;
    return find_key(json, len, from, key);
}

int demo_json_string(const char *json, size_t len, const char *within, const char *key,
                     char *out, size_t cap)
{
    size_t at = value_at(json, len, within, key), n = 0;
    if (at == 0 || at >= len || json[at] != '"' || cap == 0)
        return 0;
    for (at++; at < len && json[at] != '"'; at++) {
        if (json[at] == '\\' || (unsigned char)json[at] < ' ' || n + 1 >= cap)
            return 0;
        out[n++] = json[at];
    }
    if (at == len)
        return 0;
    out[n] = '\0';
    return 1;
}

int demo_json_port(const char *json, size_t len, const char *within, const char *key,
                   unsigned *out)
{
    size_t at = value_at(json, len, within, key);
    unsigned v = 0;
    int digits = 0;
    if (at == 0)
        return 0;
    for (; at < len && is_digit((unsigned char)json[at]); at++, digits++) {
        v = v * 10u + (unsigned)(json[at] - '0');
        if (v > 65535u)
            return 0;
    }
    if (digits == 0)
        return 0;
    *out = v;
    return 1;
}
