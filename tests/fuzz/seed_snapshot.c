/* seed_snapshot.c - writes the snapshot harness's seed corpus with the
 * server's own writer, so the seeds decode under the current wire format.
 * Built and run by tools/fuzz-seeds.sh; not part of any test. */
/* It takes the harness whole (its layout, its record format) and adds a
 * main; each seed is one match of the harness's layout, and is checked by
 * decoding it before it is written. */
#include <stdio.h>

#include "fuzz_snapshot.c"

#define SEED_SECTIONS 12
#define SEED_BYTES 256 /* one section's room, well under the 11-bit length */

typedef struct seed_plan {
    const char *name;
    uint32_t lost_every;  /* every n-th packet never acknowledged (0: none) */
    uint32_t budget_bits; /* the section's room */
    int teleport_at;      /* the snapshot where player 3 teleports (-1: none) */
    int cut_last;         /* the last sections cut to half their bytes */
} seed_plan;

static zl_snapshot_world the_world;
static zl_snapshot_client the_client;

/* Sixteen runners speeding up and turning, four things drifting, player 5
 * leaving and coming back, a thing entering halfway. */
static void fill_world(uint32_t tick, int step, const seed_plan *plan)
{
    uint16_t e;
    zl_snapshot_world_begin(&the_world, tick);
    for (e = 0; e < fz_layout.players; e++) {
        fz_player p;
        int32_t speed = 2 + e % 5 + step / 3;
        if (e == 5 && step >= 4 && step < 7)
            continue;
        memset(&p, 0, sizeof p);
        p.origin.x = ZL_FX_INT(-2000 + 200 * e + speed * step);
        p.origin.y = ZL_FX_INT(100 * e - (e % 3) * step);
        p.origin.z = ZL_FX_INT(step % 4 == 0 ? 8 : 0);
        p.yaw = (zl_angle)(e * 4096 + step * (e % 4) * 300);
        p.ammo = (uint16_t)(100 - step);
        p.flags = (uint8_t)(plan->teleport_at >= 0 && e == 3 && step >= plan->teleport_at);
        if (p.flags)
            p.origin.x = ZL_FX_INT(3000);
        p.lean = (int8_t)(step % 7 - 3);
        zl_snapshot_world_set(&the_world, &fz_layout, e, &p);
    }
    for (e = 0; e < 4 + (step >= SEED_SECTIONS / 2); e++) {
        fz_thing t;
        memset(&t, 0, sizeof t);
        t.x = ZL_FX_INT(50 * e + step);
        t.y = ZL_FX_INT(-30 * e);
        t.counter = (uint32_t)(step * 5 + e);
        zl_snapshot_world_set(&the_world, &fz_layout, (uint16_t)(fz_layout.players + e), &t);
    }
}

/* One seed: SEED_SECTIONS snapshots two ticks apart, each packet
 * acknowledged two snapshots later unless lost. Returns the sections the
 * harness's receiver decodes, or -1 when the file cannot be written. */
static int write_seed(const char *dir, const seed_plan *plan)
{
    uint8_t out[SEED_SECTIONS * (SEED_BYTES + 3)];
    uint8_t bytes[SEED_BYTES];
    uint32_t tick = 1000;
    size_t used = 0;
    int step, decoded = 0;
    char path[512];
    FILE *f;
    zl_snapshot_world_init(&the_world);
    zl_snapshot_client_reset(&the_client);
    zl_snapshot_receiver_init(&the_rx);
    for (step = 0; step < SEED_SECTIONS; step++) {
        zl_bitwriter w;
        zl_bitreader r;
        const zl_snapshot_frame *frame;
        size_t len;
        int n, delta;
        fill_world(tick + 2u, step, plan);
        zl_bitwriter_init(&w, bytes, sizeof bytes);
        REQUIRE(zl_snapshot_write(&the_client, &the_world, &fz_layout, tick + 2u, NULL, 0, NULL,
                                  0, plan->budget_bits, (uint16_t)step, &w) >= 0);
        n = zl_bitwriter_finish(&w);
        REQUIRE(n >= 0);
        len = (size_t)n;
        delta = !the_client.last.full;
        if (plan->cut_last && step >= SEED_SECTIONS - 2)
            len /= 2;
        zl_bitreader_init(&r, bytes, len);
        decoded += zl_snapshot_read(&the_rx, &fz_layout, tick + 2u, delta, 0, &r, &frame) == ZL_OK;
        out[used] = 2; /* the tick's advance over the previous section */
        out[used + 1] = (uint8_t)len;
        out[used + 2] = (uint8_t)(len >> 8 | (size_t)delta << 7);
        memcpy(out + used + 3, bytes, len);
        used += 3 + len;
        tick += 2;
        if (step >= 2 && !(plan->lost_every && (step - 2) % plan->lost_every == 0))
            zl_snapshot_acked(&the_client, (uint16_t)(step - 2));
    }
    snprintf(path, sizeof path, "%s/%s", dir, plan->name);
    f = fopen(path, "wb");
    if (!f || fwrite(out, 1, used, f) != used || fclose(f) != 0)
        return -1;
    return decoded;
}

int main(int argc, char **argv)
{
    static const seed_plan plans[] = {
        {"deltas", 0, 8 * SEED_BYTES, -1, 0},
        {"lossy_teleport", 3, 8 * SEED_BYTES, 6, 0},
        {"budget", 0, 400, -1, 0},
        {"truncated_lossy", 3, 8 * SEED_BYTES, -1, 1},
    };
    size_t i;
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    for (i = 0; i < ZL_COUNTOF(plans); i++) {
        int decoded = write_seed(argv[1], &plans[i]);
        if (decoded < 0) {
            fprintf(stderr, "%s: cannot write %s/%s\n", argv[0], argv[1], plans[i].name);
            return 1;
        }
        printf("%-16s %2d of %d sections decode\n", plans[i].name, decoded, SEED_SECTIONS);
    }
    return 0;
}
