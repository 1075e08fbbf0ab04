/* demo_options.c - parses "--name value", "--name=value" and flags against
 * one table, so --help, the ranges and the defaults cannot drift apart. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_options.h"

enum { KIND_U32, KIND_FLAG, KIND_TEXT, KIND_PERCENT };

typedef struct option {
    const char *name;
    unsigned programs;
    int kind;
    size_t offset;
    uint32_t min, max;
    const char *help;
} option;

#define AT(field) offsetof(demo_options, field)
#define S DEMO_FOR_SERVER
#define C DEMO_FOR_CLIENT
#define L DEMO_FOR_LAUNCHER
#define W DEMO_FOR_WINDOW

static const option options[] = {
    {"address", S, KIND_TEXT, AT(address), 0, 0,
     "IPv4/IPv6 address to listen on; with --key, required: the public address clients "
     "reach (the one their tokens name)"},
    {"address", C | W, KIND_TEXT, AT(address), 0, 0,
     "the server's address (ignored with --token: the token names the server)"},
    {"port", S, KIND_U32, AT(port), 0, 65535, "UDP port to listen on (0: any free one)"},
    {"port", C | W, KIND_U32, AT(port), 1, 65535,
     "the server's UDP port (when --address has none; ignored with --token)"},
    {"bots", L, KIND_U32, AT(bots), 1, 32, "bot clients, each its own process"},
    {"tickrate", S | L, KIND_U32, AT(tickrate), 20, 128, "server ticks per second"},
    {"maxclients", S, KIND_U32, AT(maxclients), 1, ZL_MAX_CLIENTS, "player slots"},
    {"peraddress", S, KIND_U32, AT(peraddress), 1, ZL_MAX_CLIENTS,
     "player slots one IP address may hold"},
    {"updaterate", S, KIND_U32, AT(updaterate), 10, 128,
     "most snapshots per second a client may ask for"},
    {"updaterate", C | W | L, KIND_U32, AT(updaterate), 10, 128, "snapshots per second wanted"},
    {"cmdrate", S, KIND_U32, AT(cmdrate), 10, 128,
     "most command packets per second a client may send"},
    {"cmdrate", C | W | L, KIND_U32, AT(cmdrate), 10, 128, "command packets per second sent"},
    {"rate", S, KIND_U32, AT(rate), ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX,
     "most bytes per second a client may ask for"},
    {"rate", C | W, KIND_U32, AT(rate), ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX,
     "bytes per second of snapshots the client takes"},
    {"interp", C | W | L, KIND_U32, AT(interp_ms), 0, 500, "interpolation delay, ms (cl_interp)"},
    {"interp_ratio", C | W | L, KIND_U32, AT(interp_ratio), 1, 5,
     "delay in snapshot intervals at least (cl_interp_ratio)"},
    {"fakelag", S | C | W | L, KIND_U32, AT(fakelag_ms), 0, 5000,
     "round trip added, ms (half each way, through the link conditioner)"},
    {"fakejitter", S | C | W | L, KIND_U32, AT(fakejitter_ms), 0, 1000, "jitter each way, +/- ms"},
    {"fakeloss", S | C | W | L, KIND_PERCENT, AT(fakeloss_ppm), 0, 1000000,
     "packet loss each way, percent, 0..100 (e.g. 2 or 0.5)"},
    {"fakeburst", S | C | W | L, KIND_U32, AT(fakeburst), 0, 100,
     "loss bursts each way: a burst of N datagrams on average about every 2 s "
     "(Gilbert-Elliott; 0: none)"},
    {"fakespike", S | C | W | L, KIND_U32, AT(fakespike_ms), 0, 4000,
     "lag spikes: every 5 s the link freezes for N ms, then delivers all it held at once "
     "(0: none)"},
    {"fps", C | W, KIND_U32, AT(fps), 10, 250, "frames (commands) per second"},
    {"duration", S | C | W, KIND_U32, AT(duration_s), 0, 86400,
     "seconds to run, 0 until Ctrl-C"},
    {"duration", L, KIND_U32, AT(duration_s), 1, 3600, "seconds the match lasts"},
    {"status", S, KIND_U32, AT(status_s), 0, 3600, "seconds between status lines, 0: none"},
    {"bot", C, KIND_FLAG, AT(bot), 0, 1, "a bot plays (no keyboard, no view)"},
    {"nolagcomp", S | L, KIND_FLAG, AT(nolagcomp), 0, 1,
     "trace shots in the present (no lag compensation)"},
    {"seed", C, KIND_U32, AT(seed), 0, 0xFFFFFFFFu, "bot behaviour seed, 0: random"},
    {"machine", S | C, KIND_FLAG, AT(machine), 0, 1,
     "records for the demo launcher on stdout, text on stderr"},
    {"key", S, KIND_TEXT, AT(key), 0, sizeof(((demo_options *)0)->key),
     "private key, 64 hex digits: admit only connect tokens minted with it "
     "and seal every packet (empty: plain, anyone joins, packets in clear)"},
    {"token", C | W, KIND_TEXT, AT(token), 0, sizeof(((demo_options *)0)->token),
     "connect token in hex (zl_token), naming the server's address; empty: connect "
     "plain to --address"},
    {"plain", L, KIND_FLAG, AT(plain), 0, 1,
     "no connect tokens: packets in clear (the default mints a token per bot)"},
    {"agones", S, KIND_FLAG, AT(agones), 0, 1,
     "Agones lifecycle through the SDK sidecar (AGONES_SDK_HTTP_PORT, 9358): Ready once "
     "listening, Health every 2 s, players admitted once Allocated, Shutdown at the end"},
    {"metrics", S, KIND_U32, AT(metrics_port), 0, 65535,
     "serve Prometheus metrics on GET /metrics at this TCP port (0: off)"},
    {"metrics-address", S, KIND_TEXT, AT(metrics_address), 0, 0,
     "IPv4 address the metrics listen on"},
    {"drain-seconds", S, KIND_U32, AT(drain_s), 0, 3600,
     "on SIGTERM or Ctrl-C: no new players, and the match may run this long to end "
     "(it ends at once when no one plays)"},
    {"broadcast", S | L, KIND_TEXT, AT(broadcast), 0, 0,
     "folder to write the spectator stream to (fragments and index.txt, for any HTTP "
     "server); empty: none"},
    {"tv_delay", S | L, KIND_U32, AT(tv_delay_ms), 0, 60000,
     "broadcast delay, ms: spectators see the match this late"},
    {"tv_fragment", S | L, KIND_U32, AT(tv_fragment_ms), 100, 60000,
     "broadcast fragment length, ms (a keyframe and the deltas after it)"},
    {"watch", C, KIND_TEXT, AT(watch), 0, 0,
     "follow a broadcast at this URL (the folder holding index.txt) as a spectator "
     "instead of joining"},
    {"headless", C, KIND_FLAG, AT(headless), 0, 1,
     "with --watch: no view; print one line at the end (frames, delay kept, bytes/s, "
     "view hash)"},
    {"watchers", C, KIND_U32, AT(watchers), 1, 1000,
     "with --watch --headless: spectators in this process, each with its own HTTP "
     "connection, fragments and line"},
    {"from", C, KIND_U32, AT(from), 0, 0xFFFFFFFFu,
     "with --watch: the first fragment to play (4294967295: the newest published)"},
    {"fragments", C, KIND_U32, AT(fragments), 0, 1000000,
     "with --watch: fragments to play, 0: until the broadcast ends"},
    {"record", C, KIND_TEXT, AT(record), 0, 0,
     "record a demo of what the client receives, draws and does into this file"},
    {"record", L, KIND_TEXT, AT(record), 0, 0,
     "the first bot records a demo into this file (zl_client --play FILE shows it)"},
    {"play", C, KIND_TEXT, AT(play), 0, 0,
     "play this demo file back in the terminal view (no server)"},
    {"timedemo", C, KIND_FLAG, AT(timedemo), 0, 1,
     "with --play: as fast as possible, then frames per second and the frame hash"},
    {"seek", C, KIND_U32, AT(seek_s), 0, 86400,
     "with --play: start this many seconds in (at the keyframe before)"},
    {"bin", L, KIND_TEXT, AT(bin), 0, 0, "folder holding zl_server and zl_client"},
    {"out", L, KIND_TEXT, AT(out), 0, 0, "folder for the logs and pictures"},
    {"script", W, KIND_TEXT, AT(script), 0, 0,
     "keys to press once the game starts, for tests: KEY:MS,... (e.g. w:800,right:300,f:200); "
     "KEY is a letter, digit, space, up, down, left or right; _:MS waits"},
    {"screenshot", W, KIND_TEXT, AT(screenshot), 0, 0,
     "write the window's last frame to this BMP file at the end"},
};

static void set_defaults(demo_options *o, unsigned program)
{
    zl_client_settings s;
    memset(o, 0, sizeof *o);
    zl_client_settings_default(&s);
    strcpy(o->address, program == DEMO_FOR_SERVER ? "0.0.0.0" : "127.0.0.1");
    o->port = 27015;
    o->tickrate = 64;
    o->maxclients = ZL_MAX_CLIENTS < 16 ? ZL_MAX_CLIENTS : 16;
    o->peraddress = 8;
    o->updaterate = s.updaterate;
    o->cmdrate = s.cmdrate;
    o->rate = s.rate;
    o->interp_ms = s.interp_us / 1000u;
    o->interp_ratio = s.interp_ratio;
    o->fps = 125;
    o->status_s = 5;
    o->drain_s = 10;
    strcpy(o->metrics_address, "127.0.0.1");
    o->bots = 8;
    o->tv_delay_ms = 10000;
    o->tv_fragment_ms = 3000;
    o->from = DEMO_WATCH_NEWEST;
    o->watchers = 1;
    strcpy(o->bin, DEMO_DIR);
    strcpy(o->out, DEMO_DIR);
    if (program == DEMO_FOR_LAUNCHER) {
        strcpy(o->broadcast, DEMO_DIR "/broadcast");
        o->duration_s = 30;
        o->fakelag_ms = 100;
        o->fakejitter_ms = 20;
        o->fakeloss_ppm = 20000;
    }
}

static void print_help(const demo_options *defaults, unsigned program, const char *argv0)
{
    size_t i;
    printf("usage: %s [options]\n", argv0);
    if (program == DEMO_FOR_SERVER)
        printf("The zerolag server: runs the reference FPS rules for its clients.\n");
    else if (program == DEMO_FOR_CLIENT)
        printf("A zerolag client: plays in the terminal (WASD, arrows, space, f) or as a bot.\n");
    else if (program == DEMO_FOR_WINDOW)
        printf("A zerolag client in a window (SDL2): plays with the keyboard; the window\n"
               "lists the keys.\n");
    else
        printf("The zerolag demo: a server and bot clients as separate processes over UDP\n"
               "loopback, each link through the link conditioner; a live net graph, a\n"
               "report and two pictures.\n");
    for (i = 0; i < sizeof options / sizeof options[0]; i++) {
        const option *op = &options[i];
        const char *at = (const char *)defaults + op->offset;
        char arg[32];
        if (!(op->programs & program))
            continue;
        if (op->kind == KIND_FLAG)
            arg[0] = '\0';
        else
            sprintf(arg, op->kind == KIND_TEXT ? " TEXT" : " N");
        printf("  --%s%s\n      %s", op->name, arg, op->help);
        if (op->kind == KIND_TEXT)
            printf(" (%s)\n", at);
        else if (op->kind == KIND_PERCENT)
            printf(" (%g)\n", *(const uint32_t *)(const void *)at / 10000.0);
        else if (op->kind == KIND_U32)
            printf(" (%lu; %lu..%lu)\n", (unsigned long)*(const uint32_t *)(const void *)at,
                   (unsigned long)op->min, (unsigned long)op->max);
        else
            printf("\n");
    }
    printf("  --help\n      this text\n");
}

static const option *find(const char *name, size_t len, unsigned program)
{
    size_t i;
    for (i = 0; i < sizeof options / sizeof options[0]; i++)
        if ((options[i].programs & program) && strlen(options[i].name) == len &&
            strncmp(options[i].name, name, len) == 0)
            return &options[i];
    return NULL;
}

/* Stores text as op's value; 0, or -1 when it is not a number in range. */
static int store(demo_options *o, const option *op, const char *text)
{
    char *end;
    void *at = (char *)o + op->offset;
    double v;
    if (op->kind == KIND_TEXT) {
        if (strlen(text) >= (op->max ? op->max : DEMO_TEXT_MAX))
            return -1;
        strcpy((char *)at, text);
        return 0;
    }
    v = strtod(text, &end);
    if (end == text || *end != '\0')
        return -1;
    if (op->kind == KIND_PERCENT)
        v *= 10000.0; /* percent to parts per million */
    else if (v != (double)(uint32_t)v)
        return -1; /* whole numbers only */
    if (v < op->min || v > op->max)
        return -1;
    *(uint32_t *)at = (uint32_t)(v + 0.5);
    return 0;
}

int demo_options_load(demo_options *o, unsigned program, int argc, char **argv)
{
    demo_options defaults;
    int i;
    set_defaults(o, program);
    defaults = *o;
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *eq, *value;
        const option *op;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(&defaults, program, argv[0]);
            return 1;
        }
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "%s: unexpected '%s' (see --help)\n", argv[0], arg);
            return -1;
        }
        arg += 2;
        eq = strchr(arg, '=');
        op = find(arg, eq ? (size_t)(eq - arg) : strlen(arg), program);
        if (!op) {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", argv[0], argv[i]);
            return -1;
        }
        if (op->kind == KIND_FLAG) {
            if (eq) {
                fprintf(stderr, "%s: --%s takes no value\n", argv[0], op->name);
                return -1;
            }
            *(uint32_t *)(void *)((char *)o + op->offset) = 1;
            continue;
        }
        value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value || store(o, op, value) != 0) {
            if (op->kind == KIND_TEXT)
                fprintf(stderr, "%s: --%s needs a value shorter than %d characters\n", argv[0],
                        op->name, DEMO_TEXT_MAX);
            else
                fprintf(stderr, "%s: --%s needs a number in %lu..%lu\n", argv[0], op->name,
                        (unsigned long)op->min,
                        (unsigned long)(op->kind == KIND_PERCENT ? op->max / 10000u : op->max));
            return -1;
        }
    }
    /* A burst is counted in datagrams: it must fit between two of them. */
    if (o->fakeburst) {
        uint32_t rate = o->cmdrate < o->updaterate ? o->cmdrate : o->updaterate;
        uint32_t cycle = rate * (DEMO_BURST_EVERY_MS / 1000u);
        if (o->fakeburst >= cycle) {
            fprintf(stderr, "%s: --fakeburst %lu must be below the %lu datagrams of %lu s at "
                            "--cmdrate/--updaterate %lu\n",
                    argv[0], (unsigned long)o->fakeburst, (unsigned long)cycle,
                    (unsigned long)(DEMO_BURST_EVERY_MS / 1000u), (unsigned long)rate);
            return -1;
        }
    }
    return 0;
}

zl_client_settings demo_options_settings(const demo_options *o)
{
    zl_client_settings s;
    s.updaterate = (uint16_t)o->updaterate;
    s.cmdrate = (uint16_t)o->cmdrate;
    s.rate = o->rate;
    s.interp_us = o->interp_ms * 1000u;
    s.interp_ratio = (uint16_t)o->interp_ratio;
    return s;
}

void demo_hex_write(char *out, const uint8_t *in, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
    out[2 * n] = '\0';
}

int demo_hex_read(const char *text, uint8_t *out, size_t n)
{
    size_t i;
    if (strlen(text) != 2 * n)
        return 0;
    for (i = 0; i < n; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)text[2 * i]) || !isxdigit((unsigned char)text[2 * i + 1]) ||
            sscanf(text + 2 * i, "%2x", &v) != 1)
            return 0;
        out[i] = (uint8_t)v;
    }
    return 1;
}
