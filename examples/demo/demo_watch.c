/* demo_watch.c - zl_client --watch URL: polls a broadcast's index over HTTP
 * (libcurl), fetches each fragment once and plays it on the delay. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_host.h"
#include "demo_view.h"
#include "demo_watch.h"
#include "fps.h"
#include "zl_demo.h"
#include "zl_snapshot.h"
#include "zl_tvindex.h"

#define DRAW_MS 50u
#define QUEUE 16u /* fragments fetched ahead of the one playing */

typedef struct buffer {
    uint8_t *p;
    size_t len, cap;
} buffer;

typedef struct queued {
    buffer b;
    uint32_t number;
    int have;
} queued;

static const zl_snapshot_layout layout = {&fps_player_schema, &fps_entity_schema,
                                          ZL_MAX_CLIENTS, NULL, NULL};
static demo_view view;

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
    buffer *b = (buffer *)ctx;
    size_t add = size * n;
    if (b->len + add > b->cap) {
        size_t cap = (b->len + add) * 2;
        uint8_t *p = (uint8_t *)realloc(b->p, cap);
        if (!p)
            return 0; /* curl fails the transfer */
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, add);
    b->len += add;
    return add;
}


/* One spectator: its own HTTP connection, fragments and frames. */
typedef struct player {
    CURL *curl;
    buffer got;
    queued queue[QUEUE];
    zl_snapshot_receiver rx;
    uint64_t bytes_index, bytes_fragments;
    uint32_t http_failures, refused;
    zl_tvindex idx;
    int have_idx;
    uint64_t idx_changed_ms;
    uint32_t start, end, next_fetch, playing, played;
    zl_demo_fragment cur;
    uint32_t offset;
    int cur_open;
    uint32_t decoded, shown, stalls, last_shown;
    int stalled;
    uint32_t hash;
    uint64_t delay_sum, delay_n, delay_min, delay_max;
    uint64_t began, next_poll, next_draw;
    int done;
} player;

/* GETs base/name into p->got: 0, or -1 (no answer, or not 200: not yet there). */
static int fetch(player *p, const char *base, const char *name)
{
    char url[DEMO_TEXT_MAX + 64];
    long code = 0;
    sprintf(url, "%s/%s", base, name);
    p->got.len = 0;
    curl_easy_setopt(p->curl, CURLOPT_URL, url);
    if (curl_easy_perform(p->curl) != CURLE_OK) {
        p->http_failures++;
        return -1;
    }
    curl_easy_getinfo(p->curl, CURLINFO_RESPONSE_CODE, &code);
    return code == 200 ? 0 : -1;
}

static void poll_index(player *p, const char *base, uint64_t now)
{
    zl_tvindex idx;
    if (fetch(p, base, "index.txt") != 0)
        return;
    p->bytes_index += p->got.len;
    if (zl_tvindex_read((const char *)p->got.p, p->got.len, &idx) != ZL_OK) {
        p->refused++;
        return;
    }
    if (!p->have_idx || idx.fragment != p->idx.fragment)
        p->idx_changed_ms = now;
    p->idx = idx;
    p->have_idx = 1;
}

static void fetch_fragments(player *p, const char *base)
{
    while (p->next_fetch <= p->idx.fragment && p->next_fetch < p->end &&
           p->next_fetch - p->playing < QUEUE) {
        queued *q = &p->queue[p->next_fetch % QUEUE];
        char name[32];
        zl_demo_fragment f;
        buffer swap;
        sprintf(name, "fragment-%lu.zld", (unsigned long)p->next_fetch);
        if (fetch(p, base, name) != 0)
            return; /* again at the next poll */
        p->bytes_fragments += p->got.len;
        /* Hostile or damaged bytes are skipped whole: the next keyframe
         * starts playback again. */
        if (zl_demo_fragment_open(p->got.p, p->got.len, &f) != ZL_OK ||
            f.sequence != p->next_fetch) {
            p->refused++;
            p->got.len = 0;
        }
        swap = q->b;
        q->b = p->got;
        p->got = swap;
        q->number = p->next_fetch++;
        q->have = 1;
    }
}

/* Decodes every item up to play_tick; 0, or 1 when the last fragment is done. */
static int advance(player *p, uint32_t play_tick)
{
    for (;;) {
        zl_demo_item_view item;
        uint32_t off = p->offset, tick, executed;
        const zl_snapshot_frame *frame;
        if (!p->cur_open) {
            queued *q = &p->queue[p->playing % QUEUE];
            if (p->playing >= p->end)
                return 1;
            if (!q->have || q->number != p->playing) {
                p->stalled = 1;
                return 0;
            }
            if (q->b.len == 0 || zl_demo_fragment_open(q->b.p, q->b.len, &p->cur) != ZL_OK) {
                q->have = 0;
                p->playing++;
                continue;
            }
            p->offset = 0;
            p->cur_open = 1;
            continue;
        }
        if (!zl_demo_fragment_next(&p->cur, &off, &item)) {
            p->queue[p->playing % QUEUE].have = 0;
            p->cur_open = 0;
            p->playing++;
            p->played++;
            continue;
        }
        if (zl_snapshot_message_tick(&p->rx, item.data, item.len, &tick) != ZL_OK) {
            p->offset = off;
            continue;
        }
        if ((int32_t)(tick - play_tick) > 0)
            return 0;
        p->stalled = 0;
        p->offset = off;
        if (zl_snapshot_message_read(&p->rx, &layout, ZL_SNAPSHOT_NONE, NULL, NULL, item.data,
                                     item.len, &executed, &frame) == ZL_OK) {
            p->decoded++;
            p->hash = zl_snapshot_frame_hash(frame, &layout, p->hash);
        }
    }
}

/* The spectator's clock: the server's present, in ms since the index's
 * tick, from the index's wall time. */
static int64_t since_index_ms(const player *p, uint64_t now)
{
    return (int64_t)now - (int64_t)p->idx.unix_ms;
}

static void draw(player *p, const demo_options *o, uint64_t now, uint64_t began)
{
    const zl_snapshot_frame *f = zl_snapshot_receiver_newest(&p->rx);
    char status[200];
    uint64_t delay = 0;
    double secs = (double)(now - began) / 1000.0;
    if (f) {
        int64_t d = since_index_ms(p, now) +
                    ((int64_t)p->idx.tick - (int64_t)f->tick) * 1000 / (int64_t)p->idx.tick_rate;
        delay = d > 0 ? (uint64_t)d : 0;
        if (f->tick != p->last_shown || !p->shown) {
            p->shown++;
            p->last_shown = f->tick;
        }
        p->delay_sum += delay;
        p->delay_n++;
        if (!p->delay_min || delay < p->delay_min)
            p->delay_min = delay;
        if (delay > p->delay_max)
            p->delay_max = delay;
    }
    if (o->headless)
        return;
    sprintf(status, "fragment %lu  tick %lu  delay %lu ms (tv_delay %lu)  fetched %.0f B/s%s",
            (unsigned long)p->playing, (unsigned long)(f ? f->tick : 0), (unsigned long)delay,
            (unsigned long)p->idx.delay_ms,
            secs > 0 ? (double)(p->bytes_index + p->bytes_fragments) / secs : 0.0,
            p->stalled ? "  WAITING for the next fragment" : "");
    demo_view_draw_frame(&view, f, status);
}

/* One turn of a spectator's loop at now: 1 once it is done. */
static int step(player *p, const demo_options *o, const char *base, uint64_t now)
{
    if (now >= p->next_poll) {
        uint32_t poll_ms;
        poll_index(p, base, now);
        /* A few polls a fragment: the index costs little beside it. */
        poll_ms = p->have_idx && p->idx.tick_rate
                      ? p->idx.fragment_ticks * 1000u / p->idx.tick_rate / 4u : 250u;
        p->next_poll = now + (poll_ms < 100u ? 100u : poll_ms);
        if (p->have_idx && !p->end) {
            p->start = o->from == DEMO_WATCH_NEWEST ? p->idx.fragment : o->from;
            p->end = o->fragments ? p->start + o->fragments : 0xFFFFFFFFu;
            p->next_fetch = p->playing = p->start;
        }
        if (p->have_idx)
            fetch_fragments(p, base);
    }
    if (!p->have_idx)
        return 0;
    {
        int64_t play_ms = since_index_ms(p, now) - (int64_t)p->idx.delay_ms;
        uint32_t play_tick =
            (uint32_t)((int64_t)p->idx.tick + play_ms * (int64_t)p->idx.tick_rate / 1000);
        int was = p->stalled;
        if (advance(p, play_tick))
            return 1;
        p->stalls += !was && p->stalled && p->decoded > 0;
    }
    /* The broadcast ended: nothing new for two fragments and more. */
    return p->playing > p->idx.fragment &&
           now - p->idx_changed_ms >
               2000u + 2u * p->idx.fragment_ticks * 1000u / p->idx.tick_rate;
}

static void report(const player *p, uint64_t now)
{
    double secs = (double)(now - p->began) / 1000.0;
    printf("zl_client: watched fragments %lu..%lu (%lu played): frames %lu shown, %lu "
           "decoded; delay kept %lu ms avg (min %lu, max %lu) of tv_delay %lu ms; fetched "
           "%.0f B/s (%lu B of fragments, %lu B of index in %.1f s); stalls %lu, refused "
           "%lu, http failures %lu; view hash %08lx\n",
           (unsigned long)p->start, (unsigned long)(p->start + p->played - (p->played > 0)),
           (unsigned long)p->played, (unsigned long)p->shown, (unsigned long)p->decoded,
           (unsigned long)(p->delay_n ? p->delay_sum / p->delay_n : 0),
           (unsigned long)p->delay_min, (unsigned long)p->delay_max,
           (unsigned long)p->idx.delay_ms,
           secs > 0 ? (double)(p->bytes_index + p->bytes_fragments) / secs : 0.0,
           (unsigned long)p->bytes_fragments, (unsigned long)p->bytes_index, secs,
           (unsigned long)p->stalls, (unsigned long)p->refused, (unsigned long)p->http_failures,
           (unsigned long)p->hash);
    fflush(stdout);
}

/* Runs count spectators in turn until each is done: 0 when every one
 * played something. */
static int watch(player *ps, uint32_t count, const demo_options *o, const char *base)
{
    uint64_t began = demo_host_unix_ms();
    uint32_t i, left = count;
    int rc = 0;
    for (i = 0; i < count; i++) {
        ps[i].hash = ZL_SCHEMA_HASH_INIT;
        ps[i].began = ps[i].next_poll = ps[i].next_draw = began;
    }
    while (left > 0 && !demo_host_interrupted() && !view.quit) {
        uint64_t now = demo_host_unix_ms();
        if (o->duration_s && now - began >= (uint64_t)o->duration_s * 1000u)
            break;
        for (i = 0; i < count; i++) {
            player *p = &ps[i];
            if (p->done)
                continue;
            now = demo_host_unix_ms();
            if (!p->have_idx && now - began > 10000u) {
                fprintf(stderr, "zl_client: no broadcast index at %s/index.txt\n", base);
                return 1;
            }
            p->done = step(p, o, base, now);
            if (now >= p->next_draw) {
                draw(p, o, now, p->began);
                p->next_draw = now + DRAW_MS;
            }
            if (p->done) {
                left--;
                if (!o->headless)
                    demo_view_close(&view);
                report(p, now);
                rc |= p->decoded == 0;
            }
        }
        if (!o->headless)
            demo_view_keys(&view, (uint32_t)now);
        /* The view redraws at 20 Hz and reads keys; headless, the delay is
         * sampled as often, so there is no need to wake more. */
        demo_host_sleep_us(o->headless ? 20000u : 5000u);
    }
    for (i = 0; i < count; i++)
        if (!ps[i].done) {
            if (!o->headless)
                demo_view_close(&view);
            report(&ps[i], demo_host_unix_ms());
            rc |= ps[i].decoded == 0;
        }
    return rc;
}

int demo_watch_run(const demo_options *o)
{
    char base[DEMO_TEXT_MAX];
    size_t n = strlen(o->watch);
    uint32_t count = o->headless ? o->watchers : 1, i;
    player *ps;
    int rc = 1;
    strcpy(base, o->watch);
    while (n > 0 && base[n - 1] == '/')
        base[--n] = '\0';
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        return 1;
    ps = (player *)calloc(count, sizeof *ps);
    for (i = 0; ps && i < count; i++) {
        zl_snapshot_receiver_init(&ps[i].rx);
        if (!(ps[i].curl = curl_easy_init()))
            break;
        curl_easy_setopt(ps[i].curl, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(ps[i].curl, CURLOPT_WRITEDATA, &ps[i].got);
        curl_easy_setopt(ps[i].curl, CURLOPT_TIMEOUT_MS, 2000L);
        curl_easy_setopt(ps[i].curl, CURLOPT_NOSIGNAL, 1L);
    }
    if (!ps || i < count)
        fprintf(stderr, "zl_client: libcurl would not start %lu spectators\n",
                (unsigned long)count);
    else if (!o->headless && demo_view_open(&view) != 0)
        fprintf(stderr, "zl_client: no terminal to watch in; use --headless\n");
    else {
        demo_host_catch_interrupt();
        rc = watch(ps, count, o, base);
    }
    for (i = 0; ps && i < count; i++) {
        if (ps[i].curl)
            curl_easy_cleanup(ps[i].curl);
        for (n = 0; n < QUEUE; n++)
            free(ps[i].queue[n].b.p);
        free(ps[i].got.p);
    }
    free(ps);
    curl_global_cleanup();
    return rc;
}
