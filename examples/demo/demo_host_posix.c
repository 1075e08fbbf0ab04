/* demo_host_posix.c - the demo's operating-system needs on POSIX systems:
 * nanosleep, the wall clock, sigaction, a termios raw keyboard and non-blocking TCP. */
#define _POSIX_C_SOURCE 200809L

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "demo_host.h"

static volatile sig_atomic_t interrupted;
static struct termios saved_tty;
static int tty_raw;

uint64_t demo_host_unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void demo_host_sleep_us(uint32_t us)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(us / 1000000u);
    ts.tv_nsec = (long)(us % 1000000u) * 1000L;
    nanosleep(&ts, NULL);
}

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

void demo_host_catch_interrupt(void)
{
    struct sigaction sa;
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A launcher that stopped reading our output must not kill us before
     * we have said goodbye to the server. */
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int demo_host_interrupted(void)
{
    return interrupted != 0;
}

int demo_host_is_terminal(void)
{
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

int demo_host_keyboard_raw(void)
{
    struct termios raw;
    if (!demo_host_is_terminal() || tcgetattr(STDIN_FILENO, &saved_tty) != 0)
        return -1;
    raw = saved_tty;
    /* Keep ISIG: Ctrl-C still raises SIGINT and takes the clean way out. */
    raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
    raw.c_iflag &= (tcflag_t) ~(IXON | ICRNL);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0)
        return -1;
    tty_raw = 1;
    return 0;
}

void demo_host_keyboard_restore(void)
{
    if (tty_raw)
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
    tty_raw = 0;
}

static int read_byte(void)
{
    unsigned char ch;
    return read(STDIN_FILENO, &ch, 1) == 1 ? ch : -1;
}

int demo_host_key(void)
{
    int ch = read_byte();
    if (ch != 0x1b)
        return ch;
    /* An arrow is ESC [ A..D, and its bytes arrive together. */
    if (read_byte() != '[')
        return 0x1b;
    switch (read_byte()) {
    case 'A': return DEMO_KEY_UP;
    case 'B': return DEMO_KEY_DOWN;
    case 'C': return DEMO_KEY_RIGHT;
    case 'D': return DEMO_KEY_LEFT;
    default: return 0x1b;
    }
}

static int nonblocking(int s)
{
    int flags = fcntl(s, F_GETFL, 0);
    if (flags < 0 || fcntl(s, F_SETFL, flags | O_NONBLOCK) != 0) {
        close(s);
        return -1;
    }
    return s;
}

static int ipv4(struct sockaddr_in *sa, const char *text, uint16_t port)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons(port);
    return inet_pton(AF_INET, text, &sa->sin_addr) == 1;
}

int demo_host_tcp_listen(const char *text, uint16_t port)
{
    struct sockaddr_in sa;
    int one = 1, s;
    if (!ipv4(&sa, text, port) || (s = socket(AF_INET, SOCK_STREAM, 0)) < 0)
        return -1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 8) != 0) {
        close(s);
        return -1;
    }
    return nonblocking(s);
}

int demo_host_tcp_accept(int listener)
{
    int s = accept(listener, NULL, NULL);
    return s < 0 ? -1 : nonblocking(s);
}

int demo_host_tcp_connect(uint16_t port)
{
    struct sockaddr_in sa;
    int s;
    if (!ipv4(&sa, "127.0.0.1", port) || (s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        nonblocking(s) < 0)
        return -1;
    if (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        close(s);
        return -1;
    }
    return s;
}

int demo_host_tcp_send(int s, const void *buf, size_t len)
{
    ssize_t n = send(s, buf, len, MSG_NOSIGNAL);
    if (n >= 0)
        return (int)n;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN || errno == EINTR ? 0 : -1;
}

int demo_host_tcp_recv(int s, void *buf, size_t cap)
{
    ssize_t n = recv(s, buf, cap, 0);
    if (n > 0)
        return (int)n;
    if (n == 0)
        return -1;
    return errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOTCONN || errno == EINTR ? 0 : -2;
}

void demo_host_tcp_close(int s)
{
    if (s >= 0)
        close(s);
}
