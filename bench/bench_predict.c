/* bench_predict.c - cost of a reconciliation that finds a misprediction and
 * replays 8 to 32 commands with the FPS rules, of predicting one command,
 * and of the predictor's own work per replayed command. */
#include "bench_scene.h"
#include "zl_bench.h"

static void body_reconcile(void *ctx, uint32_t n)
{
    bench_predictor *p = (bench_predictor *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++)
        acc += (uint32_t)bench_predictor_miss(p, (uint64_t)i * 16000u);
    zl_bench_sink += acc;
}

/* One command predicted and at once acknowledged as right: the price of
 * every frame when nothing goes wrong. */
static void body_command(void *ctx, uint32_t n)
{
    bench_predictor *p = (bench_predictor *)ctx;
    uint32_t i, acc = 0;
    for (i = 0; i < n; i++)
        acc += (uint32_t)bench_predictor_hit(p);
    zl_bench_sink += acc;
}

/* Rules that do nothing: what a replay then costs is the predictor's. */
static void run_nothing(void *ctx, const void *from, const zl_usercmd *cmd, void *to,
                        int first_prediction, zl_events *events)
{
    (void)ctx;
    (void)from;
    (void)cmd;
    (void)to;
    (void)first_prediction;
    (void)events;
}

/* The library's overhead per replayed command: reconciliations replaying
 * 8 and 32 commands of rules that do nothing; the difference over the 24
 * extra commands leaves out what every reconciliation pays once. */
static void library_overhead(bench_predictor *p)
{
    static const uint32_t windows[2] = {8, 32};
    static const char *const names[2] = {"replay 8, rules doing nothing",
                                         "replay 32, rules doing nothing"};
    uint64_t costs[2], per;
    int i;
    p->game.run_command = run_nothing;
    for (i = 0; i < 2; i++) {
        p->window = windows[i];
        costs[i] = zl_bench_measure("predict", names[i], body_reconcile, bench_predictor_reset, p);
    }
    per = costs[1] > costs[0] ? (costs[1] - costs[0]) / (windows[1] - windows[0]) : 0;
    zl_bench_derived("predict", "library overhead per replayed command", per);
    if (zl_port_timer_exact())
        zl_bench_target("predict", "Cortex-M3 library overhead per replayed command", per, 300u);
}

void zl_bench_predict(void)
{
    static bench_predictor p;
    static const uint32_t windows[] = {8, 16, 32};
    static const char *const names[] = {"command + reconcile, replay 8",
                                        "command + reconcile, replay 16",
                                        "command + reconcile, replay 32"};
    uint64_t costs[3];
    int i;
    bench_predictor_init(&p);
    p.window = 8;
    zl_bench_measure("predict", "command + right ack (8 ahead)", body_command,
                     bench_predictor_reset, &p);
    for (i = 0; i < 3; i++) {
        p.window = windows[i];
        costs[i] = zl_bench_measure("predict", names[i], body_reconcile, bench_predictor_reset, &p);
    }
    zl_bench_growth("predict", windows, costs, 3);
    library_overhead(&p);
}
