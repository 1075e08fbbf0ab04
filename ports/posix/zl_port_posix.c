/* zl_port_posix.c - the HAL over BSD sockets, clock_gettime and getrandom or
 * /dev/urandom. One file for Linux, macOS, BSD and the qemu-user cross builds. */
#define _POSIX_C_SOURCE 200809L

#include "zl_port.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

/* getrandom(2) needs no file descriptor and works in a chroot; elsewhere
 * /dev/urandom is the portable source. */
#if defined(__linux__) && defined(__has_include)
#if __has_include(<sys/random.h>)
#include <sys/random.h>
#define HAVE_GETRANDOM 1
#endif
#endif

/* A bounded number of retries after errors that say nothing about the call
 * at hand (EINTR, a stale ICMP "connection refused"), so a storm of them
 * cannot hold the caller in a loop. */
#define MAX_RETRIES 8

#define ZL_SOCKLEN socklen_t
#include "zl_sockaddr.h"

static int would_block(int err)
{
    return err == EAGAIN || err == EWOULDBLOCK;
}

static int port_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_port *port = (zl_port *)ctx;
    sockaddr_any sa;
    socklen_t sa_len;
    int attempt;

    ZL_ASSERT(port != NULL && to != NULL && (data != NULL || len == 0));
    if (len == 0 || len > ZL_MAX_PACKET || !port->is_open)
        return ZL_ERR_INVALID;
    sa_len = to_sockaddr(to, &sa);
    if (sa_len == 0)
        return ZL_ERR_INVALID;
    if (to->family != port->family)
        return ZL_ERR_UNSUPPORTED;
    for (attempt = 0; attempt < MAX_RETRIES; attempt++) {
        ssize_t n = sendto(port->fd, data, len, 0, &sa.sa, sa_len);
        if (n >= 0)
            return (size_t)n == len ? ZL_OK : ZL_ERR_IO;
        /* ECONNREFUSED here reports an earlier datagram's ICMP error
         * (BSD and Linux with IP_RECVERR); this one was not sent yet. */
        if (errno == EINTR || errno == ECONNREFUSED)
            continue;
        if (would_block(errno) || errno == ENOBUFS)
            return ZL_ERR_AGAIN;
        return ZL_ERR_IO;
    }
    return ZL_ERR_IO;
}

static int port_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_port *port = (zl_port *)ctx;
    /* Receiving into a buffer one byte larger than any valid datagram
     * detects oversize datagrams without MSG_TRUNC, whose reporting differs
     * across kernels and qemu-user; it also keeps the kernel from ever
     * writing into buf past cap. */
    unsigned char staging[ZL_MAX_PACKET + 1];
    size_t limit = cap < ZL_MAX_PACKET ? cap : ZL_MAX_PACKET;
    int attempt;

    ZL_ASSERT(port != NULL && from != NULL && (buf != NULL || cap == 0));
    if (!port->is_open)
        return ZL_ERR_INVALID;
    for (attempt = 0; attempt < MAX_RETRIES; attempt++) {
        sockaddr_any sa;
        socklen_t sa_len = (socklen_t)sizeof sa;
        ssize_t n = recvfrom(port->fd, staging, sizeof staging, 0, &sa.sa, &sa_len);
        if (n < 0) {
            if (errno == EINTR || errno == ECONNREFUSED)
                continue;
            return would_block(errno) ? ZL_ERR_AGAIN : ZL_ERR_IO;
        }
        if (from_sockaddr(&sa, sa_len, from) != ZL_OK)
            continue; /* not an IP sender: nothing zerolag could answer */
        if ((size_t)n > limit)
            return ZL_ERR_TRUNCATED;
        memcpy(buf, staging, (size_t)n);
        return (int)n;
    }
    return ZL_ERR_AGAIN;
}

static uint64_t port_now_us(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    /* CLOCK_MONOTONIC cannot fail on a system that defines it, and it never
     * goes backwards, unlike the wall clock. */
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int read_urandom(uint8_t *p, size_t len)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ZL_ERR_IO;
    while (len > 0) {
        ssize_t n = read(fd, p, len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            (void)close(fd);
            return ZL_ERR_IO;
        }
        p += n;
        len -= (size_t)n;
    }
    (void)close(fd);
    return ZL_OK;
}

static int port_random(void *ctx, void *out, size_t len)
{
    uint8_t *p = (uint8_t *)out;
    (void)ctx;
    ZL_ASSERT(out != NULL || len == 0);
#ifdef HAVE_GETRANDOM
    while (len > 0) {
        /* Large requests may be served in parts. */
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            /* ENOSYS: a kernel (or emulator) older than getrandom. */
            return errno == ENOSYS ? read_urandom(p, len) : ZL_ERR_IO;
        }
        p += n;
        len -= (size_t)n;
    }
    return ZL_OK;
#else
    return read_urandom(p, len);
#endif
}

static int open_error(int err)
{
    if (err == EAFNOSUPPORT || err == EPROTONOSUPPORT)
        return ZL_ERR_UNSUPPORTED;
    if (err == EADDRINUSE || err == EADDRNOTAVAIL || err == EACCES)
        return ZL_ERR_ADDRESS;
    return ZL_ERR_IO;
}

/* Asks for ZL_PORT_RECEIVE_BUFFER; where the plain request is capped
 * below it, Linux lets a privileged process go past the cap. Neither
 * failing keeps the socket from working, so neither is an error. */
static void grow_receive_buffer(int fd)
{
    int want = (int)ZL_PORT_RECEIVE_BUFFER, got = 0;
    socklen_t len = (socklen_t)sizeof got;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, (socklen_t)sizeof want);
#ifdef SO_RCVBUFFORCE
    if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len) == 0 && got < want)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, (socklen_t)sizeof want);
#else
    (void)got, (void)len;
#endif
}

int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal)
{
    sockaddr_any sa;
    socklen_t sa_len;
    int fd, flags;
    int on = 1;

    ZL_ASSERT(port != NULL && bind_addr != NULL && hal != NULL);
    port->fd = -1;
    port->is_open = 0;
    sa_len = to_sockaddr(bind_addr, &sa);
    if (sa_len == 0)
        return ZL_ERR_INVALID;
    fd = socket(sa.sa.sa_family, SOCK_DGRAM, 0);
    if (fd < 0)
        return open_error(errno);
    /* v6-only keeps one socket per family on every OS; dual-stack defaults
     * differ (Linux on, BSD and Windows off) and mapped peers would show
     * up under a second address. */
    if ((bind_addr->family == ZL_ADDR_IPV6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, (socklen_t)sizeof on) != 0) ||
        fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || (flags = fcntl(fd, F_GETFL)) < 0 ||
        fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || bind(fd, &sa.sa, sa_len) != 0) {
        int err = errno;
        (void)close(fd);
        return open_error(err);
    }
    grow_receive_buffer(fd);
    port->fd = fd;
    port->family = bind_addr->family;
    port->is_open = 1;
    hal->ctx = port;
    hal->send = port_send;
    hal->receive = port_receive;
    hal->now_us = port_now_us;
    hal->random = port_random;
    return ZL_OK;
}

int zl_port_local_addr(const zl_port *port, zl_addr *out)
{
    sockaddr_any sa;
    socklen_t sa_len = (socklen_t)sizeof sa;
    ZL_ASSERT(port != NULL && out != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    if (getsockname(port->fd, &sa.sa, &sa_len) != 0)
        return ZL_ERR_IO;
    return from_sockaddr(&sa, sa_len, out);
}

int zl_port_receive_buffer(const zl_port *port)
{
    int got = 0;
    socklen_t len = (socklen_t)sizeof got;
    ZL_ASSERT(port != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    if (getsockopt(port->fd, SOL_SOCKET, SO_RCVBUF, &got, &len) != 0 || got < 0)
        return ZL_ERR_IO;
    return got;
}

void zl_port_close(zl_port *port)
{
    ZL_ASSERT(port != NULL);
    if (port->is_open)
        (void)close(port->fd);
    port->fd = -1;
    port->is_open = 0;
}

void zl_port_clock_only(zl_platform *hal)
{
    zl_platform_clock_only(hal, 0, port_now_us, port_random);
}
