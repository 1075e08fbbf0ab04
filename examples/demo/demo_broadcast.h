/* demo_broadcast.h - zl_server --broadcast DIR: the spectator stream as
 * files any HTTP server serves (fragment-N.zld, index.txt), each written once. */
#ifndef DEMO_BROADCAST_H
#define DEMO_BROADCAST_H

#include <stdio.h>

#include "demo_options.h"
#include "zl_broadcast.h"

typedef struct demo_broadcast {
    zl_broadcast tv;
    char dir[DEMO_TEXT_MAX];
    FILE *text;          /* where lines go */
    uint32_t tick_rate;  /* the server's */
    uint32_t written;    /* fragment files written */
    uint32_t failed;     /* files that could not be written */
    uint32_t largest;    /* bytes of the largest fragment */
} demo_broadcast;

/* Starts writing s's spectator stream into the folder o->broadcast (which
 * must exist), with o's delay and fragment length. 0, or -1 after printing
 * why to text. */
int demo_broadcast_open(demo_broadcast *b, const demo_options *o, zl_server *s, FILE *text);

/* Feeds the server's newest tick: call after every zl_server_update. */
void demo_broadcast_update(demo_broadcast *b, zl_server *s);

/* Publishes what is held (the match is over) and prints the totals:
 * fragments written (each once), bytes, keyframe and delta sizes. */
void demo_broadcast_close(demo_broadcast *b, zl_server *s);

#endif
