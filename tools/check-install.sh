#!/bin/sh
# check-install.sh - zerolag as a project consumes it, on the host: installs
# into a staged prefix (build/install/), then checks that every option of
# core/base/zl_config.h is in its fingerprint list, that every installed header
# compiles alone as C99 and as C++11, that a C program builds through
# pkg-config and runs, that the same program built with other capacities
# gets ZL_ERR_CONFIG, and that the C++ example builds through CMake's
# find_package and runs. Ends with "N passed, N failed".
set -u
out=$(pwd)/build/install
stage=$out/stage
prefix=/opt/zerolag        # PREFIX as a package would have it; files go to $stage$prefix
root=$stage$prefix
passed=0
failed=0
# check NAME COMMAND...: runs the command, its output into $out/NAME.log.
check() {
    name=$1
    shift
    if "$@" >"$out/$name.log" 2>&1; then
        passed=$((passed + 1))
        echo "ok      $name"
    else
        failed=$((failed + 1))
        echo "FAILED  $name"
        tail -n 15 "$out/$name.log"
    fi
}

rm -rf "$out"
mkdir -p "$out"

check install make --no-print-directory install PORT=posix DESTDIR="$stage" PREFIX="$prefix"

# Every #define ZL_<name> <value> of zl_config.h is an option and must be
# listed in ZL_CONFIG_OPTIONS, or the fingerprint would miss it.
options_listed() {
    missing=0
    for option in $(sed -n 's/^#define \(ZL_[A-Z0-9_]*\) .*/\1/p' core/base/zl_config.h); do
        grep -q "X($option)" core/base/zl_config.h || { echo "not in ZL_CONFIG_OPTIONS: $option"; missing=1; }
    done
    return $missing
}
check config-options options_listed

# Each header alone, as C99 and as C++11 (two at a time); the typedef keeps
# a header of macros only (zl_config.h) from being an empty unit.
headers_alone() {
    ls "$root"/include/zerolag/*.h | xargs -P 2 -I{} sh -c '
        printf "#include \"%s\"\ntypedef int header_alone;\n" "$(basename {})" \
            > "$0/$(basename {}).c" &&
        gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$1" "$0/$(basename {}).c" &&
        g++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$1" -x c++ \
            "$0/$(basename {}).c" || { echo "header failed: {}"; exit 255; }' \
        "$out/headers" "$root/include/zerolag"
}
mkdir -p "$out/headers"
check headers headers_alone

# pkg-config finds the staged package; --define-prefix takes the prefix
# from where the .pc file lies, as with a relocated installation.
pc() {
    PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --define-prefix "$@" zerolag
}
consumer() {
    # shellcheck disable=SC2046
    gcc -std=c99 -pedantic -Wall -Wextra -Werror $(pc --cflags) tests/install/zl_consumer.c \
        $(pc --libs) -o "$out/zl_consumer" && "$out/zl_consumer"
}
check c-pkg-config consumer
check c-as-cxx g++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ \
    -I"$root/include/zerolag" tests/install/zl_consumer.c

# The same program compiled with 8 player slots against the library's 64:
# the init must refuse with ZL_ERR_CONFIG, not run on a too-small struct.
mismatch() {
    # shellcheck disable=SC2046
    gcc -std=c99 -Wall -Wextra -Werror -DZL_MAX_CLIENTS=8 $(pc --cflags) \
        tests/install/zl_consumer.c $(pc --libs) -o "$out/zl_consumer_8" || return 1
    "$out/zl_consumer_8" | tee "$out/mismatch.txt"
    grep -q 'zl_server_init: ZL_ERR_CONFIG' "$out/mismatch.txt"
}
check capacity-mismatch mismatch
[ -f "$out/mismatch.txt" ] && sed 's/^/        /' "$out/mismatch.txt"

cxx_example() {
    cmake -S examples/cpp -B "$out/cpp" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_BUILD_TYPE=Release &&
        cmake --build "$out/cpp" -j 2 &&
        "$out/cpp/loop_match"
}
check cxx-cmake cxx_example

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
