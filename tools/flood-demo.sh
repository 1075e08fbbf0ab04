#!/bin/sh
# flood-demo.sh RATE [SECONDS [BOTS]] - plays the demo match on a clean link
# (no fake lag or loss) while tools/zl_flood sends RATE junk datagrams a
# second at its server, then prints what the honest bots lost and what the
# server counted. Builds what it needs (PORT=posix). DEMO_BIN names another
# build's programs (to compare two versions); output goes to
# build/posix/flood-RATE/.
set -eu
rate=${1:?usage: $0 RATE [SECONDS [BOTS]]}
secs=${2:-20}
bots=${3:-6}
cd "$(dirname "$0")/.."
make -s --no-print-directory PORT=posix demo-programs build/posix/demo/zl_demo build/posix/zl_flood
bin=${DEMO_BIN:-build/posix/demo}
out=build/posix/flood-$rate
rm -rf "$out"
mkdir -p "$out"
"$bin/zl_demo" --bin "$bin" --out "$out" --duration "$secs" --bots "$bots" \
    --fakelag 0 --fakejitter 0 --fakeloss 0 >"$out/report.txt" 2>&1 &
demo=$!
# The launcher writes the server's log; its first line names the port.
port=
for _ in $(seq 50); do
    port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$out/server.log" 2>/dev/null | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { echo "flood-demo: the server did not start" >&2; kill "$demo"; exit 1; }
# The kernel's count of datagrams dropped for a full receive buffer
# (whole machine), read before and after.
rcvbuf_errors() {
    awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1 }
                   else print $c }' /proc/net/snmp 2>/dev/null || echo 0
}
kernel_before=$(rcvbuf_errors)
# Flood from 2 s in (everyone joined) to 2 s before the end.
sleep 2
build/posix/zl_flood 127.0.0.1 "$port" "$rate" $((secs - 4)) | tee "$out/flood.txt"
wait "$demo" || true
grep -E '^overall|^Server drops|^Server tick' "$out/report.txt"
echo "kernel: $(($(rcvbuf_errors) - kernel_before)) datagrams dropped for a full receive buffer"

