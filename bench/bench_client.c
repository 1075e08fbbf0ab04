/* bench_client.c - one client frame as the issue defines it: a command, a
 * reconcile that replays the pending commands, and the other players drawn. */
#include "bench_scene.h"
#include "zl_bench.h"

#define KINDS 4

typedef struct client_bench {
    bench_predictor pred;
    bench_drawn drawn;
    int replay; /* 0: the ack finds the prediction right */
} client_bench;

static void reset(void *ctx)
{
    bench_predictor_reset(&((client_bench *)ctx)->pred);
}

static void body(void *ctx, uint32_t n)
{
    client_bench *b = (client_bench *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++) {
        acc += (uint32_t)(b->replay ? bench_predictor_miss(&b->pred, (uint64_t)i * 16000u)
                                    : bench_predictor_hit(&b->pred));
        acc += bench_drawn_frame(&b->drawn, i);
    }
    zl_bench_sink += acc;
}

void zl_bench_client(void)
{
    static client_bench b;
    /* Commands pending at the ack (all replayed when it finds a
     * misprediction, none when it does not) and players drawn. */
    static const uint32_t pending[KINDS] = {16, 8, 16, 32}, drawn[KINDS] = {16, 16, 16, 64};
    static const int replay[KINDS] = {0, 1, 1, 1};
    static const char *const names[KINDS] = {
        "frame: right ack, draw 16", "frame: replay 8, draw 16", "frame: replay 16, draw 16",
        "frame: replay 32, draw 64"};
    uint64_t cost[KINDS];
    int i;
    bench_predictor_init(&b.pred);
    bench_drawn_fill(&b.drawn);
    for (i = 0; i < KINDS; i++) {
        b.pred.window = pending[i];
        b.drawn.drawn = drawn[i];
        b.replay = replay[i];
        cost[i] = zl_bench_measure("client", names[i], body, reset, &b);
    }
    /* Each target is stated for one kind of machine. */
    if (zl_port_timer_exact())
        zl_bench_target("client", "Cortex-M3 frame, 16 replays + 16 drawn", cost[2], 50000u);
    else
        zl_bench_target("client", "host frame, 32 replays + 64 drawn", cost[3], 10000u);
}
