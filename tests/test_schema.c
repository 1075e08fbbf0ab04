/* test_schema.c - field tables: validation, copy, compare, hash (against FNV
 * test vectors), quantisation, interpolation and delta coding on hostile input. */
#include <string.h>

#include "zl_schema.h"
#include "zl_test.h"

/* A state using every kind, width, signedness and mode. */
typedef struct tstate {
    zl_vec3 pos;
    zl_angle yaw, pitch;
    uint8_t health;
    int8_t lean;
    int16_t score;
    uint16_t flags;
    uint32_t tick;
    int32_t big;
    uint32_t mask;
    uint16_t local;
    zl_fx speed;
} tstate;

static const zl_field tfields[] = {
    ZL_FIELD_FX(tstate, pos.x, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(tstate, pos.y, -4096, 4095, 5, ZL_INTERP_LINEAR),
    ZL_FIELD_FX(tstate, pos.z, -4096, 4095, 5, ZL_INTERP_LINEAR | ZL_DELTA),
    ZL_FIELD_ANGLE(tstate, yaw, 16, ZL_INTERP_ARC),
    ZL_FIELD_ANGLE(tstate, pitch, 8, ZL_INTERP_ARC),
    ZL_FIELD_INT(tstate, health, 0, 200, ZL_INTERP_STEP),
    ZL_FIELD_INT(tstate, lean, -100, 100, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(tstate, score, -1000, 30000, ZL_INTERP_STEP | ZL_DELTA),
    ZL_FIELD_FLAGS(tstate, flags, 12, ZL_INTERP_STEP),
    ZL_FIELD_INT(tstate, tick, 0, INT32_MAX, ZL_INTERP_LINEAR | ZL_DELTA),
    ZL_FIELD_INT(tstate, big, INT32_MIN, INT32_MAX, ZL_INTERP_STEP | ZL_DELTA),
    ZL_FIELD_FLAGS(tstate, mask, 32, ZL_INTERP_STEP),
    ZL_FIELD_INT(tstate, local, 0, 1000, ZL_INTERP_STEP | ZL_LOCAL),
    ZL_FIELD_FX(tstate, speed, -16, 16, 16, ZL_INTERP_LINEAR),
};
static const zl_schema tschema = ZL_SCHEMA(tstate, tfields);
enum { F_POSX, F_POSY, F_POSZ, F_YAW, F_PITCH, F_HEALTH, F_LEAN, F_SCORE, F_FLAGS,
       F_TICK, F_BIG, F_MASK, F_LOCAL, F_SPEED, F_COUNT };

/* Reference FNV-1a over bytes, the oracle for the hash. */
static uint32_t fnv(const uint8_t *p, size_t n, uint32_t h)
{
    size_t i;
    for (i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

/* Any bit pattern, in range or not: the schema must cope with both. */
static void random_state(zl_test_rng *rng, tstate *s)
{
    memset(s, 0xA5, sizeof *s); /* padding holds junk */
    s->pos.x = (zl_fx)zl_test_rng_u32(rng);
    s->pos.y = zl_test_rng_range(rng, ZL_FX_INT(-100), ZL_FX_INT(100));
    s->pos.z = zl_test_rng_range(rng, ZL_FX_INT(-4096), ZL_FX_INT(4095));
    s->yaw = (zl_angle)zl_test_rng_u32(rng);
    s->pitch = (zl_angle)zl_test_rng_u32(rng);
    s->health = (uint8_t)zl_test_rng_u32(rng);
    s->lean = (int8_t)zl_test_rng_range(rng, -128, 127);
    s->score = (int16_t)zl_test_rng_range(rng, -32768, 32767);
    s->flags = (uint16_t)zl_test_rng_u32(rng);
    s->tick = zl_test_rng_u32(rng);
    s->big = (int32_t)zl_test_rng_range(rng, INT32_MIN, INT32_MAX);
    s->mask = zl_test_rng_u32(rng);
    s->local = (uint16_t)zl_test_rng_u32(rng);
    s->speed = (zl_fx)zl_test_rng_u32(rng);
}

/* A nearby state: a few fields move a little, like one tick of a game. */
static void nudge(zl_test_rng *rng, tstate *s)
{
    switch (zl_test_rng_range(rng, 0, 5)) {
    case 0: s->pos.x += zl_test_rng_range(rng, -5000, 5000); break;
    case 1: s->pos.z += zl_test_rng_range(rng, -5000, 5000); break;
    case 2: s->tick += (uint32_t)zl_test_rng_range(rng, 0, 3); break;
    case 3: s->score = (int16_t)(s->score + zl_test_rng_range(rng, -3, 3)); break;
    case 4: s->big = (int32_t)((uint32_t)s->big + 1u); break;
    default: s->yaw = (zl_angle)(s->yaw + zl_test_rng_range(rng, -300, 300)); break;
    }
}

static void test_validate(void)
{
    zl_field bad[1];
    zl_schema s = {"bad", bad, 1, (uint16_t)sizeof(tstate)};
    ZL_CHECK_EQ(zl_schema_validate(&tschema), ZL_OK);
    ZL_CHECK_EQ(tschema.count, F_COUNT);
    ZL_CHECK_EQ(tschema.fields[F_POSY].offset, offsetof(tstate, pos.y));
    ZL_CHECK_EQ(tschema.fields[F_SCORE].size, 2);
    ZL_CHECK_EQ(tschema.fields[F_SCORE].flags, ZL_DELTA);
    ZL_CHECK_EQ(tschema.fields[F_SCORE].interp, ZL_INTERP_STEP);
    ZL_CHECK(strcmp(tschema.fields[F_POSY].name, "pos.y") == 0);

    /* Each of these breaks exactly one rule. */
    bad[0] = tfields[F_POSX];
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_OK);
    bad[0].min += 1; /* not on the 1/32 grid */
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_POSX];
    bad[0].bits = 17;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_POSX];
    bad[0].interp = ZL_INTERP_ARC;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_POSX];
    bad[0].offset = (uint16_t)(sizeof(tstate) - 2);
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_YAW];
    bad[0].bits = 0;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_YAW];
    bad[0].interp = ZL_INTERP_LINEAR;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_HEALTH];
    bad[0].max = 256; /* does not fit one unsigned byte */
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_LEAN];
    bad[0].min = -129; /* does not fit one signed byte */
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_HEALTH];
    bad[0].size = 3;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_FLAGS];
    bad[0].bits = 17;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_FLAGS];
    bad[0].interp = ZL_INTERP_LINEAR;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_HEALTH];
    bad[0].flags = 0x80;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    /* Extrapolated: FX or ANGLE only, never a ZL_DELTA counter. */
    bad[0] = tfields[F_HEALTH];
    bad[0].flags = ZL_EXTRAPOLATE;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_POSX];
    bad[0].flags = ZL_EXTRAPOLATE | ZL_DELTA;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_POSX];
    bad[0].flags = ZL_EXTRAPOLATE;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_OK);
    /* Coarser grids for other clients: FX down to whole units with bounds
     * on that grid, ANGLE down to 1 bit, nothing else. */
    bad[0] = tfields[F_POSX];
    bad[0].coarse = 5;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_OK);
    bad[0].coarse = 6;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0].coarse = 2;
    bad[0].min += ZL_FX_ONE / 32; /* on the 1/32 grid, not the 1/8 one */
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_YAW];
    bad[0].coarse = 15;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_OK);
    bad[0].coarse = 16;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    bad[0] = tfields[F_HEALTH];
    bad[0].coarse = 1;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
    s.count = 0;
    ZL_CHECK_EQ(zl_schema_validate(&s), ZL_ERR_INVALID);
}

static void test_copy_and_compare(void)
{
    zl_test_rng rng;
    tstate a, b;
    zl_test_rng_seed(&rng, 11);
    random_state(&rng, &a);
    random_state(&rng, &b);
    b.local = (uint16_t)(a.local + 1u);

    zl_schema_copy(&tschema, &b, &a, ZL_SCHEMA_WIRE);
    ZL_CHECK_EQ(zl_schema_first_diff(&tschema, &a, &b, ZL_SCHEMA_WIRE), F_COUNT);
    ZL_CHECK(zl_schema_equal(&tschema, &a, &b, ZL_SCHEMA_WIRE));
    ZL_CHECK_EQ(zl_schema_first_diff(&tschema, &a, &b, ZL_SCHEMA_ALL), F_LOCAL);
    ZL_CHECK(!zl_schema_equal(&tschema, &a, &b, ZL_SCHEMA_ALL));
    ZL_CHECK_EQ(b.local, (uint16_t)(a.local + 1u)); /* local kept */

    zl_schema_copy(&tschema, &b, &a, ZL_SCHEMA_ALL);
    ZL_CHECK(zl_schema_equal(&tschema, &a, &b, ZL_SCHEMA_ALL));
    b.mask ^= 0x80000000u;
    b.speed += 1;
    ZL_CHECK_EQ(zl_schema_first_diff(&tschema, &a, &b, ZL_SCHEMA_ALL), F_MASK);
    b.mask = a.mask;
    ZL_CHECK_EQ(zl_schema_first_diff(&tschema, &a, &b, ZL_SCHEMA_WIRE), F_SPEED);
}

typedef struct bytes6 {
    uint8_t c[6];
} bytes6;
static const zl_field bytes6_fields[] = {
    ZL_FIELD_FLAGS(bytes6, c[0], 8, ZL_INTERP_STEP), ZL_FIELD_FLAGS(bytes6, c[1], 8, ZL_INTERP_STEP),
    ZL_FIELD_FLAGS(bytes6, c[2], 8, ZL_INTERP_STEP), ZL_FIELD_FLAGS(bytes6, c[3], 8, ZL_INTERP_STEP),
    ZL_FIELD_FLAGS(bytes6, c[4], 8, ZL_INTERP_STEP), ZL_FIELD_FLAGS(bytes6, c[5], 8, ZL_INTERP_STEP),
};
static const zl_schema bytes6_schema = ZL_SCHEMA(bytes6, bytes6_fields);

typedef struct word {
    uint32_t w;
    uint16_t h;
} word;
static const zl_field word_fields[] = {
    ZL_FIELD_FLAGS(word, w, 32, ZL_INTERP_STEP),
    ZL_FIELD_INT(word, h, 0, 65535, ZL_INTERP_STEP),
};
static const zl_schema word_schema = ZL_SCHEMA(word, word_fields);

static void test_hash(void)
{
    bytes6 six;
    word wd;
    tstate a, b;
    zl_test_rng rng;
    static const uint8_t abcdef[6] = {'a', 'b', 'c', 'd', 'e', 'f'};

    /* Published FNV-1a 32 test vectors: "a" and "foobar". */
    memcpy(six.c, "foobar", 6);
    ZL_CHECK_EQ(zl_schema_hash(&bytes6_schema, &six, ZL_SCHEMA_ALL, ZL_SCHEMA_HASH_INIT), 0xBF9CF968u);
    ZL_CHECK_EQ(fnv((const uint8_t *)"a", 1, ZL_SCHEMA_HASH_INIT), 0xE40C292Cu);
    ZL_CHECK_EQ(fnv((const uint8_t *)"foobar", 6, ZL_SCHEMA_HASH_INIT), 0xBF9CF968u);

    /* Wider fields hash as little-endian bytes whatever the host order. */
    wd.w = 0x64636261u; /* "abcd" */
    wd.h = 0x6665;      /* "ef" */
    ZL_CHECK_EQ(zl_schema_hash(&word_schema, &wd, ZL_SCHEMA_ALL, ZL_SCHEMA_HASH_INIT),
                fnv(abcdef, 6, ZL_SCHEMA_HASH_INIT));

    /* Padding never matters; every field does; local only with ALL. */
    zl_test_rng_seed(&rng, 12);
    random_state(&rng, &a);
    memset(&b, 0x5A, sizeof b);
    zl_schema_copy(&tschema, &b, &a, ZL_SCHEMA_ALL);
    ZL_CHECK_EQ(zl_schema_hash(&tschema, &a, ZL_SCHEMA_ALL, 1u), zl_schema_hash(&tschema, &b, ZL_SCHEMA_ALL, 1u));
    b.local ^= 1u;
    ZL_CHECK(zl_schema_hash(&tschema, &a, ZL_SCHEMA_ALL, 1u) != zl_schema_hash(&tschema, &b, ZL_SCHEMA_ALL, 1u));
    ZL_CHECK_EQ(zl_schema_hash(&tschema, &a, ZL_SCHEMA_WIRE, 1u), zl_schema_hash(&tschema, &b, ZL_SCHEMA_WIRE, 1u));
    b.local = a.local;
    b.lean = (int8_t)(b.lean ^ 64);
    ZL_CHECK(zl_schema_hash(&tschema, &a, ZL_SCHEMA_WIRE, 1u) != zl_schema_hash(&tschema, &b, ZL_SCHEMA_WIRE, 1u));
}

/* Independent reference for the FX wire rounding: clamp, then the nearest
 * multiple of the step by floor division (halves up). */
static int32_t ref_fx(int32_t v, int32_t min, int32_t max, int64_t step)
{
    int64_t c = v < min ? min : v > max ? max : v;
    int64_t k = (c - min + step / 2) / step;
    return (int32_t)(min + k * step);
}

static void test_quantize(void)
{
    zl_test_rng rng;
    tstate s;
    int i;
    memset(&s, 0, sizeof s);
    /* Hand-worked cases: a 1/32 step is 2048 raw units; halves go up. */
    s.pos.x = 1023;
    s.pos.y = 1024;
    s.pos.z = -1025;
    s.yaw = 1234;
    s.pitch = 65535 - 127; /* nearer a full turn than 65280: wraps to 0 */
    s.health = 250;        /* above 200 */
    s.lean = -128;         /* below -100 */
    s.score = -2000;
    s.flags = 0xFFFF; /* 12 bits kept */
    s.local = 9999;   /* never quantised */
    s.speed = ZL_FX_INT(-20);
    zl_schema_quantize(&tschema, &s);
    ZL_CHECK_EQ(s.pos.x, 0);
    ZL_CHECK_EQ(s.pos.y, 2048);
    ZL_CHECK_EQ(s.pos.z, -2048);
    ZL_CHECK_EQ(s.yaw, 1234);
    ZL_CHECK_EQ(s.pitch, 0);
    ZL_CHECK_EQ(s.health, 200);
    ZL_CHECK_EQ(s.lean, -100);
    ZL_CHECK_EQ(s.score, -1000);
    ZL_CHECK_EQ(s.flags, 0x0FFF);
    ZL_CHECK_EQ(s.local, 9999);
    ZL_CHECK_EQ(s.speed, ZL_FX_INT(-16));
    s.pitch = 128 + 256;
    zl_schema_quantize(&tschema, &s);
    ZL_CHECK_EQ(s.pitch, 512);

    zl_test_rng_seed(&rng, 13);
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        tstate q, q2;
        random_state(&rng, &s);
        q = s;
        zl_schema_quantize(&tschema, &q);
        ZL_CHECK_EQ(q.pos.x, ref_fx(s.pos.x, ZL_FX_INT(-4096), ZL_FX_INT(4095), 2048));
        ZL_CHECK_EQ(q.pos.y, ref_fx(s.pos.y, ZL_FX_INT(-4096), ZL_FX_INT(4095), 2048));
        ZL_CHECK(q.yaw == s.yaw && q.speed == ref_fx(s.speed, ZL_FX_INT(-16), ZL_FX_INT(16), 1));
        ZL_CHECK((q.pitch & 0xFF) == 0 && zl_angle_diff(s.pitch, q.pitch) >= -127 &&
                 zl_angle_diff(s.pitch, q.pitch) <= 128);
        ZL_CHECK(q.tick <= (uint32_t)INT32_MAX && q.big == s.big && q.mask == s.mask);
        q2 = q;
        zl_schema_quantize(&tschema, &q2);
        ZL_CHECK(zl_schema_equal(&tschema, &q, &q2, ZL_SCHEMA_ALL));
        if (!zl_schema_equal(&tschema, &q, &q2, ZL_SCHEMA_ALL))
            break;
    }
}

static void test_interpolate(void)
{
    tstate a, b, out;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.pos.x = ZL_FX_INT(10);
    b.pos.x = ZL_FX_INT(20);
    a.pos.y = ZL_FX_INT(4000);
    b.pos.y = ZL_FX_INT(4090);
    a.yaw = 65000;
    b.yaw = 1000; /* shortest arc crosses zero: 1536 units */
    a.health = 10;
    b.health = 90;
    a.lean = -100;
    b.lean = 100;
    a.tick = 100;
    b.tick = 101;
    a.local = 1;
    b.local = 2;

    zl_schema_interpolate(&tschema, &out, &a, &b, ZL_FX_HALF);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(15));
    ZL_CHECK_EQ(out.yaw, (zl_angle)(65000 + 768));
    ZL_CHECK_EQ(out.health, 10); /* step: still the earlier sample */
    ZL_CHECK_EQ(out.lean, 0);
    ZL_CHECK_EQ(out.tick, 101); /* 100.5 rounds half away from zero */
    ZL_CHECK_EQ(out.local, 1);

    zl_schema_interpolate(&tschema, &out, &a, &b, ZL_FX_ONE - 1);
    ZL_CHECK_EQ(out.health, 10);
    zl_schema_interpolate(&tschema, &out, &a, &b, ZL_FX_ONE);
    ZL_CHECK(zl_schema_equal(&tschema, &out, &b, ZL_SCHEMA_ALL));
    zl_schema_interpolate(&tschema, &out, &a, &b, 0);
    ZL_CHECK(zl_schema_equal(&tschema, &out, &a, ZL_SCHEMA_ALL));

    /* Extrapolation: linear fields continue but stay in range; arcs clamp. */
    zl_schema_interpolate(&tschema, &out, &a, &b, 2 * ZL_FX_ONE);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(30));
    ZL_CHECK_EQ(out.pos.y, ZL_FX_INT(4095));
    ZL_CHECK_EQ(out.lean, 100);
    ZL_CHECK_EQ(out.yaw, 1000);
    ZL_CHECK_EQ(out.health, 90);

    /* out may alias an input. */
    out = a;
    zl_schema_interpolate(&tschema, &out, &out, &b, ZL_FX_HALF);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(15));
}

/* Writes state against base and reads it back; returns the bits used. */
/* Writes state against base and reads it back into out; returns the bits
 * written. The read is made twice: from a buffer of exactly the bytes
 * written, where the last values are read bit by bit, and from one with
 * zero bytes after them, where every value is read a word at a time
 * (zl_schema_wire.h, read_change_word): both must agree. */
static int round_trip(const tstate *base, const tstate *state, tstate *out)
{
    uint8_t buf[128];
    zl_bitwriter w;
    zl_bitreader r;
    tstate slack;
    int bits, bytes;
    memset(buf, 0, sizeof buf);
    zl_bitwriter_init(&w, buf, sizeof buf);
    bits = zl_schema_write_delta(&tschema, &w, base, state, ZL_SCHEMA_WIRE);
    bytes = zl_bitwriter_finish(&w);
    ZL_CHECK(bits > 0 && bytes > 0 && bytes + 8 <= (int)sizeof buf);
    if (base)
        slack = *base;
    zl_bitreader_init(&r, buf, (size_t)bytes + 8u);
    ZL_CHECK_EQ(zl_schema_read_delta(&tschema, &r, base, &slack, ZL_SCHEMA_WIRE), ZL_OK);
    ZL_CHECK_EQ((int)zl_bitreader_bits_left(&r), (bytes + 8) * 8 - bits);
    zl_bitreader_init(&r, buf, (size_t)(bytes > 0 ? bytes : 0));
    ZL_CHECK_EQ(zl_schema_read_delta(&tschema, &r, base, out, ZL_SCHEMA_WIRE), ZL_OK);
    ZL_CHECK(zl_bitreader_bits_left(&r) < 8);
    ZL_CHECK(zl_schema_equal(&tschema, out, &slack, ZL_SCHEMA_WIRE));
    return bits;
}

/* Owner-only fields: sent in WIRE deltas, neither sent nor written in
 * SHARED ones, and ignored by SHARED comparisons. */
typedef struct owned {
    zl_fx x;
    int16_t ammo;
    uint8_t hp;
} owned;
static const zl_field owned_fields[] = {
    ZL_FIELD_FX(owned, x, -64, 63, 4, ZL_INTERP_LINEAR),
    ZL_FIELD_INT(owned, ammo, 0, 999, ZL_INTERP_STEP | ZL_OWNER),
    ZL_FIELD_INT(owned, hp, 0, 100, ZL_INTERP_STEP),
};
static const zl_schema owned_schema = ZL_SCHEMA(owned, owned_fields);

static int owned_round_trip(const owned *base, const owned *state, owned *out, int which)
{
    uint8_t buf[32];
    zl_bitwriter w;
    zl_bitreader r;
    int bits;
    zl_bitwriter_init(&w, buf, sizeof buf);
    bits = zl_schema_write_delta(&owned_schema, &w, base, state, which);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_schema_read_delta(&owned_schema, &r, base, out, which), ZL_OK);
    return bits;
}

static void test_owner_fields(void)
{
    owned base, state, out;
    zl_field bad = owned_fields[1];
    zl_schema bad_schema = owned_schema;
    ZL_CHECK_EQ(zl_schema_validate(&owned_schema), ZL_OK);
    bad.flags = 32; /* no such flag */
    bad_schema.fields = &bad;
    bad_schema.count = 1;
    ZL_CHECK_EQ(zl_schema_validate(&bad_schema), ZL_ERR_INVALID);

    memset(&base, 0, sizeof base);
    base.x = ZL_FX_INT(3);
    base.ammo = 30;
    base.hp = 100;
    state = base;
    state.ammo = 29; /* only the owner's field changed */
    ZL_CHECK(zl_schema_equal(&owned_schema, &base, &state, ZL_SCHEMA_SHARED));
    ZL_CHECK(!zl_schema_equal(&owned_schema, &base, &state, ZL_SCHEMA_WIRE));
    out = base;
    out.ammo = 777; /* a receiver that never got the owner's fields keeps its own */
    ZL_CHECK_EQ(owned_round_trip(&base, &state, &out, ZL_SCHEMA_SHARED), 1);
    ZL_CHECK_EQ(out.ammo, 777);
    ZL_CHECK(owned_round_trip(&base, &state, &out, ZL_SCHEMA_WIRE) > 1);
    ZL_CHECK_EQ(out.ammo, 29);

    state.hp = 50; /* the shared field after it travels alone */
    state.ammo = 5;
    out = base;
    out.ammo = 777;
    ZL_CHECK(owned_round_trip(&base, &state, &out, ZL_SCHEMA_SHARED) > 1);
    ZL_CHECK_EQ(out.hp, 50);
    ZL_CHECK_EQ(out.ammo, 777);
    ZL_CHECK_EQ(out.x, base.x);
}

static void test_delta_round_trip(void)
{
    zl_test_rng rng;
    tstate base, state, out, want;
    int i, bits;
    long total_bits = 0;
    zl_test_rng_seed(&rng, 14);
    random_state(&rng, &base);
    zl_schema_quantize(&tschema, &base);
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        const tstate *b = (i % 7 == 0) ? NULL : &base;
        state = base;
        if (i % 3 == 0)
            random_state(&rng, &state);
        else
            nudge(&rng, &state);
        want = state;
        zl_schema_quantize(&tschema, &want);
        memset(&out, 0x33, sizeof out);
        bits = round_trip(b, &state, &out);
        total_bits += bits;
        ZL_CHECK(zl_schema_equal(&tschema, &out, &want, ZL_SCHEMA_WIRE));
        ZL_CHECK_EQ(out.local, 0x3333); /* local fields are the reader's own */
        if (!zl_schema_equal(&tschema, &out, &want, ZL_SCHEMA_WIRE))
            return;
        base = want;
    }
    zl_test_note("mean delta %ld bits over %d states", total_bits / (i > 0 ? i : 1), i);
}

/* ZL_SCHEMA_CHANGED: a changed state's code is its plain code without the
 * leading 1 bit and reads back the same; an unchanged state writes nothing
 * and returns 0. */
static void test_delta_known_changed(void)
{
    zl_test_rng rng;
    tstate base, state, out, want;
    uint8_t plain[128], known[128];
    int i, changed = 0;
    unsigned k;
    zl_test_rng_seed(&rng, 37);
    random_state(&rng, &base);
    zl_schema_quantize(&tschema, &base);
    for (i = 0; i < ZL_TEST_ITERATIONS(5000); i++) {
        zl_bitwriter wp, wk;
        zl_bitreader r;
        int np, nk;
        state = base;
        if (i % 5 != 0)
            nudge(&rng, &state);
        want = state;
        zl_schema_quantize(&tschema, &want);
        zl_bitwriter_init(&wp, plain, sizeof plain);
        zl_bitwriter_init(&wk, known, sizeof known);
        np = zl_schema_write_delta(&tschema, &wp, &base, &state, ZL_SCHEMA_WIRE);
        nk = zl_schema_write_delta(&tschema, &wk, &base, &state,
                                   ZL_SCHEMA_WIRE | ZL_SCHEMA_CHANGED);
        if (zl_schema_equal(&tschema, &want, &base, ZL_SCHEMA_WIRE)) {
            ZL_CHECK_EQ(np, 1);
            ZL_CHECK_EQ(nk, 0);
            ZL_CHECK_EQ(zl_bitwriter_bits_used(&wk), 0u);
            continue;
        }
        changed++;
        ZL_CHECK_EQ(nk, np - 1);
        ZL_CHECK_EQ(plain[0] & 1u, 1u);
        for (k = 1; k < (unsigned)np; k++) /* bit k of plain is bit k - 1 of known */
            ZL_CHECK_EQ((unsigned)plain[k / 8] >> (k % 8) & 1u,
                        (unsigned)known[(k - 1) / 8] >> ((k - 1) % 8) & 1u);
        (void)zl_bitwriter_finish(&wk);
        zl_bitreader_init(&r, known, sizeof known);
        out = base;
        ZL_CHECK_EQ(zl_schema_read_delta(&tschema, &r, &base, &out,
                                         ZL_SCHEMA_WIRE | ZL_SCHEMA_CHANGED), ZL_OK);
        ZL_CHECK_EQ(r.bit_pos, (uint32_t)nk);
        ZL_CHECK(zl_schema_equal(&tschema, &out, &want, ZL_SCHEMA_WIRE));
        base = want;
    }
    ZL_CHECK(changed > 0 && changed < i);
}

static void test_delta_sizes(void)
{
    tstate base, state, out;
    memset(&base, 0, sizeof base);
    zl_schema_quantize(&tschema, &base);
    state = base;
    state.local = 77; /* local fields never cost anything */
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1);
    ZL_CHECK_EQ(round_trip(NULL, &base, &out), 1);

    /* One plain field: flag, its place among the 13 fields sent (3 bits
     * for places 0..2, 4 for the others), a changed bit for each earlier
     * field, then the value (zl_schema_wire.h "Differences"): u = 2d or
     * -2d - 1, the first value of a state with k = a quarter of the width
     * (yaw's 16: k = 4), class j as j ones and a 0, then j + k bits; from
     * class 8 on 8 ones and the whole code. Flags are always whole (12
     * bits). */
    state.yaw = 5; /* u = 10: class 0 */
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 1 + 4);
    state.yaw = 100; /* u = 200: class 3 (u 112 .. 239) */
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 4 + 7);
    state.yaw = (zl_angle)-2048; /* the short way round: -2048, u = 4095, class 8 */
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 8 + 16);
    ZL_CHECK_EQ(out.yaw, (zl_angle)-2048);
    state.yaw = 2048;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 8 + 16);
    ZL_CHECK_EQ(out.yaw, 2048);
    /* Differences of ranged values stay inside the range: 0 -> 4095 units
     * is a whole code (8 + 18 bits), 4095 -> 4094 a small difference
     * (-32 steps, u = 63: class 2 of k = 4, 3 + 6 bits). */
    state = base;
    state.pos.x = ZL_FX_INT(4095);
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 3 + 8 + 18);
    base.pos.x = ZL_FX_INT(4095);
    state.pos.x = ZL_FX_INT(4094);
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 3 + 3 + 6);
    ZL_CHECK_EQ(out.pos.x, ZL_FX_INT(4094));
    base.pos.x = 0;
    state = base;
    state.flags = 1;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 8 + 12);
    /* Delta fields: a step of one costs 5 bits (zl_bitwriter_delta). */
    state = base;
    state.tick = 1;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 9 + 5);
    ZL_CHECK_EQ(out.tick, 1);
    /* Across the full int32 range the difference wraps: MAX -> MIN is +1. */
    base.big = INT32_MAX;
    state = base;
    state.big = INT32_MIN;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 10 + 5);
    ZL_CHECK_EQ(out.big, INT32_MIN);
    ZL_CHECK_EQ(round_trip(&state, &base, &out), 1 + 4 + 10 + 5);
    ZL_CHECK_EQ(out.big, INT32_MAX);
    base.big = 0;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 10 + 39);
    ZL_CHECK_EQ(out.big, INT32_MIN);
    /* Reading in place over the baseline. */
    state = base;
    state.score = 123;
    out = base;
    round_trip(&out, &state, &out);
    ZL_CHECK_EQ(out.score, 123);
}

/* One changed field's value: every class's first and last word (u from
 * 2^k (2^j - 1) to 2^k (2^(j+1) - 1) - 1, d = u / 2 or -(u + 1) / 2) and
 * the first past class 7, coded against a base at `base_code`, must decode
 * exactly and cost the header and 2j + 1 + k bits, or 8 + width bits where
 * that is no more (zl_schema_wire.h "Differences"). Codes outside the
 * field's range are skipped, angles wrap. Returns the words checked. */
static int check_value_edges(int field, unsigned width, unsigned header, uint32_t base_code)
{
    unsigned k = width / 4u, j, end, checked = 0;
    for (j = 0; j <= 8u; j++) {
        for (end = 0; end < 2u; end++) {
            uint32_t u = (1u << k) * ((1u << j) - 1u) + (end ? (1u << (j + k)) - 1u : 0u);
            int32_t d = (u & 1u) ? -(int32_t)((u + 1u) / 2u) : (int32_t)(u / 2u);
            unsigned bits = j < 8u && 2u * j + 1u + k < width + 8u ? 2u * j + 1u + k : 8u + width;
            int64_t code = (int64_t)base_code + d;
            tstate base, state, out;
            if (u == 0 || (j == 8u && end)) /* u = 0 is no change */
                continue;
            memset(&base, 0, sizeof base);
            zl_schema_quantize(&tschema, &base);
            state = base;
            if (field == F_YAW) {
                if (d < -32768 || d > 32767)
                    continue;
                base.yaw = (zl_angle)base_code;
                state.yaw = (zl_angle)(base_code + (uint32_t)d);
            } else if (field == F_POSX) {
                if (code < 0 || code > 262112)
                    continue;
                state.pos.x = ZL_FX_INT(-4096) + (zl_fx)(code * 2048);
                base.pos.x = ZL_FX_INT(-4096) + (zl_fx)((int64_t)base_code * 2048);
            } else {
                if (code < 0 || code > 200)
                    continue;
                state.health = (uint8_t)code;
                base.health = (uint8_t)base_code;
            }
            ZL_CHECK_EQ(round_trip(&base, &state, &out), (int)(header + bits));
            ZL_CHECK(zl_schema_equal(&tschema, &out, &state, ZL_SCHEMA_WIRE));
            checked++;
        }
    }
    return (int)checked;
}

static void test_value_code_edges(void)
{
    tstate base, state, out;
    /* Headers: the flag, the place (3 bits for 0, 4 for 3 and 5) and a
     * changed bit for each field before. FX x: 18 bits, k = 4, every class
     * in range around the middle; ANGLE yaw: 16 bits, k = 4, wrapping
     * round from 65500; INT health: 8 bits, k = 2, 0..200 around 100. */
    ZL_CHECK_EQ(check_value_edges(F_POSX, 18, 1 + 3, 131072), 16);
    ZL_CHECK_EQ(check_value_edges(F_YAW, 16, 1 + 4 + 3, 65500), 16);
    ZL_CHECK_EQ(check_value_edges(F_HEALTH, 8, 1 + 4 + 5, 100), 10);
    /* Pinned: yaw +7 is u = 14, class 0 (1 + 4 bits); -8 is u = 15, the
     * last of class 0; +8 (u = 16) the first of class 1 (2 + 5 bits). */
    memset(&base, 0, sizeof base);
    zl_schema_quantize(&tschema, &base);
    state = base;
    state.yaw = 7;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 5);
    state.yaw = (zl_angle)-8;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 5);
    state.yaw = 8;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 4 + 3 + 7);
    /* The parameter follows the previous value of the same state: x moves
     * 1000 steps (u = 2000, 11 bits: class 6 of k = 4, 13 + 4 bits), so y's
     * k is (4 + 11) / 2 = 7 and y's step of one (u = 2) costs 1 + 7 bits,
     * where as a state's first value it costs 1 + 4. */
    state = base;
    state.pos.x = 1000 * 2048;
    state.pos.y = 2048;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 3 + 1 + 17 + 8);
    ZL_CHECK_EQ(out.pos.x, state.pos.x);
    ZL_CHECK_EQ(out.pos.y, state.pos.y);
    state.pos.x = 0;
    ZL_CHECK_EQ(round_trip(&base, &state, &out), 1 + 3 + 1 + 5);
    /* Against nothing a value is its whole code: yaw 7 in 16 bits. */
    state = base;
    state.yaw = 7;
    ZL_CHECK_EQ(round_trip(NULL, &state, &out), 1 + 4 + 3 + 16);
    ZL_CHECK_EQ(out.yaw, 7);
}

/* A known change against base with the moved set of base and older:
 * its bits, read back into out through the same moved set. */
static int moved_round_trip(const tstate *base, const tstate *older, const tstate *state,
                            tstate *out)
{
    uint8_t buf[128];
    zl_bitwriter w;
    zl_bitreader r;
    zl_moved moved;
    int bits, bytes, which = ZL_SCHEMA_WIRE | ZL_SCHEMA_CHANGED;
    zl_schema_moved(&tschema, base, older, ZL_SCHEMA_WIRE, &moved);
    zl_bitwriter_init(&w, buf, sizeof buf);
    bits = zl_schema_write_moved(&tschema, &w, base, state, which, &moved);
    bytes = zl_bitwriter_finish(&w);
    ZL_CHECK(bits > 0 && bytes > 0);
    zl_bitreader_init(&r, buf, (size_t)(bytes > 0 ? bytes : 0));
    ZL_CHECK_EQ(zl_schema_read_moved(&tschema, &r, base, out, which, &moved), ZL_OK);
    ZL_CHECK(zl_bitreader_bits_left(&r) < 8);
    return bits;
}

static void test_value_code_step(void)
{
    tstate base, older, state, out;
    zl_moved moved;
    memset(&base, 0, sizeof base);
    zl_schema_quantize(&tschema, &base);
    older = base;
    older.pos.x = -1000 * 2048; /* x stepped +1000 codes into the base: u = 2000 */
    older.yaw = 3;              /* yaw stepped -3: u = 5 */
    zl_schema_moved(&tschema, &base, &older, ZL_SCHEMA_WIRE, &moved);
    ZL_CHECK_EQ(moved.set, 1u << F_POSX | 1u << F_YAW);
    ZL_CHECK_EQ(moved.step[F_POSX], 11);
    ZL_CHECK_EQ(moved.step[F_YAW], 3);
    ZL_CHECK_EQ(moved.step[F_POSY], 0);
    /* A moved field moves next as it just moved: x's k is 11 - 1 = 10, so
     * another 1000 codes (u = 2000) is class 1 in 2 + 11 bits, where as a
     * state's first value (k = 4) it would be class 6 in 13 + 4; yaw's k is
     * 3 - 1 = 2, and -3 (u = 5) class 1 in 2 + 3 bits. The moved bit is 1
     * (exactly the moved fields changed): no place, no changed bits. */
    state = base;
    state.pos.x = 1000 * 2048;
    state.yaw = (zl_angle)-3;
    ZL_CHECK_EQ(moved_round_trip(&base, &older, &state, &out), 1 + 13 + 5);
    ZL_CHECK(zl_schema_equal(&tschema, &out, &state, ZL_SCHEMA_WIRE));
    /* A field that did not move keeps the state's rule: y's step of one
     * (u = 2) after x's u of 11 bits has k = (4 + 11) / 2 = 7: 1 + 7 bits.
     * The moved bit is 0, then y's place (3 bits) and x's changed bit. */
    state.yaw = 0;
    state.pos.y = 2048;
    ZL_CHECK_EQ(moved_round_trip(&base, &older, &state, &out), 1 + 3 + 1 + 13 + 8);
    ZL_CHECK(zl_schema_equal(&tschema, &out, &state, ZL_SCHEMA_WIRE));
}

/* Hand-built streams that break the schema's rules: the field at `place`
 * among those sent changed, with `ones` one bits (a class, followed by a
 * 0 below 8; 8 for a whole code) and then `value_bits` bits of value,
 * against the zero state; with `ones` negative, against nothing (no
 * class: the value is the whole code). */
static int read_crafted(uint32_t place, int ones, int value_bits, uint32_t value)
{
    uint8_t buf[16];
    zl_bitwriter w;
    zl_bitreader r;
    tstate out, zero;
    int bytes;
    uint32_t i;
    memset(&zero, 0, sizeof zero);
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bool(&w, 1);
    zl_test_write_place(&w, place, 13);
    for (i = 0; i < place; i++)
        zl_bitwriter_bool(&w, 0);
    if (ones >= 0)
        zl_bitwriter_bits(&w, ones < 8 ? (1u << ones) - 1u : 0xFFu, ones < 8 ? (unsigned)ones + 1u : 8u);
    zl_bitwriter_bits(&w, value, (unsigned)value_bits);
    bytes = zl_bitwriter_finish(&w);
    zl_bitreader_init(&r, buf, (size_t)bytes);
    return zl_schema_read_delta(&tschema, &r, ones >= 0 ? &zero : NULL, &out, ZL_SCHEMA_WIRE);
}

static void test_delta_hostile(void)
{
    zl_test_rng rng;
    uint8_t buf[64];
    tstate out, base, check;
    int i, n, rc, ok = 0, bad = 0;

    /* Whole codes, against nothing or after 8 ones; the zero state's
     * health code is 0 and its x code 131072 (0 units on a 1/32 grid from
     * -4096). */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, -1, 8, 200), ZL_OK);
    ZL_CHECK_EQ(read_crafted(F_HEALTH, -1, 8, 201), ZL_ERR_MALFORMED);   /* above max */
    ZL_CHECK_EQ(read_crafted(F_POSX, -1, 18, 262112), ZL_OK);            /* 4095 units */
    ZL_CHECK_EQ(read_crafted(F_POSX, -1, 18, 262113), ZL_ERR_MALFORMED); /* past 4095 */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 8, 8, 200), ZL_OK);
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 8, 8, 201), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(read_crafted(F_POSX, 8, 18, 262113), ZL_ERR_MALFORMED);
    /* Differences (health: k = 2; x: k = 4). */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 0, 2, 1), ZL_ERR_MALFORMED); /* u 1: 0 - 1, below min */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 0, 2, 2), ZL_OK);            /* u 2: 0 + 1 */
    /* Class 7's last word, which the writer sends whole, still decodes:
     * u = 16 * 255 - 1, -2040 steps. */
    ZL_CHECK_EQ(read_crafted(F_POSX, 7, 11, 0x7FFu), ZL_OK);
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 7, 9, 0x1FFu), ZL_ERR_MALFORMED); /* far below 0 */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 8, 3, 1), ZL_ERR_OVERFLOW);      /* cut short */
    ZL_CHECK_EQ(read_crafted(F_HEALTH, 5, 0, 0), ZL_ERR_OVERFLOW);      /* class, no value */
    /* The local field is not sent: place 12, speed, is the last one (the
     * place's code reaches no place past the 13). */
    ZL_CHECK_EQ(read_crafted(12, 8, 0, 0), ZL_ERR_OVERFLOW);

    /* Every truncation of a valid delta fails cleanly. */
    memset(&base, 0, sizeof base);
    zl_test_rng_seed(&rng, 15);
    random_state(&rng, &out);
    {
        zl_bitwriter w;
        zl_bitreader r;
        zl_bitwriter_init(&w, buf, sizeof buf);
        zl_schema_write_delta(&tschema, &w, &base, &out, ZL_SCHEMA_WIRE);
        n = zl_bitwriter_finish(&w);
        for (i = 0; i < n; i++) {
            zl_bitreader_init(&r, buf, (size_t)i);
            ZL_CHECK_EQ(zl_schema_read_delta(&tschema, &r, &base, &check, ZL_SCHEMA_WIRE), ZL_ERR_OVERFLOW);
        }
    }

    /* Random bytes: never a crash, and whatever is accepted is in range. */
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        zl_bitreader r;
        size_t len = (size_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf);
        size_t k;
        for (k = 0; k < len; k++)
            buf[k] = (uint8_t)zl_test_rng_u32(&rng);
        zl_bitreader_init(&r, buf, len);
        rc = zl_schema_read_delta(&tschema, &r, &base, &out, ZL_SCHEMA_WIRE);
        if (rc == ZL_OK) {
            ok++;
            check = out;
            zl_schema_quantize(&tschema, &check);
            ZL_CHECK(zl_schema_equal(&tschema, &check, &out, ZL_SCHEMA_WIRE));
        } else {
            bad++;
            ZL_CHECK(rc == ZL_ERR_OVERFLOW || rc == ZL_ERR_MALFORMED);
        }
    }
    ZL_CHECK(ok > 0 && bad > 0);
    zl_test_note("random streams: %d accepted, %d rejected", ok, bad);
}

static void test_writer_overflow(void)
{
    uint8_t buf[2];
    zl_bitwriter w;
    tstate s;
    memset(&s, 0, sizeof s);
    s.mask = 0xFFFFFFFFu;
    zl_bitwriter_init(&w, buf, sizeof buf);
    ZL_CHECK_EQ(zl_schema_write_delta(&tschema, &w, NULL, &s, ZL_SCHEMA_WIRE), ZL_ERR_OVERFLOW);
    ZL_CHECK_EQ(zl_schema_write_delta(&tschema, &w, NULL, &s, ZL_SCHEMA_WIRE), ZL_ERR_OVERFLOW);
}

/* Extrapolation in codes: the line through the older and the base code,
 * rounded to the nearest code (halves away from zero), an angle the short
 * way round and modulo its codes, an FX field clamped to its range; a
 * teleport counter that differs, or nothing moving, leaves the base. */
typedef struct xstate {
    zl_fx x;
    zl_angle yaw;
    uint8_t teleport;
    uint8_t health;
} xstate;

static const zl_field xfields[] = {
    ZL_FIELD_FX_SHARED(xstate, x, -64, 63, 2, 1, ZL_INTERP_LINEAR | ZL_EXTRAPOLATE),
    ZL_FIELD_ANGLE(xstate, yaw, 8, ZL_INTERP_ARC | ZL_EXTRAPOLATE),
    ZL_FIELD_INT(xstate, teleport, 0, 255, ZL_INTERP_STEP | ZL_TELEPORT),
    ZL_FIELD_INT(xstate, health, 0, 100, ZL_INTERP_STEP),
};
static const zl_schema xschema = ZL_SCHEMA(xstate, xfields);

/* The state of x code cx (quarter units from -64) and yaw code cy (of 256). */
static xstate xat(int32_t cx, uint32_t cy)
{
    xstate s;
    memset(&s, 0, sizeof s);
    s.x = ZL_FX_INT(-64) + cx * (ZL_FX_ONE / 4);
    s.yaw = (zl_angle)(cy << 8);
    s.health = 50;
    return s;
}

static void test_extrapolate(void)
{
    xstate base, older, out;
    /* x: codes 100 then 103 over 2 ticks, 3 ahead: 103 + 4.5 -> 108;
     * going down, 103 - 4.5 -> 98 (the half away from zero). */
    static const struct {
        int32_t older, base;
        uint32_t ahead, behind;
        int32_t expect;
    } lines[] = {
        {100, 103, 3, 2, 108}, {106, 103, 3, 2, 98}, {100, 103, 1, 3, 104},
        {100, 103, 2, 3, 105}, {100, 101, 63, 1, 164},
        /* Clamped at the ends of the range (codes 0..508). */
        {500, 505, 7, 1, 508}, {8, 3, 7, 1, 0},
    };
    size_t i;
    ZL_CHECK_EQ(zl_schema_validate(&xschema), ZL_OK);
    for (i = 0; i < ZL_COUNTOF(lines); i++) {
        base = xat(lines[i].base, 0);
        older = xat(lines[i].older, 0);
        memset(&out, 0xA5, sizeof out);
        ZL_CHECK_EQ(zl_schema_extrapolate(&xschema, &out, &base, &older, lines[i].ahead,
                                          lines[i].behind, ZL_SCHEMA_WIRE), 1);
        ZL_CHECK_EQ(out.x, xat(lines[i].expect, 0).x);
        ZL_CHECK_EQ(out.yaw, base.yaw);       /* unmoved fields are the base's */
        ZL_CHECK_EQ(out.health, base.health); /* and so is everything else */
    }
    /* The yaw crosses 0 the short way: 250 then 254, 2 ahead of 1 -> 262 = 6. */
    base = xat(0, 254);
    older = xat(0, 250);
    ZL_CHECK_EQ(zl_schema_extrapolate(&xschema, &out, &base, &older, 2, 1, ZL_SCHEMA_WIRE), 1);
    ZL_CHECK_EQ(out.yaw, (zl_angle)(6u << 8));
    /* Shared precision: half-unit codes (x codes 50 -> 52 on the shared grid). */
    base = xat(104, 0);
    older = xat(100, 0);
    ZL_CHECK_EQ(zl_schema_extrapolate(&xschema, &out, &base, &older, 1, 1, ZL_SCHEMA_SHARED), 1);
    ZL_CHECK_EQ(out.x, xat(108, 0).x);
    /* A teleport between the two, or nothing extrapolated moving: the base. */
    older = xat(100, 0);
    older.teleport = 1;
    memset(&out, 0xA5, sizeof out);
    ZL_CHECK_EQ(zl_schema_extrapolate(&xschema, &out, &base, &older, 1, 1, ZL_SCHEMA_WIRE), 0);
    older = base;
    older.health = 7;
    memset(&out, 0xA5, sizeof out);
    ZL_CHECK_EQ(zl_schema_extrapolate(&xschema, &out, &base, &older, 1, 1, ZL_SCHEMA_WIRE), 0);
    ZL_CHECK_EQ(out.health, 0xA5); /* untouched */
}

void zl_suite_schema(void)
{
    ZL_RUN(test_validate);
    ZL_RUN(test_copy_and_compare);
    ZL_RUN(test_hash);
    ZL_RUN(test_quantize);
    ZL_RUN(test_interpolate);
    ZL_RUN(test_delta_round_trip);
    ZL_RUN(test_delta_known_changed);
    ZL_RUN(test_extrapolate);
    ZL_RUN(test_owner_fields);
    ZL_RUN(test_delta_sizes);
    ZL_RUN(test_value_code_edges);
    ZL_RUN(test_value_code_step);
    ZL_RUN(test_delta_hostile);
    ZL_RUN(test_writer_overflow);
}
