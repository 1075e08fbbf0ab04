#!/bin/sh
# window-test.sh - plays zl_window under Xvfb against zl_server and two bot
# clients over UDP loopback (connect tokens, sealed packets): a script of key
# presses moves, turns, jumps and fires; checks the player moved and the
# screenshot the window wrote shows the game. Keeps the log and the picture in
# build/posix/window/. Ends with "N passed, N failed". PORT=posix only.
set -u
cd "$(dirname "$0")/.."
out=build/posix/window
bin=build/posix/demo
if ! command -v sdl2-config >/dev/null 2>&1 || ! command -v xvfb-run >/dev/null 2>&1; then
    echo "window-test: needs libsdl2-dev and xvfb (tools/install-deps.sh posix installs them)"
    echo "0 passed, 1 failed"
    exit 1
fi
make -s --no-print-directory PORT=posix window demo-programs || { echo "0 passed, 1 failed"; exit 1; }
mkdir -p "$out"
tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
. "$(dirname "$0")/checks.sh"

key=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
"$bin/zl_server" --address 127.0.0.1 --port 0 --key "$key" --duration 40 --status 0 \
    >"$tmp/server.log" 2>&1 &
pids="$pids $!"
port=
for _ in $(seq 50); do
    port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$tmp/server.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ]
check "zl_server listens" $?
rm -f "$out/window.bmp" "$out/window.log" # the wait below reads a fresh log
# Alone in the arena: forward, turn right, jump (no bot can kill the player
# meanwhile); then wait while two bots join, strafe, and twice: face the
# nearest bot, close in, face it, fire. The window prints where each step
# left the player.
script="w:1000,right:400,space:300,_:2500,d:400,t:50,w:900,t:50,f:400,t:50,w:800,t:50,f:400"
timeout 60 xvfb-run -a -s "-screen 0 1024x768x24" build/posix/window/zl_window \
    --token "$("$bin/zl_token" "$key" "127.0.0.1:$port" 3)" --script "$script" \
    --screenshot "$out/window.bmp" --duration 30 >"$out/window.log" 2>&1 &
window=$!
pids="$pids $window"
for _ in $(seq 300); do
    grep -qs "^zl_window: step 3 " "$out/window.log" && break
    kill -0 "$window" 2>/dev/null || break
    sleep 0.1
done
for id in 1 2; do
    "$bin/zl_client" --bot --seed "$id" --duration 30 \
        --token "$("$bin/zl_token" "$key" "127.0.0.1:$port" "$id")" >"$tmp/bot$id.log" 2>&1 &
    pids="$pids $!"
done
wait "$window"
check "zl_window ran and ended cleanly" $?
cat "$out/window.log"
grep -q 'zl_window: connected, slot' "$out/window.log"
check "zl_window joined with its token" $?
grep -q 'the arena and rules of this build' "$out/window.log"
check "the gamestate matches this build" $?
# step N: x, y, z, yaw and distance moved from the line printed after step N.
n='\([-0-9]*\)'
step() {
    sed -n "s/^zl_window: step $1 .*: at $n $n z $n yaw $n, moved $n units.*/\1 \2 \3 \4 \5/p" \
        "$out/window.log"
}
field() { step "$1" | awk -v f="$2" '{ print $f }'; }
moved=$(field 1 5)
[ "${moved:-0}" -ge 100 ]
check "w moved the player (${moved:-no} units in 1 s)" $?
turned=$(awk -v a="$(field 1 4)" -v b="$(field 2 4)" \
    'BEGIN { d = a - b; if (d < 0) d = -d; if (d > 180) d = 360 - d; print int(d) }')
[ -n "$(field 2 4)" ] && [ "$turned" -ge 10 ]
check "the right arrow turned the view (${turned} degrees in 0.4 s)" $?
height=$(field 3 3)
[ "${height:-0}" -ge 4 ]
check "space jumped (${height:-no} units up after 0.3 s)" $?
shots=$(sed -n 's/^zl_window: \([0-9]*\) shots.*/\1/p' "$out/window.log")
[ "${shots:-0}" -ge 1 ]
check "the fire key fired" $?
# The screenshot: a 32-bit BMP of the window, with the arena, the players
# and the panel in many colours, not a blank frame.
python3 - "$out/window.bmp" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:2] == b"BM", "not a BMP"
offset = struct.unpack_from("<I", data, 10)[0]
width, height = struct.unpack_from("<ii", data, 18)
bpp = struct.unpack_from("<H", data, 28)[0]
assert bpp == 32, "not 32-bit"
pixels = data[offset:offset + width * abs(height) * 4]
colours = {pixels[i:i + 3] for i in range(0, len(pixels), 4)}
lit = sum(1 for i in range(0, len(pixels), 4) if max(pixels[i:i + 3]) > 60)
print(f"screenshot {width}x{abs(height)}: {len(colours)} colours, {100 * lit // (len(pixels) // 4)}% lit")
sys.exit(0 if len(colours) >= 8 and lit * 20 > len(pixels) // 4 else 1)
PY
check "the screenshot shows the game (8+ colours, 5%+ lit)" $?
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
