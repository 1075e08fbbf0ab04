#!/bin/sh
# install-deps.sh [PORT...] - makes sure the Debian packages the build needs
# are present: the base tools, then each port's PORT_PACKAGES (every port, or
# only those named). Installs the missing ones when run as root on
# Debian/Ubuntu, otherwise names them and fails.
set -u
root=$(dirname "$0")/..
# command:package pairs the build itself runs; a port's own tools are in its
# port.mk, so a new port brings its packages with it.
# libsodium is the trusted implementation the crypto fuzz harness checks
# core against (linked into that harness only); g++, cmake and pkg-config
# build the install check's consumers (tools/check-install.sh). The fleet
# check (tools/fleet-test.sh) runs a real Prometheus and promtool, curl, and
# the Node backend (examples/backend, its npm packages installed by `npm ci`
# at the end).
base="make:make gcc:gcc clang:clang python3:python3 /usr/include/sodium.h:libsodium-dev \
    g++:g++ cmake:cmake pkg-config:pkg-config prometheus:prometheus promtool:prometheus \
    curl:curl node:nodejs npm:npm"

if [ $# -eq 0 ]; then
    for file in "$root"/ports/*/port.mk; do
        port=$(basename "$(dirname "$file")")
        [ "$port" = template ] || set -- "$@" "$port"
    done
fi
files=""
for port in "$@"; do
    [ -f "$root/ports/$port/port.mk" ] || { echo "install-deps: no port '$port'"; exit 1; }
    files="$files $root/ports/$port/port.mk"
done
# The value of PORT_PACKAGES in each port.mk, continuation lines joined.
# shellcheck disable=SC2086
port_needs=$(awk '
    FNR == 1 { line = "" }
    /\\$/ { line = line substr($0, 1, length($0) - 1) " "; next }
    {
        line = line $0
        if (sub(/^PORT_PACKAGES[ \t]*:?=/, "", line))
            print line
        line = ""
    }' $files)

# Sets `missing` to the packages whose check fails (each once) and `checked`
# to the number of checks; fails when something is missing.
# shellcheck disable=SC2086
check() {
    missing=""
    checked=0
    for pair in $base $port_needs; do
        what=${pair%%:*}
        checked=$((checked + 1))
        case $what in
            /*) [ -e "$what" ] ;;                    # a file: a library without a command
            *) command -v "$what" >/dev/null 2>&1 ;; # a command on PATH
        esac || missing="$missing ${pair#*:}"
    done
    # The fuzzers need clang's libFuzzer runtime, which has no command.
    checked=$((checked + 1))
    if command -v clang >/dev/null 2>&1 &&
        ! echo 'int LLVMFuzzerTestOneInput(const unsigned char*d,unsigned long n){(void)d;(void)n;return 0;}' |
        clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
        missing="$missing libclang-rt-14-dev"
    fi
    missing=$(for pkg in $missing; do echo "$pkg"; done | sort -u | tr '\n' ' ')
    [ -z "$missing" ]
}

# The npm packages of every folder with a lock file (examples/backend:
# libsodium-wrappers for the fleet check's tokens; tools/web-test:
# playwright-core, which drives chromium for the page's test): npm ci,
# skipped while node_modules is newer than the lock.
npm_packages() {
    for lock in "$root"/examples/*/package-lock.json "$root"/tools/*/package-lock.json; do
        [ -f "$lock" ] || continue
        dir=$(dirname "$lock")
        [ "$dir/node_modules/.package-lock.json" -nt "$lock" ] && continue
        if ! (cd "$dir" && npm ci --no-audit --no-fund >/dev/null); then
            echo "install-deps: npm ci failed in $dir"
            return 1
        fi
        echo "install-deps: npm ci in ${dir#"$root"/}"
    done
}

if check; then
    echo "install-deps: all $checked checks passed (base tools, fuzzer runtime, ports: $*)"
    npm_packages
    exit
fi
echo "install-deps: missing packages: $missing"
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: install them with your package manager (Debian names above), then rerun"
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# shellcheck disable=SC2086
if ! apt-get update -qq || ! apt-get install -y -qq $missing >/dev/null; then
    echo "install-deps: apt-get failed"
    exit 1
fi
# A package that installs but does not provide what its check looks for is
# a wrong pair in a port.mk: say so rather than claim success.
if ! check; then
    echo "install-deps: installed, but these checks still fail: $missing"
    exit 1
fi
echo "install-deps: installed; all $checked checks pass (ports: $*)"
npm_packages
