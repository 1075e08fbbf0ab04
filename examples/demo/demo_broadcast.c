/* demo_broadcast.c - writes each published fragment to a file, then the
 * index naming it; both land by rename, so a server never serves half a file. */
#include "demo_broadcast.h"

#include <stdio.h>
#include <string.h>

#include "demo_host.h"

/* Writes len bytes to dir/name through dir/name.tmp and a rename: 0 or -1. */
static int write_file(const char *dir, const char *name, const void *bytes, size_t len)
{
    char path[DEMO_TEXT_MAX + 64], tmp[DEMO_TEXT_MAX + 68];
    FILE *f;
    int ok;
    sprintf(path, "%s/%s", dir, name);
    sprintf(tmp, "%s.tmp", path);
    f = fopen(tmp, "wb");
    if (!f)
        return -1;
    ok = fwrite(bytes, 1, len, f) == len;
    ok = fclose(f) == 0 && ok;
    /* POSIX rename replaces the target at once; Windows' refuses to. */
    remove(path);
    return ok && rename(tmp, path) == 0 ? 0 : -1;
}

static void emit(void *ctx, const zl_broadcast_fragment *f)
{
    demo_broadcast *b = (demo_broadcast *)ctx;
    char name[32], index[ZL_TVINDEX_MAX];
    zl_tvindex idx;
    sprintf(name, "fragment-%lu.zld", (unsigned long)f->number);
    if (write_file(b->dir, name, f->bytes, f->len) != 0) {
        b->failed++;
        return;
    }
    b->written++;
    if (f->len > b->largest)
        b->largest = (uint32_t)f->len;
    idx.fragment = f->number;
    idx.tick = f->present_tick;
    idx.unix_ms = demo_host_unix_ms();
    idx.tick_rate = b->tick_rate;
    idx.fragment_ticks = b->tv.fragment_ticks;
    idx.delay_ms = b->tv.config.delay_ms;
    if (write_file(b->dir, "index.txt", index, zl_tvindex_write(&idx, index, sizeof index)) != 0)
        b->failed++;
}

int demo_broadcast_open(demo_broadcast *b, const demo_options *o, zl_server *s, FILE *text)
{
    zl_broadcast_config c;
    int rc;
    memset(b, 0, sizeof *b);
    strcpy(b->dir, o->broadcast);
    b->text = text;
    b->tick_rate = s->config.tick_rate;
    zl_broadcast_config_default(&c);
    c.delay_ms = o->tv_delay_ms;
    c.fragment_ms = o->tv_fragment_ms;
    rc = zl_broadcast_init(&b->tv, &c, s, emit, b);
    if (rc != ZL_OK) {
        fprintf(text, "zl_server: --tv_delay %lu with --tv_fragment %lu holds more fragments "
                      "than %d, or fragments are too short\n",
                (unsigned long)o->tv_delay_ms, (unsigned long)o->tv_fragment_ms,
                ZL_BROADCAST_HELD);
        return -1;
    }
    fprintf(text, "zl_server: broadcasting to %s/ (index.txt), %lu ms fragments, %lu ms "
                  "delay\n",
            b->dir, (unsigned long)o->tv_fragment_ms, (unsigned long)o->tv_delay_ms);
    return 0;
}

void demo_broadcast_update(demo_broadcast *b, zl_server *s)
{
    zl_broadcast_update(&b->tv, s);
}

void demo_broadcast_close(demo_broadcast *b, zl_server *s)
{
    const zl_broadcast_stats *st = &b->tv.stats;
    zl_broadcast_flush(&b->tv, s);
    fprintf(b->text,
            "broadcast: %lu fragments written once each (%lu published, %lu failed, %lu early), "
            "%lu snapshots, %lu bytes: keyframes %lu B and fragments %lu B on average, largest "
            "%lu B\n",
            (unsigned long)b->written, (unsigned long)st->fragments, (unsigned long)b->failed,
            (unsigned long)st->early, (unsigned long)st->snapshots, (unsigned long)st->bytes,
            (unsigned long)(st->fragments ? st->key_bytes / st->fragments : 0),
            (unsigned long)(st->fragments ? st->bytes / st->fragments : 0),
            (unsigned long)b->largest);
}
