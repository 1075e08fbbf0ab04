/* zl_uart.h - a HAL transport over the mps2-an385's CMSDK UART0: datagrams as
 * SLIP frames on a point-to-point serial line to one peer (a host bridge). */
#ifndef ZL_UART_H
#define ZL_UART_H

#include "zl_platform.h"
#include "zl_slip.h"

/* What the line has seen since zl_port_uart_open. */
typedef struct zl_port_uart_stats {
    zl_slip_stats rx;      /* frames received, and those dropped (oversize,
                              garbled) by the decoder */
    uint32_t sent;         /* datagrams accepted by send */
    uint32_t busy;         /* sends refused (ZL_ERR_AGAIN): the previous
                              frame was still going out */
    uint32_t rx_overruns;  /* bytes the UART lost because nobody read it in
                              time (the frame then fails its CRC upstream) */
} zl_port_uart_stats;

/* The line's state. Caller-owned (static storage); fields private. It costs
 * 2 x ZL_MAX_PACKET bytes: one frame being received, one being sent. */
typedef struct zl_port_uart {
    zl_addr peer;       /* the one address the line reaches */
    zl_slip_decoder rx;
    zl_slip_encoder tx;
    uint32_t sent, busy, rx_overruns;
    uint8_t rx_buf[ZL_MAX_PACKET];
    uint8_t tx_buf[ZL_MAX_PACKET];
} zl_port_uart;

/* Programs UART0 for `baud` (8N1; on QEMU any rate works, the line is as fast
 * as the host) and fills *hal with a transport to `peer`, with the port's
 * SysTick clock and random generator (zl_port_clock_only):
 *  - send: to must be `peer` (anything else: ZL_ERR_UNSUPPORTED, a serial
 *    line has no other destination); the datagram is copied and goes out
 *    as one SLIP frame, as fast as the transmit register takes it. A send
 *    while the previous frame is still going out returns ZL_ERR_AGAIN (the
 *    datagram is dropped, as a full socket buffer would), never blocks.
 *  - receive: reads what the UART holds; a completed frame is returned with
 *    *from = peer; a frame longer than ZL_MAX_PACKET or than cap is
 *    ZL_ERR_TRUNCATED (consumed); otherwise ZL_ERR_AGAIN. Garbled frames
 *    are dropped and counted.
 * There are no interrupts: every send and receive also moves pending bytes,
 * so call receive at least every frame (the UART holds one byte each way;
 * at real baud rates a byte lasts 10 bit times, 87 us at 115200).
 * Returns ZL_OK, or ZL_ERR_INVALID for a peer of family NONE or a baud rate
 * the 25 MHz clock cannot divide to (above 1562500). One UART0: open once. */
int zl_port_uart_open(zl_port_uart *u, const zl_addr *peer, uint32_t baud, zl_platform *hal);

/* Moves bytes until the frame being sent is fully out (blocking): call it
 * before the program ends, or the tail of the last frame is lost. */
void zl_port_uart_flush(zl_port_uart *u);

void zl_port_uart_get_stats(const zl_port_uart *u, zl_port_uart_stats *out);

#endif
