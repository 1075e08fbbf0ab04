# POSIX host port (Linux, macOS, BSD): BSD sockets, clock_gettime, getrandom
# or /dev/urandom. Tests run natively under AddressSanitizer and UBSan.
PORT_SRC := ports/posix/zl_port_posix.c
# Any float in core becomes a compile error on x86-64 and 64-bit ARM hosts.
ifneq ($(filter x86_64 aarch64 arm64,$(shell uname -m)),)
CORE_ONLY_CFLAGS := -mgeneral-regs-only
endif
# What `make SANITIZE=1` adds to every object and program; the tests have it always.
PORT_SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
TEST_CFLAGS := $(PORT_SANITIZE)
PORT_LIBS := -lm
PORT_BENCH_SRC := ports/posix/zl_timer_posix.c
# zl_window (mk/window.mk) and its test under a virtual X server;
# zl_client --watch fetches a broadcast with libcurl, and the tv row serves
# one with nginx.
DEMO_WATCH_LIBS := -lcurl
PORT_PACKAGES := sdl2-config:libsdl2-dev xvfb-run:xvfb xauth:xauth \
	curl-config:libcurl4-openssl-dev /usr/sbin/nginx:nginx-light
# Where libsodium is installed, the crypto benchmark seals with it beside
# core (the benchmark program only: the library never links it).
ifeq ($(shell pkg-config --exists libsodium 2>/dev/null && echo yes),yes)
PORT_BENCH_CFLAGS := -DZL_BENCH_SODIUM $(shell pkg-config --cflags libsodium)
PORT_BENCH_LIBS := $(shell pkg-config --libs libsodium)
endif
