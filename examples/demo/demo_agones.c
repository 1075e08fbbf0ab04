/* demo_agones.c - the Agones SDK's REST calls as a small state machine: one
 * HTTP/1.1 request per connection, driven a step per game-loop turn. */
#include <stdio.h>
#include <string.h>

#include "demo_agones.h"
#include "demo_host.h"

static const char *const paths[DEMO_AGONES_CALLS] = {"/ready", "/health", "/gameserver",
                                                     "/shutdown"};

void demo_agones_init(demo_agones *a, uint16_t port, uint64_t now_us)
{
    memset(a, 0, sizeof *a);
    a->port = port;
    a->sock = -1;
    a->retry_us = now_us;
    a->backoff_us = DEMO_AGONES_BACKOFF_MIN_US;
}

void demo_agones_shutdown(demo_agones *a)
{
    a->want_shutdown = 1;
    a->retry_us = 0; /* at once: the fleet is waiting for it */
}

void demo_agones_close(demo_agones *a)
{
    demo_host_tcp_close(a->sock);
    a->sock = -1;
}

/* The next call due, or -1. */
static int next_call(const demo_agones *a, uint64_t now_us)
{
    if (now_us < a->retry_us)
        return -1;
    if (a->want_shutdown)
        return a->shut_down ? -1 : DEMO_AGONES_SHUTDOWN;
    if (!a->ready)
        return DEMO_AGONES_READY;
    if (now_us >= a->next_health_us)
        return DEMO_AGONES_HEALTH;
    if (!a->allocated && now_us >= a->next_poll_us)
        return DEMO_AGONES_GAMESERVER;
    return -1;
}

static void start(demo_agones *a, int call, uint64_t now_us)
{
    /* The gateway wants a JSON body (an empty message) on its POSTs. */
    if (call == DEMO_AGONES_GAMESERVER)
        a->out_len = snprintf(a->out, sizeof a->out,
                              "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n\r\n",
                              paths[call], (unsigned)a->port);
    else
        a->out_len = snprintf(a->out, sizeof a->out,
                              "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nContent-Type: "
                              "application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
                              paths[call], (unsigned)a->port);
    a->out_sent = 0;
    a->in_len = 0;
    a->call = call;
    a->started_us = now_us;
    a->sock = demo_host_tcp_connect(a->port);
}

/* Ends the request in flight; a failure backs off (doubling), a success
 * resets the backoff. */
static unsigned finish(demo_agones *a, int ok, uint64_t now_us)
{
    demo_agones_close(a);
    if (ok) {
        a->backoff_us = DEMO_AGONES_BACKOFF_MIN_US;
        a->retry_us = now_us;
        return 0;
    }
    a->retry_us = now_us + a->backoff_us;
    a->backoff_us = a->backoff_us * 2u > DEMO_AGONES_BACKOFF_MAX_US ? DEMO_AGONES_BACKOFF_MAX_US
                                                                   : a->backoff_us * 2u;
    return DEMO_AGONES_DID_FAIL;
}

/* A whole 2xx reply to the call in flight: what it means. */
static unsigned took(demo_agones *a, const demo_http_reply *r, uint64_t now_us)
{
    a->ok[a->call]++;
    switch (a->call) {
    case DEMO_AGONES_READY:
        a->ready = 1;
        a->next_health_us = now_us + DEMO_AGONES_HEALTH_US;
        a->next_poll_us = now_us;
        return DEMO_AGONES_DID_READY;
    case DEMO_AGONES_HEALTH:
        a->next_health_us = now_us + DEMO_AGONES_HEALTH_US;
        return 0;
    case DEMO_AGONES_GAMESERVER: {
        char state[32];
        a->next_poll_us = now_us + DEMO_AGONES_POLL_US;
        if (!demo_json_string(r->body, r->body_len, "status", "state", state, sizeof state) ||
            strcmp(state, "Allocated") != 0)
            return 0;
        if (!demo_json_string(r->body, r->body_len, "status", "address", a->address,
                              sizeof a->address))
            a->address[0] = '\0';
        if (!demo_json_port(r->body, r->body_len, "ports", "port", &a->game_port))
            a->game_port = 0;
        a->allocated = 1;
        return DEMO_AGONES_DID_ALLOCATE;
    }
    default:
        a->shut_down = 1;
        return DEMO_AGONES_DID_SHUTDOWN;
    }
}

/* Reads what has come; a whole reply ends the request. */
static unsigned receive(demo_agones *a, uint64_t now_us)
{
    demo_http_reply r;
    int n, closed = 0, rc;
    for (;;) {
        n = demo_host_tcp_recv(a->sock, a->in + a->in_len, sizeof a->in - (size_t)a->in_len);
        if (n <= 0)
            break;
        a->in_len += n;
        if (a->in_len == (int)sizeof a->in)
            break;
    }
    if (n == -2)
        return a->failed++, finish(a, 0, now_us);
    closed = n == -1;
    rc = demo_http_parse_reply(a->in, (size_t)a->in_len, closed, &r);
    if (rc == 0 && a->in_len < (int)sizeof a->in)
        return 0;
    if (rc <= 0) {
        /* Full and still not whole, or not HTTP: dropped and counted. */
        if (a->in_len == (int)sizeof a->in)
            a->oversized++;
        else
            a->malformed++;
        return finish(a, 0, now_us);
    }
    if (r.status < 200 || r.status > 299)
        return a->failed++, finish(a, 0, now_us);
    return took(a, &r, now_us) | finish(a, 1, now_us);
}

unsigned demo_agones_update(demo_agones *a, uint64_t now_us)
{
    if (a->sock < 0) {
        int call = next_call(a, now_us);
        if (call < 0)
            return 0;
        start(a, call, now_us);
        if (a->sock < 0)
            return a->failed++, finish(a, 0, now_us);
    }
    if (now_us - a->started_us > DEMO_AGONES_TIMEOUT_US)
        return a->failed++, finish(a, 0, now_us);
    if (a->out_sent < a->out_len) {
        int n = demo_host_tcp_send(a->sock, a->out + a->out_sent, (size_t)(a->out_len - a->out_sent));
        if (n < 0)
            return a->failed++, finish(a, 0, now_us);
        a->out_sent += n;
        if (a->out_sent < a->out_len)
            return 0;
    }
    return receive(a, now_us);
}
