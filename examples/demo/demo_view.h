/* demo_view.h - zl_client's terminal view: the arena from above in ANSI
 * text, the keyboard turned into commands, and a heads-up line of the net graph. */
#ifndef DEMO_VIEW_H
#define DEMO_VIEW_H

#include "demo_player.h"
#include "demo_record.h"
#include "zl_client.h"

#define DEMO_VIEW_COLS 64 /* 32 units a column */
#define DEMO_VIEW_ROWS 32 /* 64 units a row: terminal cells are twice as tall */

typedef struct demo_view {
    char map[DEMO_VIEW_ROWS][DEMO_VIEW_COLS]; /* walls, probed once */
    /* Keys: a terminal reports presses, not releases, so a press holds
     * its input until this time (the key's repeat keeps it held). */
    uint32_t forward_until, back_until, left_until, right_until, fire_until;
    int32_t turn;            /* binary angle units to turn by, from the keys */
    zl_angle yaw;
    uint8_t jump, crouch, reload, weapon, face_nearest;
    uint8_t show_server;     /* draw the server's view of us beside ours */
    uint8_t quit;
    uint32_t hit_ms;         /* when we last saw a shot of ours land */
} demo_view;

/* Takes the terminal (raw keys, hidden cursor, cleared screen) and maps
 * the arena. Returns 0, or -1 without a terminal. */
int demo_view_open(demo_view *v);
void demo_view_close(demo_view *v);

/* Reads every waiting key. */
void demo_view_keys(demo_view *v, uint32_t now_ms);

/* The command for one frame of msec milliseconds from the keys held. */
void demo_view_command(demo_view *v, const zl_client *c, int self, uint32_t now_ms, uint16_t msec,
                       zl_usercmd *out);

/* Draws the arena as p's client shows it at now_us, with the others' shots
 * it played lately, its kill feed and the net graph in net. */
void demo_view_draw(demo_view *v, const demo_player *p, uint64_t now_us, const demo_rec_net *net);

/* Draws the arena as a spectator sees it: every player in f (NULL: none
 * yet), then one line of status text (shorter than 200 characters). */
void demo_view_draw_frame(demo_view *v, const zl_snapshot_frame *f, const char *status);

#endif
