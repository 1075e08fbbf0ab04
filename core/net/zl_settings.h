/* zl_settings.h - what a client asks of the server (Source's cl_updaterate,
 * cl_cmdrate, rate, cl_interp, cl_interp_ratio), the server's limits on it, and its wire code. */
#ifndef ZL_SETTINGS_H
#define ZL_SETTINGS_H

#include "zl_bits.h"

ZL_BEGIN_DECLS

/* What a client asks for, Source's cl_updaterate, cl_cmdrate, rate, cl_interp
 * and cl_interp_ratio. Sent at connect and in SETTINGS, clamped by the server
 * (zl_client_settings_clamp), echoed clamped in ACCEPT. */
typedef struct zl_client_settings {
    uint16_t updaterate;   /* snapshots per second wanted */
    uint16_t cmdrate;      /* command packets per second sent */
    uint32_t rate;         /* bytes per second the client can take */
    uint32_t interp_us;    /* interpolation delay, microseconds */
    uint16_t interp_ratio; /* delay in snapshot intervals; the client uses the
                              larger of the two (zl_interp_delay_us) */
} zl_client_settings;

/* Wire ranges: a value outside is refused by the writer (ZL_ERR_INVALID) and
 * the reader (ZL_ERR_MALFORMED). Tighter limits are the server's to set. */
#define ZL_SETTINGS_RATE_HZ_MIN 1u /* updaterate and cmdrate */
#define ZL_SETTINGS_RATE_HZ_MAX 1000u
#define ZL_SETTINGS_BYTES_MIN 1000u /* rate */
#define ZL_SETTINGS_BYTES_MAX 10000000u
#define ZL_SETTINGS_INTERP_US_MAX 1000000u
#define ZL_SETTINGS_RATIO_MIN 1u
#define ZL_SETTINGS_RATIO_MAX 10u
/* Bytes the settings take once aligned: 10 + 10 + 24 + 20 + 4 bits. */
#define ZL_SETTINGS_SIZE 9

/* Per-field bounds a server imposes. Each min <= max, inside the wire range. */
typedef struct zl_server_limits {
    uint16_t updaterate_min, updaterate_max;
    uint16_t cmdrate_min, cmdrate_max;
    uint32_t rate_min, rate_max;
    uint32_t interp_us_min, interp_us_max;
    uint16_t interp_ratio_min, interp_ratio_max;
} zl_server_limits;

/* Source-like defaults: 64 snapshots/s and 64 command packets/s; rate 80000
 * bytes/s, enough for a full-size datagram (ZL_MAX_PACKET) every snapshot at
 * 64/s; interp 100000 us (cl_interp 0.1) and ratio 2. */
void zl_client_settings_default(zl_client_settings *s);

/* Defaults a server starts from: updaterate and cmdrate 10..128 (set the
 * maxima to the tick rate), rate 5000..786432 bytes/s, interp 0..500000 us,
 * ratio 1..5 (Source's sv_client_min/max_interp_ratio). */
void zl_server_limits_default(zl_server_limits *l);

/* 1 when every field of *s is inside its wire range, else 0. */
int zl_client_settings_valid(const zl_client_settings *s);

/* Brings every field of *s into [min, max] of *l. Any value is accepted.
 * Limits with a min above its max, or outside the wire range, are a
 * programmer error (ZL_ASSERT). */
void zl_client_settings_clamp(zl_client_settings *s, const zl_server_limits *l);

/* Writes *s bit-packed: 68 bits, unaligned, so it can sit mid-stream.
 * Returns the bits written, the writer's sticky ZL_ERR_OVERFLOW, or
 * ZL_ERR_INVALID (nothing written) when a field is outside its wire range. */
int zl_client_settings_write(zl_bitwriter *w, const zl_client_settings *s);

/* Reads settings written by zl_client_settings_write into *out. Returns
 * ZL_OK, or the reader's sticky error: ZL_ERR_OVERFLOW when the bits run
 * out, ZL_ERR_MALFORMED for a field outside its wire range. *out is zeroed
 * on error. */
int zl_client_settings_read(zl_bitreader *r, zl_client_settings *out);

/* The interpolation delay these settings ask for, Source's
 * max(interp_us, interp_ratio / updaterate) (zl_interp_delay_us): the
 * client's floor, and what the server allows a client to report. Client
 * and server both compute it here, so they agree bit for bit. */
uint32_t zl_client_settings_interp_us(const zl_client_settings *s);

ZL_END_DECLS

#endif
