/* demo_host_windows.c - the demo's operating-system needs on Windows:
 * Sleep, the wall clock, the C signal for Ctrl-C, and a conio keyboard. */
#include <conio.h>
#include <io.h>
#include <signal.h>
#include <stdio.h>
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
