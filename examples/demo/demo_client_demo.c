/* demo_client_demo.c - zl_client's demos: the recorder's fragments into a file, and
 * a file played back through the client (zl_client_demo.h) at its speed or flat out. */
#include <stdlib.h>
#include <string.h>

#include "demo_host.h"
#include "demo_player.h"
#include "demo_client_demo.h"
#include "demo_view.h"
#include "zl_client_demo.h"
#include "zl_port.h"

#define DRAW_US 50000u /* the terminal view: 20 frames a second */
/* A fragment holds a keyframe (the client's kept frames in full) and
 * DEMO_CLIENT_DEMO_KEYFRAME_US of snapshots, frames and commands. */
#define FRAGMENT_BYTES (4u * 1024u * 1024u)

static zl_client_recorder recorder;
static uint8_t fragment[FRAGMENT_BYTES];
static FILE *out;
static int write_failed;

static void write_fragment(void *ctx, const uint8_t *bytes, uint32_t len)
{
    if (fwrite(bytes, 1, len, (FILE *)ctx) != len)
        write_failed = 1;
}

int demo_client_demo_record_start(zl_client *c, const char *path)
{
    out = fopen(path, "wb");
    if (!out) {
        fprintf(stderr, "zl_client: cannot create %s\n", path);
        return -1;
    }
    zl_client_record_start(c, &recorder, fragment, sizeof fragment, DEMO_CLIENT_DEMO_KEYFRAME_US,
                           write_fragment, out);
    return 0;
}

void demo_client_demo_record_stop(zl_client *c, FILE *text)
{
    int rc;
    if (!out)
        return;
    rc = zl_client_record_stop(c);
    if (fclose(out) != 0)
        write_failed = 1;
    out = NULL;
    fprintf(text, "zl_client: demo of %lu fragments, %lu bytes, %lu frames; frame hash 0x%08lx%s\n",
            (unsigned long)recorder.fragments, (unsigned long)recorder.bytes,
            (unsigned long)recorder.frames, (unsigned long)recorder.frame_hash,
            write_failed ? "; WRITING FAILED"
            : rc != ZL_OK ? "; stopped early: a keyframe did not fit" : "");
}

/* The whole file into memory (malloc'd), its length in *len; NULL after
 * printing why. */
static uint8_t *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long size;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = (uint8_t *)malloc((size_t)size + 1u)) ||
        fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "zl_client: cannot read %s\n", path);
        free(buf);
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)size;
    return buf;
}

/* The usable length of the demo (its whole fragments: a damaged or cut one
 * ends it, said on stderr) and in *seek the offset of the last fragment
 * starting at or before seek_us. 0 when not even the first is whole. */
static size_t check(const uint8_t *buf, size_t len, uint64_t seek_us, size_t *seek,
                    const char *path)
{
    size_t at = 0;
    *seek = 0;
    while (at < len) {
        zl_demo_fragment f;
        int rc = zl_demo_fragment_open(buf + at, len - at, &f);
        if (rc != ZL_OK) {
            fprintf(stderr, "zl_client: %s: fragment at byte %lu refused: %s%s\n", path,
                    (unsigned long)at, zl_strerror(rc), at ? "; playing what comes before" : "");
            break;
        }
        if (f.start_us <= seek_us)
            *seek = at;
        at += f.size;
    }
    return at;
}

static int drop_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    (void)ctx;
    (void)to;
    (void)data;
    return (int)len;
}

static demo_player player;
static demo_view view;

/* Waits for the recorded time of an item, drawing the view meanwhile;
 * 0, or -1 when the viewer quits. */
static int wait_until(const zl_platform *sys, uint64_t wall0, uint64_t due_us,
                      uint64_t *next_draw, uint64_t shown_us)
{
    for (;;) {
        uint64_t now = sys->now_us(sys->ctx);
        if (demo_host_interrupted() || view.quit)
            return -1;
        demo_view_keys(&view, (uint32_t)(now / 1000u));
        if (now >= *next_draw) {
            demo_rec_net r;
            demo_player_net(&player, shown_us, &r);
            demo_view_draw(&view, &player, shown_us, &r);
            *next_draw = now + DRAW_US;
        }
        if (now - wall0 >= due_us)
            return 0;
        demo_host_sleep_us(due_us - (now - wall0) > 2000u ? 1000u : 200u);
    }
}

int demo_client_demo_play(const demo_options *o, FILE *text)
{
    zl_platform sys;
    zl_client_config cfg;
    demo_sink sink;
    zl_demo_fragment f;
    size_t len, end, at;
    uint64_t wall0, t0, next_draw = 0, shown_us = 0, seconds;
    uint32_t frames = 0, hash = ZL_SCHEMA_HASH_INIT;
    int rc, quit = 0;
    uint8_t *buf = load(o->play, &len);
    if (!buf)
        return 1;
    end = check(buf, len, (uint64_t)o->seek_s * 1000000u, &at, o->play);
    if (end == 0) {
        free(buf);
        return 1;
    }
    zl_port_clock_only(&sys);
    sys.send = drop_send;
    zl_client_config_default(&cfg);
    memset(&sink, 0, sizeof sink);
    (void)demo_player_init(&player, &cfg, &sys, NULL, 1u, 1u, sink);
    (void)zl_demo_fragment_open(buf + at, end - at, &f);
    rc = zl_client_play_start(&player.client, &f);
    if (rc != ZL_OK) {
        fprintf(stderr, "zl_client: %s: not a client demo: %s\n", o->play, zl_strerror(rc));
        free(buf);
        return 1;
    }
    if (!o->timedemo && demo_view_open(&view) != 0) {
        fprintf(stderr, "zl_client: no terminal to play in; --timedemo plays without one\n");
        free(buf);
        return 2;
    }
    demo_host_catch_interrupt();
    t0 = f.start_us;
    wall0 = sys.now_us(sys.ctx);
    while (at < end && !quit) {
        zl_demo_item_view it;
        uint32_t offset = 0;
        (void)zl_demo_fragment_open(buf + at, end - at, &f);
        while (!quit && zl_demo_fragment_next(&f, &offset, &it)) {
            if (!o->timedemo &&
                wait_until(&sys, wall0, it.time_us - t0, &next_draw, shown_us) != 0) {
                quit = 1;
                break;
            }
            if (zl_client_play_item(&player.client, &it, NULL) == ZL_DEMO_FRAME) {
                frames++;
                hash = zl_demo_hash_fold(hash, zl_client_frame_hash(&player.client));
                shown_us = zl_client_play_time(&player.client, it.time_us);
            }
        }
        at += f.size;
    }
    seconds = sys.now_us(sys.ctx) - wall0;
    if (!o->timedemo)
        demo_view_close(&view);
    fprintf(text, "zl_client: played %lu frames of %s from %lu s in %.3f s", (unsigned long)frames,
            o->play, (unsigned long)(t0 / 1000000u), (double)seconds / 1e6);
    if (o->timedemo)
        fprintf(text, ": %.0f frames per second", seconds ? frames * 1e6 / (double)seconds : 0.0);
    fprintf(text, "; frame hash 0x%08lx\n", (unsigned long)hash);
    free(buf);
    return 0;
}
