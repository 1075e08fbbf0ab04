/* bench_snapshot.c - cost of one client's snapshot: delta-encoding and
 * decoding the entity section with 16 to 256 moving entities. */
#include <string.h>

#include "fps.h"
#include "zl_bench.h"
#include "zl_snapshot.h"

#define PLAYERS 64
/* The client's own player: it gets the owner-only fields; writer and
 * reader must agree on it. */
#define OWN 0

static const zl_snapshot_layout layout = {&fps_player_schema, &fps_entity_schema, PLAYERS,
                                             NULL, NULL};

typedef struct snapshot_bench {
    zl_snapshot_world world;
    zl_snapshot_client client;
    zl_snapshot_receiver rx;
    /* The client's side: the same layout with its schemas prepared, as
     * zl_client decodes (the server walks the tables). */
    zl_schema_plan plans[2];
    zl_snapshot_layout reader;
    uint8_t section[ZL_MAX_PACKET * 4];
    size_t section_bytes;
    uint32_t entities;
    int decoded; /* what decoding the section once returned */
    int shared;  /* 1: encode with the tick's codes already written */
} snapshot_bench;

ZL_STATIC_ASSERT(sizeof(snapshot_bench) <= ZL_BENCH_ARENA_BYTES, snapshot_bench_fits_arena);

/* Tick 1 then tick 2 with every entity moved (origin, velocity, view), as
 * running players and flying rockets are. */
static void record(snapshot_bench *b, uint32_t tick)
{
    uint32_t e;
    zl_snapshot_world_begin(&b->world, tick);
    for (e = 0; e < b->entities; e++) {
        int32_t step = (int32_t)(tick * 7u + e);
        if (e < PLAYERS) {
            fps_player p;
            memset(&p, 0, sizeof p);
            p.origin = zl_vec3_make(ZL_FX_INT(step % 900), ZL_FX_INT(e * 10u), 0);
            p.velocity = zl_vec3_make(ZL_FX_INT(300 - step % 50), ZL_FX_INT(step % 40), 0);
            p.yaw = (zl_angle)(step * 411);
            p.health = 100;
            p.flags = FPS_PF_ON_GROUND;
            zl_snapshot_world_set(&b->world, &layout, (uint16_t)e, &p);
        } else {
            fps_entity r;
            memset(&r, 0, sizeof r);
            r.origin = zl_vec3_make(ZL_FX_INT(step % 2000), ZL_FX_INT(e), ZL_FX_INT(100));
            r.velocity = zl_vec3_make(ZL_FX_INT(1000), 0, 0);
            r.age = (uint16_t)(tick * 16u);
            r.type = FPS_ENTITY_ROCKET;
            zl_snapshot_world_set(&b->world, &layout, (uint16_t)e, &r);
        }
    }
}

/* Both ends hold tick 1; the snapshot of tick 2 is a delta against it. */
static void prepare(snapshot_bench *b, uint32_t entities)
{
    zl_bitwriter w;
    zl_bitreader r;
    const zl_snapshot_frame *f;
    b->entities = entities;
    zl_snapshot_world_init(&b->world);
    zl_snapshot_client_reset(&b->client);
    zl_snapshot_receiver_init(&b->rx);
    record(b, 1);
    zl_bitwriter_init(&w, b->section, sizeof b->section);
    zl_snapshot_write(&b->client, &b->world, &layout, 1, NULL, 0, NULL, OWN,
                      sizeof b->section * 8u, 1, &w);
    zl_bitreader_init(&r, b->section, (size_t)zl_bitwriter_finish(&w));
    zl_snapshot_read(&b->rx, &b->reader, 1, 0, OWN, &r, &f);
    zl_snapshot_acked(&b->client, 1);
    record(b, 2);
    zl_bitwriter_init(&w, b->section, sizeof b->section);
    zl_snapshot_write(&b->client, &b->world, &layout, 2, NULL, 0, NULL, OWN,
                      sizeof b->section * 8u, 2, &w);
    b->section_bytes = (size_t)zl_bitwriter_finish(&w);
    /* The decode timed below must be a whole, successful one. */
    zl_bitreader_init(&r, b->section, b->section_bytes);
    b->decoded = zl_snapshot_read(&b->rx, &b->reader, 2, 1, OWN, &r, &f);
    if (b->decoded == ZL_OK && f->count != entities)
        b->decoded = ZL_ERR_MALFORMED;
}

/* Every iteration writes the same delta: the client is wound back to the
 * moment after its first snapshot (private fields, bench only). Unless
 * `shared`, the world also forgets the entity codes of the tick, so each
 * write is the first of its tick (what one client alone costs); shared, it
 * is what each further client with the same baseline costs. */
static void encode_body(void *ctx, uint32_t n)
{
    snapshot_bench *b = (snapshot_bench *)ctx;
    uint8_t out[sizeof b->section];
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_bitwriter w;
        b->client.written = 1;
        b->client.baseline = 0;
        b->client.have_last = 0;
        if (!b->shared)
            b->world.codes_valid = 0;
        zl_bitwriter_init(&w, out, sizeof out);
        zl_bench_sink += (uint32_t)zl_snapshot_write(&b->client, &b->world, &layout, 2, NULL, 0,
                                                     NULL, OWN, sizeof out * 8u, 2, &w);
    }
}

/* Every iteration decodes the same section again (the receiver forgets
 * that it already has tick 2; private fields, bench only). */
static void decode_body(void *ctx, uint32_t n)
{
    snapshot_bench *b = (snapshot_bench *)ctx;
    uint32_t i;
    for (i = 0; i < n; i++) {
        zl_bitreader r;
        const zl_snapshot_frame *f;
        b->rx.have_newest = 0;
        zl_bitreader_init(&r, b->section, b->section_bytes);
        zl_bench_sink += (uint32_t)zl_snapshot_read(&b->rx, &b->reader, 2, 1, OWN, &r, &f);
        zl_bench_sink += f ? f->count : 0u;
    }
}

void zl_bench_snapshot(void)
{
    snapshot_bench *b = (snapshot_bench *)zl_bench_arena(sizeof *b);
    static const uint32_t sizes[5] = {16, 32, 64, 128, 256};
    static const char *const encode_names[5] = {
        "encode 16 entities", "encode 32 entities", "encode 64 entities",
        "encode 128 entities", "encode 256 entities"};
    static const char *const shared_names[5] = {
        "encode 16, codes shared", "encode 32, codes shared", "encode 64, codes shared",
        "encode 128, codes shared", "encode 256, codes shared"};
    static const char *const decode_names[5] = {
        "decode 16 entities", "decode 32 entities", "decode 64 entities",
        "decode 128 entities", "decode 256 entities"};
    uint64_t enc[5], dec[5];
    int i;
    zl_schema_plan_init(&b->plans[0], &fps_player_schema);
    zl_schema_plan_init(&b->plans[1], &fps_entity_schema);
    b->reader = layout;
    b->reader.player_plan = &b->plans[0];
    b->reader.entity_plan = &b->plans[1];
    for (i = 0; i < 5; i++) {
        prepare(b, sizes[i]);
        zl_bench_note("snapshot", "%u moving entities: delta section %u bytes, decodes %s",
                      (unsigned)sizes[i], (unsigned)b->section_bytes,
                      b->decoded == ZL_OK ? "whole" : zl_strerror(b->decoded));
        b->shared = 0;
        enc[i] = zl_bench_measure("snapshot", encode_names[i], encode_body, NULL, b);
        b->shared = 1;
        zl_bench_measure("snapshot", shared_names[i], encode_body, NULL, b);
        dec[i] = zl_bench_measure("snapshot", decode_names[i], decode_body, NULL, b);
    }
    zl_bench_growth("encode", sizes, enc, 5);
    zl_bench_growth("decode", sizes, dec, 5);
    if (zl_port_timer_exact())
        zl_bench_target("snapshot", "Cortex-M3 decode, 16 moving entities", dec[0], 15000u);
}
