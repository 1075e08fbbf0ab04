/* web_sim.h - the page's match in one module: a server, a person's client
 * and bots over the loop network, each client behind its own conditioner. */
#ifndef WEB_SIM_H
#define WEB_SIM_H

#include <stdint.h>

/* Clients in the match: the person's (0, a bot in a bot-only match), the
 * other view's (1) and more bots. */
#define WEB_CLIENTS 4
/* Ints web_view writes per player slot: present, x, y, z (Q16 units),
 * yaw (65536 a turn), health, flags (FPS_PF_*). */
#define WEB_VIEW_INTS 7
/* Ints web_impacts writes per hit: shooter, target, then three boxes
 * (the one the shooter drew, the server's rewound one, the target now),
 * each min x, y, max x, y (Q16 units). */
#define WEB_IMPACT_INTS 14
#define WEB_IMPACTS 8

/* The views web_view draws. */
enum { WEB_VIEW_PERSON = 0, WEB_VIEW_SERVER = 1, WEB_VIEW_OTHER = 2 };
/* The switches of web_switch. */
enum { WEB_PREDICTION = 0, WEB_RECONCILIATION, WEB_INTERPOLATION, WEB_LAGCOMP, WEB_SWITCHES };
/* The ints of web_graph, in order. */
enum {
    WEB_G_PING_MS = 0, WEB_G_JITTER_MS, WEB_G_LOSS_IN_PERMILLE, WEB_G_LOSS_OUT_PERMILLE,
    WEB_G_LERP_MS, WEB_G_SNAPSHOT_BYTES, WEB_G_SNAPSHOTS, WEB_G_MISPREDICTED,
    WEB_G_SHOTS, WEB_G_JUDGED, WEB_G_AGREE, WEB_G_SERVER_HITS, WEB_G_TIME_MS,
    WEB_G_CONNECTED, WEB_G_SLOT, WEB_G_INTS
};

/* Starts a match (a second call starts a new one): every random choice
 * (bots, conditioners, the server's secret) comes from seed; person 1 gives
 * client 0 to web_input, 0 makes it a bot. Returns 0, or a ZL_ERR_* code. */
int web_start(uint32_t seed, int person);

/* Runs the simulated clock ms milliseconds (1 ms steps, a client frame
 * every 8 ms), timing each client frame and server tick. */
void web_step(uint32_t ms);

/* The person's keys, held until the next call: forward and side -127..127,
 * turn in 65536ths of a turn a frame, buttons FPS_BUTTON_* bits. */
void web_input(int32_t forward, int32_t side, int32_t turn, uint32_t buttons);

/* Every client's link, both ways: round trip and jitter in ms, loss and
 * burst (chance of entering a loss burst) in thousandths. */
void web_link(uint32_t rtt_ms, uint32_t jitter_ms, uint32_t loss_permille,
              uint32_t burst_permille);

/* Turns one switch (WEB_PREDICTION ...) on (1) or off (0). */
void web_switch(int which, int on);

/* Writes WEB_VIEW_INTS ints per player slot (web_slots of them) of one
 * view into out. */
int web_slots(void);
void web_view(int view, int32_t *out);

/* Writes the newest WEB_IMPACTS hits (WEB_IMPACT_INTS ints each, newest
 * first) into out; returns how many there are. */
int web_impacts(int32_t *out);

/* The person's client net graph and the match's hit agreement: WEB_G_INTS
 * ints into out. */
void web_graph(int32_t *out);

/* The hash of every player as the server holds it and as each client
 * predicts itself (zl_schema_hash: the same on every port). */
uint32_t web_hash(void);

/* The mean client frame so far (a bot's or the person's), and the server's
 * time per tick (receiving, ticking and sending), in ns; and the counts.
 * Means of sums, since a page's clock is coarse. */
uint32_t web_frame_ns(void);
uint32_t web_tick_ns(void);
uint32_t web_frames(void);
uint32_t web_ticks(void);

/* The arena's walls: how many; web_wall writes min x, y, z, max x, y, z
 * (Q16 units; the floor and ceiling are walls too). */
int web_walls(void);
void web_wall(int i, int32_t *out);

#endif
