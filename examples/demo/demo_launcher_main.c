/* demo_launcher_main.c - the demo launcher (POSIX): starts zl_server and bot zl_clients
 * as processes, shows their net graph live, then the report and pictures. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "demo_host.h"
#include "demo_options.h"
#include "demo_pictures.h"
#include "demo_report.h"
#include "zl_port.h"

#define GRAPH_MS 250u        /* net graph refresh on a terminal */
#define GRAPH_PLAIN_MS 5000u /* ... and into a pipe or file */
#define GRACE_MS 20000u      /* past the duration, bots are told to stop */

/* One program the launcher runs, and what it has printed so far. */
typedef struct child {
    pid_t pid;
    int fd;       /* its standard output, -1 once it closed */
    size_t used;
    char buf[16384];
} child;

static demo_options opt;
static zl_platform clock_hal; /* the programs' records are stamped by this clock */
static demo_match match;
static child server, bot[DEMO_MAX_BOTS];

static uint32_t now_ms(void)
{
    return (uint32_t)(clock_hal.now_us(clock_hal.ctx) / 1000u);
}

/* Arguments of one program: texts in one pool. */
typedef struct args {
    char *argv[48];
    int argc;
    char pool[4096];
    size_t used;
} args;

static void arg(args *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(a->pool + a->used, sizeof a->pool - a->used, fmt, ap);
    va_end(ap);
    a->argv[a->argc++] = a->pool + a->used;
    a->argv[a->argc] = NULL;
    a->used += (size_t)n + 1u;
}

/* Starts a program with its output on a pipe and its text in log. */
static int spawn(child *c, args *a, const char *log)
{
    int p[2];
    memset(c, 0, sizeof *c);
    c->fd = -1;
    if (pipe(p) != 0)
        return -1;
    c->pid = fork();
    if (c->pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (c->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(p[1], STDOUT_FILENO);
        if (fd >= 0)
            dup2(fd, STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execv(a->argv[0], a->argv);
        fprintf(stderr, "zl_demo: cannot run %s: %s\n", a->argv[0], strerror(errno));
        _exit(127);
    }
    close(p[1]);
    c->fd = p[0];
    return 0;
}

static void take_lines(child *c, int who)
{
    char *start = c->buf, *nl;
    while ((nl = memchr(start, '\n', c->used - (size_t)(start - c->buf))) != NULL) {
        uint32_t rec[DEMO_REC_MAX_BYTES / 4];
        int type;
        *nl = '\0';
        type = demo_record_parse(start, rec);
        if (type >= 0)
            demo_match_take(&match, who, type, rec);
        start = nl + 1;
    }
    c->used -= (size_t)(start - c->buf);
    memmove(c->buf, start, c->used);
}

/* Reads what c has written; at its end closes the pipe. */
static void drain(child *c, int who)
{
    ssize_t n = read(c->fd, c->buf + c->used, sizeof c->buf - 1u - c->used);
    if (n > 0) {
        c->used += (size_t)n;
        take_lines(c, who);
        if (c->used == sizeof c->buf - 1u)
            c->used = 0; /* a line longer than any record: not one */
        return;
    }
    if (n < 0 && errno == EINTR)
        return;
    close(c->fd);
    c->fd = -1;
    if (who >= 0)
        match.bot[who].running = 0;
}

/* Waits up to timeout_ms for output from anyone; returns the bots still
 * running. */
static int pump(int timeout_ms)
{
    struct pollfd pfd[DEMO_MAX_BOTS + 1];
    int who[DEMO_MAX_BOTS + 1], n = 0, i, running = 0;
    if (server.fd >= 0) {
        pfd[n].fd = server.fd;
        pfd[n].events = POLLIN;
        who[n++] = -1;
    }
    for (i = 0; i < (int)opt.bots; i++)
        if (bot[i].fd >= 0) {
            pfd[n].fd = bot[i].fd;
            pfd[n].events = POLLIN;
            who[n++] = i;
            running++;
        }
    if (n > 0 && poll(pfd, (nfds_t)n, timeout_ms) > 0)
        for (i = 0; i < n; i++)
            if (pfd[i].revents)
                drain(who[i] < 0 ? &server : &bot[who[i]], who[i]);
    return running;
}

/* An option and its number. */
static void arg_number(args *a, const char *name, uint32_t value)
{
    arg(a, "%s", name);
    arg(a, "%lu", (unsigned long)value);
}

/* The match's backend: the key its server admits tokens of. */
static uint8_t backend_key[ZL_TOKEN_KEY_SIZE];

/* Bot i's connect token, as hex, for the server at port: what a game's
 * backend hands a matched player (zl_token.h). 0, or -1 without random
 * bytes. */
static int mint_token(int i, uint32_t port, char *hex)
{
    static uint8_t wire[ZL_TOKEN_WIRE_SIZE];
    zl_token_grant g;
    zl_connect_token token;
    uint8_t nonce[ZL_TOKEN_NONCE_SIZE];
    uint64_t now = (uint64_t)time(NULL);
    memset(&g, 0, sizeof g);
    g.client_id = (uint64_t)i + 1u;
    g.timeout_s = 5;
    g.address_count = 1;
    zl_addr_parse(&g.addresses[0], "127.0.0.1");
    g.addresses[0].port = (uint16_t)port;
    if (clock_hal.random(clock_hal.ctx, g.client_key, sizeof g.client_key) != ZL_OK ||
        clock_hal.random(clock_hal.ctx, g.server_key, sizeof g.server_key) != ZL_OK ||
        clock_hal.random(clock_hal.ctx, nonce, sizeof nonce) != ZL_OK)
        return -1;
    if (zl_token_mint(&token, &g, now, now + 60u, nonce, backend_key) != ZL_OK ||
        zl_token_write(wire, sizeof wire, &token) != ZL_TOKEN_WIRE_SIZE)
        return -1;
    demo_hex_write(hex, wire, sizeof wire);
    return 0;
}

static int start_server(void)
{
    args a;
    char log[DEMO_TEXT_MAX + 32], key[2 * ZL_TOKEN_KEY_SIZE + 1];
    uint32_t begin = now_ms();
    a.argc = 0;
    a.used = 0;
    arg(&a, "%s/zl_server", opt.bin);
    if (!opt.plain) {
        if (clock_hal.random(clock_hal.ctx, backend_key, sizeof backend_key) != ZL_OK)
            return -1;
        demo_hex_write(key, backend_key, sizeof backend_key);
        arg(&a, "--key");
        arg(&a, "%s", key);
    }
    arg(&a, "--address");
    arg(&a, "127.0.0.1");
    arg_number(&a, "--port", 0);
    arg_number(&a, "--maxclients", opt.bots);
    /* Every bot runs on this host: one address for all of them. */
    arg_number(&a, "--peraddress", opt.bots);
    arg_number(&a, "--tickrate", opt.tickrate);
    arg_number(&a, "--status", 5);
    if (opt.nolagcomp)
        arg(&a, "--nolagcomp");
    if (opt.broadcast[0]) {
        arg(&a, "--broadcast");
        arg(&a, "%s", opt.broadcast);
        arg_number(&a, "--tv_delay", opt.tv_delay_ms);
        arg_number(&a, "--tv_fragment", opt.tv_fragment_ms);
    }
    /* The server hears its clients through their conditioners: it needs
     * none of its own. */
    arg(&a, "--machine");
    snprintf(log, sizeof log, "%s/server.log", opt.out);
    if (spawn(&server, &a, log) != 0)
        return -1;
    while (!match.port && server.fd >= 0 && now_ms() - begin < 5000u)
        pump(100);
    return match.port ? 0 : -1;
}

static int start_bot(int i)
{
    args a;
    char log[DEMO_TEXT_MAX + 32];
    a.argc = 0;
    a.used = 0;
    arg(&a, "%s/zl_client", opt.bin);
    arg(&a, "--bot");
    if (!opt.plain) {
        static char token[2 * ZL_TOKEN_WIRE_SIZE + 1];
        if (mint_token(i, match.port, token) != 0)
            return -1;
        arg(&a, "--token");
        arg(&a, "%s", token);
    }
    arg(&a, "--address");
    arg(&a, "127.0.0.1:%lu", (unsigned long)match.port);
    arg_number(&a, "--duration", opt.duration_s);
    arg_number(&a, "--updaterate", opt.updaterate);
    arg_number(&a, "--cmdrate", opt.cmdrate);
    arg_number(&a, "--interp", opt.interp_ms);
    arg_number(&a, "--interp_ratio", opt.interp_ratio);
    arg_number(&a, "--seed", (uint32_t)i + 1u);
    arg_number(&a, "--fakelag", opt.fakelag_ms);
    arg_number(&a, "--fakejitter", opt.fakejitter_ms);
    arg(&a, "--fakeloss");
    arg(&a, "%g", opt.fakeloss_ppm / 10000.0);
    arg_number(&a, "--fakeburst", opt.fakeburst);
    arg_number(&a, "--fakespike", opt.fakespike_ms);
    if (i == 0 && opt.record[0]) {
        arg(&a, "--record");
        arg(&a, "%s", opt.record);
    }
    arg(&a, "--machine");
    snprintf(log, sizeof log, "%s/bot-%d.log", opt.out, i + 1);
    if (spawn(&bot[i], &a, log) != 0)
        return -1;
    match.bot[i].running = 1;
    return 0;
}

static void signal_bots(int sig)
{
    int i;
    for (i = 0; i < (int)opt.bots; i++)
        if (bot[i].fd >= 0)
            kill(bot[i].pid, sig);
}

/* Runs the match until every bot has left, showing the net graph. */
static void watch(void)
{
    int tty = isatty(STDOUT_FILENO), lines = 0, told = 0;
    uint32_t next_graph = now_ms();
    for (;;) {
        uint32_t now = now_ms(), late;
        int running = pump(50);
        if (running == 0)
            break;
        if (now - next_graph < 0x80000000u) {
            demo_report_graph(stdout, &match, now, tty, &lines);
            next_graph = now + (tty ? GRAPH_MS : GRAPH_PLAIN_MS);
        }
        late = now - match.start_ms - opt.duration_s * 1000u;
        /* Ctrl-C reaches every program of the terminal at once; a polite
         * kill reaches only us, so pass it on. */
        if (demo_host_interrupted() && !told) {
            signal_bots(SIGINT);
            told = 1;
        }
        if (late < 0x80000000u && late > GRACE_MS && told < 2) {
            signal_bots(told ? SIGKILL : SIGINT);
            told++;
        }
    }
    match.end_ms = now_ms();
    match.interrupted = (uint32_t)demo_host_interrupted();
    demo_report_graph(stdout, &match, match.end_ms, tty, &lines);
}

static void stop_server(void)
{
    uint32_t begin = now_ms();
    kill(server.pid, SIGINT);
    while (server.fd >= 0 && now_ms() - begin < 5000u)
        pump(100);
    if (server.fd >= 0)
        kill(server.pid, SIGKILL);
}

int main(int argc, char **argv)
{
    demo_setup setup;
    char hits[DEMO_TEXT_MAX + 16], timeline[DEMO_TEXT_MAX + 16];
    int rc, i, started = 0;
    rc = demo_options_load(&opt, DEMO_FOR_LAUNCHER, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    demo_host_catch_interrupt();
    zl_port_clock_only(&clock_hal);
    if (mkdir(opt.out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "zl_demo: cannot create %s: %s\n", opt.out, strerror(errno));
        return 1;
    }
    if (opt.broadcast[0]) {
        if (mkdir(opt.broadcast, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, "zl_demo: cannot create %s: %s\n", opt.broadcast, strerror(errno));
            return 1;
        }
        printf("zl_demo: broadcasting to %s/ with a %lu s delay; to watch, serve that folder "
               "(e.g. python3 -m http.server -d %s 8080) and run zl_client --watch "
               "http://127.0.0.1:8080 (docs/DEMO.md)\n",
               opt.broadcast, (unsigned long)(opt.tv_delay_ms / 1000u), opt.broadcast);
    }
    memset(&setup, 0, sizeof setup);
    setup.bots = opt.bots;
    setup.duration_s = opt.duration_s;
    setup.tickrate = opt.tickrate;
    setup.updaterate = opt.updaterate;
    setup.fakelag_ms = opt.fakelag_ms;
    setup.fakejitter_ms = opt.fakejitter_ms;
    setup.fakeloss_ppm = opt.fakeloss_ppm;
    setup.fakeburst = opt.fakeburst;
    setup.fakespike_ms = opt.fakespike_ms;
    setup.lagcomp = !opt.nolagcomp;
    setup.sealed = !opt.plain;
    demo_match_init(&match, &setup, now_ms());
    printf("zerolag demo: a server and %lu bots, each its own process, over UDP on 127.0.0.1;\n"
           "every bot's link goes through the link conditioner: %lu ms round trip, +/-%lu ms "
           "jitter, %.1f%% loss each way%s.\n",
           (unsigned long)opt.bots, (unsigned long)opt.fakelag_ms,
           (unsigned long)opt.fakejitter_ms, opt.fakeloss_ppm / 10000.0,
           demo_report_stalls(opt.fakeburst, opt.fakespike_ms));
    if (start_server() != 0) {
        fprintf(stderr, "zl_demo: the server did not start; see %s/server.log\n", opt.out);
        if (server.pid > 0)
            kill(server.pid, SIGKILL);
        return 1;
    }
    for (i = 0; i < (int)opt.bots; i++)
        started += start_bot(i) == 0;
    if (started < (int)opt.bots)
        fprintf(stderr, "zl_demo: %d of %lu bots could not start\n", (int)opt.bots - started,
                (unsigned long)opt.bots);
    watch();
    stop_server();
    while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
        ;
    snprintf(hits, sizeof hits, "%s/hits.svg", opt.out);
    snprintf(timeline, sizeof timeline, "%s/timeline.svg", opt.out);
    demo_report_final(stdout, &match, demo_pictures_hits(&match, hits) == 0 ? hits : NULL,
                      demo_pictures_timeline(&match, timeline) == 0 ? timeline : NULL, opt.out);
    return 0;
}
