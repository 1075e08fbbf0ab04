/* zl_addr.c - strict text parsing and RFC 5952 formatting of IPv4 and IPv6
 * endpoints, plus ordering. Pure C over caller memory: no sockets, no stdio. */
#include "zl_addr.h"

#include <string.h>

#include "zl_bytes.h"

/* Character classes are spelled out rather than taken from <ctype.h>: the
 * locale must not change what an address is, and a negative plain char must
 * never reach a table lookup. */
static int dec_digit(char c)
{
    return (c >= '0' && c <= '9') ? c - '0' : -1;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads a decimal number no larger than max. A leading zero is refused
 * ("010" is octal to inet_aton and decimal to others), so every accepted
 * string has exactly one meaning. Returns the first unread char or NULL. */
static const char *parse_dec(const char *p, uint32_t max, uint32_t *out)
{
    uint32_t v = 0;
    if (dec_digit(*p) < 0)
        return NULL;
    if (*p == '0' && dec_digit(p[1]) >= 0)
        return NULL;
    for (; dec_digit(*p) >= 0; p++) {
        v = v * 10u + (uint32_t)dec_digit(*p);
        if (v > max)
            return NULL;
    }
    *out = v;
    return p;
}

/* "a.b.c.d" into out[0..3]; returns the first unread char or NULL. */
static const char *parse_dotted(const char *p, uint8_t out[4])
{
    int i;
    for (i = 0; i < 4; i++) {
        uint32_t octet;
        if (i > 0) {
            if (*p != '.')
                return NULL;
            p++;
        }
        p = parse_dec(p, 255u, &octet);
        if (p == NULL)
            return NULL;
        out[i] = (uint8_t)octet;
    }
    return p;
}

/* One to four hex digits; a fifth digit makes the group invalid. */
static const char *parse_group(const char *p, uint16_t *out)
{
    uint32_t v = 0;
    int n;
    for (n = 0; n < 4 && hex_digit(*p) >= 0; n++, p++)
        v = (v << 4) | (uint32_t)hex_digit(*p);
    if (n == 0 || hex_digit(*p) >= 0)
        return NULL;
    *out = (uint16_t)v;
    return p;
}

/* An IPv6 literal occupying exactly [p, end). Groups before "::" fill from
 * the front, groups after it from the back; a dotted quad may only close
 * the address and counts as two groups. Returns 1 when valid. */
static int parse_ipv6(const char *p, const char *end, uint8_t out[16])
{
    uint16_t group[8];
    int count = 0;
    int gap = -1; /* group index where "::" stands, or -1 */
    int i;

    if (p == end)
        return 0;
    if (*p == ':') {
        if (p + 1 == end || p[1] != ':')
            return 0;
        gap = 0;
        p += 2;
    }
    while (p != end) {
        uint8_t quad[4];
        const char *q = parse_dotted(p, quad);
        if (q == end) {
            if (count > 6)
                return 0;
            group[count++] = zl_get_be16(quad);
            group[count++] = zl_get_be16(quad + 2);
            p = q;
            break;
        }
        if (count == 8)
            return 0;
        p = parse_group(p, &group[count]);
        if (p == NULL)
            return 0;
        count++;
        if (p == end)
            break;
        if (*p != ':' || p + 1 == end)
            return 0; /* junk, or a lone trailing ':' */
        p++;
        if (*p == ':') {
            if (gap >= 0)
                return 0; /* a second "::" would make the layout ambiguous */
            gap = count;
            p++;
        }
    }
    if (p != end)
        return 0;
    /* "::" stands for at least one zero group (RFC 4291 2.2). */
    if (gap >= 0 ? count > 7 : count != 8)
        return 0;

    memset(out, 0, 16);
    for (i = 0; i < count; i++) {
        int slot = (gap >= 0 && i >= gap) ? i + (8 - count) : i;
        zl_put_be16(out + 2 * slot, group[i]);
    }
    return 1;
}

/* ":port" at p, then the end of the string. */
static int parse_port_tail(const char *p, uint16_t *port)
{
    uint32_t v;
    if (*p == '\0') {
        *port = 0;
        return 1;
    }
    if (*p != ':')
        return 0;
    p = parse_dec(p + 1, 65535u, &v);
    if (p == NULL || *p != '\0')
        return 0;
    *port = (uint16_t)v;
    return 1;
}

int zl_addr_parse(zl_addr *out, const char *text)
{
    zl_addr a;
    const char *p;

    ZL_ASSERT(out != NULL);
    memset(out, 0, sizeof *out);
    memset(&a, 0, sizeof a);
    if (text == NULL)
        return ZL_ERR_ADDRESS;

    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (close == NULL || !parse_ipv6(text + 1, close, a.ip) ||
            !parse_port_tail(close + 1, &a.port))
            return ZL_ERR_ADDRESS;
        a.family = ZL_ADDR_IPV6;
    } else if ((p = parse_dotted(text, a.ip)) != NULL) {
        /* A dotted quad can never start a valid IPv6 literal, so this
         * branch settles "a.b.c.d:port" without ambiguity. */
        if (!parse_port_tail(p, &a.port))
            return ZL_ERR_ADDRESS;
        a.family = ZL_ADDR_IPV4;
    } else {
        if (!parse_ipv6(text, text + strlen(text), a.ip))
            return ZL_ERR_ADDRESS;
        a.family = ZL_ADDR_IPV6;
    }
    *out = a;
    return ZL_OK;
}

/* Text is assembled in a local buffer and copied out only when it fits, so
 * a short caller buffer never receives half an address. */
typedef struct text {
    char c[ZL_ADDR_TEXT_MAX];
    size_t n;
} text;

static void put_char(text *t, char c)
{
    t->c[t->n++] = c;
}

static void put_str(text *t, const char *s)
{
    while (*s != '\0')
        put_char(t, *s++);
}

static void put_dec(text *t, uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    while (n > 0)
        put_char(t, digits[--n]);
}

static void put_hex(text *t, uint32_t v)
{
    static const char hex[] = "0123456789abcdef";
    int shift = 12;
    while (shift > 0 && ((v >> shift) & 0xFu) == 0)
        shift -= 4;
    for (; shift >= 0; shift -= 4)
        put_char(t, hex[(v >> shift) & 0xFu]);
}

static void put_dotted(text *t, const uint8_t ip[4])
{
    int i;
    for (i = 0; i < 4; i++) {
        if (i > 0)
            put_char(t, '.');
        put_dec(t, ip[i]);
    }
}

static void put_ipv6(text *t, const uint8_t ip[16])
{
    static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    uint32_t group[8];
    int best = -1, best_len = 1; /* RFC 5952 4.2.2: a single zero group stays */
    int run = 0;
    int i;

    if (memcmp(ip, mapped_prefix, sizeof mapped_prefix) == 0) {
        put_str(t, "::ffff:");
        put_dotted(t, ip + 12);
        return;
    }
    for (i = 0; i < 8; i++) {
        group[i] = zl_get_be16(ip + 2 * i);
        run = group[i] == 0 ? run + 1 : 0;
        /* Strictly longer only, so the first of equal runs wins (4.2.3). */
        if (run > best_len) {
            best_len = run;
            best = i - run + 1;
        }
    }
    for (i = 0; i < 8; i++) {
        if (i == best) {
            put_str(t, "::");
            i += best_len - 1;
            continue;
        }
        if (i > 0 && i != best + best_len)
            put_char(t, ':');
        put_hex(t, group[i]);
    }
}

int zl_addr_format(const zl_addr *a, char *buf, size_t cap)
{
    text t;

    ZL_ASSERT(a != NULL);
    ZL_ASSERT(buf != NULL || cap == 0);
    if (cap > 0)
        buf[0] = '\0';
    t.n = 0;
    if (a->family == ZL_ADDR_IPV4) {
        put_dotted(&t, a->ip);
        if (a->port != 0) {
            put_char(&t, ':');
            put_dec(&t, a->port);
        }
    } else if (a->family == ZL_ADDR_IPV6) {
        if (a->port != 0)
            put_char(&t, '[');
        put_ipv6(&t, a->ip);
        if (a->port != 0) {
            put_str(&t, "]:");
            put_dec(&t, a->port);
        }
    } else {
        return ZL_ERR_INVALID;
    }
    if (t.n + 1 > cap)
        return ZL_ERR_OVERFLOW;
    memcpy(buf, t.c, t.n);
    buf[t.n] = '\0';
    return (int)t.n;
}

int zl_addr_compare(const zl_addr *a, const zl_addr *b)
{
    int d;
    ZL_ASSERT(a != NULL && b != NULL);
    if (a->family != b->family)
        return a->family < b->family ? -1 : 1;
    /* Network byte order makes bytewise order the numeric order. */
    d = memcmp(a->ip, b->ip, sizeof a->ip);
    if (d != 0)
        return d < 0 ? -1 : 1;
    if (a->port != b->port)
        return a->port < b->port ? -1 : 1;
    return 0;
}

/* The port first: a server looks every datagram's sender up among its
 * slots, and ports tell most addresses apart at once. */
int zl_addr_equal(const zl_addr *a, const zl_addr *b)
{
    ZL_ASSERT(a != NULL && b != NULL);
    return a->port == b->port && a->family == b->family &&
           memcmp(a->ip, b->ip, sizeof a->ip) == 0;
}

zl_addr zl_addr_ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint16_t port)
{
    zl_addr r;
    memset(&r, 0, sizeof r);
    r.family = ZL_ADDR_IPV4;
    r.ip[0] = a;
    r.ip[1] = b;
    r.ip[2] = c;
    r.ip[3] = d;
    r.port = port;
    return r;
}

zl_addr zl_addr_ipv6(const uint8_t ip[16], uint16_t port)
{
    zl_addr r;
    ZL_ASSERT(ip != NULL);
    memset(&r, 0, sizeof r);
    r.family = ZL_ADDR_IPV6;
    memcpy(r.ip, ip, sizeof r.ip);
    r.port = port;
    return r;
}
