#!/bin/sh
# tv-test.sh [BIN] - the broadcast row: a live match (zl_server and 4 bots
# from BIN, default build/posix/demo) broadcasts into a folder that Debian's
# nginx serves on 127.0.0.1; 100 spectators (zl_client --watch --headless,
# 4 processes of 25, each spectator its own HTTP connection) follow the
# same 3 fragments. Checks each keeps the
# delay, all end with the same view hash, the server wrote each fragment
# once (and nginx served each to every spectator); reports bytes per
# spectator per second, fragment sizes and the server's median tick with 0
# and with 100 watching. Ends with "N passed, N failed".
set -u
bin=${1:-build/posix/demo}
WATCHERS=${WATCHERS:-100}
PROCESSES=4
DELAY_MS=4000
FRAGMENT_MS=1000
# A spectator shows the newest frame at or before its clock minus the delay:
# it lags by at most one snapshot (16 ms at 64 ticks/s) plus its 20 ms loop.
# Its clock comes from the index's wall time (the same machine's), stamped
# after the tick ran (up to a server loop late) and the fragment was
# written: up to tens of ms early. With a hundred processes on two shared
# cores a spectator may be scheduled late by tens of ms: 50 ms early at most,
# 100 ms late on the average, 400 ms at worst.
EARLY_TOLERANCE_MS=50
AVG_TOLERANCE_MS=100
MAX_TOLERANCE_MS=400
# Fragments ahead of the newest that the spectators start at: each must be
# running before its first fragment is published.
AHEAD=2
NGINX=${NGINX:-/usr/sbin/nginx}

. "$(dirname "$0")/checks.sh"

for prog in zl_server zl_client; do
    [ -x "$bin/$prog" ] || { echo "tv-test: no $bin/$prog (make demo-programs)"; fail=1; finish; }
done
[ -x "$NGINX" ] || { echo "tv-test: no $NGINX (tools/install-deps.sh installs nginx-light)"; fail=1; finish; }

began=$(date +%s)
tmp=$(mktemp -d)
chmod 755 "$tmp"
mkdir "$tmp/b" "$tmp/logs"
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
    for p in $(jobs -p); do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    [ -n "${TV_KEEP:-}" ] && cp -r "$tmp" "$TV_KEEP"
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The match: 22 s, statuses every second (their "since the last status"
# median is the tick cost of that second).
"$bin/zl_server" --address 127.0.0.1 --port 0 --broadcast "$tmp/b" --tv_delay $DELAY_MS \
    --tv_fragment $FRAGMENT_MS --duration 22 --status 1 >"$tmp/server.log" 2>&1 &
server_pid=$!
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/server.log")
    [ -n "$port" ] && break
    sleep 0.2
done
[ -n "$port" ] || { cat "$tmp/server.log"; fail=1; finish; }
for i in 1 2 3 4; do
    "$bin/zl_client" --bot --seed "$i" --address 127.0.0.1 --port "$port" --duration 21 \
        >"$tmp/logs/bot$i.log" 2>&1 &
done

# nginx in the foreground of its own folder, on a free port.
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$tmp/nginx.conf" <<CONF
$user
daemon off;
worker_processes 1;
pid $tmp/nginx.pid;
error_log $tmp/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log $tmp/access.log;
    client_body_temp_path $tmp/body;
    proxy_temp_path $tmp/proxy;
    fastcgi_temp_path $tmp/fastcgi;
    uwsgi_temp_path $tmp/uwsgi;
    scgi_temp_path $tmp/scgi;
    types { text/plain txt; application/octet-stream zld; }
    server {
        listen 127.0.0.1:$http_port;
        root $tmp/b;
        location = /index.txt { add_header Cache-Control "no-cache"; }
        location / { add_header Cache-Control "public, max-age=31536000, immutable"; }
    }
}
CONF
"$NGINX" -p "$tmp" -c "$tmp/nginx.conf" 2>"$tmp/nginx-start.log" &
url=http://127.0.0.1:$http_port

# Until the first fragments are out (delay - fragment - 1 s after the start).
newest=""
for _ in $(seq 1 60); do
    newest=$(curl -s "$url/index.txt" 2>/dev/null | sed -n 's/^fragment //p')
    [ -n "$newest" ] && [ "$newest" -ge 1 ] && break
    sleep 0.25
done
[ -n "$newest" ]
check "nginx serves the broadcast's index ($url/index.txt)" $?
[ -n "$newest" ] || { cat "$tmp/nginx-start.log" "$tmp/nginx-error.log" 2>/dev/null; finish; }

# 3 s with nobody watching, then the spectators, all from the same fragment.
sleep 3
quiet_statuses=$(grep -c '^status:' "$tmp/server.log")
from=$(( $(curl -s "$url/index.txt" | sed -n 's/^fragment //p') + AHEAD ))
launch=$(date +%s)
i=0
while [ $i -lt $PROCESSES ]; do
    "$bin/zl_client" --watch "$url" --headless --watchers $((WATCHERS / PROCESSES)) \
        --from "$from" --fragments 3 --duration 15 >"$tmp/logs/watch$i.log" 2>&1 &
    i=$((i + 1))
done
watching_from=$(grep -c '^status:' "$tmp/server.log")
echo "$WATCHERS spectators started in $(($(date +%s) - launch)) s, from fragment $from"
wait_for=$(($(date +%s) + 16))
while [ "$(cat "$tmp"/logs/watch*.log | grep -c '^zl_client: watched')" -lt "$WATCHERS" ] &&
    [ "$(date +%s)" -lt "$wait_for" ]; do
    sleep 0.5
done
watching_to=$(grep -c '^status:' "$tmp/server.log")
kill "$server_pid" 2>/dev/null
wait "$server_pid" 2>/dev/null
server_pid=""

cat "$tmp"/logs/watch*.log | grep '^zl_client: watched' >"$tmp/watched.txt"
done_count=$(wc -l <"$tmp/watched.txt")
[ "$done_count" -eq "$WATCHERS" ]
check "$WATCHERS spectators in $PROCESSES processes finished (got $done_count)" $?
[ "$done_count" -gt 0 ] || { cat "$tmp/logs/watch0.log"; finish; }
last=$((from + 2))
[ "$(grep -c "watched fragments $from\.\.$last (3 played)" "$tmp/watched.txt")" -eq "$done_count" ]
check "each played fragments $from..$last" $?
hashes=$(sed -n 's/.*view hash \([0-9a-f]*\)$/\1/p' "$tmp/watched.txt" | sort -u)
[ "$(echo "$hashes" | wc -l)" -eq 1 ]
check "one view hash for all ($(echo "$hashes" | tr '\n' ' '))" $?
# delay kept: avg, min, max of each spectator
awk -v d=$DELAY_MS -v early=$EARLY_TOLERANCE_MS -v avg_tol=$AVG_TOLERANCE_MS -v max_tol=$MAX_TOLERANCE_MS '
    { match($0, /delay kept [0-9]+ ms avg \(min [0-9]+, max [0-9]+\)/);
      split(substr($0, RSTART, RLENGTH), f, /[^0-9]+/);
      avg = f[2]; mn = f[3]; mx = f[4];
      if (avg < d - early || avg > d + avg_tol || mn < d - early || mx > d + max_tol) bad++;
      sa += avg; if (mx > worst) worst = mx; n++ }
    END { printf "delay kept: %.0f ms on average over %d spectators (tv_delay %d), worst %d ms, %d outside [-%d, +%d avg / +%d max]\n",
          sa / n, n, d, worst, bad, early, avg_tol, max_tol; exit bad > 0 }' "$tmp/watched.txt"
check "every spectator on the delay" $?
awk '{ match($0, /fetched [0-9]+ B\/s \([0-9]+ B of fragments, [0-9]+ B of index in [0-9.]+ s\)/);
       split(substr($0, RSTART, RLENGTH), f, /[^0-9.]+/); s += f[2]; fr += f[3]; ix += f[4]; t += f[5]; n++ }
     END { printf "bytes per spectator: %.0f B/s fetched on average (fragments %.0f B/s, index %.0f B/s)\n",
           s / n, fr / t, ix / t }' "$tmp/watched.txt"
grep -h 'stalls [1-9]' "$tmp/watched.txt" | head -n 3

# The server wrote each fragment once; nginx served each of the range to every spectator.
written=$(sed -n 's/^broadcast: \([0-9]*\) fragments written once each.*/\1/p' "$tmp/server.log")
files=$(ls "$tmp/b" | grep -c '^fragment-[0-9]*\.zld$')
grep '^broadcast:' "$tmp/server.log"
[ -n "$written" ] && [ "$written" = "$files" ] && [ -z "$(ls "$tmp/b" | grep '\.tmp$')" ]
check "the server wrote each fragment once ($written written, $files files, no leftovers)" $?
served=$(grep -c "GET /fragment-$from\.zld " "$tmp/access.log")
[ "$served" -eq "$done_count" ]
check "nginx served fragment $from $served times, once to each spectator" $?
for n in $from $((from + 1)) $last; do
    ls -l "$tmp/b/fragment-$n.zld" | awk '{ printf "fragment %s: %d B\n", $NF, $5 }' | sed "s|$tmp/b/||"
done

# The tick's median cost, by second: alone, and while the spectators watched.
grep '^status:' "$tmp/server.log" | sed -n 's/.*since the last status \([0-9.]*\) us.*/\1/p' >"$tmp/ticks.txt"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "?" }'; }
alone=$(sed -n "2,${quiet_statuses}p" "$tmp/ticks.txt" | median)
crowd=$(sed -n "$((watching_from + 1)),${watching_to}p" "$tmp/ticks.txt" | median)
echo "server tick median: ${alone} us with 0 watching, ${crowd} us with $WATCHERS watching (seconds' medians; load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo "row wall time: $(($(date +%s) - began)) s"
finish
