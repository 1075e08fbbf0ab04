/* demo_replay_main.c - zl_replay FILE: re-runs a match record through the
 * FPS rules, with no network, and prints its hash, ticks, players and size. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fps.h"
#include "zl_replay.h"

static zl_replay replay;
static fps_game game;

/* The whole file into memory: a record is read in place. */
static uint8_t *read_file(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (*len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = (uint8_t *)malloc(*len ? (size_t)*len : 1u)) != NULL &&
        fread(data, 1, (size_t)*len, f) != (size_t)*len) {
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    zl_game g;
    uint8_t *data;
    long len = 0;
    int rc;
    clock_t t0;
    double seconds, player_minutes;
    if (argc != 2) {
        fprintf(stderr, "usage: zl_replay FILE\n"
                        "  re-runs the match record FILE (zl_server_record_start) and prints\n"
                        "  its match hash; exit status 0 when it equals the recorded one\n");
        return 2;
    }
    data = read_file(argv[1], &len);
    if (!data) {
        fprintf(stderr, "zl_replay: cannot read %s\n", argv[1]);
        return 2;
    }
    fps_game_init(&game);
    g = fps_game_interface(&game);
    t0 = clock();
    rc = zl_replay_init(&replay, &g, data, (size_t)len, NULL, NULL);
    if (rc == ZL_OK)
        rc = zl_replay_run(&replay);
    seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    if (rc != ZL_OK && rc != ZL_ERR_DESYNC) {
        fprintf(stderr, "zl_replay: %s refused at tick %u: %s\n", argv[1], replay.tick,
                zl_strerror(rc));
        free(data);
        return 1;
    }
    player_minutes = (double)replay.player_ticks / (60.0 * replay.rd.header.tick_rate);
    printf("hash 0x%08x (recorded 0x%08x: %s)\n", replay.hash, replay.recorded_hash,
           rc == ZL_OK ? "same" : "DESYNC");
    printf("ticks %u at %u Hz, players %u (leaves %u), commands %u\n", replay.ticks,
           replay.rd.header.tick_rate, replay.joins, replay.leaves,
           replay.commands);
    printf("size %ld bytes, %.0f bytes per player-minute\n", len,
           player_minutes > 0 ? (double)len / player_minutes : 0.0);
    printf("replay %.3f s, %.0f ticks/s\n", seconds,
           seconds > 0 ? replay.ticks / seconds : 0.0);
    free(data);
    return rc == ZL_OK ? 0 : 1;
}
