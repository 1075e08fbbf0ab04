/* zl_replay.c - a match record re-run: each tick's commands through the
 * game's rules with shots traced at the recorded rewind times, joins,
 * leaves and new matches as the server did them, then the match hash. */
#include "zl_replay.h"

#include <string.h>

static void *player_at(zl_replay *r, int slot)
{
    return (uint8_t *)r->players + (size_t)slot * r->game.player_schema->size;
}

int zl_replay_init(zl_replay *r, const zl_game *game, const void *record, size_t len,
                   zl_replay_reload reload, void *reload_ctx)
{
    const zl_record_header *h;
    zl_lagcomp_settings ls;
    int rc;
    ZL_ASSERT(r && game);
    memset(r, 0, sizeof *r);
    rc = zl_record_reader_init(&r->rd, record, len);
    if (rc != ZL_OK)
        return rc;
    h = &r->rd.header;
    if (h->lagcomp_ticks > ZL_LAGCOMP_TICKS || h->events > ZL_SERVER_EVENTS)
        return ZL_ERR_UNSUPPORTED;
    if (h->state_size != game->player_schema->size || h->max_entities != game->max_entities ||
        h->origin_axes != game->origin_axes || h->origin_field != game->player_origin_field)
        return ZL_ERR_INVALID;
    r->game = *game;
    r->reload = reload;
    r->reload_ctx = reload_ctx;
    /* As zl_server_init derives them from the tick rate. */
    r->tick_us = (1000000u + h->tick_rate / 2u) / h->tick_rate;
    r->msec = (r->tick_us + 500u) / 1000u;
    r->tick = h->start_tick;
    zl_events_init(&r->events, r->event_store, h->events);
    zl_lagcomp_settings_default(&ls);
    ls.teleport_distance = h->teleport_distance;
    ls.origin_field = game->player_origin_field;
    ls.origin_axes = game->origin_axes;
    zl_lagcomp_init(&r->lagcomp, game, r->tick_us, &ls);
    return ZL_OK;
}

/* One command as zl_server runs it: the rules, then the server side of the
 * events it pushed, its shots traced at the recorded time. */
static void run_command(zl_replay *r, const zl_record_entry *e)
{
    zl_lagcomp_shot shot;
    zl_lagcomp_time present;
    zl_shot_tracer tracer;
    uint32_t i, first = r->events.count, last;
    r->commands++;
    r->events.source = e->slot;
    r->game.run_command(r->game.ctx, player_at(r, e->slot), &e->cmd, player_at(r, e->slot), 1,
                        &r->events);
    last = r->events.count;
    if (first == last)
        return;
    /* A command that traced nothing live has no time: it traces the
     * present here, and a replay that traces where the server did not
     * shows in the hash. */
    zl_lagcomp_present(&r->lagcomp, &present);
    tracer = zl_lagcomp_tracer(&shot, &r->lagcomp, e->has_when ? &e->when : &present);
    for (i = first; i < last; i++) {
        zl_event ev = r->events.items[i];
        r->events.source = e->slot;
        r->game.resolve_event(r->game.ctx, &ev, r->players, r->rd.header.max_clients, &tracer,
                              &r->events);
    }
}

static void end_tick(zl_replay *r)
{
    int i, count = r->rd.header.max_clients;
    r->events.source = -1;
    r->game.tick_entities(r->game.ctx, r->players, count, r->msec, &r->events);
    zl_lagcomp_record(&r->lagcomp, r->tick, r->players, r->present, count);
    for (i = 0; i < count; i++)
        r->player_ticks += r->present[i];
    r->ticks++;
}

/* The start of tick r->tick + 1, as zl_server's run_tick begins it. */
static void begin_tick(zl_replay *r)
{
    r->tick++;
    zl_events_clear(&r->events);
    r->events.tick = r->tick;
}

static void join(zl_replay *r, int slot)
{
    memset(player_at(r, slot), 0, r->game.player_schema->size);
    r->game.player_join(r->game.ctx, player_at(r, slot), slot);
}

int zl_replay_step(zl_replay *r)
{
    zl_record_entry e;
    int rc, started = 0, i;
    ZL_ASSERT(r);
    if (r->ended)
        return 0;
    if (r->idle) {
        r->idle--;
        begin_tick(r);
        end_tick(r);
        return 1;
    }
    for (;;) {
        rc = zl_record_next(&r->rd, &e);
        if (rc != ZL_OK)
            return rc;
        switch (e.kind) {
        case ZL_RECORD_COMMAND:
            if (!started) {
                begin_tick(r);
                started = 1;
            }
            run_command(r, &e);
            break;
        case ZL_RECORD_TICK:
            /* The first tick of the run holds the commands just read;
             * the others ran none and run one per step. */
            if (!started)
                begin_tick(r);
            end_tick(r);
            r->idle = e.ticks - 1u;
            return 1;
        case ZL_RECORD_JOIN:
            join(r, e.slot);
            r->present[e.slot] = 1;
            r->joins++;
            break;
        case ZL_RECORD_LEAVE:
            r->present[e.slot] = 0;
            zl_lagcomp_remove(&r->lagcomp, e.slot);
            r->game.player_leave(r->game.ctx, player_at(r, e.slot), e.slot);
            r->leaves++;
            break;
        case ZL_RECORD_MATCH:
            if (!r->reload)
                return ZL_ERR_UNSUPPORTED;
            r->reload(r->reload_ctx, e.match_id);
            for (i = 0; i < ZL_MAX_CLIENTS; i++)
                zl_lagcomp_remove(&r->lagcomp, i);
            for (i = 0; i < r->rd.header.max_clients; i++)
                if (r->present[i])
                    join(r, i);
            r->matches++;
            break;
        default: /* ZL_RECORD_END */
            r->ended = 1;
            r->recorded_hash = e.hash;
            r->hash = zl_record_hash(&r->game, r->players, r->present, r->rd.header.max_clients,
                                     r->scratch);
            return 0;
        }
    }
}

int zl_replay_run(zl_replay *r)
{
    int rc;
    while ((rc = zl_replay_step(r)) == 1) {
    }
    if (rc < 0)
        return rc;
    return r->hash == r->recorded_hash ? ZL_OK : ZL_ERR_DESYNC;
}

const void *zl_replay_player(const zl_replay *r, int slot)
{
    ZL_ASSERT(r);
    if (slot < 0 || slot >= r->rd.header.max_clients || !r->present[slot])
        return NULL;
    return (const uint8_t *)r->players + (size_t)slot * r->game.player_schema->size;
}
