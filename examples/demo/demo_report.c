/* demo_report.c - turns the match's records into the figures people read:
 * ping, loss, choke, bandwidth, prediction, and shot agreement. */
#include <stddef.h>
#include <string.h>

#include "demo_options.h"
#include "demo_report.h"

static double pct(uint32_t part, uint32_t whole)
{
    return whole ? 100.0 * part / whole : 0.0;
}

static double q16_pct(uint32_t q16)
{
    return q16 * 100.0 / 65536.0;
}

/* v rounded to `decimals` (0 or 1) decimals, right-aligned in width, made
 * from integers: printing then needs no floating point from the C library,
 * whose formatting allocates on a bare-metal newlib. A dozen results can be
 * alive at once (one report line). */
static const char *fixed(double v, int width, int decimals)
{
    static char ring[12][24];
    static unsigned next;
    char *out = ring[next++ % 12u], digits[24];
    long scaled = (long)(v * (decimals ? 10.0 : 1.0) + (v < 0 ? -0.5 : 0.5));
    long whole = scaled < 0 ? -scaled : scaled;
    if (decimals)
        sprintf(digits, "%s%ld.%ld", scaled < 0 ? "-" : "", whole / 10, whole % 10);
    else
        sprintf(digits, "%ld", scaled);
    sprintf(out, "%*s", width, digits);
    return out;
}

static const char *bot_name(uint32_t i)
{
    static char name[16];
    sprintf(name, "bot %lu", (unsigned long)i + 1u);
    return name;
}

/* Bytes a second that sealing adds to the bot's link, both ways (a tag per
 * packet), between its last two net records; 0 before it has two. */
static uint32_t tag_bytes_per_s(const demo_bot_view *b)
{
    const demo_rec_net *n = &b->net, *p = &b->prev_net;
    uint32_t ms = n->time_ms - p->time_ms;
    uint32_t packets = (n->sealed + n->opened) - (p->sealed + p->opened);
    if (p->time_ms == 0 || ms == 0)
        return 0;
    return (uint32_t)((uint64_t)packets * ZL_PACKET_TAG_SIZE * 1000u / ms);
}

/* A count as text; a few results can be alive at once. */
static const char *count(uint32_t v)
{
    static char ring[8][12];
    static unsigned next;
    char *out = ring[next++ % 8u];
    sprintf(out, "%lu", (unsigned long)v);
    return out;
}

/* The net graph's commands column: lost/shed/overflow/caught up, as the
 * server's input buffer counts them for the client. */
static const char *commands_column(const demo_rec_slot *s)
{
    static char text[48];
    sprintf(text, "%s/%s/%s/%s", count(s->commands_lost), count(s->commands_shed),
            count(s->commands_overflow), count(s->commands_caught_up));
    return text;
}

void demo_report_graph(FILE *f, const demo_match *m, uint32_t now_ms, int in_place, int *lines)
{
    uint32_t i, elapsed = now_ms - m->start_ms, connected = 0, bar;
    char progress[41];
    for (i = 0; i < m->setup.bots; i++)
        connected += m->bot[i].slot >= 0 && m->bot[i].running;
    bar = m->setup.duration_s ? elapsed / 25u / m->setup.duration_s : 0;
    for (i = 0; i < 40; i++)
        progress[i] = i < bar ? '#' : '.';
    progress[40] = '\0';
    if (in_place && *lines)
        fprintf(f, "\033[%dA", *lines);
    fprintf(f, "%s[%s] %s s of %lu   %lu/%lu bots in the game   server port %lu\n",
            in_place ? "\r\033[K" : "", progress, fixed(elapsed / 1000.0, 5, 1),
            (unsigned long)m->setup.duration_s, (unsigned long)connected,
            (unsigned long)m->setup.bots, (unsigned long)m->port);
    fprintf(f, "%s%-7s %4s %6s %13s %6s %7s %7s %8s %5s %8s %15s %6s %11s %7s\n",
            in_place ? "\033[K" : "", "client", "slot", "ping", "loss in/out", "choke", "in B/s",
            "out B/s", "tags B/s", "lerp", "mispred", "cmds l/s/o/c", "shots", "hits c/s",
            "refused");
    for (i = 0; i < m->setup.bots; i++) {
        const demo_bot_view *b = &m->bot[i];
        const demo_rec_net *n = &b->net;
        fprintf(f, "%s%-7s ", in_place ? "\033[K" : "", bot_name(i));
        if (b->slot < 0) {
            fprintf(f, "%s\n", b->running ? "connecting..." : "ended before it connected");
            continue;
        }
        fprintf(f, "%4ld %4lums %s%%/%s%% %6lu %7lu %7lu %8lu %3lums %8lu %15s %6lu %5lu/%-5lu "
                   "%3lu/%-3lu%s\n",
                (long)b->slot, (unsigned long)(n->rtt_us / 1000u),
                fixed(q16_pct(n->loss_in_q16), 5, 1), fixed(q16_pct(n->loss_out_q16), 5, 1),
                (unsigned long)b->server.choked, (unsigned long)n->bytes_in,
                (unsigned long)n->bytes_out, (unsigned long)tag_bytes_per_s(b),
                (unsigned long)(n->interp_us / 1000u), (unsigned long)n->mispredicted,
                commands_column(&b->server), (unsigned long)n->shots, (unsigned long)n->hits_seen,
                (unsigned long)b->server.hits, (unsigned long)n->forged,
                (unsigned long)n->replayed, b->running ? "" : "  (ended)");
    }
    *lines = (int)m->setup.bots + 2;
    fflush(f);
}

/* The mean of one uint32 field of a bot's net samples after the first
 * second (the connection settling), or of all when the run was shorter;
 * samples from before its first snapshot are left out. */
static double mean(const demo_bot_view *b, size_t offset)
{
    uint32_t i, first = b->samples > 20u ? 10u : 0u, n = 0;
    double sum = 0;
    for (i = first; i < b->samples; i++) {
        uint32_t v;
        if (!b->sample[i].snapshots)
            continue; /* still connecting: nothing measured yet */
        memcpy(&v, (const uint8_t *)&b->sample[i] + offset, sizeof v);
        sum += v;
        n++;
    }
    return n ? sum / n : 0.0;
}

/* Draws and extrapolated draws of one bot after its first second (the
 * samples mean() skips). */
static void draws_counted(const demo_bot_view *b, uint32_t *draws, uint32_t *extrapolated)
{
    const demo_rec_net *first = b->samples > 20u ? &b->sample[10] : NULL;
    *draws = b->net.draws - (first ? first->draws : 0u);
    *extrapolated = b->net.extrapolated - (first ? first->extrapolated : 0u);
}

/* Agreement as a column: a percentage, or a dash with nothing judged. */
static const char *agreement(const demo_tally *t)
{
    static char text[16];
    if (!t->judged)
        return "      -";
    sprintf(text, "%s%%", fixed(pct(t->agree, t->judged), 6, 1));
    return text;
}

#define MEAN(b, field) mean(b, offsetof(demo_rec_net, field))

typedef struct totals {
    double ping, jitter, loss_in, loss_out, bytes_in, bytes_out, lerp, behind;
    uint32_t bots, choked, snapshots, mispredicted, reconciled, dead, hurt;
    uint32_t draws, extrapolated;
    uint32_t events, event_bytes, kills, message_bytes;
    uint32_t moves, refused[DEMO_CLIENT_DROPS];
    uint32_t cond_lost, cond_burst_lost, cond_bursts, cond_spiked, cond_spikes;
} totals;

static void print_bot(FILE *f, const demo_match *m, uint32_t i, totals *t)
{
    const demo_bot_view *b = &m->bot[i];
    const demo_rec_net *n = &b->net;
    demo_tally tl;
    uint32_t sent = b->server.snapshots + b->server.choked, draws, extrapolated;
    int k;
    if (b->slot < 0) {
        fprintf(f, "%-7s never connected\n", bot_name(i));
        return;
    }
    demo_match_tally(m, b->slot, &tl);
    draws_counted(b, &draws, &extrapolated);
    fprintf(f, "%-7s %4ld %s %s %s%%/%s%% %s%% %s %s %s %s %s%% %5lu/%-5lu %6lu %6lu %6lu %s\n",
            bot_name(i), (long)b->slot, fixed(MEAN(b, rtt_us) / 1000.0, 5, 0),
            fixed(MEAN(b, jitter_us) / 1000.0, 6, 1),
            fixed(q16_pct((uint32_t)MEAN(b, loss_in_q16)), 5, 1),
            fixed(q16_pct((uint32_t)MEAN(b, loss_out_q16)), 5, 1),
            fixed(pct(b->server.choked, sent), 5, 1), fixed(MEAN(b, bytes_in), 7, 0),
            fixed(MEAN(b, bytes_out), 7, 0), fixed(MEAN(b, interp_us) / 1000.0, 5, 0),
            fixed(MEAN(b, behind_us) / 1000.0, 6, 0), fixed(pct(extrapolated, draws), 5, 1),
            (unsigned long)n->mispredicted, (unsigned long)n->reconciled,
            (unsigned long)tl.shots, (unsigned long)tl.client_hits, (unsigned long)tl.server_hits,
            agreement(&tl));
    t->bots++;
    t->ping += MEAN(b, rtt_us) / 1000.0;
    t->jitter += MEAN(b, jitter_us) / 1000.0;
    t->loss_in += q16_pct((uint32_t)MEAN(b, loss_in_q16));
    t->loss_out += q16_pct((uint32_t)MEAN(b, loss_out_q16));
    t->bytes_in += MEAN(b, bytes_in);
    t->bytes_out += MEAN(b, bytes_out);
    t->lerp += MEAN(b, interp_us) / 1000.0;
    t->behind += MEAN(b, behind_us) / 1000.0;
    t->draws += draws;
    t->extrapolated += extrapolated;
    t->choked += b->server.choked;
    t->snapshots += sent;
    t->mispredicted += n->mispredicted;
    t->reconciled += n->reconciled;
    t->dead += n->mispredicted_dead;
    t->hurt += n->mispredicted_hurt;
    t->events += n->events_heard;
    t->event_bytes += n->event_bytes;
    t->kills += n->kills_heard;
    t->message_bytes += n->message_bytes;
    t->moves += b->server.moves;
    t->cond_lost += n->cond_lost;
    t->cond_burst_lost += n->cond_burst_lost;
    t->cond_bursts += n->cond_bursts;
    t->cond_spiked += n->cond_spiked;
    t->cond_spikes += n->cond_spikes;
    for (k = 0; k < DEMO_CLIENT_DROPS; k++)
        t->refused[k] += b->server.refused[k];
}

/* Every command of every client: made, refused, and what the server's
 * input buffer did with it. */
static void print_commands(FILE *f, const demo_match *m)
{
    uint32_t i, made = 0, refused = 0, received = 0, run = 0, lost = 0, shed = 0, overflow = 0;
    uint32_t caught = 0;
    fprintf(f, "Commands: made by each client (refused: its prediction was full, the input "
               "never left), then the server's input buffer: received (repeated copies "
               "included), run, lost (never received), shed (arrived while ahead of real "
               "time: more than real time allowed), dropped on overflow, and caught up (run beyond "
               "their tick's time on time kept through a stall).\n");
    fprintf(f, "%-7s %8s %8s %9s %8s %6s %6s %8s %9s\n", "client", "made", "refused", "received",
            "run", "lost", "shed", "overflow", "caught up");
    for (i = 0; i < m->setup.bots; i++) {
        const demo_bot_view *b = &m->bot[i];
        const demo_rec_slot *s = &b->server;
        if (b->slot < 0)
            continue;
        fprintf(f, "%-7s %8lu %8lu %9lu %8lu %6lu %6lu %8lu %9s\n", bot_name(i),
                (unsigned long)b->net.commands_made, (unsigned long)b->net.commands_refused,
                (unsigned long)s->commands_received, (unsigned long)s->commands_run,
                (unsigned long)s->commands_lost, (unsigned long)s->commands_shed,
                (unsigned long)s->commands_overflow, count(s->commands_caught_up));
        made += b->net.commands_made;
        refused += b->net.commands_refused;
        received += s->commands_received;
        run += s->commands_run;
        lost += s->commands_lost;
        shed += s->commands_shed;
        overflow += s->commands_overflow;
        caught += s->commands_caught_up;
    }
    fprintf(f, "%-7s %8lu %8lu %9lu %8lu %6lu %6lu %8lu %9s\n\n", "overall", (unsigned long)made,
            (unsigned long)refused, (unsigned long)received, (unsigned long)run,
            (unsigned long)lost, (unsigned long)shed, (unsigned long)overflow, count(caught));
}

/* What the conditioners did, all bots, both ways: the proof the link was
 * as bad as the header says. */
static void print_link(FILE *f, const demo_setup *s, const totals *t)
{
    fprintf(f, "Link conditioner (all bots, both ways): %lu datagrams lost at random",
            (unsigned long)t->cond_lost);
    if (s->fakeburst || t->cond_bursts)
        fprintf(f, "; %lu lost in %lu bursts (mean %s datagrams)",
                (unsigned long)t->cond_burst_lost, (unsigned long)t->cond_bursts,
                fixed(t->cond_bursts ? (double)t->cond_burst_lost / t->cond_bursts : 0.0, 0, 1));
    if (s->fakespike_ms || t->cond_spikes)
        fprintf(f, "; %lu held by %lu lag spikes and delivered at their end",
                (unsigned long)t->cond_spiked, (unsigned long)t->cond_spikes);
    fprintf(f, ".\n");
}

static void print_shots(FILE *f, const demo_tally *t)
{
    fprintf(f, "Shots: the clients predicted %lu hitscan shots; the server judged %lu of them and "
               "agreed on %lu (%s%%): same player hit, or both a miss.\n",
            (unsigned long)t->shots, (unsigned long)t->judged, (unsigned long)t->agree,
            fixed(pct(t->agree, t->judged), 0, 1));
    fprintf(f, "  Hits the clients saw: %lu, %lu of them judged; the server confirmed %lu "
               "(%s%%). Hits the server scored: %lu, %lu of them traced at exactly the pose "
               "the shooter's command claims it drew.\n",
            (unsigned long)t->client_hits, (unsigned long)t->judged_hits,
            (unsigned long)t->confirmed, fixed(pct(t->confirmed, t->judged_hits), 0, 1),
            (unsigned long)t->server_hits, (unsigned long)t->rebuilt);
    const struct {
        uint32_t count;
        const char *text;
    } notes[] = {
        {t->hit_dead, "of the server's hits met a target that another shot had killed in the "
                      "meantime: as the shooter saw it, it was alive; the dead take no damage."},
        {t->shooter_dead, "shots were never fired on the server: the shooter was already dead "
                          "there, killed before its client heard of it (damage is not "
                          "predicted)."},
        {t->unjudged, "shots have no verdict: their commands never ran on the server (lost "
                      "or shed on a bad link, see Commands, or sent as the match ended)."},
        {t->other_shot, "disagreements came from a different shot: the server ran the command "
                        "from another position or aim than the client predicted."},
        {t->guessed, "disagreements were shot at a target drawn by extrapolation (its "
                     "snapshots were late) and traced at another time than the drawing: a "
                     "claim outside the trust window, or older than the server rewinds."},
        {t->drawn_ahead, "disagreements were shot at a target drawn where its snapshots did not "
                         "hold it at the claimed time: a player who had just respawned, shown "
                         "at its spawn point before the render time reached its respawn."},
        {t->other_pose, "disagreements on the very same drawing: the server traced another "
                        "time than the command claimed (lag compensation off, a claim outside "
                        "the trust window, or a teleport)."},
        {t->server_only, "verdicts are for shots the client never predicted."},
    };
    size_t i;
    for (i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (notes[i].count)
            fprintf(f, "  %lu %s\n", (unsigned long)notes[i].count, notes[i].text);
}

/* The server's drop reasons, in ZL_SERVER_DROP_* order. */
static const char *const drop_names[] = {
    "packet", "message", "stranger", "rate",    "cookie",  "nonce", "full",    "version", "plain",
    "forged", "expired", "foreign",  "reused", "oversize", "late",  "crowded", "silent"};
ZL_STATIC_ASSERT(ZL_COUNTOF(drop_names) == ZL_SERVER_DROP_COUNT, demo_drop_names);

/* demo_rec_slot.refused's reasons, in demo_referee_refusals' order. */
static const char *const refusal_names[DEMO_CLIENT_DROPS] = {
    "flooded",          "forged acks", "bad messages", "invalid commands", "shed commands",
    "messages flooded", "short",       "oversized",    "bad check",        "reserved bits",
    "duplicates",       "stale",       "other address over its tries",     "moves refused"};

/* "name count, name count, ..." into out (cap bytes, always terminated). */
static void format_counts(const char *const *names, const uint32_t *counts, int n, char *out,
                          size_t cap)
{
    size_t at = 0;
    int i;
    if (cap == 0)
        return;
    out[0] = 0;
    for (i = 0; i < n && at < cap; i++) {
        int k = snprintf(out + at, cap - at, "%s%s %lu", i ? ", " : "", names[i],
                         (unsigned long)counts[i]);
        if (k < 0)
            break;
        at += (size_t)k;
    }
}

void demo_drops_format(const uint32_t dropped[ZL_SERVER_DROP_COUNT], char *out, size_t cap)
{
    format_counts(drop_names, dropped, ZL_SERVER_DROP_COUNT, out, cap);
}

const char *demo_drop_name(int reason)
{
    return reason >= 0 && reason < ZL_SERVER_DROP_COUNT ? drop_names[reason] : "?";
}

void demo_refusals_format(const uint32_t refused[DEMO_CLIENT_DROPS], char *out, size_t cap)
{
    format_counts(refusal_names, refused, DEMO_CLIENT_DROPS, out, cap);
}

const char *demo_report_stalls(uint32_t fakeburst, uint32_t fakespike_ms)
{
    static char text[128];
    size_t n = 0;
    text[0] = '\0';
    if (fakeburst)
        n += (size_t)sprintf(text, ", loss bursts of %lu datagrams about every %lu s each way",
                             (unsigned long)fakeburst,
                             (unsigned long)(DEMO_BURST_EVERY_MS / 1000u));
    if (fakespike_ms)
        sprintf(text + n, ", a %lu ms lag spike every %lu s", (unsigned long)fakespike_ms,
                (unsigned long)(DEMO_SPIKE_EVERY_MS / 1000u));
    return text;
}

void demo_report_final(FILE *f, const demo_match *m, const char *hits_svg,
                       const char *timeline_svg, const char *log_dir)
{
    const demo_setup *s = &m->setup;
    char drops[DEMO_DROPS_TEXT_MAX];
    totals t;
    demo_tally all;
    uint32_t i;
    memset(&t, 0, sizeof t);
    fprintf(f, "\n== zerolag demo: %lu bots, %lu s, %lu ticks/s, %lu snapshots/s, link "
               "conditioner %lu ms round trip, +/-%lu ms jitter and %s%% loss each way%s, lag "
               "compensation %s, %s ==\n\n",
            (unsigned long)s->bots, (unsigned long)s->duration_s, (unsigned long)s->tickrate,
            (unsigned long)s->updaterate, (unsigned long)s->fakelag_ms,
            (unsigned long)s->fakejitter_ms, fixed(s->fakeloss_ppm / 10000.0, 0, 1),
            demo_report_stalls(s->fakeburst, s->fakespike_ms), s->lagcomp ? "on" : "off",
            s->sealed ? "connect tokens and sealed packets" : "plain packets");
    if (m->interrupted)
        fprintf(f, "Stopped by Ctrl-C after %s s: every program said goodbye.\n\n",
                fixed((m->end_ms - m->start_ms) / 1000.0, 0, 1));
    fprintf(f, "%-7s %4s %5s %6s %13s %6s %7s %7s %5s %6s %6s %11s %6s %6s %6s %7s\n",
            "client", "slot", "ping", "jitter", "loss in/out", "choke", "in B/s", "out B/s",
            "lerp", "behind", "extrap", "mispredict", "shots", "c-hits", "s-hits", "agree");
    for (i = 0; i < s->bots; i++)
        print_bot(f, m, i, &t);
    demo_match_tally(m, -1, &all);
    if (t.bots)
        fprintf(f, "%-7s %4s %s %s %s%%/%s%% %s%% %s %s %s %s %s%% %5lu/%-5lu %6lu %6lu %6lu %s\n",
                "overall", "", fixed(t.ping / t.bots, 5, 0), fixed(t.jitter / t.bots, 6, 1),
                fixed(t.loss_in / t.bots, 5, 1), fixed(t.loss_out / t.bots, 5, 1),
                fixed(pct(t.choked, t.snapshots), 5, 1), fixed(t.bytes_in / t.bots, 7, 0),
                fixed(t.bytes_out / t.bots, 7, 0), fixed(t.lerp / t.bots, 5, 0),
                fixed(t.behind / t.bots, 6, 0), fixed(pct(t.extrapolated, t.draws), 5, 1),
                (unsigned long)t.mispredicted, (unsigned long)t.reconciled,
                (unsigned long)all.shots, (unsigned long)all.client_hits,
                (unsigned long)all.server_hits, agreement(&all));
    fprintf(f, "(means per bot after the first second; bytes/s are per client; choke is the "
               "share of due snapshots the rate held back; lerp is the interpolation delay in "
               "use, behind how far the render time trails the newest snapshot, extrap the "
               "share of entity draws extrapolated)\n\n");
    print_commands(f, m);
    print_link(f, s, &t);
    print_shots(f, &all);
    fprintf(f, "Events and messages: the clients played %lu events from the snapshots (others' "
               "shots, footsteps, hits; %lu bytes of events sections in all, %s bytes an event) "
               "and read %lu kill feed lines (%lu bytes of reliable messages both ways).\n",
            (unsigned long)t.events, (unsigned long)t.event_bytes,
            fixed(t.events ? (double)t.event_bytes / t.events : 0.0, 0, 1), (unsigned long)t.kills,
            (unsigned long)t.message_bytes);
    fprintf(f, "Prediction: %lu of %lu reconciliations mispredicted: %lu on death or respawn "
               "(server events no client predicts), %lu from damage taken, %lu otherwise.\n",
            (unsigned long)t.mispredicted, (unsigned long)t.reconciled, (unsigned long)t.dead,
            (unsigned long)t.hurt, (unsigned long)(t.mispredicted - t.dead - t.hurt));
    if (m->ticks.ticks && m->ticks.instructions)
        fprintf(f, "Server tick: median %lu, 99th percentile %lu, max %lu instructions over %lu "
                   "ticks (counted by the emulator: one instruction per virtual nanosecond).\n",
                (unsigned long)m->ticks.median, (unsigned long)m->ticks.p99,
                (unsigned long)m->ticks.max, (unsigned long)m->ticks.ticks);
    else if (m->ticks.ticks)
        fprintf(f, "Server tick: median %s us, 99th percentile %s us, max %s us over %lu "
                   "ticks (the budget at %lu ticks/s is %lu us).\n",
                fixed(m->ticks.median / 1000.0, 0, 1), fixed(m->ticks.p99 / 1000.0, 0, 1),
                fixed(m->ticks.max / 1000.0, 0, 1), (unsigned long)m->ticks.ticks,
                (unsigned long)m->ticks.tick_rate,
                (unsigned long)(m->ticks.tick_rate ? 1000000u / m->ticks.tick_rate : 0u));
    else
        fprintf(f, "Server tick: no figures (the server did not report; see its log).\n");
    demo_drops_format(m->drops.dropped, drops, sizeof drops);
    fprintf(f, "Server drops before a connection: %s; clients timed out: %lu.\n", drops,
            (unsigned long)m->drops.timeouts);
    demo_refusals_format(t.refused, drops, sizeof drops);
    fprintf(f, "Server refused of the clients' connections (all bots): %s; addresses moved: "
               "%lu.\n",
            drops, (unsigned long)t.moves);
    if (m->lost)
        fprintf(f, "(%lu records did not fit the launcher's tables and were not counted.)\n",
                (unsigned long)m->lost);
    fprintf(f, "\nPictures:\n  %s  lag-compensated hits: red the box the shooter drew, blue the "
               "server's rewound box, green the target's box at that tick\n  %s  ping, "
               "prediction error and snapshot size over time, per client\n",
            hits_svg ? hits_svg : "(not written)", timeline_svg ? timeline_svg : "(not written)");
    if (log_dir)
        fprintf(f, "Logs: %s/server.log and %s/bot-N.log\n", log_dir, log_dir);
}
