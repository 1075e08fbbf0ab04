/* zl_port_windows.c - the HAL over Winsock2, QueryPerformanceCounter and
 * BCryptGenRandom, for Windows 7 and later (built with mingw-w64). */
#define WIN32_LEAN_AND_MEAN

#include "zl_port.h"

#include <string.h>

#include <winsock2.h>
#include <ws2tcpip.h>
#include <mswsock.h>
#include <windows.h>
#include <bcrypt.h>

/* A bounded number of retries after errors that say nothing about the call
 * at hand (a stale ICMP "port unreachable"), so a storm of them cannot hold
 * the caller in a loop. */
#define MAX_RETRIES 8

/* Winsock must be started before the first socket and may be stopped after
 * the last; open and close count the sockets in between. */
static int winsock_users;

#define ZL_SOCKLEN int
#include "zl_sockaddr.h"

static int port_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_port *port = (zl_port *)ctx;
    sockaddr_any sa;
    int sa_len, attempt;

    ZL_ASSERT(port != NULL && to != NULL && (data != NULL || len == 0));
    if (len == 0 || len > ZL_MAX_PACKET || !port->is_open)
        return ZL_ERR_INVALID;
    sa_len = to_sockaddr(to, &sa);
    if (sa_len == 0)
        return ZL_ERR_INVALID;
    if (to->family != port->family)
        return ZL_ERR_UNSUPPORTED;
    for (attempt = 0; attempt < MAX_RETRIES; attempt++) {
        int n = sendto((SOCKET)port->sock, (const char *)data, (int)len, 0, &sa.sa, sa_len);
        int err;
        if (n != SOCKET_ERROR)
            return (size_t)n == len ? ZL_OK : ZL_ERR_IO;
        err = WSAGetLastError();
        /* WSAECONNRESET reports an earlier datagram's ICMP error; this one
         * was not sent yet. */
        if (err == WSAECONNRESET || err == WSAEINTR)
            continue;
        if (err == WSAEWOULDBLOCK || err == WSAENOBUFS)
            return ZL_ERR_AGAIN;
        return ZL_ERR_IO;
    }
    return ZL_ERR_IO;
}

static int port_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_port *port = (zl_port *)ctx;
    /* One byte more than any valid datagram: anything that fills it, or
     * that Winsock reports as WSAEMSGSIZE, is oversize, and the caller's
     * buffer is only written once the length is known to fit. */
    char staging[ZL_MAX_PACKET + 1];
    size_t limit = cap < ZL_MAX_PACKET ? cap : ZL_MAX_PACKET;
    int attempt;

    ZL_ASSERT(port != NULL && from != NULL && (buf != NULL || cap == 0));
    if (!port->is_open)
        return ZL_ERR_INVALID;
    for (attempt = 0; attempt < MAX_RETRIES; attempt++) {
        sockaddr_any sa;
        int sa_len = (int)sizeof sa;
        int n;
        sa.sa.sa_family = AF_UNSPEC; /* stays so if WSAEMSGSIZE leaves it unfilled */
        n = recvfrom((SOCKET)port->sock, staging, (int)sizeof staging, 0, &sa.sa, &sa_len);
        if (n == SOCKET_ERROR) {
            int err = WSAGetLastError();
            if (err == WSAEWOULDBLOCK)
                return ZL_ERR_AGAIN;
            if (err == WSAEMSGSIZE) {
                (void)from_sockaddr(&sa, sa_len, from);
                return ZL_ERR_TRUNCATED;
            }
            /* Stale ICMP errors (port unreachable, TTL expired) from earlier
             * sends, on systems where SIO_UDP_CONNRESET was not honoured. */
            if (err == WSAECONNRESET || err == WSAENETRESET || err == WSAEINTR)
                continue;
            return ZL_ERR_IO;
        }
        if (from_sockaddr(&sa, sa_len, from) != ZL_OK)
            continue; /* not an IP sender: nothing zerolag could answer */
        if ((size_t)n > limit)
            return ZL_ERR_TRUNCATED;
        memcpy(buf, staging, (size_t)n);
        return n;
    }
    return ZL_ERR_AGAIN;
}

static uint64_t port_now_us(void *ctx)
{
    static uint64_t frequency;
    LARGE_INTEGER counter;
    uint64_t ticks;
    (void)ctx;
    /* Both calls always succeed on Windows XP and later. */
    if (frequency == 0) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        frequency = (uint64_t)f.QuadPart;
    }
    QueryPerformanceCounter(&counter);
    ticks = (uint64_t)counter.QuadPart;
    /* Whole seconds and the remainder separately: ticks * 1000000 would
     * overflow after about 21 days of uptime at 10 MHz. */
    return ticks / frequency * 1000000u + ticks % frequency * 1000000u / frequency;
}

static int port_random(void *ctx, void *out, size_t len)
{
    uint8_t *p = (uint8_t *)out;
    (void)ctx;
    ZL_ASSERT(out != NULL || len == 0);
    while (len > 0) {
        ULONG chunk = len > 0x10000000u ? 0x10000000u : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, p, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return ZL_ERR_IO;
        p += chunk;
        len -= chunk;
    }
    return ZL_OK;
}

static int winsock_acquire(void)
{
    WSADATA data;
    if (winsock_users == 0 && WSAStartup(MAKEWORD(2, 2), &data) != 0)
        return ZL_ERR_IO;
    winsock_users++;
    return ZL_OK;
}

static void winsock_release(void)
{
    if (--winsock_users == 0)
        (void)WSACleanup();
}

static int open_error(int err)
{
    if (err == WSAEAFNOSUPPORT || err == WSAEPROTONOSUPPORT || err == WSAEPFNOSUPPORT)
        return ZL_ERR_UNSUPPORTED;
    if (err == WSAEADDRINUSE || err == WSAEADDRNOTAVAIL || err == WSAEACCES)
        return ZL_ERR_ADDRESS;
    return ZL_ERR_IO;
}

/* Options on a fresh socket; returns 0 or a Winsock error code. */
static int configure(SOCKET s, int family)
{
    DWORD on = 1;
    BOOL report_resets = FALSE;
    u_long non_blocking = 1;
    DWORD unused;
    int receive_buffer = (int)ZL_PORT_RECEIVE_BUFFER;
    /* Without this, another program setting SO_REUSEADDR could bind the
     * same port and steal datagrams. */
    if (setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&on, (int)sizeof on) != 0)
        return WSAGetLastError();
    /* v6-only is the Windows default already; set it so no policy change
     * lets mapped IPv4 peers appear under a second address. */
    if (family == ZL_ADDR_IPV6 &&
        setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, (const char *)&on, (int)sizeof on) != 0)
        return WSAGetLastError();
    if (ioctlsocket(s, (long)FIONBIO, &non_blocking) != 0)
        return WSAGetLastError();
    /* Windows reports a previous datagram's ICMP "port unreachable" as a
     * failed recvfrom on an unconnected UDP socket; a server would see one
     * each time a client quits. Not every Winsock implements the switch
     * (receive also skips the error), so its failure is ignored. */
    (void)WSAIoctl(s, SIO_UDP_CONNRESET, &report_resets, (DWORD)sizeof report_resets, NULL, 0,
                   &unused, NULL, NULL);
    /* A bigger buffer only means fewer drops under a burst; the socket
     * works without it, so a refusal is ignored (zl_port_receive_buffer
     * reports what was granted). */
    (void)setsockopt(s, SOL_SOCKET, SO_RCVBUF, (const char *)&receive_buffer,
                     (int)sizeof receive_buffer);
    return 0;
}

int zl_port_open(zl_port *port, const zl_addr *bind_addr, zl_platform *hal)
{
    sockaddr_any sa;
    int sa_len, err;
    SOCKET s;

    ZL_ASSERT(port != NULL && bind_addr != NULL && hal != NULL);
    port->sock = (uintptr_t)INVALID_SOCKET;
    port->is_open = 0;
    sa_len = to_sockaddr(bind_addr, &sa);
    if (sa_len == 0)
        return ZL_ERR_INVALID;
    if (winsock_acquire() != ZL_OK)
        return ZL_ERR_IO;
    s = socket(sa.sa.sa_family, SOCK_DGRAM, IPPROTO_UDP);
    if (s == INVALID_SOCKET) {
        err = WSAGetLastError();
        winsock_release();
        return open_error(err);
    }
    err = configure(s, bind_addr->family);
    if (err == 0 && bind(s, &sa.sa, sa_len) != 0)
        err = WSAGetLastError();
    if (err != 0) {
        (void)closesocket(s);
        winsock_release();
        return open_error(err);
    }
    port->sock = (uintptr_t)s;
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
    int sa_len = (int)sizeof sa;
    ZL_ASSERT(port != NULL && out != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    if (getsockname((SOCKET)port->sock, &sa.sa, &sa_len) != 0)
        return ZL_ERR_IO;
    return from_sockaddr(&sa, sa_len, out);
}

int zl_port_receive_buffer(const zl_port *port)
{
    int got = 0, len = (int)sizeof got;
    ZL_ASSERT(port != NULL);
    if (!port->is_open)
        return ZL_ERR_INVALID;
    if (getsockopt((SOCKET)port->sock, SOL_SOCKET, SO_RCVBUF, (char *)&got, &len) != 0 || got < 0)
        return ZL_ERR_IO;
    return got;
}

void zl_port_close(zl_port *port)
{
    ZL_ASSERT(port != NULL);
    if (port->is_open) {
        (void)closesocket((SOCKET)port->sock);
        winsock_release();
    }
    port->sock = (uintptr_t)INVALID_SOCKET;
    port->is_open = 0;
}

void zl_port_clock_only(zl_platform *hal)
{
    zl_platform_clock_only(hal, 0, port_now_us, port_random);
}
