/* demo_host_windows.c - the demo's operating-system needs on Windows:
 * Sleep, the wall clock, the C signal for Ctrl-C, a conio keyboard and non-blocking TCP
 * (Winsock, started by the port's UDP socket). */
#include <winsock2.h>
#include <ws2tcpip.h>

#include <conio.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "demo_host.h"

static volatile sig_atomic_t interrupted;
static DWORD saved_out_mode;
static int console_set;

uint64_t demo_host_unix_ms(void)
{
    FILETIME ft;
    uint64_t t;
    GetSystemTimeAsFileTime(&ft); /* 100 ns units since 1601 */
    t = (uint64_t)ft.dwHighDateTime << 32 | ft.dwLowDateTime;
    return t / 10000u - 11644473600000ull;
}

void demo_host_sleep_us(uint32_t us)
{
    Sleep(us / 1000u);
}

static void on_signal(int sig)
{
    interrupted = 1;
    signal(sig, on_signal); /* the C runtime resets the handler each time */
}

void demo_host_catch_interrupt(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
}

int demo_host_interrupted(void)
{
    return interrupted != 0;
}

int demo_host_is_terminal(void)
{
    return _isatty(_fileno(stdin)) && _isatty(_fileno(stdout));
}

int demo_host_keyboard_raw(void)
{
    HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
    if (!demo_host_is_terminal() || !GetConsoleMode(out, &saved_out_mode))
        return -1;
    /* 0x0004 is ENABLE_VIRTUAL_TERMINAL_PROCESSING: ANSI escape codes. */
    SetConsoleMode(out, saved_out_mode | 0x0004);
    console_set = 1;
    return 0;
}

void demo_host_keyboard_restore(void)
{
    if (console_set)
        SetConsoleMode(GetStdHandle(STD_OUTPUT_HANDLE), saved_out_mode);
    console_set = 0;
}

int demo_host_key(void)
{
    int ch;
    if (!_kbhit())
        return -1;
    ch = _getch();
    if (ch != 0 && ch != 0xE0)
        return ch;
    /* Extended keys come as a prefix and a scan code. */
    switch (_getch()) {
    case 72: return DEMO_KEY_UP;
    case 80: return DEMO_KEY_DOWN;
    case 75: return DEMO_KEY_LEFT;
    case 77: return DEMO_KEY_RIGHT;
    default: return -1;
    }
}

/* Winsock handles are small integers in practice: the demo keeps them as int. */
static int nonblocking(SOCKET s)
{
    u_long on = 1;
    if (s == INVALID_SOCKET)
        return -1;
    if (ioctlsocket(s, (long)FIONBIO, &on) != 0) {
        closesocket(s);
        return -1;
    }
    return (int)s;
}

static int ipv4(struct sockaddr_in *sa, const char *text, uint16_t port)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(port);
    return InetPtonA(AF_INET, text, &sa->sin_addr) == 1;
}

int demo_host_tcp_listen(const char *text, uint16_t port)
{
    struct sockaddr_in sa;
    SOCKET s;
    if (!ipv4(&sa, text, port) || (s = socket(AF_INET, SOCK_STREAM, 0)) == INVALID_SOCKET)
        return -1;
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 8) != 0) {
        closesocket(s);
        return -1;
    }
    return nonblocking(s);
}

int demo_host_tcp_accept(int listener)
{
    SOCKET s = accept((SOCKET)listener, NULL, NULL);
    return s == INVALID_SOCKET ? -1 : nonblocking(s);
}

int demo_host_tcp_connect(uint16_t port)
{
    struct sockaddr_in sa;
    SOCKET s;
    int fd;
    if (!ipv4(&sa, "127.0.0.1", port) || (fd = nonblocking(socket(AF_INET, SOCK_STREAM, 0))) < 0)
        return -1;
    s = (SOCKET)fd;
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0 &&
        WSAGetLastError() != WSAEWOULDBLOCK) {
        closesocket(s);
        return -1;
    }
    return fd;
}

static int not_now(void)
{
    int e = WSAGetLastError();
    return e == WSAEWOULDBLOCK || e == WSAENOTCONN || e == WSAEINPROGRESS;
}

int demo_host_tcp_send(int s, const void *buf, size_t len)
{
    int n = send((SOCKET)s, (const char *)buf, (int)len, 0);
    return n >= 0 ? n : not_now() ? 0 : -1;
}

int demo_host_tcp_recv(int s, void *buf, size_t cap)
{
    int n = recv((SOCKET)s, (char *)buf, (int)cap, 0);
    if (n > 0)
        return n;
    if (n == 0)
        return -1;
    return not_now() ? 0 : -2;
}

void demo_host_tcp_close(int s)
{
    if (s >= 0)
        closesocket((SOCKET)s);
}
