#!/bin/sh
# footprint.sh NAME OPT PORT... - prints the footprint table from what
# mk/footprint.mk left in build/<port>/NAME/<config>/: the size tool's
# sections, the static objects' sizes, and each program's run.
here=$(dirname "$0")
name=$1
opt=$2
shift 2
configs="default embedded"
# 16 KiB: the RAM of the smallest microcontrollers the embedded client targets.
target_ram=16384

# The value printed after "<label> " in a run log (the sum when several
# lines carry it, one per client), or "-".
run_value() {
    sed -n "s/^$2 \([0-9]*\)\$/\1/p" "$1" 2>/dev/null |
        awk '{ s += $1; n++ } END { if (n) print s; else print "-" }'
}

# Bytes of one origin (zerolag, program, runtime) and kinds in a link map.
map_bytes() {
    awk -f "$here/mapsum.awk" "$1" | awk -v o="$2" -v k="$3" \
        '$1 == o && index(" " k " ", " " $2 " ") { s += $3 } END { print s + 0 }'
}

echo "zerolag footprint: $opt, -ffunction-sections, linked with --gc-sections"
echo "flash = .text + .rodata + .data; static RAM = .data + .bss (stack not included)"
echo "zerolag code = flash taken by core/ and the FPS rules (from the link map)"
echo "state = the program's own static objects (zl_client; zl_server + fps_game)"
echo
printf '%-10s %-9s %-7s %8s %13s %11s %9s  %s\n' target config program flash "zerolag code" \
    "static RAM" state run
for port in "$@"; do
    for config in $configs; do
        d=build/$port/$name/$config
        for program in client server; do
            read -r text data bss <<EOF_SIZES
$(awk -v p="/$program" 'index($6, p) { print $1, $2, $3 }' "$d/sizes.txt")
EOF_SIZES
            # nm -S -t d prints "addr size type name" (decimal) under a "file:" header.
            state=$(awk -v p="/$program" '
                /:$/ { here = index($0, p) > 0; next }
                here && NF == 4 && ($4 == "client" || $4 == "server" || $4 == "game") {
                    sum += $2 }
                END { print sum + 0 }' "$d/symbols.txt")
            code=$(map_bytes "$d/$program.map" zerolag "text rodata data")
            status=$(tail -n 1 "$d/$program.run")
            [ "$status" = "exit 0" ] && result=ok || result="FAILED ($status)"
            printf '%-10s %-9s %-7s %8d %13d %11d %9d  %s\n' "$port" "$config" "$program" \
                $((text + data)) "$code" $((data + bss)) "$state" "$result"
        done
    done
done

echo
echo "self-test: a server and two clients in one image, 4 s over the in-image network"
echo "(snapshots, reconciliations and mispredictions summed over both clients)"
printf '%-10s %-9s %9s %9s %7s %9s %9s  %s\n' target config snapshots reconciled mispred \
    "client stack" "server stack" result
for port in "$@"; do
    for config in $configs; do
        log=build/$port/$name/$config/selftest.run
        grep -q '^selftest: OK' "$log" && result=OK || result=FAILED
        printf '%-10s %-9s %9s %9s %7s %9s %9s  %s\n' "$port" "$config" \
            "$(run_value "$log" 'selftest: snapshots decoded')" \
            "$(run_value "$log" 'selftest: reconciliations')" \
            "$(run_value "$log" 'selftest: mispredictions')" \
            "$(run_value "$log" 'selftest: client stack bytes')" \
            "$(run_value "$log" 'selftest: server stack bytes')" "$result"
    done
done

# The target: the embedded client on the Cortex-M3, statics plus its stack.
d=build/cortex-m3/$name/embedded
if [ -f "$d/sizes.txt" ]; then
    ram=$(awk 'index($6, "/client") { print $2 + $3 }' "$d/sizes.txt")
    stack=$(run_value "$d/selftest.run" 'selftest: client stack bytes')
    map=$d/client.map
    echo
    if [ "$stack" = - ]; then
        echo "embedded client on cortex-m3: $ram B static RAM; stack not measured"
    else
        total=$((ram + stack))
        verdict="fits"
        [ "$total" -gt "$target_ram" ] && verdict="does NOT fit"
        echo "embedded client on cortex-m3: $ram B static + $stack B stack = $total B: $verdict in $target_ram B"
    fi
    echo "  of which the C runtime (newlib with semihosting, the port's choice):" \
        "$(map_bytes "$map" runtime "data bss") B RAM," \
        "$(map_bytes "$map" runtime "text rodata data") B flash"
fi
