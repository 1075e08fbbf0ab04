/* demo_impact.c - writes and reads the impact message, bounds checked: the
 * bytes come from the network. */
#include "demo_impact.h"
#include "zl_bytes.h"
#include "zl_config.h"

static uint8_t *put_box(uint8_t *p, const zl_box *b)
{
    const zl_fx v[6] = {b->min.x, b->min.y, b->min.z, b->max.x, b->max.y, b->max.z};
    int i;
    for (i = 0; i < 6; i++, p += 4)
        zl_put_le32(p, (uint32_t)v[i]);
    return p;
}

static const uint8_t *get_box(const uint8_t *p, zl_box *b)
{
    zl_fx v[6];
    int i;
    for (i = 0; i < 6; i++, p += 4)
        v[i] = (zl_fx)zl_get_le32(p);
    b->min = zl_vec3_make(v[0], v[1], v[2]);
    b->max = zl_vec3_make(v[3], v[4], v[5]);
    return p;
}

void demo_impact_write(uint8_t out[DEMO_MSG_IMPACT_BYTES], const demo_impact *i)
{
    out[0] = DEMO_MSG_IMPACT;
    out[1] = (uint8_t)i->target;
    zl_put_le32(out + 2, i->sequence);
    put_box(put_box(out + 6, &i->rewound), &i->current);
}

int demo_impact_read(const uint8_t *msg, size_t len, demo_impact *out)
{
    if (len != DEMO_MSG_IMPACT_BYTES || msg[0] != DEMO_MSG_IMPACT || msg[1] >= ZL_MAX_CLIENTS)
        return 0;
    out->target = msg[1];
    out->sequence = zl_get_le32(msg + 2);
    get_box(get_box(msg + 6, &out->rewound), &out->current);
    return 1;
}
