# IBM Z, big-endian: the POSIX port cross-built statically and run under
# qemu-s390x, proving nothing in zerolag depends on byte order.
CROSS := s390x-linux-gnu-
RUN := qemu-s390x
PORT_PACKAGES := s390x-linux-gnu-gcc:gcc-s390x-linux-gnu qemu-s390x:qemu-user
include ports/posix/qemu-user.mk
