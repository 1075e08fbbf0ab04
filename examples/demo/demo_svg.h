/* demo_svg.h - a small SVG writer: rectangles, lines, polylines and escaped
 * text into a file, enough for the demo's pictures. */
#ifndef DEMO_SVG_H
#define DEMO_SVG_H

#include <stdio.h>

typedef struct demo_svg {
    FILE *f;
} demo_svg;

/* Creates the file with a width x height canvas on a white background.
 * Returns 0, or -1 when the file cannot be created. */
int demo_svg_open(demo_svg *s, const char *path, double width, double height);

/* Shapes. style is raw attribute text, e.g. "fill=\"none\" stroke=\"red\"". */
void demo_svg_rect(demo_svg *s, double x, double y, double w, double h, const char *style);
void demo_svg_line(demo_svg *s, double x1, double y1, double x2, double y2, const char *style);
void demo_svg_circle(demo_svg *s, double x, double y, double r, const char *style);

/* A polyline: begin, any number of points, end. */
void demo_svg_polyline_begin(demo_svg *s, const char *style);
void demo_svg_point(demo_svg *s, double x, double y);
void demo_svg_polyline_end(demo_svg *s);

/* Text at (x, y) (baseline), printf-style; <, > and & are escaped. */
void demo_svg_text(demo_svg *s, double x, double y, const char *style, const char *fmt, ...);

/* Opens a group whose drawing is clipped to the rectangle; id names the
 * clip path and must be unique in the document. Close with group_end. */
void demo_svg_clip(demo_svg *s, int id, double x, double y, double w, double h);
void demo_svg_group_end(demo_svg *s);

/* Finishes the document. Returns 0, or -1 when a write failed. */
int demo_svg_close(demo_svg *s);

#endif
