/* demo_join.h - a person's client program joining a server over UDP: the
 * socket, the connect (token or plain), the first lines, the clean goodbye. */
#ifndef DEMO_JOIN_H
#define DEMO_JOIN_H

#include <stdio.h>

#include "demo_net.h"
#include "demo_player.h"

/* Large (the player and the network): static storage. */
typedef struct demo_join {
    demo_net net;
    demo_player player;
    const demo_options *opt;
    FILE *text;        /* where the program's lines go */
    const char *name;  /* the program's name, for its lines */
    uint8_t connected, welcomed; /* their lines are out */
    uint16_t msec;       /* of each command: one frame at --fps */
    uint64_t next_frame; /* when the next command is due, us */
} demo_join;

/* Opens the socket, starts the client (a bot plays unless the caller sets
 * player.input afterwards) and connects as o says (--token or --address).
 * Prints why on failure; returns 0 or -1. o must outlive j. */
int demo_join_start(demo_join *j, const demo_options *o, FILE *text, const char *name);

/* Takes every datagram due, updates the client, and prints once each the
 * "connected" and the gamestate lines. */
void demo_join_poll(demo_join *j, uint64_t now_us);

/* Plays every frame due (demo_player_frame): commands cover real time
 * exactly, msec each, however seldom the caller comes; a stall of over
 * 100 ms is skipped, not replayed as a burst. */
void demo_join_frame(demo_join *j, uint64_t now_us, int may_fire);

/* Hands due datagrams to the socket and sleeps until about the next
 * frame (at most 1 ms at a time). */
void demo_join_rest(demo_join *j, uint64_t now_us);

/* Why the server ended the connection, or NULL while it lasts. */
const char *demo_join_end_reason(const demo_join *j);

/* Says goodbye (waiting out the fake lag), closes the socket and prints
 * the closing line with the net graph's totals. */
void demo_join_finish(demo_join *j);

#endif
