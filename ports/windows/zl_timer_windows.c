/* zl_timer_windows.c - the benchmark timer on Windows: the performance
 * counter in nanoseconds. Noisy (and more so under wine), so medians are used. */
#define WIN32_LEAN_AND_MEAN

#include <windows.h>

#include "zl_port.h"

uint64_t zl_port_timer_now(void)
{
    static uint64_t frequency;
    LARGE_INTEGER counter;
    uint64_t ticks;
    if (frequency == 0) {
        LARGE_INTEGER f;
        QueryPerformanceFrequency(&f);
        frequency = (uint64_t)f.QuadPart;
    }
    QueryPerformanceCounter(&counter);
    ticks = (uint64_t)counter.QuadPart;
    /* Split so ticks * 10^9 cannot overflow. */
    return ticks / frequency * 1000000000u + ticks % frequency * 1000000000u / frequency;
}

const char *zl_port_timer_unit(void) { return "ns"; }

int zl_port_timer_exact(void) { return 0; }
