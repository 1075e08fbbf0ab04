#!/bin/sh
# web-test.sh - plays the page (make web) in Debian's chromium, headless,
# driven by playwright-core (tools/web-test/, installed by install-deps.sh
# with npm ci): the page loads, the match runs, keys move the player, a
# slider shows in the net graph, the canvases are drawn, hit agreement and
# mispredictions are on the page, and a bot-only match in the page ends with
# the same hash as the same match built natively (make web-native); the
# frame costs of both are printed. Screenshots are kept in build/web/.
# Ends with "N passed, N failed". WEB_PICTURE=docs/web.png also copies the
# page's screenshot there (the README's picture).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
seed=7
seconds=20
fail() {
    echo "web-test: $1"
    echo "0 passed, 1 failed"
    exit 1
}
[ -d tools/web-test/node_modules/playwright-core ] ||
    fail "playwright-core missing: run tools/install-deps.sh wasm32 (npm ci in tools/web-test)"
make --no-print-directory web >/dev/null || fail "make web failed"
make --no-print-directory web-native >/dev/null || fail "make web-native failed"
native=$(build/posix/web/web_native "$seed" "$seconds") || fail "web_native failed"
echo "native: $native"
set -- $native
hash=$2 frame_ns=$4 tick_ns=$6

# A static server on a free port of 127.0.0.1, from a temp dir, gone at exit.
tmp=$(mktemp -d)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
(cd "$tmp" && exec python3 -u -m http.server --bind 127.0.0.1 --directory "$root/build/web" 0 \
    >"$tmp/server.log" 2>&1) &
server=$!
port=
for _ in $(seq 50); do
    port=$(sed -n 's/.* port \([0-9][0-9]*\).*/\1/p' "$tmp/server.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || fail "the static server did not start"
node tools/web-test/web-test.js "http://127.0.0.1:$port/index.html" "$hash" "$frame_ns" "$tick_ns" \
    "$seed" "$seconds" "$root/build/web"
status=$?
if [ $status -eq 0 ] && [ -n "${WEB_PICTURE:-}" ]; then
    cp build/web/page.png "$WEB_PICTURE" && echo "web-test: wrote $WEB_PICTURE"
fi
exit $status
