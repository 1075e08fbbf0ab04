/* test_record.c - client demos: the fragment format round trips and refuses
 * hostile bytes; a recorded match plays back to the live frames, from any keyframe. */
#include <string.h>

#include "zl_bytes.h"
#include "zl_client_demo.h"
#include "zl_crc32.h"
#include "zl_print.h"
#include "zl_sim.h"
#include "zl_test.h"

/* ---- The format ---- */

static uint8_t frag_buf[4096];

/* A fragment of a keyframe and three items starting at start_us. */
static int small_fragment(zl_demo_writer *w, uint64_t start_us, const uint8_t **out)
{
    static const uint8_t key[5] = {1, 2, 3, 4, 5};
    static const uint8_t snap[3] = {9, 8, 7};
    ZL_CHECK_EQ(zl_demo_begin(w, start_us), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(w, ZL_DEMO_KEYFRAME, start_us, key, sizeof key), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(w, ZL_DEMO_SNAPSHOT, start_us + 10, snap, sizeof snap), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(w, ZL_DEMO_FRAME, start_us + 16000, NULL, 0), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(w, ZL_DEMO_APP + 1, start_us + 16000, snap, 1), ZL_OK);
    return zl_demo_finish(w, out);
}

static void test_format_round_trip(void)
{
    zl_demo_writer w;
    zl_demo_fragment f;
    zl_demo_item_view it;
    const uint8_t *bytes;
    uint32_t offset = 0;
    int n;
    zl_demo_writer_init(&w, frag_buf, sizeof frag_buf);
    /* Items before the keyframe, or a keyframe after it, are refused. */
    ZL_CHECK_EQ(zl_demo_begin(&w, 5000000u), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_FRAME, 5000000u, NULL, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_KEYFRAME, 5000000u, NULL, 0), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_KEYFRAME, 5000001u, NULL, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_FRAME, 4999999u, NULL, 0), ZL_ERR_INVALID);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_SNAPSHOT, 5000001u, frag_buf, sizeof frag_buf),
                ZL_ERR_FULL);
    ZL_CHECK(zl_demo_finish(&w, &bytes) > 0);
    n = small_fragment(&w, 7000000u, &bytes);
    ZL_CHECK_EQ(n, ZL_DEMO_HEADER_SIZE + 4 * ZL_DEMO_ITEM_HEADER_SIZE + 5 + 3 + 1);
    ZL_CHECK_EQ(zl_demo_fragment_open(bytes, (size_t)n, &f), ZL_OK);
    ZL_CHECK_EQ(f.sequence, 1);
    ZL_CHECK_EQ(f.start_us, 7000000u);
    ZL_CHECK_EQ(f.end_us, 7016000u);
    ZL_CHECK_EQ(f.size, n);
    ZL_CHECK_EQ(zl_demo_fragment_next(&f, &offset, &it), 1);
    ZL_CHECK(it.kind == ZL_DEMO_KEYFRAME && it.len == 5 && it.data[4] == 5);
    ZL_CHECK_EQ(zl_demo_fragment_next(&f, &offset, &it), 1);
    ZL_CHECK(it.kind == ZL_DEMO_SNAPSHOT && it.len == 3 && it.time_us == 7000010u);
    ZL_CHECK_EQ(zl_demo_fragment_next(&f, &offset, &it), 1);
    ZL_CHECK(it.kind == ZL_DEMO_FRAME && it.len == 0 && it.time_us == 7016000u);
    ZL_CHECK_EQ(zl_demo_fragment_next(&f, &offset, &it), 1);
    ZL_CHECK_EQ(it.kind, ZL_DEMO_APP + 1);
    ZL_CHECK_EQ(zl_demo_fragment_next(&f, &offset, &it), 0);
}

/* Sets the CRC of the fragment in buf (len bytes) after an edit. */
static void reseal(uint8_t *buf, uint32_t len)
{
    uint32_t crc = zl_crc32_update(0, buf, 24);
    crc = zl_crc32_update(crc, buf + ZL_DEMO_HEADER_SIZE, len - ZL_DEMO_HEADER_SIZE);
    zl_put_le32(buf + 24, crc);
}

/* The fragment with byte `at` set to v and its CRC made right again. */
static int open_edited(const uint8_t *good, uint32_t len, uint32_t at, uint8_t v)
{
    uint8_t copy[256];
    zl_demo_fragment f;
    memcpy(copy, good, len);
    copy[at] = v;
    reseal(copy, len);
    return zl_demo_fragment_open(copy, len, &f);
}

static void test_format_refuses(void)
{
    uint8_t good[256], copy[256];
    zl_demo_writer w;
    zl_demo_fragment f;
    const uint8_t *bytes;
    uint32_t len, i, item2 = ZL_DEMO_HEADER_SIZE + ZL_DEMO_ITEM_HEADER_SIZE + 5;
    zl_demo_writer_init(&w, frag_buf, sizeof frag_buf);
    len = (uint32_t)small_fragment(&w, 1000u, &bytes);
    memcpy(good, bytes, len);
    /* Cut anywhere: truncated. */
    for (i = 0; i < len; i++)
        ZL_CHECK_EQ(zl_demo_fragment_open(good, i, &f), ZL_ERR_TRUNCATED);
    /* Any byte flipped: refused (mostly by the CRC). */
    for (i = 0; i < len; i++) {
        int rc;
        memcpy(copy, good, len);
        copy[i] ^= 0x40u;
        rc = zl_demo_fragment_open(copy, len, &f);
        ZL_CHECK(rc == ZL_ERR_CHECKSUM || rc == ZL_ERR_MALFORMED || rc == ZL_ERR_UNSUPPORTED ||
                 rc == ZL_ERR_TRUNCATED);
    }
    memcpy(copy, good, len);
    copy[len - 1] ^= 1u;
    ZL_CHECK_EQ(zl_demo_fragment_open(copy, len, &f), ZL_ERR_CHECKSUM);
    ZL_CHECK_EQ(open_edited(good, len, 0, 'X'), ZL_ERR_MALFORMED);       /* magic */
    ZL_CHECK_EQ(open_edited(good, len, 4, 2), ZL_ERR_UNSUPPORTED);       /* version */
    ZL_CHECK_EQ(open_edited(good, len, 6, 1), ZL_ERR_MALFORMED);         /* reserved */
    ZL_CHECK_EQ(open_edited(good, len, 23, 0x10), ZL_ERR_MALFORMED);     /* body too long */
    ZL_CHECK_EQ(open_edited(good, len, item2, ZL_DEMO_KEYFRAME), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(open_edited(good, len, item2, 77), ZL_ERR_MALFORMED);    /* unknown kind */
    ZL_CHECK_EQ(open_edited(good, len, item2, 0), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(open_edited(good, len, ZL_DEMO_HEADER_SIZE, ZL_DEMO_FRAME), ZL_ERR_MALFORMED);
    ZL_CHECK_EQ(open_edited(good, len, item2 + 1, 4), ZL_ERR_MALFORMED); /* overruns */
    ZL_CHECK_EQ(open_edited(good, len, item2 + 1, 2), ZL_ERR_MALFORMED); /* leaves a gap */
    ZL_CHECK_EQ(open_edited(good, len, item2 + 8, 0x80), ZL_ERR_MALFORMED); /* time back */
    /* An empty body has no keyframe. */
    memcpy(copy, good, ZL_DEMO_HEADER_SIZE);
    zl_put_le32(copy + 20, 0);
    reseal(copy, ZL_DEMO_HEADER_SIZE);
    ZL_CHECK_EQ(zl_demo_fragment_open(copy, ZL_DEMO_HEADER_SIZE, &f), ZL_ERR_MALFORMED);
}

#if ZL_SIM_AVAILABLE

/* ---- A recorded match ---- */

#define CLIENTS 4
#define RECORDER 0
#define RUN_US 12000000u
#define KEYFRAME_US 2000000u
#define MAX_FRAMES (RUN_US / ZL_SIM_FRAME_US + 16u)
#define DEMO_BYTES (4u * 1024u * 1024u)
#define FRAGMENT_BYTES (512u * 1024u)

static zl_sim *const S = &zl_sim_world;
static zl_client player;
static zl_client_recorder recorder;
static uint8_t fragment[FRAGMENT_BYTES];
static uint8_t demo[DEMO_BYTES];
static uint32_t demo_len;
/* Every frame the recording client drew: its time and hash. */
static uint64_t live_us[MAX_FRAMES];
static uint32_t live_hash[MAX_FRAMES];
static uint32_t live_frames, live_drawn;

static void sink(void *ctx, const uint8_t *bytes, uint32_t len)
{
    (void)ctx;
    ZL_CHECK(len <= DEMO_BYTES - demo_len);
    if (len <= DEMO_BYTES - demo_len) {
        memcpy(demo + demo_len, bytes, len);
        demo_len += len;
    }
}

/* Walks in circles and fires now and then; the recorder's frames are
 * hashed as drawn (the bot runs right after zl_client_frame). */
static int bot(zl_sim *sim, int i, zl_usercmd *cmd)
{
    uint32_t f = (uint32_t)(zl_test_time_us / ZL_SIM_FRAME_US);
    const zl_client *c = &sim->c[i].client;
    if (i == RECORDER && live_frames < MAX_FRAMES) {
        live_us[live_frames] = zl_test_time_us;
        live_hash[live_frames++] = zl_client_frame_hash(c);
        live_drawn += zl_client_entity(c, 1 + (RECORDER == 1)) != NULL;
    }
    cmd->msec = (uint16_t)(ZL_SIM_FRAME_US / 1000u);
    cmd->forward = 100;
    cmd->side = (int8_t)(i % 2 ? 40 : -40);
    cmd->yaw = (zl_angle)(f * (300u + 50u * (uint32_t)i));
    cmd->seed = (uint8_t)(f * 13u + (uint32_t)i);
    if ((f + (uint32_t)i) % 20u == 0)
        cmd->buttons |= FPS_BUTTON_ATTACK;
    return 1;
}

static void record_match(void)
{
    zl_conditioner_settings link;
    int i;
    zl_sim_hostile_link(&link, 30000u, 10000u);
    zl_sim_init(S, CLIENTS, NULL, &link, 35);
    for (i = 0; i < CLIENTS; i++)
        zl_sim_join(S, i, bot);
    demo_len = 0;
    live_frames = live_drawn = 0;
    zl_client_record_start(&S->c[RECORDER].client, &recorder, fragment, sizeof fragment,
                           KEYFRAME_US, sink, NULL);
    zl_sim_run(S, RUN_US);
    ZL_CHECK_EQ(zl_client_record_stop(&S->c[RECORDER].client), ZL_OK);
    ZL_CHECK(zl_sim_connected(S, RECORDER));
}

/* The fragment starting at demo[offset]. */
static void open_at(uint32_t offset, zl_demo_fragment *f)
{
    ZL_CHECK_EQ(zl_demo_fragment_open(demo + offset, demo_len - offset, f), ZL_OK);
}

/* Plays the demo from the fragment at `offset` to the end, checking each
 * frame's hash against the live frame of the same time; returns the frames
 * played. */
static uint32_t play_from(uint32_t offset)
{
    zl_demo_fragment f;
    zl_demo_item_view it;
    uint32_t frames = 0, k = 0, at;
    open_at(offset, &f);
    ZL_CHECK_EQ(zl_client_play_start(&player, &f), ZL_OK);
    ZL_CHECK_EQ(zl_client_state(&player), ZL_CLIENT_PLAYING);
    while (offset < demo_len) {
        open_at(offset, &f);
        at = 0;
        while (zl_demo_fragment_next(&f, &at, &it)) {
            ZL_CHECK(zl_client_play_item(&player, &it, NULL) >= 0);
            if (it.kind != ZL_DEMO_FRAME)
                continue;
            while (k < live_frames && live_us[k] < zl_client_play_time(&player, it.time_us))
                k++;
            ZL_CHECK(k < live_frames && live_us[k] == zl_client_play_time(&player, it.time_us));
            if (!ZL_CHECK(k < live_frames && live_hash[k] == zl_client_frame_hash(&player)))
                return frames; /* the first frame that differs is enough */
            frames++;
        }
        offset += f.size;
    }
    return frames;
}

static void test_playback_draws_the_live_frames(void)
{
    zl_client_config cc;
    zl_demo_fragment f;
    uint32_t offset = 0, fragments = 0, middle = 0, frames, after = 0, k;
    record_match();
    ZL_CHECK(live_frames > RUN_US / ZL_SIM_FRAME_US * 9u / 10u);
    ZL_CHECK(live_drawn > live_frames / 2u); /* others were drawn */
    ZL_CHECK_EQ(recorder.bytes, demo_len);
    while (offset < demo_len) {
        open_at(offset, &f);
        ZL_CHECK_EQ(f.sequence, fragments);
        if (fragments == 3)
            middle = offset;
        offset += f.size;
        fragments++;
    }
    ZL_CHECK(fragments >= RUN_US / KEYFRAME_US - 1u);
    zl_client_config_default(&cc);
    ZL_CHECK_EQ(zl_client_init(&player, &cc, &S->client_rules, &S->c[RECORDER].client.hal, 1u),
                ZL_OK);
    /* From the start: every frame drawn as live. */
    frames = play_from(0);
    ZL_CHECK_EQ(frames, live_frames);
    ZL_CHECK_EQ(recorder.frames, live_frames);
    /* From a keyframe in the middle: every frame from there on. */
    ZL_CHECK(middle > 0);
    open_at(middle, &f);
    frames = play_from(middle);
    for (k = 0; k < live_frames; k++)
        after += live_us[k] >= zl_client_play_time(&player, f.start_us);
    ZL_CHECK(frames > 0);
    ZL_CHECK_EQ(frames, after);
    zl_test_note("%u frames live and played back alike, %u from the keyframe of fragment 3; "
                 "%u fragments, %u bytes (%u bytes a minute)",
                 (unsigned)live_frames, (unsigned)frames, (unsigned)fragments, (unsigned)demo_len,
                 (unsigned)((uint64_t)demo_len * 60000000u / RUN_US));
}

/* A keyframe that is not a client's: refused, the player left idle. */
static void test_bad_keyframe_refused(void)
{
    zl_demo_writer w;
    zl_demo_fragment f;
    const uint8_t *bytes;
    uint8_t junk[40];
    int n;
    memset(junk, 0xFF, sizeof junk);
    zl_demo_writer_init(&w, frag_buf, sizeof frag_buf);
    ZL_CHECK_EQ(zl_demo_begin(&w, 0), ZL_OK);
    ZL_CHECK_EQ(zl_demo_item(&w, ZL_DEMO_KEYFRAME, 0, junk, sizeof junk), ZL_OK);
    n = zl_demo_finish(&w, &bytes);
    ZL_CHECK_EQ(zl_demo_fragment_open(bytes, (size_t)n, &f), ZL_OK);
    ZL_CHECK(zl_client_play_start(&player, &f) < 0);
    ZL_CHECK_EQ(zl_client_state(&player), ZL_CLIENT_IDLE);
}

#endif

void zl_suite_record(void)
{
    ZL_RUN(test_format_round_trip);
    ZL_RUN(test_format_refuses);
#if ZL_SIM_AVAILABLE
    ZL_RUN(test_playback_draws_the_live_frames);
    ZL_RUN(test_bad_keyframe_refused);
#else
    zl_print("  record: playback left out, no room for a server in this image (zl_sim.h)\n");
#endif
}
