/* demo_metrics.c - renders the server's counters in Prometheus' text format
 * and serves them over non-blocking HTTP/1.1, one reply per connection. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "demo_host.h"
#include "demo_metrics.h"
#include "demo_report.h"

/* Upper bounds of the tick duration buckets, in nanoseconds (the last is
 * +Inf): a 64 Hz tick has 15.6 ms, a healthy one takes well under 1 ms. */
static const uint32_t bucket_ns[DEMO_METRICS_BUCKETS - 1] = {
    50000u, 100000u, 250000u, 500000u, 1000000u, 2500000u, 5000000u, 10000000u, 15625000u};

int demo_metrics_open(demo_metrics *m, const char *address, uint16_t port)
{
    int i;
    memset(m, 0, sizeof *m);
    for (i = 0; i < DEMO_METRICS_CONNS; i++)
        m->conn[i].sock = -1;
    m->listener = demo_host_tcp_listen(address, port);
    return m->listener < 0 ? -1 : 0;
}

void demo_metrics_tick(demo_metrics *m, uint32_t ns)
{
    int b = 0;
    while (b < DEMO_METRICS_BUCKETS - 1 && ns > bucket_ns[b])
        b++;
    m->bucket[b]++;
    m->tick_count++;
    m->tick_ns_sum += ns;
}

/* An appender that stops at the capacity: a line that does not fit is
 * left out whole. */
typedef struct text {
    char *out;
    int cap, len;
} text;

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(t->out + t->len, (size_t)(t->cap - t->len), fmt, ap);
    va_end(ap);
    if (n > 0 && n < t->cap - t->len)
        t->len += n;
    else
        t->out[t->len] = '\0';
}

static void family(text *t, const char *name, const char *type, const char *help)
{
    add(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One family with a sample per connected slot: value(st) of each. */
typedef double (*slot_value)(const zl_server_client_stats *st);
static void per_slot(text *t, zl_server *s, uint64_t now_us, const char *name, const char *type,
                     const char *help, slot_value value)
{
    int slot;
    family(t, name, type, help);
    for (slot = 0; slot < ZL_MAX_CLIENTS; slot++) {
        zl_server_client_stats st;
        if (zl_server_get_client_stats(s, slot, now_us, &st) == ZL_OK)
            add(t, "%s{slot=\"%d\"} %.9g\n", name, slot, value(&st));
    }
}

static double rtt(const zl_server_client_stats *st) { return st->link.rtt_us / 1e6; }
static double loss_in(const zl_server_client_stats *st) { return st->link.loss_in_q16 / 65536.0; }
static double loss_out(const zl_server_client_stats *st) { return st->link.loss_out_q16 / 65536.0; }
static double choked(const zl_server_client_stats *st) { return st->choked; }
static double bytes_in(const zl_server_client_stats *st) { return st->link.bytes_in_per_s; }
static double bytes_out(const zl_server_client_stats *st) { return st->link.bytes_out_per_s; }
static double packets_in(const zl_server_client_stats *st) { return st->link.packets_received; }
static double packets_out(const zl_server_client_stats *st) { return st->link.packets_sent; }
static double run(const zl_server_client_stats *st) { return st->commands.executed; }
static double lost(const zl_server_client_stats *st) { return st->commands.lost; }
static double shed(const zl_server_client_stats *st) { return st->commands.dropped_ahead; }
static double rewinds(const zl_server_client_stats *st) { return st->rewinds; }
static double clamped(const zl_server_client_stats *st) { return st->rewinds_clamped; }
static double forged(const zl_server_client_stats *st) { return st->seal.forged; }
static double replayed(const zl_server_client_stats *st) { return st->seal.replayed; }

static const struct {
    const char *name, *type, *help;
    slot_value value;
} slot_families[] = {
    {"zl_client_rtt_seconds", "gauge", "Smoothed round trip of each connected slot.", rtt},
    {"zl_client_loss_in_ratio", "gauge", "Share of the client's packets lost on the way in.",
     loss_in},
    {"zl_client_loss_out_ratio", "gauge", "Share of the server's packets the client never acknowledged.",
     loss_out},
    {"zl_client_choked_total", "counter", "Snapshots held back by the client's rate.", choked},
    {"zl_client_receive_bytes_per_second", "gauge", "Bytes per second accepted from the client.",
     bytes_in},
    {"zl_client_transmit_bytes_per_second", "gauge", "Bytes per second sent to the client.",
     bytes_out},
    {"zl_client_packets_received_total", "counter", "Packets accepted from the client.",
     packets_in},
    {"zl_client_packets_sent_total", "counter", "Packets sent to the client.", packets_out},
    {"zl_client_commands_run_total", "counter", "Commands of the client run.", run},
    {"zl_client_commands_lost_total", "counter", "Commands of the client never received.", lost},
    {"zl_client_commands_shed_total", "counter", "Commands shed: the client ran ahead of real time.",
     shed},
    {"zl_client_rewinds_total", "counter", "Shots traced in the past (lag compensation).",
     rewinds},
    {"zl_client_rewinds_clamped_total", "counter",
     "Rewinds older than the history allows, moved up.", clamped},
    {"zl_client_seal_forged_total", "counter",
     "Packets with the connection's id whose tag failed: refused.", forged},
    {"zl_client_seal_replayed_total", "counter",
     "Packets that authenticated but were replays: refused.", replayed},
};

static const char *const call_names[DEMO_AGONES_CALLS] = {"ready", "health", "gameserver",
                                                          "shutdown"};

int demo_metrics_render(const demo_metrics *m, zl_server *s, const demo_agones *a,
                        uint64_t now_us, char *out, int cap)
{
    uint32_t drops[ZL_SERVER_DROP_COUNT];
    uint64_t cumulative = 0;
    text t;
    int i;
    t.out = out;
    t.cap = cap;
    t.len = 0;
    out[0] = '\0';
    family(&t, "zl_server_ticks_total", "counter", "Simulation ticks run.");
    add(&t, "zl_server_ticks_total %lu\n", (unsigned long)zl_server_tick(s));
    family(&t, "zl_server_tick_duration_seconds", "histogram", "Time one tick took to run.");
    for (i = 0; i < DEMO_METRICS_BUCKETS; i++) {
        cumulative += m->bucket[i];
        if (i < DEMO_METRICS_BUCKETS - 1)
            add(&t, "zl_server_tick_duration_seconds_bucket{le=\"%g\"} %llu\n", bucket_ns[i] / 1e9,
                (unsigned long long)cumulative);
        else
            add(&t, "zl_server_tick_duration_seconds_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)cumulative);
    }
    add(&t, "zl_server_tick_duration_seconds_sum %.9g\n", (double)m->tick_ns_sum / 1e9);
    add(&t, "zl_server_tick_duration_seconds_count %llu\n", (unsigned long long)m->tick_count);
    family(&t, "zl_server_players", "gauge", "Connected clients.");
    add(&t, "zl_server_players %d\n", zl_server_client_count(s));
    family(&t, "zl_server_open", "gauge", "1 while new players are admitted.");
    add(&t, "zl_server_open %d\n", zl_server_is_open(s));
    family(&t, "zl_server_drops_total", "counter",
           "Datagrams dropped before any connection took them, by reason.");
    zl_server_get_drops(s, drops);
    for (i = 0; i < ZL_SERVER_DROP_COUNT; i++)
        add(&t, "zl_server_drops_total{reason=\"%s\"} %lu\n", demo_drop_name(i),
            (unsigned long)drops[i]);
    for (i = 0; i < (int)(sizeof slot_families / sizeof slot_families[0]); i++)
        per_slot(&t, s, now_us, slot_families[i].name, slot_families[i].type,
                 slot_families[i].help, slot_families[i].value);
    family(&t, "zl_metrics_scrapes_total", "counter", "Metrics replies served.");
    add(&t, "zl_metrics_scrapes_total %lu\n", (unsigned long)m->served);
    family(&t, "zl_metrics_refused_total", "counter",
           "Metrics requests refused: malformed, oversized, another path or too slow.");
    add(&t, "zl_metrics_refused_total %lu\n", (unsigned long)m->refused);
    if (a) {
        family(&t, "zl_agones_requests_total", "counter",
               "Agones SDK requests the sidecar answered with success, by call.");
        for (i = 0; i < DEMO_AGONES_CALLS; i++)
            add(&t, "zl_agones_requests_total{call=\"%s\"} %lu\n", call_names[i],
                (unsigned long)a->ok[i]);
        family(&t, "zl_agones_failures_total", "counter",
               "Agones SDK requests that failed, by kind (retried with backoff).");
        add(&t, "zl_agones_failures_total{kind=\"error\"} %lu\n", (unsigned long)a->failed);
        add(&t, "zl_agones_failures_total{kind=\"malformed\"} %lu\n", (unsigned long)a->malformed);
        add(&t, "zl_agones_failures_total{kind=\"oversized\"} %lu\n", (unsigned long)a->oversized);
        family(&t, "zl_agones_allocated", "gauge", "1 once the GameServer is Allocated.");
        add(&t, "zl_agones_allocated %d\n", a->allocated);
    }
    return t.len;
}

static void drop(demo_metrics *m, demo_metrics_conn *c, int refused)
{
    demo_host_tcp_close(c->sock);
    c->sock = -1;
    m->refused += (uint32_t)refused;
}

/* Reads the request; once whole, writes the reply into c->out. */
static void read_request(demo_metrics *m, demo_metrics_conn *c, zl_server *s,
                         const demo_agones *a, uint64_t now_us)
{
    static const char not_found[] =
        "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
        "Connection: close\r\n\r\nnot found\n";
    static char body[DEMO_METRICS_TEXT];
    char path[64];
    int n = demo_host_tcp_recv(c->sock, c->in + c->in_len, sizeof c->in - (size_t)c->in_len);
    int rc, head, len;
    if (n < 0) {
        drop(m, c, 1);
        return;
    }
    c->in_len += n;
    rc = demo_http_parse_request(c->in, (size_t)c->in_len, path, sizeof path);
    if (rc == 0 && c->in_len == (int)sizeof c->in)
        rc = -1;
    if (rc < 0) {
        drop(m, c, 1);
        return;
    }
    if (rc == 0)
        return;
    if (strcmp(path, "/metrics") != 0) {
        memcpy(c->out, not_found, sizeof not_found - 1);
        c->out_len = (int)sizeof not_found - 1;
        m->refused++;
        return;
    }
    m->served++;
    len = demo_metrics_render(m, s, a, now_us, body, (int)sizeof body - 256);
    head = snprintf(c->out, sizeof c->out,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                    "Content-Length: %d\r\nConnection: close\r\n\r\n",
                    len);
    memcpy(c->out + head, body, (size_t)len);
    c->out_len = head + len;
}

void demo_metrics_serve(demo_metrics *m, zl_server *s, const demo_agones *a, uint64_t now_us)
{
    int i;
    if (m->listener < 0)
        return;
    for (i = 0; i < DEMO_METRICS_CONNS; i++) {
        demo_metrics_conn *c = &m->conn[i];
        if (c->sock < 0) {
            if ((c->sock = demo_host_tcp_accept(m->listener)) < 0)
                continue;
            c->since_us = now_us;
            c->in_len = c->out_len = c->out_sent = 0;
        }
        if (now_us - c->since_us > DEMO_METRICS_TIMEOUT_US) {
            drop(m, c, 1);
            continue;
        }
        if (c->out_len == 0) {
            read_request(m, c, s, a, now_us);
            if (c->sock < 0 || c->out_len == 0)
                continue;
        }
        while (c->out_sent < c->out_len) {
            int n = demo_host_tcp_send(c->sock, c->out + c->out_sent,
                                       (size_t)(c->out_len - c->out_sent));
            if (n <= 0) {
                if (n < 0)
                    drop(m, c, 1);
                break;
            }
            c->out_sent += n;
        }
        if (c->sock >= 0 && c->out_sent == c->out_len)
            drop(m, c, 0);
    }
}

void demo_metrics_close(demo_metrics *m)
{
    int i;
    for (i = 0; i < DEMO_METRICS_CONNS; i++)
        drop(m, &m->conn[i], 0);
    demo_host_tcp_close(m->listener);
    m->listener = -1;
}
