/* demo_pictures.h - the demo's two SVG pictures: lag-compensated hits (as
 * Source's sv_showimpacts) and a timeline of each client's link. */
#ifndef DEMO_PICTURES_H
#define DEMO_PICTURES_H

#include "demo_match.h"

/* The arena with every server hit, and close-ups of the hits where the
 * rewind mattered most (and of any disagreement): the box the shooter drew
 * (red), the server's rewound box (blue), the target's present box
 * (green). Returns 0, or -1 when the file cannot be written. */
int demo_pictures_hits(const demo_match *m, const char *path);

/* Round trip, prediction error and snapshot size over time, one line per
 * client. Returns 0, or -1 when the file cannot be written. */
int demo_pictures_timeline(const demo_match *m, const char *path);

#endif
