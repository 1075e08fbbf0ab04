/* demo_referee.c - turns the server's own statistics into records, so the
 * report can put the server's view of each client beside the client's. */
#include "demo_referee.h"

void demo_referee_refusals(const zl_server_client_stats *st, uint32_t out[DEMO_CLIENT_DROPS])
{
    const uint32_t *link = st->link.dropped;
    out[0] = st->flooded;
    out[1] = st->forged_acks;
    out[2] = st->bad_messages;
    out[3] = st->commands.invalid;
    out[4] = st->commands.dropped_ahead;
    out[5] = st->messages_flooded;
    out[6] = link[ZL_PACKET_DROP_SHORT];
    out[7] = link[ZL_PACKET_DROP_OVERSIZED];
    out[8] = link[ZL_PACKET_DROP_CHECKSUM]; /* sealed: tags that failed (forged) */
    out[9] = link[ZL_PACKET_DROP_FORMAT];
    out[10] = link[ZL_PACKET_DROP_DUPLICATE]; /* sealed: replays */
    out[11] = link[ZL_PACKET_DROP_STALE];
    out[12] = st->path_limited;
    out[13] = st->moves_refused;
}

void demo_referee_slots(zl_server *s, int max_clients, uint64_t now_us, const demo_sink *sink)
{
    int slot;
    for (slot = 0; slot < max_clients; slot++) {
        zl_server_client_stats st;
        demo_rec_slot r;
        if (zl_server_get_client_stats(s, slot, now_us, &st) != ZL_OK)
            continue;
        r.time_ms = (uint32_t)(now_us / 1000u);
        r.slot = slot;
        r.choked = st.choked;
        r.snapshots = st.snapshots;
        r.snapshot_bytes = st.last_snapshot_bytes;
        r.rtt_us = st.link.rtt_us;
        r.bytes_out = st.link.bytes_out_per_s;
        r.bytes_in = st.link.bytes_in_per_s;
        r.commands_lost = st.commands.lost;
        r.hits = st.hits;
        r.depth_us = st.commands.depth_us;
        r.moves = st.moves;
        r.commands_received = st.commands.received;
        r.commands_run = st.commands.executed;
        r.commands_shed = st.commands.dropped_ahead;
        r.commands_overflow = st.commands.overflow;
        r.commands_caught_up = st.commands.caught_up;
        demo_referee_refusals(&st, r.refused);
        demo_sink_put(sink, DEMO_REC_SLOT, &r);
    }
}

void demo_referee_close(const zl_server *s, const demo_stopwatch *cost, uint32_t tick_rate,
                        int instructions, uint32_t timeouts, const demo_sink *sink)
{
    demo_rec_ticks t;
    demo_rec_drops d;
    t.ticks = cost->count;
    t.median = demo_stopwatch_quantile(cost, 500);
    t.p99 = demo_stopwatch_quantile(cost, 990);
    t.max = cost->max;
    t.tick_rate = tick_rate;
    t.instructions = (uint32_t)instructions;
    demo_sink_put(sink, DEMO_REC_TICKS, &t);
    zl_server_get_drops(s, d.dropped);
    d.timeouts = timeouts;
    demo_sink_put(sink, DEMO_REC_DROPS, &d);
}
