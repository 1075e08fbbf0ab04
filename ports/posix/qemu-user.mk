# The POSIX port cross-built for another Linux CPU and run under qemu-user:
# what armhf, aarch64, riscv64 and s390x share. Their port.mk sets CROSS,
# RUN (the qemu-<cpu> command) and PORT_PACKAGES, then includes this file.
PORT_DIR := ports/posix
PORT_SRC := ports/posix/zl_port_posix.c
# Static, so qemu-user needs no target C library on the build machine.
PORT_LDFLAGS := -static
PORT_LIBS := -lm
# UBSan in trap mode: no runtime library to link.
TEST_CFLAGS := -fsanitize=undefined -fsanitize-undefined-trap-on-error
PORT_BENCH_SRC := ports/posix/zl_timer_posix.c
# qemu-user translates the code: its times are not the target CPU's.
BENCH_EMULATED := 1
