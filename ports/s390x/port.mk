# IBM Z, big-endian: the POSIX port cross-built statically and run under
# qemu-s390x, proving nothing in zerolag depends on byte order.
PORT_DIR := ports/posix
CROSS := s390x-linux-gnu-
PORT_SRC := ports/posix/zl_port_posix.c
PORT_LDFLAGS := -static
PORT_LIBS := -lm
TEST_CFLAGS := -fsanitize=undefined -fsanitize-undefined-trap-on-error
RUN := qemu-s390x
PORT_BENCH_SRC := ports/posix/zl_bench_timer_posix.c
