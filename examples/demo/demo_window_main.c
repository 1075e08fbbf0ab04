/* demo_window_main.c - zl_window: a zerolag client in a desktop window (SDL2)
 * that joins a server over UDP and plays with the keyboard. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo_host.h"
#include "demo_join.h"
#include "demo_window.h"

#define DRAW_US 16000u /* about 60 frames a second */
#define SCRIPT_STEPS 64
#define SCRIPT_TAIL_MS 500u /* the last step's results reach the screen */

static demo_options opt;
static demo_join join;
static demo_window win;

/* --script: keys pressed one after another, each held for its time. */
typedef struct step {
    SDL_Keycode key; /* SDLK_UNKNOWN: a pause */
    uint32_t ms;
    const char *name; /* in opt.script, len characters */
    int len;
} step;

static step script[SCRIPT_STEPS];
static int script_steps, script_at = -1; /* -1: not started */
static uint64_t script_step_end;
static fps_player step_start; /* the player when the step began */

static int parse_script(const char *text)
{
    while (*text) {
        const char *colon = strchr(text, ':');
        char *end;
        unsigned long ms;
        if (!colon || script_steps == SCRIPT_STEPS)
            return -1;
        ms = strtoul(colon + 1, &end, 10);
        if (end == colon + 1 || ms == 0 || ms > 60000 || (*end && *end != ','))
            return -1;
        script[script_steps].key = colon - text == 1 && text[0] == '_'
                                       ? SDLK_UNKNOWN
                                       : demo_window_key_named(text, (size_t)(colon - text));
        if (script[script_steps].key == SDLK_UNKNOWN && !(colon - text == 1 && text[0] == '_'))
            return -1;
        script[script_steps].name = text;
        script[script_steps].len = (int)(colon - text);
        script[script_steps++].ms = (uint32_t)ms;
        text = *end ? end + 1 : end;
    }
    return script_steps > 0 ? 0 : -1;
}

/* The key goes through SDL's event queue, as a real press would. */
static void push_key(SDL_Keycode key, int down)
{
    SDL_Event e;
    if (key == SDLK_UNKNOWN)
        return;
    memset(&e, 0, sizeof e);
    e.type = down ? SDL_KEYDOWN : SDL_KEYUP;
    e.key.state = down ? SDL_PRESSED : SDL_RELEASED;
    e.key.keysym.sym = key;
    SDL_PushEvent(&e);
}

/* The player as drawn now; 0 before the first snapshot. */
static int where(uint64_t now_us, fps_player *out)
{
    uint32_t drawn[ZL_STATE_MAX / 4];
    if (zl_client_player(&join.player.client, now_us, drawn) != ZL_OK)
        return 0;
    memcpy(out, drawn, sizeof *out);
    return 1;
}

/* Where a step left the player, for the test: position, view, distance
 * from where the step began. */
static void report_step(uint64_t now_us)
{
    const step *st = &script[script_at];
    fps_player now;
    if (!where(now_us, &now))
        return;
    printf("zl_window: step %d %.*s %lu ms: at %.0f %.0f z %.0f yaw %.0f, moved %.0f units%s\n",
           script_at + 1, st->len, st->name, (unsigned long)st->ms, now.origin.x / 65536.0,
           now.origin.y / 65536.0, now.origin.z / 65536.0, now.yaw * 360.0 / 65536.0,
           zl_vec3_length(zl_vec3_sub(now.origin, step_start.origin)) / 65536.0,
           now.flags & FPS_PF_DEAD ? " (dead)" : "");
    fflush(stdout); /* a test may be waiting for this line */
    step_start = now;
}

/* Runs the script once the player is on screen; ends the program after it. */
static void run_script(uint64_t now_us)
{
    if (script_at >= script_steps)
        return;
    if (script_at < 0) {
        if (!where(now_us, &step_start))
            return;
        printf("zl_window: script starts at %.0f %.0f yaw %.0f\n", step_start.origin.x / 65536.0,
               step_start.origin.y / 65536.0, step_start.yaw * 360.0 / 65536.0);
        script_at = 0;
        push_key(script[0].key, 1);
        script_step_end = now_us + script[0].ms * 1000u;
        return;
    }
    if (now_us < script_step_end)
        return;
    push_key(script[script_at].key, 0);
    report_step(now_us);
    if (++script_at < script_steps) {
        push_key(script[script_at].key, 1);
        script_step_end = now_us + script[script_at].ms * 1000u;
    } else {
        script_step_end = now_us + SCRIPT_TAIL_MS * 1000u;
    }
}

static int script_done(uint64_t now_us)
{
    return script_steps && script_at >= script_steps && now_us >= script_step_end;
}

static void window_input(void *ctx, const zl_client *c, int self, uint64_t now_us,
                         uint16_t msec, int may_fire, zl_usercmd *out)
{
    (void)may_fire;
    demo_window_command((demo_window *)ctx, c, self, (uint32_t)(now_us / 1000u), msec, out);
}

/* A lerp change asked with [ and ]: the client's settings, as cl_interp. */
static void change_lerp(uint64_t now_us)
{
    int32_t ms = (int32_t)opt.interp_ms + win.lerp_step_ms;
    zl_client_settings s;
    win.lerp_step_ms = 0;
    opt.interp_ms = (uint32_t)(ms < 0 ? 0 : ms > 500 ? 500 : ms);
    s = demo_options_settings(&opt);
    zl_client_set_settings(&join.player.client, &s, now_us);
}

static void play(void)
{
    uint64_t begin = join.net.hal.now_us(join.net.hal.ctx), next_draw = begin;
    uint64_t end = begin + (uint64_t)opt.duration_s * 1000000u;
    while (!demo_host_interrupted() && !win.quit && !demo_join_end_reason(&join)) {
        uint64_t now = join.net.hal.now_us(join.net.hal.ctx);
        SDL_Event e;
        if ((opt.duration_s && now >= end) || script_done(now))
            break;
        if (script_steps)
            run_script(now);
        while (SDL_PollEvent(&e))
            demo_window_event(&win, &e);
        if (win.lerp_step_ms)
            change_lerp(now);
        demo_join_poll(&join, now);
        demo_join_frame(&join, now, 1);
        if (now >= next_draw) {
            demo_rec_net r;
            demo_player_net(&join.player, now, &r);
            demo_window_draw(&win, &join.player, now, &r);
            SDL_RenderPresent(win.renderer);
            next_draw = now + DRAW_US;
        }
        demo_join_rest(&join, now);
    }
}

/* The last frame, kept as a picture and described in one line. */
static void last_frame(void)
{
    uint64_t now = join.net.hal.now_us(join.net.hal.ctx);
    const demo_player *p = &join.player;
    demo_rec_net r;
    demo_player_net(&join.player, now, &r);
    demo_window_draw(&win, p, now, &r);
    if (opt.screenshot[0] && demo_window_save(&win, opt.screenshot) == 0)
        printf("zl_window: screenshot %s\n", opt.screenshot);
    printf("zl_window: %lu shots, %lu hits seen, %lu impacts shown, %lu mispredicted\n",
           (unsigned long)r.shots, (unsigned long)r.hits_seen, (unsigned long)p->impacts_next,
           (unsigned long)r.mispredicted);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int rc = demo_options_load(&opt, DEMO_FOR_WINDOW, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (opt.script[0] && parse_script(opt.script) != 0) {
        fprintf(stderr, "zl_window: --script is KEY:MS,... (e.g. w:800,right:300,f:200)\n");
        return 2;
    }
    if (demo_window_open(&win, "zerolag") != 0)
        return 2;
    demo_host_catch_interrupt();
    if (demo_join_start(&join, &opt, stdout, "zl_window") != 0) {
        demo_window_close(&win);
        return 1;
    }
    join.player.input = window_input;
    join.player.input_ctx = &win;
    play();
    last_frame();
    demo_window_close(&win);
    demo_join_finish(&join);
    return 0;
}
