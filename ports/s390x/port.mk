# IBM Z, big-endian: the POSIX port cross-built statically and run under
# qemu-s390x, proving nothing in zerolag depends on byte order.
CROSS := s390x-linux-gnu-
RUN := qemu-s390x
PORT_PACKAGES := s390x-linux-gnu-gcc:gcc-s390x-linux-gnu qemu-s390x:qemu-user
# gcc has no -mgeneral-regs-only here. Core is built soft-float instead, so a
# float in core calls libgcc helpers (__adddf3, ...) that check-core finds;
# core passes no float between functions, so it links with hard-float code.
CORE_ONLY_CFLAGS := -msoft-float
include ports/posix/qemu-user.mk
