/* demo_client_demo.h - zl_client's demos: --record writes the client's fragments
 * to a file; --play shows a file in the terminal view, --timedemo as fast as it can. */
#ifndef DEMO_CLIENT_DEMO_H
#define DEMO_CLIENT_DEMO_H

#include <stdio.h>

#include "demo_options.h"
#include "zl_client.h"

/* Keyframes of a recording: a seek lands at most this far before its target. */
#define DEMO_CLIENT_DEMO_KEYFRAME_US 5000000u

/* Starts recording c into the file at path (created or emptied). 0, or -1
 * after printing why to stderr. */
int demo_client_demo_record_start(zl_client *c, const char *path);

/* Ends the recording (the last fragment written, the file closed) and
 * says on text what it wrote. Nothing when none was started. */
void demo_client_demo_record_stop(zl_client *c, FILE *text);

/* Plays the demo file o->play from o->seek_s seconds in: in the terminal
 * view at the recorded speed, or with o->timedemo as fast as possible,
 * then prints frames per second and the hash of every frame drawn.
 * Returns the exit status. */
int demo_client_demo_play(const demo_options *o, FILE *text);

#endif
