# ARM Linux, 32-bit hard float: the POSIX port cross-built statically and run
# under qemu-arm.
CROSS := arm-linux-gnueabihf-
RUN := qemu-arm
PORT_PACKAGES := arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf qemu-arm:qemu-user
# Floating point here is VFP instructions, which check-core's nm cannot see:
# without FP registers any float or double in core fails to compile.
CORE_ONLY_CFLAGS := -mgeneral-regs-only
include ports/posix/qemu-user.mk
