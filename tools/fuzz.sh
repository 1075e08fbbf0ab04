#!/bin/sh
# fuzz.sh [seconds [name...]] - builds every tests/fuzz/fuzz_<name>.c (or only
# those named) with libFuzzer and runs each, one after the other, for the
# given time (default 60) on a copy of its seed corpus. FUZZ_RUNS=n also
# stops a harness after n executions.
#
# Output goes to $FUZZ_BUILD/<name>/ (FUZZ_BUILD defaults to build/fuzz): the
# binary, build.log, run.log, the working corpus (seeds plus what the run
# found; the checked-in corpus under tests/fuzz/corpus/<name>/ is never
# written) and any crash artifacts.
# Prints executions, rate, time and coverage per harness; exits non-zero if a harness
# fails to build or finds a crash. A harness may ask for capacities of its
# own in a comment "FUZZ_FLAGS: -DNAME=value ..." (up to the comment's end);
# only -D options are taken from it. A harness that checks against another
# library names it the same way, "FUZZ_LIBS: -lname"; only -l options are taken.
# "FUZZ_MAX_LEN: n" caps its inputs at n bytes (libFuzzer's -max_len; the
# default lets them grow to 4096): a harness whose cost grows with the input
# stays fast enough for fuzz-long's 10 million executions.
set -u

secs=${1:-60}
case $secs in
'' | *[!0-9]*) echo "usage: $0 [seconds [name...]]" >&2; exit 2 ;;
esac
[ $# -gt 0 ] && shift
runs=-1
case ${FUZZ_RUNS:-} in
'') ;;
*[!0-9]*) echo "$0: FUZZ_RUNS must be a number" >&2; exit 2 ;;
*) runs=$FUZZ_RUNS ;;
esac

cd "$(dirname "$0")/.." || exit 2
CC=${CC:-clang}
# core/ (zerolag.h), each layer folder of core (sources.mk), platform/.
layers=$(sed -n 's/^ZL_CORE_LAYERS *:= *//p' sources.mk)
CFLAGS="-std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Werror \
-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Icore \
$(for layer in $layers; do printf -- '-Icore/%s ' "$layer"; done)-Iplatform -Iexamples/fps"
out=${FUZZ_BUILD:-build/fuzz}
mkdir -p "$out"

status=0
found=0
rows=""
if [ $# -gt 0 ]; then
    sources=$(for n in "$@"; do echo "tests/fuzz/fuzz_$n.c"; done)
else
    sources=$(ls tests/fuzz/fuzz_*.c 2>/dev/null)
fi
for src in $sources; do
    if [ ! -f "$src" ]; then
        echo "fuzz.sh: no harness $src" >&2
        status=1
        continue
    fi
    found=$((found + 1))
    name=$(basename "$src" .c)
    name=${name#fuzz_}
    dir=$out/$name
    rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/crashes"
    if [ -d "tests/fuzz/corpus/$name" ]; then
        cp -R "tests/fuzz/corpus/$name/." "$dir/corpus/"
    fi
    seeds=$(ls "$dir/corpus" | wc -l)

    echo "=== $name: building"
    flags=$(sed -n '/FUZZ_FLAGS:/,/\*\//p' "$src" | grep -o -- '-D[A-Za-z0-9_]*=[A-Za-z0-9_]*' | tr '\n' ' ')
    libs=$(sed -n '/FUZZ_LIBS:/,/\*\//p' "$src" | grep -o -- '-l[A-Za-z0-9_]*' | tr '\n' ' ')
    max_len=$(sed -n 's/.*FUZZ_MAX_LEN: *\([0-9][0-9]*\).*/-max_len=\1/p' "$src" | head -n 1)
    # Every core and platform file and the reference FPS rules are linked:
    # a harness names what it calls, and new files need no change here.
    # Core's programmer-error asserts go to the default handler, which aborts.
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS $flags "$src" core/*/*.c examples/fps/*.c platform/*.c $libs \
        -o "$dir/fuzz_$name" >"$dir/build.log" 2>&1; then
        cat "$dir/build.log"
        rows="$rows$(printf '%-12s %12s %10s %7s %7s %7s %6s  %s' "$name" - - - - - "$seeds" "BUILD FAILED")
"
        status=1
        continue
    fi

    echo "=== $name: fuzzing for ${secs}s ($seeds seeds)"
    began=$(date +%s)
    # shellcheck disable=SC2086
    "$dir/fuzz_$name" -max_total_time="$secs" -runs="$runs" $max_len -timeout=10 -print_final_stats=1 \
        -artifact_prefix="$dir/crashes/" "$dir/corpus" >"$dir/run.log" 2>&1
    rc=$?
    took=$(($(date +%s) - began))

    # Final stats come from -print_final_stats; cov and ft from the last
    # status line ("#N DONE cov: C ft: F ..." or the last one before a crash).
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/run.log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/run.log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.* cov: ' "$dir/run.log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    crashes=$(ls "$dir/crashes" | wc -l)
    if [ $rc -eq 0 ] && [ "$crashes" -eq 0 ]; then
        result=ok
    else
        result="CRASH (exit $rc), see $dir/run.log and $dir/crashes/"
        grep -E 'ERROR|SUMMARY|Test unit written' "$dir/run.log" | head -n 10
        status=1
    fi
    rows="$rows$(printf '%-12s %12s %10s %7s %7s %7s %6s  %s' "$name" "${execs:-?}" "${rate:-?}" \
        "${took}s" "${cov:-?}" "${ft:-?}" "$(ls "$dir/corpus" | wc -l)" "$result")
"
done

if [ $found -eq 0 ]; then
    echo "fuzz.sh: no tests/fuzz/fuzz_*.c harness found" >&2
    exit 2
fi
echo
printf '%-12s %12s %10s %7s %7s %7s %6s  %s\n' harness executions exec/s time cov ft corpus result
printf '%s' "$rows"
exit $status
