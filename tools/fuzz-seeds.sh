#!/bin/sh
# fuzz-seeds.sh - writes the seed corpora that the library's own writers
# produce (tests/fuzz/seed_<name>.c, each with its harness's FUZZ_FLAGS),
# so they follow the wire format: run it after a change to what goes on
# the wire, and commit the corpus it rewrites. Each writer checks that its
# seeds decode and prints how many sections did.
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
layers=$(sed -n 's/^ZL_CORE_LAYERS *:= *//p' sources.mk)
inc="-Icore $(for layer in $layers; do printf -- '-Icore/%s ' "$layer"; done)-Iplatform -Iexamples/fps"
out=${FUZZ_BUILD:-build/fuzz-seeds}
mkdir -p "$out"
for src in tests/fuzz/seed_*.c; do
    name=$(basename "$src" .c)
    name=${name#seed_}
    flags=$(sed -n '/FUZZ_FLAGS:/,/\*\//p' "tests/fuzz/fuzz_$name.c" | grep -o -- '-D[A-Za-z0-9_]*=[A-Za-z0-9_]*' | tr '\n' ' ')
    # shellcheck disable=SC2086
    $CC -std=c99 -O1 -g -Wall -Wextra -Werror $inc $flags -Itests/fuzz "$src" \
        core/*/*.c platform/*.c examples/fps/*.c -o "$out/seed_$name"
    echo "== $name"
    mkdir -p "tests/fuzz/corpus/$name"
    "$out/seed_$name" "tests/fuzz/corpus/$name"
done
