/* test_usercmd.c - user commands: range validation, delta coding of command
 * streams (sizes, sequence numbering), and hostile input. */
#include <string.h>

#include "zl_test.h"
#include "zl_usercmd.h"

/* How commands are read: zl_usercmd_schema prepared once per run. */
static zl_schema_plan cmd_plan;

static zl_usercmd base_cmd(void)
{
    zl_usercmd c;
    memset(&c, 0, sizeof c);
    c.sequence = 1000;
    c.render_tick = 5000;
    c.msec = 16;
    return c;
}

static void test_validate(void)
{
    zl_usercmd c = base_cmd();
    ZL_CHECK_EQ(zl_schema_validate(&zl_usercmd_schema), ZL_OK);
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
    c.msec = 0;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    c.msec = 1;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
    c.msec = ZL_USERCMD_MSEC_MAX;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
    c.msec = ZL_USERCMD_MSEC_MAX + 1;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    c = base_cmd();
    c.forward = -127;
    c.side = 127;
    c.up = -127;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
    c.forward = -128;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    c.forward = 0;
    c.side = -128;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    c.side = 0;
    c.up = -128;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    c = base_cmd();
    c.render_tick = (uint32_t)INT32_MAX;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
    c.render_tick++;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_ERR_INVALID);
    /* Any angle, button, weapon, seed and fraction is valid. */
    c = base_cmd();
    c.yaw = 65535;
    c.pitch = 32768;
    c.buttons = 0xFFFF;
    c.weapon = 255;
    c.seed = 255;
    c.render_frac = 65535;
    ZL_CHECK_EQ(zl_usercmd_validate(&c), ZL_OK);
}

static int write_read(const zl_usercmd *prev, const zl_usercmd *cmd, zl_usercmd *out)
{
    uint8_t buf[64];
    zl_bitwriter w;
    zl_bitreader r;
    int bits, bytes;
    zl_bitwriter_init(&w, buf, sizeof buf);
    bits = zl_usercmd_write(&w, prev, cmd);
    bytes = zl_bitwriter_finish(&w);
    zl_bitreader_init(&r, buf, (size_t)(bytes > 0 ? bytes : 0));
    ZL_CHECK_EQ(zl_usercmd_read(&r, &cmd_plan, prev, out), ZL_OK);
    return bits;
}

static void test_sizes(void)
{
    zl_usercmd prev = base_cmd(), c, out;
    c = prev;
    c.sequence++;
    ZL_CHECK_EQ(write_read(&prev, &c, &out), 1);
    ZL_CHECK(zl_schema_equal(&zl_usercmd_schema, &out, &c, ZL_SCHEMA_ALL));
    ZL_CHECK_EQ(out.sequence, 1001);
    /* Next render tick only: flag, place 0 of 13 (3 bits: the first three
     * places take 3, the others 4), a 5-bit difference. */
    c.render_tick++;
    ZL_CHECK_EQ(write_read(&prev, &c, &out), 1 + 3 + 5);
    ZL_CHECK_EQ(out.render_tick, 5001);
    /* Turning only: three changed bits before yaw, then the turn in the
     * value code (zl_schema_wire.h "Differences", k = 4 for 16 bits): 2000
     * steps (11 degrees) is u = 4000, class 7 (8 + 11 bits); a turn past
     * class 7 goes whole, 8 ones and 16 bits. */
    c = prev;
    c.sequence++;
    c.yaw = (zl_angle)(prev.yaw + 2000);
    ZL_CHECK_EQ(write_read(&prev, &c, &out), 1 + 4 + 3 + 8 + 11);
    ZL_CHECK_EQ(out.yaw, c.yaw);
    c.yaw = 12345;
    ZL_CHECK_EQ(write_read(&prev, &c, &out), 1 + 4 + 3 + 8 + 16);
    ZL_CHECK_EQ(out.yaw, 12345);
    /* A new msec (the last field) costs a changed bit for every field
     * sent before it, then its difference (8 bits, k = 2: class 2, 3 + 4
     * bits). */
    c = prev;
    c.sequence++;
    c.msec = 8;
    ZL_CHECK_EQ(write_read(&prev, &c, &out), 1 + 4 + 11 + 3 + 4);
    ZL_CHECK_EQ(out.msec, 8);
    /* The first command of a run, against nothing: sequence left to the
     * caller (0), every field exact. */
    c.sequence = 77;
    c.forward = -127;
    c.buttons = 0x8001;
    write_read(NULL, &c, &out);
    ZL_CHECK_EQ(out.sequence, 0);
    out.sequence = 77;
    ZL_CHECK(zl_schema_equal(&zl_usercmd_schema, &out, &c, ZL_SCHEMA_ALL));
}

static void test_stream(void)
{
    zl_test_rng rng;
    zl_usercmd prev = base_cmd(), c, out;
    long bits = 0;
    int i, n = ZL_TEST_ITERATIONS(5000);
    zl_test_rng_seed(&rng, 31);
    for (i = 0; i < n; i++) {
        c = prev;
        c.sequence++;
        /* What a client at 60 Hz sends: aim moves, fresh seed and render
         * time every command, occasional button and movement changes. */
        c.render_tick += (uint32_t)zl_test_rng_range(&rng, 0, 2);
        c.render_frac = (uint16_t)zl_test_rng_u32(&rng);
        c.seed = (uint8_t)zl_test_rng_u32(&rng);
        c.yaw = (zl_angle)(c.yaw + zl_test_rng_range(&rng, -400, 400));
        c.pitch = (zl_angle)(c.pitch + zl_test_rng_range(&rng, -100, 100));
        if (zl_test_rng_range(&rng, 0, 9) == 0)
            c.buttons = (uint16_t)zl_test_rng_range(&rng, 0, 63);
        if (zl_test_rng_range(&rng, 0, 19) == 0) {
            c.forward = (int8_t)zl_test_rng_range(&rng, -127, 127);
            c.side = (int8_t)zl_test_rng_range(&rng, -127, 127);
        }
        if (zl_test_rng_range(&rng, 0, 99) == 0)
            c.weapon = (uint8_t)zl_test_rng_range(&rng, 0, 3);
        bits += write_read(&prev, &c, &out);
        ZL_CHECK(zl_schema_equal(&zl_usercmd_schema, &out, &c, ZL_SCHEMA_ALL));
        if (!zl_schema_equal(&zl_usercmd_schema, &out, &c, ZL_SCHEMA_ALL))
            return;
        /* Reading in place over the previous command works too. */
        out = prev;
        write_read(&out, &c, &out);
        ZL_CHECK(zl_schema_equal(&zl_usercmd_schema, &out, &c, ZL_SCHEMA_ALL));
        prev = c;
    }
    zl_test_note("%ld bits per command on average (%d commands)", bits / n, n);
    ZL_CHECK(bits / n < 80);
}

static void test_write_refuses(void)
{
    uint8_t buf[64];
    zl_bitwriter w;
    zl_usercmd prev = base_cmd(), c = prev;
    zl_bitwriter_init(&w, buf, sizeof buf);
    c.sequence = prev.sequence + 2; /* a gap: the reader would number it wrong */
    ZL_CHECK_EQ(zl_usercmd_write(&w, &prev, &c), ZL_ERR_INVALID);
    c.sequence = prev.sequence; /* a repeat */
    ZL_CHECK_EQ(zl_usercmd_write(&w, &prev, &c), ZL_ERR_INVALID);
    c.sequence = prev.sequence + 1;
    c.msec = 0;
    ZL_CHECK_EQ(zl_usercmd_write(&w, &prev, &c), ZL_ERR_INVALID);
    c.msec = 16;
    c.side = -128;
    ZL_CHECK_EQ(zl_usercmd_write(&w, NULL, &c), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_bitwriter_bits_used(&w), 0);
    /* Sequence numbers wrap like any uint32. */
    prev.sequence = 0xFFFFFFFFu;
    c = prev;
    c.sequence = 0;
    ZL_CHECK_EQ(zl_usercmd_write(&w, &prev, &c), 1);
}

static void test_hostile(void)
{
    zl_test_rng rng;
    zl_usercmd prev = base_cmd(), out;
    uint8_t buf[24];
    int i, ok = 0, bad = 0;
    zl_test_rng_seed(&rng, 32);
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        zl_bitreader r;
        size_t len = (size_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf), k;
        int rc;
        for (k = 0; k < len; k++)
            buf[k] = (uint8_t)zl_test_rng_u32(&rng);
        zl_bitreader_init(&r, buf, len);
        rc = zl_usercmd_read(&r, &cmd_plan, (i & 1) ? &prev : NULL, &out);
        if (rc == ZL_OK) {
            ok++;
            ZL_CHECK_EQ(zl_usercmd_validate(&out), ZL_OK);
        } else {
            bad++;
            ZL_CHECK(rc == ZL_ERR_OVERFLOW || rc == ZL_ERR_MALFORMED);
        }
    }
    ZL_CHECK(ok > 0 && bad > 0);
    zl_test_note("random streams: %d accepted (all valid), %d rejected", ok, bad);
}

/* The first command of a run is read over a copy of what a delta from
 * nothing decodes to: random streams give the same verdict, the same bits
 * taken and the same command as the schema's own read from nothing. */
static void test_first_from_nothing(void)
{
    zl_test_rng rng;
    uint8_t buf[24];
    int i, ok = 0, bad = 0;
    zl_test_rng_seed(&rng, 33);
    for (i = 0; i < ZL_TEST_ITERATIONS(20000); i++) {
        zl_bitreader r1, r2;
        zl_usercmd a, b;
        size_t len = (size_t)zl_test_rng_range(&rng, 0, (int32_t)sizeof buf), k;
        int rc1, rc2;
        for (k = 0; k < len; k++)
            buf[k] = (uint8_t)zl_test_rng_u32(&rng);
        memset(&a, 0, sizeof a);
        memset(&b, 0xA5, sizeof b);
        zl_bitreader_init(&r1, buf, len);
        zl_bitreader_init(&r2, buf, len);
        rc1 = zl_schema_read_delta(&zl_usercmd_schema, &r1, NULL, &a, ZL_SCHEMA_WIRE);
        rc2 = zl_usercmd_read(&r2, &cmd_plan, NULL, &b);
        ZL_CHECK_EQ(rc2, rc1);
        ZL_CHECK_EQ(r2.bit_pos, r1.bit_pos);
        if (rc1 != ZL_OK) {
            bad++;
            continue;
        }
        ok++;
        ZL_CHECK(zl_schema_equal(&zl_usercmd_schema, &a, &b, ZL_SCHEMA_WIRE));
        ZL_CHECK_EQ(b.sequence, 0u);
    }
    ZL_CHECK(ok > 0 && bad > 0);
    zl_test_note("random first commands: %d read alike, %d refused alike", ok, bad);
}

void zl_suite_usercmd(void)
{
    (void)zl_schema_plan_init(&cmd_plan, &zl_usercmd_schema);
    ZL_RUN(test_validate);
    ZL_RUN(test_sizes);
    ZL_RUN(test_stream);
    ZL_RUN(test_write_refuses);
    ZL_RUN(test_hostile);
    ZL_RUN(test_first_from_nothing);
}
