/* demo_view.c - draws the arena from above with ANSI escape codes and turns
 * key presses into user commands, for a person playing in a terminal. */
#include <stdio.h>
#include <string.h>

#include "demo_arena.h"
#include "demo_bot.h"
#include "demo_host.h"
#include "demo_view.h"

#define HOLD_MS 450  /* bridges the pause before a held key starts repeating */
#define FIRE_MS 120
#define TURN_STEP ZL_ANGLE_DEG(4)
#define COL_UNITS (2 * DEMO_ARENA_HALF / DEMO_VIEW_COLS)
#define ROW_UNITS (2 * DEMO_ARENA_HALF / DEMO_VIEW_ROWS)

/* Colours of what a cell shows. */
enum { INK_PLAIN, INK_WALL, INK_ME, INK_OTHER, INK_SERVER, INK_AIM, INK_DEAD, INK_FLASH };
static const char *const ink_code[] = {"\033[0m",    "\033[2m",    "\033[1;33m", "\033[1;31m",
                                       "\033[1;36m", "\033[33m",   "\033[2;31m", "\033[1;35m"};

static char screen[DEMO_VIEW_ROWS][DEMO_VIEW_COLS];
static uint8_t ink[DEMO_VIEW_ROWS][DEMO_VIEW_COLS];
static char out[64 * 1024];

int demo_view_open(demo_view *v)
{
    int r, col;
    memset(v, 0, sizeof *v);
    v->show_server = 1;
    if (demo_host_keyboard_raw() != 0)
        return -1;
    for (r = 0; r < DEMO_VIEW_ROWS; r++)
        for (col = 0; col < DEMO_VIEW_COLS; col++) {
            int32_t x = -DEMO_ARENA_HALF + col * COL_UNITS + COL_UNITS / 2;
            int32_t y = DEMO_ARENA_HALF - r * ROW_UNITS - ROW_UNITS / 4;
            /* A row is two square cells tall: show the taller. */
            demo_cell a = demo_arena_cell(x, y, COL_UNITS / 2);
            demo_cell b = demo_arena_cell(x, y - ROW_UNITS / 2, COL_UNITS / 2);
            demo_cell c = a.top >= b.top ? a : b;
            v->map[r][col] = c.top >= 500 ? '#' : c.top == 0 ? ' ' : c.low ? '=' : '-';
        }
    fputs("\033[2J\033[?25l", stdout);
    return 0;
}

void demo_view_close(demo_view *v)
{
    (void)v;
    fputs("\033[0m\033[?25h\n", stdout);
    fflush(stdout);
    demo_host_keyboard_restore();
}

void demo_view_keys(demo_view *v, uint32_t now_ms)
{
    int key;
    while ((key = demo_host_key()) >= 0) {
        switch (key) {
        case 'w': case DEMO_KEY_UP: v->forward_until = now_ms + HOLD_MS; v->back_until = 0; break;
        case 's': case DEMO_KEY_DOWN: v->back_until = now_ms + HOLD_MS; v->forward_until = 0; break;
        case 'a': v->left_until = now_ms + HOLD_MS; v->right_until = 0; break;
        case 'd': v->right_until = now_ms + HOLD_MS; v->left_until = 0; break;
        case 'j': case DEMO_KEY_LEFT: v->turn += TURN_STEP; break;
        case 'l': case DEMO_KEY_RIGHT: v->turn -= TURN_STEP; break;
        case 'x': v->forward_until = v->back_until = v->left_until = v->right_until = 0; break;
        case 'f': case '\r': v->fire_until = now_ms + FIRE_MS; break;
        case ' ': v->jump = 1; break;
        case 'c': v->crouch = (uint8_t)!v->crouch; break;
        case 'r': v->reload = 1; break;
        case 't': v->face_nearest = 1; break;
        case 'v': v->show_server = (uint8_t)!v->show_server; break;
        case '1': case '2': case '3': v->weapon = (uint8_t)(key - '0'); break;
        case 'q': v->quit = 1; break;
        default: break;
        }
    }
}

void demo_view_command(demo_view *v, const zl_client *c, int self, uint32_t now_ms, uint16_t msec,
                       zl_usercmd *out_cmd)
{
    const fps_player *me = (const fps_player *)zl_client_predicted(c);
    memset(out_cmd, 0, sizeof *out_cmd);
    out_cmd->msec = msec;
    out_cmd->seed = (uint8_t)now_ms;
    if (me && v->face_nearest) {
        int target = demo_bot_nearest(c, self, me);
        if (target >= 0) {
            const fps_player *it = (const fps_player *)zl_client_entity(c, target);
            v->yaw = zl_atan2(it->origin.y - me->origin.y, it->origin.x - me->origin.x);
        }
    }
    v->face_nearest = 0;
    v->yaw = (zl_angle)(v->yaw + v->turn);
    v->turn = 0;
    out_cmd->yaw = v->yaw;
    out_cmd->forward = (int8_t)(now_ms < v->forward_until ? ZL_USERCMD_MOVE_MAX
                                : now_ms < v->back_until  ? -ZL_USERCMD_MOVE_MAX
                                                          : 0);
    out_cmd->side = (int8_t)(now_ms < v->right_until ? ZL_USERCMD_MOVE_MAX
                             : now_ms < v->left_until ? -ZL_USERCMD_MOVE_MAX
                                                      : 0);
    out_cmd->buttons = (uint16_t)((now_ms < v->fire_until ? FPS_BUTTON_ATTACK : 0) |
                                  (v->jump ? FPS_BUTTON_JUMP : 0) |
                                  (v->crouch ? FPS_BUTTON_DUCK : 0) |
                                  (v->reload ? FPS_BUTTON_RELOAD : 0));
    out_cmd->weapon = v->weapon;
    v->jump = v->reload = v->weapon = 0;
}

/* The cell of a position, or 0 when it is off the map. */
static int cell_of(const zl_vec3 *p, int *row, int *col)
{
    int32_t x = zl_fx_floor_int(p->x) + DEMO_ARENA_HALF;
    int32_t y = DEMO_ARENA_HALF - zl_fx_floor_int(p->y);
    if (x < 0 || y < 0 || x >= 2 * DEMO_ARENA_HALF || y >= 2 * DEMO_ARENA_HALF)
        return 0;
    *col = x / COL_UNITS;
    *row = y / ROW_UNITS;
    return 1;
}

static void put(const zl_vec3 *p, char ch, uint8_t colour)
{
    int row, col;
    if (cell_of(p, &row, &col)) {
        screen[row][col] = ch;
        ink[row][col] = colour;
    }
}

/* Dots along the view direction, so the player sees where a shot goes. */
static void put_aim(const fps_player *me)
{
    int i;
    for (i = 1; i <= 4; i++) {
        zl_fx d = ZL_FX_INT(40 * i);
        zl_vec3 p = zl_vec3_make(me->origin.x + zl_fx_mul(zl_cos(me->yaw), d),
                                 me->origin.y + zl_fx_mul(zl_sin(me->yaw), d), 0);
        put(&p, '.', INK_AIM);
    }
}

static const char *weapon_name(int w)
{
    static const char *names[FPS_WEAPON_COUNT] = {"rifle", "pistol", "launcher"};
    return w >= 0 && w < FPS_WEAPON_COUNT ? names[w] : "?";
}

static size_t emit_map(size_t n)
{
    int r, col;
    uint8_t last = INK_PLAIN;
    n += (size_t)sprintf(out + n, "+");
    for (col = 0; col < DEMO_VIEW_COLS; col++)
        out[n++] = '-';
    n += (size_t)sprintf(out + n, "+\033[K\r\n");
    for (r = 0; r < DEMO_VIEW_ROWS; r++) {
        out[n++] = '|';
        for (col = 0; col < DEMO_VIEW_COLS; col++) {
            if (ink[r][col] != last) {
                last = ink[r][col];
                n += (size_t)sprintf(out + n, "%s", ink_code[last]);
            }
            out[n++] = screen[r][col];
        }
        last = INK_PLAIN;
        n += (size_t)sprintf(out + n, "%s|\033[K\r\n", ink_code[INK_PLAIN]);
    }
    return n;
}

static char slot_letter(int32_t slot)
{
    return (char)(slot >= 0 && slot < 26 ? 'A' + slot : '?');
}

/* Others' shots played in the last DEMO_SEEN_MS: a flash at the muzzle. */
static void put_seen_shots(const demo_player *p, uint32_t now_ms)
{
    uint32_t i;
    for (i = 0; i < DEMO_SEEN_SHOTS; i++) {
        const demo_seen_shot *s = &p->seen[i];
        if (s->time_ms && now_ms - s->time_ms < DEMO_SEEN_MS)
            put(&s->origin, '*', INK_FLASH);
    }
}

/* A player as the feed names it: the name the server's gamestate gave,
 * else its slot's letter (letter: room for two characters). */
static const char *who(const demo_player *p, int32_t slot, char *letter)
{
    if (slot >= 0 && slot < ZL_MAX_CLIENTS && p->names[slot][0])
        return p->names[slot];
    letter[0] = slot_letter(slot);
    letter[1] = 0;
    return letter;
}

/* The kill feed, newest first. */
static size_t emit_feed(const demo_player *p, size_t n)
{
    uint32_t k;
    n += (size_t)sprintf(out + n, "kill feed:");
    for (k = 0; k < DEMO_FEED_LINES && k < p->feed_next; k++) {
        const demo_feed_line *l = &p->feed[(p->feed_next - 1u - k) % DEMO_FEED_LINES];
        char a[2], b[2];
        if (l->killer == l->victim)
            n += (size_t)sprintf(out + n, "  %s fell", who(p, l->victim, a));
        else
            n += (size_t)sprintf(out + n, "  %s killed %s (%lu)", who(p, l->killer, a),
                                 who(p, l->victim, b), (unsigned long)l->frags);
    }
    n += (size_t)sprintf(out + n, "\033[K\r\n");
    return n;
}

/* The arena's walls, nothing on them. */
static void clear_screen(const demo_view *v)
{
    int r, col;
    for (r = 0; r < DEMO_VIEW_ROWS; r++)
        for (col = 0; col < DEMO_VIEW_COLS; col++) {
            screen[r][col] = v->map[r][col];
            ink[r][col] = v->map[r][col] == ' ' ? INK_PLAIN : INK_WALL;
        }
}

/* Another player (NULL: absent), by its slot's letter; x when dead. */
static void put_other(const fps_player *p, int slot)
{
    if (p)
        put(&p->origin, (char)(p->flags & FPS_PF_DEAD ? 'x' : slot < 26 ? 'A' + slot : '?'),
            (uint8_t)(p->flags & FPS_PF_DEAD ? INK_DEAD : INK_OTHER));
}

void demo_view_draw_frame(demo_view *v, const zl_snapshot_frame *f, const char *status)
{
    size_t n = 0;
    int slot;
    clear_screen(v);
    for (slot = 0; f && slot < ZL_MAX_CLIENTS; slot++)
        put_other((const fps_player *)zl_snapshot_frame_state(f, (uint16_t)slot), slot);
    n += (size_t)sprintf(out + n, "\033[H");
    n = emit_map(n);
    n += (size_t)sprintf(out + n, "%s\033[K\r\n"
                                  "spectating: A-Z the players, x the dead; q quits\033[K\r\n",
                         status);
    fwrite(out, 1, n, stdout);
    fflush(stdout);
}

void demo_view_draw(demo_view *v, const demo_player *player, uint64_t now_us,
                    const demo_rec_net *net)
{
    uint32_t drawn[ZL_STATE_MAX / 4];
    const zl_client *c = &player->client;
    const fps_player *me = NULL;
    int self = zl_client_slot(c), slot;
    size_t n = 0;
    clear_screen(v);
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++)
        if (slot != self)
            put_other((const fps_player *)zl_client_entity(c, slot), slot);
    put_seen_shots(player, (uint32_t)(now_us / 1000u));
    if (v->show_server && zl_client_state(c) == ZL_CLIENT_CONNECTED && zl_client_latest(c)) {
        const fps_player *s =
            (const fps_player *)zl_snapshot_frame_state(zl_client_latest(c), (uint16_t)self);
        if (s)
            put(&s->origin, 'S', INK_SERVER);
    }
    if (zl_client_player(c, now_us, drawn) == ZL_OK) {
        me = (const fps_player *)(const void *)drawn;
        if (!(me->flags & FPS_PF_DEAD))
            put_aim(me);
        put(&me->origin, '@', INK_ME);
    }
    n += (size_t)sprintf(out + n, "\033[H");
    n = emit_map(n);
    if (me)
        n += (size_t)sprintf(out + n,
                             "you: @ slot %c  health %3u  %s %u  %s%s%s\033[K\r\n",
                             self < 26 ? 'A' + self : '?', me->health, weapon_name(me->weapon),
                             me->clip[me->weapon < FPS_WEAPON_COUNT ? me->weapon : 0],
                             me->flags & FPS_PF_CROUCHED ? "crouched " : "",
                             me->flags & FPS_PF_DEAD ? "DEAD, respawning " : "",
                             net->time_ms - v->hit_ms < 300u && v->hit_ms ? "\033[1;32mHIT\033[0m" : "");
    else
        n += (size_t)sprintf(out + n, "connecting...\033[K\r\n");
    n += (size_t)sprintf(out + n,
                         "ping %lu ms  loss %.1f%%/%.1f%%  lerp %lu ms  in %.1f out %.1f KB/s  "
                         "mispredicted %lu  shots %lu  hits seen %lu\033[K\r\n"
                         "events %lu (%.1f KB)  messages %.1f KB\033[K\r\n",
                         (unsigned long)(net->rtt_us / 1000u), net->loss_in_q16 * 100.0 / 65536.0,
                         net->loss_out_q16 * 100.0 / 65536.0, (unsigned long)(net->interp_us / 1000u),
                         net->bytes_in / 1000.0, net->bytes_out / 1000.0,
                         (unsigned long)net->mispredicted, (unsigned long)net->shots,
                         (unsigned long)net->hits_seen, (unsigned long)net->events_heard,
                         net->event_bytes / 1000.0, net->message_bytes / 1000.0);
    n = emit_feed(player, n);
    n += (size_t)sprintf(out + n,
                         "%s\033[K\r\n"
                         "WASD/arrows move+turn  j/l turn  t face nearest  f fire  space jump  "
                         "c crouch  1-3 weapon  r reload  x stop  v server view  q quit\033[K\r\n",
                         v->show_server ? "S: where the server last said you were (v hides it); "
                                          "@: your prediction, A-Z: the others as drawn, *: their shots"
                                        : "v: show where the server last said you were");
    fwrite(out, 1, n, stdout);
    fflush(stdout);
}
