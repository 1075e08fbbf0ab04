/* demo_svg.c - writes SVG elements with one decimal of precision, which is
 * a tenth of a pixel: plenty, and it keeps the pictures small. */
#include <stdarg.h>

#include "demo_svg.h"

int demo_svg_open(demo_svg *s, const char *path, double width, double height)
{
    s->f = fopen(path, "w");
    if (!s->f)
        return -1;
    fprintf(s->f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"12\">\n",
            width, height, width, height);
    demo_svg_rect(s, 0, 0, width, height, "fill=\"white\"");
    return 0;
}

void demo_svg_rect(demo_svg *s, double x, double y, double w, double h, const char *style)
{
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n", x, y,
            w < 0 ? 0 : w, h < 0 ? 0 : h, style);
}

void demo_svg_line(demo_svg *s, double x1, double y1, double x2, double y2, const char *style)
{
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" %s/>\n", x1, y1, x2, y2,
            style);
}

void demo_svg_circle(demo_svg *s, double x, double y, double r, const char *style)
{
    fprintf(s->f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>\n", x, y, r, style);
}

void demo_svg_polyline_begin(demo_svg *s, const char *style)
{
    fprintf(s->f, "<polyline %s points=\"", style);
}

void demo_svg_point(demo_svg *s, double x, double y)
{
    fprintf(s->f, "%.1f,%.1f ", x, y);
}

void demo_svg_polyline_end(demo_svg *s)
{
    fprintf(s->f, "\"/>\n");
}

void demo_svg_text(demo_svg *s, double x, double y, const char *style, const char *fmt, ...)
{
    char text[512];
    const char *p;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, style);
    for (p = text; *p; p++) {
        if (*p == '<')
            fputs("&lt;", s->f);
        else if (*p == '>')
            fputs("&gt;", s->f);
        else if (*p == '&')
            fputs("&amp;", s->f);
        else
            fputc(*p, s->f);
    }
    fputs("</text>\n", s->f);
}

void demo_svg_clip(demo_svg *s, int id, double x, double y, double w, double h)
{
    fprintf(s->f,
            "<clipPath id=\"clip%d\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/></clipPath>\n<g clip-path=\"url(#clip%d)\">\n",
            id, x, y, w, h, id);
}

void demo_svg_group_end(demo_svg *s)
{
    fputs("</g>\n", s->f);
}

int demo_svg_close(demo_svg *s)
{
    int bad;
    fputs("</svg>\n", s->f);
    bad = ferror(s->f);
    return fclose(s->f) != 0 || bad ? -1 : 0;
}
