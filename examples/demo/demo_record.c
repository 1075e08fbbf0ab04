/* demo_record.c - writes and parses the launcher's record lines: a name,
 * then every 32-bit field of the record's struct in order, in decimal. */
#include <stdlib.h>
#include <string.h>

#include "demo_record.h"

typedef struct kind {
    const char *name;
    size_t size;
} kind;

static const kind kinds[DEMO_REC_COUNT] = {
    {"listen", sizeof(demo_rec_listen)},     {"join", sizeof(demo_rec_join)},
    {"leave", sizeof(demo_rec_join)},        {"slot", sizeof(demo_rec_slot)},
    {"verdict", sizeof(demo_rec_verdict)},   {"deadfire", sizeof(demo_rec_deadfire)},
    {"ticks", sizeof(demo_rec_ticks)},       {"drops", sizeof(demo_rec_drops)},
    {"hello", sizeof(demo_rec_hello)},       {"net", sizeof(demo_rec_net)},
    {"shot", sizeof(demo_rec_shot)},         {"bye", sizeof(demo_rec_bye)},
};

/* Records are arrays of 32-bit integers in disguise. */
ZL_STATIC_ASSERT(sizeof(demo_rec_verdict) % 4 == 0 && sizeof(demo_rec_verdict) <= DEMO_REC_MAX_BYTES,
                 demo_rec_verdict_words);
ZL_STATIC_ASSERT(sizeof(demo_rec_net) % 4 == 0 && sizeof(demo_rec_net) <= DEMO_REC_MAX_BYTES,
                 demo_rec_net_words);
ZL_STATIC_ASSERT(sizeof(demo_rec_shot) % 4 == 0, demo_rec_shot_words);
ZL_STATIC_ASSERT(sizeof(demo_rec_slot) % 4 == 0, demo_rec_slot_words);

size_t demo_record_format(char *buf, size_t cap, int type, const void *rec)
{
    size_t i, words = kinds[type].size / 4, n;
    n = (size_t)snprintf(buf, cap, "%s", kinds[type].name);
    for (i = 0; i < words && n < cap; i++) {
        int32_t v;
        memcpy(&v, (const uint8_t *)rec + 4 * i, 4);
        n += (size_t)snprintf(buf + n, cap - n, " %ld", (long)v);
    }
    if (n + 1 < cap) {
        buf[n++] = '\n';
        buf[n] = '\0';
    }
    return n < cap ? n : cap - 1;
}

void demo_record_write(FILE *f, int type, const void *rec)
{
    char line[DEMO_REC_MAX_LINE];
    fwrite(line, 1, demo_record_format(line, sizeof line, type, rec), f);
    fflush(f);
}

void demo_record_put(void *file, int type, const void *rec)
{
    demo_record_write((FILE *)file, type, rec);
}

int demo_record_parse(const char *line, void *rec)
{
    const char *space = strchr(line, ' ');
    size_t name_len = space ? (size_t)(space - line) : strcspn(line, "\r\n");
    int type;
    for (type = 0; type < DEMO_REC_COUNT; type++) {
        const char *p = line + name_len;
        size_t i, words = kinds[type].size / 4;
        if (strlen(kinds[type].name) != name_len || strncmp(kinds[type].name, line, name_len) != 0)
            continue;
        for (i = 0; i < words; i++) {
            char *end;
            long long v = strtoll(p, &end, 10); /* long is 32 bits on some targets */
            int32_t w = (int32_t)v;
            if (end == p || v < INT32_MIN || v > INT32_MAX)
                return -1;
            memcpy((uint8_t *)rec + 4 * i, &w, 4);
            p = end;
        }
        return *p == '\0' || *p == '\n' || *p == '\r' ? type : -1;
    }
    return -1;
}
