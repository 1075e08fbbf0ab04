#!/bin/sh
# test-all.sh PORT... - runs `make test PORT=<p>` for each port, keeps each log
# under build/<p>/test.log, then the install check (tools/check-install.sh:
# zerolag as a project consumes it; log in build/install.log), then the
# checks of the programs (each a script in tools/ with its log under build/:
# the broadcast's, the page's in a browser, the fleet's, the desktop
# window's), then a short fuzz smoke run (every
# libFuzzer harness for FUZZ_SMOKE_SECONDS, default 10; log in
# build/fuzz/smoke.log), then prints one table and the overall total.
# A run that fails to build or start counts as one failure; in the fuzz row
# each harness that ran clean counts as passed.
total_pass=0
total_fail=0
rows=""
# row NAME LOG COMMAND...: runs the command into LOG and adds its table row
# from the "N passed, N failed" line it ends with.
row() {
    name=$1
    log=$2
    shift 2
    echo "=== $name"
    if "$@" >"$log" 2>&1; then
        state=ok
    else
        state=FAILED
    fi
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -n "$line" ]; then
        pass=$(echo "$line" | awk '{print $1}')
        fail=$(echo "$line" | awk '{print $3}')
    else
        pass=0
        fail=1
        tail -n 20 "$log"
    fi
    [ "$state" = FAILED ] && [ "$fail" -eq 0 ] && fail=1
    [ "$state" = FAILED ] && grep -E 'FAIL|failed:|error' "$log" | head -n 20
    total_pass=$((total_pass + pass))
    total_fail=$((total_fail + fail))
    rows="$rows$(printf '%-10s %8s %8s  %s' "$name" "$pass" "$fail" "$state")
"
}
for port in "$@"; do
    mkdir -p "build/$port"
    row "$port" "build/$port/test.log" make --no-print-directory test PORT="$port"
done
row install build/install.log tools/check-install.sh
grep -h 'ZL_ERR_CONFIG' build/install.log # the capacity mismatch, caught at init
# The broadcast: a live match through nginx to 100 spectators (POSIX host).
row tv build/tv.log make --no-print-directory tv-test PORT=posix
# The page in headless chromium (make web; tools/web-test.sh).
mkdir -p build/web
row web build/web/test.log tools/web-test.sh
row fleet build/fleet.log tools/fleet-test.sh
mkdir -p build/posix/window
row window build/posix/window/test.log tools/window-test.sh
echo "=== fuzz smoke"
mkdir -p build/fuzz
log=build/fuzz/smoke.log
if tools/fuzz.sh "${FUZZ_SMOKE_SECONDS:-10}" >"$log" 2>&1; then
    state=ok
else
    state=FAILED
fi
pass=$(grep -cE ' ok$' "$log")
fail=$(grep -cE ' CRASH ' "$log")
[ "$state" = FAILED ] && [ "$fail" -eq 0 ] && fail=1
[ "$state" = FAILED ] && tail -n 20 "$log"
total_pass=$((total_pass + pass))
total_fail=$((total_fail + fail))
rows="$rows$(printf '%-10s %8s %8s  %s' fuzz "$pass" "$fail" "$state")
"

echo
printf '%-10s %8s %8s  %s\n' port passed failed result
printf '%s' "$rows"
echo
echo "total: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
