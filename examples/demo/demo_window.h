/* demo_window.h - zl_window's window (SDL2): the arena from above as the
 * client draws it, the hits as sv_showimpacts shows them, a net graph, keys. */
#ifndef DEMO_WINDOW_H
#define DEMO_WINDOW_H

#include <SDL.h>

#include "demo_player.h"
#include "demo_record.h"
#include "demo_view.h"

#define DEMO_WINDOW_WIDTH 1000
#define DEMO_WINDOW_HEIGHT 680
#define DEMO_GRAPH_SAMPLES 150 /* net graph columns, one every 100 ms */

/* Keys held down (SDL reports presses and releases). */
enum { HOLD_FORWARD, HOLD_BACK, HOLD_LEFT, HOLD_RIGHT, HOLD_TURN_LEFT, HOLD_TURN_RIGHT,
       HOLD_FIRE, HOLD_CROUCH, HOLD_COUNT };

/* Owns SDL's window and renderer: static storage, one per program. */
typedef struct demo_window {
    SDL_Window *window;
    SDL_Renderer *renderer;
    SDL_Texture *arena;   /* the walls, drawn once */
    demo_view keys;       /* the command the keys make (demo_view_command) */
    uint8_t held[HOLD_COUNT];
    /* What is drawn: 0 shows what a client without the feature would. */
    uint8_t predict;      /* own player predicted, else at the server's word */
    uint8_t interpolate;  /* others interpolated, else at the newest snapshot */
    uint8_t show_server;  /* where the server last had us, as an outline */
    uint8_t quit;
    int32_t lerp_step_ms; /* +/- interpolation delay the keys asked for, once */
    /* The net graph's history: ping (ms) and snapshot size (bytes). */
    uint16_t ping[DEMO_GRAPH_SAMPLES], bytes[DEMO_GRAPH_SAMPLES];
    uint32_t samples;
    uint32_t next_sample_ms;
} demo_window;

/* Opens a window (title) and draws the arena into a texture. Returns 0,
 * or -1 after printing SDL's reason. */
int demo_window_open(demo_window *w, const char *title);
void demo_window_close(demo_window *w);

/* Takes one SDL event: keys held and toggles, closing the window. */
void demo_window_event(demo_window *w, const SDL_Event *e);

/* The command for one frame of msec milliseconds from the keys held (the
 * arrows turn at a steady rate). */
void demo_window_command(demo_window *w, const zl_client *c, int self, uint32_t now_ms,
                         uint16_t msec, zl_usercmd *out);

/* Draws p's client at now_us with its net graph net, off screen:
 * SDL_RenderPresent(w->renderer) shows it (after demo_window_save, if
 * wanted: a shown frame's pixels are not kept). */
void demo_window_draw(demo_window *w, const demo_player *p, uint64_t now_us,
                      const demo_rec_net *net);

/* Writes what the window shows to a BMP file; 0, or -1 (SDL's reason
 * printed). */
int demo_window_save(demo_window *w, const char *path);

/* The SDL key code of a script's key name ("w", "space", "left"...), or
 * SDLK_UNKNOWN. */
SDL_Keycode demo_window_key_named(const char *name, size_t len);

#endif
