# ARM Linux, 64-bit (AArch64): the POSIX port cross-built statically and run
# under qemu-aarch64.
CROSS := aarch64-linux-gnu-
RUN := qemu-aarch64
PORT_PACKAGES := aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu qemu-aarch64:qemu-user
# Floating point here is hardware instructions, which check-core's nm cannot
# see: without FP registers any float or double in core fails to compile.
CORE_ONLY_CFLAGS := -mgeneral-regs-only
include ports/posix/qemu-user.mk
