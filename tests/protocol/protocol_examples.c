/* protocol_examples.c - the packets docs/PROTOCOL.md quotes: two short matches
 * (one plain, one with connect tokens) between a real server and real clients,
 * run from fixed keys, nonces, times and a fixed seed, captured off the wire.
 * Each chosen datagram is printed as a named hex dump, then read field by
 * field by a decoder written from the document alone (it shares no code with
 * the library's readers: it only uses the library's ciphers, the game's
 * field tables, and the schema's extrapolation and moved set, which both
 * ends compute from the states they hold). tools/check-protocol-doc.sh compares this output with the
 * fenced blocks of the document. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fps.h"
#include "zerolag.h"

/* ---- Fixed inputs ---- */

#define START_US 10000000u       /* the server's clock when it starts */
#define TICK_US 15625u           /* 64 Hz */
#define UNIX_START_S 1700000000u /* Unix time at START_US (token run) */
#define NONCE_A 0x1122334455667788u
#define NONCE_B 0x0102030405060708u
#define NONCE_C 0xA1A2A3A4A5A6A7A8u
#define SCRIPT_SEED 0x2545F491u

/* 32 bytes, byte i = first + i: keys and secrets anyone can retype. */
static void counting(uint8_t *out, size_t n, uint8_t first)
{
    size_t i;
    for (i = 0; i < n; i++)
        out[i] = (uint8_t)(first + i);
}

/* ---- A network that records every datagram ----
 * Endpoint 0 is the server, 1 and 2 clients. Each datagram is kept as sent;
 * the receiver gets a copy (a sealed packet is opened in place). */

#define ENDPOINTS 3
#define LOG_MAX 256

typedef struct endpoint {
    int index;
    zl_addr addr;
} endpoint;

typedef struct datagram {
    int from, to;
    size_t len;
    uint8_t bytes[ZL_MAX_PACKET];
} datagram;

static endpoint ends[ENDPOINTS];
static datagram wire[LOG_MAX];
static int wire_count, wire_delivered;

static int capture(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    const endpoint *from = (const endpoint *)ctx;
    datagram *d;
    int i, dest = -1;
    for (i = 0; i < ENDPOINTS; i++)
        if (zl_addr_equal(&ends[i].addr, to))
            dest = i;
    if (dest < 0 || wire_count == LOG_MAX || len > ZL_MAX_PACKET)
        return ZL_ERR_IO;
    d = &wire[wire_count++];
    d->from = from->index;
    d->to = dest;
    d->len = len;
    memcpy(d->bytes, data, len);
    return ZL_OK;
}

static zl_platform platform_of(endpoint *e)
{
    zl_platform p;
    memset(&p, 0, sizeof p);
    p.ctx = e;
    p.send = capture;
    return p;
}

/* ---- The match ---- */

static fps_game game_state;
static zl_game game;
static zl_server server;
static zl_client clients[ENDPOINTS - 1];
static int client_count;
static uint64_t now_us;
static uint32_t rng_state = SCRIPT_SEED;

static uint8_t next_seed(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return (uint8_t)rng_state;
}

/* Delivers everything sent so far, and what the deliveries send, at now_us. */
static void pump(void)
{
    static uint8_t copy[ZL_MAX_PACKET];
    while (wire_delivered < wire_count) {
        const datagram *d = &wire[wire_delivered++];
        memcpy(copy, d->bytes, d->len);
        if (d->to == 0)
            zl_server_receive(&server, &ends[d->from].addr, copy, d->len, now_us);
        else
            zl_client_receive(&clients[d->to - 1], &ends[0].addr, copy, d->len, now_us);
    }
}

static void start_match(const zl_server_config *sc)
{
    uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE];
    zl_platform p;
    int i;
    memset(ends, 0, sizeof ends);
    for (i = 0; i < ENDPOINTS; i++)
        ends[i].index = i;
    ends[0].addr = zl_addr_ipv4(192, 0, 2, 1, 27015);
    ends[1].addr = zl_addr_ipv4(198, 51, 100, 7, 50000);
    ends[2].addr = zl_addr_ipv4(203, 0, 113, 9, 50001);
    wire_count = wire_delivered = 0;
    client_count = 0;
    now_us = START_US;
    fps_game_init(&game_state);
    game = fps_game_interface(&game_state);
    counting(secret, sizeof secret, 0xA0);
    p = platform_of(&ends[0]);
    if (zl_server_init(&server, sc, &game, &p, secret, now_us) != ZL_OK)
        printf("server init failed\n");
}

static zl_client *add_client(uint64_t nonce)
{
    zl_client_config cc;
    zl_client *c = &clients[client_count];
    zl_platform p = platform_of(&ends[client_count + 1]);
    zl_client_config_default(&cc);
    /* Blocks to the server take 1600 bytes a second: the block example
     * goes in pieces of a chunk, alone and then beside the commands. */
    cc.block_rate = 1600u;
    if (zl_client_init(c, &cc, &game, &p, nonce) != ZL_OK)
        printf("client init failed\n");
    client_count++;
    return c;
}

/* One server tick: the server runs it and sends, the clients take it in. */
static void server_step(void)
{
    int i;
    now_us += TICK_US;
    zl_server_update(&server, now_us);
    pump();
    for (i = 0; i < client_count; i++)
        zl_client_frame(&clients[i], now_us);
}

/* The clients send what is due (commands at cmdrate, messages). */
static void clients_send(void)
{
    int i;
    for (i = 0; i < client_count; i++)
        zl_client_update(&clients[i], now_us);
    pump();
}

static void play(int i, uint16_t msec, int8_t forward, uint16_t buttons, zl_angle yaw)
{
    zl_usercmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.msec = msec;
    cmd.forward = forward;
    cmd.buttons = buttons;
    cmd.yaw = yaw;
    cmd.seed = next_seed();
    if (zl_client_command(&clients[i], &cmd, NULL) != ZL_OK)
        printf("command refused\n");
}

/* The nth (0 first) datagram from -> to of `type` (byte 4). */
static const datagram *find(int from, int to, uint8_t type, int nth)
{
    int i;
    for (i = 0; i < wire_count; i++)
        if (wire[i].from == from && wire[i].to == to && (wire[i].bytes[4] & 31u) == type &&
            nth-- == 0)
            return &wire[i];
    printf("missing datagram %d -> %d type %u\n", from, to, type);
    return NULL;
}

/* ---- Output: named blocks as the document quotes them ---- */

static void hex_block(const char *name, const uint8_t *p, size_t n)
{
    size_t line, i;
    printf("```hex example=%s\n", name);
    for (line = 0; line < n; line += 16u) {
        printf("%04x ", (unsigned)line);
        for (i = line; i < n && i < line + 16u; i++)
            printf(" %02x", p[i]);
        printf("\n");
    }
    printf("```\n");
}

/* One line of a reading: where (bytes "0-3", or bits "164+68"), what, value. */
static void row(const char *where, const char *field, const char *fmt, ...)
{
    va_list ap;
    printf("%-9s %-24s ", where, field);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

static void hex_text(char *out, const uint8_t *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = '\0';
}

/* ---- The decoder, from the document ---- */

static uint32_t le(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;
    while (n-- > 0)
        v = v << 8 | p[n];
    return v;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le(p + 4, 4) << 32 | le(p, 4);
}

/* CRC-32 (reflected 0xEDB88320), a bit at a time; crc 0 starts. */
static uint32_t crc32_of(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n-- > 0) {
        int k;
        crc ^= *p++;
        for (k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static const char *const type_names[] = {
    "REQUEST",  "CHALLENGE", "RESPONSE",      "ACCEPT",         "DENY",     "KEEPALIVE",
    "DISCONNECT", "COMMANDS", "SNAPSHOT",     "SETTINGS",       "TOKEN_REQUEST",
    "TOKEN_RESPONSE", "RELIABLE", "PATH_CHALLENGE", "PATH_RESPONSE", "CONTROL", "BLOCK"};

/* A header read from its type byte: the fields as the receiver widens
 * them, and the same header written long (what the CRC and the associated
 * data cover). */
typedef struct header {
    unsigned type_byte, sequence, ack, end;
    uint32_t ack_bits;
    uint8_t long_form[9];
    unsigned long_len;
} header;

/* The 16-bit value with the low 8 bits `low` within -128..+127 of ref. */
static unsigned widen8(unsigned low, unsigned ref)
{
    return (ref + (unsigned)(int)(int8_t)(uint8_t)(low - ref)) & 0xFFFFu;
}

static int newer16(unsigned a, unsigned b)
{
    unsigned d = (a - b) & 0xFFFFu;
    return d != 0 && d < 0x8000u;
}

/* Reads the header at byte `at`, short fields (flags 0x40, 0x80) widened
 * against seq_ref and ack_ref. */
static void read_header(const uint8_t *p, unsigned at, unsigned seq_ref, unsigned ack_ref,
                        header *h)
{
    unsigned i = at + 1u;
    h->type_byte = p[at];
    if (p[at] & 0x40u) {
        h->sequence = widen8(p[i++], seq_ref);
    } else {
        h->sequence = le(p + i, 2);
        i += 2;
    }
    if (p[at] & 0x80u) {
        h->ack = widen8(p[i++], ack_ref);
    } else {
        h->ack = le(p + i, 2);
        i += 2;
    }
    h->ack_bits = 0xFFFFFFFFu;
    if (!(p[at] & 0x20u)) {
        h->ack_bits = le(p + i, 4);
        i += 4;
    }
    h->end = i;
    h->long_form[0] = p[at];
    h->long_form[1] = (uint8_t)h->sequence;
    h->long_form[2] = (uint8_t)(h->sequence >> 8);
    h->long_form[3] = (uint8_t)h->ack;
    h->long_form[4] = (uint8_t)(h->ack >> 8);
    for (i = 0; i < 4u; i++)
        h->long_form[5 + i] = (uint8_t)(h->ack_bits >> (8u * i));
    h->long_len = p[at] & 0x20u ? 5u : 9u;
}

/* 1 when d is a connectionless packet: its CRC under the protocol id
 * (connectionless packets never have short fields). */
static int connectionless(const datagram *d)
{
    uint8_t idb[4];
    unsigned i;
    for (i = 0; i < 4u; i++)
        idb[i] = (uint8_t)((uint32_t)ZL_PROTOCOL_ID >> (8u * i));
    return d->len > 4 && !(d->bytes[4] & 0xC0u) &&
           crc32_of(crc32_of(0, idb, 4), d->bytes + 4, d->len - 4) == le(d->bytes, 4);
}

/* Reads d's header at byte `at` as its receiver does: its references are
 * the newest sequence and the newest ack (of a header with ack_bits not
 * 0) of the packets that came before on the same connection, the same
 * way. */
static void receive_header(const datagram *d, unsigned at, header *h, unsigned *seq_ref,
                           unsigned *ack_ref)
{
    header e;
    int i;
    *seq_ref = *ack_ref = 0;
    for (i = 0; &wire[i] != d; i++) {
        if (wire[i].from != d->from || wire[i].to != d->to || connectionless(&wire[i]))
            continue;
        read_header(wire[i].bytes, at, *seq_ref, *ack_ref, &e);
        if (newer16(e.sequence, *seq_ref))
            *seq_ref = e.sequence;
        if (e.ack_bits != 0 && newer16(e.ack, *ack_ref))
            *ack_ref = e.ack;
    }
    read_header(d->bytes, at, *seq_ref, *ack_ref, h);
}

/* Prints a sequence or ack at byte i, short or long, as widened (value)
 * from the reference ref; returns the byte after it. */
static unsigned field_row(const uint8_t *p, unsigned i, unsigned is_short, const char *name,
                          unsigned value, unsigned ref, const char *ref_name)
{
    char where[16];
    if (is_short) {
        row(sprintf(where, "%u", i) ? where : "", name, "%u: low 8 bits 0x%02x nearest %u, %s",
            value, p[i], ref, ref_name);
        return i + 1u;
    }
    row(sprintf(where, "%u-%u", i, i + 1u) ? where : "", name, "%u", value);
    return i + 2u;
}

/* Prints the header of d from its type byte, at byte `at`: type,
 * sequence, ack, and ack_bits unless the flag 0x20 says they are all
 * ones. */
static void header_rows(const datagram *d, unsigned at, header *h)
{
    char where[16];
    unsigned seq_ref, ack_ref, i = at + 1u;
    unsigned type = d->bytes[at] & 31u;
    receive_header(d, at, h, &seq_ref, &ack_ref);
    row(sprintf(where, "%u", at) ? where : "", "type", "%u %s%s%s%s", type,
        type < 17 ? type_names[type] : "?", d->bytes[at] & 0x20u ? ", ack_bits all ones (0x20)" : "",
        d->bytes[at] & 0x40u ? ", short sequence (0x40)" : "",
        d->bytes[at] & 0x80u ? ", short ack (0x80)" : "");
    i = field_row(d->bytes, i, d->bytes[at] & 0x40u, "sequence", h->sequence, seq_ref,
                  "the newest received");
    i = field_row(d->bytes, i, d->bytes[at] & 0x80u, "ack", h->ack, ack_ref, "the newest ack taken");
    if (d->bytes[at] & 0x20u)
        row("", "ack_bits", "0xffffffff, not sent");
    else
        row(sprintf(where, "%u-%u", i, i + 3u) ? where : "", "ack_bits", "0x%08x", h->ack_bits);
}

/* A plain packet's header: its CRC under `id`. Returns its length. */
static size_t plain_header(const datagram *d, uint32_t id, const char *id_name)
{
    uint8_t idb[4];
    uint32_t crc;
    header h;
    idb[0] = (uint8_t)id;
    idb[1] = (uint8_t)(id >> 8);
    idb[2] = (uint8_t)(id >> 16);
    idb[3] = (uint8_t)(id >> 24);
    printf("byte      field                    value\n");
    receive_header(d, 4, &h, &crc, &crc);
    crc = crc32_of(crc32_of(crc32_of(0, idb, 4), h.long_form, h.long_len), d->bytes + h.end,
                   d->len - h.end);
    row("0-3", "crc32", "0x%08x, CRC-32 of %s 0x%08x (4 bytes LE), the header from byte 4 "
        "written long, then bytes %u-%u: %s",
        le(d->bytes, 4), id_name, id, h.end, (unsigned)d->len - 1u,
        crc == le(d->bytes, 4) ? "matches" : "MISMATCH");
    header_rows(d, 4, &h);
    return h.end;
}

/* Bits of a payload, least significant first, bit b in byte b / 8. */
typedef struct bits_in {
    const uint8_t *p;
    size_t size;
    uint32_t at;
    int cut; /* a read ran past the end */
} bits_in;

static void bits_start(bits_in *b, const uint8_t *p, size_t size)
{
    b->p = p;
    b->size = size;
    b->at = 0;
    b->cut = 0;
    printf("payload bits (bit b is bit b%%8 of payload byte b/8)\n");
    printf("bit+len   field                    value\n");
}

static uint32_t pull(bits_in *b, unsigned n)
{
    uint32_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++, b->at++) {
        if (b->at / 8u >= b->size)
            b->cut = 1;
        else
            v |= (((uint32_t)b->p[b->at / 8u] >> (b->at % 8u)) & 1u) << i;
    }
    return v;
}


/* Reads n bits; `where` gets their place as "bit+len". */
static uint32_t take(bits_in *b, unsigned n, char *where)
{
    sprintf(where, "%u+%u", (unsigned)b->at, n);
    return pull(b, n);
}

static uint32_t show(bits_in *b, unsigned n, const char *field)
{
    char where[24];
    uint32_t v = take(b, n, where);
    row(where, field, "%u", (unsigned)v);
    return v;
}

static uint32_t show_hex(bits_in *b, unsigned n, const char *field)
{
    char where[24];
    uint32_t v = take(b, n, where);
    row(where, field, "0x%0*x", (int)(n + 3u) / 4, (unsigned)v);
    return v;
}

static uint64_t show64(bits_in *b, const char *field)
{
    char where[24];
    uint32_t lo, hi;
    sprintf(where, "%u+64", (unsigned)b->at);
    lo = pull(b, 32);
    hi = pull(b, 32);
    row(where, field, "0x%08x%08x", (unsigned)hi, (unsigned)lo);
    return (uint64_t)hi << 32 | lo;
}

static unsigned width_of(uint32_t max_code)
{
    unsigned n = 0;
    while (n < 32u && (max_code >> n) != 0)
        n++;
    return n;
}

/* An integer in [lo, hi]: the code v - lo in the width of hi - lo. */
static int32_t show_ranged(bits_in *b, int32_t lo, int32_t hi, const char *field)
{
    char where[24];
    uint32_t code = take(b, width_of((uint32_t)hi - (uint32_t)lo), where);
    int64_t v = (int64_t)lo + code;
    row(where, field, "code %u = %ld", (unsigned)code, (long)v);
    return (int32_t)v;
}

/* The bits up to end_bit, which must be zero. */
static void padding(bits_in *b, uint32_t end_bit)
{
    char where[24];
    uint32_t n = end_bit - b->at, nonzero = 0;
    if (n == 0)
        return;
    sprintf(where, "%u+%u", (unsigned)b->at, (unsigned)n);
    while (b->at < end_bit)
        nonzero |= pull(b, 1);
    row(where, "padding", nonzero ? "NOT ZERO" : "zero");
}

static void byte_padding(bits_in *b)
{
    padding(b, (b->at + 7u) & ~7u);
}

static void end_payload(bits_in *b)
{
    padding(b, (uint32_t)b->size * 8u);
    if (b->cut)
        printf("CUT SHORT\n");
}

/* ---- Handshake payloads ---- */

static void settings(bits_in *b)
{
    show_ranged(b, 1, 1000, "updaterate");
    show_ranged(b, 1, 1000, "cmdrate");
    show_ranged(b, 1000, 10000000, "rate");
    show_ranged(b, 0, 1000000, "interp_us");
    show_ranged(b, 1, 10, "interp_ratio");
}

static uint64_t challenge_fields(bits_in *b)
{
    uint64_t cookie;
    show64(b, "nonce");
    show(b, 32, "window");
    cookie = show64(b, "cookie");
    return cookie;
}

static uint32_t accept_fields(bits_in *b)
{
    uint32_t tick;
    show64(b, "nonce");
    show(b, 16, "slot");
    show(b, 16, "tick_rate");
    tick = show(b, 32, "server_tick");
    settings(b);
    return tick;
}

static void reason(bits_in *b, const char *const *names, unsigned count)
{
    char where[24];
    uint32_t r;
    show64(b, "nonce");
    r = take(b, 8, where);
    row(where, "reason", "%u %s", (unsigned)r, r < count ? names[r] : "?");
}

/* ---- Schema deltas ---- */

/* A field as one audience receives it. */
typedef struct wire_field {
    const zl_field *f;
    unsigned width;    /* bits of a full code */
    unsigned shift;    /* FX, ANGLE: the raw value is the code shifted up this far */
    uint32_t max_code;
    uint32_t zero;     /* the code of the value 0: the zero state's */
} wire_field;

#define FIELDS_MAX 32

static int64_t clamp_to(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The fields of s an audience receives (shared: a client other than the
 * state's owner), in table order; returns how many. */
static unsigned wire_fields(const zl_schema *s, int shared, wire_field *out)
{
    unsigned n = 0, i;
    for (i = 0; i < s->count && n < FIELDS_MAX; i++) {
        const zl_field *f = &s->fields[i];
        wire_field *w = &out[n];
        unsigned bits = (unsigned)f->bits - (shared ? f->coarse : 0u);
        if ((f->flags & ZL_LOCAL) || (shared && (f->flags & ZL_OWNER)))
            continue;
        w->f = f;
        w->shift = 0;
        w->zero = 0;
        if (f->kind == ZL_FIELD_KIND_FX) {
            int64_t half;
            w->shift = 16u - bits;
            half = w->shift ? (int64_t)1 << (w->shift - 1u) : 0;
            w->max_code = ((uint32_t)f->max - (uint32_t)f->min) >> w->shift;
            w->zero = (uint32_t)((clamp_to(0, f->min, f->max) - f->min + half) >> w->shift);
        } else if (f->kind == ZL_FIELD_KIND_INT) {
            w->max_code = (uint32_t)f->max - (uint32_t)f->min;
            w->zero = (uint32_t)(clamp_to(0, f->min, f->max) - f->min);
        } else if (f->kind == ZL_FIELD_KIND_ANGLE) {
            w->shift = 16u - bits;
            w->max_code = (1u << bits) - 1u;
        } else {
            w->max_code = bits >= 32u ? 0xFFFFFFFFu : (1u << bits) - 1u;
        }
        w->width = width_of(w->max_code);
        n++;
    }
    return n;
}

/* Q16.16 as an exact decimal. */
static void units(char *out, int64_t raw)
{
    uint64_t mag = (uint64_t)(raw < 0 ? -raw : raw), frac = mag & 0xFFFFu;
    int n = sprintf(out, "%s%lu", raw < 0 ? "-" : "", (unsigned long)(mag >> 16));
    if (frac)
        out[n++] = '.';
    while (frac) {
        frac *= 10u;
        out[n++] = (char)('0' + (int)(frac >> 16));
        frac &= 0xFFFFu;
    }
    out[n] = '\0';
}

/* What a code stands for. */
static void meaning(char *out, const wire_field *w, uint32_t code)
{
    const zl_field *f = w->f;
    if (f->kind == ZL_FIELD_KIND_FX) {
        units(out, (int64_t)f->min + ((int64_t)code << w->shift));
        strcat(out, " units");
    } else if (f->kind == ZL_FIELD_KIND_INT) {
        sprintf(out, "%ld", (long)((int64_t)f->min + code));
    } else if (f->kind == ZL_FIELD_KIND_ANGLE) {
        sprintf(out, "%lu/65536 turn", (unsigned long)code << w->shift);
    } else {
        sprintf(out, "0x%x", (unsigned)code);
    }
}

/* A ZL_DELTA field's open-ended code: the signed difference. */
static int32_t open_delta(bits_in *b, const char *label)
{
    static const unsigned longer[4] = {8, 12, 16, 32};
    char where[24];
    uint32_t z, cls;
    if (!take(b, 1, where)) {
        row(where, label, "0: difference 0");
        return 0;
    }
    row(where, label, "1: not zero");
    z = take(b, 4, where);
    if (z != 0) {
        row(where, label, "zigzag %u", (unsigned)z);
    } else {
        row(where, label, "0: a longer code follows");
        cls = take(b, 2, where);
        row(where, label, "class %u: %u bits", (unsigned)cls, longer[cls]);
        z = take(b, longer[cls], where);
        row(where, label, "zigzag %u", (unsigned)z);
    }
    return (int32_t)((z >> 1) ^ (0u - (z & 1u)));
}

/* The sizes that set a value's parameter (10.2): the previous value's
 * width(u), or none yet, or a state coded against nothing. */
#define SIZE_NONE 0xFFu
#define SIZE_ALONE 0xFEu

/* One changed value against the base code; *size as above; `step` the
 * width of the field's folded step from the older frame (10.2), 0 for
 * none; `on` says what the base code is ("" for the base's own). */
static uint32_t changed_value(bits_in *b, const wire_field *w, uint32_t base, unsigned *size,
                              unsigned step, const char *on)
{
    const zl_field *f = w->f;
    char where[24], text[64], label[48];
    uint32_t code;
    unsigned k, j = 0, at;
    if (f->flags & ZL_DELTA) {
        int32_t d;
        sprintf(label, "%s delta", f->name);
        d = open_delta(b, label);
        code = base + (uint32_t)d;
        meaning(text, w, code);
        row("", f->name, "%+ld -> code %u = %s", (long)d, (unsigned)code, text);
        return code;
    }
    if (f->kind == ZL_FIELD_KIND_FLAGS || *size == SIZE_ALONE) {
        code = take(b, w->width, where);
        meaning(text, w, code);
        row(where, f->name, "%s", text);
        return code;
    }
    if (step != 0)
        k = step - 1u < 20u ? step - 1u : 20u;
    else
        k = *size == SIZE_NONE ? w->width / 4u : (w->width / 4u + *size) / 2u;
    sprintf(label, "%s class", f->name);
    at = b->at;
    while (j < 8u && pull(b, 1))
        j++;
    sprintf(where, "%u+%u", at, (unsigned)(b->at - at));
    if (j == 8u) {
        row(where, label, "8 ones: whole code");
        code = take(b, w->width, where);
        *size = w->width;
        meaning(text, w, code);
        row(where, f->name, "code %u = %s", (unsigned)code, text);
    } else {
        uint32_t u;
        int32_t d;
        row(where, label, "%u (k %u%s): %u bits", j, k, step ? ", the step's" : "", j + k);
        u = (take(b, j + k, where) | (1u << (j + k))) - (1u << k);
        *size = width_of(u);
        d = (int32_t)((u >> 1) ^ (0u - (u & 1u)));
        code = base + (uint32_t)d;
        if (f->kind == ZL_FIELD_KIND_ANGLE)
            code &= w->max_code;
        meaning(text, w, code);
        row(where, f->name, "u %u: %+ld%s -> code %u = %s", (unsigned)u, (long)d, on,
            (unsigned)code, text);
    }
    return code;
}

/* The place of the last changed field among n (10.2): with w = width(n -
 * 1) and u = 2^w - n, w - 1 bits v, and when v >= u one more bit b for
 * the place u + 2 (v - u) + b. */
static uint32_t last_place(bits_in *b, unsigned n, char *where)
{
    unsigned at = b->at, w = width_of(n - 1u), u = (1u << w) - n;
    uint32_t v = n > 1u ? pull(b, w - 1u) : 0u;
    if (n > 1u && v >= u)
        v = u + 2u * (v - u) + pull(b, 1);
    sprintf(where, "%u+%u", at, (unsigned)(b->at - at));
    return v;
}

/* One state as zl_schema_write_delta codes it: the audience's fields of s
 * against the base codes (NULL: the zero state); the new codes into codes.
 * `known`: the code of a snapshot update, without its changed bit; `mv`
 * (or NULL): the moved set of a known change and its steps (10.2);
 * `stood` (or NULL): the base frame's codes when base is their
 * extrapolation (9.3). */
static void read_state(bits_in *b, const zl_schema *s, int shared, const uint32_t *base,
                       uint32_t *codes, int known, const zl_moved *mv, const uint32_t *stood)
{
    wire_field w[FIELDS_MAX];
    unsigned n = wire_fields(s, shared, w), i;
    char where[24], label[48], on[FIELDS_MAX][48];
    uint32_t last, moved = mv ? mv->set : 0u;
    unsigned size = base ? SIZE_NONE : SIZE_ALONE, step[FIELDS_MAX] = {0};
    for (i = 0; i < n; i++) {
        codes[i] = base ? base[i] : w[i].zero;
        on[i][0] = '\0';
        if (stood && stood[i] != codes[i])
            sprintf(on[i], " on the extrapolated %u (base %u)", (unsigned)codes[i],
                    (unsigned)stood[i]);
        if (mv && i < 32u)
            step[i] = mv->step[i];
    }
    if (!known) {
        if (!take(b, 1, where)) {
            row(where, "changed", "0: nothing changed");
            return;
        }
        row(where, "changed", "1");
    }
    if (moved != 0 && take(b, 1, where)) {
        for (last = 0; moved >> last > 1u; last++)
            continue;
        row(where, "moved", "1: exactly the fields moved since the older frame changed, "
                            "the last %s", w[last].f->name);
        for (i = 0; i <= last; i++)
            if ((moved >> i) & 1u)
                codes[i] = changed_value(b, &w[i], codes[i], &size, step[i], on[i]);
        return;
    }
    if (moved != 0)
        row(where, "moved", "0: not only the fields moved since the older frame changed");
    last = last_place(b, n, where);
    row(where, "last changed", "%u of %u: %s", (unsigned)last, n,
        last < n ? w[last].f->name : "OUT OF RANGE");
    for (i = 0; i <= last && i < n; i++) {
        if (i < last) {
            uint32_t c = take(b, 1, where);
            sprintf(label, "%s changed", w[i].f->name);
            row(where, label, "%u", (unsigned)c);
            if (!c)
                continue;
        }
        codes[i] = changed_value(b, &w[i], codes[i], &size, step[i], on[i]);
    }
}

/* ---- Commands ---- */

static void commands_payload(bits_in *b)
{
    uint32_t prev[FIELDS_MAX], codes[FIELDS_MAX], first = 0;
    char where[24];
    int32_t count, i;
    uint32_t v = take(b, 1, where);
    row(where, "need_full", "%u", (unsigned)v);
    v = take(b, 16, where);
    row(where, "view_delay", "%u x 32 us = %u us", (unsigned)v, (unsigned)v * 32u);
    count = show_ranged(b, 0, ZL_CMDSTREAM_MAX_PER_PACKET, "count");
    if (count > 0)
        first = show(b, 16, "first sequence");
    for (i = 0; i < count; i++) {
        row("", "command", "sequence %u (low 16 bits)", (unsigned)((first + (uint32_t)i) & 0xFFFFu));
        read_state(b, &zl_usercmd_schema, 0, i > 0 ? prev : NULL, codes, 0, NULL, NULL);
        memcpy(prev, codes, sizeof prev);
    }
    end_payload(b);
}

/* ---- Snapshots ---- */

/* What the decoder holds of a snapshot it decoded: the base of later ones. */
typedef struct seen_frame {
    int used;
    uint32_t tick;
    int has_ref;      /* the events reference (9.2): a delta's starts as its base's */
    uint32_t ref;
    uint8_t present[ZL_MAX_ENTITIES];
    uint32_t codes[ZL_MAX_ENTITIES][FIELDS_MAX];
} seen_frame;

static seen_frame frames[4];
static int frame_next;

/* The exponential-Golomb code (9.3): n < 5 zeros, a one, n bits v for
 * 2^n - 1 + v; five zeros escape to `wide` bits of the number. */
static uint32_t golomb_code(bits_in *b, unsigned wide, char *where)
{
    uint32_t at = b->at, n = 0, v;
    while (n < 5u && pull(b, 1) == 0)
        n++;
    if (n == 5u)
        v = pull(b, wide);
    else
        v = (1u << n) - 1u + pull(b, n);
    sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
    return v;
}

static uint32_t gap_code(bits_in *b, char *where)
{
    return golomb_code(b, width_of(ZL_MAX_ENTITIES - 1u), where);
}

/* An event's age: 0 as a 0 bit, 1..4 as [1][0] and 2 bits, else [1][1] and 8 bits. */
/* An age: an exp-Golomb code (n 0 bits, a 1 bit, n bits). */
static uint32_t age_code(bits_in *b, char *where)
{
    uint32_t at = b->at, n = 0, age;
    while (!b->cut && !pull(b, 1))
        n++;
    age = (1u << n) + pull(b, n) - 1u;
    sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
    return age;
}

/* The code of a stored value, as section 10.1 gives it. */
static uint32_t code_of(const wire_field *w, int64_t v)
{
    const zl_field *f = w->f;
    int64_t half = w->shift ? (int64_t)1 << (w->shift - 1u) : 0;
    if (f->kind == ZL_FIELD_KIND_FX)
        return (uint32_t)((clamp_to(v, f->min, f->max) - f->min + half) >> w->shift);
    if (f->kind == ZL_FIELD_KIND_INT)
        return (uint32_t)(clamp_to(v, f->min, f->max) - f->min);
    if (f->kind == ZL_FIELD_KIND_ANGLE)
        return (uint32_t)((v + half) >> w->shift) & w->max_code;
    return (uint32_t)v & w->max_code;
}

/* A field's stored value in a struct, and back. */
static int64_t load(const zl_field *f, const void *state)
{
    const uint8_t *p = (const uint8_t *)state + f->offset;
    int32_t i4;
    int16_t i2;
    uint16_t u2;
    if (f->size == 4) {
        memcpy(&i4, p, 4);
        return f->kind == ZL_FIELD_KIND_FLAGS ? (int64_t)(uint32_t)i4 : i4;
    }
    if (f->size == 2) {
        memcpy(&i2, p, 2);
        memcpy(&u2, p, 2);
        return f->min < 0 ? i2 : u2;
    }
    return f->min < 0 ? (int8_t)*p : *p;
}

static void store(const zl_field *f, void *state, int64_t v)
{
    uint8_t *p = (uint8_t *)state + f->offset;
    int32_t i4 = (int32_t)v;
    uint16_t u2 = (uint16_t)v;
    if (f->size == 4)
        memcpy(p, &i4, 4);
    else if (f->size == 2)
        memcpy(p, &u2, 2);
    else
        *p = (uint8_t)v;
}

/* A state of s (its s->size bytes) holding what an audience's codes stand
 * for (10.1), every other field 0. */
static void state_of(const zl_schema *s, int shared, const uint32_t *codes, void *state)
{
    wire_field w[FIELDS_MAX];
    unsigned n = wire_fields(s, shared, w), i;
    memset(state, 0, s->size);
    for (i = 0; i < n; i++) {
        const zl_field *f = w[i].f;
        int64_t v = f->kind == ZL_FIELD_KIND_FX || f->kind == ZL_FIELD_KIND_INT ? f->min : 0;
        store(f, state, v + ((int64_t)codes[i] << w[i].shift));
    }
}

/* The codes an audience receives of a state of s. */
static void codes_of(const zl_schema *s, int shared, const void *state, uint32_t *codes)
{
    wire_field w[FIELDS_MAX];
    unsigned n = wire_fields(s, shared, w), i;
    for (i = 0; i < n; i++)
        codes[i] = code_of(&w[i], load(w[i].f, state));
}

/* The codes of the FPS's event base `which` of player `source`, from its
 * shared codes in a frame (9.2, section 12). */
static void event_base_codes(const uint32_t *player, int32_t source, uint32_t which,
                             uint32_t *codes)
{
    const zl_game rules = fps_game_interface(NULL);
    fps_player p;
    zl_event base;
    memset(&base, 0, sizeof base);
    state_of(&fps_player_schema, 1, player, &p);
    rules.event_base(&p, source, which, &base);
    codes_of(&fps_event_schema, 0, &base, codes);
}

/* A state of any of the FPS's entity tables. */
typedef union any_state {
    fps_player player;
    fps_entity entity;
} any_state;

/* An entry's base (9.3): `predicted` the codes it is coded against (its
 * state in the base frame, extrapolated from the older frame's when that
 * holds the entity too), and its moved set (10.2) into *mv. Returns 1
 * when an extrapolated field moved (predicted then differs from base). */
static int entry_base(const zl_schema *s, int shared, const uint32_t *base, const uint32_t *older,
                      uint32_t ahead, uint32_t behind, uint32_t *predicted, zl_moved *mv)
{
    any_state b, o, out;
    int which = shared ? ZL_SCHEMA_SHARED : ZL_SCHEMA_WIRE, moved;
    state_of(s, shared, base, &b);
    state_of(s, shared, older, &o);
    zl_schema_moved(s, &b, &o, which, mv);
    moved = zl_schema_extrapolate(s, &out, &b, &o, ahead, behind, which);
    codes_of(s, shared, moved ? &out : &b, predicted);
    return moved;
}

/* The first id against the frame's reference: after a 0 bit an
 * exp-Golomb code (n 0 bits, a 1 bit, n bits) of id - reference. */
static uint32_t near_id(bits_in *b, uint32_t ref, char *where)
{
    uint32_t at = b->at, n = 0, d;
    while (!b->cut && !pull(b, 1))
        n++;
    d = (1u << n) + pull(b, n) - 1u;
    sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
    row(where, "id", "%u: the reference %u + %u", (unsigned)(ref + d), (unsigned)ref,
        (unsigned)d);
    return ref + d;
}

static void events_section(bits_in *b, uint32_t tick)
{
    uint32_t codes[FIELDS_MAX], base[FIELDS_MAX], id = 0, count = 0;
    seen_frame *f = &frames[(frame_next + 3) % 4]; /* the one entity_section just made */
    char where[24];
    while (take(b, 1, where)) {
        uint32_t follows = 0, age;
        row(where, "event", "1: an event follows");
        if (count > 0) {
            follows = take(b, 1, where);
            row(where, "follows", follows ? "1: id = previous + 1" : "0: its id follows");
        }
        if (follows) {
            id++;
            row("", "id", "%u", (unsigned)id);
        } else if (count == 0 && f->has_ref && !take(b, 1, where)) {
            row(where, "id form", "0: near the reference");
            id = near_id(b, f->ref, where);
        } else {
            if (count == 0 && f->has_ref)
                row(where, "id form", "1: its low 16 bits follow");
            id = take(b, 16, where);
            row(where, "id", "%u (low 16 bits)", (unsigned)id);
        }
        age = age_code(b, where);
        row(where, "age", "%u: tick %u", (unsigned)age, (unsigned)(tick - age));
        int32_t source = -1, which = 0;
        uint32_t held = 0, rank, e, n;
        for (e = 0; e < ZL_MAX_ENTITIES; e++)
            held += f->present[e];
        if (take(b, 1, where)) {
            row(where, "held", "1: the frame holds the source");
            rank = take(b, width_of(held - 1u), where);
            for (e = 0, n = rank; e < ZL_MAX_ENTITIES && source < 0; e++)
                if (f->present[e] && n-- == 0)
                    source = (int32_t)e;
            row(where, "source", "rank %u of the %u entities held: entity %d", (unsigned)rank,
                (unsigned)held, (int)source);
        } else {
            row(where, "held", "0: the source follows whole");
            source = show_ranged(b, -1, ZL_MAX_ENTITIES - 1, "source");
        }
        if (source >= 0 && f->present[source]) {
            if (take(b, 1, where)) {
                which = 1;
                row(where, "base", "1: base 1, a footstep where the source stands");
            } else {
                row(where, "base", "0: another base follows");
                which = (int32_t)take(b, 1, where);
                which = which ? which + 1 : 0;
                row(where, "base", which == 0 ? "0: the zero event"
                                              : "1: base 2, a shot from the source's eye along its view");
            }
            if (which == 1 || which == 2)
                event_base_codes(f->codes[source], source, (uint32_t)which, base);
        }
        read_state(b, &fps_event_schema, 0, which == 1 || which == 2 ? base : NULL, codes, 0, NULL,
                   NULL);
        count++;
    }
    row(where, "event", "0: end of the events");
    if (count > 0) {
        f->has_ref = 1;
        f->ref = id + 1u;
    }
}

static const seen_frame *frame_of(uint32_t tick)
{
    int i;
    for (i = 0; i < 4; i++)
        if (frames[i].used && frames[i].tick == tick)
            return &frames[i];
    return NULL;
}

static void entity_section(bits_in *b, uint32_t tick, int delta, uint32_t own)
{
    seen_frame *f = &frames[frame_next++ % 4];
    const seen_frame *base = NULL, *older_frame = NULL;
    char where[24];
    uint32_t count, code, held = 0, i, e = 0, age = 0, older = 0;
    memset(f, 0, sizeof *f);
    if (delta) {
        uint32_t at;
        age = take(b, width_of(ZL_SNAPSHOT_WORLD_TICKS - 1u), where);
        base = frame_of(tick - age);
        row(where, "base_age", "%u: against the snapshot of tick %u%s", (unsigned)age,
            (unsigned)(tick - age), base ? "" : " (NOT HELD)");
        /* 1 the base age; 0 1 then 0 one less, 1 one more; 0 0 and 6 bits. */
        at = b->at;
        if (pull(b, 1))
            older = age;
        else if (pull(b, 1))
            older = pull(b, 1) ? age + 1u : age - 1u;
        else
            older = pull(b, width_of(ZL_SNAPSHOT_WORLD_TICKS - 1u));
        sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
        if (older == 0)
            row(where, "older_age", "0: nothing extrapolated");
        else {
            older_frame = frame_of(tick - age - older);
            row(where, "older_age", "%u%s: moving fields extrapolated from tick %u%s",
                (unsigned)older, older == age ? ", the base age" : "",
                (unsigned)(tick - age - older), older_frame ? "" : " (NOT HELD)");
        }
        if (base)
            memcpy(f, base, sizeof *f);
        for (i = 0; i < ZL_MAX_ENTITIES; i++)
            held += f->present[i] != 0;
    }
    /* The count against the base's entities: 0 the same, then one fewer,
     * one more, two fewer, ... */
    code = golomb_code(b, width_of(ZL_MAX_ENTITIES) + 1u, where);
    count = code & 1u ? held - (code + 1u) / 2u : held + code / 2u;
    row(where, "count", "%u entries: code %u against the base's %u entities", (unsigned)count,
        (unsigned)code, (unsigned)held);
    for (i = 0; i < count && !b->cut; i++) {
        /* The head: 1 the next number, entering or changed (kind 1); 01
         * the next number, another kind, its leading 0 left out; 00 then
         * the gap less 1. */
        uint32_t at = b->at, gap;
        int shared, joint = (int)pull(b, 1), next = joint || pull(b, 1);
        const char *zero = next ? "(0)" : "0"; /* the kind's leading 0 */
        const uint32_t *against = NULL, *stood = NULL;
        uint32_t predicted[FIELDS_MAX];
        zl_moved mv, *moved = NULL;
        const zl_schema *schema;
        gap = next ? 0u : gap_code(b, where) + 1u;
        sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
        e = i > 0 ? e + 1u + gap : gap;
        shared = e != own;
        row(where, "head", "%s: gap %u, entity %u (%s, %s fields)",
            joint ? "1" : next ? "01" : "00 then gap - 1", (unsigned)gap, (unsigned)e,
            e < ZL_MAX_CLIENTS ? "player" : "server entity", shared ? "shared" : "all wire");
        if (e >= ZL_MAX_ENTITIES)
            return;
        schema = e < ZL_MAX_CLIENTS ? &fps_player_schema : &fps_entity_schema;
        if (base && base->present[e]) {
            const char *line = ""; /* what the base state is */
            if (older_frame && older_frame->present[e]) {
                moved = &mv;
                if (entry_base(schema, shared, base->codes[e], older_frame->codes[e], age, older,
                               predicted, &mv)) {
                    stood = base->codes[e];
                    line = ", extrapolated";
                }
            }
            against = stood ? predicted : base->codes[e];
            at = b->at;
            if (joint) {
                row("", "kind", "1 (the head): changed against its state in the base%s", line);
            } else if (gap != 0 && pull(b, 1)) {
                sprintf(where, "%u+1", (unsigned)at);
                row(where, "kind", "1: changed against its state in the base%s", line);
            } else if (pull(b, 1)) {
                sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
                row(where, "kind", "%s then 1: its state in the base%s, nothing changed", zero,
                    line);
                memcpy(f->codes[e], against, sizeof f->codes[e]);
                continue;
            } else if (!pull(b, 1)) {
                sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
                row(where, "kind", "%s, 0, 0: it leaves", zero);
                f->present[e] = 0;
                continue;
            } else {
                sprintf(where, "%u+%u", (unsigned)at, (unsigned)(b->at - at));
                row(where, "kind", "%s, 0, 1: against the zero state", zero);
                against = NULL;
                moved = NULL;
                stood = NULL;
            }
        } else {
            row("", "kind", "none (not in the base): enters against the zero state");
        }
        read_state(b, schema, shared, against, f->codes[e], against != NULL, moved, stood);
        f->present[e] = 1;
    }
    f->tick = tick;
    f->used = 1;
}

/* The header's tick: after a 0 bit all 32 bits; after a 1 bit its low 16
 * bits, the tick nearest the newest frame decoded that has them. */
static uint32_t snapshot_tick(bits_in *b, int *delta)
{
    char where[24];
    uint32_t newest = 0, low, tick;
    int i, have = 0;
    *delta = (int)take(b, 1, where);
    if (!*delta) {
        row(where, "delta", "0: the whole tick follows");
        return show(b, 32, "tick");
    }
    row(where, "delta", "1: the tick's low 16 bits follow");
    for (i = 0; i < 4; i++)
        if (frames[i].used && (!have || (int32_t)(frames[i].tick - newest) > 0)) {
            newest = frames[i].tick;
            have = 1;
        }
    low = take(b, 16, where);
    tick = newest - 32768u + ((low - (newest - 32768u)) & 0xFFFFu);
    row(where, "tick", "%u: low bits %u, nearest the newest frame %u%s", (unsigned)tick,
        (unsigned)low, (unsigned)newest, have ? "" : " (NONE HELD)");
    return tick;
}

/* The command of the newest snapshot read: a delta's widens against it. */
static uint32_t newest_executed;

/* The header's command: a full snapshot's 32 bits; a delta's, after a 0
 * bit, its low 6 bits, the command from the newest one read up with them. */
static void snapshot_executed(bits_in *b, int delta)
{
    char where[24];
    uint32_t low;
    if (!delta || take(b, 1, where)) {
        if (delta)
            row(where, "executed form", "1: all 32 bits follow");
        newest_executed = show(b, 32, "executed");
        return;
    }
    row(where, "executed form", "0: its low 6 bits follow");
    low = take(b, 6, where);
    newest_executed += (low - newest_executed) & 63u;
    row(where, "executed", "%u: low bits %u, from the newest read up", (unsigned)newest_executed,
        (unsigned)low);
}

static void snapshot_payload(bits_in *b, uint32_t own)
{
    int delta;
    uint32_t tick = snapshot_tick(b, &delta);
    snapshot_executed(b, delta);
    byte_padding(b);
    entity_section(b, tick, delta, own);
    events_section(b, tick);
    end_payload(b);
}

/* ---- Reliable messages ---- */

static void reliable_payload(bits_in *b)
{
    char where[24], text[ZL_RELIABLE_MESSAGE_MAX + 1];
    uint32_t count = show(b, 6, "count"), first = show(b, 16, "first id"), i, k;
    for (i = 0; i < count && !b->cut; i++) {
        uint32_t offset = take(b, 5, where), len;
        row(where, "offset", "%u: message %u", (unsigned)offset, (unsigned)(first + offset));
        len = take(b, width_of(ZL_RELIABLE_MESSAGE_MAX), where);
        row(where, "length", "%u bytes", (unsigned)len);
        sprintf(where, "%u+%u", (unsigned)b->at, (unsigned)len * 8u);
        for (k = 0; k < len && k < ZL_RELIABLE_MESSAGE_MAX; k++)
            text[k] = (char)pull(b, 8);
        text[k] = '\0';
        row(where, "bytes", "\"%s\"", text);
    }
    end_payload(b);
}

/* ---- Blocks ---- */

/* A BLOCK payload: the section (header, then the runs' bytes), then the
 * message inside, read as its type's. */
static void block_payload(bits_in *b)
{
    char where[24];
    uint32_t inner, total, runs, i, first[4], count[4];
    unsigned chunk_bits = width_of(ZL_BLOCK_CHUNKS - 1u);
    inner = take(b, 5, where);
    row(where, "inner", "%u %s", (unsigned)inner, inner == 0 ? "none" : type_names[inner]);
    show(b, 16, "block");
    total = take(b, width_of(ZL_BLOCK_MAX - 1u), where) + 1u;
    row(where, "total - 1", "%u: %u bytes, %u chunks of %u", (unsigned)(total - 1u),
        (unsigned)total, (unsigned)((total + ZL_BLOCK_CHUNK - 1u) / ZL_BLOCK_CHUNK),
        (unsigned)ZL_BLOCK_CHUNK);
    runs = take(b, 2, where) + 1u;
    row(where, "runs - 1", "%u: %u run%s", (unsigned)(runs - 1u), (unsigned)runs,
        runs > 1u ? "s" : "");
    for (i = 0; i < runs; i++) {
        first[i] = take(b, chunk_bits, where);
        row(where, "first chunk", "%u", (unsigned)first[i]);
        count[i] = take(b, chunk_bits, where) + 1u;
        row(where, "chunks - 1", "%u: chunks %u to %u", (unsigned)(count[i] - 1u),
            (unsigned)first[i], (unsigned)(first[i] + count[i] - 1u));
    }
    byte_padding(b);
    for (i = 0; i < runs; i++) {
        uint32_t from = first[i] * ZL_BLOCK_CHUNK, to = (first[i] + count[i]) * ZL_BLOCK_CHUNK;
        char text[48];
        uint32_t k, n;
        if (to > total)
            to = total;
        n = to - from;
        sprintf(where, "%u+%u", (unsigned)b->at, (unsigned)n * 8u);
        for (k = 0; k < n; k++) {
            uint32_t c = pull(b, 8);
            if (k < sizeof text - 4u)
                text[k] = c >= 32u && c < 127u ? (char)c : '.';
        }
        text[k < sizeof text - 4u ? k : sizeof text - 4u] = '\0';
        if (n > sizeof text - 4u)
            strcat(text, "...");
        row(where, "block bytes", "%u-%u: \"%s\"", (unsigned)from, (unsigned)(to - 1u), text);
    }
    if (inner == ZL_MSG_COMMANDS)
        commands_payload(b);
    else
        end_payload(b);
}

/* ---- Connect tokens and sealing ---- */

static void address_row(const char *where, const char *field, const uint8_t *a)
{
    if (a[0] == 4)
        row(where, field, "family 4, %u.%u.%u.%u, port %u", a[1], a[2], a[3], a[4], le(a + 17, 2));
    else
        row(where, field, "family %u%s", a[0], a[0] == 0 ? " (unused, all zero)" : "");
}

/* Four addresses of 19 bytes from `offset`. */
static void addresses(const uint8_t *p, unsigned offset)
{
    char where[24], field[24];
    unsigned i;
    for (i = 0; i < 4u; i++) {
        sprintf(where, "%u-%u", offset + 19u * i, offset + 19u * i + 18u);
        sprintf(field, "address %u", i);
        address_row(where, field, p + offset + 19u * i);
    }
}

static void key_row(const char *where, const char *field, const uint8_t *p, size_t n)
{
    char text[2 * 32 + 1];
    hex_text(text, p, n);
    row(where, field, "%s", text);
}

static void token_fields(const uint8_t *t, const uint8_t private_key[32])
{
    uint8_t aad[12], plain[409];
    char text[256 + 1];
    unsigned i;
    printf("byte      field                    value\n");
    row("0-3", "protocol_id", "0x%08x", (unsigned)le(t, 4));
    row("4-11", "create_s", "%lu", (unsigned long)le64(t + 4));
    row("12-19", "expire_s", "%lu", (unsigned long)le64(t + 12));
    key_row("20-43", "nonce", t + 20, 24);
    row("44-468", "sealed private part", "425 bytes: 409 encrypted, then the 16-byte tag");
    row("469-472", "timeout_s", "%u", (unsigned)le(t + 469, 4));
    row("473", "address_count", "%u", t[473]);
    addresses(t, 474);
    key_row("550-581", "client_key", t + 550, 32);
    key_row("582-613", "server_key", t + 582, 32);
    memcpy(aad, t, 4);
    memcpy(aad + 4, t + 12, 8);
    key_row("", "associated data", aad, sizeof aad);
    if (zl_xchacha20poly1305_open(plain, sizeof plain, t + 44, 425, aad, sizeof aad, t + 20,
                                  private_key) != (int)sizeof plain) {
        row("", "private part", "DOES NOT OPEN");
        return;
    }
    printf("private part, opened with the private key (byte offsets in it)\n");
    row("0-7", "client_id", "0x%016lx", (unsigned long)le64(plain));
    row("8-11", "timeout_s", "%u", (unsigned)le(plain + 8, 4));
    row("12", "address_count", "%u", plain[12]);
    addresses(plain, 13);
    key_row("89-120", "client_key", plain + 89, 32);
    key_row("121-152", "server_key", plain + 121, 32);
    for (i = 0; i < 256u && plain[153 + i] != 0; i++)
        text[i] = (char)plain[153 + i];
    text[i] = '\0';
    row("153-408", "user_data", "\"%s\", then %u zero bytes", text, 256u - i);
}

/* The tag a reply to a token holder ends with, checked. */
static void reply_tag(const uint8_t *payload, size_t body, uint8_t type, uint64_t cookie,
                      uint32_t tick, const uint8_t key[32])
{
    uint8_t nonce[24];
    char where[24];
    memset(nonce, 0, sizeof nonce);
    memcpy(nonce, "zlreply", 7);
    nonce[7] = type;
    for (unsigned i = 0; i < 8u; i++)
        nonce[8 + i] = (uint8_t)(cookie >> (8u * i));
    for (unsigned i = 0; i < 4u; i++)
        nonce[16 + i] = (uint8_t)(tick >> (8u * i));
    printf("byte      field                    value\n");
    sprintf(where, "%u-%u", 13u + (unsigned)body, 13u + (unsigned)body + 15u);
    key_row(where, "tag", payload + body, 16);
    key_row("", "tag nonce", nonce, sizeof nonce);
    row("", "tag check",
        zl_xchacha20poly1305_open(NULL, 0, payload + body, 16, payload, body, nonce, key) == 0
            ? "verifies under the token's server_key"
            : "DOES NOT VERIFY");
}

/* Opens a sealed packet into plain; returns the plaintext's length. The
 * client's packets carry the connection id in clear (id_sent), the
 * server's start with the type byte; the associated data holds it either
 * way. */
static size_t open_sealed(const datagram *d, int id_sent, uint64_t nonce_of_conn,
                          const uint8_t key[32], uint8_t *plain)
{
    const uint8_t *p = d->bytes;
    size_t len = d->len;
    uint8_t aad[17], nonce[12];
    char where[24];
    uint32_t id = ZL_PROTOCOL_ID ^ (uint32_t)nonce_of_conn ^ (uint32_t)(nonce_of_conn >> 32);
    unsigned at = id_sent ? 4u : 0u, end, i;
    uint64_t sequence;
    header h;
    size_t n;
    printf("byte      field                    value\n");
    row(id_sent ? "0-3" : "", "connection id", "0x%08x = 0x%08x ^ 0x%08x ^ 0x%08x%s",
        (unsigned)id, (unsigned)ZL_PROTOCOL_ID, (unsigned)(uint32_t)nonce_of_conn,
        (unsigned)(uint32_t)(nonce_of_conn >> 32), id_sent ? "" : ", not sent");
    if (id_sent && le(p, 4) != id)
        row("", "connection id", "MISMATCH");
    header_rows(d, at, &h);
    end = h.end;
    sequence = h.sequence; /* an early packet: the full sequence */
    n = len - end - 16u;
    sprintf(where, "%u-%u", end, end + (unsigned)n - 1u);
    key_row(where, "ciphertext", p + end, n);
    sprintf(where, "%u-%u", end + (unsigned)n, (unsigned)len - 1u);
    key_row(where, "tag", p + end + n, 16);
    for (i = 0; i < 4u; i++) {
        aad[i] = (uint8_t)((uint32_t)ZL_PROTOCOL_ID >> (8u * i));
        aad[4 + i] = (uint8_t)(id >> (8u * i));
    }
    memcpy(aad + 8, h.long_form, h.long_len);
    memset(nonce, 0, sizeof nonce);
    for (i = 0; i < 8u; i++)
        nonce[4 + i] = (uint8_t)(sequence >> (8u * i));
    key_row("", "associated data", aad, 8u + h.long_len);
    key_row("", "nonce", nonce, sizeof nonce);
    if (zl_chacha20poly1305_open(plain, ZL_MAX_PACKET, p + end, len - end, aad, 8u + h.long_len,
                                 nonce, key) != (int)n) {
        row("", "plaintext", "DOES NOT OPEN");
        return 0;
    }
    key_row("", "plaintext", plain, n);
    return n;
}

/* ---- The examples ---- */

static void fields_begin(const char *name)
{
    printf("```text fields=%s\n", name);
}

static void fields_end(void)
{
    printf("```\n\n");
}

static const char *const deny_names[] = {"FULL", "VERSION", "BANNED", "TOKEN"};
static const char *const disconnect_names[] = {"QUIT", "TIMEOUT", "KICKED", "SHUTDOWN"};

/* A plain packet under `id` and its payload reading. */
static void plain_example(const char *name, const datagram *d, uint32_t id, const char *id_name,
                          uint32_t own)
{
    bits_in b;
    size_t at;
    if (!d)
        return;
    hex_block(name, d->bytes, d->len);
    fields_begin(name);
    at = plain_header(d, id, id_name);
    bits_start(&b, d->bytes + at, d->len - at);
    switch (d->bytes[4] & 31u) {
    case ZL_MSG_REQUEST:
        show_hex(&b, 32, "protocol_id");
        show64(&b, "nonce");
        settings(&b);
        break;
    case ZL_MSG_CHALLENGE:
        challenge_fields(&b);
        break;
    case ZL_MSG_RESPONSE:
        challenge_fields(&b);
        settings(&b);
        break;
    case ZL_MSG_ACCEPT:
        accept_fields(&b);
        break;
    case ZL_MSG_DENY:
        reason(&b, deny_names, 4);
        break;
    case ZL_MSG_DISCONNECT:
        reason(&b, disconnect_names, 4);
        break;
    case ZL_MSG_COMMANDS:
        commands_payload(&b);
        break;
    case ZL_MSG_SNAPSHOT:
        snapshot_payload(&b, own);
        break;
    case ZL_MSG_RELIABLE:
        reliable_payload(&b);
        break;
    case ZL_MSG_BLOCK:
        block_payload(&b);
        break;
    default:
        break;
    }
    end_payload(&b);
    fields_end();
}

static uint32_t connection_id(uint64_t nonce)
{
    return ZL_PROTOCOL_ID ^ (uint32_t)nonce ^ (uint32_t)(nonce >> 32);
}

/* The nth BLOCK from -> to whose inner message is of `inner` (0: none). */
static const datagram *find_block(int from, int to, uint8_t inner, int nth)
{
    int i;
    for (i = 0; i < wire_count; i++) {
        /* A plain header: 13 bytes, 4 fewer with the flag 0x20 (no
         * ack_bits), 1 fewer for each of 0x40 and 0x80 (short fields). */
        size_t at = (wire[i].bytes[4] & 0x20u ? 9u : 13u) - !!(wire[i].bytes[4] & 0x40u) -
                    !!(wire[i].bytes[4] & 0x80u);
        if (wire[i].from == from && wire[i].to == to && (wire[i].bytes[4] & 31u) == ZL_MSG_BLOCK &&
            wire[i].len > at && (wire[i].bytes[at] & 31u) == inner && nth-- == 0)
            return &wire[i];
    }
    printf("missing block %d -> %d inner %u\n", from, to, inner);
    return NULL;
}

static void plain_match(void)
{
    /* Blocks from clients land here, 256 bytes a slot. */
    static uint8_t block_buffers[ZL_MAX_CLIENTS * 256];
    static const char spray[] = "a spray, a map vote, a replay: any bytes a client uploads as a "
                                "block, in 64-byte chunks; the last chunk is short.";
    zl_server_config sc;
    zl_client *a, *b;
    uint32_t seeds;
    int k;
    zl_server_config_default(&sc);
    sc.security = ZL_SECURITY_PLAIN;
    sc.block_buffers = block_buffers;
    sc.block_capacity = 256;
    start_match(&sc);
    a = add_client(NONCE_A);
    b = add_client(NONCE_B);
    zl_client_connect(a, &ends[0].addr, now_us);
    zl_client_connect(b, &ends[0].addr, now_us);
    pump();
    clients_send(); /* the first COMMANDS: no player yet, no command */
    server_step();  /* tick 1: full snapshots */
    play(0, 16, 0, 0, 0);
    play(1, 16, 127, FPS_BUTTON_JUMP, 0x4000);
    clients_send();
    server_step(); /* tick 2: deltas; B's jump */
    play(0, 8, 0, 0, 0xDF00);
    play(0, 8, 0, 0, 0xE000);
    play(1, 16, -127, 0, 0x4000);
    clients_send();
    zl_server_send_message(&server, 0, "gg", 2);
    server_step(); /* tick 3: a RELIABLE packet to A */
    zl_client_disconnect(a, now_us);
    pump();
    /* B uploads a block: its first chunk alone, the next beside commands
     * once the server has acknowledged one. Its commands draw their seeds
     * apart, so the token match's stay as the document quotes them. */
    if (zl_client_block_send(b, spray, (uint32_t)sizeof spray - 1u) != ZL_OK)
        printf("block refused\n");
    seeds = rng_state;
    for (k = 0; k < 12; k++) {
        play(1, 16, 0, 0, 0x4000);
        clients_send();
        server_step();
    }
    rng_state = seeds;

    plain_example("request", find(1, 0, ZL_MSG_REQUEST, 0), ZL_PROTOCOL_ID, "protocol id", 0);
    plain_example("challenge", find(0, 1, ZL_MSG_CHALLENGE, 0), ZL_PROTOCOL_ID, "protocol id", 0);
    plain_example("response", find(1, 0, ZL_MSG_RESPONSE, 0), ZL_PROTOCOL_ID, "protocol id", 0);
    plain_example("accept", find(0, 1, ZL_MSG_ACCEPT, 0), ZL_PROTOCOL_ID, "protocol id", 0);
    plain_example("commands", find(1, 0, ZL_MSG_COMMANDS, 2), connection_id(NONCE_A),
                  "connection id", 0);
    plain_example("snapshot-full", find(0, 1, ZL_MSG_SNAPSHOT, 0), connection_id(NONCE_A),
                  "connection id", 0);
    plain_example("snapshot-delta", find(0, 1, ZL_MSG_SNAPSHOT, 1), connection_id(NONCE_A),
                  "connection id", 0);
    plain_example("snapshot-extrapolated", find(0, 1, ZL_MSG_SNAPSHOT, 2),
                  connection_id(NONCE_A), "connection id", 0);
    plain_example("reliable", find(0, 1, ZL_MSG_RELIABLE, 0), connection_id(NONCE_A),
                  "connection id", 0);
    plain_example("disconnect", find(1, 0, ZL_MSG_DISCONNECT, 0), connection_id(NONCE_A),
                  "connection id", 0);
    plain_example("block-alone", find_block(2, 0, 0, 0), connection_id(NONCE_B),
                  "connection id", 0);
    plain_example("block-beside", find_block(2, 0, ZL_MSG_COMMANDS, 0), connection_id(NONCE_B),
                  "connection id", 0);
}

static zl_connect_token token; /* the client reads it until connected */

static void token_match(void)
{
    static uint8_t bytes[ZL_TOKEN_WIRE_SIZE];
    static const char user[] = "player=ada";
    zl_server_config sc;
    zl_token_grant grant;
    uint8_t nonce[24], plain[ZL_MAX_PACKET];
    const datagram *d;
    zl_client *c, *p;
    bits_in b;
    uint64_t cookie = 0;
    size_t n, at;
    int k;
    zl_server_config_default(&sc);
    counting(sc.private_key, sizeof sc.private_key, 0x80);
    sc.public_address_count = 1;
    sc.public_addresses[0] = zl_addr_ipv4(192, 0, 2, 1, 27015);
    sc.unix_time_s = UNIX_START_S;
    start_match(&sc);
    memset(&grant, 0, sizeof grant);
    grant.client_id = 0xC0FFEE;
    grant.timeout_s = 10;
    grant.address_count = 1;
    grant.addresses[0] = ends[0].addr;
    counting(grant.client_key, sizeof grant.client_key, 0x40);
    counting(grant.server_key, sizeof grant.server_key, 0x60);
    memcpy(grant.user_data, user, sizeof user - 1u);
    counting(nonce, sizeof nonce, 0x20);
    if (zl_token_mint(&token, &grant, UNIX_START_S, UNIX_START_S + 30u, nonce, sc.private_key) !=
            ZL_OK ||
        zl_token_write(bytes, sizeof bytes, &token) != (int)sizeof bytes)
        printf("token refused\n");
    c = add_client(NONCE_C);
    p = add_client(NONCE_B);
    zl_client_connect_token(c, &token, now_us);
    zl_client_connect(p, &ends[0].addr, now_us); /* no token: denied */
    pump();
    clients_send(); /* sealed COMMANDS 0: no command yet */
    server_step();  /* tick 1: a sealed full snapshot */
    play(0, 16, 127, 0, 0x2000);
    clients_send(); /* sealed COMMANDS 1: the first command */
    /* A clean link's steady state: once the server has heard 32 packets
     * in a row, its headers say all ack bits are set and leave them out. */
    for (k = 0; k < 40; k++) {
        play(0, 16, 0, 0, 0x2000);
        clients_send();
        server_step();
    }

    hex_block("token", bytes, sizeof bytes);
    fields_begin("token");
    token_fields(bytes, sc.private_key);
    fields_end();

    if ((d = find(1, 0, ZL_MSG_TOKEN_REQUEST, 0)) != NULL) {
        hex_block("token-request", d->bytes, d->len);
        fields_begin("token-request");
        at = plain_header(d, ZL_PROTOCOL_ID, "protocol id");
        bits_start(&b, d->bytes + at, d->len - at);
        show_hex(&b, 32, "protocol_id");
        show64(&b, "nonce");
        settings(&b);
        show64(&b, "expire_s");
        for (n = 0; n < 24u + 425u; n++)
            if (pull(&b, 8) != bytes[20 + n])
                break;
        row("228+3592", "nonce, sealed", n == 449u ? "token bytes 20-468, 8 bits each"
                                                   : "NOT THE TOKEN'S BYTES");
        end_payload(&b);
        fields_end();
    }
    if ((d = find(0, 1, ZL_MSG_CHALLENGE, 0)) != NULL) {
        hex_block("token-challenge", d->bytes, d->len);
        fields_begin("token-challenge");
        at = plain_header(d, ZL_PROTOCOL_ID, "protocol id");
        bits_start(&b, d->bytes + at, 20);
        cookie = challenge_fields(&b);
        reply_tag(d->bytes + at, 20, ZL_MSG_CHALLENGE, cookie, 0, grant.server_key);
        fields_end();
    }
    if ((d = find(0, 1, ZL_MSG_ACCEPT, 0)) != NULL) {
        uint32_t tick;
        hex_block("token-accept", d->bytes, d->len);
        fields_begin("token-accept");
        at = plain_header(d, ZL_PROTOCOL_ID, "protocol id");
        bits_start(&b, d->bytes + at, 25);
        tick = accept_fields(&b);
        end_payload(&b);
        reply_tag(d->bytes + at, 25, ZL_MSG_ACCEPT, cookie, tick, grant.server_key);
        fields_end();
    }
    if ((d = find(1, 0, ZL_MSG_COMMANDS, 1)) != NULL) {
        hex_block("sealed-commands", d->bytes, d->len);
        fields_begin("sealed-commands");
        n = open_sealed(d, 1, NONCE_C, grant.client_key, plain);
        bits_start(&b, plain, n);
        commands_payload(&b);
        fields_end();
    }
    plain_example("deny", find(0, 2, ZL_MSG_DENY, 0), ZL_PROTOCOL_ID, "protocol id", 0);
    /* The server's last snapshot to the client (its sealed packets start
     * with the type byte). */
    for (k = wire_count - 1; k >= 0; k--)
        if (wire[k].from == 0 && wire[k].to == 1 && (wire[k].bytes[0] & 31u) == ZL_MSG_SNAPSHOT)
            break;
    if (k >= 0) {
        d = &wire[k];
        hex_block("sealed-snapshot", d->bytes, d->len);
        fields_begin("sealed-snapshot");
        open_sealed(d, 0, NONCE_C, grant.server_key, plain);
        fields_end();
    }
}

int main(void)
{
    plain_match();
    token_match();
    return 0;
}
