/* bench_protocol.c - the small per-packet costs: a run of commands coded
 * and decoded (zl_cmdstream), and the client's clock fed one snapshot. */
#include "bench_scene.h"
#include "zl_bench.h"
#include "zl_clock.h"
#include "zl_cmdstream.h"

/* Commands per packet: the new one and three not yet acknowledged. */
#define RUN 4

typedef struct protocol_bench {
    zl_usercmd run[RUN];
    zl_schema_plan plan; /* how a server reads them */
    uint8_t packet[64];
    size_t bytes;
    zl_clock clock;
} protocol_bench;

/* The script's commands as a client sends them: numbered, with the seed
 * and the render time lag compensation reads. */
static void make_run(protocol_bench *b)
{
    zl_usercmd script[BENCH_SCRIPT];
    zl_bitwriter w;
    int i;
    bench_script(script);
    (void)zl_schema_plan_init(&b->plan, &zl_usercmd_schema);
    for (i = 0; i < RUN; i++) {
        b->run[i] = script[i + 1];
        b->run[i].sequence = 1000u + (uint32_t)i;
        b->run[i].render_tick = 5000u + (uint32_t)i;
        b->run[i].render_span = 1;
        b->run[i].render_frac = (uint16_t)(20000u + 9000u * (uint32_t)i);
        b->run[i].seed = (uint8_t)(31 * i);
    }
    zl_bitwriter_init(&w, b->packet, sizeof b->packet);
    zl_cmdstream_write(&w, b->run, RUN);
    b->bytes = (size_t)zl_bitwriter_finish(&w);
}

static void body_write(void *ctx, uint32_t n)
{
    protocol_bench *b = (protocol_bench *)ctx;
    uint8_t out[sizeof b->packet];
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_bitwriter w;
        zl_bitwriter_init(&w, out, sizeof out);
        zl_bench_sink += (uint32_t)zl_cmdstream_write(&w, b->run, RUN);
    }
}

static void body_read(void *ctx, uint32_t n)
{
    protocol_bench *b = (protocol_bench *)ctx;
    zl_usercmd out[RUN];
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_bitreader r;
        zl_bitreader_init(&r, b->packet, b->bytes);
        zl_bench_sink +=
            (uint32_t)zl_cmdstream_read(&r, &b->plan, 999u, out, RUN) + out[RUN - 1].sequence;
    }
}

static void reset_clock(void *ctx)
{
    zl_clock_init(&((protocol_bench *)ctx)->clock, NULL);
}

/* Snapshots every 15.625 ms with a few milliseconds of jitter; the render
 * time is read once per snapshot, as a frame does. */
static void body_clock(void *ctx, uint32_t n)
{
    protocol_bench *b = (protocol_bench *)ctx;
    uint32_t i;
    uint64_t acc = 0;
    for (i = 0; i < n; i++) {
        uint64_t local = 1000000u + (uint64_t)i * 15625u + (i * 2654435761u >> 20);
        zl_clock_observe(&b->clock, 5000000u + (uint64_t)i * 15625u, local);
        acc += zl_clock_render_time(&b->clock, local, 100000u);
    }
    zl_bench_sink += (uint32_t)acc;
}

void zl_bench_protocol(void)
{
    static protocol_bench b;
    make_run(&b);
    zl_bench_note("protocol", "a run of %d commands takes %u bytes", RUN, (unsigned)b.bytes);
    zl_bench_measure("protocol", "cmdstream write, 4 commands", body_write, NULL, &b);
    zl_bench_measure("protocol", "cmdstream read, 4 commands", body_read, NULL, &b);
    zl_bench_measure("protocol", "clock observe + read", body_clock, reset_clock, &b);
}
