/* fps_gamestate.c - the block a joining client is given: this build's arena
 * and rules, the players' names and the message of the day, and its reader. */
#include <string.h>

#include "fps.h"

static const uint8_t magic[4] = {'F', 'P', 'S', 'G'};

/* A byte writer that stops, and remembers it, at the end of its buffer. */
typedef struct out {
    uint8_t *p;
    size_t at, cap;
    int full;
} out;

static void put(out *o, const void *src, size_t n)
{
    if (o->full || n > o->cap - o->at) {
        o->full = 1;
        return;
    }
    memcpy(o->p + o->at, src, n);
    o->at += n;
}

static void put8(out *o, uint32_t v)
{
    uint8_t b = (uint8_t)v;
    put(o, &b, 1);
}

static void put16(out *o, uint32_t v)
{
    uint8_t b[2];
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    put(o, b, 2);
}

/* A coordinate in whole units (the arena's corners are whole units). */
static void put_units(out *o, zl_fx v)
{
    put16(o, (uint16_t)(int16_t)(v >> 16));
}

int fps_gamestate_write(uint8_t *buf, size_t cap, uint16_t tick_rate, const char *const *names,
                        int slots, const char *motd)
{
    const zl_box *walls;
    int count = fps_world_walls(&walls), i, players = 0;
    uint32_t s, spawns = fps_world_spawn_count();
    size_t motd_len = motd ? strlen(motd) : 0u;
    out o;
    ZL_ASSERT(buf && slots >= 0 && slots <= FPS_MAX_PLAYERS && (names || slots == 0));
    o.p = buf;
    o.at = 0;
    o.cap = cap;
    o.full = 0;
    put(&o, magic, sizeof magic);
    put8(&o, FPS_GAMESTATE_VERSION);
    put16(&o, tick_rate);
    put8(&o, FPS_HEALTH_MAX);
    put16(&o, FPS_RESPAWN_MS);
    put8(&o, FPS_WEAPON_COUNT);
    for (i = 0; i < FPS_WEAPON_COUNT; i++) {
        put8(&o, (uint32_t)fps_weapon_clip_size(i));
        put8(&o, (uint32_t)fps_weapon_damage(i));
    }
    put8(&o, (uint32_t)count);
    for (i = 0; i < count; i++) {
        put_units(&o, walls[i].min.x);
        put_units(&o, walls[i].min.y);
        put_units(&o, walls[i].min.z);
        put_units(&o, walls[i].max.x);
        put_units(&o, walls[i].max.y);
        put_units(&o, walls[i].max.z);
    }
    put8(&o, spawns);
    for (s = 0; s < spawns; s++) {
        zl_vec3 origin;
        zl_angle yaw;
        fps_world_spawn_point(s, &origin, &yaw);
        put_units(&o, origin.x);
        put_units(&o, origin.y);
        put16(&o, yaw);
    }
    for (i = 0; i < slots; i++)
        players += names[i] != NULL;
    put8(&o, (uint32_t)players);
    for (i = 0; i < slots; i++) {
        size_t n;
        if (!names[i])
            continue;
        n = strlen(names[i]);
        if (n > FPS_NAME_MAX)
            n = FPS_NAME_MAX;
        put8(&o, (uint32_t)i);
        put8(&o, (uint32_t)n);
        put(&o, names[i], n);
    }
    if (motd_len > 65535u)
        motd_len = 65535u;
    put16(&o, (uint32_t)motd_len);
    put(&o, motd, motd_len);
    return o.full ? ZL_ERR_OVERFLOW : (int)o.at;
}

/* A byte reader that fails, and remembers it, past the end. */
typedef struct in {
    const uint8_t *p;
    size_t at, len;
    int bad;
} in;

static const uint8_t *take(in *r, size_t n)
{
    const uint8_t *at = r->p + r->at;
    if (r->bad || n > r->len - r->at) {
        r->bad = 1;
        return NULL;
    }
    r->at += n;
    return at;
}

static uint32_t get8(in *r)
{
    const uint8_t *b = take(r, 1);
    return b ? b[0] : 0u;
}

static uint32_t get16(in *r)
{
    const uint8_t *b = take(r, 2);
    return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 : 0u;
}

static zl_fx get_units(in *r)
{
    return ZL_FX_INT((int16_t)(uint16_t)get16(r));
}

int fps_gamestate_read(const uint8_t *data, size_t len, fps_gamestate *gs)
{
    const zl_box *walls;
    int count = fps_world_walls(&walls), i, arena = 1, rules = 1;
    uint32_t k, n, spawns = fps_world_spawn_count();
    const uint8_t *m;
    in r;
    ZL_ASSERT(gs && (data || len == 0));
    memset(gs, 0, sizeof *gs);
    r.p = data;
    r.at = 0;
    r.len = len;
    r.bad = 0;
    m = take(&r, sizeof magic);
    if (!m || memcmp(m, magic, sizeof magic) != 0 || get8(&r) != FPS_GAMESTATE_VERSION)
        return ZL_ERR_MALFORMED;
    gs->tick_rate = (uint16_t)get16(&r);
    rules &= get8(&r) == FPS_HEALTH_MAX;
    rules &= get16(&r) == FPS_RESPAWN_MS;
    n = get8(&r);
    rules &= n == FPS_WEAPON_COUNT;
    for (k = 0; k < n; k++) {
        uint32_t clip = get8(&r), damage = get8(&r);
        rules &= k < FPS_WEAPON_COUNT && clip == (uint32_t)fps_weapon_clip_size((int)k) &&
                 damage == (uint32_t)fps_weapon_damage((int)k);
    }
    n = get8(&r);
    arena &= n == (uint32_t)count;
    for (k = 0; k < n; k++) {
        zl_box b;
        b.min.x = get_units(&r);
        b.min.y = get_units(&r);
        b.min.z = get_units(&r);
        b.max.x = get_units(&r);
        b.max.y = get_units(&r);
        b.max.z = get_units(&r);
        arena &= k < (uint32_t)count && memcmp(&b, &walls[k], sizeof b) == 0;
    }
    n = get8(&r);
    arena &= n == spawns;
    for (k = 0; k < n; k++) {
        zl_vec3 origin;
        zl_angle yaw;
        zl_fx x = get_units(&r), y = get_units(&r);
        uint32_t a = get16(&r);
        fps_world_spawn_point(k, &origin, &yaw);
        arena &= k < spawns && x == origin.x && y == origin.y && a == yaw;
    }
    n = get8(&r);
    if (n > FPS_MAX_PLAYERS)
        return ZL_ERR_MALFORMED;
    gs->players = (uint8_t)n;
    for (i = 0; i < (int)n; i++) {
        uint32_t slot = get8(&r), len_i = get8(&r);
        if (slot >= FPS_MAX_PLAYERS || len_i > FPS_NAME_MAX)
            return ZL_ERR_MALFORMED;
        gs->slot[i] = (uint8_t)slot;
        gs->name_len[i] = (uint8_t)len_i;
        gs->name[i] = (const char *)take(&r, len_i);
    }
    gs->motd_len = (uint16_t)get16(&r);
    gs->motd = (const char *)take(&r, gs->motd_len);
    if (r.bad || r.at != len)
        return ZL_ERR_MALFORMED;
    gs->arena_ok = (uint8_t)arena;
    gs->rules_ok = (uint8_t)rules;
    return ZL_OK;
}
