/* slip_bridge.c - joins an emulated board's serial line (QEMU -serial udp:...)
 * to a UDP server: SLIP frames from the board become datagrams, and back. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "zl_port.h"
#include "zl_slip.h"

/* How long the loop naps when neither side had anything: short next to a
 * 16 ms frame, long enough not to spin a shared machine. */
#define IDLE_NS 100000L

static const char usage[] =
    "usage: slip_bridge LISTEN_PORT QEMU_PORT SERVER [SECONDS]\n"
    "  QEMU runs with -serial udp:127.0.0.1:LISTEN_PORT@127.0.0.1:QEMU_PORT;\n"
    "  SERVER is the game server (e.g. 127.0.0.1:27015). Runs SECONDS (default:\n"
    "  until killed), then prints its counters.\n";

typedef struct bridge {
    zl_port serial_port, game_port;
    zl_platform serial, game;
    zl_addr qemu, server;
    zl_slip_decoder up;           /* bytes from the board */
    uint8_t up_frame[ZL_MAX_PACKET];   /* the frame being decoded */
    uint8_t down_frame[ZL_MAX_PACKET]; /* a datagram from the server */
    uint32_t frames_up, frames_down, strays, send_errors;
} bridge;

static bridge b;

static int parse_port(const char *text, uint16_t *out)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*end != '\0' || v <= 0 || v > 65535)
        return 0;
    *out = (uint16_t)v;
    return 1;
}

/* Bytes from the board: a completed frame goes to the server as is. */
static int serial_to_game(void)
{
    uint8_t chunk[ZL_MAX_PACKET];
    zl_addr from;
    int n, i, moved = 0;
    while ((n = b.serial.receive(b.serial.ctx, &from, chunk, sizeof chunk)) != ZL_ERR_AGAIN) {
        moved = 1;
        if (n < 0 || !zl_addr_equal(&from, &b.qemu)) {
            b.strays++;
            continue;
        }
        for (i = 0; i < n; i++) {
            int len = zl_slip_decoder_push(&b.up, chunk[i]);
            if (len <= 0)
                continue;
            b.frames_up++;
            if (b.game.send(b.game.ctx, &b.server, b.up.buf, (size_t)len) != ZL_OK)
                b.send_errors++;
        }
    }
    return moved;
}

/* A datagram from the server goes to the board as one SLIP frame, in
 * pieces no larger than a datagram (the serial line is a byte stream). */
static int game_to_serial(void)
{
    zl_addr from;
    int n, moved = 0;
    while ((n = b.game.receive(b.game.ctx, &from, b.down_frame, sizeof b.down_frame)) != ZL_ERR_AGAIN) {
        zl_slip_encoder e;
        uint8_t piece[ZL_MAX_PACKET];
        size_t len;
        moved = 1;
        if (n <= 0 || !zl_addr_equal(&from, &b.server)) {
            b.strays++;
            continue;
        }
        b.frames_down++;
        zl_slip_encoder_start(&e, b.down_frame, (size_t)n);
        while ((len = zl_slip_encoder_write(&e, piece, sizeof piece)) > 0)
            if (b.serial.send(b.serial.ctx, &b.qemu, piece, len) != ZL_OK)
                b.send_errors++;
    }
    return moved;
}

int main(int argc, char **argv)
{
    zl_addr listen_addr, any;
    uint16_t listen_port, qemu_port;
    uint64_t end_us = UINT64_MAX;
    if (argc < 4 || argc > 5 || !parse_port(argv[1], &listen_port) ||
        !parse_port(argv[2], &qemu_port) || zl_addr_parse(&b.server, argv[3]) != ZL_OK ||
        b.server.port == 0) {
        fputs(usage, stderr);
        return 2;
    }
    listen_addr = zl_addr_ipv4(127, 0, 0, 1, listen_port);
    b.qemu = zl_addr_ipv4(127, 0, 0, 1, qemu_port);
    any = zl_addr_ipv4(0, 0, 0, 0, 0);
    if (b.server.family == ZL_ADDR_IPV6)
        zl_addr_parse(&any, "::");
    if (zl_port_open(&b.serial_port, &listen_addr, &b.serial) != ZL_OK ||
        zl_port_open(&b.game_port, &any, &b.game) != ZL_OK) {
        fprintf(stderr, "slip_bridge: cannot bind 127.0.0.1:%u\n", (unsigned)listen_port);
        return 1;
    }
    zl_slip_decoder_init(&b.up, b.up_frame, sizeof b.up_frame);
    if (argc == 5)
        end_us = b.serial.now_us(b.serial.ctx) + (uint64_t)strtoul(argv[4], NULL, 10) * 1000000u;
    while (b.serial.now_us(b.serial.ctx) < end_us) {
        int moved = serial_to_game();
        moved |= game_to_serial();
        if (!moved) {
            struct timespec nap = {0, IDLE_NS};
            nanosleep(&nap, NULL);
        }
    }
    printf("slip_bridge: %u frames up, %u down; dropped up: %u oversize, %u garbled; "
           "%u strays, %u send errors\n",
           (unsigned)b.frames_up, (unsigned)b.frames_down, (unsigned)b.up.stats.oversize,
           (unsigned)b.up.stats.garbled, (unsigned)b.strays, (unsigned)b.send_errors);
    zl_port_close(&b.serial_port);
    zl_port_close(&b.game_port);
    return 0;
}
