/* demo_local.h - a server and its players in one program on a simulated
 * clock (the demo image, the page): starting the server, one step of it
 * and one of a player. */
#ifndef DEMO_LOCAL_H
#define DEMO_LOCAL_H

#include "demo_player.h"
#include "demo_stopwatch.h"
#include "demo_welcome.h"
#include "zl_loopnet.h"

/* The server's address on the loop network. */
#define DEMO_LOCAL_SERVER "10.0.0.1:27015"

/* Binds ep to DEMO_LOCAL_SERVER on net (filling hal) and starts s there: a
 * plain server (one program: nobody on the path) of max_clients slots
 * playing g's rules (initialised and watched here), its secret from the
 * net's random source. *sc gets the configuration. Returns zl_server_init's
 * result. */
int demo_local_server_start(zl_server *s, demo_game *g, zl_loopnet *net, zl_loopnet_endpoint *ep,
                            zl_platform *hal, int max_clients, uint64_t now_us,
                            zl_server_config *sc);

/* Takes every datagram waiting on hal, runs the ticks due at now_us (their
 * cost, per tick in zl_port_timer_now units, into cost), hands the verdicts
 * to sink, sends the kill feed and gives each joining client the gamestate
 * with motd. Returns the clients that joined. */
int demo_local_server_step(zl_server *s, demo_game *g, const zl_platform *hal,
                           demo_welcome *welcome, const char *motd, demo_stopwatch *cost,
                           uint64_t now_us, const demo_sink *sink);

/* Lets cond (the conditioner inside hal) deliver what is due, hands every
 * datagram waiting on hal to p and updates its client. */
void demo_local_player_step(demo_player *p, zl_conditioner *cond, const zl_platform *hal,
                            uint64_t now_us);

#endif
