/* demo_pictures.c - draws the hits and the timeline with demo_svg: world
 * units and milliseconds in, pixels out. */
#include <math.h>
#include <string.h>

#include "demo_arena.h"
#include "demo_pictures.h"
#include "demo_svg.h"

#define MAP_X 20.0
#define MAP_Y 70.0
#define MAP_PX 480.0
#define MAP_HALF 1056.0 /* the arena with its walls */
#define PANEL_X 520.0
#define PANEL_W 340.0
#define PANEL_H 210.0
#define PANELS 10
#define VIEW_PX 150.0

static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define COLOURS (sizeof colours / sizeof colours[0])

#define RED "fill=\"none\" stroke=\"#d00\" stroke-width=\"3\""
#define BLUE "fill=\"none\" stroke=\"#06f\" stroke-width=\"1.5\" stroke-dasharray=\"4,2\""
#define GREEN "fill=\"none\" stroke=\"#090\" stroke-width=\"1.5\""

static double units(zl_fx v)
{
    return v / 65536.0;
}

static double map_x(double x)
{
    return MAP_X + (x + MAP_HALF) * MAP_PX / (2 * MAP_HALF);
}

static double map_y(double y)
{
    return MAP_Y + (MAP_HALF - y) * MAP_PX / (2 * MAP_HALF);
}

static void draw_arena(demo_svg *s)
{
    const int32_t cell = 32;
    int32_t x, y;
    demo_svg_rect(s, MAP_X, MAP_Y, MAP_PX, MAP_PX, "fill=\"#f4f4f4\" stroke=\"#999\"");
    for (y = -(int32_t)MAP_HALF; y < (int32_t)MAP_HALF; y += cell)
        for (x = -(int32_t)MAP_HALF; x < (int32_t)MAP_HALF; x += cell) {
            demo_cell c = demo_arena_cell(x + cell / 2, y + cell / 2, cell / 2);
            const char *style = c.top >= 500 ? "fill=\"#555\""
                                : !c.low     ? "fill=\"#bbb\" fill-opacity=\"0.5\""
                                             : "fill=\"#999\"";
            if (c.top > 0)
                demo_svg_rect(s, map_x(x), map_y(y + cell), cell * MAP_PX / (2 * MAP_HALF),
                              cell * MAP_PX / (2 * MAP_HALF), style);
        }
}

static void map_box(demo_svg *s, const zl_box *b, const char *style)
{
    demo_svg_rect(s, map_x(units(b->min.x)), map_y(units(b->max.y)),
                  (units(b->max.x) - units(b->min.x)) * MAP_PX / (2 * MAP_HALF),
                  (units(b->max.y) - units(b->min.y)) * MAP_PX / (2 * MAP_HALF), style);
}

static double centre_distance(const zl_box *a, const zl_box *b)
{
    double dx = units(a->min.x + a->max.x - b->min.x - b->max.x) / 2;
    double dy = units(a->min.y + a->max.y - b->min.y - b->max.y) / 2;
    double dz = units(a->min.z + a->max.z - b->min.z - b->max.z) / 2;
    return sqrt(dx * dx + dy * dy + dz * dz);
}

static int has_box(const zl_box *b)
{
    return b->max.x > b->min.x;
}

/* The verdicts worth a close-up: disagreements first, then the hits the
 * rewind moved the most. */
static int pick_panels(const demo_match *m, const demo_rec_verdict *pick[PANELS])
{
    int n = 0, k;
    uint32_t i;
    for (i = 0; i < m->verdicts && n < PANELS / 2; i++) {
        const demo_rec_shot *sight = demo_match_sight(m, &m->verdict[i]);
        if (sight && sight->target != m->verdict[i].target)
            pick[n++] = &m->verdict[i];
    }
    while (n < PANELS) {
        const demo_rec_verdict *best = NULL;
        double best_d = -1;
        for (i = 0; i < m->verdicts; i++) {
            const demo_rec_verdict *v = &m->verdict[i];
            int taken = 0;
            double d;
            /* A target already dead in the present has no box to compare. */
            if (v->target < 0 || !has_box(&v->rewound) || !has_box(&v->current))
                continue;
            for (k = 0; k < n; k++)
                taken |= pick[k] == v;
            d = centre_distance(&v->rewound, &v->current);
            if (!taken && d > best_d) {
                best = v;
                best_d = d;
            }
        }
        if (!best)
            break;
        pick[n++] = best;
    }
    return n;
}

/* A close-up: from above around the target, and along the shot as the
 * shooter looked (sideways offset from the ray, height). */
typedef struct frame {
    double x0, y0;       /* panel pixel origin of the view */
    double cx, cy, zoom; /* world centre and pixels per unit */
} frame;

static void view_box(demo_svg *s, const frame *f, double u0, double v0, double u1, double v1,
                     const char *style)
{
    demo_svg_rect(s, f->x0 + VIEW_PX / 2 + (u0 - f->cx) * f->zoom,
                  f->y0 + VIEW_PX / 2 - (v1 - f->cy) * f->zoom, (u1 - u0) * f->zoom,
                  (v1 - v0) * f->zoom, style);
}

static double view_x(const frame *f, double u)
{
    return f->x0 + VIEW_PX / 2 + (u - f->cx) * f->zoom;
}

static double view_y(const frame *f, double v)
{
    return f->y0 + VIEW_PX / 2 - (v - f->cy) * f->zoom;
}

static void top_box(demo_svg *s, const frame *f, const zl_box *b, const char *style)
{
    if (has_box(b))
        view_box(s, f, units(b->min.x), units(b->min.y), units(b->max.x), units(b->max.y), style);
}

/* The shot's horizontal frame: unit direction (dx, dy) and its right. */
typedef struct aim {
    double ex, ey, ez;   /* the eye */
    double dx, dy, dz;   /* the direction, scaled to unit length across the floor */
} aim;

/* The box seen from the shooter: its extent across the ray (right of it
 * positive) and in height. */
static void side_box(demo_svg *s, const frame *f, const zl_box *b, const aim *a, const char *style)
{
    double lo = 1e9, hi = -1e9;
    int corner;
    if (!has_box(b))
        return;
    for (corner = 0; corner < 4; corner++) {
        double x = units(corner & 1 ? b->max.x : b->min.x) - a->ex;
        double y = units(corner & 2 ? b->max.y : b->min.y) - a->ey;
        double u = x * a->dy - y * a->dx;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    view_box(s, f, lo, units(b->min.z), hi, units(b->max.z), style);
}

static void box_centre(const zl_box *b, double *x, double *y, double *z)
{
    *x = units(b->min.x + b->max.x) / 2;
    *y = units(b->min.y + b->max.y) / 2;
    *z = units(b->min.z + b->max.z) / 2;
}

static void draw_panel(demo_svg *s, const demo_match *m, const demo_rec_verdict *v, int index,
                       double x, double y)
{
    static const char *weapons[] = {"rifle", "pistol", "launcher"};
    const demo_rec_shot *sight = demo_match_sight(m, v);
    const zl_box *focus = has_box(&v->rewound) ? &v->rewound
                          : sight && has_box(&sight->drawn) ? &sight->drawn
                                                             : &v->current;
    int seen = sight && sight->target >= 0, moved = has_box(&v->rewound) && has_box(&v->current);
    double fx, fy, fz, len, along, span = moved ? centre_distance(&v->rewound, &v->current) + 80 : 120;
    frame top, side;
    aim a;
    a.ex = units(v->eye.x);
    a.ey = units(v->eye.y);
    a.ez = units(v->eye.z);
    len = sqrt(units(v->dir.x) * units(v->dir.x) + units(v->dir.y) * units(v->dir.y));
    len = len > 0 ? len : 1;
    a.dx = units(v->dir.x) / len;
    a.dy = units(v->dir.y) / len;
    a.dz = units(v->dir.z) / len;
    box_centre(focus, &fx, &fy, &fz);
    demo_svg_rect(s, x, y, PANEL_W - 10, PANEL_H - 10, "fill=\"none\" stroke=\"#ccc\"");
    demo_svg_text(s, x + 6, y + 16, "", "slot %ld fires at slot %ld, %s", (long)v->shooter,
                  (long)(v->target >= 0 ? v->target : seen ? sight->target : -1),
                  v->weapon < 3 ? weapons[v->weapon] : "?");
    if (seen && sight->target == v->target && moved)
        demo_svg_text(s, x + 6, y + 30, "font-size=\"11\"", "both hit; rewound %.0f units",
                      centre_distance(&v->rewound, &v->current));
    else if (seen && sight->target == v->target)
        demo_svg_text(s, x + 6, y + 30, "font-size=\"11\"", "both hit (it was dead by then)");
    else
        demo_svg_text(s, x + 6, y + 30, "font-size=\"11\"", "client %s, server %s",
                      seen ? "hit" : "missed", v->target >= 0 ? "hit" : "found nobody there");
    /* From above, centred between the rewound and present boxes. */
    top.x0 = x + 6;
    top.y0 = y + 40;
    top.cx = fx;
    top.cy = fy;
    if (moved) {
        double cx, cy, cz;
        box_centre(&v->current, &cx, &cy, &cz);
        top.cx = (fx + cx) / 2;
        top.cy = (fy + cy) / 2;
    }
    top.zoom = VIEW_PX / (span < 120 ? 120 : span);
    demo_svg_rect(s, top.x0, top.y0, VIEW_PX, VIEW_PX, "fill=\"#fafafa\" stroke=\"#ddd\"");
    demo_svg_clip(s, 2 * index, top.x0, top.y0, VIEW_PX, VIEW_PX);
    if (sight)
        top_box(s, &top, &sight->drawn, RED);
    top_box(s, &top, &v->rewound, BLUE);
    top_box(s, &top, &v->current, GREEN);
    /* The ray from a little before the target to where the shot ended. */
    along = (fx - a.ex) * a.dx + (fy - a.ey) * a.dy;
    demo_svg_line(s, view_x(&top, a.ex + a.dx * (along - span)),
                  view_y(&top, a.ey + a.dy * (along - span)), view_x(&top, units(v->point.x)),
                  view_y(&top, units(v->point.y)), "stroke=\"#000\" stroke-width=\"1\"");
    demo_svg_group_end(s);
    demo_svg_text(s, top.x0, top.y0 + VIEW_PX + 12, "font-size=\"10\"", "from above");
    /* As the shooter saw it: the shot is the cross, where the ray passes
     * the target. */
    side.x0 = x + 170;
    side.y0 = y + 40;
    side.cx = 0;
    side.cy = fz;
    side.zoom = VIEW_PX / 120.0;
    demo_svg_rect(s, side.x0, side.y0, VIEW_PX, VIEW_PX, "fill=\"#fafafa\" stroke=\"#ddd\"");
    demo_svg_clip(s, 2 * index + 1, side.x0, side.y0, VIEW_PX, VIEW_PX);
    if (sight)
        side_box(s, &side, &sight->drawn, &a, RED);
    side_box(s, &side, &v->rewound, &a, BLUE);
    side_box(s, &side, &v->current, &a, GREEN);
    {
        double cx = view_x(&side, 0), cy = view_y(&side, a.ez + a.dz * along);
        demo_svg_line(s, cx - 6, cy, cx + 6, cy, "stroke=\"#000\"");
        demo_svg_line(s, cx, cy - 6, cx, cy + 6, "stroke=\"#000\"");
    }
    demo_svg_group_end(s);
    demo_svg_text(s, side.x0, side.y0 + VIEW_PX + 12, "font-size=\"10\"", "as the shooter looked");
}

int demo_pictures_hits(const demo_match *m, const char *path)
{
    const demo_rec_verdict *pick[PANELS];
    demo_svg s;
    uint32_t i, hits = 0;
    int n, k;
    if (demo_svg_open(&s, path, PANEL_X + 2 * PANEL_W, MAP_Y + 5 * PANEL_H + 10) != 0)
        return -1;
    demo_svg_text(&s, MAP_X, 24, "font-size=\"16\"",
                  "zerolag demo: lag-compensated hits (as Source's sv_showimpacts)");
    demo_svg_rect(&s, MAP_X, 36, 14, 10, RED);
    demo_svg_text(&s, MAP_X + 20, 46, "", "the box the shooter drew");
    demo_svg_rect(&s, MAP_X + 230, 36, 14, 10, BLUE);
    demo_svg_text(&s, MAP_X + 250, 46, "", "the server's rewound box");
    demo_svg_rect(&s, MAP_X + 470, 36, 14, 10, GREEN);
    demo_svg_text(&s, MAP_X + 490, 46, "", "the target when the server traced");
    draw_arena(&s);
    for (i = 0; i < m->verdicts; i++) {
        const demo_rec_verdict *v = &m->verdict[i];
        if (v->target < 0)
            continue;
        hits++;
        demo_svg_line(&s, map_x(units(v->eye.x)), map_y(units(v->eye.y)), map_x(units(v->point.x)),
                      map_y(units(v->point.y)), "stroke=\"#d00\" stroke-opacity=\"0.15\"");
        map_box(&s, &v->rewound, "fill=\"none\" stroke=\"#06f\" stroke-width=\"0.7\"");
        map_box(&s, &v->current, "fill=\"none\" stroke=\"#090\" stroke-width=\"0.7\"");
    }
    demo_svg_text(&s, MAP_X, MAP_Y + MAP_PX + 20, "", "the arena from above: %lu server hits, "
                  "shooter to impact", (unsigned long)hits);
    n = pick_panels(m, pick);
    for (k = 0; k < n; k++)
        draw_panel(&s, m, pick[k], k, PANEL_X + (k % 2) * PANEL_W, MAP_Y + (k / 2) * PANEL_H);
    if (n == 0)
        demo_svg_text(&s, PANEL_X, MAP_Y + 20, "", "no hits to show");
    return demo_svg_close(&s);
}

/* ---- Timeline ---- */

#define CHART_X 70.0
#define CHART_W 860.0
#define CHART_H 200.0
#define CHART_GAP 60.0

typedef struct series {
    const char *title, *unit;
    size_t offset; /* of a uint32 field in demo_rec_net */
    double scale;  /* field to unit */
    int fixed;     /* the field is a zl_fx */
} series;

static double sample_value(const demo_rec_net *n, const series *se)
{
    uint32_t raw;
    memcpy(&raw, (const uint8_t *)n + se->offset, sizeof raw);
    return se->fixed ? units((zl_fx)raw) : raw * se->scale;
}

static double nice_ceiling(double v)
{
    double step = 1;
    while (step * 10 < v)
        step *= 10;
    return v <= step ? step : v <= 2 * step ? 2 * step : v <= 5 * step ? 5 * step : 10 * step;
}

static void draw_chart(demo_svg *s, const demo_match *m, const series *se, double y,
                       double seconds)
{
    double top = 0;
    uint32_t b, i;
    int g;
    for (b = 0; b < m->setup.bots; b++)
        for (i = 0; i < m->bot[b].samples; i++) {
            double v = sample_value(&m->bot[b].sample[i], se);
            top = v > top ? v : top;
        }
    top = nice_ceiling(top > 0 ? top : 1);
    demo_svg_text(s, CHART_X, y - 8, "font-size=\"13\"", "%s (%s)", se->title, se->unit);
    demo_svg_rect(s, CHART_X, y, CHART_W, CHART_H, "fill=\"#fafafa\" stroke=\"#999\"");
    for (g = 0; g <= 4; g++) {
        double gy = y + CHART_H - g * CHART_H / 4;
        demo_svg_line(s, CHART_X, gy, CHART_X + CHART_W, gy, "stroke=\"#e4e4e4\"");
        demo_svg_text(s, 8, gy + 4, "font-size=\"10\"", "%g", top * g / 4);
    }
    for (g = 0; g <= 10; g++)
        demo_svg_text(s, CHART_X + g * CHART_W / 10 - 8, y + CHART_H + 14, "font-size=\"10\"",
                      "%.0fs", seconds * g / 10);
    for (b = 0; b < m->setup.bots; b++) {
        const demo_bot_view *bv = &m->bot[b];
        char style[96];
        if (bv->samples == 0)
            continue;
        sprintf(style, "fill=\"none\" stroke=\"%s\" stroke-width=\"1.2\"", colours[b % COLOURS]);
        demo_svg_polyline_begin(s, style);
        for (i = 0; i < bv->samples; i++) {
            double t = (int32_t)(bv->sample[i].time_ms - m->start_ms) / 1000.0;
            double v = sample_value(&bv->sample[i], se);
            demo_svg_point(s, CHART_X + (t < 0 ? 0 : t) * CHART_W / seconds,
                           y + CHART_H - (v > top ? top : v) * CHART_H / top);
        }
        demo_svg_polyline_end(s);
    }
}

int demo_pictures_timeline(const demo_match *m, const char *path)
{
    static const series charts[] = {
        {"round trip time", "ms", offsetof(demo_rec_net, rtt_us), 0.001, 0},
        {"prediction error still being smoothed away", "units",
         offsetof(demo_rec_net, prediction_error), 1, 1},
        {"last snapshot size", "bytes", offsetof(demo_rec_net, snapshot_bytes), 1, 0},
    };
    demo_svg s;
    double seconds = 1;
    uint32_t b, k;
    for (b = 0; b < m->setup.bots; b++)
        if (m->bot[b].samples) {
            const demo_bot_view *bv = &m->bot[b];
            double t = (int32_t)(bv->sample[bv->samples - 1].time_ms - m->start_ms) / 1000.0;
            seconds = t > seconds ? t : seconds;
        }
    seconds = ceil(seconds);
    if (demo_svg_open(&s, path, CHART_X + CHART_W + 30,
                      100 + 3 * (CHART_H + CHART_GAP)) != 0)
        return -1;
    demo_svg_text(&s, CHART_X, 24, "font-size=\"16\"", "zerolag demo: each client's link over time");
    for (b = 0; b < m->setup.bots; b++) {
        char style[64];
        sprintf(style, "fill=\"%s\"", colours[b % COLOURS]);
        demo_svg_rect(&s, CHART_X + (b % 8) * 108.0, 36 + (b / 8) * 14.0, 14, 10, style);
        demo_svg_text(&s, CHART_X + (b % 8) * 108.0 + 18, 46 + (b / 8) * 14.0, "",
                      "bot %lu/slot %ld", (unsigned long)b + 1u, (long)m->bot[b].slot);
    }
    for (k = 0; k < 3; k++)
        draw_chart(&s, m, &charts[k], 100 + k * (CHART_H + CHART_GAP), seconds);
    return demo_svg_close(&s);
}
