/* zl_client_blocks.c - the client's blocks: paced by its own credit beside the
 * command packets, and the API a game calls. */
#include "zl_client_blocks.h"

/* The credit topped up at the block rate, banking at most one packet. */
static uint32_t credit(zl_client *c, uint64_t now_us)
{
    uint64_t rate = c->config.block_rate ? c->config.block_rate : c->settings.rate;
    c->block_credit += (int64_t)((now_us - c->block_credit_us) * rate / 1000000u);
    c->block_credit_us = now_us;
    if (c->block_credit > ZL_MAX_PACKET)
        c->block_credit = ZL_MAX_PACKET;
    return c->block_credit > 0 ? (uint32_t)c->block_credit : 0u;
}

void zl_client_blocks_join(zl_client *c, uint64_t now_us)
{
    zl_blocks_init(&c->blocks, c->config.block_buffer,
                   c->config.block_buffer ? c->config.block_capacity : 0u);
    c->block_credit = 0;
    c->block_credit_us = now_us;
}

uint8_t zl_client_blocks_attach(zl_client *c, uint8_t *payload, int *bytes, uint64_t now_us)
{
    int before = *bytes;
    uint8_t type;
    if (!zl_blocks_pending(&c->blocks))
        return ZL_MSG_COMMANDS;
    type = zl_blocks_attach(&c->blocks, &c->conn.link, payload, bytes, ZL_MSG_COMMANDS,
                            credit(c, now_us), now_us);
    c->block_credit -= *bytes - before;
    return type;
}

void zl_client_blocks_send(zl_client *c, uint64_t now_us)
{
    int len;
    if (!zl_blocks_pending(&c->blocks))
        return;
    len = zl_blocks_send_alone(&c->blocks, &c->conn, credit(c, now_us), now_us);
    if (len > 0)
        c->block_credit -= len;
}

int zl_client_block_send(zl_client *c, const void *data, uint32_t len)
{
    ZL_ASSERT(c);
    if (c->state != ZL_CLIENT_CONNECTED)
        return ZL_ERR_AGAIN;
    return zl_blocks_send(&c->blocks, data, len);
}

int zl_client_block_received(const zl_client *c, const uint8_t **data)
{
    ZL_ASSERT(c && data);
    return zl_blocks_received(&c->blocks, data);
}

void zl_client_block_release(zl_client *c)
{
    ZL_ASSERT(c);
    zl_blocks_release(&c->blocks);
}

void zl_client_block_progress(const zl_client *c, zl_block_status *sending,
                              zl_block_status *receiving)
{
    ZL_ASSERT(c);
    zl_blocks_progress(&c->blocks, sending, receiving);
}
