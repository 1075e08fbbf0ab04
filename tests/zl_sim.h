/* zl_sim.h - a server and many bot clients on the test clock, each client
 * behind its own link conditioner on a small in-test network (soak, cheats). */
#ifndef ZL_SIM_H
#define ZL_SIM_H

#include "fps.h"
#include "zl_client.h"
#include "zl_conditioner.h"
#include "zl_server.h"

/* The Cortex-M3 test image (a ZL_TEST_SLOW port) has no room for another
 * server: the other suites' statics fill its 16 MiB of PSRAM. There the
 * simulation is left out and its suites say so instead of running. */
#ifdef ZL_TEST_SLOW
#define ZL_SIM_AVAILABLE 0
#else
#define ZL_SIM_AVAILABLE 1
#endif

/* Client objects the simulation holds (each about 1.5 MB with its
 * conditioner). The long soak (-DZL_SOAK_LONG) fills a whole server. */
#ifdef ZL_SOAK_LONG
#define ZL_SIM_CLIENTS ZL_MAX_CLIENTS
#else
#define ZL_SIM_CLIENTS (ZL_MAX_CLIENTS < 16 ? ZL_MAX_CLIENTS : 16)
#endif
/* Datagrams waiting for the server, and for each client, between steps. */
#define ZL_SIM_SERVER_QUEUE 256
#define ZL_SIM_CLIENT_QUEUE 16
/* One step of the simulation; bots sample a command every frame. */
#define ZL_SIM_STEP_US 1000u
#define ZL_SIM_FRAME_US 16000u

typedef struct zl_sim zl_sim;

/* The Unix time the simulation's server starts at (tokens expire by it). */
#define ZL_SIM_UNIX_S 1800000000u

/* Fills the command client i samples this frame (msec, angles, buttons,
 * moves; the rest is the client's); returns 0 to sample none. */
typedef int (*zl_sim_bot)(zl_sim *sim, int i, zl_usercmd *cmd);
/* Takes a datagram as it leaves client i's socket (after its conditioner):
 * the default hands it on unchanged (zl_sim_deliver). A test that plays a
 * hostile client rewrites or multiplies it here. */
typedef void (*zl_sim_outbound)(zl_sim *sim, int i, uint8_t *data, size_t len);

typedef struct zl_sim_datagram {
    zl_addr from;
    uint16_t len;
    uint8_t data[ZL_MAX_PACKET];
} zl_sim_datagram;

ZL_RING_TYPE(zl_sim_server_queue, zl_sim_datagram, ZL_SIM_SERVER_QUEUE);
ZL_RING_TYPE(zl_sim_client_queue, zl_sim_datagram, ZL_SIM_CLIENT_QUEUE);

/* What the server ran of one connection's commands, seen from inside its
 * game (zl_game.run_command), kept per slot and restarted for each new
 * connection in it. */
typedef struct zl_sim_ledger {
    uint64_t nonce;    /* the connection these counts belong to */
    uint32_t last;     /* newest sequence run (0: none yet) */
    uint32_t executed; /* commands run */
    uint32_t repeats;  /* a sequence not newer than the last: run twice */
    uint32_t gaps;     /* times the sequence jumped over commands */
    uint32_t skipped;  /* commands jumped over */
} zl_sim_ledger;

typedef struct zl_sim_client {
    zl_sim *sim;            /* the simulation it belongs to, and its index */
    int index;
    zl_client client;
    zl_connect_token token; /* this session's, kept while it connects */
    zl_conditioner cond;
    zl_platform wire;       /* the socket: into the network */
    zl_platform hal;        /* what the client uses: cond over wire */
    zl_addr addr;
    zl_sim_client_queue inbox;
    zl_sim_bot bot;         /* NULL: connected but idle */
    zl_sim_outbound outbound; /* NULL: zl_sim_deliver */
    uint8_t open;           /* the socket exists: datagrams reach it */
    uint8_t live;           /* the client runs (open and not vanished) */
    uint16_t sessions;      /* connections started, for fresh ports and nonces */
    uint64_t close_at_us;   /* after a leave: the socket closes then */
    uint32_t made;          /* commands predicted and queued this session */
    uint32_t fires;         /* FPS_EV_FIRE among their first predictions */
    uint32_t inbox_dropped; /* datagrams that found the inbox full */
    uint32_t inbox_peak;
} zl_sim_client;

struct zl_sim {
    zl_platform clock;
    fps_game game;
    zl_game rules;          /* the server's: counts into ledger */
    zl_game client_rules;   /* the clients': plain FPS */
    zl_server server;
    zl_platform server_hal;
    zl_addr server_addr;
    zl_sim_server_queue server_inbox;
    zl_conditioner_settings impair; /* every client's link, both ways */
    uint64_t seed;
    uint64_t start_us;      /* the test clock at zl_sim_init */
    int clients;            /* client objects in use, <= ZL_SIM_CLIENTS */
    uint8_t shared_address; /* 1: clients joining from now on share one IP
                               address, told apart by port (a NAT) */
    uint32_t server_inbox_dropped, server_inbox_peak;
    uint32_t unbound;       /* datagrams to a closed socket */
    uint32_t received;      /* datagrams handed to zl_server_receive */
    uint8_t drain_many;     /* 1: each step hands the server what arrived
                               in one zl_server_receive_many */
    uint32_t sent_digest;   /* CRC-32 of every datagram the server sent,
                               each after its destination */
    uint32_t ticks;         /* server ticks run */
    uint8_t timing;         /* 1: the server's calls are timed on `host` */
    zl_platform host;
    uint64_t receive_us, update_us; /* host time inside zl_server_receive
                                       and zl_server_update */
    zl_conditioner_stats closed_links[2]; /* totals of conditioners since
                                             reused, per direction */
    zl_sim_ledger ledger[ZL_MAX_CLIENTS];
    zl_sim_client c[ZL_SIM_CLIENTS];
};

/* The one simulation (large: static storage, shared by the suites). */
extern zl_sim zl_sim_world;

/* Resets sim at the test clock's 1 s mark: a server with `clients` slots
 * (server config `sc`, NULL for the defaults with that many slots) and
 * `clients` idle client objects whose links will get `impair` (NULL: a
 * pass-through). Everything random comes from seed. */
void zl_sim_init(zl_sim *sim, int clients, const zl_server_config *sc,
                 const zl_conditioner_settings *impair, uint64_t seed);

/* Times the server's calls on the port's real clock from now on (only
 * reported: the machine's load moves it). */
void zl_sim_time_server(zl_sim *sim);

/* Client i opens a new socket (a new port), a new connection attempt and
 * a fresh conditioner, and starts connecting with the given bot. */
void zl_sim_join(zl_sim *sim, int i, zl_sim_bot bot);
/* Client i says goodbye (the DISCONNECT goes through its link) and closes
 * its socket a second later. */
void zl_sim_leave(zl_sim *sim, int i);
/* Client i stops dead, socket and all: the server only notices the
 * silence. */
void zl_sim_vanish(zl_sim *sim, int i);

/* Advances the test clock by one step: the server takes what arrived and
 * runs its ticks, then every live client pumps its link, takes what
 * arrived, sends what is due and, on its frame, draws and samples a
 * command. */
void zl_sim_step(zl_sim *sim);
/* Steps for us microseconds. */
void zl_sim_run(zl_sim *sim, uint64_t us);

/* Hands a datagram from client i's socket to the server. */
void zl_sim_deliver(zl_sim *sim, int i, const uint8_t *data, size_t len);
/* Hands the server a datagram from any address (a stranger's). */
void zl_sim_deliver_from(zl_sim *sim, const zl_addr *from, const uint8_t *data, size_t len);

/* 1 when client i is connected. */
int zl_sim_connected(const zl_sim *sim, int i);
/* The server's stats of client i's slot: ZL_OK, or ZL_ERR_INVALID when it
 * holds none. */
int zl_sim_server_stats(zl_sim *sim, int i, zl_server_client_stats *out);
/* The ledger of client i's connection, or NULL when the server has run
 * nothing of it. */
const zl_sim_ledger *zl_sim_ledger_of(const zl_sim *sim, int i);

/* Adds up what every client's link did since zl_sim_init, per direction
 * (ZL_CONDITIONER_SEND is client to server): counters of earlier
 * sessions included; `queued` is what is held now. */
void zl_sim_link_totals(const zl_sim *sim, zl_conditioner_stats out[2]);

/* 10% bursty loss (Gilbert-Elliott: bursts of 4 datagrams on average),
 * 5% duplicates and 5% held back 30 ms (reordered), at latency_us +/-
 * jitter_us one way. */
void zl_sim_hostile_link(zl_conditioner_settings *out, uint32_t latency_us, uint32_t jitter_us);

#endif
