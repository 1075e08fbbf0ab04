# Windows x86-64: Winsock2, QueryPerformanceCounter and BCryptGenRandom, cross
# built with mingw-w64 and linked statically so the tests run under wine.
CROSS := x86_64-w64-mingw32-
EXE := .exe
RUN := WINEDEBUG=-all wine
PORT_PACKAGES := x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64 wine:wine64
PORT_SRC := ports/windows/zl_port_windows.c
PORT_BENCH_SRC := ports/windows/zl_timer_windows.c
# The harness prints %lld; mingw's own printf family gets that right.
PORT_CFLAGS := -D__USE_MINGW_ANSI_STDIO=1
PORT_LDFLAGS := -static
PORT_LIBS := -lws2_32 -lbcrypt
# Any float in core becomes a compile error.
CORE_ONLY_CFLAGS := -mgeneral-regs-only
# No sanitizers: mingw has no runtime for them.
TEST_CFLAGS :=
