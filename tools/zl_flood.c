/* zl_flood.c - sends random UDP datagrams (0..1,500 bytes, so a fifth are
 * over ZL_MAX_PACKET) at a given rate to a server, to measure what junk costs it.
 *
 *   zl_flood ADDRESS PORT RATE SECONDS [SEED]
 *
 * IPv4 only; paced each millisecond; on Linux batches go out with sendmmsg,
 * elsewhere one sendto each. Prints what it sent and the rate it reached:
 * a busy machine may not reach the rate asked, and says so. Only ever
 * point it at a server you run. */
#define _GNU_SOURCE

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_LEN 1500
#define BATCH 64
#define VARIANTS 256 /* distinct random datagrams, cycled */

static uint8_t junk[VARIANTS][MAX_LEN];
static size_t junk_len[VARIANTS];

static uint64_t now_us(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Sends n datagrams starting at variant *next; returns how many left. */
static uint64_t send_batch(int fd, const struct sockaddr_in *to, uint64_t n, uint32_t *next)
{
#ifdef __linux__
    struct mmsghdr msg[BATCH];
    struct iovec iov[BATCH];
    uint64_t i;
    int sent;
    if (n > BATCH)
        n = BATCH;
    memset(msg, 0, sizeof msg);
    for (i = 0; i < n; i++) {
        uint32_t v = (*next + (uint32_t)i) % VARIANTS;
        iov[i].iov_base = junk[v];
        iov[i].iov_len = junk_len[v];
        msg[i].msg_hdr.msg_iov = &iov[i];
        msg[i].msg_hdr.msg_iovlen = 1;
        msg[i].msg_hdr.msg_name = (void *)to;
        msg[i].msg_hdr.msg_namelen = sizeof *to;
    }
    sent = sendmmsg(fd, msg, (unsigned)n, 0);
    if (sent <= 0)
        return 0;
    *next += (uint32_t)sent;
    return (uint64_t)sent;
#else
    uint32_t v = *next % VARIANTS;
    (void)n;
    if (sendto(fd, junk[v], junk_len[v], 0, (const struct sockaddr *)to, sizeof *to) < 0)
        return 0;
    *next += 1u;
    return 1;
#endif
}

int main(int argc, char **argv)
{
    struct sockaddr_in to;
    uint64_t rate, seconds, seed = 0x9E3779B97F4A7C15u, start, end, sent = 0, failed = 0;
    uint32_t next = 0, v;
    int fd;
    if (argc < 5) {
        fprintf(stderr, "usage: %s ADDRESS PORT RATE SECONDS [SEED]\n", argv[0]);
        return 2;
    }
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_port = htons((uint16_t)strtoul(argv[2], NULL, 10));
    if (inet_pton(AF_INET, argv[1], &to.sin_addr) != 1) {
        fprintf(stderr, "zl_flood: '%s' is not an IPv4 address\n", argv[1]);
        return 2;
    }
    rate = strtoull(argv[3], NULL, 10);
    seconds = strtoull(argv[4], NULL, 10);
    if (argc > 5)
        seed ^= strtoull(argv[5], NULL, 10);
    for (v = 0; v < VARIANTS; v++) {
        size_t i;
        junk_len[v] = (size_t)(xorshift(&seed) % (MAX_LEN + 1u));
        for (i = 0; i < junk_len[v]; i++)
            junk[v][i] = (uint8_t)xorshift(&seed);
    }
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) {
        perror("zl_flood: socket");
        return 1;
    }
    start = now_us();
    end = start + seconds * 1000000u;
    for (;;) {
        uint64_t t = now_us(), due;
        if (t >= end)
            break;
        /* What the rate owes by now; a slow machine falls behind and the
         * figures below show it. */
        due = (t - start) * rate / 1000000u;
        while (sent + failed < due) {
            uint64_t n = send_batch(fd, &to, due - sent - failed, &next);
            if (n == 0)
                failed++;
            sent += n;
            if (now_us() >= end)
                break;
        }
        if (sent + failed >= due)
            usleep(200);
    }
    {
        double secs = (double)(now_us() - start) / 1e6;
        printf("zl_flood: %llu datagrams in %.1f s: %.0f/s (asked %llu/s), %llu refused by the "
               "local stack\n",
               (unsigned long long)sent, secs, (double)sent / secs, (unsigned long long)rate,
               (unsigned long long)failed);
    }
    close(fd);
    return 0;
}
