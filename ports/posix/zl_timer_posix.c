/* zl_timer_posix.c - the benchmark timer on POSIX hosts: the monotonic
 * clock in nanoseconds. Noisy, so the harness reports medians of batches. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "zl_port.h"

uint64_t zl_port_timer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *zl_port_timer_unit(void) { return "ns"; }

int zl_port_timer_exact(void) { return 0; }
