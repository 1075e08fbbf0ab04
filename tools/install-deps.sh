#!/bin/sh
# install-deps.sh - makes sure every toolchain and emulator the test suite
# uses is present: installs the missing Debian packages when run as root on
# Debian/Ubuntu, otherwise names them and fails.
set -u
# command:package pairs, one per tool the build runs.
needs="make:make gcc:gcc clang:clang python3:python3
x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 wine:wine64
arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf qemu-arm:qemu-user
s390x-linux-gnu-gcc:gcc-s390x-linux-gnu qemu-s390x:qemu-user
arm-none-eabi-gcc:gcc-arm-none-eabi qemu-system-arm:qemu-system-arm"
missing=""
for pair in $needs; do
    cmd=${pair%%:*}
    pkg=${pair#*:}
    command -v "$cmd" >/dev/null 2>&1 || missing="$missing $pkg"
done
# Libraries that have no command of their own.
[ -f /usr/lib/arm-none-eabi/newlib/thumb/v7-m/nofp/librdimon.a ] ||
    [ -n "$(find /usr/lib/arm-none-eabi -name librdimon.a 2>/dev/null | head -n 1)" ] ||
    missing="$missing libnewlib-arm-none-eabi"
# libsodium: the trusted implementation the crypto fuzz harness checks core
# against (linked into that harness only).
[ -f /usr/include/sodium.h ] || missing="$missing libsodium-dev"
if command -v clang >/dev/null 2>&1 &&
    ! echo 'int LLVMFuzzerTestOneInput(const unsigned char*d,unsigned long n){(void)d;(void)n;return 0;}' |
    clang -x c -fsanitize=fuzzer -o /dev/null - >/dev/null 2>&1; then
    missing="$missing libclang-rt-14-dev"
fi
missing=$(echo $missing | tr ' ' '\n' | sort -u | tr '\n' ' ')
if [ -z "$(echo $missing | tr -d ' ')" ]; then
    echo "install-deps: all toolchains present"
    exit 0
fi
echo "install-deps: missing packages: $missing"
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq $missing >/dev/null ||
        { echo "install-deps: apt-get failed"; exit 1; }
    echo "install-deps: installed $missing"
else
    echo "install-deps: install them with your package manager (Debian names above), then rerun"
    exit 1
fi
