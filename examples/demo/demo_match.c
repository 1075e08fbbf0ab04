/* demo_match.c - files each record where the report and pictures look for
 * it, and judges every shot: did the server agree with what the client saw? */
#include <string.h>

#include "demo_match.h"

void demo_match_init(demo_match *m, const demo_setup *setup, uint32_t start_ms)
{
    uint32_t i;
    memset(m, 0, sizeof *m);
    m->setup = *setup;
    m->start_ms = start_ms;
    for (i = 0; i < DEMO_MAX_BOTS; i++)
        m->bot[i].slot = -1;
}

static void take_server(demo_match *m, int type, const void *rec)
{
    switch (type) {
    case DEMO_REC_LISTEN: m->port = ((const demo_rec_listen *)rec)->port; break;
    case DEMO_REC_JOIN: m->joins++; break;
    case DEMO_REC_LEAVE: m->leaves++; break;
    case DEMO_REC_TICKS: m->ticks = *(const demo_rec_ticks *)rec; break;
    case DEMO_REC_DROPS: m->drops = *(const demo_rec_drops *)rec; break;
    case DEMO_REC_SLOT: {
        const demo_rec_slot *s = (const demo_rec_slot *)rec;
        uint32_t i;
        for (i = 0; i < m->setup.bots; i++)
            if (m->bot[i].slot == s->slot)
                m->bot[i].server = *s;
        break;
    }
    case DEMO_REC_VERDICT:
        if (m->verdicts < DEMO_SHOTS)
            m->verdict[m->verdicts++] = *(const demo_rec_verdict *)rec;
        else
            m->lost++;
        break;
    case DEMO_REC_DEADFIRE:
        if (m->deadfires < DEMO_SHOTS)
            m->deadfire[m->deadfires++] = *(const demo_rec_deadfire *)rec;
        else
            m->lost++;
        break;
    default: break;
    }
}

static void take_bot(demo_match *m, demo_bot_view *b, int type, const void *rec)
{
    switch (type) {
    case DEMO_REC_HELLO: b->slot = ((const demo_rec_hello *)rec)->slot; break;
    case DEMO_REC_BYE:
        b->bye = *(const demo_rec_bye *)rec;
        b->said_bye = 1;
        break;
    case DEMO_REC_NET:
        b->prev_net = b->net;
        b->net = *(const demo_rec_net *)rec;
        if (b->samples < DEMO_SAMPLES)
            b->sample[b->samples++] = b->net;
        else
            b->samples_lost++;
        break;
    case DEMO_REC_SHOT:
        if (m->shots < DEMO_SHOTS && b->slot >= 0) {
            m->shot_owner[m->shots] = b->slot;
            m->shot[m->shots++] = *(const demo_rec_shot *)rec;
        } else {
            m->lost++;
        }
        break;
    default: break;
    }
}

void demo_match_take(demo_match *m, int bot, int type, const void *rec)
{
    if (bot < 0)
        take_server(m, type, rec);
    else if ((uint32_t)bot < m->setup.bots)
        take_bot(m, &m->bot[bot], type, rec);
}

static const demo_rec_verdict *find_verdict(const demo_match *m, int32_t slot, uint32_t seq)
{
    uint32_t i;
    for (i = 0; i < m->verdicts; i++)
        if (m->verdict[i].shooter == slot && m->verdict[i].sequence == seq)
            return &m->verdict[i];
    return NULL;
}

static int fired_dead(const demo_match *m, int32_t slot, uint32_t seq)
{
    uint32_t i;
    for (i = 0; i < m->deadfires; i++)
        if (m->deadfire[i].shooter == slot && m->deadfire[i].sequence == seq)
            return 1;
    return 0;
}

const demo_rec_shot *demo_match_sight(const demo_match *m, const demo_rec_verdict *v)
{
    uint32_t i;
    for (i = 0; i < m->shots; i++)
        if (m->shot_owner[i] == v->shooter && m->shot[i].sequence == v->sequence)
            return &m->shot[i];
    return NULL;
}

const demo_bot_view *demo_match_bot_by_slot(const demo_match *m, int32_t slot)
{
    uint32_t i;
    for (i = 0; i < m->setup.bots; i++)
        if (m->bot[i].slot == slot)
            return &m->bot[i];
    return NULL;
}

static void judge(const demo_rec_shot *s, const demo_rec_verdict *v, demo_tally *t)
{
    t->judged++;
    t->judged_hits += s->target >= 0;
    if (s->target == v->target) {
        t->agree++;
        t->confirmed += s->target >= 0;
    } else if (!zl_vec3_equal(s->eye, v->eye) || !zl_vec3_equal(s->dir, v->dir)) {
        t->other_shot++;
    } else if (v->rebuilt) {
        t->drawn_ahead++; /* traced exactly as claimed, yet seen otherwise */
    } else if (s->extrapolated) {
        t->guessed++;
    } else {
        t->other_pose++;
    }
}

void demo_match_tally(const demo_match *m, int slot, demo_tally *out)
{
    uint32_t i;
    memset(out, 0, sizeof *out);
    for (i = 0; i < m->shots; i++) {
        const demo_rec_shot *s = &m->shot[i];
        const demo_rec_verdict *v;
        if (slot >= 0 && m->shot_owner[i] != slot)
            continue;
        out->shots++;
        out->client_hits += s->target >= 0;
        v = find_verdict(m, m->shot_owner[i], s->sequence);
        if (v)
            judge(s, v, out);
        else if (fired_dead(m, m->shot_owner[i], s->sequence))
            out->shooter_dead++;
        else
            out->unjudged++;
    }
    for (i = 0; i < m->verdicts; i++) {
        const demo_rec_verdict *v = &m->verdict[i];
        if (slot >= 0 && v->shooter != slot)
            continue;
        out->server_hits += v->target >= 0;
        out->rebuilt += v->target >= 0 && v->rebuilt;
        out->hit_dead += v->target >= 0 && !(v->current.max.z > v->current.min.z);
        out->server_only += demo_match_sight(m, v) == NULL;
    }
}
