/* fp_board_host.c - the footprint programs on a host: a UDP socket of the
 * POSIX port that talks only to itself, and stdout. */
#include <stdio.h>

#include "fp.h"
#include "zl_port.h"

static zl_port port;

int fp_board_open(zl_platform *net, zl_addr *peer)
{
    zl_addr local;
    int r;
    zl_addr_parse(&local, "127.0.0.1:0");
    r = zl_port_open(&port, &local, net);
    if (r == ZL_OK)
        r = zl_port_local_addr(&port, peer);
    if (r != ZL_OK)
        fprintf(stderr, "no UDP socket on 127.0.0.1: %s\n", zl_strerror(r));
    return r;
}

void fp_board_close(void) { zl_port_close(&port); }

/* The socket keeps no counters of its own. */
void fp_board_report(void) {}

void fp_board_write(const char *text, size_t len)
{
    (void)fwrite(text, 1, len, stdout);
    (void)fflush(stdout);
}

/* A hosted stack is the operating system's: not measured here. */
void fp_board_stack_paint(void) {}

uint32_t fp_board_stack_used(void) { return 0; }
