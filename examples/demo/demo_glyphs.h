/* demo_glyphs.h - a tiny bitmap font of our own (3 x 5 pixels a character) for
 * the window's text, since SDL draws no text. */
#ifndef DEMO_GLYPHS_H
#define DEMO_GLYPHS_H

#include <stdint.h>

#define DEMO_GLYPH_W 3
#define DEMO_GLYPH_H 5

/* The rows of c's glyph, top first, in rows[0..DEMO_GLYPH_H-1]: bit 2 is
 * the left column, bit 0 the right. Lower case draws as upper case; a
 * character without a glyph draws as '?'. */
void demo_glyph_rows(char c, uint8_t rows[DEMO_GLYPH_H]);

#endif
