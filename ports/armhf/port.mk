# ARM Linux, 32-bit hard float: the POSIX port cross-built statically and run
# under qemu-arm.
CROSS := arm-linux-gnueabihf-
RUN := qemu-arm
PORT_PACKAGES := arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf qemu-arm:qemu-user
include ports/posix/qemu-user.mk
