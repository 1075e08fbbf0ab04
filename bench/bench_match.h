/* bench_match.h - one match for the server benchmarks: a zl_server at 128 Hz,
 * its bots (the client end of each connection) and a tick with only the
 * server's work timed. */
#ifndef BENCH_MATCH_H
#define BENCH_MATCH_H

#include "fps.h"
#include "zl_server.h"

#define TICK_RATE 128u
#define TICK_US ((1000000u + TICK_RATE / 2u) / TICK_RATE) /* as the server rounds it */

/* The client end of one connection, cut down to what its packets need:
 * commands made from the bot's number and sequence, acks through its link,
 * and the newest command the server reports run (snapshot header). Real
 * zl_client instances would decode, predict and draw too, which is client
 * work, and 256 of them would not fit the Cortex-M3 image. */
typedef struct bench_bot {
    zl_addr addr;
    uint64_t nonce;
    uint32_t link_id;
    /* A sealed run: the token's keys and each direction's full sequence. */
    uint8_t client_key[ZL_TOKEN_KEY_SIZE], server_key[ZL_TOKEN_KEY_SIZE];
    uint64_t send_sequence, receive_newest;
    uint32_t first_tick; /* server tick command 1 is made for */
    uint32_t newest;     /* newest command made */
    uint32_t executed;   /* newest command the server reports run */
    uint32_t hold_fire;  /* bit seq % 32: command seq keeps its finger off */
    zl_link link;
    uint16_t len; /* bytes in packet, 0 when empty */
    /* Our command packet going in, then the server's datagram coming out:
     * the tick takes the first before it writes the second. */
    uint8_t packet[ZL_MAX_PACKET];
} bench_bot;

/* Bots that may download at once (bench_match.downloading). */
#define BENCH_DOWNLOADERS 4

typedef struct bench_match {
    fps_game game_state;
    zl_game game;
    int players;
    int sealed;       /* connect tokens and sealed packets this run */
    int no_events;    /* set before starting: the FPS without its event
                         schema, so no events go out */
    zl_aead aead;
    uint64_t now_us;
    uint32_t snapshots_last; /* snapshots the last tick sent */
    /* Blocks: the first `downloading` bots get `download` (download_len
     * bytes) again each time the last copy is acknowledged whole; bots
     * drop every drop_every-th datagram from the server (0: none). */
    int downloading;
    const uint8_t *download;
    uint32_t download_len, drop_every, received_datagrams;
    /* A downloader's second datagram of a tick (its block's chunks alone
     * beside its snapshot). */
    uint16_t len2[BENCH_DOWNLOADERS];
    uint8_t packet2[BENCH_DOWNLOADERS][ZL_MAX_PACKET];
    /* Tallies since the warm-up ended. */
    uint32_t ticks, snapshot_ticks, shots, hits, kills, overflow, bad_ticks;
    zl_server server;
    bench_bot bots[ZL_MAX_CLIENTS];
    zl_server_datagram arrived[ZL_MAX_CLIENTS]; /* the bots' packets of a tick */
} bench_match;

/* A fresh server at 128 Hz with `players` bots connected in the same
 * instant (so every client's snapshot falls on the same ticks), then the
 * warm-up; relevance: the FPS relevance rule on; sealed: connect tokens
 * and sealed packets. Returns 0 when the server would not start or a bot
 * could not connect. */
int bench_match_start(bench_match *b, int players, int relevance, int sealed);

/* One tick of the match; returns the timer units the server's work took:
 * every command packet through zl_server_receive_many, then zl_server_update
 * running the tick (commands, shots rewound, rockets, history, snapshots
 * sent). The bots' work around it is not timed. */
uint64_t bench_match_step(bench_match *b);

/* Notes what the timed ticks did, so a reader can judge the load: shots and
 * hits per tick, snapshots sent and their size, commands run and lost. */
void bench_match_report(bench_match *b);

#endif
