/* demo_glyphs.c - the window's font: each glyph is five octal digits, one row
 * of three pixels each, top to bottom. */
#include <string.h>

#include "demo_glyphs.h"

static const char *const glyphs[] = {
    "075557", "126227", "271747", "371717", "455711", "574717", "674757", "771111", "875757",
    "975717", "A25755", "B65656", "C34443", "D65556", "E74647", "F74644", "G34553", "H55755",
    "I72227", "J11152", "K55655", "L44447", "M57755", "N65555", "O25552", "P65644", "Q25563",
    "R65655", "S34716", "T72222", "U55557", "V55552", "W55775", "X55255", "Y55222", "Z71247",
    " 00000", ".00002", ",00024", ":02020", "%51245", "/11244", "-00700", "+02720", "(24442",
    ")42224", "=07070", ">42124", "<12421", "?71202", "!22202", "'22000", "[64446", "]31113",
    "_00007", "#57575", "*05250",
};

static const char *find(char c)
{
    size_t i;
    for (i = 0; i < sizeof glyphs / sizeof glyphs[0]; i++)
        if (glyphs[i][0] == c)
            return glyphs[i];
    return NULL;
}

void demo_glyph_rows(char c, uint8_t rows[DEMO_GLYPH_H])
{
    const char *g = find(c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c);
    int r;
    if (!g)
        g = find('?');
    for (r = 0; r < DEMO_GLYPH_H; r++)
        rows[r] = (uint8_t)(g[1 + r] - '0');
}
