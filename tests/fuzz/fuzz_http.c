/* fuzz_http.c - libFuzzer harness for the server program's HTTP and JSON
 * parsers (examples/demo/demo_http.c): hostile sidecar replies, scraper
 * requests and GameServer bodies. FUZZ_MAX_LEN: 12000 */
#include "zl_fuzz.h"

/* The parser lives with the program that uses it; it is plain C with no
 * dependency, so the harness compiles it in. */
#include "../../examples/demo/demo_http.c"

/* A whole reply's body lies inside the buffer, within the bounds. */
static void reply(const uint8_t *data, size_t size, int closed)
{
    char *buf = (char *)zl_fuzz_copy(data, size);
    demo_http_reply r;
    int rc = demo_http_parse_reply(buf, size, closed, &r);
    REQUIRE(rc >= -1 && rc <= 1);
    if (rc == 1) {
        REQUIRE(r.status >= 0 && r.status <= 999);
        REQUIRE(r.body >= buf && r.body + r.body_len <= buf + size);
        REQUIRE(r.body_len <= DEMO_HTTP_MAX);
    }
    /* A reply whole while the peer is open stays whole once it closes. */
    if (rc == 1 && !closed) {
        char *again = (char *)zl_fuzz_copy(data, size);
        REQUIRE(demo_http_parse_reply(again, size, 1, &r) == 1);
        free(again);
    }
    free(buf);
}

static void request(const uint8_t *data, size_t size)
{
    char path[16];
    const char *buf = (const char *)zl_fuzz_copy(data, size);
    int rc = demo_http_parse_request(buf, size, path, sizeof path);
    REQUIRE(rc >= -1 && rc <= 1);
    if (rc == 1)
        REQUIRE(strlen(path) > 0 && strlen(path) < sizeof path);
    free((void *)buf);
}

static void json(const uint8_t *data, size_t size)
{
    char out[8];
    unsigned port = 70000u;
    const char *buf = (const char *)zl_fuzz_copy(data, size);
    if (demo_json_string(buf, size, "status", "state", out, sizeof out))
        REQUIRE(strlen(out) < sizeof out);
    if (demo_json_port(buf, size, "ports", "port", &port))
        REQUIRE(port <= 65535u);
    else
        REQUIRE(port == 70000u);
    demo_json_string(buf, size, NULL, "address", out, sizeof out);
    free((void *)buf);
}

/* Byte 0 picks the parser; the rest is the input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] % 4u) {
    case 0: reply(data + 1, size - 1, 0); break;
    case 1: reply(data + 1, size - 1, 1); break;
    case 2: request(data + 1, size - 1); break;
    default: json(data + 1, size - 1); break;
    }
    return 0;
}
