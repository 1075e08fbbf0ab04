/* demo_client_main.c - the zerolag client program: joins a server over UDP and
 * plays in the terminal or as a bot; Ctrl-C disconnects cleanly. */
#include <stdio.h>
#include <string.h>

#include "demo_host.h"
#include "demo_join.h"
#include "demo_client_demo.h"
#include "demo_view.h"
#include "demo_watch.h"

#define NET_RECORD_US 100000u /* the launcher's timeline: 10 samples a second */
#define DRAW_US 50000u        /* the terminal view: 20 frames a second */
#define CEASEFIRE_US 1000000u /* bots hold fire this long before the end */

static demo_options opt;
static demo_join join;
static demo_view view;

static void keyboard_input(void *ctx, const zl_client *c, int self, uint64_t now_us,
                           uint16_t msec, int may_fire, zl_usercmd *out)
{
    (void)may_fire;
    demo_view_command((demo_view *)ctx, c, self, (uint32_t)(now_us / 1000u), msec, out);
}

/* Plays until Ctrl-C, the duration, the player quits or the server goes. */
static void play(void)
{
    demo_player *player = &join.player;
    uint64_t begin = join.net.hal.now_us(join.net.hal.ctx), next_net = begin, next_draw = begin;
    uint64_t end = begin + (uint64_t)opt.duration_s * 1000000u;
    while (!demo_host_interrupted() && !view.quit && !demo_join_end_reason(&join)) {
        uint64_t now = join.net.hal.now_us(join.net.hal.ctx);
        if (opt.duration_s && now >= end)
            break;
        demo_join_poll(&join, now);
        if (!opt.bot)
            demo_view_keys(&view, (uint32_t)(now / 1000u));
        demo_join_frame(&join, now, !opt.duration_s || now + CEASEFIRE_US < end);
        if (opt.machine && join.connected && now >= next_net) {
            demo_rec_net r;
            demo_player_net(player, now, &r);
            demo_record_write(stdout, DEMO_REC_NET, &r);
            next_net += NET_RECORD_US;
        }
        if (!opt.bot && now >= next_draw) {
            demo_rec_net r;
            demo_player_net(player, now, &r);
            view.hit_ms = player->last_hit_ms;
            demo_view_draw(&view, player, now, &r);
            next_draw = now + DRAW_US;
        }
        demo_join_rest(&join, now);
    }
}

int main(int argc, char **argv)
{
    int rc = demo_options_load(&opt, DEMO_FOR_CLIENT, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (opt.watch[0])
        return demo_watch_run(&opt);
    if (opt.play[0])
        return demo_client_demo_play(&opt, opt.machine ? stderr : stdout);
    if (!opt.bot && demo_view_open(&view) != 0) {
        fprintf(stderr, "zl_client: no terminal to play in; use --bot to let a bot play\n");
        return 2;
    }
    demo_host_catch_interrupt();
    /* What people read goes to stderr under --machine. */
    if (demo_join_start(&join, &opt, opt.machine ? stderr : stdout, "zl_client") != 0) {
        if (!opt.bot)
            demo_view_close(&view);
        return 1;
    }
    if (opt.record[0] && demo_client_demo_record_start(&join.player.client, opt.record) != 0) {
        if (!opt.bot)
            demo_view_close(&view);
        return 1;
    }
    if (!opt.bot) {
        join.player.input = keyboard_input;
        join.player.input_ctx = &view;
    }
    play();
    if (!opt.bot)
        demo_view_close(&view);
    demo_client_demo_record_stop(&join.player.client, join.text);
    demo_join_finish(&join);
    return 0;
}
