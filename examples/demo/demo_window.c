/* demo_window.c - draws one client's game with SDL's 2D renderer (the arena
 * from above, players, shots, impacts, net graph) and reads its keys. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "demo_arena.h"
#include "demo_glyphs.h"
#include "demo_window.h"

#define MAP_X 20
#define MAP_Y 20
#define MAP_PX 640
#define MAP_HALF 1056 /* the arena with its walls, units */
#define CELL 32       /* units a wall cell spans */
#define PANEL_X 680
#define TEXT_SCALE 2
#define LINE_PX (TEXT_SCALE * (DEMO_GLYPH_H + 3))
#define TURN_PER_MS 20 /* binary angle units: about 110 degrees a second */
#define LERP_STEP_MS 10
#define HOLD_MS 60 /* a key held stays held a frame past the command's time */
#define CLOSEUP_PX 150
#define CLOSEUP_UNITS 160

typedef struct rgb {
    uint8_t r, g, b;
} rgb;

static const rgb ink_floor = {24, 26, 30}, ink_wall = {120, 120, 128}, ink_low = {78, 80, 88},
                 ink_high = {48, 50, 56}, ink_me = {255, 215, 0}, ink_other = {230, 60, 60},
                 ink_dead = {110, 40, 40}, ink_server = {0, 220, 230}, ink_text = {220, 220, 220},
                 ink_dim = {140, 140, 140}, ink_flash = {230, 80, 230}, ink_drawn = {230, 30, 30},
                 ink_rewound = {40, 120, 255}, ink_current = {40, 200, 60},
                 ink_panel = {36, 38, 44}, ink_ping = {255, 215, 0}, ink_bytes = {90, 110, 150};

static void colour(SDL_Renderer *r, rgb c)
{
    SDL_SetRenderDrawColor(r, c.r, c.g, c.b, 255);
}

/* ---- Text ---- */

static void text(SDL_Renderer *r, int x, int y, rgb c, const char *s)
{
    colour(r, c);
    for (; *s; s++, x += TEXT_SCALE * (DEMO_GLYPH_W + 1)) {
        uint8_t rows[DEMO_GLYPH_H];
        int row, col;
        demo_glyph_rows(*s, rows);
        for (row = 0; row < DEMO_GLYPH_H; row++)
            for (col = 0; col < DEMO_GLYPH_W; col++)
                if (rows[row] & (4u >> col)) {
                    SDL_Rect px = {x + col * TEXT_SCALE, y + row * TEXT_SCALE, TEXT_SCALE,
                                   TEXT_SCALE};
                    SDL_RenderFillRect(r, &px);
                }
    }
}

/* One line of the panel: formatted, then y moves down a line. */
static void line(SDL_Renderer *r, int *y, rgb c, const char *fmt, ...)
{
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    text(r, PANEL_X, *y, c, buf);
    *y += LINE_PX;
}

/* ---- The map: world units to pixels ---- */

static int clamp_px(double v)
{
    return v < -4096 ? -4096 : v > 4096 ? 4096 : (int)v;
}

static int map_x(zl_fx x)
{
    return MAP_X + clamp_px((x / 65536.0 + MAP_HALF) * MAP_PX / (2.0 * MAP_HALF));
}

static int map_y(zl_fx y)
{
    return MAP_Y + clamp_px((MAP_HALF - y / 65536.0) * MAP_PX / (2.0 * MAP_HALF));
}

static void outline(SDL_Renderer *r, int x0, int y0, int x1, int y1, rgb c)
{
    SDL_Rect box = {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
    colour(r, c);
    SDL_RenderDrawRect(r, &box);
}

/* grow: pixels outward, so the box the shooter drew shows around the
 * server's when lag compensation rebuilt it exactly. */
static void map_box(SDL_Renderer *r, const zl_box *b, int grow, rgb c)
{
    if (b->max.x > b->min.x)
        outline(r, map_x(b->min.x) - grow, map_y(b->max.y) - grow, map_x(b->max.x) + grow,
                map_y(b->min.y) + grow, c);
}

/* A player: a filled hull, its slot's letter above it. */
static void map_player(SDL_Renderer *r, const fps_player *p, int slot, rgb c, int filled)
{
    int x = map_x(p->origin.x), y = map_y(p->origin.y);
    int half = FPS_HALF_WIDTH * MAP_PX / (2 * MAP_HALF) + 1;
    SDL_Rect hull = {x - half, y - half, 2 * half + 1, 2 * half + 1};
    char label[2] = {(char)(slot >= 0 && slot < 26 ? 'A' + slot : '?'), 0};
    colour(r, c);
    if (filled)
        SDL_RenderFillRect(r, &hull);
    else
        SDL_RenderDrawRect(r, &hull);
    text(r, x - 2, y - half - 13, c, label);
}

/* The view direction, so the player sees where a shot goes. */
static void map_aim(SDL_Renderer *r, const fps_player *me)
{
    zl_fx d = ZL_FX_INT(160);
    colour(r, ink_me);
    SDL_RenderDrawLine(r, map_x(me->origin.x), map_y(me->origin.y),
                       map_x(me->origin.x + zl_fx_mul(zl_cos(me->yaw), d)),
                       map_y(me->origin.y + zl_fx_mul(zl_sin(me->yaw), d)));
}

int demo_window_open(demo_window *w, const char *title)
{
    int32_t x, y;
    memset(w, 0, sizeof *w);
    w->predict = w->interpolate = w->show_server = 1;
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "zl_window: no display: %s\n", SDL_GetError());
        return -1;
    }
    w->window = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED,
                                 DEMO_WINDOW_WIDTH, DEMO_WINDOW_HEIGHT, 0);
    w->renderer = w->window ? SDL_CreateRenderer(w->window, -1, 0) : NULL;
    w->arena = w->renderer ? SDL_CreateTexture(w->renderer, SDL_PIXELFORMAT_ARGB8888,
                                               SDL_TEXTUREACCESS_TARGET, MAP_PX, MAP_PX)
                           : NULL;
    if (!w->arena) {
        fprintf(stderr, "zl_window: cannot open a window: %s\n", SDL_GetError());
        demo_window_close(w);
        return -1;
    }
    /* The walls as the game's own collision test finds them, once. */
    SDL_SetRenderTarget(w->renderer, w->arena);
    colour(w->renderer, ink_floor);
    SDL_RenderClear(w->renderer);
    for (y = -MAP_HALF; y < MAP_HALF; y += CELL)
        for (x = -MAP_HALF; x < MAP_HALF; x += CELL) {
            demo_cell c = demo_arena_cell(x + CELL / 2, y + CELL / 2, CELL / 2);
            int x0 = (x + MAP_HALF) * MAP_PX / (2 * MAP_HALF);
            int y0 = (MAP_HALF - y - CELL) * MAP_PX / (2 * MAP_HALF);
            SDL_Rect cell = {x0, y0, (x + CELL + MAP_HALF) * MAP_PX / (2 * MAP_HALF) - x0,
                             (MAP_HALF - y) * MAP_PX / (2 * MAP_HALF) - y0};
            if (c.top == 0)
                continue;
            colour(w->renderer, c.top >= 500 ? ink_wall : c.low ? ink_low : ink_high);
            SDL_RenderFillRect(w->renderer, &cell);
        }
    SDL_SetRenderTarget(w->renderer, NULL);
    return 0;
}

void demo_window_close(demo_window *w)
{
    if (w->arena)
        SDL_DestroyTexture(w->arena);
    if (w->renderer)
        SDL_DestroyRenderer(w->renderer);
    if (w->window)
        SDL_DestroyWindow(w->window);
    SDL_Quit();
    w->arena = NULL;
    w->renderer = NULL;
    w->window = NULL;
}

/* ---- Keys ---- */

static int held_of(SDL_Keycode k)
{
    switch (k) {
    case SDLK_w: case SDLK_UP: return HOLD_FORWARD;
    case SDLK_s: case SDLK_DOWN: return HOLD_BACK;
    case SDLK_a: return HOLD_LEFT;
    case SDLK_d: return HOLD_RIGHT;
    case SDLK_LEFT: case SDLK_j: return HOLD_TURN_LEFT;
    case SDLK_RIGHT: case SDLK_l: return HOLD_TURN_RIGHT;
    case SDLK_f: case SDLK_LCTRL: case SDLK_RETURN: return HOLD_FIRE;
    case SDLK_c: return HOLD_CROUCH;
    default: return -1;
    }
}

/* A press that acts once. */
static void pressed(demo_window *w, SDL_Keycode k)
{
    switch (k) {
    case SDLK_SPACE: w->keys.jump = 1; break;
    case SDLK_r: w->keys.reload = 1; break;
    case SDLK_t: w->keys.face_nearest = 1; break;
    case SDLK_1: case SDLK_2: case SDLK_3: w->keys.weapon = (uint8_t)(k - SDLK_0); break;
    case SDLK_p: w->predict = (uint8_t)!w->predict; break;
    case SDLK_i: w->interpolate = (uint8_t)!w->interpolate; break;
    case SDLK_v: w->show_server = (uint8_t)!w->show_server; break;
    case SDLK_LEFTBRACKET: w->lerp_step_ms -= LERP_STEP_MS; break;
    case SDLK_RIGHTBRACKET: w->lerp_step_ms += LERP_STEP_MS; break;
    case SDLK_q: case SDLK_ESCAPE: w->quit = 1; break;
    default: break;
    }
}

void demo_window_event(demo_window *w, const SDL_Event *e)
{
    int h;
    if (e->type == SDL_QUIT) {
        w->quit = 1;
        return;
    }
    if (e->type != SDL_KEYDOWN && e->type != SDL_KEYUP)
        return;
    h = held_of(e->key.keysym.sym);
    if (h >= 0)
        w->held[h] = e->type == SDL_KEYDOWN;
    else if (e->type == SDL_KEYDOWN && !e->key.repeat)
        pressed(w, e->key.keysym.sym);
}

void demo_window_command(demo_window *w, const zl_client *c, int self, uint32_t now_ms,
                         uint16_t msec, zl_usercmd *out)
{
    demo_view *v = &w->keys;
    uint32_t until = now_ms + HOLD_MS;
    v->forward_until = w->held[HOLD_FORWARD] ? until : 0;
    v->back_until = w->held[HOLD_BACK] && !w->held[HOLD_FORWARD] ? until : 0;
    v->right_until = w->held[HOLD_RIGHT] ? until : 0;
    v->left_until = w->held[HOLD_LEFT] && !w->held[HOLD_RIGHT] ? until : 0;
    v->fire_until = w->held[HOLD_FIRE] ? until : 0;
    v->crouch = w->held[HOLD_CROUCH];
    v->turn += (w->held[HOLD_TURN_LEFT] - w->held[HOLD_TURN_RIGHT]) * TURN_PER_MS * (int32_t)msec;
    demo_view_command(v, c, self, now_ms, msec, out);
}

SDL_Keycode demo_window_key_named(const char *name, size_t len)
{
    static const struct {
        const char *name;
        SDL_Keycode key;
    } named[] = {{"space", SDLK_SPACE}, {"up", SDLK_UP},     {"down", SDLK_DOWN},
                 {"left", SDLK_LEFT},   {"right", SDLK_RIGHT}, {"esc", SDLK_ESCAPE}};
    size_t i;
    if (len == 1 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9') ||
                     name[0] == '[' || name[0] == ']'))
        return (SDL_Keycode)name[0]; /* SDL's codes of these keys are their characters */
    for (i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strlen(named[i].name) == len && memcmp(named[i].name, name, len) == 0)
            return named[i].key;
    return SDLK_UNKNOWN;
}

/* ---- The panel: net graph, close-up of the last hit, keys ---- */

static void sample(demo_window *w, const demo_rec_net *net)
{
    uint32_t k = w->samples++ % DEMO_GRAPH_SAMPLES;
    uint32_t ping = net->rtt_us / 1000u;
    w->ping[k] = (uint16_t)(ping > 65535u ? 65535u : ping);
    w->bytes[k] = (uint16_t)(net->snapshot_bytes > 65535u ? 65535u : net->snapshot_bytes);
}

/* Source's net_graph, small: snapshot sizes as bars, the ping as dots. */
static void graph(demo_window *w, int y)
{
    SDL_Renderer *r = w->renderer;
    const int gw = 2 * DEMO_GRAPH_SAMPLES, gh = 70;
    uint32_t n = w->samples < DEMO_GRAPH_SAMPLES ? w->samples : DEMO_GRAPH_SAMPLES, i;
    int top = 128; /* bytes at the top: the largest snapshot shown, at least this */
    SDL_Rect back = {PANEL_X, y, gw, gh};
    for (i = 0; i < n; i++)
        top = w->bytes[i] > top ? w->bytes[i] : top;
    colour(r, ink_panel);
    SDL_RenderFillRect(r, &back);
    for (i = 0; i < n; i++) {
        uint32_t k = (w->samples - n + i) % DEMO_GRAPH_SAMPLES;
        int bar = w->bytes[k] * gh / top, dot = w->ping[k] * gh / 400;
        SDL_Rect b = {PANEL_X + 2 * (int)i, y + gh - (bar > gh ? gh : bar), 2,
                      bar > gh ? gh : bar};
        SDL_Rect d = {PANEL_X + 2 * (int)i, y + gh - 2 - (dot > gh - 2 ? gh - 2 : dot), 2, 2};
        colour(r, ink_bytes);
        SDL_RenderFillRect(r, &b);
        colour(r, ink_ping);
        SDL_RenderFillRect(r, &d);
    }
    outline(r, PANEL_X, y, PANEL_X + gw - 1, y + gh - 1, ink_dim);
}

/* A box of the close-up: world units around (cx, cy), CLOSEUP_UNITS across. */
static void closeup_box(SDL_Renderer *r, int x0, int y0, double cx, double cy, const zl_box *b,
                        int grow, rgb c)
{
    double k = (double)CLOSEUP_PX / CLOSEUP_UNITS;
    if (b->max.x <= b->min.x)
        return;
    outline(r, x0 - grow + clamp_px(CLOSEUP_PX / 2 + (b->min.x / 65536.0 - cx) * k),
            y0 - grow + clamp_px(CLOSEUP_PX / 2 - (b->max.y / 65536.0 - cy) * k),
            x0 + grow + clamp_px(CLOSEUP_PX / 2 + (b->max.x / 65536.0 - cx) * k),
            y0 + grow + clamp_px(CLOSEUP_PX / 2 - (b->min.y / 65536.0 - cy) * k), c);
}

/* The newest impact from above, zoomed: the boxes the shooter drew, the
 * server rewound, and the target's when traced. */
static void closeup(demo_window *w, const demo_player *p, int y)
{
    SDL_Renderer *r = w->renderer;
    const demo_shown_impact *s =
        p->impacts_next ? &p->impacts[(p->impacts_next - 1u) % DEMO_IMPACTS] : NULL;
    SDL_Rect back = {PANEL_X, y, CLOSEUP_PX, CLOSEUP_PX};
    SDL_Rect clip = back;
    double cx, cy;
    colour(r, ink_panel);
    SDL_RenderFillRect(r, &back);
    outline(r, PANEL_X, y, PANEL_X + CLOSEUP_PX - 1, y + CLOSEUP_PX - 1, ink_dim);
    text(r, PANEL_X + CLOSEUP_PX + 10, y, ink_text, "LAST HIT:");
    text(r, PANEL_X + CLOSEUP_PX + 10, y + LINE_PX, ink_drawn, "YOU DREW");
    text(r, PANEL_X + CLOSEUP_PX + 10, y + 2 * LINE_PX, ink_rewound, "SERVER REWOUND");
    text(r, PANEL_X + CLOSEUP_PX + 10, y + 3 * LINE_PX, ink_current, "TARGET THEN");
    if (!s)
        return;
    cx = (s->rewound.min.x + s->rewound.max.x) / 131072.0;
    cy = (s->rewound.min.y + s->rewound.max.y) / 131072.0;
    SDL_RenderSetClipRect(r, &clip);
    if (s->drawn_known)
        closeup_box(r, PANEL_X, y, cx, cy, &s->drawn, 3, ink_drawn);
    closeup_box(r, PANEL_X, y, cx, cy, &s->rewound, 0, ink_rewound);
    closeup_box(r, PANEL_X, y, cx, cy, &s->current, 0, ink_current);
    SDL_RenderSetClipRect(r, NULL);
    {
        char label[40];
        snprintf(label, sizeof label, "ON %c", s->target < 26 ? 'A' + s->target : '?');
        text(r, PANEL_X + CLOSEUP_PX + 10, y + 5 * LINE_PX, ink_text, label);
    }
}

static const char *weapon_name(int weapon)
{
    static const char *names[FPS_WEAPON_COUNT] = {"rifle", "pistol", "launcher"};
    return weapon >= 0 && weapon < FPS_WEAPON_COUNT ? names[weapon] : "?";
}

static void panel(demo_window *w, const demo_player *p, const fps_player *me,
                  const demo_rec_net *net)
{
    SDL_Renderer *r = w->renderer;
    int self = zl_client_slot(&p->client), y = MAP_Y;
    line(r, &y, ink_me, "ZEROLAG  SLOT %c", self >= 0 && self < 26 ? 'A' + self : '?');
    if (me)
        line(r, &y, ink_text, "HEALTH %u  %s %u%s", me->health, weapon_name(me->weapon),
             me->clip[me->weapon < FPS_WEAPON_COUNT ? me->weapon : 0],
             me->flags & FPS_PF_DEAD ? "  DEAD" : "");
    else
        line(r, &y, ink_text, "CONNECTING...");
    y += LINE_PX / 2;
    line(r, &y, ink_ping, "PING %lu MS  JITTER %lu", (unsigned long)(net->rtt_us / 1000u),
         (unsigned long)(net->jitter_us / 1000u));
    line(r, &y, ink_text, "LOSS IN %.1f%% OUT %.1f%%", net->loss_in_q16 * 100.0 / 65536.0,
         net->loss_out_q16 * 100.0 / 65536.0);
    line(r, &y, ink_text, "LERP %lu MS  ([ ] CHANGE)", (unsigned long)(net->interp_us / 1000u));
    line(r, &y, ink_bytes, "SNAPSHOT %lu B  IN %.1f KB/S", (unsigned long)net->snapshot_bytes,
         net->bytes_in / 1000.0);
    line(r, &y, ink_text, "MISPREDICTED %lu OF %lu", (unsigned long)net->mispredicted,
         (unsigned long)net->reconciled);
    line(r, &y, ink_text, "SHOTS %lu  HITS SEEN %lu", (unsigned long)net->shots,
         (unsigned long)net->hits_seen);
    y += 4;
    graph(w, y);
    y += 70 + 6;
    line(r, &y, ink_dim, "BARS: SNAPSHOT BYTES  DOTS: PING 0-400MS");
    y += LINE_PX / 2;
    closeup(w, p, y);
    y += CLOSEUP_PX + LINE_PX;
    line(r, &y, w->predict ? ink_current : ink_drawn, "P PREDICTION %s", w->predict ? "ON" : "OFF");
    line(r, &y, w->interpolate ? ink_current : ink_drawn, "I INTERPOLATION %s",
         w->interpolate ? "ON" : "OFF");
    line(r, &y, w->show_server ? ink_server : ink_dim, "V SERVER'S YOU %s",
         w->show_server ? "ON" : "OFF");
    y += LINE_PX / 2;
    line(r, &y, ink_dim, "WASD MOVE  ARROWS TURN");
    line(r, &y, ink_dim, "F FIRE  SPACE JUMP  C CROUCH");
    line(r, &y, ink_dim, "1-3 WEAPON  R RELOAD  T FACE");
    line(r, &y, ink_dim, "Q QUIT");
}

/* ---- The frame ---- */

/* Each other player: as interpolated (the client's draw), or at the newest
 * snapshot (what a client without interpolation shows). */
static void others(demo_window *w, const zl_client *c, int self)
{
    const zl_snapshot_frame *latest = zl_client_latest(c);
    int slot;
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        const void *state = w->interpolate ? zl_client_entity(c, slot)
                            : latest       ? zl_snapshot_frame_state(latest, (uint16_t)slot)
                                           : NULL;
        const fps_player *p = (const fps_player *)state;
        if (p && slot != self)
            map_player(w->renderer, p, slot, p->flags & FPS_PF_DEAD ? ink_dead : ink_other, 1);
    }
}

static void impacts(SDL_Renderer *r, const demo_player *p, uint32_t now_ms)
{
    uint32_t i;
    for (i = 0; i < DEMO_IMPACTS; i++) {
        const demo_shown_impact *s = &p->impacts[i];
        if (!s->time_ms || now_ms - s->time_ms >= DEMO_IMPACT_MS)
            continue;
        if (s->drawn_known)
            map_box(r, &s->drawn, 2, ink_drawn);
        map_box(r, &s->rewound, 0, ink_rewound);
        map_box(r, &s->current, 0, ink_current);
    }
}

void demo_window_draw(demo_window *w, const demo_player *p, uint64_t now_us,
                      const demo_rec_net *net)
{
    SDL_Renderer *r = w->renderer;
    const zl_client *c = &p->client;
    SDL_Rect map = {MAP_X, MAP_Y, MAP_PX, MAP_PX};
    uint32_t drawn[ZL_STATE_MAX / 4], now_ms = (uint32_t)(now_us / 1000u), i;
    const zl_snapshot_frame *latest = zl_client_latest(c);
    const fps_player *me = NULL, *server_me = NULL;
    int self = zl_client_slot(c);
    if (now_ms >= w->next_sample_ms) {
        sample(w, net);
        w->next_sample_ms = now_ms + 100u;
    }
    colour(r, ink_floor);
    SDL_RenderClear(r);
    SDL_RenderCopy(r, w->arena, NULL, &map);
    outline(r, MAP_X - 1, MAP_Y - 1, MAP_X + MAP_PX, MAP_Y + MAP_PX, ink_dim);
    SDL_RenderSetClipRect(r, &map);
    if (zl_client_state(c) == ZL_CLIENT_CONNECTED && latest && self >= 0)
        server_me = (const fps_player *)zl_snapshot_frame_state(latest, (uint16_t)self);
    if (zl_client_player(c, now_us, drawn) == ZL_OK)
        me = (const fps_player *)(const void *)drawn;
    others(w, c, self);
    for (i = 0; i < DEMO_SEEN_SHOTS; i++) {
        const demo_seen_shot *s = &p->seen[i];
        if (s->time_ms && now_ms - s->time_ms < DEMO_SEEN_MS) {
            SDL_Rect flash = {map_x(s->origin.x) - 3, map_y(s->origin.y) - 3, 7, 7};
            colour(r, ink_flash);
            SDL_RenderFillRect(r, &flash);
        }
    }
    impacts(r, p, now_ms);
    if (w->show_server && server_me)
        map_player(r, server_me, self, ink_server, 0);
    /* Without prediction a client shows itself where the server last said. */
    if (!w->predict)
        me = server_me;
    if (me) {
        if (!(me->flags & FPS_PF_DEAD))
            map_aim(r, me);
        map_player(r, me, self, me->flags & FPS_PF_DEAD ? ink_dead : ink_me, 1);
    }
    SDL_RenderSetClipRect(r, NULL);
    panel(w, p, me, net);
}

int demo_window_save(demo_window *w, const char *path)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, DEMO_WINDOW_WIDTH, DEMO_WINDOW_HEIGHT, 32,
                                                    SDL_PIXELFORMAT_ARGB8888);
    int ok = s && SDL_RenderReadPixels(w->renderer, NULL, SDL_PIXELFORMAT_ARGB8888, s->pixels,
                                       s->pitch) == 0 &&
             SDL_SaveBMP(s, path) == 0;
    if (!ok)
        fprintf(stderr, "zl_window: cannot write %s: %s\n", path, SDL_GetError());
    if (s)
        SDL_FreeSurface(s);
    return ok ? 0 : -1;
}
