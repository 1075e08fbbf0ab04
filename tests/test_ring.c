/* test_ring.c - FIFO rings and sequence buffers across counter and sequence
 * wraparound, checked against models that count without wrapping. */
#include <string.h>

#include "zl_ring.h"
#include "zl_test.h"

ZL_RING_TYPE(test_ring, uint32_t, 8);
ZL_SEQBUF_TYPE(test_seqbuf, uint32_t, 32);

#define SEQBUF_N 32u

/* ---- FIFO ring ---- */

static void test_ring_zeroed_is_empty(void)
{
    static test_ring r;
    uint32_t i;
    ZL_CHECK(ZL_RING_EMPTY(&r));
    ZL_CHECK_EQ(ZL_RING_COUNT(&r), 0);
    ZL_CHECK_EQ(ZL_RING_CAPACITY(&r), 8);
    for (i = 0; i < 8; i++) {
        ZL_CHECK(!ZL_RING_FULL(&r));
        *ZL_RING_NEXT(&r) = i;
        ZL_RING_COMMIT(&r);
    }
    ZL_CHECK(ZL_RING_FULL(&r));
    ZL_CHECK_EQ(*ZL_RING_AT(&r, 0), 0);
    ZL_CHECK_EQ(*ZL_RING_AT(&r, 7), 7);
    ZL_RING_CLEAR(&r);
    ZL_CHECK(ZL_RING_EMPTY(&r));
    ZL_CHECK_EQ(r.head, 8);
}

/* Random pushes and pops with both counters starting just below UINT32_MAX,
 * against a plain array queue. */
static void test_ring_fifo_across_counter_wrap(void)
{
    test_ring r;
    uint32_t model[8];
    uint32_t model_count = 0, next_value = 1000, i;
    uint32_t start = UINT32_MAX - 20u;
    zl_test_rng rng;
    int step, wrapped = 0, ok = 1, fulls = 0;

    memset(&r, 0, sizeof r);
    r.head = r.tail = start;
    zl_test_rng_seed(&rng, 42);
    for (step = 0; step < ZL_TEST_ITERATIONS(20000); step++) {
        int push = zl_test_rng_u32(&rng) % 2u == 0;
        if (push && !ZL_RING_FULL(&r)) {
            *ZL_RING_NEXT(&r) = next_value;
            ZL_RING_COMMIT(&r);
            model[model_count++] = next_value++;
        } else if (!push && !ZL_RING_EMPTY(&r)) {
            ok &= *ZL_RING_AT(&r, 0) == model[0];
            ZL_RING_POP(&r);
            memmove(model, model + 1, (model_count - 1) * sizeof model[0]);
            model_count--;
        }
        ok &= ZL_RING_COUNT(&r) == model_count;
        ok &= ZL_RING_EMPTY(&r) == (model_count == 0);
        ok &= ZL_RING_FULL(&r) == (model_count == 8);
        for (i = 0; i < model_count; i++)
            ok &= *ZL_RING_AT(&r, i) == model[i];
        if (r.head < start)
            wrapped = 1;
        fulls += ZL_RING_FULL(&r);
        if (!ok)
            break;
    }
    ZL_CHECK(ok);
    ZL_CHECK(wrapped);
    ZL_CHECK(fulls > 0);
}

/* ---- sequence numbers ---- */

static void test_seq_diff_around_wrap(void)
{
    zl_test_rng rng;
    int i;
    ZL_CHECK_EQ(zl_seq_diff(0, 65535), 1);
    ZL_CHECK_EQ(zl_seq_diff(65535, 0), -1);
    ZL_CHECK_EQ(zl_seq_diff(5, 65530), 11);
    ZL_CHECK_EQ(zl_seq_diff(32767, 0), 32767);
    ZL_CHECK_EQ(zl_seq_diff(32768, 0), -32768);
    ZL_CHECK_EQ(zl_seq_diff(7, 7), 0);
    ZL_CHECK(zl_seq_newer(0, 65535));
    ZL_CHECK(!zl_seq_newer(65535, 0));
    ZL_CHECK(!zl_seq_newer(7, 7));
    ZL_CHECK(zl_seq_newer(32767, 0));
    ZL_CHECK(!zl_seq_newer(32768, 0));
    /* Oracle: the representative of a - b mod 65536 in [-32768, 32767]. */
    zl_test_rng_seed(&rng, 3);
    for (i = 0; i < ZL_TEST_ITERATIONS(100000); i++) {
        int32_t a = (int32_t)(zl_test_rng_u32(&rng) & 0xFFFFu);
        int32_t b = (int32_t)(zl_test_rng_u32(&rng) & 0xFFFFu);
        int32_t want = ((a - b) % 65536 + 65536 + 32768) % 65536 - 32768;
        if (!ZL_CHECK_EQ(zl_seq_diff((uint16_t)a, (uint16_t)b), want) ||
            !ZL_CHECK_EQ(zl_seq_newer((uint16_t)a, (uint16_t)b), want > 0))
            break;
    }
}

/* ---- sequence buffer ---- */

static void test_seqbuf_basics_across_wrap(void)
{
    static test_seqbuf b;
    uint32_t s;
    int hits = 0;
    memset(&b, 0, sizeof b);
    ZL_SEQBUF_RESET(&b);
    for (s = 0; s < 65536; s++)
        hits += ZL_SEQBUF_FIND(&b, (uint16_t)s) >= 0;
    ZL_CHECK_EQ(hits, 0);

    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 65530), 65530 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 65530);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 65535), 65535 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 2), 2);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 2);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 65530), 65530 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 65535), 65535 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 2), 2);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 0), -1);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 1), -1);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 3), -1);

    /* A skipped sequence inside the window may still arrive, late. */
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 0), 0);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 0), 0);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 2);
    /* Re-inserting takes the same slot and moves nothing. */
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 65535), 65535 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 2), 2);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 2);

    ZL_SEQBUF_REMOVE(&b, 65535);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 65535), -1);
    ZL_SEQBUF_REMOVE(&b, 31); /* not stored (slot holds nothing): no effect */
    ZL_SEQBUF_REMOVE(&b, (uint16_t)(65530u + 32u)); /* slot of 65530 holds 65530: kept */
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 65530), 65530 % SEQBUF_N);

    /* Reset forgets everything and the next insert starts a new window. */
    ZL_SEQBUF_RESET(&b);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 2), -1);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 40000), 40000 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 40000);
}

static void test_seqbuf_refuses_too_old(void)
{
    static test_seqbuf b;
    ZL_SEQBUF_RESET(&b);
    ZL_CHECK(ZL_SEQBUF_INSERT(&b, 5) >= 0);
    /* Window of 32 ending at 5: 65510 (= 5 - 31) is the oldest accepted. */
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 65509), ZL_ERR_INVALID);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 65509), -1);
    ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, 5), 5);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 65510), 65510 % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 5);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, (uint16_t)(5u + 32768u)), ZL_ERR_INVALID);
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, (uint16_t)(5u + 32769u)), ZL_ERR_INVALID);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 5);
    /* The furthest forward jump accepted is 32767. */
    ZL_CHECK_EQ(ZL_SEQBUF_INSERT(&b, 5u + 32767u), (5 + 32767) % SEQBUF_N);
    ZL_CHECK_EQ(ZL_SEQBUF_NEWEST(&b), 5 + 32767);
}

/* After a jump of more than N nothing older answers, even when the jump is
 * a whole number of laps of the slots. */
static void test_seqbuf_jump_clears_stale(void)
{
    static const uint16_t jumps[] = {SEQBUF_N, SEQBUF_N + 1, 2 * SEQBUF_N, 1000, 32767};
    static test_seqbuf b;
    size_t j;
    for (j = 0; j < ZL_COUNTOF(jumps); j++) {
        uint16_t base = 65520, s;
        int stale = 0;
        ZL_SEQBUF_RESET(&b);
        for (s = 0; s < SEQBUF_N; s++)
            ZL_SEQBUF_INSERT(&b, (uint16_t)(base + s));
        ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, base), base % SEQBUF_N);
        ZL_CHECK(ZL_SEQBUF_INSERT(&b, (uint16_t)(base + SEQBUF_N - 1u + jumps[j])) >= 0);
        for (s = 0; s < SEQBUF_N; s++)
            stale += ZL_SEQBUF_FIND(&b, (uint16_t)(base + s)) >= 0;
        ZL_CHECK_EQ(stale, 0);
        ZL_CHECK_EQ(ZL_SEQBUF_FIND(&b, (uint16_t)(base + SEQBUF_N - 1u + jumps[j])),
                    (uint16_t)(base + SEQBUF_N - 1u + jumps[j]) % SEQBUF_N);
    }
}

/* A long run of inserts with random gaps, late arrivals, too-old arrivals
 * and removals, checked after every step against a model that numbers
 * sequences with 64-bit counters that never wrap. */
#define MODEL_SLOTS 4096u
static void test_seqbuf_long_run_model(void)
{
    static test_seqbuf b;
    static uint64_t model[MODEL_SLOTS]; /* model[a % MODEL_SLOTS] == a: a is stored */
    uint64_t newest = 0;
    zl_test_rng rng;
    int step, ok = 1;
    uint32_t laps, refused = 0, big_jumps = 0;

    ZL_SEQBUF_RESET(&b);
    memset(model, 0xFF, sizeof model);
    zl_test_rng_seed(&rng, 2024);
    newest = 65000; /* starts just before a wrap */
    ZL_SEQBUF_INSERT(&b, (uint16_t)newest);
    model[newest % MODEL_SLOTS] = newest;
    for (step = 0; step < ZL_TEST_ITERATIONS(200000) && ok; step++) {
        uint32_t roll = zl_test_rng_u32(&rng) % 100u;
        uint64_t a, q;
        int got;
        if (roll < 60) { /* the usual: a small step forward */
            a = newest + 1 + zl_test_rng_u32(&rng) % 3u;
        } else if (roll < 65) { /* a burst of loss */
            a = newest + SEQBUF_N - 2 + zl_test_rng_u32(&rng) % 6u;
        } else if (roll < 66) { /* a long silence */
            a = newest + 1 + zl_test_rng_u32(&rng) % 32767u;
            big_jumps++;
        } else if (roll < 85) { /* late but inside the window */
            a = newest - zl_test_rng_u32(&rng) % SEQBUF_N;
        } else if (roll < 93) { /* too late */
            a = newest - SEQBUF_N - zl_test_rng_u32(&rng) % (32768u - SEQBUF_N);
        } else {
            a = newest - zl_test_rng_u32(&rng) % (2 * SEQBUF_N);
            ZL_SEQBUF_REMOVE(&b, (uint16_t)a);
            if (model[a % MODEL_SLOTS] == a)
                model[a % MODEL_SLOTS] = UINT64_MAX;
            a = UINT64_MAX;
        }
        if (a != UINT64_MAX) {
            got = ZL_SEQBUF_INSERT(&b, (uint16_t)a);
            if (a + SEQBUF_N <= newest) {
                ok &= got == ZL_ERR_INVALID;
                refused++;
            } else {
                ok &= got == (int)(a % SEQBUF_N);
                model[a % MODEL_SLOTS] = a;
                if (a > newest)
                    newest = a;
            }
        }
        ok &= ZL_SEQBUF_NEWEST(&b) == (uint16_t)newest;
        /* Every sequence from 2N before the window to N past the newest. */
        for (q = newest - 3 * SEQBUF_N; q <= newest + SEQBUF_N; q++) {
            int want = q + SEQBUF_N > newest && q <= newest && model[q % MODEL_SLOTS] == q;
            int idx = ZL_SEQBUF_FIND(&b, (uint16_t)q);
            ok &= want ? idx == (int)(q % SEQBUF_N) : idx == -1;
        }
    }
    laps = (uint32_t)(newest / 65536u);
    ZL_CHECK(ok);
    if (!ok)
        zl_test_note("mismatch at step %d (newest %lu)", step, (unsigned long)newest);
    ZL_CHECK(laps >= 2);
    ZL_CHECK(refused > 0 && big_jumps > 0);
    zl_test_note("%d steps, %lu wraps of the 16-bit space, %lu refused, %lu long jumps",
                 step, (unsigned long)laps, (unsigned long)refused, (unsigned long)big_jumps);
}

void zl_suite_ring(void)
{
    ZL_RUN(test_ring_zeroed_is_empty);
    ZL_RUN(test_ring_fifo_across_counter_wrap);
    ZL_RUN(test_seq_diff_around_wrap);
    ZL_RUN(test_seqbuf_basics_across_wrap);
    ZL_RUN(test_seqbuf_refuses_too_old);
    ZL_RUN(test_seqbuf_jump_clears_stale);
    ZL_RUN(test_seqbuf_long_run_model);
}
