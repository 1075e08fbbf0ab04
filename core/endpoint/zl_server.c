/* zl_server.c - the server's loop: who may connect, what each client sent,
 * one fixed tick of the game at a time, and the snapshot each client gets. */
#include <string.h>

#include "zl_server_blocks.h"
#include "zl_cookie.h"
#include "zl_server.h"

void zl_server_config_default(zl_server_config *c)
{
    ZL_ASSERT(c);
    memset(c, 0, sizeof *c);
    c->tick_rate = 64;
    c->max_clients = ZL_MAX_CLIENTS;
    c->timeout_us = 5000000u;
    c->grace_us = 1500000u;
    c->max_per_address = 8;
    c->packet_rate = (uint16_t)(2u * c->tick_rate);
    c->packet_burst = (uint16_t)(c->tick_rate / 2u);
    c->message_rate = 16;
    c->message_burst = 16;
    c->lag_compensation = 1;
    zl_server_limits_default(&c->limits);
    c->limits.updaterate_max = c->tick_rate;
    c->limits.cmdrate_max = c->tick_rate;
    zl_ratelimit_config_default(&c->ratelimit);
    zl_lagcomp_settings_default(&c->lagcomp);
    zl_cmdbuf_settings_default(&c->cmdbuf);
    c->security = ZL_SECURITY_TOKENS;
    zl_aead_default(&c->aead);
}

/* Players are packed at the schema's size: the game indexes them so. */
static void *player_at(zl_server *s, int slot)
{
    return (uint8_t *)s->players + (size_t)slot * s->game.player_schema->size;
}

/* The view delay a client reports, within what its settings could ask for:
 * the server's largest cl_interp, or its own ratio / updaterate floor when
 * that is larger. A client that reports more is not believed beyond it. */
static uint32_t view_delay_cap(const zl_server *s, const zl_server_slot *c, uint32_t reported_us)
{
    uint32_t floor_us = zl_client_settings_interp_us(&c->settings), cap_us;
    cap_us = s->config.limits.interp_us_max > floor_us ? s->config.limits.interp_us_max : floor_us;
    return reported_us < cap_us ? reported_us : cap_us;
}

static void notify(zl_server *s, uint8_t kind, uint8_t reason, int slot)
{
    zl_server_notice *n;
    if (s->notices_written - s->notices_read >= ZL_SERVER_NOTICES) {
        s->notices_read++; /* the oldest unread one is overwritten */
        s->notices_lost++;
    }
    n = &s->notice[s->notices_written & (ZL_SERVER_NOTICES - 1)];
    n->kind = kind;
    n->reason = reason;
    n->slot = (uint16_t)slot;
    n->addr = s->slot[slot].conn.peer;
    n->tick = s->tick;
    s->notices_written++;
}

/* Keeps slot_port in step with the slot's connected flag and peer, and
 * points its port's hint at it. */
static void note_slot_port(zl_server *s, int slot)
{
    const zl_server_slot *c = &s->slot[slot];
    s->slot_port[slot] = c->connected ? 0x10000u | c->conn.peer.port : 0u;
    if (c->connected)
        s->port_hint[c->conn.peer.port % ZL_MAX_CLIENTS] = (uint16_t)(slot + 1);
}

static void free_slot(zl_server *s, int slot, uint8_t reason)
{
    notify(s, ZL_NOTICE_LEAVE, reason, slot);
    s->slot[slot].connected = 0;
    note_slot_port(s, slot);
    s->present[slot] = 0;
    /* Out of the rewind history and the game's rules at once, not at the
     * next tick's record: a shot in this tick cannot reach a free slot,
     * and the slot's next player is never hit by shots at this one. */
    zl_lagcomp_remove(&s->lagcomp, slot);
    s->game.player_leave(s->game.ctx, player_at(s, slot), slot);
    if (s->record)
        zl_record_leave(s->record, slot);
}

void zl_server_disconnect(zl_server *s, int slot, uint8_t reason, uint64_t now_us)
{
    ZL_ASSERT(s && slot >= 0 && slot < ZL_MAX_CLIENTS && reason < ZL_DISCONNECT_COUNT);
    if (!s->slot[slot].connected)
        return;
    zl_conn_disconnect(&s->slot[slot].conn, reason, now_us);
    free_slot(s, slot, reason);
}

void zl_server_shutdown(zl_server *s, uint64_t now_us)
{
    int i;
    for (i = 0; i < s->config.max_clients; i++)
        zl_server_disconnect(s, i, ZL_DISCONNECT_SHUTDOWN, now_us);
}

/* ---- New matches on the same connections ---- */

/* How far a client's command numbering jumps at a new match: past every
 * command it can have predicted in the old one (its predictor holds at
 * most ZL_PREDICT_COMMANDS beyond the newest the server ran), so those
 * still in flight are refused as old, and well within the +/-32768 in
 * which zl_cmdstream_read widens a 16-bit sequence, so they are read as
 * old and not as far ahead. A client built with another ring size stays
 * covered up to 8192. */
#define MATCH_SEQUENCE_GAP 16384u
ZL_STATIC_ASSERT(ZL_PREDICT_COMMANDS <= 8192, match_gap_covers_prediction);

/* The CONTROL notice of the current match to slot's client, the
 * sequence it goes under kept to recognise its acknowledgement. */
static void send_match(zl_server *s, int slot, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_CONTROL_SIZE + ZL_PACKET_TAG_SIZE];
    zl_server_slot *c = &s->slot[slot];
    zl_msg_control m;
    m.nonce = c->conn.nonce;
    m.kind = ZL_CONTROL_MATCH;
    m.match_id = s->match_id;
    m.tick = s->match_tick;
    c->match_sent[c->match_sends++ % ZL_SERVER_MATCH_SENT] = zl_link_next_sequence(&c->conn.link);
    c->match_next_us = now_us + zl_conn_resend_us(&c->conn, now_us);
    zl_conn_send(&c->conn, ZL_MSG_CONTROL, packet,
                 zl_msg_write(ZL_MSG_CONTROL, packet + ZL_PACKET_HEADER_SIZE, ZL_CONTROL_SIZE, &m),
                 now_us);
}

/* 1 when the acknowledged packet `sequence` carried the match notice. */
static int match_acked(const zl_server_slot *c, uint16_t sequence)
{
    uint32_t kept = c->match_sends < ZL_SERVER_MATCH_SENT ? c->match_sends : ZL_SERVER_MATCH_SENT;
    uint32_t i;
    for (i = 0; i < kept; i++)
        if (c->match_sent[i] == sequence)
            return 1;
    return 0;
}

int zl_server_change_match(zl_server *s, uint32_t match_id, uint64_t now_us)
{
    int i, told = 0;
    ZL_ASSERT(s);
    /* Clients tell matches apart by their first tick: one per tick. */
    if (s->match_tick == s->tick + 1u)
        return ZL_ERR_AGAIN;
    s->match_id = match_id;
    s->match_tick = s->tick + 1u;
    if (s->record)
        zl_record_match(s->record, match_id);
    for (i = 0; i < ZL_MAX_CLIENTS; i++)
        zl_lagcomp_remove(&s->lagcomp, i);
    for (i = 0; i < s->config.max_clients; i++) {
        zl_server_slot *c = &s->slot[i];
        uint32_t first;
        if (!c->connected)
            continue;
        first = c->executed + MATCH_SEQUENCE_GAP;
        zl_cmdbuf_init(&c->commands, &s->config.cmdbuf, first);
        c->executed = first - 1u;
        zl_snapshot_client_reset(&c->snapshot);
        c->full_requested = 0;
        zl_event_sender_reset(&c->events, &s->event_log);
        memset(player_at(s, i), 0, s->game.player_schema->size);
        s->game.player_join(s->game.ctx, player_at(s, i), i);
        c->match_pending = 1;
        c->match_sends = 0;
        send_match(s, i, now_us);
        told++;
    }
    return told;
}

uint32_t zl_server_match(const zl_server *s)
{
    ZL_ASSERT(s);
    return s->match_id;
}

int zl_server_init_(zl_server *s, const zl_server_config *c, const zl_game *game,
                    const zl_platform *net, const uint8_t secret[2 * ZL_SIPHASH_KEY_SIZE],
                    uint64_t now_us, uint32_t fingerprint, size_t size)
{
    if (zl_config_check(fingerprint, size, sizeof *s) != ZL_OK)
        return ZL_ERR_CONFIG;
    ZL_ASSERT(s && c && game && net && net->send && secret);
    ZL_ASSERT(c->tick_rate >= 20 && c->tick_rate <= 128);
    ZL_ASSERT(c->max_clients >= 1 && c->max_clients <= ZL_MAX_CLIENTS);
    ZL_ASSERT(c->packet_rate >= 1 && c->packet_burst >= 1 && c->max_per_address >= 1);
    ZL_ASSERT(game->player_schema->size <= ZL_STATE_MAX &&
              (game->entity_schema ? game->entity_schema->size <= ZL_STATE_MAX
                                   : game->max_entities == 0));
    ZL_ASSERT(ZL_MAX_CLIENTS + game->max_entities <= ZL_MAX_ENTITIES);
    memset(s, 0, sizeof *s);
    s->config = *c;
    s->game = *game;
    s->out.ctx = net->ctx;
    s->out.send = net->send;
    ZL_ASSERT(c->security == ZL_SECURITY_PLAIN ||
              (c->public_address_count >= 1 && c->public_address_count <= ZL_TOKEN_ADDRESSES &&
               c->aead.seal && c->aead.open));
    memcpy(s->cookie_secret, secret, ZL_SIPHASH_KEY_SIZE);
    s->start_us = now_us;
    zl_ratelimit_init(&s->limiter, &c->ratelimit, secret + ZL_SIPHASH_KEY_SIZE);
    s->tick_us = (1000000u + c->tick_rate / 2u) / c->tick_rate;
    s->next_tick_us = now_us + s->tick_us;
    /* A plan too small for its schema (ZL_SCHEMA_PLAN_*) still codes it, by
     * walking the table. */
    (void)zl_schema_plan_init(&s->usercmd_plan, &zl_usercmd_schema);
    if (game->event_schema)
        (void)zl_schema_plan_init(&s->event_plan, game->event_schema);
    s->layout.player_schema = game->player_schema;
    s->layout.entity_schema = game->entity_schema;
    s->layout.players = ZL_MAX_CLIENTS;
    zl_events_init(&s->events, s->event_store, ZL_SERVER_EVENTS);
    zl_event_log_init(&s->event_log);
    {
        zl_lagcomp_settings ls = c->lagcomp;
        ls.origin_field = game->player_origin_field;
        ls.origin_axes = game->origin_axes;
        zl_lagcomp_init(&s->lagcomp, game, s->tick_us, &ls);
    }
    zl_snapshot_world_init(&s->world);
    return ZL_OK;
}

/* Every datagram looks up its sender: the slot its port's hint names
 * first (nearly always the one), else a scan, where the port, in one small
 * array, turns away nearly every other client's slot before a call
 * compares the rest. No two connected slots share an address, so the
 * hint finds the slot the scan would. */
static int find_slot(const zl_server *s, const zl_addr *a)
{
    uint32_t key = 0x10000u | a->port;
    int i = s->port_hint[a->port % ZL_MAX_CLIENTS] - 1;
    if (i >= 0 && s->slot_port[i] == key && zl_addr_equal(&s->slot[i].conn.peer, a))
        return i;
    for (i = 0; i < s->config.max_clients; i++)
        if (s->slot_port[i] == key && zl_addr_equal(&s->slot[i].conn.peer, a))
            return i;
    return -1;
}

static int free_slot_index(const zl_server *s)
{
    int i;
    for (i = 0; i < s->config.max_clients; i++)
        if (!s->slot[i].connected)
            return i;
    return -1;
}

/* A handshake message as the server needs it, plain or with a token. */
typedef struct handshake {
    uint32_t protocol_id; /* REQUEST only */
    uint64_t nonce;
    uint32_t window;      /* RESPONSE only */
    uint64_t cookie;      /* RESPONSE only */
    zl_client_settings settings;
    const zl_msg_token *token; /* NULL: a plain one */
} handshake;

/* Any of the four request messages, read. */
typedef union handshake_msg {
    zl_msg_request request;
    zl_msg_response response;
    zl_msg_token_request token_request;
    zl_msg_token_response token_response;
} handshake_msg;

/* Reads a REQUEST or RESPONSE, plain or with a token, into *hs (pointing
 * into *m). 0 when malformed. */
static int read_handshake(uint8_t type, const uint8_t *payload, size_t len, handshake_msg *m,
                          handshake *hs)
{
    if (zl_msg_read(type, payload, len, m) != ZL_OK)
        return 0;
    memset(hs, 0, sizeof *hs);
    if (type == ZL_MSG_REQUEST) {
        hs->protocol_id = m->request.protocol_id;
        hs->nonce = m->request.nonce;
        hs->settings = m->request.settings;
    } else if (type == ZL_MSG_TOKEN_REQUEST) {
        hs->protocol_id = m->token_request.protocol_id;
        hs->nonce = m->token_request.nonce;
        hs->settings = m->token_request.settings;
        hs->token = &m->token_request.token;
    } else if (type == ZL_MSG_RESPONSE) {
        hs->nonce = m->response.nonce;
        hs->window = m->response.window;
        hs->cookie = m->response.cookie;
        hs->settings = m->response.settings;
    } else {
        hs->nonce = m->token_response.nonce;
        hs->window = m->token_response.window;
        hs->cookie = m->token_response.cookie;
        hs->settings = m->token_response.settings;
        hs->token = &m->token_response.token;
    }
    return 1;
}

static uint64_t unix_now_s(const zl_server *s, uint64_t now_us)
{
    return s->config.unix_time_s + (now_us - s->start_us) / 1000000u;
}

static void send_deny(zl_server *s, const zl_addr *to, uint64_t nonce, uint8_t reason)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_DENY_SIZE];
    zl_msg_deny d;
    d.nonce = nonce;
    d.reason = reason;
    zl_conn_send_unlinked(&s->out, to, ZL_MSG_DENY, packet,
                          zl_msg_write(ZL_MSG_DENY, packet + ZL_PACKET_HEADER_SIZE, ZL_DENY_SIZE,
                                       &d));
}

/* 1 when the handshake may go on under this server's security: a plain
 * server takes plain messages; a token server a token that opens under its
 * key, has not expired, names one of its addresses and was not used from
 * another address (*grant then filled). Refusals are counted; a plain
 * request to a token server is told so. */
static int admitted(zl_server *s, const zl_addr *from, const handshake *hs, uint64_t now_us,
                    zl_token_grant *grant)
{
    uint64_t now_s = unix_now_s(s, now_us);
    unsigned i;
    int named = 0;
    if (s->config.security == ZL_SECURITY_PLAIN || !hs->token) {
        if (s->config.security == ZL_SECURITY_PLAIN && !hs->token)
            return 1;
        s->dropped[ZL_SERVER_DROP_PLAIN]++;
        if (!hs->token)
            send_deny(s, from, hs->nonce, ZL_DENY_TOKEN);
        return 0;
    }
    /* The expiry travels in clear, bound to the seal as associated data
     * (a changed one fails the tag): an expired token, garbage included,
     * is refused before any decryption. */
    if (hs->token->expire_s <= now_s) {
        s->dropped[ZL_SERVER_DROP_TOKEN_EXPIRED]++;
        return 0;
    }
    if (zl_token_open(grant, hs->token->sealed, hs->token->expire_s, hs->token->nonce,
                      s->config.private_key, now_s) != ZL_OK) {
        s->dropped[ZL_SERVER_DROP_TOKEN_FORGED]++;
        return 0;
    }
    for (i = 0; i < s->config.public_address_count; i++)
        named |= zl_token_names(grant, &s->config.public_addresses[i]);
    if (!named) {
        s->dropped[ZL_SERVER_DROP_TOKEN_FOREIGN]++;
        return 0;
    }
    if (!zl_token_cache_allows(&s->tokens, hs->token->nonce, from, now_s)) {
        s->dropped[ZL_SERVER_DROP_TOKEN_REUSED]++;
        return 0;
    }
    return 1;
}

static void on_request(zl_server *s, const zl_addr *from, const handshake *hs, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_CHALLENGE_SIZE + ZL_PACKET_TAG_SIZE];
    uint8_t *payload = packet + ZL_PACKET_HEADER_SIZE;
    uint8_t nonce[ZL_XAEAD_NONCE_SIZE];
    zl_token_grant grant;
    zl_msg_challenge ch;
    int n;
    if (hs->protocol_id != ZL_PROTOCOL_ID) {
        s->dropped[ZL_SERVER_DROP_VERSION]++;
        send_deny(s, from, hs->nonce, ZL_DENY_VERSION);
        return;
    }
    if (!admitted(s, from, hs, now_us, &grant))
        return;
    ch.nonce = hs->nonce;
    ch.window = zl_cookie_window(now_us);
    ch.cookie = zl_cookie_make(s->cookie_secret, from, ch.window, hs->nonce);
    n = zl_msg_write(ZL_MSG_CHALLENGE, payload, ZL_CHALLENGE_SIZE, &ch);
    /* A token holder's challenge is tagged with its token's key. */
    if (hs->token) {
        zl_conn_reply_nonce(nonce, ZL_MSG_CHALLENGE, ch.cookie, 0);
        n = zl_conn_tag_reply(payload, n, grant.server_key, nonce);
    }
    zl_crypto_wipe(&grant, sizeof grant);
    zl_conn_send_unlinked(&s->out, from, ZL_MSG_CHALLENGE, packet, n);
}

/* cookie: the one the RESPONSE asking for it carried. */
static void send_accept(zl_server *s, int slot, uint64_t cookie)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_ACCEPT_SIZE + ZL_PACKET_TAG_SIZE];
    uint8_t *payload = packet + ZL_PACKET_HEADER_SIZE;
    uint8_t nonce[ZL_XAEAD_NONCE_SIZE];
    const zl_conn *c = &s->slot[slot].conn;
    zl_msg_accept a;
    int n;
    a.nonce = c->nonce;
    a.slot = (uint16_t)slot;
    a.tick_rate = s->config.tick_rate;
    a.server_tick = s->tick;
    a.settings = s->slot[slot].settings;
    n = zl_msg_write(ZL_MSG_ACCEPT, payload, ZL_ACCEPT_SIZE, &a);
    /* A sealed connection's key is its token's: the ACCEPT is tagged. */
    if (c->sealed) {
        zl_conn_reply_nonce(nonce, ZL_MSG_ACCEPT, cookie, a.server_tick);
        n = zl_conn_tag_reply(payload, n, c->send_key, nonce);
    }
    zl_conn_send_unlinked(&s->out, &c->peer, ZL_MSG_ACCEPT, packet, n);
}

/* grant: the token's (NULL on a plain server). */
static void connect_client(zl_server *s, int slot, const zl_addr *from, const handshake *hs,
                           const zl_token_grant *grant, uint64_t now_us)
{
    zl_server_slot *c = &s->slot[slot];
    memset(c, 0, sizeof *c);
    c->connected = 1;
    zl_conn_init(&c->conn, &s->out, from, hs->nonce);
    note_slot_port(s, slot);
    zl_conn_start_link(&c->conn, now_us);
    c->timeout_us = s->config.timeout_us;
    if (grant) {
        /* We send with the server's key and open with the client's. */
        zl_conn_seal_with(&c->conn, grant->server_key, grant->client_key, &s->config.aead, 1);
        c->client_id = grant->client_id;
        memcpy(c->user_data, grant->user_data, sizeof c->user_data);
        if (grant->timeout_s > 0 && grant->timeout_s < 3600u)
            c->timeout_us = grant->timeout_s * 1000000u;
    }
    c->settings = hs->settings;
    zl_client_settings_clamp(&c->settings, &s->config.limits);
    c->joined_us = now_us;
    c->last_heard_us = now_us;
    c->next_snapshot_us = now_us;
    c->rate_us = now_us;
    zl_ratelimit_bucket_init(&c->packets, s->config.packet_burst, now_us);
    c->peer_heard_us = now_us;
    zl_ratelimit_bucket_init(&c->message_packets, s->config.message_burst, now_us);
    zl_reliable_init(&c->reliable);
    /* The client's first command is sequence 1 (zl_client.h). */
    zl_cmdbuf_init(&c->commands, &s->config.cmdbuf, 1);
    zl_snapshot_client_reset(&c->snapshot);
    zl_event_sender_reset(&c->events, &s->event_log);
    zl_server_blocks_join(s, slot);
    memset(player_at(s, slot), 0, s->game.player_schema->size);
    s->game.player_join(s->game.ctx, player_at(s, slot), slot);
    s->present[slot] = 1;
    if (s->record)
        zl_record_join(s->record, slot);
    notify(s, ZL_NOTICE_JOIN, 0, slot);
}

/* Slots held by the source address of a, whatever their ports. */
static uint32_t slots_held(const zl_server *s, const zl_addr *a)
{
    uint8_t key[ZL_RATELIMIT_SOURCE_MAX], other[ZL_RATELIMIT_SOURCE_MAX];
    size_t n = zl_ratelimit_source(a, key);
    uint32_t held = 0;
    int i;
    for (i = 0; i < s->config.max_clients; i++)
        held += (uint32_t)(s->slot[i].connected &&
                           zl_ratelimit_source(&s->slot[i].conn.peer, other) == n &&
                           memcmp(key, other, n) == 0);
    return held;
}

static void on_response(zl_server *s, const zl_addr *from, const handshake *hs, uint64_t now_us)
{
    zl_token_grant grant;
    int slot, crowded;
    if (!zl_cookie_check(s->cookie_secret, from, now_us, hs->window, hs->nonce, hs->cookie)) {
        s->dropped[ZL_SERVER_DROP_COOKIE]++;
        return;
    }
    slot = find_slot(s, from);
    if (slot >= 0) {
        /* Our ACCEPT was lost and the client asks again; a different nonce
         * is a new attempt from a client that has not seen its old
         * connection end: it waits for the timeout like anyone else. */
        if (s->slot[slot].conn.nonce == hs->nonce)
            send_accept(s, slot, hs->cookie);
        else
            s->dropped[ZL_SERVER_DROP_NONCE]++;
        return;
    }
    if (!admitted(s, from, hs, now_us, &grant))
        return;
    slot = free_slot_index(s);
    if (s->closed)
        slot = -1;
    crowded = slot >= 0 && slots_held(s, from) >= s->config.max_per_address;
    if (slot < 0 || crowded) {
        s->dropped[crowded ? ZL_SERVER_DROP_CROWDED : ZL_SERVER_DROP_FULL]++;
        send_deny(s, from, hs->nonce, ZL_DENY_FULL);
    } else {
        if (hs->token)
            zl_token_cache_add(&s->tokens, hs->token->nonce, from, hs->token->expire_s,
                               unix_now_s(s, now_us));
        connect_client(s, slot, from, hs, hs->token ? &grant : NULL, now_us);
        send_accept(s, slot, hs->cookie);
    }
    zl_crypto_wipe(&grant, sizeof grant);
}

static void on_commands(zl_server *s, zl_server_slot *c, const uint8_t *payload, size_t len,
                        uint64_t now_us)
{
    zl_usercmd cmds[ZL_CMDSTREAM_MAX_PER_PACKET];
    zl_commands_header head;
    zl_bitreader r;
    int n;
    zl_bitreader_init(&r, payload, len);
    zl_commands_header_read(&r, &head);
    n = zl_cmdstream_read(&r, &s->usercmd_plan, zl_cmdbuf_newest(&c->commands), cmds,
                          ZL_CMDSTREAM_MAX_PER_PACKET);
    if (n < 0) {
        c->bad_messages++;
        return;
    }
    c->commanded |= n > 0;
    c->full_requested |= head.need_full;
    c->view_delay_us = view_delay_cap(s, c, head.view_delay_us);
    zl_cmdbuf_push(&c->commands, cmds, n, now_us);
}

/* A datagram sealed for slot's connection, header h. */
static void on_linked(zl_server *s, int slot, const zl_conn_datagram *d, size_t len,
                      uint64_t now_us)
{
    zl_server_slot *c = &s->slot[slot];
    const zl_packet_header *h = &d->h;
    const uint8_t *payload = d->payload;
    size_t payload_len = d->payload_len;
    zl_link_acks acks;
    zl_packet_drop why;
    uint32_t i;
    uint8_t type = h->type;
    /* Authenticated (the conn), then refused if replayed (the link), and
     * only then charged: a replay of the client's own packets, from its own
     * address, costs it nothing. A packet over the allowances is refused
     * before the link records it, so it is not acknowledged: what it
     * carried (a reliable message, new settings) is sent again. */
    why = zl_link_check(&c->conn.link, h->sequence);
    if (why != ZL_PACKET_DROP_NONE) {
        zl_link_count_drop(&c->conn.link, why);
        return;
    }
    if (!zl_ratelimit_bucket_take(&c->packets, s->config.packet_rate, s->config.packet_burst,
                                  now_us)) {
        c->flooded++;
        return;
    }
    if (h->type == ZL_MSG_RELIABLE &&
        !zl_ratelimit_bucket_take(&c->message_packets, s->config.message_rate,
                                  s->config.message_burst, now_us)) {
        c->messages_flooded++;
        return;
    }
    /* Chunks of a block the slot cannot take yet are refused unacknowledged
     * (zl_block.h), so the client sends them again; counted in its blocks. */
    if (type == ZL_MSG_BLOCK &&
        zl_blocks_check(&c->blocks, payload, payload_len, ZL_MSG_COMMANDS) != ZL_OK)
        return;
    zl_link_accept(&c->conn.link, h, len, now_us, &acks);
    c->last_heard_us = now_us;
    if (zl_link_acks_unsent(&c->conn.link, h))
        c->forged_acks++;
    for (i = 0; i < acks.count; i++) {
        zl_snapshot_acked(&c->snapshot, acks.sequence[i]);
        zl_event_sender_acked(&c->events, acks.sequence[i]);
        if (c->match_pending && match_acked(c, acks.sequence[i]))
            c->match_pending = 0; /* its snapshots start at the next tick */
    }
    zl_reliable_acked(&c->reliable, &acks);
    if (zl_blocks_acked(&c->blocks, &acks))
        notify(s, ZL_NOTICE_BLOCK_SENT, 0, slot);
    if (type == ZL_MSG_BLOCK && zl_blocks_unwrap(&c->blocks, &type, &payload, &payload_len))
        notify(s, ZL_NOTICE_BLOCK_RECEIVED, 0, slot);
    switch (type) {
    case ZL_MSG_COMMANDS:
        on_commands(s, c, payload, payload_len, now_us);
        break;
    case ZL_MSG_KEEPALIVE:
    case ZL_MSG_PATH_RESPONSE: /* from the address it holds: nothing to move */
        break;
    case ZL_MSG_RELIABLE: {
        zl_bitreader r;
        zl_bitreader_init(&r, payload, payload_len);
        if (zl_reliable_read(&c->reliable, &r) != ZL_OK)
            c->bad_messages++;
        break;
    }
    case ZL_MSG_SETTINGS: {
        zl_msg_settings m;
        if (zl_msg_read(ZL_MSG_SETTINGS, payload, payload_len, &m) != ZL_OK ||
            m.nonce != c->conn.nonce) {
            c->bad_messages++;
            break;
        }
        c->settings = m.settings;
        zl_client_settings_clamp(&c->settings, &s->config.limits);
        break;
    }
    case ZL_MSG_DISCONNECT: {
        zl_msg_disconnect m;
        if (zl_msg_read(ZL_MSG_DISCONNECT, payload, payload_len, &m) != ZL_OK ||
            m.nonce != c->conn.nonce) {
            c->bad_messages++;
            break;
        }
        free_slot(s, slot, ZL_DISCONNECT_QUIT);
        break;
    }
    default:
        c->bad_messages++;
        break;
    }
}

/* A connectionless message (header h) from `from`, in slot `slot` (-1: none). */
static void on_unlinked(zl_server *s, int slot, const zl_addr *from, const zl_packet_header *h,
                        const uint8_t *payload, size_t len, uint64_t now_us)
{
    int request = h->type == ZL_MSG_REQUEST || h->type == ZL_MSG_TOKEN_REQUEST;
    int response = h->type == ZL_MSG_RESPONSE || h->type == ZL_MSG_TOKEN_RESPONSE;
    if (request || response) {
        handshake_msg m;
        handshake hs;
        /* A request meets the rate limit before any reply or work, even
         * reading it: a DENY is a reply too, a token request has hundreds
         * of bytes to read, and opening its token costs a decryption. */
        if (request && !zl_ratelimit_allow(&s->limiter, from, now_us))
            s->dropped[ZL_SERVER_DROP_RATE]++;
        else if (!read_handshake(h->type, payload, len, &m, &hs))
            s->dropped[ZL_SERVER_DROP_MESSAGE]++;
        else if (request)
            on_request(s, from, &hs, now_us);
        else
            on_response(s, from, &hs, now_us);
    } else if (slot < 0)
        s->dropped[ZL_SERVER_DROP_STRANGER]++;
    else
        s->dropped[ZL_SERVER_DROP_MESSAGE]++;
}

/* 1 when a datagram from an address without a slot is sealed for the
 * connection that last held a slot from that address: its goodbye
 * repeated, or a packet in flight when it ended. A freed slot keeps its
 * connection until the slot is taken again. A sealed one is recognised by
 * its clear id alone: it is only counted, never read. */
static int ended_connection(const zl_server *s, const zl_addr *from, const uint8_t *packet,
                            size_t len)
{
    zl_packet_header h;
    zl_packet_near near;
    uint32_t id;
    int i;
    for (i = 0; i < s->config.max_clients; i++) {
        const zl_conn *c = &s->slot[i].conn;
        if (s->slot[i].connected || !zl_addr_equal(&c->peer, from))
            continue;
        near = zl_link_near(&c->link);
        if (c->sealed ? zl_packet_sealed_id(packet, len, &id) && id == c->link_id
                      : zl_packet_open(packet, len, c->link_id, &near, &h, NULL) >= 0)
            return 1;
    }
    return 0;
}

/* ---- Moves: a connection's client at a new address ----
 * A NAT may give a client a new address mid-match (WireGuard and QUIC
 * follow such a client). Authentication alone cannot decide a move: a
 * copy of the client's own fresh packet, raced from elsewhere by someone
 * who can read the traffic, authenticates too. So, as QUIC validates a
 * path, the connection moves only when the new address has answered a
 * challenge sealed for the client, and only while the old address is
 * silent: an attacker's copies never silence the client's originals.
 * Meanwhile what arrives from the new address is taken (it authenticated)
 * and replies still go to the old one. */

/* Silence of the old address before a new one is challenged, and between
 * two challenges to one address. */
#define PATH_SILENCE_US 100000u
#define PATH_RETRY_US 100000u
/* Authentication tries one other address may spend: a rebound client's
 * packets at its command rate get through, and junk sent with the
 * connection's id from many addresses costs each of them, not the client. */
#define PATH_TRIES_RATE 128u
#define PATH_TRIES_BURST 16u

/* The entry of `from` among c's other addresses; a new address takes a
 * free entry, else the least recently heard one that never authenticated
 * (junk), else the least recently heard. A new entry starts with one try:
 * a stream of new addresses buys one authentication each. */
static zl_server_path *path_of(zl_server_slot *c, const zl_addr *from, uint64_t now_us)
{
    zl_server_path *p = NULL;
    int i;
    for (i = 0; i < ZL_SERVER_PATHS; i++) {
        zl_server_path *q = &c->path[i];
        if (q->used && zl_addr_equal(&q->addr, from))
            return q;
        if (!p || !q->used || (p->used && (q->proven < p->proven ||
                                           (q->proven == p->proven && q->seen_us < p->seen_us))))
            p = q;
    }
    memset(p, 0, sizeof *p);
    p->used = 1;
    p->addr = *from;
    zl_ratelimit_bucket_init(&p->tries, 1, now_us);
    return p;
}

/* A challenge's token: unguessable without the server's secret, new for
 * every challenge (the time), never 0 (which means none). */
static uint64_t path_token(const zl_server *s, const zl_server_slot *c, uint64_t now_us)
{
    uint64_t in[2], token;
    in[0] = c->conn.nonce;
    in[1] = now_us;
    token = zl_siphash_digest(s->cookie_secret, in, sizeof in);
    return token ? token : 1u;
}

static void challenge_path(zl_server *s, zl_server_slot *c, zl_server_path *p, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_PATH_SIZE + ZL_PACKET_TAG_SIZE];
    zl_msg_path m;
    if (now_us - c->peer_heard_us < PATH_SILENCE_US ||
        (p->token && now_us - p->challenged_us < PATH_RETRY_US))
        return;
    m.nonce = c->conn.nonce;
    m.token = path_token(s, c, now_us);
    p->token = m.token;
    p->challenged_us = now_us;
    c->path_challenges++;
    zl_conn_send_to(&c->conn, &p->addr, ZL_MSG_PATH_CHALLENGE, packet,
                    zl_msg_write(ZL_MSG_PATH_CHALLENGE, packet + ZL_PACKET_HEADER_SIZE,
                                 ZL_PATH_SIZE, &m),
                    now_us);
}

/* A PATH_RESPONSE from p: the connection moves there when it echoes the
 * token p was sent and the old address has said nothing since. */
static void on_path_response(zl_server *s, int slot, zl_server_path *p,
                             const zl_conn_datagram *d)
{
    zl_server_slot *c = &s->slot[slot];
    zl_msg_path m;
    if (zl_msg_read(ZL_MSG_PATH_RESPONSE, d->payload, d->payload_len, &m) != ZL_OK ||
        m.nonce != c->conn.nonce) {
        c->bad_messages++;
        return;
    }
    if (!p->token || m.token != p->token)
        return; /* an older challenge's answer, or one to another address */
    if (c->peer_heard_us >= p->challenged_us) {
        c->moves_refused++;
        p->token = 0;
        return;
    }
    c->conn.peer = p->addr;
    c->peer_heard_us = p->seen_us;
    memset(c->path, 0, sizeof c->path);
    note_slot_port(s, slot);
    c->moves++;
}

/* A datagram from an address no connection has, carrying a connection's
 * id in clear: 1 when it was that connection's business (taken, or
 * counted by it), 0 when no connection has that id. */
static int other_path(zl_server *s, const zl_addr *from, uint8_t *packet, size_t len,
                      uint64_t now_us)
{
    zl_conn_datagram d;
    zl_server_path *p;
    uint32_t id;
    int i;
    if (s->config.security != ZL_SECURITY_TOKENS || !zl_packet_sealed_id(packet, len, &id))
        return 0;
    for (i = 0; i < s->config.max_clients; i++)
        if (s->slot[i].connected && s->slot[i].conn.link_id == id)
            break;
    if (i == s->config.max_clients)
        return 0;
    p = path_of(&s->slot[i], from, now_us);
    p->seen_us = now_us;
    if (!zl_ratelimit_bucket_take(&p->tries, PATH_TRIES_RATE, PATH_TRIES_BURST, now_us)) {
        s->slot[i].path_limited++;
        return 1;
    }
    if (zl_conn_open(&s->slot[i].conn, 1, packet, len, &d) != ZL_CONN_LINKED)
        return 1; /* counted in the connection's seal.forged */
    p->proven = 1;
    if (d.h.type == ZL_MSG_PATH_RESPONSE)
        on_path_response(s, i, p, &d);
    else
        challenge_path(s, &s->slot[i], p, now_us);
    on_linked(s, i, &d, len, now_us);
    return 1;
}

/* zl_server_receive, opening with the keystream head made ahead in *a
 * when it fits (a may be NULL). */
static void receive(zl_server *s, const zl_addr *from, void *data, size_t len, uint64_t now_us,
                    const zl_aead_ahead *a)
{
    uint8_t *packet = (uint8_t *)data;
    zl_conn_datagram d;
    int slot, kind, at;
    ZL_ASSERT(s && from && (data || len == 0));
    slot = find_slot(s, from);
    if (slot < 0) {
        at = zl_packet_open(packet, len, ZL_PROTOCOL_ID, NULL, &d.h, NULL);
        if (at >= 0)
            on_unlinked(s, slot, from, &d.h, packet + at, len - (size_t)at, now_us);
        else if (other_path(s, from, packet, len, now_us))
            ;
        else if (ended_connection(s, from, packet, len))
            s->dropped[ZL_SERVER_DROP_LATE]++;
        else
            s->dropped[ZL_SERVER_DROP_PACKET]++;
        return;
    }
    /* Only datagrams sealed for this connection reach its link and spend
     * its allowance: a blind spoofer of the address cannot use it up. */
    kind = zl_conn_open_ahead(&s->slot[slot].conn, 1, packet, len, &d, a);
    if (kind == ZL_CONN_LINKED) {
        s->slot[slot].peer_heard_us = now_us;
        on_linked(s, slot, &d, len, now_us);
    }
    else if (kind == ZL_CONN_UNLINKED)
        on_unlinked(s, slot, from, &d.h, d.payload, d.payload_len, now_us);
}

void zl_server_receive(zl_server *s, const zl_addr *from, void *data, size_t len,
                       uint64_t now_us)
{
    receive(s, from, data, len, now_us, NULL);
}

void zl_server_receive_many(zl_server *s, const zl_server_datagram *d, size_t n,
                            uint64_t now_us)
{
    zl_aead_ahead ahead[ZL_AEAD_LANES_MAX];
    int at[ZL_AEAD_LANES_MAX], slot;
    size_t i, j, k, made;
    ZL_ASSERT(s && (d || n == 0));
    /* Plain connections seal nothing, and heads made one at a time save
     * nothing: each datagram as zl_server_receive takes it. */
    if (s->config.security != ZL_SECURITY_TOKENS || zl_aead_ahead_lanes() < 2) {
        for (i = 0; i < n; i++)
            receive(s, &d[i].from, d[i].data, d[i].len, now_us, NULL);
        return;
    }
    for (i = 0; i < n; i += k) {
        k = n - i < ZL_AEAD_LANES_MAX ? n - i : ZL_AEAD_LANES_MAX;
        /* The keys and nonces the opens will take, as the connections
         * stand before the first of these datagrams; made in one pass. */
        made = 0;
        for (j = 0; j < k; j++) {
            slot = find_slot(s, &d[i + j].from);
            at[j] = -1;
            if (slot >= 0 && zl_conn_ahead(&s->slot[slot].conn, (const uint8_t *)d[i + j].data,
                                           d[i + j].len, &ahead[made]))
                at[j] = (int)made++;
        }
        zl_aead_ahead_make(ahead, made);
        for (j = 0; j < k; j++)
            receive(s, &d[i + j].from, d[i + j].data, d[i + j].len, now_us,
                    at[j] >= 0 ? &ahead[at[j]] : NULL);
        zl_crypto_wipe(ahead, made * sizeof ahead[0]);
    }
}

/* ---- The tick ---- */

typedef struct shot_context {
    zl_server *s;
    int slot;
    const zl_usercmd *cmd;
    int timed;            /* 1 once `when` is worked out */
    zl_lagcomp_time when;
    int32_t target;
} shot_context;

/* The time a command's shots are traced at, worked out at its first shot
 * (a command that only walked costs nothing) and counted by what became
 * of the render time the command claimed. */
static void time_shots(shot_context *sc)
{
    zl_server *s = sc->s;
    zl_server_slot *c = &s->slot[sc->slot];
    zl_link_stats ls;
    zl_cmdbuf_stats cs;
    uint8_t flags;
    sc->timed = 1;
    if (!s->config.lag_compensation) {
        zl_lagcomp_present(&s->lagcomp, &sc->when);
        return;
    }
    zl_link_get_stats(&c->conn.link, c->last_heard_us, &ls);
    zl_cmdbuf_get_stats(&c->commands, &cs);
    /* The client drew a round trip behind the present (its snapshot clock
     * lags by the way down, its command took the way up), plus the time
     * the command waited in the input buffer, plus its interpolation
     * delay. A refused claim leaves the present in `when`. */
    zl_lagcomp_target(&s->lagcomp, sc->cmd, ls.rtt_us + cs.depth_us, c->view_delay_us,
                      &sc->when);
    flags = sc->when.flags;
    c->rewinds++;
    c->rewinds_untrusted += (uint32_t)((flags & ZL_LAGCOMP_FALLBACK) != 0);
    c->rewinds_clamped += (uint32_t)((flags & ZL_LAGCOMP_CLAMPED) != 0);
    c->rewinds_refused += (uint32_t)((flags & ZL_LAGCOMP_REFUSED) != 0);
}

static int trace_shot(void *ctx, const zl_vec3 *start, const zl_vec3 *end, int32_t shooter,
                      zl_trace *out)
{
    shot_context *sc = (shot_context *)ctx;
    int r;
    zl_server *s = sc->s;
    zl_server_shot *kept = NULL;
    if (!sc->timed)
        time_shots(sc);
    if (s->shot_count < ZL_SERVER_SHOTS) {
        kept = &s->shot[s->shot_count++];
        kept->shooter = shooter;
        kept->sequence = sc->cmd->sequence;
    } else {
        s->shots_unkept++;
    }
    r = zl_lagcomp_trace(&s->lagcomp, &sc->when, start, end, shooter, out,
                         kept ? &kept->hit : NULL);
    if (r > 0 && out->entity >= 0)
        sc->target = out->entity;
    return r;
}

/* Server-side results of the events one command pushed (shots traced as
 * the shooter saw the world). Returns 1 with *when set when its shots were
 * traced, else 0. */
static int resolve_command_events(zl_server *s, int slot, const zl_usercmd *cmd, uint32_t first,
                                  zl_lagcomp_time *when)
{
    zl_server_slot *c = &s->slot[slot];
    shot_context sc;
    zl_shot_tracer tracer;
    uint32_t i, last = s->events.count;
    if (first == last)
        return 0;
    sc.s = s;
    sc.slot = slot;
    sc.cmd = cmd;
    sc.timed = 0;
    sc.target = -1;
    tracer.ctx = &sc;
    tracer.trace = trace_shot;
    for (i = first; i < last; i++) {
        zl_event ev = s->events.items[i];
        s->events.source = slot;
        s->game.resolve_event(s->game.ctx, &ev, s->players, s->config.max_clients, &tracer,
                              &s->events);
    }
    if (sc.target >= 0)
        c->hits++;
    if (sc.timed)
        *when = sc.when;
    return sc.timed;
}

static void run_commands(zl_server *s, int slot)
{
    zl_server_slot *c = &s->slot[slot];
    zl_usercmd cmds[ZL_CMDBUF_CAPACITY];
    int n = zl_cmdbuf_pop(&c->commands, s->tick_us, cmds, (int)ZL_COUNTOF(cmds));
    int i, traced;
    zl_lagcomp_time when;
    for (i = 0; i < n; i++) {
        uint32_t first = s->events.count, k;
        s->events.source = slot;
        s->game.run_command(s->game.ctx, player_at(s, slot), &cmds[i], player_at(s, slot), 1,
                            &s->events);
        for (k = first; k < s->events.count; k++)
            s->event_predicted[k] = 1;
        c->executed = cmds[i].sequence;
        traced = resolve_command_events(s, slot, &cmds[i], first, &when);
        if (s->record)
            zl_record_command(s->record, slot, &cmds[i], traced ? &when : NULL);
    }
}

static void record_world(zl_server *s)
{
    int i;
    zl_snapshot_world_begin(&s->world, s->tick);
    for (i = 0; i < s->config.max_clients; i++)
        if (s->slot[i].connected)
            zl_snapshot_world_set_quantized(&s->world, &s->layout, (uint16_t)i, player_at(s, i));
    for (i = 0; i < s->game.max_entities; i++)
        if (s->game.entity_state(s->game.ctx, i, s->scratch))
            zl_snapshot_world_set_quantized(&s->world, &s->layout,
                                            (uint16_t)(ZL_MAX_CLIENTS + i), s->scratch);
}

/* Ticks an event waits for its acknowledgement before it goes again: the
 * round trip with four deviations (TCP's retransmission timeout), plus the
 * wait for the client's next command packet, which carries the ack. */
static uint32_t event_resend_ticks(const zl_server *s, const zl_server_slot *c)
{
    const zl_link *l = &c->conn.link;
    uint32_t wait_us = l->srtt8 / 8u + l->rttvar4 + 1000000u / c->settings.cmdrate;
    return wait_us / s->tick_us + 1u;
}

/* ---- Snapshots sealed side by side ---- */

/* The AEAD's seal while a snapshot is framed for s->seals (ctx): keeps
 * the job, with copies of the aad and nonce, for seal_and_send, and
 * returns the length the seal will have. */
static int seal_later(void *ctx, uint8_t *out, size_t out_cap, const uint8_t *in, size_t len,
                      const uint8_t *aad, size_t aad_len, const uint8_t nonce[ZL_AEAD_NONCE_SIZE],
                      const uint8_t key[ZL_AEAD_KEY_SIZE])
{
    zl_server_seals *b = (zl_server_seals *)ctx;
    zl_aead_seal_job *j = &b->job[b->count];
    ZL_ASSERT(aad_len <= sizeof b->aad[0] && len <= ZL_PACKET_MAX_PAYLOAD);
    if (out_cap < len + ZL_AEAD_TAG_SIZE)
        return ZL_ERR_OVERFLOW;
    memcpy(b->aad[b->count], aad, aad_len);
    memcpy(b->nonce[b->count], nonce, ZL_AEAD_NONCE_SIZE);
    j->out = out;
    j->out_cap = out_cap;
    j->in = in;
    j->len = len;
    j->aad = b->aad[b->count];
    j->aad_len = aad_len;
    j->nonce = b->nonce[b->count];
    j->key = key;
    return (int)(len + ZL_AEAD_TAG_SIZE);
}

/* The send while a snapshot is framed for s->seals (ctx): takes the
 * packet seal_later kept into the batch. */
static int send_later(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_server_seals *b = (zl_server_seals *)ctx;
    ZL_ASSERT(data == b->packet[b->count]);
    b->to[b->count] = *to;
    b->len[b->count] = len;
    b->count++;
    return (int)len;
}

/* Seals the snapshots waiting in s->seals side by side, then sends them
 * in the order they were framed. */
static void seal_and_send(zl_server *s)
{
    zl_server_seals *b = &s->seals;
    size_t i;
    zl_chacha20poly1305_seal_many(b->job, b->count);
    for (i = 0; i < b->count; i++) {
        ZL_ASSERT(b->job[i].result >= 0);
        s->out.send(s->out.ctx, &b->to[i], b->packet[i], b->len[i]);
    }
    b->count = 0;
}

/* 1 when slot c's snapshot waits to be sealed beside others': where
 * ChaCha20 has vector lanes and the connection seals with the built-in
 * AEAD (a port's own engine seals each packet as before). */
static int seals_later(const zl_server_slot *c)
{
    return ZL_SERVER_SEALS > 1 && c->conn.sealed && zl_aead_is_default(&c->conn.aead) &&
           zl_aead_ahead_lanes() > 1;
}

/* zl_conn_send of a snapshot framed in packet: sealed and sent at once,
 * or (packet being the next of s->seals) kept for seal_and_send. */
static int send_framed(zl_server *s, zl_server_slot *c, uint8_t type, uint8_t *packet, int sent,
                       uint64_t now_us)
{
    zl_aead aead = c->conn.aead;
    zl_sender out = c->conn.out;
    int len;
    if (packet != s->seals.packet[s->seals.count])
        return zl_conn_send(&c->conn, type, packet, sent, now_us);
    c->conn.aead.ctx = &s->seals;
    c->conn.aead.seal = seal_later;
    c->conn.out.ctx = &s->seals;
    c->conn.out.send = send_later;
    len = zl_conn_send(&c->conn, type, packet, sent, now_us);
    c->conn.aead = aead;
    c->conn.out = out;
    if (s->seals.count == ZL_SERVER_SEALS)
        seal_and_send(s);
    return len;
}

static void send_snapshot(zl_server *s, int slot, const uint16_t *ids, int count,
                          const uint32_t *priority, uint64_t now_us)
{
    zl_server_slot *c = &s->slot[slot];
    uint8_t relevant[ZL_SNAPSHOT_BITMAP_BYTES];
    zl_snapshot_events events;
    uint8_t own[ZL_MAX_PACKET];
    uint8_t *packet = seals_later(c) ? s->seals.packet[s->seals.count] : own;
    zl_bitwriter w;
    int64_t budget;
    int bits;
    /* The byte rate tops up a credit; a snapshot due while it is spent is
     * choked (skipped and counted), never queued. At most one full packet
     * is banked, so silence cannot buy a burst. */
    c->rate_credit += (int64_t)((now_us - c->rate_us) * c->settings.rate / 1000000u);
    c->rate_us = now_us;
    if (c->rate_credit > ZL_MAX_PACKET)
        c->rate_credit = ZL_MAX_PACKET;
    if (c->rate_credit <= 0) {
        c->choked++;
        return;
    }
    /* The credit pays for the whole datagram: header and tag included. */
    budget = c->rate_credit - (int64_t)zl_conn_overhead(&c->conn);
    if (budget <= 0) {
        c->choked++;
        return;
    }
    if (budget > ZL_PACKET_MAX_PAYLOAD)
        budget = ZL_PACKET_MAX_PAYLOAD;
    if (c->full_requested) {
        zl_snapshot_client_reset(&c->snapshot);
        c->full_requested = 0;
    }
    events.sender = &c->events;
    events.log = &s->event_log;
    events.audience.client = slot;
    events.audience.relevant = NULL;
    events.resend_ticks = event_resend_ticks(s, c);
    events.game = &s->game;
    events.plan = &s->event_plan;
    if (s->game.relevance) {
        int i;
        memset(relevant, 0, sizeof relevant);
        for (i = 0; i < count; i++)
            relevant[ids[i] >> 3] |= (uint8_t)(1u << (ids[i] & 7u));
        events.audience.relevant = relevant;
    }
    zl_bitwriter_init(&w, packet + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
    bits = zl_snapshot_message_write(&c->snapshot, &s->world, &s->layout, s->tick, c->executed,
                                     ids, count, priority, (uint16_t)slot,
                                     s->game.event_schema ? &events : NULL,
                                     (uint32_t)budget * 8u, zl_link_next_sequence(&c->conn.link),
                                     &w);
    if (bits < 0) {
        c->choked++;
        return;
    }
    {
        int sent = zl_bitwriter_finish(&w), len;
        uint8_t type = zl_server_blocks_attach(s, slot, packet + ZL_PACKET_HEADER_SIZE, &sent,
                                               now_us);
        len = send_framed(s, c, type, packet, sent, now_us);
        if (len < 0)
            return;
        c->rate_credit -= len;
        c->last_snapshot_bytes = (uint32_t)len;
        c->snapshots++;
    }
}

static void send_snapshots(zl_server *s, uint64_t now_us)
{
    uint16_t ids[ZL_MAX_ENTITIES];
    uint32_t priority[ZL_MAX_ENTITIES];
    int count, i;
    for (i = 0; i < s->config.max_clients; i++) {
        zl_server_slot *c = &s->slot[i];
        if (c->connected && c->match_pending) {
            /* The new match's snapshots wait until the client has left the
             * old one: the notice goes again instead. */
            if (now_us >= c->match_next_us) {
                seal_and_send(s); /* the datagrams leave in order */
                send_match(s, i, now_us);
            }
            continue;
        }
        if (!c->connected || now_us < c->next_snapshot_us)
            continue;
        if (s->game.relevance) {
            count = s->game.relevance(s->game.ctx, s->tick, s->players, s->present,
                                      s->config.max_clients, i, ids, priority, ZL_MAX_ENTITIES);
            ZL_ASSERT(count >= 0 && count <= ZL_MAX_ENTITIES);
            send_snapshot(s, i, ids, count, priority, now_us);
        } else {
            send_snapshot(s, i, NULL, 0, NULL, now_us); /* every entity the world holds */
        }
        c->next_snapshot_us += 1000000u / c->settings.updaterate;
        if (c->next_snapshot_us < now_us)
            c->next_snapshot_us = now_us; /* fell behind: no burst of catch-up */
    }
    seal_and_send(s);
}

/* A RELIABLE packet to every client with messages due. */
static void send_messages(zl_server *s, uint64_t now_us)
{
    int i;
    for (i = 0; i < s->config.max_clients; i++) {
        zl_server_slot *c = &s->slot[i];
        if (c->connected)
            zl_conn_send_messages(&c->conn, &c->reliable, now_us);
    }
}

/* The tick's events the game shares, into the log clients are sent. */
static void log_events(zl_server *s)
{
    uint32_t i;
    for (i = 0; i < s->events.count; i++) {
        const zl_event *ev = &s->events.items[i];
        if (s->game.event_schema && (!s->game.share_event || s->game.share_event(s->game.ctx, ev)))
            zl_event_log_append(&s->event_log, &s->event_plan, ev, s->event_predicted[i]);
        s->event_predicted[i] = 0;
    }
}

static void run_tick(zl_server *s, uint64_t now_us)
{
    int i;
    s->tick++;
    zl_events_clear(&s->events);
    s->events.tick = s->tick;
    s->shot_count = 0;
    for (i = 0; i < s->config.max_clients; i++)
        if (s->slot[i].connected)
            run_commands(s, i);
    s->events.source = -1;
    s->game.tick_entities(s->game.ctx, s->players, s->config.max_clients,
                          (s->tick_us + 500u) / 1000u, &s->events);
    if (s->record)
        zl_record_tick(s->record);
    log_events(s);
    zl_lagcomp_record(&s->lagcomp, s->tick, s->players, s->present, s->config.max_clients);
    record_world(s);
    send_snapshots(s, now_us);
    zl_server_blocks_send(s, now_us);
    send_messages(s, now_us);
}

int zl_server_update(zl_server *s, uint64_t now_us)
{
    int ticks = 0, i;
    ZL_ASSERT(s);
    for (i = 0; i < s->config.max_clients; i++) {
        zl_server_slot *c = &s->slot[i];
        if (!c->connected)
            continue;
        if (now_us - c->last_heard_us > c->timeout_us) {
            zl_server_disconnect(s, i, ZL_DISCONNECT_TIMEOUT, now_us);
        } else if (!c->commanded && s->config.grace_us &&
                   now_us - c->joined_us > s->config.grace_us) {
            s->dropped[ZL_SERVER_DROP_SILENT]++;
            zl_server_disconnect(s, i, ZL_DISCONNECT_TIMEOUT, now_us);
        }
    }
    while (now_us >= s->next_tick_us) {
        run_tick(s, now_us);
        s->next_tick_us += s->tick_us;
        ticks++;
    }
    return ticks;
}

int zl_server_next_notice(zl_server *s, zl_server_notice *out)
{
    ZL_ASSERT(s && out);
    if (s->notices_read == s->notices_written)
        return 0;
    *out = s->notice[s->notices_read & (ZL_SERVER_NOTICES - 1)];
    s->notices_read++;
    return 1;
}

const zl_events *zl_server_events(const zl_server *s)
{
    return &s->events;
}

const zl_server_shot *zl_server_shots(const zl_server *s, uint32_t *count, uint32_t *unkept)
{
    ZL_ASSERT(s && count);
    *count = s->shot_count;
    if (unkept)
        *unkept = s->shots_unkept;
    return s->shot;
}

int zl_server_connected(const zl_server *s, int slot)
{
    ZL_ASSERT(s);
    return slot >= 0 && slot < ZL_MAX_CLIENTS && s->slot[slot].connected;
}

int zl_server_send_message(zl_server *s, int slot, const void *data, size_t len)
{
    ZL_ASSERT(s);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    return zl_reliable_send(&s->slot[slot].reliable, data, len);
}

int zl_server_broadcast_message(zl_server *s, const void *data, size_t len)
{
    int i, n = 0;
    ZL_ASSERT(s);
    for (i = 0; i < s->config.max_clients; i++)
        n += s->slot[i].connected && zl_reliable_send(&s->slot[i].reliable, data, len) == ZL_OK;
    return n;
}

int zl_server_receive_message(zl_server *s, int slot, void *buf, size_t cap)
{
    ZL_ASSERT(s);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    return zl_reliable_receive(&s->slot[slot].reliable, buf, cap);
}

uint64_t zl_server_client_id(const zl_server *s, int slot)
{
    return zl_server_connected(s, slot) ? s->slot[slot].client_id : 0u;
}

const uint8_t *zl_server_user_data(const zl_server *s, int slot)
{
    return zl_server_connected(s, slot) && s->config.security == ZL_SECURITY_TOKENS
               ? s->slot[slot].user_data
               : NULL;
}

const void *zl_server_player(const zl_server *s, int slot)
{
    return zl_server_connected(s, slot)
               ? (const void *)((const uint8_t *)s->players +
                                (size_t)slot * s->game.player_schema->size)
               : NULL;
}

int zl_server_get_client_stats(zl_server *s, int slot, uint64_t now_us,
                               zl_server_client_stats *out)
{
    zl_server_slot *c;
    ZL_ASSERT(out);
    if (!zl_server_connected(s, slot))
        return ZL_ERR_INVALID;
    c = &s->slot[slot];
    zl_link_get_stats(&c->conn.link, now_us, &out->link);
    zl_cmdbuf_get_stats(&c->commands, &out->commands);
    out->settings = c->settings;
    out->snapshots = c->snapshots;
    out->choked = c->choked;
    out->last_snapshot_bytes = c->last_snapshot_bytes;
    out->executed = c->executed;
    out->hits = c->hits;
    out->bad_messages = c->bad_messages;
    out->flooded = c->flooded;
    out->forged_acks = c->forged_acks;
    out->address = c->conn.peer;
    out->moves = c->moves;
    out->path_challenges = c->path_challenges;
    out->moves_refused = c->moves_refused;
    out->path_limited = c->path_limited;
    out->messages = c->reliable.stats;
    out->events = c->events.stats;
    out->messages_flooded = c->messages_flooded;
    out->rewinds = c->rewinds;
    out->rewinds_untrusted = c->rewinds_untrusted;
    out->rewinds_clamped = c->rewinds_clamped;
    out->rewinds_refused = c->rewinds_refused;
    zl_conn_get_seal_stats(&c->conn, &out->seal);
    out->blocks = c->blocks.stats;
    return ZL_OK;
}

void zl_server_set_open(zl_server *s, int open)
{
    ZL_ASSERT(s);
    s->closed = open ? 0u : 1u;
}

int zl_server_set_public_addresses(zl_server *s, const zl_addr *addresses, int count)
{
    int i;
    ZL_ASSERT(s && (addresses || count == 0));
    if (count < 1 || count > ZL_TOKEN_ADDRESSES)
        return ZL_ERR_INVALID;
    for (i = 0; i < count; i++)
        if (addresses[i].family != ZL_ADDR_IPV4 && addresses[i].family != ZL_ADDR_IPV6)
            return ZL_ERR_INVALID;
    for (i = 0; i < count; i++)
        s->config.public_addresses[i] = addresses[i];
    s->config.public_address_count = (uint8_t)count;
    return ZL_OK;
}

int zl_server_is_open(const zl_server *s)
{
    return s->closed == 0;
}

uint32_t zl_server_tick(const zl_server *s)
{
    return s->tick;
}

int zl_server_client_count(const zl_server *s)
{
    int i, n = 0;
    for (i = 0; i < s->config.max_clients; i++)
        n += s->slot[i].connected;
    return n;
}

void zl_server_count_oversize(zl_server *s)
{
    ZL_ASSERT(s);
    s->dropped[ZL_SERVER_DROP_OVERSIZE]++;
}

void zl_server_get_drops(const zl_server *s, uint32_t out[ZL_SERVER_DROP_COUNT])
{
    memcpy(out, s->dropped, sizeof s->dropped);
}

/* ---- Match records and the kill cam ---- */

int zl_server_record_start(zl_server *s, zl_record *rec, zl_record_sink sink, void *ctx,
                           const void *config, size_t config_len)
{
    zl_record_header h;
    int i, rc;
    ZL_ASSERT(s && rec && sink && !s->record);
    for (i = 0; i < s->config.max_clients; i++)
        if (s->present[i])
            return ZL_ERR_INVALID;
    if (config_len > ZL_RECORD_CONFIG_MAX)
        return ZL_ERR_INVALID;
    memset(&h, 0, sizeof h);
    h.protocol = (uint8_t)ZL_PROTOCOL_VERSION;
    h.tick_rate = s->config.tick_rate;
    h.max_clients = s->config.max_clients;
    h.state_size = (uint16_t)s->game.player_schema->size;
    h.max_entities = (uint16_t)s->game.max_entities;
    h.lagcomp_ticks = ZL_LAGCOMP_TICKS;
    h.events = ZL_SERVER_EVENTS;
    h.origin_axes = (uint8_t)s->game.origin_axes;
    h.origin_field = (int8_t)s->game.player_origin_field;
    h.teleport_distance = s->config.lagcomp.teleport_distance;
    h.start_tick = s->tick;
    h.config_len = (uint8_t)config_len;
    h.config = (const uint8_t *)config;
    rc = zl_record_begin(rec, &h, sink, ctx);
    if (rc == ZL_OK)
        s->record = rec;
    return rc;
}

uint32_t zl_server_match_hash(zl_server *s)
{
    ZL_ASSERT(s);
    return zl_record_hash(&s->game, s->players, s->present, s->config.max_clients, s->scratch);
}

int zl_server_record_stop(zl_server *s)
{
    zl_record *rec = s->record;
    ZL_ASSERT(s && rec);
    s->record = NULL;
    return zl_record_end(rec, zl_server_match_hash(s));
}

uint32_t zl_server_view_delay(zl_server *s, int viewer)
{
    zl_server_slot *c;
    zl_link_stats ls;
    zl_cmdbuf_stats cs;
    ZL_ASSERT(s && viewer >= 0 && viewer < ZL_MAX_CLIENTS);
    c = &s->slot[viewer];
    if (!c->connected)
        return 0;
    /* The estimate shots fall back to (time_shots). */
    zl_link_get_stats(&c->conn.link, c->last_heard_us, &ls);
    zl_cmdbuf_get_stats(&c->commands, &cs);
    return ls.rtt_us + cs.depth_us + c->view_delay_us;
}

int zl_server_killcam(const zl_server *s, uint32_t tick, uint32_t delay_us, int slot, void *out)
{
    zl_lagcomp_time when;
    uint64_t at;
    ZL_ASSERT(s && out);
    at = (uint64_t)tick * s->tick_us;
    at = at > delay_us ? at - delay_us : 0;
    if (tick > s->tick || zl_lagcomp_time_at(&s->lagcomp, at, &when) != ZL_OK ||
        (when.flags & ZL_LAGCOMP_CLAMPED))
        return ZL_LAGCOMP_ABSENT;
    return zl_lagcomp_state_at(&s->lagcomp, &when, slot, out);
}
