/* demo_http.h - the little HTTP/1.1 and JSON the server program speaks to its
 * fleet: bounded parsers for replies, requests and a few JSON fields. */
#ifndef DEMO_HTTP_H
#define DEMO_HTTP_H

#include <stddef.h>

/* The most bytes a reply or a request may take, headers and body: a larger
 * one is dropped and counted by its reader. */
#define DEMO_HTTP_MAX 8192

/* A reply: its status code and its body, which lies inside the buffer
 * parsed (a chunked body is joined in place). */
typedef struct demo_http_reply {
    int status;
    const char *body;
    size_t body_len;
} demo_http_reply;

/* Parses the reply in buf[0..len) (bytes as they came, any bytes fine).
 * closed: the peer has closed, so a body without a length ends here.
 * Returns 1 with *r filled once the reply is whole, 0 when more bytes are
 * needed, -1 when it is malformed (a bad status line or header, a length
 * or chunk out of range, a header block without end at DEMO_HTTP_MAX).
 * A chunked body is rewritten in place: buf is changed. */
int demo_http_parse_reply(char *buf, size_t len, int closed, demo_http_reply *r);

/* Parses a request in buf[0..len): 1 when its head is whole (the path of
 * its GET copied into path, cap bytes, terminated), 0 when more bytes are
 * needed, -1 when it is malformed, not a GET, or its path does not fit. */
int demo_http_parse_request(const char *buf, size_t len, char *path, size_t cap);

/* The value of the first "key" in json[0..len) that follows the first
 * "within" key (NULL: anywhere), as a string (copied to out, cap bytes,
 * terminated; escapes refused) or an unsigned number up to 65535.
 * Return 1, or 0 when absent, of another type or too long. A scanner,
 * not a JSON parser: enough for the GameServer object's status. */
int demo_json_string(const char *json, size_t len, const char *within, const char *key,
                     char *out, size_t cap);
int demo_json_port(const char *json, size_t len, const char *within, const char *key,
                   unsigned *out);

#endif
