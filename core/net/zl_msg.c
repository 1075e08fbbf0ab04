/* zl_msg.c - one writer and one reader for every fixed-size message,
 * driven by a table of each message's fields. */
#include <stddef.h>
#include <string.h>

#include "zl_msg.h"

#define TICK_RATE_MAX 1000u

/* What one field of a message struct is on the wire. */
enum {
    F_U64,     /* 64 bits */
    F_UINT,    /* bits (8, 16 or 32, the member's width), valid lo .. hi */
    F_SETTINGS, /* zl_client_settings_write's code */
    F_BYTES     /* bits / 8 bytes as they are */
};

typedef struct msg_field {
    uint8_t kind;
    uint16_t bits;
    uint16_t offset;
    uint32_t lo, hi;
} msg_field;

#define MSG_FIELDS_MAX 7

typedef struct msg_layout {
    uint16_t size;        /* payload bytes, padding included */
    uint16_t struct_size; /* bytes of the message struct */
    uint8_t count;
    msg_field field[MSG_FIELDS_MAX];
} msg_layout;

#define U64(type, member) {F_U64, 64, offsetof(type, member), 0, 0}
#define UINT(type, member, bits, lo, hi) {F_UINT, bits, offsetof(type, member), lo, hi}
#define ANY32(type, member) UINT(type, member, 32, 0, 0xFFFFFFFFu)
#define SETTINGS(type, member) {F_SETTINGS, 0, offsetof(type, member), 0, 0}
#define BYTES(type, member) {F_BYTES, 8 * sizeof(((type *)0)->member), offsetof(type, member), 0, 0}
/* A zl_msg_token member: expiry, nonce, sealed part. */
#define TOKEN(type, member)                                                                       \
    U64(type, member.expire_s), BYTES(type, member.nonce), BYTES(type, member.sealed)

/* CHALLENGE is the head of RESPONSE: the client echoes it verbatim. DENY and
 * DISCONNECT share one layout: the nonce and a reason below its count. */
static const msg_layout layouts[ZL_MSG_TYPE_COUNT] = {
    [ZL_MSG_REQUEST] = {ZL_REQUEST_SIZE, sizeof(zl_msg_request), 3,
                        {ANY32(zl_msg_request, protocol_id), U64(zl_msg_request, nonce),
                         SETTINGS(zl_msg_request, settings)}},
    [ZL_MSG_CHALLENGE] = {ZL_CHALLENGE_SIZE, sizeof(zl_msg_challenge), 3,
                          {U64(zl_msg_challenge, nonce), ANY32(zl_msg_challenge, window),
                           U64(zl_msg_challenge, cookie)}},
    [ZL_MSG_RESPONSE] = {ZL_REQUEST_SIZE, sizeof(zl_msg_response), 4,
                         {U64(zl_msg_response, nonce), ANY32(zl_msg_response, window),
                          U64(zl_msg_response, cookie), SETTINGS(zl_msg_response, settings)}},
    [ZL_MSG_ACCEPT] = {ZL_ACCEPT_SIZE, sizeof(zl_msg_accept), 5,
                       {U64(zl_msg_accept, nonce),
                        UINT(zl_msg_accept, slot, 16, 0, ZL_MAX_CLIENTS - 1u),
                        UINT(zl_msg_accept, tick_rate, 16, 1, TICK_RATE_MAX),
                        ANY32(zl_msg_accept, server_tick), SETTINGS(zl_msg_accept, settings)}},
    [ZL_MSG_DENY] = {ZL_DENY_SIZE, sizeof(zl_msg_deny), 2,
                     {U64(zl_msg_deny, nonce), UINT(zl_msg_deny, reason, 8, 0, ZL_DENY_COUNT - 1u)}},
    [ZL_MSG_KEEPALIVE] = {ZL_KEEPALIVE_SIZE, sizeof(zl_msg_keepalive), 1,
                          {U64(zl_msg_keepalive, nonce)}},
    [ZL_MSG_DISCONNECT] = {ZL_DISCONNECT_SIZE, sizeof(zl_msg_disconnect), 2,
                           {U64(zl_msg_disconnect, nonce),
                            UINT(zl_msg_disconnect, reason, 8, 0, ZL_DISCONNECT_COUNT - 1u)}},
    [ZL_MSG_SETTINGS] = {ZL_SETTINGS_MSG_SIZE, sizeof(zl_msg_settings), 2,
                         {U64(zl_msg_settings, nonce), SETTINGS(zl_msg_settings, settings)}},
    [ZL_MSG_PATH_CHALLENGE] = {ZL_PATH_SIZE, sizeof(zl_msg_path), 2,
                               {U64(zl_msg_path, nonce), U64(zl_msg_path, token)}},
    [ZL_MSG_PATH_RESPONSE] = {ZL_PATH_SIZE, sizeof(zl_msg_path), 2,
                              {U64(zl_msg_path, nonce), U64(zl_msg_path, token)}},
    [ZL_MSG_CONTROL] = {ZL_CONTROL_SIZE, sizeof(zl_msg_control), 4,
                        {U64(zl_msg_control, nonce),
                         UINT(zl_msg_control, kind, 8, 0, ZL_CONTROL_COUNT - 1u),
                         ANY32(zl_msg_control, match_id), ANY32(zl_msg_control, tick)}},
    [ZL_MSG_TOKEN_REQUEST] = {ZL_TOKEN_REQUEST_SIZE, sizeof(zl_msg_token_request), 6,
                              {ANY32(zl_msg_token_request, protocol_id),
                               U64(zl_msg_token_request, nonce),
                               SETTINGS(zl_msg_token_request, settings),
                               TOKEN(zl_msg_token_request, token)}},
    [ZL_MSG_TOKEN_RESPONSE] = {ZL_TOKEN_REQUEST_SIZE, sizeof(zl_msg_token_response), 7,
                               {U64(zl_msg_token_response, nonce),
                                ANY32(zl_msg_token_response, window),
                                U64(zl_msg_token_response, cookie),
                                SETTINGS(zl_msg_token_response, settings),
                                TOKEN(zl_msg_token_response, token)}},
};

static const msg_layout *layout_of(uint8_t type)
{
    ZL_ASSERT(type < ZL_MSG_TYPE_COUNT && layouts[type].size > 0);
    return &layouts[type];
}

size_t zl_msg_size(uint8_t type)
{
    return layout_of(type)->size;
}

/* A struct member of the field's width, as a number. */
static uint32_t get_member(const void *msg, const msg_field *f)
{
    const uint8_t *p = (const uint8_t *)msg + f->offset;
    uint32_t v32;
    uint16_t v16;
    if (f->bits == 8)
        return *p;
    if (f->bits == 16) {
        memcpy(&v16, p, sizeof v16);
        return v16;
    }
    memcpy(&v32, p, sizeof v32);
    return v32;
}

static void set_member(void *msg, const msg_field *f, uint32_t v)
{
    uint8_t *p = (uint8_t *)msg + f->offset;
    uint16_t v16 = (uint16_t)v;
    if (f->bits == 8)
        *p = (uint8_t)v;
    else if (f->bits == 16)
        memcpy(p, &v16, sizeof v16);
    else
        memcpy(p, &v, sizeof v);
}

static int field_valid(const void *msg, const msg_field *f)
{
    uint32_t v;
    if (f->kind == F_SETTINGS)
        return zl_client_settings_valid(
            (const zl_client_settings *)(const void *)((const uint8_t *)msg + f->offset));
    if (f->kind != F_UINT)
        return 1;
    v = get_member(msg, f);
    return v >= f->lo && v <= f->hi;
}

int zl_msg_write(uint8_t type, void *buf, size_t cap, const void *msg)
{
    const msg_layout *l = layout_of(type);
    zl_bitwriter w;
    uint32_t left;
    unsigned i;
    ZL_ASSERT(msg && (buf || cap == 0));
    for (i = 0; i < l->count; i++)
        if (!field_valid(msg, &l->field[i]))
            return ZL_ERR_INVALID;
    if (cap < l->size)
        return ZL_ERR_OVERFLOW;
    zl_bitwriter_init(&w, buf, l->size);
    for (i = 0; i < l->count; i++) {
        const msg_field *f = &l->field[i];
        const uint8_t *member = (const uint8_t *)msg + f->offset;
        uint64_t v64;
        if (f->kind == F_U64) {
            memcpy(&v64, member, sizeof v64);
            zl_bitwriter_bits(&w, (uint32_t)v64, 32);
            zl_bitwriter_bits(&w, (uint32_t)(v64 >> 32), 32);
        } else if (f->kind == F_UINT) {
            zl_bitwriter_bits(&w, get_member(msg, f), f->bits);
        } else if (f->kind == F_BYTES) {
            unsigned k;
            for (k = 0; k < f->bits / 8u; k++)
                zl_bitwriter_bits(&w, member[k], 8);
        } else {
            zl_client_settings_write(&w, (const zl_client_settings *)(const void *)member);
        }
    }
    /* Each message has one size and zero padding: one message has exactly
     * one encoding, and a reply's size is known in advance. */
    zl_bitwriter_align(&w);
    for (left = (uint32_t)l->size * 8u - zl_bitwriter_bits_used(&w); left > 0;) {
        unsigned n = left < 32u ? (unsigned)left : 32u;
        zl_bitwriter_bits(&w, 0, n);
        left -= n;
    }
    /* The sizes in the header are this file's promise: a mismatch is a bug here. */
    ZL_ASSERT(w.error == ZL_OK && zl_bitwriter_bits_used(&w) == (uint32_t)l->size * 8u);
    return (int)l->size;
}

static void refuse(zl_bitreader *r)
{
    if (r->error == ZL_OK)
        r->error = ZL_ERR_MALFORMED;
}

int zl_msg_read(uint8_t type, const void *payload, size_t len, void *out)
{
    const msg_layout *l = layout_of(type);
    zl_bitreader r;
    uint32_t left;
    unsigned i;
    ZL_ASSERT(out && (payload || len == 0));
    if (len != l->size) {
        memset(out, 0, l->struct_size);
        return ZL_ERR_MALFORMED;
    }
    zl_bitreader_init(&r, payload, len);
    for (i = 0; i < l->count; i++) {
        const msg_field *f = &l->field[i];
        uint8_t *member = (uint8_t *)out + f->offset;
        if (f->kind == F_U64) {
            uint64_t lo = zl_bitreader_bits(&r, 32);
            uint64_t v64 = lo | (uint64_t)zl_bitreader_bits(&r, 32) << 32;
            memcpy(member, &v64, sizeof v64);
        } else if (f->kind == F_UINT) {
            uint32_t v = zl_bitreader_bits(&r, f->bits);
            if (v < f->lo || v > f->hi)
                refuse(&r);
            set_member(out, f, v);
        } else if (f->kind == F_BYTES) {
            unsigned k;
            for (k = 0; k < f->bits / 8u; k++)
                member[k] = (uint8_t)zl_bitreader_bits(&r, 8);
        } else {
            zl_client_settings_read(&r, (zl_client_settings *)(void *)member);
        }
    }
    /* The size was checked first, so running out of bits also means bad
     * content: every error is ZL_ERR_MALFORMED. */
    while (r.error == ZL_OK && (left = zl_bitreader_bits_left(&r)) > 0)
        if (zl_bitreader_bits(&r, left < 32u ? (unsigned)left : 32u) != 0)
            refuse(&r);
    if (r.error != ZL_OK) {
        memset(out, 0, l->struct_size);
        return ZL_ERR_MALFORMED;
    }
    return ZL_OK;
}
