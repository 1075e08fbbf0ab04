/* zl_settings.c - client settings: defaults, the server's clamp, and the
 * bit-packed code every handshake message carries them in. */
#include <string.h>

#include "zl_interp.h"
#include "zl_settings.h"

void zl_client_settings_default(zl_client_settings *s)
{
    ZL_ASSERT(s);
    s->updaterate = 64;
    s->cmdrate = 64;
    s->rate = 80000;
    s->interp_us = 100000;
    s->interp_ratio = 2;
}

void zl_server_limits_default(zl_server_limits *l)
{
    ZL_ASSERT(l);
    l->updaterate_min = 10;
    l->updaterate_max = 128;
    l->cmdrate_min = 10;
    l->cmdrate_max = 128;
    l->rate_min = 5000;
    l->rate_max = 786432;
    l->interp_us_min = 0;
    l->interp_us_max = 500000;
    l->interp_ratio_min = 1;
    l->interp_ratio_max = 5;
}

static int in_range(uint32_t v, uint32_t lo, uint32_t hi) { return v >= lo && v <= hi; }

int zl_client_settings_valid(const zl_client_settings *s)
{
    return in_range(s->updaterate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX) &&
           in_range(s->cmdrate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX) &&
           in_range(s->rate, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX) &&
           s->interp_us <= ZL_SETTINGS_INTERP_US_MAX &&
           in_range(s->interp_ratio, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
}

/* Limits are sound when the lowest and highest settings they allow are both
 * sendable, which makes every clamped result sendable too. */
static int limits_valid(const zl_server_limits *l)
{
    zl_client_settings lo, hi;
    lo.updaterate = l->updaterate_min;
    lo.cmdrate = l->cmdrate_min;
    lo.rate = l->rate_min;
    lo.interp_us = l->interp_us_min;
    lo.interp_ratio = l->interp_ratio_min;
    hi.updaterate = l->updaterate_max;
    hi.cmdrate = l->cmdrate_max;
    hi.rate = l->rate_max;
    hi.interp_us = l->interp_us_max;
    hi.interp_ratio = l->interp_ratio_max;
    return zl_client_settings_valid(&lo) && zl_client_settings_valid(&hi) && lo.updaterate <= hi.updaterate &&
           lo.cmdrate <= hi.cmdrate && lo.rate <= hi.rate && lo.interp_us <= hi.interp_us &&
           lo.interp_ratio <= hi.interp_ratio;
}

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void zl_client_settings_clamp(zl_client_settings *s, const zl_server_limits *l)
{
    ZL_ASSERT(s && l && limits_valid(l));
    s->updaterate = (uint16_t)clamp(s->updaterate, l->updaterate_min, l->updaterate_max);
    s->cmdrate = (uint16_t)clamp(s->cmdrate, l->cmdrate_min, l->cmdrate_max);
    s->rate = clamp(s->rate, l->rate_min, l->rate_max);
    s->interp_us = clamp(s->interp_us, l->interp_us_min, l->interp_us_max);
    s->interp_ratio = (uint16_t)clamp(s->interp_ratio, l->interp_ratio_min, l->interp_ratio_max);
}

int zl_client_settings_write(zl_bitwriter *w, const zl_client_settings *s)
{
    uint32_t before;
    ZL_ASSERT(w && s);
    if (!zl_client_settings_valid(s))
        return ZL_ERR_INVALID;
    before = zl_bitwriter_bits_used(w);
    /* Every bound fits in int32, so the ranged codes are exact. */
    zl_bitwriter_ranged(w, (int32_t)s->updaterate, ZL_SETTINGS_RATE_HZ_MIN,
                        ZL_SETTINGS_RATE_HZ_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->cmdrate, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->rate, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->interp_us, 0, ZL_SETTINGS_INTERP_US_MAX);
    zl_bitwriter_ranged(w, (int32_t)s->interp_ratio, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
    if (w->error != ZL_OK)
        return w->error;
    return (int)(zl_bitwriter_bits_used(w) - before);
}

int zl_client_settings_read(zl_bitreader *r, zl_client_settings *out)
{
    ZL_ASSERT(r && out);
    /* Padding too: a server keeps the settings it read in its state, which
     * holds no stack leftovers. */
    memset(out, 0, sizeof *out);
    /* The ranged reads flag out-of-range codes; the casts keep values that
     * were just checked against bounds below each field's width. */
    out->updaterate =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    out->cmdrate =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATE_HZ_MIN, ZL_SETTINGS_RATE_HZ_MAX);
    out->rate = (uint32_t)zl_bitreader_ranged(r, ZL_SETTINGS_BYTES_MIN, ZL_SETTINGS_BYTES_MAX);
    out->interp_us = (uint32_t)zl_bitreader_ranged(r, 0, ZL_SETTINGS_INTERP_US_MAX);
    out->interp_ratio =
        (uint16_t)zl_bitreader_ranged(r, ZL_SETTINGS_RATIO_MIN, ZL_SETTINGS_RATIO_MAX);
    if (r->error != ZL_OK)
        memset(out, 0, sizeof *out);
    return r->error;
}

uint32_t zl_client_settings_interp_us(const zl_client_settings *s)
{
    zl_interp_settings is;
    ZL_ASSERT(s);
    zl_interp_settings_default(&is);
    is.interp_us = s->interp_us;
    is.interp_ratio = s->interp_ratio;
    return zl_interp_delay_us(&is, s->updaterate);
}
