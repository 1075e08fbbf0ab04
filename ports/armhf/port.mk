# ARM Linux, 32-bit hard float: the POSIX port cross-built statically and run
# under qemu-arm. UBSan traps (no runtime needed) catch undefined behaviour.
PORT_DIR := ports/posix
CROSS := arm-linux-gnueabihf-
PORT_SRC := ports/posix/zl_port_posix.c
PORT_LDFLAGS := -static
PORT_LIBS := -lm
TEST_CFLAGS := -fsanitize=undefined -fsanitize-undefined-trap-on-error
RUN := qemu-arm
PORT_BENCH_SRC := ports/posix/zl_bench_timer_posix.c
