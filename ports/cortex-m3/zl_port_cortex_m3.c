/* zl_port_cortex_m3.c - HAL for the emulated Cortex-M3: SysTick time,
 * a seeded generator for randomness; the network is ports/common/zl_port_loopnet.c. */
#include "zl_port.h"

#include <unistd.h>

/* SysTick registers (ARMv7-M system control space). */
#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SYSTICK_RELOAD 0xFFFFFFu /* 24-bit counter, longest period */
#define CPU_HZ 25000000u         /* mps2-an385 system clock */

/* The 24-bit down-counter is extended to 64 bits in software: a reading
 * larger than the previous one means the counter reloaded in between. The
 * SysTick interrupt reads it once per period, so no reload goes unseen even
 * when nobody else asks for the time; the interrupt itself may arrive late
 * (QEMU takes it at block boundaries), which is why it is not the count. */
static uint64_t systick_base;
static uint32_t systick_last;

void zl_port_clock_start(void)
{
    SYST_RVR = SYSTICK_RELOAD;
    SYST_CVR = 0; /* clears the counter; it reloads on the next tick */
    systick_last = SYSTICK_RELOAD;
    systick_base = 0;
    SYST_CSR = 7u; /* processor clock, interrupt on wrap, enable */
}

uint64_t zl_port_systick_count(void)
{
    uint32_t primask, value;
    uint64_t count;
    __asm__ volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
    value = SYST_CVR;
    if (value > systick_last)
        systick_base += SYSTICK_RELOAD + 1u;
    systick_last = value;
    count = systick_base + (SYSTICK_RELOAD - value);
    __asm__ volatile("msr primask, %0" ::"r"(primask) : "memory");
    return count;
}

void zl_port_systick_handler(void) { (void)zl_port_systick_count(); }

static uint64_t port_now_us(void *ctx)
{
    (void)ctx;
    return zl_port_systick_count() / (CPU_HZ / 1000000u);
}

/* The board has no hardware RNG, so this is a xorshift generator seeded from
 * the clock: NOT unpredictable. A real product must read its TRNG here,
 * since connection cookies are only as strong as this source. */
static int port_random(void *ctx, void *out, size_t len)
{
    static uint32_t state;
    uint8_t *p = (uint8_t *)out;
    (void)ctx;
    if (state == 0)
        state = (uint32_t)zl_port_systick_count() ^ 0x9E3779B9u;
    while (len--) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        *p++ = (uint8_t)(state >> 24);
    }
    return ZL_OK;
}

void zl_port_clock_only(zl_platform *hal)
{
    zl_platform_clock_only(hal, 0, port_now_us, port_random);
}

void zl_port_write_output(const char *s, size_t n)
{
    /* newlib's write() on rdimon is a semihosting SYS_WRITE: no buffering,
     * so no heap. */
    (void)write(1, s, n);
}
