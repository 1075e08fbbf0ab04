#!/bin/sh
# live.sh NAME - the live test: a Cortex-M3 client under QEMU, its UART bound
# to UDP, joins the POSIX server through slip_bridge; they must agree.
# Uses build/cortex-m3/NAME/embedded/live_client.elf and build/posix/NAME/
# embedded/{live_server,slip_bridge}, built by `make footprint-live`; the
# logs go to build/cortex-m3/NAME/live/.
name=$1
m3=build/cortex-m3/$name/embedded
host=build/posix/$name/embedded
out=build/cortex-m3/$name/live
mkdir -p "$out"
# Three UDP ports on 127.0.0.1 picked from the process id, so parallel runs
# rarely meet: the bridge's serial side, QEMU's side, the server.
base=$((20000 + ($$ % 2000) * 3))
listen=$base
qemu=$((base + 1))
server=$((base + 2))
# Long enough for QEMU to boot, the client to connect, play 6 s and settle.
host_seconds=15

"$host/live_server" "127.0.0.1:$server" $host_seconds > "$out/server.log" 2>&1 &
server_pid=$!
"$host/slip_bridge" $listen $qemu "127.0.0.1:$server" $host_seconds > "$out/bridge.log" 2>&1 &
bridge_pid=$!
sleep 0.5
# shellcheck disable=SC2046
timeout 60 $(cat "$m3/emulator.cmd") -serial "udp:127.0.0.1:$listen@127.0.0.1:$qemu" \
    -kernel "$m3/live_client.elf" > "$out/client.log" 2>&1
client_status=$?
wait $server_pid $bridge_pid

cat "$out/client.log" "$out/server.log" "$out/bridge.log"
hash_client=$(sed -n 's/^live client: predicted player hash \([0-9]*\)$/\1/p' "$out/client.log")
hash_server=$(sed -n 's/^live server: slot [0-9]* left.*player hash \([0-9]*\)$/\1/p' \
    "$out/server.log" | tail -n 1)
if [ $client_status -eq 0 ] && [ -n "$hash_client" ] && [ "$hash_client" = "$hash_server" ]; then
    echo "live: OK - the Cortex-M3 client's predicted player equals the server's ($hash_client)"
    exit 0
fi
echo "live: FAILED (client exit $client_status, client hash '$hash_client', server hash '$hash_server')"
exit 1
