/* test_plan.c - prepared schemas against the field-table walk: random schemas
 * and states through every operation side by side, every byte compared. */
#include <string.h>

#include "zl_schema.h"
#include "zl_test.h"

/* Fixed, so the pinned corpus is the same whatever the plan's capacity;
 * past the default capacity, so the fallback is covered. */
#define MAX_FIELDS 28
#define STATE ZL_STATE_MAX

typedef struct rand_schema {
    zl_field fields[MAX_FIELDS];
    zl_schema s;
    uint8_t start[STATE]; /* 1 + index of the field starting at a byte, else 0 */
    uint8_t used[STATE];  /* 1 where a field's bytes lie */
} rand_schema;

/* Anywhere free, or (`packed`) after the bytes taken so far, as a struct
 * lays its members out. */
static int place(zl_test_rng *rng, rand_schema *rs, unsigned size, int packed, uint16_t *offset)
{
    int tries;
    for (tries = 0; tries < 64; tries++) {
        unsigned at = (unsigned)zl_test_rng_range(rng, 0, (int32_t)(STATE - size));
        if (packed) {
            for (at = STATE; at > 0 && !rs->used[at - 1]; at--)
                ;
            at = (at + size - 1u) / size * size;
            if (at + size > STATE)
                return 0;
        }
        unsigned k, free_bytes = 0;
        for (k = 0; k < size; k++)
            free_bytes += rs->used[at + k] == 0;
        if (free_bytes == size) {
            memset(rs->used + at, 1, size);
            *offset = (uint16_t)at;
            return 1;
        }
    }
    return 0;
}

static int32_t pick_between(zl_test_rng *rng, int64_t lo, int64_t hi)
{
    /* Mostly small ranges, as games have; sometimes the widest allowed. */
    int64_t a, b;
    if (zl_test_rng_range(rng, 0, 3) == 0)
        return (int32_t)(zl_test_rng_range(rng, 0, 1) ? lo : hi);
    a = lo + (int64_t)(zl_test_rng_u32(rng) % (uint64_t)(hi - lo + 1));
    b = a + zl_test_rng_range(rng, -300, 300);
    return (int32_t)(b < lo ? lo : b > hi ? hi : b);
}

/* One valid field of a random kind, width, range and mode; `small`: a
 * one-byte integer or flags, so many fit in a state. */
static void random_field(zl_test_rng *rng, zl_field *f, int small)
{
    static const uint8_t sizes[3] = {1, 2, 4};
    int32_t lo, hi;
    unsigned shift;
    memset(f, 0, sizeof *f);
    f->name = "f";
    f->kind = (uint8_t)(small ? zl_test_rng_range(rng, 2, 3) : zl_test_rng_range(rng, 0, 3));
    switch (f->kind) {
    case ZL_FIELD_KIND_FX:
        f->size = 4;
        f->bits = (uint8_t)zl_test_rng_range(rng, 0, 16);
        /* Half with a coarser grid for other clients; bounds on it. */
        f->coarse = (uint8_t)(zl_test_rng_range(rng, 0, 1) ? zl_test_rng_range(rng, 0, f->bits) : 0);
        shift = 16u - f->bits + f->coarse;
        lo = pick_between(rng, -((int64_t)1 << (31 - shift)), ((int64_t)1 << (31 - shift)) - 2);
        hi = pick_between(rng, (int64_t)lo + 1, ((int64_t)1 << (31 - shift)) - 1);
        f->min = (int32_t)((int64_t)lo * ((int64_t)1 << shift));
        f->max = (int32_t)((int64_t)hi * ((int64_t)1 << shift));
        f->interp = zl_test_rng_range(rng, 0, 1) ? ZL_INTERP_LINEAR : ZL_INTERP_STEP;
        break;
    case ZL_FIELD_KIND_ANGLE:
        f->size = 2;
        f->bits = (uint8_t)zl_test_rng_range(rng, 1, 16);
        f->coarse =
            (uint8_t)(zl_test_rng_range(rng, 0, 1) ? zl_test_rng_range(rng, 0, f->bits - 1) : 0);
        f->interp = zl_test_rng_range(rng, 0, 1) ? ZL_INTERP_ARC : ZL_INTERP_STEP;
        break;
    case ZL_FIELD_KIND_INT:
        f->size = small ? 1 : sizes[zl_test_rng_range(rng, 0, 2)];
        if (zl_test_rng_range(rng, 0, 1)) {
            int64_t top = ((int64_t)1 << (f->size * 8u - 1u)) - 1;
            f->min = pick_between(rng, -top - 1, top);
            f->max = pick_between(rng, f->min, top);
        } else {
            int64_t top = f->size == 4 ? INT32_MAX : ((int64_t)1 << (f->size * 8u)) - 1;
            f->min = pick_between(rng, 0, top);
            f->max = pick_between(rng, f->min, top);
        }
        f->interp = zl_test_rng_range(rng, 0, 1) ? ZL_INTERP_LINEAR : ZL_INTERP_STEP;
        break;
    default:
        f->size = small ? 1 : sizes[zl_test_rng_range(rng, 0, 2)];
        f->bits = (uint8_t)zl_test_rng_range(rng, 1, f->size * 8);
        f->interp = ZL_INTERP_STEP;
        break;
    }
    f->flags = (uint8_t)((zl_test_rng_range(rng, 0, 5) == 0 ? ZL_LOCAL : 0) |
                         (zl_test_rng_range(rng, 0, 3) == 0 ? ZL_DELTA : 0) |
                         (zl_test_rng_range(rng, 0, 3) == 0 ? ZL_OWNER : 0));
}

static void random_schema(zl_test_rng *rng, rand_schema *rs)
{
    int want = zl_test_rng_range(rng, 1, MAX_FIELDS), i;
    int small = zl_test_rng_range(rng, 0, 3) == 0;
    int packed = zl_test_rng_range(rng, 0, 2) != 0;
    uint16_t extent = 1;
    memset(rs, 0, sizeof *rs);
    rs->s.name = "random";
    rs->s.fields = rs->fields;
    for (i = 0; i < want; i++) {
        zl_field *f = &rs->fields[rs->s.count];
        random_field(rng, f, small);
        if (!place(rng, rs, f->size, packed, &f->offset))
            continue;
        rs->start[f->offset] = (uint8_t)(rs->s.count + 1u);
        if (f->offset + f->size > extent)
            extent = (uint16_t)(f->offset + f->size);
        rs->s.count++;
    }
    if (rs->s.count == 0) { /* the first placement cannot fail */
        random_field(rng, &rs->fields[0], small);
        rs->fields[0].offset = 0;
        rs->start[0] = 1;
        memset(rs->used, 1, rs->fields[0].size);
        extent = rs->fields[0].size;
        rs->s.count = 1;
    }
    rs->s.size = (uint16_t)(extent + (uint16_t)zl_test_rng_range(rng, 0, STATE - extent));
}

static void store_native(uint8_t *p, unsigned size, uint32_t v)
{
    uint8_t b = (uint8_t)v;
    uint16_t h = (uint16_t)v;
    if (size == 1)
        memcpy(p, &b, 1);
    else if (size == 2)
        memcpy(p, &h, 2);
    else
        memcpy(p, &v, 4);
}

static uint32_t load_native(const uint8_t *p, unsigned size)
{
    uint8_t b;
    uint16_t h;
    uint32_t v;
    if (size == 1) {
        memcpy(&b, p, 1);
        return b;
    }
    if (size == 2) {
        memcpy(&h, p, 2);
        return h;
    }
    memcpy(&v, p, 4);
    return v;
}

/* Field values of every sort (in range, at the bounds, anything) stored
 * in host order, padding random: the same values on every byte order. */
static void random_state(zl_test_rng *rng, const rand_schema *rs, uint8_t *st)
{
    uint16_t i;
    for (i = 0; i < STATE; i++)
        st[i] = (uint8_t)zl_test_rng_u32(rng);
    for (i = 0; i < rs->s.count; i++) {
        const zl_field *f = &rs->fields[i];
        uint32_t v = zl_test_rng_u32(rng), span = (uint32_t)f->max - (uint32_t)f->min;
        switch (zl_test_rng_range(rng, 0, 3)) {
        case 0: v = (uint32_t)f->min; break;
        case 1: v = (uint32_t)f->max; break;
        case 2: v = (uint32_t)f->min + (span == UINT32_MAX ? v : v % (span + 1u)); break;
        default: break;
        }
        store_native(st + f->offset, f->size, v);
    }
}

/* A state near another: a few fields moved a little, as between ticks. */
static void nearby_state(zl_test_rng *rng, const rand_schema *rs, const uint8_t *from, uint8_t *st)
{
    int n = zl_test_rng_range(rng, 0, 3), i;
    memcpy(st, from, STATE);
    for (i = 0; i < n; i++) {
        const zl_field *f = &rs->fields[zl_test_rng_range(rng, 0, rs->s.count - 1)];
        uint32_t v = load_native(st + f->offset, f->size);
        store_native(st + f->offset, f->size, v + (uint32_t)zl_test_rng_range(rng, -40000, 40000));
    }
}

static uint32_t fold(uint32_t h, uint32_t v)
{
    unsigned k;
    for (k = 0; k < 4; k++) {
        h ^= (v >> (k * 8u)) & 0xFFu;
        h *= 16777619u;
    }
    return h;
}

/* A state folded by field value and padding byte: independent of byte order. */
static uint32_t fold_state(uint32_t h, const rand_schema *rs, const uint8_t *st)
{
    unsigned i;
    for (i = 0; i < STATE; i++) {
        if (rs->start[i])
            h = fold(h, load_native(st + i, rs->fields[rs->start[i] - 1u].size));
        else if (!rs->used[i])
            h = fold(h, st[i]);
    }
    return h;
}

typedef struct side_by_side {
    zl_test_rng rng;
    rand_schema rs;
    zl_schema_plan plan;
    rand_schema moving;       /* rs with fields flagged to extrapolate */
    zl_schema_plan moving_plan;
    uint32_t extrapolated;    /* extrapolations that moved a field */
    uint32_t digest;     /* the walk's results, pinned */
    uint32_t mismatches; /* bytes or results where the plan differs */
    uint32_t planned;    /* schemas that fitted a plan */
} side_by_side;

static void same_bytes(side_by_side *t, const uint8_t *a, const uint8_t *b)
{
    t->mismatches += memcmp(a, b, STATE) != 0;
}

static void same_value(side_by_side *t, int64_t a, int64_t b)
{
    t->mismatches += a != b;
}

static void check_copy_compare_hash(side_by_side *t, const uint8_t *a, const uint8_t *b,
                                    const uint8_t *junk)
{
    const zl_schema *s = &t->rs.s;
    uint8_t o1[STATE], o2[STATE];
    int which;
    for (which = ZL_SCHEMA_ALL; which <= ZL_SCHEMA_SHARED; which++) {
        int d1 = zl_schema_first_diff(s, a, b, which);
        uint32_t h1 = zl_schema_hash(s, a, which, ZL_SCHEMA_HASH_INIT);
        memcpy(o1, junk, STATE);
        memcpy(o2, junk, STATE);
        zl_schema_copy(s, o1, a, which);
        zl_schema_plan_copy(&t->plan, o2, a, which);
        same_bytes(t, o1, o2);
        zl_schema_plan_copy(&t->plan, o2, o2, which); /* in place */
        same_bytes(t, o1, o2);
        same_value(t, d1, zl_schema_plan_first_diff(&t->plan, a, b, which));
        same_value(t, zl_schema_first_diff(s, a, o1, which),
                   zl_schema_plan_first_diff(&t->plan, a, o1, which));
        same_value(t, zl_schema_equal(s, a, b, which), zl_schema_plan_equal(&t->plan, a, b, which));
        same_value(t, h1, zl_schema_plan_hash(&t->plan, a, which, ZL_SCHEMA_HASH_INIT));
        t->digest = fold_state(t->digest, &t->rs, o1);
        t->digest = fold(fold(t->digest, (uint32_t)d1), h1);
    }
    memcpy(o1, a, STATE);
    memcpy(o2, a, STATE);
    zl_schema_quantize(s, o1);
    zl_schema_plan_quantize(&t->plan, o2);
    same_bytes(t, o1, o2);
    t->digest = fold_state(t->digest, &t->rs, o1);
}

static void check_interpolate(side_by_side *t, const uint8_t *a, const uint8_t *b,
                              const uint8_t *junk)
{
    const zl_schema *s = &t->rs.s;
    uint8_t o1[STATE], o2[STATE];
    zl_fx ts[8];
    int i;
    ts[0] = 0;
    ts[1] = ZL_FX_ONE;
    ts[2] = (zl_fx)(zl_test_rng_u32(&t->rng) & 0xFFFFu);
    ts[3] = (zl_fx)(zl_test_rng_u32(&t->rng) & 0xFFFFu);
    ts[4] = ZL_FX_ONE + (zl_fx)(zl_test_rng_u32(&t->rng) & 0x3FFFFu);
    ts[5] = -(zl_fx)(zl_test_rng_u32(&t->rng) & 0xFFFFu);
    ts[6] = ZL_FX_MAX;
    ts[7] = (zl_fx)zl_test_rng_u32(&t->rng);
    for (i = 0; i < 8; i++) {
        memcpy(o1, junk, STATE);
        memcpy(o2, junk, STATE);
        zl_schema_interpolate(s, o1, a, b, ts[i]);
        zl_schema_plan_interpolate(&t->plan, o2, a, b, ts[i]);
        same_bytes(t, o1, o2);
        t->digest = fold_state(t->digest, &t->rs, o1);
        /* out aliasing either end: padding is then that end's */
        memcpy(o1, b, STATE);
        memcpy(o2, b, STATE);
        zl_schema_interpolate(s, o1, a, b, ts[i]);
        zl_schema_plan_interpolate(&t->plan, o2, a, o2, ts[i]);
        same_bytes(t, o1, o2);
        memcpy(o1, a, STATE);
        memcpy(o2, a, STATE);
        zl_schema_interpolate(s, o1, a, b, ts[i]);
        zl_schema_plan_interpolate(&t->plan, o2, o2, b, ts[i]);
        same_bytes(t, o1, o2);
    }
}

/* With ZL_SCHEMA_CHANGED (no leading changed bit; nothing written when
 * nothing changed) the plan writes and reads what the walk does. Draws no
 * random numbers and folds nothing: the pinned digest stays the walk's. */
static void check_known_changed(side_by_side *t, const uint8_t *base, const uint8_t *state)
{
    int which;
    for (which = ZL_SCHEMA_WIRE; which <= ZL_SCHEMA_SHARED; which++) {
        uint8_t buf1[160], buf2[160], o1[STATE], o2[STATE];
        zl_bitwriter w1, w2;
        zl_bitreader r1, r2;
        int n1, n2;
        memset(buf1, 0, sizeof buf1);
        memset(buf2, 0, sizeof buf2);
        zl_bitwriter_init(&w1, buf1, sizeof buf1);
        zl_bitwriter_init(&w2, buf2, sizeof buf2);
        n1 = zl_schema_write_delta(&t->rs.s, &w1, base, state, which | ZL_SCHEMA_CHANGED);
        n2 = zl_schema_plan_write_delta(&t->plan, &w2, base, state, which | ZL_SCHEMA_CHANGED);
        same_value(t, n1, n2);
        t->mismatches += memcmp(buf1, buf2, sizeof buf1) != 0;
        if (n1 <= 0)
            continue;
        memcpy(o1, base, STATE);
        memcpy(o2, base, STATE);
        zl_bitreader_init(&r1, buf1, sizeof buf1);
        zl_bitreader_init(&r2, buf1, sizeof buf1);
        same_value(t, zl_schema_read_delta(&t->rs.s, &r1, base, o1, which | ZL_SCHEMA_CHANGED),
                   zl_schema_plan_read_delta(&t->plan, &r2, base, o2, which | ZL_SCHEMA_CHANGED));
        same_value(t, r1.bit_pos, (uint32_t)n1);
        same_value(t, r2.bit_pos, (uint32_t)n1);
        same_bytes(t, o1, o2);
    }
}

static void check_delta(side_by_side *t, const uint8_t *base, const uint8_t *state,
                        const uint8_t *junk)
{
    const zl_schema *s = &t->rs.s;
    uint8_t buf1[160], buf2[160], o1[STATE], o2[STATE];
    int which, use_base;
    for (which = ZL_SCHEMA_WIRE; which <= ZL_SCHEMA_SHARED; which++) {
        for (use_base = 0; use_base < 2; use_base++) {
            const uint8_t *b = use_base ? base : NULL;
            zl_bitwriter w1, w2;
            zl_bitreader r1, r2;
            size_t cap = (size_t)zl_test_rng_range(&t->rng, 1, (int32_t)sizeof buf1);
            int n1, n2, rc1, rc2, len;
            memset(buf1, 0, sizeof buf1);
            memset(buf2, 0, sizeof buf2);
            zl_bitwriter_init(&w1, buf1, cap);
            zl_bitwriter_init(&w2, buf2, cap);
            n1 = zl_schema_write_delta(s, &w1, b, state, which);
            n2 = zl_schema_plan_write_delta(&t->plan, &w2, b, state, which);
            same_value(t, n1, n2);
            same_value(t, w1.bit_pos, w2.bit_pos);
            t->mismatches += memcmp(buf1, buf2, sizeof buf1) != 0;
            len = zl_bitwriter_finish(&w1);
            t->digest = fold(t->digest, (uint32_t)n1);
            if (len > 0) {
                int k;
                for (k = 0; k < len; k++)
                    t->digest = fold(t->digest, buf1[k]);
            } else {
                len = 0;
            }
            /* Its own stream, then random bytes, read back both ways; out
             * is junk or the base itself (aliasing). */
            for (n1 = 0; n1 < 2; n1++) {
                int alias = b != NULL && zl_test_rng_range(&t->rng, 0, 1);
                if (n1 == 1) {
                    int k;
                    len = zl_test_rng_range(&t->rng, 0, 24);
                    for (k = 0; k < len; k++)
                        buf1[k] = (uint8_t)zl_test_rng_u32(&t->rng);
                }
                memcpy(o1, alias ? b : junk, STATE);
                memcpy(o2, alias ? b : junk, STATE);
                zl_bitreader_init(&r1, buf1, (size_t)len);
                zl_bitreader_init(&r2, buf1, (size_t)len);
                rc1 = zl_schema_read_delta(s, &r1, alias ? o1 : b, o1, which);
                rc2 = zl_schema_plan_read_delta(&t->plan, &r2, alias ? o2 : b, o2, which);
                same_value(t, rc1, rc2);
                same_value(t, r1.bit_pos, r2.bit_pos);
                same_bytes(t, o1, o2);
                t->digest = fold(t->digest, (uint32_t)rc1);
                t->digest = fold(t->digest, r1.bit_pos);
                if (rc1 == ZL_OK)
                    t->digest = fold_state(t->digest, &t->rs, o1);
            }
        }
    }
}

/* The plan's delta against b extrapolated from a, in one step, gives the
 * walk's extrapolation and delta, for `state` b itself and junk. */
static void check_write_extrapolated(side_by_side *t, const uint8_t *a, const uint8_t *b,
                                     const uint8_t *junk, uint32_t ahead, uint32_t behind,
                                     int which)
{
    const zl_schema *s = &t->moving.s;
    const uint8_t *states[2];
    uint8_t buf1[160], buf2[160], scratch[STATE];
    zl_moved moved;
    int k;
    states[0] = b;
    states[1] = junk;
    for (k = 0; k < 2; k++) {
        zl_bitwriter w1, w2;
        const uint8_t *from = b;
        int n1, n2;
        memset(buf1, 0, sizeof buf1);
        memset(buf2, 0, sizeof buf2);
        zl_bitwriter_init(&w1, buf1, sizeof buf1);
        zl_bitwriter_init(&w2, buf2, sizeof buf2);
        if (zl_schema_extrapolate(s, scratch, b, a, ahead, behind, which))
            from = scratch;
        /* A known change is coded with the moved set of b and a. */
        if (which & ZL_SCHEMA_CHANGED)
            zl_schema_moved(s, b, a, which & ~ZL_SCHEMA_CHANGED, &moved);
        n1 = zl_schema_write_moved(s, &w1, from, states[k], which,
                                   which & ZL_SCHEMA_CHANGED ? &moved : NULL);
        n2 = zl_schema_plan_write_extrapolated(&t->moving_plan, &w2, b, a, ahead, behind,
                                               states[k], which);
        same_value(t, n1, n2);
        t->mismatches += memcmp(buf1, buf2, sizeof buf1) != 0;
    }
}

/* The walk and the plan extrapolate alike: rs's fields flagged
 * ZL_EXTRAPOLATE and ZL_TELEPORT by the states' bytes (no draws, so the
 * pinned stream is kept), b extrapolated from a. */
static void check_extrapolate(side_by_side *t, const uint8_t *a, const uint8_t *b,
                              const uint8_t *junk)
{
    zl_schema *s = &t->moving.s;
    uint8_t o1[STATE], o2[STATE];
    uint32_t ahead = 1u + b[0] % 63u, behind = 1u + a[0] % 63u;
    int i, which;
    t->moving = t->rs;
    s->fields = t->moving.fields;
    for (i = 0; i < s->count; i++) {
        zl_field *f = &t->moving.fields[i];
        unsigned pick = (unsigned)i + a[1];
        f->flags = (uint8_t)(f->flags | (pick % 3u == 0 ? ZL_EXTRAPOLATE : 0) |
                             (pick % 7u == 1 ? ZL_TELEPORT : 0));
        if (zl_schema_validate(s) != ZL_OK)
            f->flags = (uint8_t)(f->flags & ~ZL_EXTRAPOLATE);
    }
    ZL_CHECK_EQ(zl_schema_validate(s), ZL_OK);
    (void)zl_schema_plan_init(&t->moving_plan, s);
    for (which = ZL_SCHEMA_WIRE; which <= ZL_SCHEMA_SHARED; which++) {
        int r1, r2;
        memset(o1, 0, sizeof o1);
        memset(o2, 0, sizeof o2);
        r1 = zl_schema_extrapolate(s, o1, b, a, ahead, behind, which);
        r2 = zl_schema_plan_extrapolate(&t->moving_plan, o2, b, a, ahead, behind, which);
        same_value(t, r1, r2);
        if (r1)
            same_bytes(t, o1, o2);
        t->extrapolated += r1 == 1;
        check_write_extrapolated(t, a, b, junk, ahead, behind, which);
    }
}

/* schemas random schemas, states random state pairs each. */
static void run(side_by_side *t, uint64_t seed, int schemas, int states)
{
    int i, j;
    zl_test_rng_seed(&t->rng, seed);
    t->digest = ZL_SCHEMA_HASH_INIT;
    t->mismatches = 0;
    t->planned = 0;
    t->extrapolated = 0;
    for (i = 0; i < schemas; i++) {
        random_schema(&t->rng, &t->rs);
        ZL_CHECK_EQ(zl_schema_validate(&t->rs.s), ZL_OK);
        t->planned += zl_schema_plan_init(&t->plan, &t->rs.s) == ZL_OK;
        for (j = 0; j < states; j++) {
            uint8_t a[STATE], b[STATE], junk[STATE];
            random_state(&t->rng, &t->rs, a);
            if (zl_test_rng_range(&t->rng, 0, 1))
                nearby_state(&t->rng, &t->rs, a, b);
            else
                random_state(&t->rng, &t->rs, b);
            random_state(&t->rng, &t->rs, junk);
            check_copy_compare_hash(t, a, b, junk);
            check_interpolate(t, a, b, junk);
            check_delta(t, a, b, junk);
            check_known_changed(t, a, b);
            check_extrapolate(t, a, b, junk);
        }
    }
}

static side_by_side sbs;

/* The walk's results on a fixed corpus are pinned (the digest was taken
 * before plans existed, and again when changed fields became differences
 * from the base, when fields got coarser grids for other clients,
 * when the difference classes narrowed, and when the last changed place
 * took a truncated binary code), so
 * neither path can drift; the plan matches the walk
 * byte for byte. */
static void test_plan_matches_walk(void)
{
    run(&sbs, 25, 200, 4);
    ZL_CHECK_EQ(sbs.mismatches, 0);
    zl_test_note("digest 0x%08x, %u of 200 schemas planned", (unsigned)sbs.digest,
                 (unsigned)sbs.planned);
    ZL_CHECK_EQ(sbs.digest, 0x06d63546u);
    ZL_CHECK(sbs.planned > 0);
}

/* More schemas, no pin: only the side-by-side comparison. */
static void test_plan_random_schemas(void)
{
    run(&sbs, 99, ZL_TEST_ITERATIONS(3000), 4);
    ZL_CHECK_EQ(sbs.mismatches, 0);
    ZL_CHECK(sbs.extrapolated > 0);
}

void zl_suite_plan(void)
{
    ZL_RUN(test_plan_matches_walk);
    ZL_RUN(test_plan_random_schemas);
}
