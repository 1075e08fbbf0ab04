/* seed_events.c - writes the events harness's seed corpus with the
 * server's own section writer, so the seeds decode under the current wire
 * format. Built and run by tools/fuzz-seeds.sh; not part of any test. */
/* It takes the harness whole (the reader's held players and bases, the
 * record format) and adds a main: the writer's bases are the reader's, so
 * every event is coded as that reader expects. Each seed is checked by
 * reading it back before it is written. */
#include <stdio.h>

#include "fuzz_events.c"

#define SEED_SECTIONS 10
#define SEED_BYTES 255 /* a record's length is one byte */

typedef struct seed_plan {
    const char *name;
    uint32_t lost_every; /* every n-th section never acknowledged (0: none) */
    int kinds;           /* 1: footsteps only; 2: shots, hits and kills too */
} seed_plan;

static zl_event_log the_log;
static zl_event_sender the_sender;
static zl_schema_plan the_plan;

/* The events of one tick: a footstep of an even (held) and an odd player,
 * now and then a jump; with `kinds` 2 also a shot, its hit and a kill
 * from a source nobody holds. */
static void log_events(uint32_t tick, int step, const seed_plan *plan)
{
    zl_event ev;
    int k;
    for (k = 0; k < 2 + (step % 3 == 0) + 2 * (plan->kinds == 2); k++) {
        memset(&ev, 0, sizeof ev);
        ev.tick = tick;
        ev.target = -1;
        ev.source = (int32_t)((step + k) % 6);
        ev.type = k == 2 ? FPS_EV_JUMP : FPS_EV_FOOTSTEP;
        ev.origin = held.origin;
        ev.origin.y += ZL_FX_INT(step);
        if (k == 3) {
            ev.type = FPS_EV_FIRE;
            ev.dir.x = ZL_FX_ONE;
            ev.param = 1;
        } else if (k == 4) {
            ev.type = step % 2 ? FPS_EV_HIT : FPS_EV_KILL;
            ev.source = -1;
            ev.target = 2;
        }
        REQUIRE(zl_event_log_append(&the_log, &the_plan, &ev, 0) == ZL_OK);
    }
}

/* One seed: SEED_SECTIONS sections a tick apart, the first full (no
 * reference), each acknowledged at once unless lost. Returns the events
 * the harness's queue received, or -1 when the file cannot be written. */
static int write_seed(const char *dir, const seed_plan *plan, zl_event_bases *bases)
{
    uint8_t out[SEED_SECTIONS * (SEED_BYTES + 2)];
    uint8_t bytes[SEED_BYTES];
    zl_event_ref ref = {0, 0}, read_ref = {0, 0};
    zl_event_audience audience = {3, NULL};
    uint32_t tick = 1000;
    size_t used = 0;
    int step;
    char path[512];
    FILE *f;
    zl_event_log_init(&the_log);
    zl_event_sender_reset(&the_sender, &the_log);
    zl_event_queue_init(&queue);
    for (step = 0; step < SEED_SECTIONS; step++) {
        zl_event_section sec;
        zl_bitwriter w;
        zl_bitreader r;
        uint8_t advance = (uint8_t)(step == 0 ? 1 : 2); /* odd: without a reference */
        int n;
        tick += advance;
        log_events(tick, step, plan);
        zl_event_section_choose(&the_sender, &the_log, &audience, bases, &ref, tick, &sec);
        zl_bitwriter_init(&w, bytes, sizeof bytes);
        REQUIRE(zl_event_section_write(&the_log, bases, &ref, tick, 8, 8 * SEED_BYTES, &w,
                                       &sec) > 0);
        n = zl_bitwriter_finish(&w);
        REQUIRE(n > 0);
        zl_event_sender_sent(&the_sender, (uint16_t)step, &sec);
        if (!(plan->lost_every && step % (int)plan->lost_every == 1))
            zl_event_sender_acked(&the_sender, (uint16_t)step);
        if (advance & 1u)
            memset(&read_ref, 0, sizeof read_ref);
        zl_bitreader_init(&r, bytes, (size_t)n);
        REQUIRE(zl_event_section_read(&queue, &fps_event_schema, bases, &read_ref, tick, &r) ==
                ZL_OK);
        out[used] = (uint8_t)n;
        out[used + 1] = advance;
        memcpy(out + used + 2, bytes, (size_t)n);
        used += 2u + (size_t)n;
    }
    snprintf(path, sizeof path, "%s/%s", dir, plan->name);
    f = fopen(path, "wb");
    if (!f || fwrite(out, 1, used, f) != used || fclose(f) != 0)
        return -1;
    return (int)queue.stats.received;
}

int main(int argc, char **argv)
{
    static const seed_plan plans[] = {
        {"footsteps", 0, 1},
        {"footsteps_lossy", 3, 1},
        {"fights", 0, 2},
        {"fights_lossy", 2, 2},
    };
    const zl_game rules = fps_game_interface(NULL);
    zl_event_bases bases;
    size_t i;
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    REQUIRE(zl_schema_plan_init(&the_plan, &fps_event_schema) == ZL_OK);
    hold_even_players(&rules, &bases);
    bases.every = even; /* the writer's world is what the reader holds */
    bases.plan = &the_plan;
    for (i = 0; i < ZL_COUNTOF(plans); i++) {
        int received = write_seed(argv[1], &plans[i], &bases);
        if (received < 0) {
            fprintf(stderr, "%s: cannot write %s/%s\n", argv[0], argv[1], plans[i].name);
            return 1;
        }
        printf("%-16s %3d events received from %d sections\n", plans[i].name, received,
               SEED_SECTIONS);
    }
    return 0;
}
