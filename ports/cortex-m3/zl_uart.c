/* zl_uart.c - datagrams over CMSDK UART0 by polling: SLIP frames out through
 * the one-byte transmit register, bytes in through the decoder. */
#include "zl_uart.h"

#include <string.h>

#include "zl_port.h"

/* CMSDK APB UART0 of the mps2-an385 (Arm DDI 0479C). */
#define UART0_BASE 0x40004000u
#define UART_DATA (*(volatile uint32_t *)(UART0_BASE + 0x00u))
#define UART_STATE (*(volatile uint32_t *)(UART0_BASE + 0x04u))
#define UART_CTRL (*(volatile uint32_t *)(UART0_BASE + 0x08u))
#define UART_BAUDDIV (*(volatile uint32_t *)(UART0_BASE + 0x10u))
#define STATE_TX_FULL 0x1u
#define STATE_RX_FULL 0x2u
#define STATE_TX_OVERRUN 0x4u
#define STATE_RX_OVERRUN 0x8u
#define CTRL_TX_RX 0x3u
#define UART_CLOCK_HZ 25000000u
#define BAUDDIV_MIN 16u /* the smallest divider the UART accepts */

/* Feeds the transmit register while it has room and the frame has bytes. */
static void pump_tx(zl_port_uart *u)
{
    uint8_t b;
    while (!(UART_STATE & STATE_TX_FULL) && zl_slip_encoder_write(&u->tx, &b, 1) == 1)
        UART_DATA = b;
}

static int uart_send(void *ctx, const zl_addr *to, const void *data, size_t len)
{
    zl_port_uart *u = (zl_port_uart *)ctx;
    if (len == 0 || len > ZL_MAX_PACKET)
        return ZL_ERR_INVALID;
    if (!zl_addr_equal(to, &u->peer))
        return ZL_ERR_UNSUPPORTED;
    pump_tx(u);
    if (!zl_slip_encoder_done(&u->tx)) {
        u->busy++;
        return ZL_ERR_AGAIN;
    }
    /* The caller's bytes are gone when we return; the frame may not be. */
    memcpy(u->tx_buf, data, len);
    zl_slip_encoder_start(&u->tx, u->tx_buf, len);
    u->sent++;
    pump_tx(u);
    return ZL_OK;
}

static int uart_receive(void *ctx, zl_addr *from, void *buf, size_t cap)
{
    zl_port_uart *u = (zl_port_uart *)ctx;
    pump_tx(u);
    if (UART_STATE & STATE_RX_OVERRUN) {
        UART_STATE = STATE_RX_OVERRUN; /* write one to clear */
        u->rx_overruns++;
    }
    while (UART_STATE & STATE_RX_FULL) {
        uint32_t oversize = u->rx.stats.oversize;
        int n = zl_slip_decoder_push(&u->rx, (uint8_t)UART_DATA);
        if (u->rx.stats.oversize != oversize) {
            *from = u->peer;
            return ZL_ERR_TRUNCATED;
        }
        if (n > 0) {
            *from = u->peer;
            if ((size_t)n > cap)
                return ZL_ERR_TRUNCATED;
            memcpy(buf, u->rx.buf, (size_t)n);
            return n;
        }
    }
    return ZL_ERR_AGAIN;
}

int zl_port_uart_open(zl_port_uart *u, const zl_addr *peer, uint32_t baud, zl_platform *hal)
{
    ZL_ASSERT(u && peer && hal);
    if (peer->family == ZL_ADDR_NONE || baud == 0 || UART_CLOCK_HZ / baud < BAUDDIV_MIN)
        return ZL_ERR_INVALID;
    memset(u, 0, sizeof *u); /* the zeroed encoder: nothing to send */
    u->peer = *peer;
    zl_slip_decoder_init(&u->rx, u->rx_buf, sizeof u->rx_buf);
    UART_CTRL = 0;
    UART_BAUDDIV = UART_CLOCK_HZ / baud;
    UART_STATE = STATE_TX_OVERRUN | STATE_RX_OVERRUN;
    UART_CTRL = CTRL_TX_RX;
    /* The board's SysTick clock and generator ignore their ctx, so they
     * serve this HAL as they are. */
    zl_port_clock_only(hal);
    hal->ctx = u;
    hal->send = uart_send;
    hal->receive = uart_receive;
    return ZL_OK;
}

void zl_port_uart_flush(zl_port_uart *u)
{
    ZL_ASSERT(u);
    while (!zl_slip_encoder_done(&u->tx))
        pump_tx(u);
}

void zl_port_uart_get_stats(const zl_port_uart *u, zl_port_uart_stats *out)
{
    ZL_ASSERT(u && out);
    out->rx = u->rx.stats;
    out->sent = u->sent;
    out->busy = u->busy;
    out->rx_overruns = u->rx_overruns;
}
