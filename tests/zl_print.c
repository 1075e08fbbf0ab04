/* zl_print.c - printf-like output for tests and benchmarks that needs no
 * heap and no stdio on bare metal: it formats itself and writes through a hook. */
#include "zl_print.h"

#include <string.h>

#ifdef ZL_PRINT_PORT_OUTPUT
/* The port supplies the output (semihosting on bare metal). */
void zl_port_write_output(const char *s, size_t n);
static void out(const char *s, size_t n) { zl_port_write_output(s, n); }
#else
#include <stdio.h>
static void out(const char *s, size_t n)
{
    fwrite(s, 1, n, stdout);
    fflush(stdout);
}
#endif

/* Formatting (one line at a time, at most 256 bytes): %s %c %d %i %u %x with l/ll/z, width, '-' and '0' flags, and
 * %f / %.Nf for measured figures (at most 9 decimals). */
typedef struct line {
    char buf[256];
    size_t len;
} line;

static void put(line *l, char c)
{
    if (l->len < sizeof l->buf)
        l->buf[l->len++] = c;
}

static void put_padded(line *l, const char *s, size_t n, unsigned width, int left, char pad)
{
    size_t i;
    if (!left)
        for (i = n; i < width; i++)
            put(l, pad);
    for (i = 0; i < n; i++)
        put(l, s[i]);
    if (left)
        for (i = n; i < width; i++)
            put(l, ' ');
}

static size_t utoa(char *dst, unsigned long long v, unsigned base)
{
    char tmp[24];
    size_t n = 0, i;
    do {
        tmp[n++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    for (i = 0; i < n; i++)
        dst[i] = tmp[n - 1 - i];
    return n;
}

static size_t ftoa(char *dst, double v, unsigned decimals)
{
    unsigned long long scale = 1, whole, frac;
    size_t n = 0;
    unsigned i;
    if (decimals > 9)
        decimals = 9;
    for (i = 0; i < decimals; i++)
        scale *= 10;
    if (v < 0) {
        dst[n++] = '-';
        v = -v;
    }
    if (v > 1e18)
        v = 1e18;
    whole = (unsigned long long)v;
    frac = (unsigned long long)((v - (double)whole) * (double)scale + 0.5);
    if (frac >= scale) {
        whole++;
        frac -= scale;
    }
    n += utoa(dst + n, whole, 10);
    if (decimals) {
        char digits[24];
        size_t k = utoa(digits, frac, 10);
        dst[n++] = '.';
        for (i = (unsigned)k; i < decimals; i++)
            dst[n++] = '0';
        memcpy(dst + n, digits, k);
        n += k;
    }
    return n;
}

/* Length modifier of a conversion: count of 'l's, or this for 'z'. */
#define SIZE_T_ARG 3

static void vformat(line *l, const char *fmt, va_list ap)
{
    for (; *fmt; fmt++) {
        char num[48];
        size_t n = 0;
        unsigned width = 0, precision = 6;
        int left = 0, longs = 0;
        char pad = ' ';
        if (*fmt != '%') {
            put(l, *fmt);
            continue;
        }
        fmt++;
        for (; *fmt == '-' || *fmt == '0'; fmt++) {
            if (*fmt == '-')
                left = 1;
            else
                pad = '0';
        }
        for (; *fmt >= '0' && *fmt <= '9'; fmt++)
            width = width * 10 + (unsigned)(*fmt - '0');
        if (*fmt == '.') {
            precision = 0;
            for (fmt++; *fmt >= '0' && *fmt <= '9'; fmt++)
                precision = precision * 10 + (unsigned)(*fmt - '0');
        }
        for (; *fmt == 'l'; fmt++)
            longs++;
        if (*fmt == 'z') {
            longs = SIZE_T_ARG;
            fmt++;
        }
        switch (*fmt) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            put_padded(l, s, strlen(s), width, left, ' ');
            continue;
        }
        case 'c':
            num[n++] = (char)va_arg(ap, int);
            break;
        case 'd':
        case 'i': {
            long long v = longs == SIZE_T_ARG ? (long long)va_arg(ap, size_t)
                          : longs == 2 ? va_arg(ap, long long)
                          : longs == 1 ? va_arg(ap, long) : va_arg(ap, int);
            unsigned long long mag = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
            if (v < 0)
                num[n++] = '-';
            n += utoa(num + n, mag, 10);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long long v = longs == SIZE_T_ARG ? va_arg(ap, size_t)
                                   : longs == 2 ? va_arg(ap, unsigned long long)
                                   : longs == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
            n = utoa(num, v, *fmt == 'x' ? 16u : 10u);
            break;
        }
        case 'f':
            n = ftoa(num, va_arg(ap, double), precision);
            break;
        case '%':
            num[n++] = '%';
            break;
        default: /* unknown conversion: show it rather than guess */
            num[n++] = '%';
            num[n++] = *fmt ? *fmt : '?';
            if (!*fmt)
                fmt--;
            break;
        }
        put_padded(l, num, n, width, left, pad);
    }
}

void zl_vprint(const char *fmt, va_list ap)
{
    line l;
    l.len = 0;
    vformat(&l, fmt, ap);
    out(l.buf, l.len);
}

void zl_print(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    zl_vprint(fmt, ap);
    va_end(ap);
}
