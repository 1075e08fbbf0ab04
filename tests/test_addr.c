/* test_addr.c - address parsing, RFC 5952 formatting and ordering: fixed
 * vectors, rejects, and seeded round trips checked against an independent oracle. */
#include <string.h>

#include "zl_addr.h"
#include "zl_test.h"

/* Expected parse results are written as eight 16-bit groups, the way the
 * RFCs draw addresses, so each vector can be checked by eye. */
typedef struct v6_case {
    const char *text;
    uint16_t group[8];
    uint16_t port;
} v6_case;

static zl_addr from_groups(const uint16_t g[8], uint16_t port)
{
    uint8_t ip[16];
    int i;
    for (i = 0; i < 8; i++) {
        ip[2 * i] = (uint8_t)(g[i] >> 8);
        ip[2 * i + 1] = (uint8_t)(g[i] & 0xFF);
    }
    return zl_addr_ipv6(ip, port);
}

static void test_parse_ipv4_valid(void)
{
    static const struct {
        const char *text;
        uint8_t ip[4];
        uint16_t port;
    } cases[] = {
        {"0.0.0.0", {0, 0, 0, 0}, 0},
        {"127.0.0.1", {127, 0, 0, 1}, 0},
        {"255.255.255.255", {255, 255, 255, 255}, 0},
        {"192.168.1.20:27015", {192, 168, 1, 20}, 27015},
        {"10.0.0.1:65535", {10, 0, 0, 1}, 65535},
        {"1.2.3.4:0", {1, 2, 3, 4}, 0},
        {"9.99.199.249:1", {9, 99, 199, 249}, 1},
    };
    size_t i;
    for (i = 0; i < ZL_COUNTOF(cases); i++) {
        zl_addr a;
        zl_addr want = zl_addr_ipv4(cases[i].ip[0], cases[i].ip[1], cases[i].ip[2],
                                    cases[i].ip[3], cases[i].port);
        ZL_CHECK_EQ(zl_addr_parse(&a, cases[i].text), ZL_OK);
        if (!ZL_CHECK(zl_addr_equal(&a, &want)))
            zl_test_note("mismatch on \"%s\"", cases[i].text);
    }
}

static void test_parse_ipv6_valid(void)
{
    static const v6_case cases[] = {
        {"::", {0, 0, 0, 0, 0, 0, 0, 0}, 0},
        {"::1", {0, 0, 0, 0, 0, 0, 0, 1}, 0},
        {"1::", {1, 0, 0, 0, 0, 0, 0, 0}, 0},
        {"fe80::1", {0xfe80, 0, 0, 0, 0, 0, 0, 1}, 0},
        {"2001:db8::ff00:42:8329", {0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329}, 0},
        {"2001:0DB8:0000:0000:0000:FF00:0042:8329",
         {0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329}, 0},
        {"1:2:3:4:5:6:7:8", {1, 2, 3, 4, 5, 6, 7, 8}, 0},
        {"1:2:3:4:5:6:7::", {1, 2, 3, 4, 5, 6, 7, 0}, 0},
        {"::2:3:4:5:6:7:8", {0, 2, 3, 4, 5, 6, 7, 8}, 0},
        {"1:2:3::6:7:8", {1, 2, 3, 0, 0, 6, 7, 8}, 0},
        {"::ffff:1.2.3.4", {0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304}, 0},
        {"::ffff:0:255.0.0.1", {0, 0, 0, 0, 0xffff, 0, 0xff00, 0x0001}, 0},
        {"1:2:3:4:5:6:10.20.30.40", {1, 2, 3, 4, 5, 6, 0x0a14, 0x1e28}, 0},
        {"::10.20.30.40", {0, 0, 0, 0, 0, 0, 0x0a14, 0x1e28}, 0},
        {"[::1]:443", {0, 0, 0, 0, 0, 0, 0, 1}, 443},
        {"[2001:DB8::1]:65535", {0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}, 65535},
        {"[::]", {0, 0, 0, 0, 0, 0, 0, 0}, 0},
        {"[::ffff:127.0.0.1]:7", {0, 0, 0, 0, 0, 0xffff, 0x7f00, 0x0001}, 7},
        {"[1:2:3:4:5:6:7:8]:0", {1, 2, 3, 4, 5, 6, 7, 8}, 0},
    };
    size_t i;
    for (i = 0; i < ZL_COUNTOF(cases); i++) {
        zl_addr a;
        zl_addr want = from_groups(cases[i].group, cases[i].port);
        ZL_CHECK_EQ(zl_addr_parse(&a, cases[i].text), ZL_OK);
        if (!ZL_CHECK(zl_addr_equal(&a, &want)))
            zl_test_note("mismatch on \"%s\"", cases[i].text);
    }
}

static void test_parse_rejects(void)
{
    static const char *const bad[] = {
        "", " ", "1.2.3.4 ", " 1.2.3.4", "1.2.3", "1.2.3.4.5", "256.1.1.1",
        "1.2.3.256", "1.2.3.-1", "01.2.3.4", "1.2.3.04", "1..2.3", ".1.2.3.4",
        "1.2.3.4.", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:99999", "1.2.3.4:080",
        "1.2.3.4:+80", "1.2.3.4:-1", "1.2.3.4:8 0", "1.2.3.4:80x", "1.2.3.4::80",
        "1.2.3.0x4", "localhost", "example.com:80", ":", ":::", "::::", "1:::2",
        "1::2::3", "::1::", ":1", "1:", ":1::", "1::2:", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8", "12345::",
        "1::g", "fe80::1%eth0", "::ffff:1.2.3", "::ffff:1.2.3.4.5",
        "::ffff:256.1.1.1", "::1.2.3.4:5", "1.2.3.4::", "1:2:3:4:5:6:7:1.2.3.4",
        "::1.2.3.4:ffff", "[::1]:", "[::1]:65536", "[::1]80", "[::1",
        "::1]", "[]", "[]:80", "[1.2.3.4]:80", "[::1]:80x", "[[::1]]:80",
        "[::1]:80]", "::1:80:", "1.2.3.4\n",
    };
    size_t i;
    for (i = 0; i < ZL_COUNTOF(bad); i++) {
        zl_addr a;
        memset(&a, 0x5A, sizeof a);
        if (!ZL_CHECK_EQ(zl_addr_parse(&a, bad[i]), ZL_ERR_ADDRESS))
            zl_test_note("accepted \"%s\"", bad[i]);
        ZL_CHECK_EQ(a.family, ZL_ADDR_NONE);
        ZL_CHECK_EQ(a.port, 0);
    }
    {
        zl_addr a;
        memset(&a, 0x5A, sizeof a);
        ZL_CHECK_EQ(zl_addr_parse(&a, NULL), ZL_ERR_ADDRESS);
        ZL_CHECK_EQ(a.family, ZL_ADDR_NONE);
    }
}

static void check_format(const char *in, const char *want)
{
    zl_addr a;
    char buf[ZL_ADDR_TEXT_MAX];
    int n;
    ZL_CHECK_EQ(zl_addr_parse(&a, in), ZL_OK);
    n = zl_addr_format(&a, buf, sizeof buf);
    ZL_CHECK_EQ(n, (int)strlen(want));
    if (!ZL_CHECK(n >= 0 && strcmp(buf, want) == 0))
        zl_test_note("\"%s\" formatted as \"%s\", want \"%s\"", in, n >= 0 ? buf : "", want);
}

/* Expected outputs follow the examples and rules of RFC 5952 section 4/5. */
static void test_format_canonical(void)
{
    check_format("2001:0db8::0001", "2001:db8::1");
    check_format("2001:DB8::AbCd", "2001:db8::abcd");
    check_format("2001:db8:0:0:0:0:2:1", "2001:db8::2:1");
    check_format("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1");
    check_format("2001:db8::1:1:1:1:1", "2001:db8:0:1:1:1:1:1");
    check_format("2001:0:0:1:0:0:0:1", "2001:0:0:1::1");
    check_format("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1");
    check_format("0:0:1:0:0:1:0:0", "::1:0:0:1:0:0");
    check_format("1:0:0:2:0:0:0:0", "1:0:0:2::");
    check_format("0:0:0:0:0:0:0:0", "::");
    check_format("0:0:0:0:0:0:0:1", "::1");
    check_format("1:0:0:0:0:0:0:0", "1::");
    check_format("0:1:2:3:4:5:6:7", "0:1:2:3:4:5:6:7");
    check_format("1:2:3:4:5:6:7:0", "1:2:3:4:5:6:7:0");
    check_format("0:0:0:0:0:ffff:c000:0201", "::ffff:192.0.2.1");
    check_format("::FFFF:10.0.0.255", "::ffff:10.0.0.255");
    check_format("::ffff:0:0", "::ffff:0.0.0.0");
    check_format("0:0:0:0:1:ffff:c000:201", "::1:ffff:c000:201");
    check_format("::10.20.30.40", "::a14:1e28");
    check_format("[::1]:27015", "[::1]:27015");
    check_format("[::ffff:1.2.3.4]:1", "[::ffff:1.2.3.4]:1");
    check_format("[FFFF:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535",
                 "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535");
    check_format("[::1]:0", "::1");
    check_format("192.168.0.1", "192.168.0.1");
    check_format("192.168.0.1:0", "192.168.0.1");
    check_format("0.0.0.0:65535", "0.0.0.0:65535");
}

/* Text assembly for the oracles below, without stdio (bare-metal ports
 * run this suite without a heap). */
typedef struct sbuf {
    char c[128];
    size_t n;
} sbuf;

static void s_str(sbuf *b, const char *s)
{
    while (*s != '\0' && b->n + 1 < sizeof b->c)
        b->c[b->n++] = *s++;
    b->c[b->n] = '\0';
}

/* v in base 10 or 16, at least `width` digits, upper- or lowercase. */
static void s_num(sbuf *b, unsigned v, unsigned base, int width, int upper)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char tmp[12];
    int n = 0;
    do {
        tmp[n++] = digits[v % base];
        v /= base;
    } while (v != 0 || n < width);
    while (n > 0) {
        char one[2];
        one[0] = tmp[--n];
        one[1] = '\0';
        s_str(b, one);
    }
}

static void s_dotted(sbuf *b, const uint8_t ip[4])
{
    int i;
    for (i = 0; i < 4; i++) {
        if (i > 0)
            s_str(b, ".");
        s_num(b, ip[i], 10, 1, 0);
    }
}

static unsigned group_at(const uint8_t *ip, int g)
{
    return ((unsigned)ip[2 * g] << 8) | ip[2 * g + 1];
}

/* Reference formatter built a different way from the library's: write all
 * eight groups padded with colons, then replace the leftmost longest
 * ":0:0...:0:" (two or more zeros) by "::" with plain string search. */
static void oracle_format(const zl_addr *a, sbuf *out)
{
    sbuf full, host;
    const uint8_t *ip = a->ip;
    int i, k;

    out->n = 0;
    host.n = 0;
    if (a->family == ZL_ADDR_IPV4) {
        s_dotted(out, ip);
        if (a->port != 0) {
            s_str(out, ":");
            s_num(out, a->port, 10, 1, 0);
        }
        return;
    }
    if (memcmp(ip, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
        s_str(&host, "::ffff:");
        s_dotted(&host, ip + 12);
    } else {
        full.n = 0;
        s_str(&full, ":");
        for (i = 0; i < 8; i++) {
            s_num(&full, group_at(ip, i), 16, 1, 0);
            s_str(&full, ":");
        }
        s_str(&host, full.c);
        for (k = 8; k >= 2; k--) {
            sbuf pattern;
            const char *hit;
            pattern.n = 0;
            for (i = 0; i < k; i++)
                s_str(&pattern, ":0");
            s_str(&pattern, ":");
            hit = strstr(full.c, pattern.c);
            if (hit != NULL) {
                host.n = (size_t)(hit - full.c);
                host.c[host.n] = '\0';
                s_str(&host, "::");
                s_str(&host, hit + pattern.n);
                break;
            }
        }
        /* Drop the padding colons unless they now belong to a "::". */
        if (strncmp(host.c, "::", 2) != 0)
            memmove(host.c, host.c + 1, host.n--);
        if (host.n < 2 || strcmp(host.c + host.n - 2, "::") != 0)
            host.c[--host.n] = '\0';
    }
    if (a->port != 0) {
        s_str(out, "[");
        s_str(out, host.c);
        s_str(out, "]:");
        s_num(out, a->port, 10, 1, 0);
    } else {
        s_str(out, host.c);
    }
}

/* Random addresses biased towards zero groups so compression, ties and the
 * mapped form all occur often. */
static zl_addr random_addr(zl_test_rng *rng)
{
    uint8_t ip[16];
    uint16_t port = (uint16_t)(zl_test_rng_range(rng, 0, 3) == 0 ? 0 : zl_test_rng_range(rng, 0, 65535));
    int i;
    int kind = zl_test_rng_range(rng, 0, 9);
    if (kind < 3)
        return zl_addr_ipv4((uint8_t)zl_test_rng_u32(rng), (uint8_t)zl_test_rng_u32(rng),
                            (uint8_t)zl_test_rng_u32(rng), (uint8_t)zl_test_rng_u32(rng), port);
    for (i = 0; i < 8; i++) {
        uint32_t g = zl_test_rng_range(rng, 0, 2) == 0 ? zl_test_rng_u32(rng) : 0;
        if (zl_test_rng_range(rng, 0, 3) == 0)
            g &= 0xF; /* short groups exercise leading-zero removal */
        ip[2 * i] = (uint8_t)(g >> 8);
        ip[2 * i + 1] = (uint8_t)g;
    }
    if (kind == 3) {
        memset(ip, 0, 10);
        ip[10] = 0xFF;
        ip[11] = 0xFF;
    }
    return zl_addr_ipv6(ip, port);
}

static void test_roundtrip_random(void)
{
    zl_test_rng rng;
    int i, bad = 0;
    int iterations = ZL_TEST_ITERATIONS(20000);
    zl_test_rng_seed(&rng, 0xADD2E55u);
    for (i = 0; i < iterations; i++) {
        zl_addr a = random_addr(&rng), b;
        char text[ZL_ADDR_TEXT_MAX];
        sbuf want;
        int n = zl_addr_format(&a, text, sizeof text);
        oracle_format(&a, &want);
        if (n < 0 || strcmp(text, want.c) != 0 || (size_t)n != strlen(text) ||
            zl_addr_parse(&b, text) != ZL_OK || !zl_addr_equal(&a, &b)) {
            if (bad++ < 5)
                zl_test_note("round trip failed: got \"%s\", oracle \"%s\"", n >= 0 ? text : "", want.c);
        }
    }
    ZL_CHECK_EQ(bad, 0);
}

/* Non-canonical spellings of the same address (uppercase, zero padding, no
 * compression, dotted tail) must parse back to it. */
static void test_parse_noncanonical_random(void)
{
    zl_test_rng rng;
    int i, bad = 0;
    int iterations = ZL_TEST_ITERATIONS(5000);
    zl_test_rng_seed(&rng, 77);
    for (i = 0; i < iterations; i++) {
        zl_addr a = random_addr(&rng), b;
        sbuf text;
        int g;
        int dotted = zl_test_rng_range(&rng, 0, 1);
        if (a.family != ZL_ADDR_IPV6)
            continue;
        text.n = 0;
        text.c[0] = '\0';
        if (a.port != 0)
            s_str(&text, "[");
        for (g = 0; g < (dotted ? 6 : 8); g++) {
            if (g > 0)
                s_str(&text, ":");
            s_num(&text, group_at(a.ip, g), 16, 4, 1);
        }
        if (dotted) {
            s_str(&text, ":");
            s_dotted(&text, a.ip + 12);
        }
        if (a.port != 0) {
            s_str(&text, "]:");
            s_num(&text, a.port, 10, 1, 0);
        }
        if (zl_addr_parse(&b, text.c) != ZL_OK || !zl_addr_equal(&a, &b)) {
            if (bad++ < 5)
                zl_test_note("did not parse back: \"%s\"", text.c);
        }
    }
    ZL_CHECK_EQ(bad, 0);
}

/* Random junk built from address characters must never crash the parser,
 * and whatever it accepts must survive a format/parse round trip. */
static void test_parse_junk_random(void)
{
    static const char *const piece[] = {"0", "1", "7f", "ffff", "FFFF0", ":", "::", ".",
                                        "255", "256", "[", "]", ":80", "1.2.3.4", "00", "g"};
    zl_test_rng rng;
    int i, accepted = 0, bad = 0;
    int iterations = ZL_TEST_ITERATIONS(50000);
    zl_test_rng_seed(&rng, 4242);
    for (i = 0; i < iterations; i++) {
        char text[96] = "";
        int k, parts = zl_test_rng_range(&rng, 1, 10);
        zl_addr a, b;
        for (k = 0; k < parts; k++)
            strcat(text, piece[zl_test_rng_range(&rng, 0, (int32_t)ZL_COUNTOF(piece) - 1)]);
        if (zl_addr_parse(&a, text) == ZL_OK) {
            char out[ZL_ADDR_TEXT_MAX];
            accepted++;
            if (zl_addr_format(&a, out, sizeof out) < 0 || zl_addr_parse(&b, out) != ZL_OK ||
                !zl_addr_equal(&a, &b))
                bad++;
        } else if (a.family != ZL_ADDR_NONE) {
            bad++;
        }
    }
    zl_test_note("%d of %d junk strings were valid addresses", accepted, iterations);
    ZL_CHECK(accepted > 0);
    ZL_CHECK_EQ(bad, 0);
}

static void test_format_buffer_too_small(void)
{
    zl_addr a;
    char buf[ZL_ADDR_TEXT_MAX + 8];
    size_t cap;
    int len;
    ZL_CHECK_EQ(zl_addr_parse(&a, "[2001:db8::1]:443"), ZL_OK);
    len = zl_addr_format(&a, buf, sizeof buf);
    ZL_CHECK_EQ(len, 17);
    for (cap = 0; cap <= (size_t)len + 1; cap++) {
        size_t j;
        int r;
        memset(buf, '#', sizeof buf);
        r = zl_addr_format(&a, buf, cap);
        if (cap <= (size_t)len) {
            ZL_CHECK_EQ(r, ZL_ERR_OVERFLOW);
            if (cap > 0)
                ZL_CHECK_EQ(buf[0], '\0');
        } else {
            ZL_CHECK_EQ(r, len);
            ZL_CHECK(strcmp(buf, "[2001:db8::1]:443") == 0);
        }
        for (j = cap; j < sizeof buf; j++)
            ZL_CHECK_EQ(buf[j], '#');
    }
    ZL_CHECK_EQ(zl_addr_format(&a, NULL, 0), ZL_ERR_OVERFLOW);

    /* The longest possible text fits ZL_ADDR_TEXT_MAX exactly. */
    ZL_CHECK_EQ(zl_addr_parse(&a, "[ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]:65535"), ZL_OK);
    ZL_CHECK_EQ(zl_addr_format(&a, buf, ZL_ADDR_TEXT_MAX), ZL_ADDR_TEXT_MAX - 1);
    ZL_CHECK_EQ(zl_addr_format(&a, buf, ZL_ADDR_TEXT_MAX - 1), ZL_ERR_OVERFLOW);
}

static void test_format_invalid_family(void)
{
    zl_addr a;
    char buf[ZL_ADDR_TEXT_MAX];
    memset(&a, 0, sizeof a);
    buf[0] = 'x';
    ZL_CHECK_EQ(zl_addr_format(&a, buf, sizeof buf), ZL_ERR_INVALID);
    ZL_CHECK_EQ(buf[0], '\0');
    a.family = 5;
    ZL_CHECK_EQ(zl_addr_format(&a, buf, sizeof buf), ZL_ERR_INVALID);
}

static void test_constructors(void)
{
    static const uint8_t ip6[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    zl_addr a = zl_addr_ipv4(10, 1, 2, 3, 999);
    zl_addr b = zl_addr_ipv6(ip6, 7);
    int i;
    ZL_CHECK_EQ(a.family, ZL_ADDR_IPV4);
    ZL_CHECK_EQ(a.ip[0], 10);
    ZL_CHECK_EQ(a.ip[3], 3);
    ZL_CHECK_EQ(a.port, 999);
    for (i = 4; i < 16; i++)
        ZL_CHECK_EQ(a.ip[i], 0);
    ZL_CHECK_EQ(b.family, ZL_ADDR_IPV6);
    ZL_CHECK(memcmp(b.ip, ip6, 16) == 0);
    ZL_CHECK_EQ(b.port, 7);
}

/* Reference order written field by field, independent of the library. */
static int oracle_compare(const zl_addr *a, const zl_addr *b)
{
    int i;
    if (a->family != b->family)
        return a->family < b->family ? -1 : 1;
    for (i = 0; i < 16; i++)
        if (a->ip[i] != b->ip[i])
            return a->ip[i] < b->ip[i] ? -1 : 1;
    if (a->port != b->port)
        return a->port < b->port ? -1 : 1;
    return 0;
}

static int sign(int v)
{
    return (v > 0) - (v < 0);
}

static void test_compare_order(void)
{
    zl_test_rng rng;
    zl_addr pool[64];
    size_t i, j;
    int bad = 0;
    zl_addr lo = zl_addr_ipv4(1, 2, 3, 4, 5);
    zl_addr hi = zl_addr_ipv4(1, 2, 3, 4, 6);
    zl_addr v6;

    ZL_CHECK(zl_addr_compare(&lo, &hi) < 0);
    ZL_CHECK(zl_addr_compare(&hi, &lo) > 0);
    ZL_CHECK(!zl_addr_equal(&lo, &hi));
    hi = zl_addr_ipv4(1, 2, 3, 5, 0);
    ZL_CHECK(zl_addr_compare(&lo, &hi) < 0); /* ip outranks port */
    ZL_CHECK_EQ(zl_addr_parse(&v6, "::"), ZL_OK);
    ZL_CHECK(zl_addr_compare(&hi, &v6) < 0); /* family outranks ip */
    ZL_CHECK(zl_addr_equal(&lo, &lo));

    zl_test_rng_seed(&rng, 31337);
    for (i = 0; i < ZL_COUNTOF(pool); i++) {
        pool[i] = random_addr(&rng);
        /* Near-duplicates make the equal and port-only cases common. */
        if (i > 0 && zl_test_rng_range(&rng, 0, 3) == 0) {
            pool[i] = pool[i - 1];
            if (zl_test_rng_range(&rng, 0, 1) == 0)
                pool[i].port = (uint16_t)(pool[i].port + 1);
        }
    }
    for (i = 0; i < ZL_COUNTOF(pool); i++) {
        for (j = 0; j < ZL_COUNTOF(pool); j++) {
            int c = zl_addr_compare(&pool[i], &pool[j]);
            if (sign(c) != oracle_compare(&pool[i], &pool[j]) ||
                sign(c) != -sign(zl_addr_compare(&pool[j], &pool[i])) ||
                zl_addr_equal(&pool[i], &pool[j]) != (c == 0))
                bad++;
        }
    }
    ZL_CHECK_EQ(bad, 0);
}

void zl_suite_addr(void)
{
    ZL_RUN(test_parse_ipv4_valid);
    ZL_RUN(test_parse_ipv6_valid);
    ZL_RUN(test_parse_rejects);
    ZL_RUN(test_format_canonical);
    ZL_RUN(test_roundtrip_random);
    ZL_RUN(test_parse_noncanonical_random);
    ZL_RUN(test_parse_junk_random);
    ZL_RUN(test_format_buffer_too_small);
    ZL_RUN(test_format_invalid_family);
    ZL_RUN(test_constructors);
    ZL_RUN(test_compare_order);
}
