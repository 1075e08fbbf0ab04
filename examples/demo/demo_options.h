/* demo_options.h - the command-line options of zl_server and zl_client: one
 * table gives each option's name, range, default and help line. */
#ifndef DEMO_OPTIONS_H
#define DEMO_OPTIONS_H

#include <stdint.h>

#include "zl_handshake.h"

/* Which program an option belongs to (a mask). */
#define DEMO_FOR_SERVER 1u
#define DEMO_FOR_CLIENT 2u
#define DEMO_FOR_LAUNCHER 4u
#define DEMO_FOR_WINDOW 8u

#define DEMO_TEXT_MAX 256
#define DEMO_WATCH_NEWEST 0xFFFFFFFFu

/* How often --fakeburst's bursts come (each way) and --fakespike's spikes. */
#define DEMO_BURST_EVERY_MS 2000u
#define DEMO_SPIKE_EVERY_MS 5000u

/* The folder holding the programs, and where the launcher and the image put
 * logs and pictures by default: build/<port>/demo, given by mk/demo.mk. */
#ifndef DEMO_DIR
#define DEMO_DIR "."
#endif

/* Everything either program can be told. Times are in the unit the user
 * types (milliseconds, seconds); loss in parts per million. */
typedef struct demo_options {
    char address[DEMO_TEXT_MAX]; /* server: address to bind; client: the server's */
    uint32_t port;
    uint32_t tickrate;
    uint32_t maxclients;
    uint32_t peraddress;    /* server: slots one IP address may hold */
    /* Client: the settings asked for. Server: updaterate, cmdrate and rate
     * are the most a client may ask for (sv_maxupdaterate, sv_maxrate...). */
    uint32_t updaterate, cmdrate, rate, interp_ms, interp_ratio;
    uint32_t fakelag_ms;    /* round trip added, half each way */
    uint32_t fakejitter_ms; /* each way, uniform +/- */
    uint32_t fakeloss_ppm;  /* each way */
    uint32_t fakeburst;     /* each way: loss bursts of this many datagrams
                               on average, about every DEMO_BURST_EVERY_MS;
                               0: none */
    uint32_t fakespike_ms;  /* lag spikes: the link freezes this long every
                               DEMO_SPIKE_EVERY_MS, then delivers what it
                               held at once; 0: none */
    uint32_t fps;           /* client frames (commands) per second */
    uint32_t duration_s;    /* 0: until Ctrl-C */
    uint32_t status_s;      /* server status line interval, 0: never */
    uint32_t bot;           /* client: a bot plays instead of the keyboard */
    uint32_t nolagcomp;     /* server: trace shots in the present */
    uint32_t machine;       /* print records for the demo launcher (stdout)
                               and human text on stderr */
    uint32_t seed;          /* bot behaviour; 0: from the HAL's random bytes */
    uint32_t bots;          /* launcher: bot clients to start */
    uint32_t plain;         /* launcher: no connect tokens, packets in clear */
    char key[2 * ZL_TOKEN_KEY_SIZE + 1]; /* server: the private key tokens are
                                           minted with, hex; empty: plain */
    char token[2 * ZL_TOKEN_WIRE_SIZE + 1]; /* client: its connect token, hex
                                               (zl_token); empty: plain */
    uint32_t agones;        /* server: Agones lifecycle through the SDK sidecar */
    uint32_t metrics_port;  /* server: Prometheus /metrics on this TCP port, 0: off */
    char metrics_address[DEMO_TEXT_MAX]; /* server: where /metrics listens (IPv4) */
    uint32_t drain_s;       /* server: after SIGTERM, longest wait for the match to end */
    char broadcast[DEMO_TEXT_MAX]; /* server, launcher: the folder the spectator
                                      stream's fragments and index go to;
                                      empty: no broadcast */
    uint32_t tv_delay_ms, tv_fragment_ms; /* the broadcast's delay, fragments */
    char watch[DEMO_TEXT_MAX]; /* client: a broadcast's URL to follow
                                  instead of joining (empty: join) */
    uint32_t headless;      /* client --watch: no view, a final line */
    uint32_t watchers;      /* client --watch --headless: spectators this
                               process runs, each on its own connection */
    uint32_t from;          /* client --watch: the first fragment to play;
                               DEMO_WATCH_NEWEST: the newest published */
    uint32_t fragments;     /* client --watch: fragments to play, 0: until
                               the broadcast ends (or --duration) */
    char record[DEMO_TEXT_MAX]; /* client: the demo file to record; launcher:
                                  the first bot's; empty: none */
    char play[DEMO_TEXT_MAX];   /* client: the demo file to play back */
    uint32_t timedemo;          /* client: play it as fast as possible */
    uint32_t seek_s;            /* client: start playback this far in */
    char bin[DEMO_TEXT_MAX]; /* launcher: where zl_server and zl_client are */
    char out[DEMO_TEXT_MAX]; /* launcher: where logs and pictures go */
    char script[DEMO_TEXT_MAX];     /* window: keys to press, KEY:MS,... */
    char screenshot[DEMO_TEXT_MAX]; /* window: BMP of the last frame; empty: none */
} demo_options;

/* Fills o with the defaults of `program` (DEMO_FOR_SERVER, _CLIENT or
 * _LAUNCHER: the demo match, 8 bots for 30 s at 100 ms, 20 ms, 2%), then
 * reads argv (argv[0] is the program) over them. Returns 0 to go on, 1
 * when --help was printed (exit with success), -1 after printing an error. */
int demo_options_load(demo_options *o, unsigned program, int argc, char **argv);

/* Hex text of n bytes into out (2 * n + 1 chars), and back: 0 unless text
 * is exactly 2 * n hex digits. For keys and tokens on command lines. */
void demo_hex_write(char *out, const uint8_t *in, size_t n);
int demo_hex_read(const char *text, uint8_t *out, size_t n);

/* The client settings o asks for, with interp in microseconds. */
zl_client_settings demo_options_settings(const demo_options *o);

#endif
