/* zl_record.h - match records: what a server ran (commands, joins, leaves,
 * new matches) written as a compact bit stream, and the validating reader.
 * The format is docs/RECORD.md; zl_replay.h re-runs a record. */
#ifndef ZL_RECORD_H
#define ZL_RECORD_H

#include "zl_game.h"
#include "zl_lagcomp.h"

ZL_BEGIN_DECLS

#define ZL_RECORD_MAGIC 0x524D4C5Au /* "ZLMR" as the first four bytes */
#define ZL_RECORD_VERSION 1u
/* Every tick a record runs is below this, so lag compensation (ticks
 * below 2^31) can take each: a header whose start tick is not below it is
 * refused, as is a run of ticks that would reach it. */
#define ZL_RECORD_TICK_END 0x7FFFFFFFu
#define ZL_RECORD_CONFIG_MAX 255u   /* bytes of game configuration */
#define ZL_RECORD_HEADER_MAX (29u + ZL_RECORD_CONFIG_MAX)
/* The writer's buffer: an entry is at most about 80 bytes (a command with
 * every field changed and a rewind time); whole bytes go to the sink once
 * half of it is used and when the record ends. */
#define ZL_RECORD_BUFFER 256u

/* What a record says about the match before its first tick. */
typedef struct zl_record_header {
    uint8_t version;        /* ZL_RECORD_VERSION */
    uint8_t protocol;       /* ZL_PROTOCOL_VERSION of the server */
    uint16_t tick_rate;     /* ticks per second, 20..128 */
    uint16_t max_clients;   /* player slots, 1..ZL_MAX_CLIENTS */
    uint16_t state_size;    /* bytes of the game's player state */
    uint16_t max_entities;  /* the game's server entities */
    uint16_t lagcomp_ticks; /* the server's ZL_LAGCOMP_TICKS */
    uint16_t events;        /* the server's ZL_SERVER_EVENTS */
    uint8_t origin_axes;    /* the game's, as lag compensation used it */
    int8_t origin_field;
    zl_fx teleport_distance; /* the server's lag compensation setting */
    uint32_t start_tick;    /* the last tick run before the record begins */
    uint8_t config_len;     /* the game's own configuration (seeds, map),
                               opaque, 0..ZL_RECORD_CONFIG_MAX bytes */
    const uint8_t *config;  /* writer: the caller's; reader: into the record */
} zl_record_header;

/* Where the writer's bytes go, in order: ZL_OK, or a negative code that
 * stops the record (the writer keeps it in zl_record.error). */
typedef int (*zl_record_sink)(void *ctx, const void *bytes, size_t len);

/* A record being written. Caller-owned (about 2 KiB with the defaults);
 * every field private except bytes and error. */
typedef struct zl_record {
    zl_record_sink sink;
    void *ctx;
    int error;               /* sticky: a sink's code, or ZL_ERR_OVERFLOW */
    uint32_t bytes;          /* bytes handed to the sink so far */
    uint32_t tick;           /* the last tick ended */
    uint32_t empty;          /* ticks ended without a command, not yet written */
    uint16_t max_clients;
    uint8_t slot_bits;
    uint8_t ended;
    zl_bitwriter w;
    uint8_t buf[ZL_RECORD_BUFFER];
    uint8_t have_prev[(ZL_MAX_CLIENTS + 7) / 8];
    zl_usercmd prev[ZL_MAX_CLIENTS]; /* each slot's last command written */
} zl_record;

/* Starts a record: writes the header through sink (h is copied; its
 * config is read now). ZL_OK, the sink's code, or ZL_ERR_INVALID for a
 * header out of range (nothing written). */
int zl_record_begin(zl_record *r, const zl_record_header *h, zl_record_sink sink, void *ctx);

/* A command the server ran on player `slot` in the tick after the last one
 * ended, in the order it ran them; when: the time its shots were traced at
 * (NULL: it traced none). cmd must pass zl_usercmd_validate and its
 * sequence follow the slot's last one (API misuse otherwise). */
void zl_record_command(zl_record *r, int slot, const zl_usercmd *cmd, const zl_lagcomp_time *when);

/* Ends the tick zl_record.tick + 1 (after its commands and the game's
 * entity step). */
void zl_record_tick(zl_record *r);

/* Between ticks: a client took `slot` (its state zeroed and given to
 * player_join), or left it (player_leave). */
void zl_record_join(zl_record *r, int slot);
void zl_record_leave(zl_record *r, int slot);

/* Between ticks: the application reloaded its game as match `match_id`
 * and every slot in the game joined it again (zl_server_change_match). */
void zl_record_match(zl_record *r, uint32_t match_id);

/* Ends the record with the match hash (zl_record_hash) after the last tick
 * and hands the rest to the sink. Returns the record's size in bytes, or
 * its sticky error. Nothing more may be written. */
int zl_record_end(zl_record *r, uint32_t hash);

/* The match hash: the FNV-1a hash (zl_schema_hash, ZL_SCHEMA_ALL) of every
 * player in the game in slot order (present[i] non-zero; count states of
 * the player schema), then every server entity the game holds
 * (entity_state into scratch, ZL_STATE_MAX bytes), in index order. What
 * a live server and a replay of its record must agree on. */
uint32_t zl_record_hash(const zl_game *game, const void *players, const uint8_t *present,
                        int count, void *scratch);

/* ---- Reading ---- */

/* One entry of a record. */
enum {
    ZL_RECORD_COMMAND = 1, /* slot, cmd, has_when / when */
    ZL_RECORD_TICK,        /* `ticks` ticks ended (>= 1) */
    ZL_RECORD_JOIN,        /* slot */
    ZL_RECORD_LEAVE,       /* slot */
    ZL_RECORD_MATCH,       /* match_id */
    ZL_RECORD_END          /* hash; the record is over */
};
typedef struct zl_record_entry {
    int kind;              /* ZL_RECORD_* */
    int slot;
    uint32_t ticks;
    uint32_t match_id;
    uint32_t hash;
    zl_usercmd cmd;
    int has_when;
    /* tick_a, tick_b and t as the server traced (other fields zero);
     * tick_a <= tick_b <= the last tick ended, t >= 0 and below ONE when
     * the ticks are equal. */
    zl_lagcomp_time when;
} zl_record_entry;

/* A record being read; caller-owned, fields private but header, tick and
 * bytes. */
typedef struct zl_record_reader {
    zl_record_header header;
    zl_bitreader r;
    uint32_t bytes;        /* the record's size */
    uint32_t tick;         /* the last tick ended */
    uint8_t slot_bits;
    uint8_t ended;
    uint8_t in_tick;       /* commands read of a tick not yet ended */
    uint8_t present[(ZL_MAX_CLIENTS + 7) / 8]; /* slots joined, not left */
    uint8_t have_prev[(ZL_MAX_CLIENTS + 7) / 8];
    zl_usercmd prev[ZL_MAX_CLIENTS];
    zl_schema_plan plan;
} zl_record_reader;

/* Reads the header of the len bytes at data (kept by the caller while
 * reading). ZL_OK; ZL_ERR_TRUNCATED (shorter than its header),
 * ZL_ERR_MALFORMED (not a record, or a field out of range),
 * ZL_ERR_UNSUPPORTED (another format version, or more slots than
 * ZL_MAX_CLIENTS). */
int zl_record_reader_init(zl_record_reader *rd, const void *data, size_t len);

/* The next entry into *out: ZL_OK, or ZL_ERR_TRUNCATED (the bytes ended
 * before ZL_RECORD_END), ZL_ERR_MALFORMED (an entry out of range or out of
 * place: a command for a slot not in the game, a join of a taken slot,
 * a join, leave, new match or end after a tick's commands and before its
 * end, bytes after the end, a rewind time outside the history), ZL_ERR_AGAIN
 * after the end was read. An error sticks. */
int zl_record_next(zl_record_reader *rd, zl_record_entry *out);

ZL_END_DECLS

#endif
