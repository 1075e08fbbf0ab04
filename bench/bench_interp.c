/* bench_interp.c - cost of drawing a frame of other players: one
 * zl_interp_sample per entity from full 64 Hz histories, 100 ms back. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_interp.h"

#define MAX_DRAWN 64
#define TICK_US 15625u /* 64 Hz */

typedef struct interp_bench {
    zl_interp_history hist[MAX_DRAWN];
    zl_interp_settings settings;
    uint64_t render_us;
    uint32_t drawn; /* entities per frame */
    fps_player out[MAX_DRAWN];
} interp_bench;

/* Players circling and turning, every sample received; the render time
 * falls between two samples in the middle of the ring, so each draw walks
 * back through half the history as a real one 100 ms behind does. */
static void fill(interp_bench *b)
{
    zl_interp_config c;
    uint32_t e, k;
    zl_interp_config_init(&c, &fps_player_schema);
    c.origin_field = 0; /* origin.x, y, z lead fps_player_schema */
    zl_interp_settings_default(&b->settings);
    memset(b->hist, 0, sizeof b->hist);
    for (e = 0; e < MAX_DRAWN; e++) {
        fps_player p;
        memset(&p, 0, sizeof p);
        for (k = 0; k < ZL_INTERP_SAMPLES; k++) {
            zl_angle a = (zl_angle)(e * 1024u + k * 700u);
            p.origin = zl_vec3_make(zl_fx_mul(ZL_FX_INT(200), zl_cos(a)),
                                    zl_fx_mul(ZL_FX_INT(200), zl_sin(a)), ZL_FX_INT(e));
            p.yaw = (zl_angle)(a + 16384u);
            p.health = (uint8_t)(100u - k);
            zl_schema_quantize(&fps_player_schema, &p);
            zl_interp_push(&b->hist[e], &c, 1000u + k, (uint64_t)(1000u + k) * TICK_US, &p);
        }
    }
    b->render_us = (uint64_t)(1000u + ZL_INTERP_SAMPLES / 2) * TICK_US + TICK_US / 3;
}

static void body(void *ctx, uint32_t n)
{
    interp_bench *b = (interp_bench *)ctx;
    uint32_t i, e, acc = 0;
    for (i = 0; i < n; i++) {
        for (e = 0; e < b->drawn; e++)
            acc += (uint32_t)zl_interp_sample(&b->hist[e], &b->settings, b->render_us + i % 7u,
                                              &b->out[e], NULL);
    }
    zl_bench_sink += acc + (uint32_t)b->out[0].origin.x;
}

void zl_bench_interp(void)
{
    static interp_bench b;
    static const char *names[] = {"16 entities per frame", "32 entities per frame",
                                  "64 entities per frame"};
    uint32_t sizes[3] = {16, 32, 64};
    uint64_t costs[3];
    int i;
    fill(&b);
    for (i = 0; i < 3; i++) {
        b.drawn = sizes[i];
        costs[i] = zl_bench_measure("interp", names[i], body, NULL, &b);
    }
    zl_bench_growth("interp", sizes, costs, 3);
    zl_bench_memory("zl_interp_history", sizeof(zl_interp_history));
}
