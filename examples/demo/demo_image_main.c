/* demo_image_main.c - the demo match in one program image (server and bots over
 * the in-image loopback and conditioners, simulated clock): make demo's report. */
#include <stdio.h>
#include <string.h>

#include "demo_local.h"
#include "demo_options.h"
#include "demo_pictures.h"
#include "demo_player.h"
#include "demo_referee.h"
#include "demo_report.h"
#include "demo_welcome.h"
#include "zl_port.h"
#include "zl_loopnet.h"

#ifndef DEMO_IMAGE_BOTS
#define DEMO_IMAGE_BOTS (DEMO_MAX_BOTS < 4 ? DEMO_MAX_BOTS : 4)
#endif
#ifndef DEMO_IMAGE_SECONDS
#define DEMO_IMAGE_SECONDS 10
#endif
#define BOTS DEMO_IMAGE_BOTS
#define FRAME_MS 8u            /* bots run 125 commands a second */
#define RTT_US 100000u         /* the same link as make demo's */
#define JITTER_US 20000u
#define LOSS_PPM 20000u
#define GRAPH_US 5000000u      /* a net graph every 5 simulated seconds */

/* Everything is static: a server and the clients are large. */
static uint64_t now_us = 1000000u; /* the simulated clock */
static zl_platform sim_clock;
static zl_loopnet net;
static zl_loopnet_endpoint server_ep, client_ep[BOTS];
static zl_platform server_hal, client_raw[BOTS], client_hal[BOTS];
static zl_conditioner cond[BOTS];
static demo_game server_game;
static zl_server server;
static demo_player player[BOTS];
static demo_welcome welcome; /* each joining bot's gamestate */
static demo_stopwatch cost;
static demo_match match;
static int who[BOTS + 1]; /* each sink's source: -1 the server, else a bot */

static uint64_t sim_now(void *ctx)
{
    (void)ctx;
    return now_us;
}

/* The image must be repeatable run to run: fixed "random" bytes. */
static int sim_random(void *ctx, void *out, size_t len)
{
    (void)ctx;
    memset(out, 0x5A, len);
    return ZL_OK;
}

static void into_match(void *ctx, int type, const void *rec)
{
    demo_match_take(&match, *(const int *)ctx, type, rec);
}

static demo_sink sink_for(int index)
{
    demo_sink s;
    s.put = into_match;
    s.ctx = &who[index];
    return s;
}

/* Returns ZL_OK, or why the server or a client would not start. */
static int start(void)
{
    zl_server_config sc;
    zl_client_config cc;
    zl_conditioner_settings cs;
    demo_setup setup;
    zl_addr server_addr, any;
    int i, rc;
    zl_platform_clock_only(&sim_clock, NULL, sim_now, sim_random);
    zl_loopnet_init(&net, &sim_clock);
    rc = demo_local_server_start(&server, &server_game, &net, &server_ep, &server_hal, BOTS, now_us,
                                 &sc);
    if (rc != ZL_OK)
        return rc;
    zl_addr_parse(&server_addr, DEMO_LOCAL_SERVER);
    memset(&cs, 0, sizeof cs);
    cs.enabled = 1;
    cs.latency_us = RTT_US / 2u;
    cs.jitter_us = JITTER_US;
    cs.loss_ppm = LOSS_PPM;
    zl_client_config_default(&cc);
    zl_addr_parse(&any, "10.0.1.1:0");
    who[BOTS] = -1;
    for (i = 0; i < BOTS; i++) {
        who[i] = i;
        zl_loopnet_open(&net, &client_ep[i], &any, &client_raw[i]);
        zl_conditioner_init(&cond[i], &client_raw[i], (uint64_t)i + 1u, &client_hal[i]);
        zl_conditioner_configure(&cond[i], ZL_CONDITIONER_SEND, &cs);
        zl_conditioner_configure(&cond[i], ZL_CONDITIONER_RECEIVE, &cs);
        rc = demo_player_init(&player[i], &cc, &client_hal[i], &cond[i], 0x600DF00Du + (uint64_t)i,
                              (uint64_t)i + 1u, sink_for(i));
        if (rc != ZL_OK)
            return rc;
        zl_client_connect(&player[i].client, &server_addr, now_us);
        match.bot[i].running = 1;
    }
    memset(&setup, 0, sizeof setup);
    setup.bots = BOTS;
    setup.duration_s = DEMO_IMAGE_SECONDS;
    setup.tickrate = sc.tick_rate;
    setup.updaterate = cc.settings.updaterate;
    setup.fakelag_ms = RTT_US / 1000u;
    setup.fakejitter_ms = JITTER_US / 1000u;
    setup.fakeloss_ppm = LOSS_PPM;
    setup.lagcomp = 1;
    demo_match_init(&match, &setup, (uint32_t)(now_us / 1000u));
    for (i = 0; i < BOTS; i++)
        match.bot[i].running = 1;
    return ZL_OK;
}

static void step_client(int i, int frame, int may_fire)
{
    demo_local_player_step(&player[i], &cond[i], &client_hal[i], now_us);
    if (frame)
        demo_player_frame(&player[i], now_us, FRAME_MS, may_fire);
}

/* Runs the simulated clock for `us` in 1 ms steps. */
static void run(uint64_t us, int playing)
{
    demo_sink server_sink = sink_for(BOTS);
    uint64_t end = now_us + us, match_end = match.start_ms * 1000ull + DEMO_IMAGE_SECONDS * 1000000ull;
    int lines = 0, i;
    while (now_us < end) {
        int frame;
        now_us += 1000u;
        frame = playing && now_us % (FRAME_MS * 1000u) == 0;
        match.joins += (uint32_t)demo_local_server_step(&server, &server_game, &server_hal, &welcome,
                                                        "zerolag demo image", &cost, now_us,
                                                        &server_sink);
        for (i = 0; i < BOTS; i++)
            step_client(i, frame, now_us + 1000000u < match_end);
        if (playing && now_us % 100000u == 0)
            for (i = 0; i < BOTS; i++)
                if (player[i].hello) {
                    demo_rec_net r;
                    demo_player_net(&player[i], now_us, &r);
                    demo_sink_put(&player[i].sink, DEMO_REC_NET, &r);
                }
        if (now_us % 250000u == 0)
            demo_referee_slots(&server, BOTS, now_us, &server_sink);
        if (playing && now_us % GRAPH_US == 0)
            demo_report_graph(stdout, &match, (uint32_t)(now_us / 1000u), 0, &lines);
    }
}

/* The pictures, where the image has files to write. */
static void report(void)
{
#ifdef DEMO_IMAGE_NO_FILES
    /* A bare-metal C library allocates to open a file: no pictures. */
    demo_report_final(stdout, &match, NULL, NULL, NULL);
#else
    const char *hits = DEMO_DIR "/hits.svg", *timeline = DEMO_DIR "/timeline.svg";
    demo_report_final(stdout, &match, demo_pictures_hits(&match, hits) == 0 ? hits : NULL,
                      demo_pictures_timeline(&match, timeline) == 0 ? timeline : NULL, NULL);
#endif
}

int main(void)
{
    static char out_buffer[256];
    demo_sink server_sink = sink_for(BOTS);
    int i, rc;
    /* Our own buffer: the C library would allocate one at the first print. */
    setvbuf(stdout, out_buffer, _IOLBF, sizeof out_buffer);
    rc = start();
    if (rc != ZL_OK) {
        printf("zl_demo_image: cannot start: %s\n", zl_strerror(rc));
        return 1;
    }
    printf("zerolag demo in one image: a server and %d bots over the in-image loopback network,\n"
           "each link through the link conditioner (%u ms round trip, +/-%u ms jitter, %u.%u%% "
           "loss each way), on a simulated clock.\n",
           BOTS, RTT_US / 1000u, JITTER_US / 1000u, LOSS_PPM / 10000u, LOSS_PPM / 1000u % 10u);
    run((uint64_t)DEMO_IMAGE_SECONDS * 1000000u, 1);
    for (i = 0; i < BOTS; i++) {
        demo_player_leave(&player[i], now_us);
        match.bot[i].running = 0;
    }
    run(300000u, 0); /* the goodbyes cross the conditioners */
    match.end_ms = (uint32_t)(now_us / 1000u);
    zl_server_shutdown(&server, now_us);
    demo_referee_close(&server, &cost, server.config.tick_rate,
                       strcmp(zl_port_timer_unit(), "instr") == 0, 0, &server_sink);
    report();
    {
        uint32_t read = 0, ok = 0, bytes = 0;
        for (i = 0; i < BOTS; i++) {
            read += player[i].gamestate_read;
            ok += player[i].gamestate_ok;
            bytes = player[i].gamestate_bytes > bytes ? player[i].gamestate_bytes : bytes;
        }
        printf("gamestate: %u of %d bots read it (up to %u bytes), %u with this build's arena "
               "and rules\n",
               (unsigned)read, BOTS, (unsigned)bytes, (unsigned)ok);
    }
    return 0;
}
