/* test_reliable.c - reliable ordered messages: complete, in order and exactly
 * once through loss, duplicates and reordering; a full queue reported;
 * hostile blocks dropped and counted; chat across a whole match. */
#include <string.h>

#include "zl_match.h"
#include "zl_reliable.h"
#include "zl_test.h"

#define PROTOCOL 0x5A4C0F0Fu
#define IN_FLIGHT 64
#define TICK_US 10000u

/* One end: its link and channel. */
typedef struct end {
    zl_link link;
    zl_reliable ch;
} end;

/* A datagram on the way, due at `at`. */
typedef struct flight {
    uint8_t data[ZL_MAX_PACKET];
    size_t len;
    uint64_t at;
    int to; /* 0: a, 1: b */
} flight;

static end ends[2];
static flight air[IN_FLIGHT];
static zl_test_rng rng;
static uint32_t lost, copied, sent_datagrams;

/* The network: 20% loss, 10% duplicates, 30..90 ms of delay each (so
 * datagrams overtake each other). */
static void put_on_air(int to, const uint8_t *data, size_t len, uint64_t now)
{
    int copies = 1 + (zl_test_rng_range(&rng, 0, 9) == 0), k, i;
    sent_datagrams++;
    copied += (uint32_t)(copies - 1);
    for (k = 0; k < copies; k++) {
        if (zl_test_rng_range(&rng, 0, 4) == 0) {
            lost++;
            continue;
        }
        for (i = 0; i < IN_FLIGHT && air[i].len; i++)
            ;
        if (i == IN_FLIGHT) {
            lost++;
            continue;
        }
        memcpy(air[i].data, data, len);
        air[i].len = len;
        air[i].to = to;
        air[i].at = now + (uint64_t)zl_test_rng_range(&rng, 30000, 90000);
    }
}

/* End `from` sends a packet: its due messages, or just its acks. */
static void send_from(int from, uint64_t now)
{
    uint8_t packet[ZL_MAX_PACKET];
    zl_bitwriter w;
    int n, len;
    end *e = &ends[from];
    zl_bitwriter_init(&w, packet + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
    n = zl_reliable_write(&e->ch, &w, zl_link_next_sequence(&e->link), now, 120000u);
    ZL_CHECK(n >= 0);
    len = zl_link_send(&e->link, n > 0 ? ZL_MSG_RELIABLE : ZL_MSG_KEEPALIVE, packet,
                       (size_t)zl_bitwriter_finish(&w), PROTOCOL, now);
    ZL_CHECK(len > 0);
    put_on_air(1 - from, packet, (size_t)len, now);
}

static void deliver_due(uint64_t now)
{
    int i;
    for (i = 0; i < IN_FLIGHT; i++) {
        zl_packet_header h;
        zl_link_acks acks;
        end *e = &ends[air[i].to];
        int at;
        if (!air[i].len || air[i].at > now)
            continue;
        at = zl_link_receive(&e->link, air[i].data, air[i].len, PROTOCOL, now, &h, &acks);
        if (at >= 0) {
            zl_reliable_acked(&e->ch, &acks);
            if (h.type == ZL_MSG_RELIABLE) {
                zl_bitreader r;
                zl_bitreader_init(&r, air[i].data + at, air[i].len - (size_t)at);
                ZL_CHECK_EQ(zl_reliable_read(&e->ch, &r), ZL_OK);
            }
        }
        air[i].len = 0;
    }
}

static void test_lossy_link_in_order_exactly_once(void)
{
    uint32_t next_send = 0, next_expect = 0, full = 0, bad = 0;
    const uint32_t total = ZL_TEST_ITERATIONS(3000) < 200 ? 200 : ZL_TEST_ITERATIONS(3000);
    uint64_t now = 1000000u;
    int i;
    memset(ends, 0, sizeof ends);
    memset(air, 0, sizeof air);
    lost = copied = sent_datagrams = 0;
    zl_test_rng_seed(&rng, 2222);
    for (i = 0; i < 2; i++) {
        zl_link_init(&ends[i].link, now);
        zl_reliable_init(&ends[i].ch);
    }
    while (next_expect < total && now < 1000000u + 600000000u) {
        uint8_t msg[ZL_RELIABLE_MESSAGE_MAX], got[ZL_RELIABLE_MESSAGE_MAX];
        int n;
        /* a sends message k: k's length and bytes follow from k. */
        while (next_send < total) {
            size_t len = 1u + next_send % ZL_RELIABLE_MESSAGE_MAX;
            memset(msg, (int)(next_send & 0xFFu), len);
            msg[0] = (uint8_t)(next_send >> 8);
            if (zl_reliable_send(&ends[0].ch, msg, len) != ZL_OK) {
                full++;
                break;
            }
            next_send++;
        }
        send_from(0, now);
        send_from(1, now);
        now += TICK_US;
        deliver_due(now);
        while ((n = zl_reliable_receive(&ends[1].ch, got, sizeof got)) > 0) {
            size_t len = 1u + next_expect % ZL_RELIABLE_MESSAGE_MAX;
            bad += (uint32_t)((size_t)n != len || got[0] != (uint8_t)(next_expect >> 8) ||
                              got[len - 1u] != (len > 1u ? (uint8_t)(next_expect & 0xFFu)
                                                         : (uint8_t)(next_expect >> 8)));
            next_expect++;
        }
    }
    zl_test_note("%u messages through 20%% loss, 10%% copies, 30-90 ms delays: %u datagrams, %u "
                 "lost, %u copied; %u resends, %u duplicates dropped, %u sends refused as full",
                 total, sent_datagrams, lost, copied,
                 ends[0].ch.stats.transmissions - total, ends[1].ch.stats.duplicates, full);
    ZL_CHECK_EQ(next_expect, total);
    ZL_CHECK_EQ(bad, 0);
    ZL_CHECK_EQ(ends[1].ch.stats.delivered, total);
    ZL_CHECK(ends[1].ch.stats.duplicates > 0); /* it was tested */
    ZL_CHECK(lost > sent_datagrams / 10u);
    ZL_CHECK(full > 0);
    ZL_CHECK_EQ(ends[0].ch.stats.refused_full, full);
}

static void test_sizes_and_full_queue(void)
{
    static zl_reliable ch;
    uint8_t big[ZL_RELIABLE_MESSAGE_MAX + 1], small[4] = {1, 2, 3, 4};
    int i;
    memset(big, 7, sizeof big);
    zl_reliable_init(&ch);
    ZL_CHECK_EQ(zl_reliable_send(&ch, small, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_reliable_send(&ch, big, sizeof big), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_reliable_send(&ch, big, ZL_RELIABLE_MESSAGE_MAX), ZL_OK);
    for (i = 1; i < ZL_RELIABLE_MESSAGES; i++)
        ZL_CHECK_EQ(zl_reliable_send(&ch, small, sizeof small), ZL_OK);
    ZL_CHECK_EQ(zl_reliable_send(&ch, small, sizeof small), ZL_ERR_FULL);
    ZL_CHECK_EQ(ch.stats.refused_full, 1);
    ZL_CHECK_EQ(zl_reliable_receive(&ch, small, sizeof small), ZL_ERR_AGAIN);
}

/* Hostile blocks: a zero or oversized length, a count of 0 or above 32,
 * bytes cut short, numbers far ahead: refused or dropped and counted,
 * never delivered. */
static void test_hostile_blocks(void)
{
    static zl_reliable ch;
    uint8_t buf[64], out[ZL_RELIABLE_MESSAGE_MAX];
    zl_bitwriter w;
    zl_bitreader r;
    unsigned lb = zl_bits_required(ZL_RELIABLE_MESSAGE_MAX);
    zl_reliable_init(&ch);
    /* count 0 */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 0, 6);
    zl_bitwriter_bits(&w, 0, 16);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_reliable_read(&ch, &r), ZL_ERR_MALFORMED);
    /* length 0 */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 1, 6);
    zl_bitwriter_bits(&w, 0, 16);
    zl_bitwriter_bits(&w, 0, 5);
    zl_bitwriter_bits(&w, 0, lb);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_reliable_read(&ch, &r), ZL_ERR_MALFORMED);
    /* 40 bytes promised, 2 given */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 1, 6);
    zl_bitwriter_bits(&w, 0, 16);
    zl_bitwriter_bits(&w, 0, 5);
    zl_bitwriter_bits(&w, 40, lb);
    zl_bitwriter_bits(&w, 0xABCD, 16);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK(zl_reliable_read(&ch, &r) < 0);
    /* a number far ahead of the window */
    zl_bitwriter_init(&w, buf, sizeof buf);
    zl_bitwriter_bits(&w, 1, 6);
    zl_bitwriter_bits(&w, 5000, 16);
    zl_bitwriter_bits(&w, 0, 5);
    zl_bitwriter_bits(&w, 1, lb);
    zl_bitwriter_bits(&w, 0x42, 8);
    zl_bitreader_init(&r, buf, (size_t)zl_bitwriter_finish(&w));
    ZL_CHECK_EQ(zl_reliable_read(&ch, &r), ZL_OK);
    ZL_CHECK_EQ(ch.stats.malformed, 3);
    ZL_CHECK_EQ(ch.stats.out_of_window, 1);
    ZL_CHECK_EQ(zl_reliable_receive(&ch, out, sizeof out), ZL_ERR_AGAIN);
    ZL_CHECK_EQ(ch.stats.delivered, 0);
}

/* Takes every line that arrived, checking each end's order. */
static void drain(int *next_up, int *next_down, uint32_t *got_up, uint32_t *got_down,
                  int *out_of_order)
{
    uint8_t line[2];
    int i;
    for (i = 0; i < ZL_MATCH_BOTS; i++) {
        int slot = zl_client_slot(&zl_match_world.client[i]);
        while (zl_server_receive_message(&zl_match_world.server, slot, line, 2) == 2) {
            *out_of_order += line[0] != i || line[1] != (uint8_t)next_up[i];
            next_up[i]++;
            (*got_up)++;
        }
        while (zl_client_receive_message(&zl_match_world.client[i], line, 2) == 2) {
            *out_of_order += line[0] != 0xFF || line[1] != (uint8_t)next_down[i];
            next_down[i]++;
            (*got_down)++;
        }
    }
}

/* Chat both ways across an encrypted match at 200 ms and 10% loss: every
 * line arrives once and in order. A line is two bytes: who, and its number. */
static void test_chat_in_a_match(void)
{
    zl_match_setup s;
    uint8_t line[2];
    int next_up[ZL_MATCH_BOTS], next_down[ZL_MATCH_BOTS], up_sent[ZL_MATCH_BOTS],
        down_sent[ZL_MATCH_BOTS], i, k, out_of_order = 0;
    uint32_t sent_up = 0, sent_down = 0, got_up = 0, got_down = 0;
    memset(&s, 0, sizeof s);
    s.rtt_us = 200000u;
    s.jitter_us = 20000u;
    s.loss_ppm = 100000u;
    s.lag_compensation = 1;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    for (i = 0; i < ZL_MATCH_BOTS; i++)
        next_up[i] = next_down[i] = up_sent[i] = down_sent[i] = 0;
    for (k = 0; k < 100; k++) {
        /* Each end numbers its own lines; a full queue just waits. */
        for (i = 0; i < ZL_MATCH_BOTS; i++) {
            int slot = zl_client_slot(&zl_match_world.client[i]);
            line[0] = (uint8_t)i;
            line[1] = (uint8_t)up_sent[i];
            if (zl_client_send_message(&zl_match_world.client[i], line, 2) == ZL_OK) {
                up_sent[i]++;
                sent_up++;
            }
            line[0] = 0xFF;
            line[1] = (uint8_t)down_sent[i];
            if (zl_server_send_message(&zl_match_world.server, slot, line, 2) == ZL_OK) {
                down_sent[i]++;
                sent_down++;
            }
        }
        zl_match_run(100000u);
        drain(next_up, next_down, &got_up, &got_down, &out_of_order);
    }
    zl_match_run(3000000u); /* what is still in flight lands */
    drain(next_up, next_down, &got_up, &got_down, &out_of_order);
    zl_test_note("chat at 200 ms, 10%% loss: %u lines up, %u received; %u down, %u received",
                 sent_up, got_up, sent_down, got_down);
    ZL_CHECK_EQ(out_of_order, 0);
    ZL_CHECK(sent_up > 200u && sent_down > 200u);
    ZL_CHECK_EQ(got_up, sent_up);
    ZL_CHECK_EQ(got_down, sent_down);
    /* A broadcast reaches everyone. */
    ZL_CHECK_EQ(zl_server_broadcast_message(&zl_match_world.server, "gg", 2), ZL_MATCH_BOTS);
    zl_match_run(2000000u);
    for (i = 0; i < ZL_MATCH_BOTS; i++)
        ZL_CHECK(zl_client_receive_message(&zl_match_world.client[i], line, 2) == 2 &&
                 line[0] == 'g' && line[1] == 'g');
}

/* One client chats faster than the server's allowance of RELIABLE
 * packets (16 a second): the packets over it are refused before they are
 * acknowledged, so their messages are sent again and every line arrives,
 * once and in order. */
static void test_chat_over_the_allowance(void)
{
    zl_match_setup s;
    zl_server_client_stats st;
    uint8_t line[2];
    int slot, sent = 0, next = 0, out_of_order = 0, k;
    memset(&s, 0, sizeof s);
    s.rtt_us = 60000u;
    zl_match_start(&s);
    zl_match_run(2000000u);
    ZL_CHECK_EQ(zl_match_connected(), ZL_MATCH_BOTS);
    slot = zl_client_slot(&zl_match_world.client[0]);
    for (k = 0; k < 3000 || next < sent; k++) {
        line[0] = 0;
        line[1] = (uint8_t)sent;
        if (k < 3000 && zl_client_send_message(&zl_match_world.client[0], line, 2) == ZL_OK)
            sent++;
        zl_match_run(1000u);
        while (zl_server_receive_message(&zl_match_world.server, slot, line, 2) == 2) {
            out_of_order += line[1] != (uint8_t)next;
            next++;
        }
        if (k > 20000)
            break;
    }
    zl_server_get_client_stats(&zl_match_world.server, slot, zl_test_time_us, &st);
    zl_test_note("chat over the allowance: %d lines sent, %d received, %u RELIABLE packets "
                 "refused over the allowance (and sent again)",
                 sent, next, st.messages_flooded);
    ZL_CHECK(st.messages_flooded > 0); /* the allowance was met */
    ZL_CHECK(sent > 40);
    ZL_CHECK_EQ(next, sent);
    ZL_CHECK_EQ(out_of_order, 0);
}

void zl_suite_reliable(void)
{
    ZL_RUN(test_lossy_link_in_order_exactly_once);
    ZL_RUN(test_sizes_and_full_queue);
    ZL_RUN(test_hostile_blocks);
    ZL_RUN(test_chat_in_a_match);
    ZL_RUN(test_chat_over_the_allowance);
}
