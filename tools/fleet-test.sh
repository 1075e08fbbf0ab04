#!/bin/sh
# fleet-test.sh - zl_server as one server of a fleet, on the loopback: a
# stand-in Agones sidecar (tools/agones-sidecar.py) started after the server
# sees Ready, periodic Health and, after SIGTERM, Shutdown; its malformed and
# oversized replies neither crash nor stall the server; promtool checks
# /metrics and a real Prometheus scrapes it; tokens minted by the Node
# backend (examples/backend) admit a client, tampered and expired ones are
# refused; the client playing when SIGTERM comes is told the match is over,
# and the server exits 0. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
bin=build/posix/demo
. "$(dirname "$0")/checks.sh"

nice -n 10 make --no-print-directory -j2 PORT=posix demo-programs >/dev/null || {
    echo "fleet: the programs do not build"
    fail=1
    finish
}
for need in prometheus promtool curl node; do
    command -v $need >/dev/null 2>&1 || {
        echo "fleet: $need is missing (tools/install-deps.sh)"
        fail=1
        finish
    }
done
[ -d examples/backend/node_modules/libsodium-wrappers ] || {
    echo "fleet: examples/backend has no node_modules (tools/install-deps.sh runs npm ci)"
    fail=1
    finish
}

tmp=$(mktemp -d)
pids=""
cleanup() {
    for p in $pids; do kill "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# Free ports the kernel picks (TCP for HTTP, UDP for the game).
free_port() {
    python3 -c "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_$1); \
s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}
sdk=$(free_port STREAM)
metrics=$(free_port STREAM)
prom=$(free_port STREAM)
game=$(free_port DGRAM)
now() { date +%s.%N | cut -c1-14; }
metric() { # metric NAME{LABELS}: its value in the server's /metrics, or empty
    curl -s "http://127.0.0.1:$metrics/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}
wait_for() { # wait_for FILE PATTERN SECONDS
    i=0
    while [ $i -lt $(($3 * 10)) ]; do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# 1. The Node backend mints the document's token byte for byte.
out=$(node examples/backend/test_vector.js)
echo "$out" | grep -q '^1 passed, 0 failed'
check token-vector $? "$(echo "$out" | head -n 1)"

# 2. The server first, with no sidecar yet: it must keep retrying. It binds
# every address: the allocation tells it the one its tokens name.
key=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('hex'))")
began=$(now)
AGONES_SDK_HTTP_PORT=$sdk $bin/zl_server --address 0.0.0.0 --port "$game" --key "$key" \
    --agones --metrics "$metrics" --status 2 --drain-seconds 2 >"$tmp/server.log" 2>&1 &
server=$!
pids="$server"
sleep 2
failures=$(metric 'zl_agones_failures_total{kind="error"}')
[ "${failures:-0}" -ge 3 ]
check retries $? "${failures:-0} failed requests (backing off) before the sidecar started"
[ "$(metric zl_server_open)" = 0 ]
check closed $? "zl_server_open $(metric zl_server_open) before the fleet allocates"

# 3. The sidecar and Prometheus.
python3 tools/agones-sidecar.py --port "$sdk" --log "$tmp/sidecar.log" --allocate-after 1 \
    --address 127.0.0.1 --game-port "$game" &
pids="$pids $!"
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: zl_server
    static_configs:
      - targets: ['127.0.0.1:$metrics']
EOF
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
    --web.listen-address="127.0.0.1:$prom" >"$tmp/prometheus.log" 2>&1 &
pids="$pids $!"
prom_began=$(date +%s)
# The server's own count while Prometheus scrapes: each reading with the
# times (ms) just before and just after it, to bracket a scrape.
while :; do
    before=$(date +%s%3N)
    value=$(metric zl_server_ticks_total)
    echo "$before $(date +%s%3N) $value"
    sleep 0.25
done >"$tmp/ours.txt" &
sampler=$!
pids="$pids $sampler"

wait_for "$tmp/server.log" '^agones: Allocated' 10
check allocated $? "$(grep '^agones: Allocated' "$tmp/server.log")"
[ "$(metric zl_server_open)" = 1 ]
check opened $? "zl_server_open $(metric zl_server_open) once Allocated"

# 4. Tokens from Node: a good one plays (and is still playing at SIGTERM),
# a tampered one (a byte of its sealed part changed) and an expired one
# (minted two minutes ago for 30 s) are refused.
token=$(node examples/backend/mint.js "$key" "127.0.0.1:$game" 7 60 5)
tampered=$(echo "$token" | awk '{ c = substr($0, 201, 1); print substr($0, 1, 200) (c == "0" ? "1" : "0") substr($0, 202) }')
expired=$(node examples/backend/mint.js "$key" "127.0.0.1:$game" 8 30 5 $(($(date +%s) - 120)))
$bin/zl_client --bot --token "$token" --duration 60 >"$tmp/client.log" 2>&1 &
client=$!
pids="$pids $client"
$bin/zl_client --bot --token "$tampered" --duration 2 >"$tmp/tampered.log" 2>&1 &
pids="$pids $!"
$bin/zl_client --bot --token "$expired" --duration 2 >"$tmp/expired.log" 2>&1 &
pids="$pids $!"
wait_for "$tmp/client.log" 'connected, slot' 5
check token-admits $? "$(grep -h 'connected, slot' "$tmp/client.log") ($(grep -h '^join:' "$tmp/server.log"))"
sleep 3
forged=$(metric 'zl_server_drops_total{reason="forged"}')
old=$(metric 'zl_server_drops_total{reason="expired"}')
! grep -q 'connected, slot' "$tmp/tampered.log" && [ "${forged:-0}" -ge 1 ]
check token-tampered $? "never connected; server drops forged $forged"
! grep -q 'connected, slot' "$tmp/expired.log" && [ "${old:-0}" -ge 1 ]
check token-expired $? "never connected; server drops expired $old"

# 5. The exposition passes promtool.
curl -s "http://127.0.0.1:$metrics/metrics" >"$tmp/metrics.txt"
promtool check metrics <"$tmp/metrics.txt" >"$tmp/promtool.log" 2>&1
check promtool $? "$(wc -l <"$tmp/metrics.txt") lines, $(grep -c '^# TYPE' "$tmp/metrics.txt") families, with slot 0 $(grep -c 'slot="0"' "$tmp/metrics.txt") series $(head -c 200 "$tmp/promtool.log")"

# 6. Prometheus has scraped for 10 s: its tick count against the server's.
while [ $(($(date +%s) - prom_began)) -lt 11 ]; do sleep 0.5; done
query() {
    curl -s "http://127.0.0.1:$prom/api/v1/query" --data-urlencode "query=$1" |
        python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
# The newest scrape's value and when it began, from one range query (two
# queries could be seconds apart on a loaded machine). A reading that ended
# before the scrape began is a lower bound; one that began a scrape timeout
# (capped at the 1 s interval) after it, an upper bound: the counter only grows.
read -r began theirs <<EOF2
$(curl -s "http://127.0.0.1:$prom/api/v1/query" --data-urlencode 'query=zl_server_ticks_total[5s]' |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(*(r[0]["values"][-1] if r else ["-", ""]))')
EOF2
samples=$(query 'count_over_time(zl_server_ticks_total[1m])')
# Wait (up to 10 s) for a reading that began after the scrape's timeout.
i=0
until [ "$began" = - ] || [ $i -ge 40 ] ||
    awk -v e="$began" 'NF == 3 && $1 >= e * 1000 + 1000 { found = 1 } END { exit !found }' "$tmp/ours.txt"; do
    sleep 0.25
    i=$((i + 1))
done
kill "$sampler"
read -r low high <<EOF2
$(awk -v b="$began" '
    BEGIN { start = b * 1000; end = start + 1000; low = ""; high = "" }
    NF == 3 && $2 <= start && (low == "" || $3 > low) { low = $3 }
    NF == 3 && $1 >= end && (high == "" || $3 < high) { high = $3 }
    END { print (low == "" ? "-" : low), (high == "" ? "-" : high) }' "$tmp/ours.txt")
EOF2
[ -n "$theirs" ] && [ "$low" != - ] && [ "$high" != - ] &&
    [ "$low" -le "$theirs" ] && [ "$theirs" -le "$high" ] && [ "${samples:-0}" -ge 5 ]
check prometheus $? "Prometheus says $theirs ticks from $samples scrapes; the server counted $low before that scrape and $high after it"

malformed=$(metric 'zl_agones_failures_total{kind="malformed"}')
oversized=$(metric 'zl_agones_failures_total{kind="oversized"}')

# 7. SIGTERM: the player is told the match is over, the fleet Shutdown.
term=$(now)
kill -TERM "$server"
wait "$server"
rc=$?
ended=$(now)
pids=$(echo "$pids" | sed "s/^$server //")
check exit $rc "zl_server exited $rc $(python3 -c "print('%.1f' % ($ended - $term))") s after SIGTERM"
grep -q 'draining' "$tmp/server.log"
check drain $? "$(grep -h 'draining' "$tmp/server.log")"
wait_for "$tmp/client.log" 'the match is over' 5
check match-over $? "$(grep -h 'match is over' "$tmp/client.log" | cut -c1-60)"

# 8. The sidecar's view: Ready, Health at intervals, Shutdown after SIGTERM.
echo "sidecar calls (seconds after the server started):"
awk -v t0="$began" '{ printf "  %6.2f %s %s\n", $1 - t0, $2, $3 }' "$tmp/sidecar.log"
python3 - "$tmp/sidecar.log" "$term" <<'EOF'
import sys
calls = [l.split() for l in open(sys.argv[1])]
term = float(sys.argv[2])
ok = [(float(t), p) for t, p, s in calls if s in ("200", "Ready", "Allocated")]
paths = [p for _, p in ok]
ready = paths.index("/ready") if "/ready" in paths else -1
health = [t for t, p in ok if p == "/health"]
gaps = [b - a for a, b in zip(health, health[1:])]
shut = [t for t, p in ok if p == "/shutdown"]
order = (ready >= 0 and health and ok[ready][0] < health[0] and len(shut) == 1
         and shut[0] > health[-1] and shut[0] >= term)
print("order %s: ready at %d, %d health pings (gaps %s s), shutdown %s s after SIGTERM" % (
    "right" if order else "WRONG", ready, len(health), ",".join("%.1f" % g for g in gaps),
    "%.2f" % (shut[0] - term) if shut else "never"))
sys.exit(0 if order and len(health) >= 3 and all(1.5 <= g <= 3.5 for g in gaps) else 1)
EOF
check sidecar-order $? "ready, then health every ~2 s, then shutdown after SIGTERM"

# 9. The bad replies were dropped and counted, and the ticks went on.
bad=$(grep -cE ' (malformed|oversized)$' "$tmp/sidecar.log")
ticks=$(sed -n 's/^zl_server: stopped after \([0-9]*\) ticks.*/\1/p' "$tmp/server.log")
expect=$(python3 -c "print(int(($ended - $began) * 64 * 0.8))")
[ "$bad" -eq 2 ] && [ "$malformed" = 1 ] && [ "$oversized" = 1 ] && [ "${ticks:-0}" -ge "$expect" ]
check bad-replies $? "$bad bad replies sent; the server counted malformed $malformed, oversized $oversized; $ticks ticks in $(python3 -c "print('%.1f' % ($ended - $began))") s (>= $expect)"

finish
