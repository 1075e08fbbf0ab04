// loop_match.cpp - zerolag from C++17: a server and two clients of the
// reference FPS rules in one process over the in-memory loop network, on a
// simulated clock. Each client runs in circles for 4 s; at the end each
// one's predicted player must equal the server's, and each must see the other.
#include <array>
#include <cstdio>
#include <cstring>

#include <zerolag.h>

#include "fps.h"

namespace {

constexpr uint64_t kStartUs = 1000000;
constexpr uint64_t kStepUs = 1000;   // the loop's resolution
constexpr uint64_t kFrameUs = 16000; // a client frame: one command
constexpr uint64_t kPlayUs = 4000000;
constexpr uint64_t kSettleUs = 500000; // the last commands reach the server

uint64_t now_us = kStartUs;

// Large endpoints live in static storage, as everywhere in zerolag.
zl_loopnet net;
zl_server server;
fps_game server_rules;

struct Player {
    zl_loopnet_endpoint ep{};
    zl_platform hal{};
    zl_client client{};
};
std::array<Player, 2> players;

// Takes every waiting datagram into `take` (a server or a client receive).
template <typename Take> void pump(const zl_platform &hal, Take take)
{
    std::array<uint8_t, ZL_MAX_PACKET> buf;
    zl_addr from;
    for (;;) {
        int n = hal.receive(hal.ctx, &from, buf.data(), buf.size());
        if (n == ZL_ERR_TRUNCATED)
            continue;
        if (n < 0)
            return;
        take(from, buf.data(), static_cast<size_t>(n)); // decrypted in place when sealed
    }
}

// A command of the running-in-circles script for frame `frame`.
zl_usercmd script(uint32_t frame)
{
    zl_usercmd cmd{};
    cmd.msec = static_cast<uint16_t>(kFrameUs / 1000);
    cmd.forward = 127;
    cmd.yaw = static_cast<zl_angle>(frame * 300u);
    cmd.buttons = frame % 50u == 7u ? FPS_BUTTON_JUMP : 0;
    return cmd;
}

bool check(const char *what, int rc)
{
    if (rc != ZL_OK)
        std::printf("loop_match: %s: %s\n", what, zl_strerror(rc));
    return rc == ZL_OK;
}

} // namespace

int main()
{
    std::printf("zerolag %d.%d.%d (library 0x%06x)\n", ZL_VERSION_MAJOR, ZL_VERSION_MINOR,
                ZL_VERSION_PATCH, static_cast<unsigned>(zl_version()));
    zl_platform clock;
    zl_platform_clock_only(
        &clock, nullptr, [](void *) { return now_us; },
        [](void *, void *out, size_t len) {
            std::memset(out, 0x5A, len); // repeatable, not secret: a local demo
            return static_cast<int>(ZL_OK);
        });
    zl_loopnet_init(&net, &clock);

    zl_addr server_addr, any;
    zl_addr_parse(&server_addr, "10.0.0.1:27015");
    zl_addr_parse(&any, "10.0.1.1:0");
    Player host;
    if (!check("zl_loopnet_open", zl_loopnet_open(&net, &host.ep, &server_addr, &host.hal)))
        return 1;
    fps_game_init(&server_rules);
    zl_game server_game = fps_game_interface(&server_rules);
    zl_server_config sc;
    zl_server_config_default(&sc);
    sc.max_clients = 4;
    sc.security = ZL_SECURITY_PLAIN; // one process: nobody on the path to keep out
    std::array<uint8_t, 2 * ZL_SIPHASH_KEY_SIZE> secret{};
    if (!check("zl_server_init",
               zl_server_init(&server, &sc, &server_game, &host.hal, secret.data(), now_us)))
        return 1;

    zl_game client_game = fps_game_interface(nullptr); // prediction needs no world state
    zl_client_config cc;
    zl_client_config_default(&cc);
    uint64_t nonce = 1;
    for (Player &p : players) {
        if (!check("zl_loopnet_open", zl_loopnet_open(&net, &p.ep, &any, &p.hal)) ||
            !check("zl_client_init", zl_client_init(&p.client, &cc, &client_game, &p.hal, nonce++)))
            return 1;
        zl_client_connect(&p.client, &server_addr, now_us);
    }

    uint32_t frame = 0;
    for (; now_us < kStartUs + kPlayUs + kSettleUs; now_us += kStepUs) {
        bool play = now_us % kFrameUs == 0 && now_us < kStartUs + kPlayUs;
        pump(host.hal, [](const zl_addr &from, uint8_t *data, size_t len) {
            zl_server_receive(&server, &from, data, len, now_us);
        });
        zl_server_update(&server, now_us);
        for (size_t i = 0; i < players.size(); i++) {
            zl_client &c = players[i].client;
            pump(players[i].hal, [&c](const zl_addr &from, uint8_t *data, size_t len) {
                zl_client_receive(&c, &from, data, len, now_us);
            });
            zl_client_update(&c, now_us);
            if (play) {
                zl_client_frame(&c, now_us);
                zl_usercmd cmd = script(frame + 100u * static_cast<uint32_t>(i));
                zl_client_command(&c, &cmd, nullptr);
            }
        }
        frame += play ? 1u : 0u;
    }

    bool ok = true;
    for (size_t i = 0; i < players.size(); i++) {
        const zl_client &c = players[i].client;
        int slot = zl_client_slot(&c);
        auto mine = static_cast<const fps_player *>(zl_client_predicted(&c));
        auto theirs = static_cast<const fps_player *>(zl_server_player(&server, slot));
        auto other = zl_client_entity(&c, zl_client_slot(&players[1 - i].client));
        bool same = mine && theirs && std::memcmp(&mine->origin, &theirs->origin,
                                                  sizeof mine->origin) == 0;
        std::printf("client %zu: slot %d, %s, predicted origin %s the server's, %s the other player\n",
                    i, slot, zl_client_state(&c) == ZL_CLIENT_CONNECTED ? "connected" : "NOT connected",
                    same ? "equals" : "DIFFERS from", other ? "sees" : "does NOT see");
        ok = ok && same && other && zl_client_state(&c) == ZL_CLIENT_CONNECTED;
    }
    std::printf("loop_match: %s\n", ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
