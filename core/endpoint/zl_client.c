/* zl_client.c - the client's side of the protocol: the handshake, snapshots
 * into prediction and interpolation, and commands back at cmdrate. */
#include <stddef.h>
#include <string.h>

#include "zl_bytes.h"
#include "zl_client_blocks.h"
#include "zl_client.h"
#include "zl_client_demo.h"

/* The snapshot timeline: one sample per snapshot, holding only its tick.
 * It never teleports or misses a snapshot, so the pair it picks is the one
 * every entity updated by every snapshot (all players) is drawn from: the
 * pair commands report for lag compensation. */
typedef struct timeline_sample {
    uint32_t tick;
} timeline_sample;
static const zl_field timeline_fields[] = {
    ZL_FIELD_INT(timeline_sample, tick, 0, INT32_MAX, ZL_INTERP_STEP),
};
static const zl_schema timeline_schema = ZL_SCHEMA(timeline_sample, timeline_fields);

void zl_client_config_default(zl_client_config *c)
{
    ZL_ASSERT(c);
    memset(c, 0, sizeof *c);
    zl_client_settings_default(&c->settings);
    c->timeout_us = 5000000u;
    c->resend_us = 100000u;
    c->cmd_backup_ms = 2000u;
    c->extrapolate_us = 250000u;
    zl_clock_settings_default(&c->timeline);
    zl_predict_settings_default(&c->predict);
}

/* Clears the match: everything the client drew, predicted and heard of
 * it. Every connect does, and a new match on the same connection. */
void zl_client_start_match_(zl_client *c)
{
    int i;
    memset(&c->has_player, 0, sizeof *c - offsetof(zl_client, has_player));
    zl_interp_reset(&c->timeline);
    zl_clock_init(&c->clock, &c->config.timeline);
    zl_snapshot_receiver_init(&c->rx);
    zl_event_queue_init(&c->events);
    for (i = 0; i < ZL_MAX_ENTITIES; i++)
        zl_interp_reset(&c->history[i]);
}

/* Clears the session (a connection to `peer` for the attempt `nonce`, not
 * started) and the match: a used client is then what zl_client_init made. */
static void start_session(zl_client *c, const zl_addr *peer, uint64_t nonce)
{
    zl_sender out;
    memset(&c->state, 0, offsetof(zl_client, has_player) - offsetof(zl_client, state));
    out.ctx = c->hal.ctx;
    out.send = c->hal.send;
    zl_conn_init(&c->conn, &out, peer, nonce);
    zl_reliable_init(&c->reliable);
    zl_client_start_match_(c);
}

int zl_client_init_(zl_client *c, const zl_client_config *config, const zl_game *game,
                    const zl_platform *net, uint64_t nonce, uint32_t fingerprint, size_t size)
{
    zl_addr nowhere;
    if (zl_config_check(fingerprint, size, sizeof *c) != ZL_OK)
        return ZL_ERR_CONFIG;
    ZL_ASSERT(c && config && game && net && net->send);
    ZL_ASSERT(config->cmd_backup_ms >= 1u && config->cmd_backup_ms <= 60000u);
    memset(c, 0, sizeof *c);
    c->config = *config;
    c->game = *game;
    c->hal = *net;
    c->nonce = nonce;
    c->config.predict.origin_field = game->player_origin_field;
    c->config.predict.origin_axes = game->origin_axes;
    c->config.predict.teleport_field = game->player_teleport_field;
    /* A schema the plan cannot hold still works through it, walked. */
    zl_schema_plan_init(&c->plan[0], game->player_schema);
    c->config.predict.plan = &c->plan[0];
    zl_interp_config_init(&c->interp_config[0], game->player_schema);
    c->interp_config[0].plan = &c->plan[0];
    c->interp_config[0].origin_field = game->player_origin_field;
    c->interp_config[0].origin_axes = game->origin_axes;
    c->interp_config[0].teleport_field = game->player_teleport_field;
    c->layout.player_schema = game->player_schema;
    c->layout.entity_schema = game->entity_schema;
    c->layout.players = ZL_MAX_CLIENTS;
    c->layout.player_plan = &c->plan[0];
    /* Without an entity schema the snapshot reader refuses entity numbers,
     * so the entity config is never used. */
    if (game->entity_schema) {
        zl_schema_plan_init(&c->plan[1], game->entity_schema);
        zl_interp_config_init(&c->interp_config[1], game->entity_schema);
        c->interp_config[1].plan = &c->plan[1];
        c->interp_config[1].origin_field = game->entity_origin_field;
        c->interp_config[1].origin_axes = game->origin_axes;
        c->interp_config[1].teleport_field = game->entity_teleport_field;
        c->layout.entity_plan = &c->plan[1];
    }
    zl_interp_config_init(&c->timeline_config, &timeline_schema);
    (void)zl_schema_plan_init(&c->cmd_plan, &zl_usercmd_schema);
    memset(&nowhere, 0, sizeof nowhere);
    start_session(c, &nowhere, nonce);
    return ZL_OK;
}

/* The nonce of a connection attempt after the first: fresh bytes from the
 * HAL mixed with the last nonce through SplitMix64's finalizer, a
 * bijection, so a random source that repeats itself (a test double) or
 * fails still moves every client to a nonce it has not just used, and a
 * good one stays as unpredictable as its bytes. */
static uint64_t next_nonce(zl_client *c)
{
    uint8_t bytes[8];
    uint64_t z = c->nonce;
    if (c->hal.random && c->hal.random(c->hal.ctx, bytes, sizeof bytes) == ZL_OK)
        z ^= zl_get_le(bytes, 8);
    z += 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* What the handshake carries of a token: what the server opens it with. */
static void copy_token(zl_msg_token *out, const zl_connect_token *t)
{
    out->expire_s = t->expire_s;
    memcpy(out->nonce, t->nonce, sizeof out->nonce);
    memcpy(out->sealed, t->sealed, sizeof out->sealed);
}

/* REQUEST or RESPONSE, plain or with the token. Each token message is its
 * plain one with the token after the same members, so one union fills both. */
static void send_handshake(zl_client *c)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_TOKEN_REQUEST_SIZE];
    union {
        zl_msg_request request;
        zl_msg_token_request token_request;
        zl_msg_response response;
        zl_msg_token_response token_response;
    } m;
    uint8_t type;
    if (c->state == ZL_CLIENT_REQUESTING) {
        type = c->token ? ZL_MSG_TOKEN_REQUEST : ZL_MSG_REQUEST;
        m.token_request.protocol_id = ZL_PROTOCOL_ID;
        m.token_request.nonce = c->conn.nonce;
        m.token_request.settings = c->config.settings;
        if (c->token)
            copy_token(&m.token_request.token, c->token);
    } else {
        type = c->token ? ZL_MSG_TOKEN_RESPONSE : ZL_MSG_RESPONSE;
        m.token_response.nonce = c->conn.nonce;
        m.token_response.window = c->window;
        m.token_response.cookie = c->cookie;
        m.token_response.settings = c->config.settings;
        if (c->token)
            copy_token(&m.token_response.token, c->token);
    }
    zl_conn_send_unlinked(&c->conn.out, &c->conn.peer, type, packet,
                          zl_msg_write(type, packet + ZL_PACKET_HEADER_SIZE,
                                       sizeof packet - ZL_PACKET_HEADER_SIZE, &m));
}

/* Starts a fresh session and its handshake with `server` (token: NULL for
 * a plain one). A connection still up says goodbye first, so its server
 * frees the slot now rather than at its timeout. */
static void begin_connect(zl_client *c, const zl_addr *server, const zl_connect_token *token,
                          uint64_t now_us)
{
    if (c->state == ZL_CLIENT_CONNECTED)
        zl_conn_disconnect(&c->conn, ZL_DISCONNECT_QUIT, now_us);
    if (c->connects++ > 0)
        c->nonce = next_nonce(c);
    start_session(c, server, c->nonce);
    c->token = token;
    c->state = ZL_CLIENT_REQUESTING;
    c->last_heard_us = now_us;
    c->next_send_us = now_us + c->config.resend_us;
    send_handshake(c);
}

void zl_client_connect(zl_client *c, const zl_addr *server, uint64_t now_us)
{
    ZL_ASSERT(c && server);
    begin_connect(c, server, NULL, now_us);
}

int zl_client_connect_token(zl_client *c, const zl_connect_token *token, uint64_t now_us)
{
    ZL_ASSERT(c && token);
    if (token->address_count < 1 || token->address_count > ZL_TOKEN_ADDRESSES)
        return ZL_ERR_INVALID;
    begin_connect(c, &token->addresses[0], token, now_us);
    return ZL_OK;
}

static void on_accept(zl_client *c, const zl_msg_accept *a, uint64_t now_us)
{
    c->state = ZL_CLIENT_CONNECTED;
    c->slot = a->slot;
    c->tick_rate = a->tick_rate;
    c->tick_us = (1000000u + a->tick_rate / 2u) / a->tick_rate;
    c->settings = a->settings;
    c->next_send_us = now_us;
    zl_conn_start_link(&c->conn, now_us);
    zl_client_blocks_join(c, now_us);
    /* We send with the client's key and open with the server's. */
    if (c->token)
        zl_conn_seal_with(&c->conn, c->token->client_key, c->token->server_key, NULL, 0);
    c->token = NULL; /* the caller may wipe it now */
}

/* The bytes of a reply's message: with a token, all but its tag. */
static size_t reply_body(const zl_client *c, size_t len)
{
    return c->token && len >= ZL_PACKET_TAG_SIZE ? len - ZL_PACKET_TAG_SIZE : len;
}

/* 1 when a reply needs no tag (no token) or carries the right one under
 * the token's server-to-client key (zl_conn_tag_reply): an on-path forger
 * has no token, so its challenges and accepts are dropped like junk. */
static int authentic(const zl_client *c, uint8_t type, const uint8_t *payload, size_t len,
                     uint64_t cookie, uint32_t tick)
{
    uint8_t nonce[ZL_XAEAD_NONCE_SIZE];
    if (!c->token)
        return 1;
    zl_conn_reply_nonce(nonce, type, cookie, tick);
    return zl_conn_reply_tagged(payload, len, c->token->server_key, nonce);
}

/* Handshake replies, before a connection exists. */
static void on_unlinked(zl_client *c, uint8_t type, const uint8_t *payload, size_t len,
                        uint64_t now_us)
{
    if (type == ZL_MSG_CHALLENGE && c->state == ZL_CLIENT_REQUESTING) {
        zl_msg_challenge m;
        if (zl_msg_read(ZL_MSG_CHALLENGE, payload, reply_body(c, len), &m) != ZL_OK ||
            m.nonce != c->conn.nonce ||
            !authentic(c, ZL_MSG_CHALLENGE, payload, len, m.cookie, 0)) {
            c->bad_messages++;
            return;
        }
        c->window = m.window;
        c->cookie = m.cookie;
        c->state = ZL_CLIENT_RESPONDING;
        c->last_heard_us = now_us;
        c->next_send_us = now_us + c->config.resend_us;
        send_handshake(c);
    } else if (type == ZL_MSG_ACCEPT && c->state == ZL_CLIENT_RESPONDING) {
        zl_msg_accept m;
        if (zl_msg_read(ZL_MSG_ACCEPT, payload, reply_body(c, len), &m) != ZL_OK ||
            m.nonce != c->conn.nonce ||
            !authentic(c, ZL_MSG_ACCEPT, payload, len, c->cookie, m.server_tick)) {
            c->bad_messages++;
            return;
        }
        c->last_heard_us = now_us;
        on_accept(c, &m, now_us);
    } else if (type == ZL_MSG_DENY &&
               (c->state == ZL_CLIENT_REQUESTING || c->state == ZL_CLIENT_RESPONDING)) {
        zl_msg_deny m;
        if (zl_msg_read(ZL_MSG_DENY, payload, len, &m) != ZL_OK || m.nonce != c->conn.nonce) {
            c->bad_messages++;
            return;
        }
        c->state = ZL_CLIENT_DENIED;
        c->deny_reason = m.reason;
    } else {
        c->bad_messages++; /* late duplicates of the handshake land here */
    }
}

/* Feeds a decoded frame to prediction and interpolation. */
void zl_client_take_frame_(zl_client *c, const zl_snapshot_frame *f, uint32_t executed,
                           uint64_t now_us)
{
    const void *own = zl_snapshot_frame_state(f, c->slot);
    uint64_t time_us = (uint64_t)f->tick * c->tick_us;
    int e;
    zl_clock_observe(&c->clock, time_us, now_us);
    if (time_us > c->newest_us)
        c->newest_us = time_us;
    if (own) {
        if (!c->has_player) {
            /* The first command follows the one the server names: 0 on a
             * new connection, far past the old match's after a new one. */
            zl_predict_init(&c->predict, &c->game, &c->config.predict, own);
            zl_predict_reset(&c->predict, executed, own);
            c->has_player = 1;
        } else {
            zl_predict_reconcile(&c->predict, executed, own, now_us);
        }
    }
    {
        timeline_sample ts;
        ts.tick = f->tick;
        zl_interp_push(&c->timeline, &c->timeline_config, f->tick, time_us, &ts);
    }
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        const void *state = e == c->slot ? NULL : zl_snapshot_frame_state(f, (uint16_t)e);
        if (state)
            zl_interp_push(&c->history[e], &c->interp_config[e < ZL_MAX_CLIENTS ? 0 : 1],
                           f->tick, time_us, state);
        else if (c->history[e].count)
            zl_interp_reset(&c->history[e]); /* left: a reused number starts fresh */
    }
}

/* len: the payload's bytes; datagram_len: the whole datagram's. */
int zl_client_on_snapshot_(zl_client *c, const uint8_t *payload, size_t len, size_t datagram_len,
                           uint64_t now_us)
{
    int rc;
    const zl_snapshot_frame *f;
    uint32_t executed, tick;
    if (c->recorder)
        zl_client_record_(c, ZL_DEMO_SNAPSHOT, payload, (uint32_t)len, now_us);
    /* A snapshot of the match we left, overtaken by the notice of the new
     * one, is dropped before its events reach the queue. */
    if (c->match_tick && (zl_snapshot_message_tick(&c->rx, payload, len, &tick) != ZL_OK ||
                          (int32_t)(tick - c->match_tick) < 0)) {
        c->left++;
        return ZL_OK;
    }
    rc = zl_snapshot_message_read(&c->rx, &c->layout, c->slot, &c->events, &c->game, payload,
                                  len, &executed, &f);
    if (rc != ZL_OK) {
        c->undecodable++;
        return rc;
    }
    c->snapshots++;
    c->last_snapshot_bytes = (uint32_t)datagram_len;
    zl_client_take_frame_(c, f, executed, now_us);
    return ZL_OK;
}

/* A SNAPSHOT, alone or inside a BLOCK, is read before the link takes its
 * packet, and a snapshot the client could not read is left unacknowledged:
 * its events, read only with its entity section, then go again (and the
 * server never counts it as held). Returns 1 when the packet may be taken. */
static int snapshot_first(zl_client *c, const zl_conn_datagram *d, size_t len, uint64_t now_us)
{
    const uint8_t *payload = d->payload;
    size_t payload_len = d->payload_len;
    uint8_t type = d->h.type;
    if (type == ZL_MSG_BLOCK) {
        int at = zl_blocks_peek(payload, payload_len, &type);
        if (at < 0)
            return 1;
        payload += at;
        payload_len -= (size_t)at;
    }
    if (type != ZL_MSG_SNAPSHOT)
        return 1;
    if (zl_link_check(&c->conn.link, d->h.sequence) != ZL_PACKET_DROP_NONE)
        return 1; /* the link refuses and counts it */
    return zl_client_on_snapshot_(c, payload, payload_len, len, now_us) == ZL_OK;
}

/* The packets the server acknowledged tell which commands it received
 * (it takes every command of a packet its link accepts). */
static void commands_received(zl_client *c, const zl_link_acks *acks)
{
    uint32_t i;
    for (i = 0; i < acks->count; i++) {
        uint32_t carried = c->cmd_carried[acks->sequence[i] & (ZL_LINK_SENT_CAPACITY - 1u)];
        if (zl_seq32_newer(carried, c->cmd_received))
            c->cmd_received = carried;
    }
}

/* The server heard us from a new address (our NAT rebound): the token
 * goes back at once, from wherever our datagrams now leave. */
static void answer_path_challenge(zl_client *c, const uint8_t *payload, size_t len,
                                  uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_PATH_SIZE + ZL_PACKET_TAG_SIZE];
    zl_msg_path m;
    if (zl_msg_read(ZL_MSG_PATH_CHALLENGE, payload, len, &m) != ZL_OK ||
        m.nonce != c->conn.nonce) {
        c->bad_messages++;
        return;
    }
    zl_conn_send(&c->conn, ZL_MSG_PATH_RESPONSE, packet,
                 zl_msg_write(ZL_MSG_PATH_RESPONSE, packet + ZL_PACKET_HEADER_SIZE, ZL_PATH_SIZE,
                              &m),
                 now_us);
}

/* A CONTROL notice. A new match (its first tick newer than ours: repeats
 * and overtaken copies are not) clears the old one's state once. */
static void on_control(zl_client *c, const uint8_t *payload, size_t len)
{
    zl_msg_control m;
    if (zl_msg_read(ZL_MSG_CONTROL, payload, len, &m) != ZL_OK || m.nonce != c->conn.nonce) {
        c->bad_messages++;
        return;
    }
    if (m.kind != ZL_CONTROL_MATCH || (int32_t)(m.tick - c->match_tick) <= 0)
        return;
    c->match_id = m.match_id;
    c->match_tick = m.tick;
    c->match_notice = 1;
    zl_client_start_match_(c);
}

/* A datagram sealed for our connection. */
static void on_linked(zl_client *c, const zl_conn_datagram *d, size_t len, uint64_t now_us)
{
    const zl_packet_header *h = &d->h;
    const uint8_t *payload = d->payload;
    size_t payload_len = d->payload_len;
    zl_link_acks acks;
    uint8_t type = h->type;
    /* Chunks of a block we cannot take yet are refused unacknowledged
     * (zl_block.h): the server sends them again. */
    if (type == ZL_MSG_BLOCK &&
        zl_blocks_check(&c->blocks, payload, payload_len, ZL_MSG_SNAPSHOT) != ZL_OK)
        return;
    if (!snapshot_first(c, d, len, now_us))
        return;
    if (zl_link_accept(&c->conn.link, h, len, now_us, &acks) != ZL_OK)
        return; /* counted by the link */
    c->last_heard_us = now_us;
    zl_reliable_acked(&c->reliable, &acks);
    zl_blocks_acked(&c->blocks, &acks);
    commands_received(c, &acks);
    if (type == ZL_MSG_BLOCK)
        zl_blocks_unwrap(&c->blocks, &type, &payload, &payload_len);
    if (type == ZL_MSG_RELIABLE) {
        zl_bitreader r;
        zl_bitreader_init(&r, payload, payload_len);
        if (zl_reliable_read(&c->reliable, &r) != ZL_OK)
            c->bad_messages++;
    } else if (type == ZL_MSG_DISCONNECT) {
        zl_msg_disconnect m;
        if (zl_msg_read(ZL_MSG_DISCONNECT, payload, payload_len, &m) != ZL_OK ||
            m.nonce != c->conn.nonce) {
            c->bad_messages++;
            return;
        }
        c->state = ZL_CLIENT_DISCONNECTED;
        c->disconnect_reason = m.reason;
    } else if (type == ZL_MSG_PATH_CHALLENGE) {
        answer_path_challenge(c, payload, payload_len, now_us);
    } else if (type == ZL_MSG_CONTROL) {
        on_control(c, payload, payload_len);
    } else if (type != ZL_MSG_KEEPALIVE && type != ZL_MSG_SNAPSHOT) { /* snapshot_first read it */
        c->bad_messages++;
    }
}

void zl_client_receive(zl_client *c, const zl_addr *from, void *data, size_t len,
                       uint64_t now_us)
{
    zl_conn_datagram d;
    int kind;
    ZL_ASSERT(c && from && (data || len == 0));
    if (c->state == ZL_CLIENT_IDLE || !zl_addr_equal(from, &c->conn.peer)) {
        c->bad_messages++;
        return;
    }
    kind = zl_conn_open(&c->conn, c->state == ZL_CLIENT_CONNECTED, (uint8_t *)data, len, &d);
    if (kind == ZL_CONN_LINKED)
        on_linked(c, &d, len, now_us);
    else if (kind == ZL_CONN_UNLINKED)
        on_unlinked(c, d.h.type, d.payload, d.payload_len, now_us);
    else if (c->state != ZL_CLIENT_CONNECTED)
        c->bad_messages++; /* when connected, the link counted why */
}

/* The commands the server has not received, oldest first, as many of the
 * newest as cmd_backup_ms of their time and the packet hold: a loss burst
 * or a lag spike up to that long loses no input. Returns the count. */
static int unreceived_commands(const zl_client *c, zl_usercmd *run)
{
    uint32_t newest = zl_predict_newest(&c->predict), first, seq, span_ms = 0;
    uint32_t unacked = zl_predict_unacked(&c->predict);
    int n = 0;
    first = newest + 1u - unacked;
    if (zl_seq32_newer(c->cmd_received + 1u, first))
        first = c->cmd_received + 1u;
    for (seq = newest; seq != first - 1u && n < ZL_CMDSTREAM_MAX_PER_PACKET; seq--) {
        const zl_usercmd *cmd = zl_predict_command_at(&c->predict, seq);
        if (n > 0 && span_ms + cmd->msec > c->config.cmd_backup_ms)
            break;
        span_ms += cmd->msec;
        n++;
    }
    for (seq = newest + 1u - (uint32_t)n; seq != newest + 1u; seq++)
        *run++ = *zl_predict_command_at(&c->predict, seq);
    return n;
}

/* A COMMANDS payload in packet: the header and run[0 .. count-1]. Returns
 * its bytes, or ZL_ERR_OVERFLOW when they do not fit one packet. */
static int write_run(const zl_commands_header *head, const zl_usercmd *run, int count,
                     uint8_t *packet)
{
    zl_bitwriter w;
    zl_bitwriter_init(&w, packet + ZL_PACKET_HEADER_SIZE, ZL_PACKET_MAX_PAYLOAD);
    zl_commands_header_write(&w, head);
    zl_cmdstream_write(&w, run, count);
    return zl_bitwriter_finish(&w);
}

/* The payload with the longest prefix of run[0 .. n-1] that fits one
 * packet (found by bisection: only a long backlog needs it); returns that
 * count and sets *bytes. */
static int write_fitting(const zl_commands_header *head, const zl_usercmd *run, int n,
                         uint8_t *packet, int *bytes)
{
    int lo = 0, hi = n - 1;
    *bytes = write_run(head, run, n, packet);
    if (*bytes >= 0)
        return n;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (write_run(head, run, mid, packet) >= 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    *bytes = write_run(head, run, lo, packet);
    return lo;
}

/* A COMMANDS packet: the header and every command the server has not
 * received, oldest first. A backlog too long for one packet (after a long
 * loss burst) sends its oldest part; the rest follows once that arrived:
 * a run must start where the server's commands end, or the ones between
 * would count as lost. */
static void send_commands(zl_client *c, uint64_t now_us)
{
    uint8_t packet[ZL_MAX_PACKET];
    zl_usercmd run[ZL_CMDSTREAM_MAX_PER_PACKET];
    zl_commands_header head;
    int n = c->has_player ? unreceived_commands(c, run) : 0, bytes, fit, len;
    uint8_t type;
    head.need_full = c->rx.need_full;
    head.view_delay_us = zl_clock_delay(&c->clock);
    fit = write_fitting(&head, run, n, packet, &bytes);
    if (bytes < 0)
        return;
    type = zl_client_blocks_attach(c, packet + ZL_PACKET_HEADER_SIZE, &bytes, now_us);
    len = zl_conn_send(&c->conn, type, packet, bytes, now_us);
    if (len > 0 && fit > 0) {
        uint16_t seq = (uint16_t)(zl_link_next_sequence(&c->conn.link) - 1u);
        c->cmd_carried[seq & (ZL_LINK_SENT_CAPACITY - 1u)] = run[fit - 1].sequence;
    }
}

void zl_client_update(zl_client *c, uint64_t now_us)
{
    ZL_ASSERT(c);
    if (c->state != ZL_CLIENT_REQUESTING && c->state != ZL_CLIENT_RESPONDING &&
        c->state != ZL_CLIENT_CONNECTED)
        return;
    if (now_us - c->last_heard_us > c->config.timeout_us) {
        c->state = ZL_CLIENT_TIMED_OUT;
        return;
    }
    if (c->state == ZL_CLIENT_CONNECTED)
        zl_conn_send_messages(&c->conn, &c->reliable, now_us);
    if (now_us < c->next_send_us)
        return;
    if (c->state == ZL_CLIENT_CONNECTED) {
        /* Commands go at cmdrate even when there are none: the packet
         * carries our acks and keeps the connection alive. */
        send_commands(c, now_us);
        zl_client_blocks_send(c, now_us);
        c->next_send_us += 1000000u / c->settings.cmdrate;
        if (c->next_send_us < now_us)
            c->next_send_us = now_us;
    } else {
        send_handshake(c);
        c->next_send_us = now_us + c->config.resend_us;
    }
}

static void interp_settings(const zl_client *c, zl_interp_settings *is)
{
    is->interp_us = c->settings.interp_us;
    is->interp_ratio = c->settings.interp_ratio;
    is->extrapolate_us = c->config.extrapolate_us;
}

void zl_client_frame(zl_client *c, uint64_t now_us)
{
    zl_interp_settings is;
    zl_interp_frame frame;
    uint64_t render_us;
    int e;
    ZL_ASSERT(c);
    if (c->recorder)
        zl_client_record_(c, ZL_DEMO_FRAME, NULL, 0, now_us);
    interp_settings(c, &is);
    render_us = zl_clock_render_time(&c->clock, now_us, zl_client_settings_interp_us(&c->settings));
    c->render_us = render_us;
    /* One frame for all: the timeline's pair is every entity's that was
     * in every snapshot, found once. */
    zl_interp_frame_begin(&frame, &is, render_us);
    {
        timeline_sample ts;
        zl_interp_frame_sample(&frame, &c->timeline, &ts, &c->pick);
    }
    for (e = 0; e < ZL_MAX_ENTITIES; e++) {
        zl_interp_pick pick;
        c->drawn[e] = c->history[e].count > 0 &&
                      zl_interp_frame_sample(&frame, &c->history[e], c->view[e], &pick) >
                          ZL_PICK_EMPTY;
        /* A history that starts after the render time (a respawn, a new
         * entity) has nothing to show yet: drawn early, it would stand
         * where the server's rewind to that time will not find it. */
        if (c->drawn[e] && pick.mode == ZL_PICK_HELD && pick.time_a > render_us)
            c->drawn[e] = 0;
        c->draws += c->drawn[e];
        if (c->drawn[e] && pick.mode == ZL_PICK_EXTRAPOLATED)
            c->extrapolated++;
    }
    if (c->recorder)
        zl_client_record_drawn_(c);
}

int zl_client_command(zl_client *c, const zl_usercmd *cmd, zl_events *events)
{
    zl_usercmd run;
    ZL_ASSERT(c && cmd);
    if (!c->has_player || (c->state != ZL_CLIENT_CONNECTED && c->state != ZL_CLIENT_PLAYING))
        return ZL_ERR_AGAIN;
    run = *cmd;
    run.sequence = zl_predict_newest(&c->predict) + 1u;
    zl_interp_pick_to_command(&c->pick, &run);
    if (zl_usercmd_validate(&run) != ZL_OK)
        return ZL_ERR_INVALID;
    if (c->recorder)
        zl_client_record_command_(c, &run);
    return zl_predict_command(&c->predict, &run, events);
}

int zl_client_player(const zl_client *c, uint64_t now_us, void *out)
{
    ZL_ASSERT(c && out);
    if (!c->has_player)
        return ZL_ERR_AGAIN;
    zl_predict_draw(&c->predict, now_us, out);
    return ZL_OK;
}

const void *zl_client_predicted(const zl_client *c)
{
    return c->has_player ? zl_predict_state(&c->predict) : NULL;
}

const void *zl_client_entity(const zl_client *c, int entity)
{
    ZL_ASSERT(c);
    if (entity < 0 || entity >= ZL_MAX_ENTITIES || !c->drawn[entity])
        return NULL;
    return c->view[entity];
}

uint64_t zl_client_server_time(zl_client *c, uint64_t now_us)
{
    zl_link_stats ls;
    ZL_ASSERT(c);
    if (!c->newest_us)
        return 0;
    zl_link_get_stats(&c->conn.link, now_us, &ls);
    return zl_clock_snapshot_time(&c->clock, now_us) + ls.rtt_us / 2u;
}

int zl_client_events(zl_client *c, zl_event *out, int max)
{
    ZL_ASSERT(c && (out || max == 0));
    if (!c->tick_us)
        return 0; /* not connected yet: nothing received */
    return zl_event_queue_take(&c->events, (uint32_t)(c->render_us / c->tick_us), c->slot, out,
                               max);
}

int zl_client_send_message(zl_client *c, const void *data, size_t len)
{
    ZL_ASSERT(c);
    if (c->state != ZL_CLIENT_CONNECTED)
        return ZL_ERR_AGAIN;
    return zl_reliable_send(&c->reliable, data, len);
}

int zl_client_receive_message(zl_client *c, void *buf, size_t cap)
{
    ZL_ASSERT(c);
    return zl_reliable_receive(&c->reliable, buf, cap);
}

const zl_snapshot_frame *zl_client_latest(const zl_client *c)
{
    return zl_snapshot_receiver_newest(&c->rx);
}

void zl_client_set_settings(zl_client *c, const zl_client_settings *s, uint64_t now_us)
{
    uint8_t packet[ZL_PACKET_HEADER_SIZE + ZL_SETTINGS_MSG_SIZE + ZL_PACKET_TAG_SIZE];
    zl_msg_settings m;
    ZL_ASSERT(c && s);
    c->config.settings = *s;
    if (c->state != ZL_CLIENT_CONNECTED)
        return;
    /* Our own copy follows at once; the server's clamp applies on its side,
     * and our interpolation uses what we asked for within its limits. */
    c->settings = *s;
    m.nonce = c->conn.nonce;
    m.settings = *s;
    zl_conn_send(&c->conn, ZL_MSG_SETTINGS, packet,
                 zl_msg_write(ZL_MSG_SETTINGS, packet + ZL_PACKET_HEADER_SIZE,
                              ZL_SETTINGS_MSG_SIZE, &m),
                 now_us);
}

void zl_client_disconnect(zl_client *c, uint64_t now_us)
{
    ZL_ASSERT(c);
    if (c->state != ZL_CLIENT_CONNECTED) {
        c->state = ZL_CLIENT_IDLE;
        return;
    }
    zl_conn_disconnect(&c->conn, ZL_DISCONNECT_QUIT, now_us);
    c->state = ZL_CLIENT_DISCONNECTED;
    c->disconnect_reason = ZL_DISCONNECT_QUIT;
}

int zl_client_reason(const zl_client *c)
{
    ZL_ASSERT(c);
    if (c->state == ZL_CLIENT_DENIED)
        return c->deny_reason;
    if (c->state == ZL_CLIENT_DISCONNECTED)
        return c->disconnect_reason;
    return c->state == ZL_CLIENT_TIMED_OUT ? ZL_DISCONNECT_TIMEOUT : -1;
}

int zl_client_next_notice(zl_client *c, zl_client_notice *out)
{
    ZL_ASSERT(c && out);
    if (!c->match_notice)
        return 0;
    c->match_notice = 0;
    out->kind = ZL_CLIENT_NOTICE_MATCH;
    out->match_id = c->match_id;
    out->tick = c->match_tick;
    return 1;
}

int zl_client_state(const zl_client *c)
{
    return c->state;
}

int zl_client_slot(const zl_client *c)
{
    return c->slot;
}

void zl_client_get_stats(zl_client *c, uint64_t now_us, zl_client_stats *out)
{
    ZL_ASSERT(c && out);
    memset(out, 0, sizeof *out);
    zl_link_get_stats(&c->conn.link, now_us, &out->link);
    if (c->has_player)
        out->predict = *zl_predict_get_stats(&c->predict);
    zl_clock_get_stats(&c->clock, &out->clock);
    out->snapshots = c->snapshots;
    out->snapshots_undecodable = c->undecodable;
    out->snapshots_left = c->left;
    out->last_snapshot_bytes = c->last_snapshot_bytes;
    out->interp_us = zl_clock_delay(&c->clock);
    out->interp_floor_us = zl_client_settings_interp_us(&c->settings);
    out->behind_us = c->newest_us > c->render_us ? (uint32_t)(c->newest_us - c->render_us) : 0u;
    out->draws = c->draws;
    out->extrapolated = c->extrapolated;
    out->bad_messages = c->bad_messages;
    out->messages = c->reliable.stats;
    out->events = c->events.stats;
    zl_conn_get_seal_stats(&c->conn, &out->seal);
    out->blocks = c->blocks.stats;
}
