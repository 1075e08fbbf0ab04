# RISC-V Linux, 64-bit (RV64GC): the POSIX port cross-built statically and
# run under qemu-riscv64.
CROSS := riscv64-linux-gnu-
RUN := qemu-riscv64
PORT_PACKAGES := riscv64-linux-gnu-gcc:gcc-riscv64-linux-gnu qemu-riscv64:qemu-user
# No flag keeps float out of core here: gcc has no -mgeneral-regs-only for
# RISC-V, and Debian's riscv64 C library has only the hard-float ABI, so a
# soft-float core (-mabi=lp64) cannot include its headers. The other ports
# build the same core with a check (docs/PORTING.md, section 5).
include ports/posix/qemu-user.mk
