/* zl_cmdbuf.h - the server's input buffer for one client: takes every run of
 * commands received, keeps each once, and releases them in real time.
 * Not part of the API (docs/ARCHITECTURE.md): public because every server
 * slot, which the application allocates, embeds one; zl_server_config.cmdbuf
 * and zl_server_client_stats.commands are its settings and stats, and an
 * application calls none of it. */
#ifndef ZL_CMDBUF_H
#define ZL_CMDBUF_H

#include "zl_ring.h"
#include "zl_usercmd.h"

ZL_BEGIN_DECLS

/* Longest server tick zl_cmdbuf_pop accepts, in microseconds. */
#define ZL_CMDBUF_MAX_TICK_US 1000000u

ZL_STATIC_ASSERT(ZL_CMDBUF_CAPACITY >= 2 && ZL_CMDBUF_CAPACITY <= 4096, zl_cmdbuf_capacity);

/* ---- The server's input buffer for one client ----
 * push takes every received run; it keeps each command once, in sequence
 * order, and trusts nothing. pop, once per server tick, releases the
 * commands that fit the real time that passed. The rules, in the commands'
 * own msec (the model of Source's sv_maxusrcmdprocessticks, plus a jitter
 * buffer):
 *  - Real time only. Each tick adds tick_us to a credit; commands run, in
 *    order, while it covers at least half the next one's msec, each taking
 *    its msec off. Credit that finds no command waiting (a loss burst or a
 *    lag spike held the packets) is kept up to budget_ms, so the backlog
 *    that then arrives runs instead of being shed: nothing the player did
 *    is lost to a stall of up to budget_ms. In total a client runs at most
 *    the real time since its first command plus half a command; within
 *    any stretch, at most that stretch plus budget_ms. A speed hack (more
 *    msec than real time) gains nothing: its excess waits and is shed
 *    (below); a client silent for a while then bursting gets back the time
 *    it was silent (at most budget_ms), which real time had given it.
 *  - Catching up at a bounded pace. One tick runs at most catchup_ticks
 *    ticks' worth of commands (and always one), so a backlog plays out
 *    over a few ticks, a player moving a few times its speed on the other
 *    screens for a moment, instead of jumping in one tick.
 *  - Jitter buffer. The margin after a tick is how long the buffer could
 *    go on without a new command: the msec it holds minus the credit (a
 *    credit waiting on an empty buffer makes it negative). At the end of
 *    each window_ms window whose smallest margin was below the target,
 *    releases pause for the difference (the credit goes into debt), which
 *    adds exactly that much delay. The target is the measured arrival
 *    jitter times jitter_scale_q4 / 16, at most max_target_ms. A steady
 *    client gets no added delay; a jittery or lossy one the least that
 *    kept it from starving in the last window plus the target, so it runs
 *    one command per tick and does not jitter on everyone's screen.
 *    A window that starved by more than the target and twice slack_ms
 *    saw a stall, not lateness: no pause, since starving through a stall
 *    is what the credit is for, and a pause would take its owed time back. max_target_ms 0 turns the buffer
 *    off (late commands only catch up through the credit, as in Source).
 *  - Bounded delay. At the end of a window whose margin exceeded target +
 *    slack_ms on every tick, pauses still outstanding are given back first
 *    (the cushion they built runs, as caught up); then the oldest commands
 *    are dropped (counted in dropped_ahead) until it would not have. That sheds a speed hacker's
 *    excess, a fast client clock's drift, or the backlog a network stall
 *    leaves, without ever running them faster. The delay the buffer adds
 *    thus stays below max_target_ms + slack_ms plus what one window's
 *    worst starvation asked for. */

/* Run-time settings of an input buffer (all at most 60000). */
typedef struct zl_cmdbuf_settings {
    uint32_t budget_ms;       /* credit kept for catching up */
    uint32_t catchup_ticks;   /* most ticks' worth of commands one tick runs
                                 (1..16) */
    uint32_t max_target_ms;   /* bound of the jitter target; 0: no jitter buffer */
    uint32_t jitter_scale_q4; /* target = jitter x this / 16 (at most 1024) */
    uint32_t slack_ms;        /* margin above the target tolerated for a window */
    uint32_t window_ms;       /* how often the margin is checked (> 0) */
} zl_cmdbuf_settings;

/* Counters of an input buffer (zl_cmdbuf_get_stats). Totals since
 * zl_cmdbuf_init, wrapping at 2^32. Every command pushed is, at any moment,
 * in exactly one of: duplicates, invalid, overflow, dropped_ahead,
 * executed, or still buffered (depth_cmds):
 *   received == duplicates + invalid + overflow + dropped_ahead + executed
 *               + depth_cmds */
typedef struct zl_cmdbuf_stats {
    uint32_t received;      /* commands pushed, repeated copies included */
    uint32_t duplicates;    /* not newer than the newest already taken: ignored */
    uint32_t lost;          /* sequences skipped: never received (not in received) */
    uint32_t invalid;       /* failed zl_usercmd_validate: dropped */
    uint32_t overflow;      /* found the buffer full: dropped */
    uint32_t dropped_ahead; /* shed: the client was ahead of real time */
    uint32_t executed;      /* released by zl_cmdbuf_pop */
    uint32_t caught_up;     /* of those, run beyond their tick's own time on
                               credit kept from ticks that found nothing to
                               run: a backlog after a stall, run not shed */
    uint32_t underruns;     /* ticks that found nothing to run while
                               credit was waiting */
    uint32_t delay_added_us; /* total pause the jitter buffer inserted */
    uint32_t depth_cmds;    /* commands buffered now */
    uint32_t depth_us;      /* their msec, in microseconds */
    uint32_t jitter_us;     /* smoothed mean deviation of packet arrival
                               against the commands' own clock */
    uint32_t target_us;     /* current jitter target */
} zl_cmdbuf_stats;

ZL_RING_TYPE(zl_cmdbuf_ring, zl_usercmd, ZL_CMDBUF_CAPACITY);

/* One client's input buffer. Caller-owned (static or inside a client
 * slot, about ZL_CMDBUF_CAPACITY x 28 bytes: 1.9 KB by default); every
 * field is private. */
typedef struct zl_cmdbuf {
    zl_cmdbuf_settings set;
    zl_cmdbuf_ring ring;
    uint32_t newest;         /* newest sequence taken or dropped */
    uint32_t depth_us;
    int32_t credit_us;       /* real time owed to the client (< 0: a pause) */
    uint8_t started;         /* a command has been taken */
    uint8_t timeline;        /* 1: client_end_us is anchored */
    uint64_t client_end_us;  /* end of the newest command on the client's
                                clock, anchored to our clock */
    int64_t transit_q4;      /* smoothed arrival - client_end_us, x 16 */
    uint32_t jitter_q4;      /* smoothed mean deviation, x 16 */
    uint32_t window_us;      /* time into the window */
    int32_t margin_us;       /* shallowest margin after a tick in it */
    int32_t paused_us;       /* pauses inserted and not yet given back */
    zl_cmdbuf_stats stats;   /* counters; depth, jitter, target derived */
} zl_cmdbuf;

/* Fills *s with the defaults (ZL_CMDBUF_* above). */
void zl_cmdbuf_settings_default(zl_cmdbuf_settings *s);

/* Starts an empty buffer. settings: NULL for the defaults, else copied
 * (window_ms 0 is a programmer error). first_sequence is the sequence the
 * client's first command carries (agreed at connection, e.g. 1): earlier
 * ones count as duplicates, and missing ones from it on as lost. */
void zl_cmdbuf_init(zl_cmdbuf *b, const zl_cmdbuf_settings *settings, uint32_t first_sequence);

/* Takes cmds[0 .. count-1] (caller-owned, read only; count >= 0), commands
 * that arrived at now_us (microseconds, our clock, never decreasing), in
 * increasing sequence order as zl_cmdstream_read gives them. Each command
 * newer than the newest taken is kept once, in order; older ones and
 * repeats are counted as duplicates; skipped sequences as lost; commands
 * failing zl_usercmd_validate, or finding the buffer full, are dropped and
 * counted. Returns how many were kept. */
int zl_cmdbuf_push(zl_cmdbuf *b, const zl_usercmd *cmds, int count, uint64_t now_us);

/* Call once per server tick of tick_us microseconds (1 ..
 * ZL_CMDBUF_MAX_TICK_US). Copies into out[0 .. max-1] (max >= 1) the
 * commands to run this tick, oldest first, and returns how many (0 when
 * none may run). Commands beyond max wait for the next tick. */
int zl_cmdbuf_pop(zl_cmdbuf *b, uint32_t tick_us, zl_usercmd *out, int max);

/* The newest sequence taken or dropped so far (first_sequence - 1 before
 * any): what to pass to zl_cmdstream_read, and what the client may stop
 * resending. */
uint32_t zl_cmdbuf_newest(const zl_cmdbuf *b);

/* Copies the counters and current measurements into *out. */
void zl_cmdbuf_get_stats(const zl_cmdbuf *b, zl_cmdbuf_stats *out);

ZL_END_DECLS

#endif
