# The port template: how a port plugs into the Makefile. Copy the folder to
# ports/<name>/, rename the files, set what your platform needs, then run
# `make test PORT=<name>` (docs/PORTING.md; a new CPU for an OS that has a
# port needs only a port.mk, as ports/aarch64). Every variable below may be
# left out; the Makefile's default is shown in brackets. (`make test` with
# no PORT skips this folder: the template compiles, but its stubs fail the
# HAL suite.)

# Tool prefix for cross compilers: gcc, ar, nm become $(CROSS)gcc ... [empty:
# the host compiler]. E.g. arm-none-eabi- or x86_64-w64-mingw32-.
CROSS :=

# The compiler, archiver, nm and size when their names are not $(CROSS)gcc,
# $(CROSS)ar ... [empty], e.g. emcc, emar, emnm, emsize (ports/wasm32).
# PORT_CC :=
# PORT_AR :=
# PORT_NM :=
# PORT_SIZE :=

# The Debian packages the port needs, as command:package pairs (a path
# starting with / instead of a command checks for a file, e.g. a library).
# tools/install-deps.sh checks every port's list and installs what is
# missing [empty], e.g. aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu
# qemu-aarch64:qemu-user.
PORT_PACKAGES :=

# Suffix of the programs built, e.g. .exe or .elf [empty].
EXE :=

# Command that runs a built program, prefixed to its path: an emulator or
# wine, e.g. `qemu-arm` or `WINEDEBUG=-all wine` [empty: run it directly].
RUN :=

# Flags for every file: CPU selection, defines, e.g. -mcpu=cortex-m3 -mthumb.
PORT_CFLAGS :=

# Flags and libraries for linking, e.g. -static, a linker script; -lws2_32.
# The tests use libm as a reference oracle, so -lm where it is separate.
PORT_LDFLAGS :=
PORT_LIBS := -lm

# Folder holding this port's zl_port.h [ports/<name>]. A port that reuses
# another's code (the qemu-user ports reuse ports/posix) points here.
# PORT_DIR := ports/posix

# The port's implementation of zl_port.h, built into libzerolag.a.
PORT_SRC := ports/template/zl_port_template.c

# The conformance-suite glue of tests/zl_test_port.h, built into the tests
# [tests/port/zl_test_port_loopback.c: binds 127.0.0.1 and ::1, right for a
# socket port and for the in-image network]. Supply your own only when the
# platform's loopback has other addresses.
# PORT_TEST_SRC := ports/<name>/zl_test_port_<name>.c

# Startup code a bare-metal image needs in every program (vector table,
# reset handler) [empty].
PORT_IMAGE_SRC :=

# The timer declared in zl_port.h (see ports/posix/zl_timer_posix.c),
# needed only for `make bench` and the demo [empty].
PORT_BENCH_SRC :=

# Flags for the benchmark program's own files (never core's) and libraries
# it links, e.g. a reference library to measure against [empty].
PORT_BENCH_CFLAGS :=
PORT_BENCH_LIBS :=

# Command that runs the benchmark program [$(RUN)].
# BENCH_RUN := $(RUN)

# 1 when RUN is a user-mode emulator (qemu-user): benchmark times are then
# the emulator's, so the program says so and scores no target [empty]. An
# exact instruction count (qemu-system -icount, see cortex-m3) is not this.
BENCH_EMULATED :=

# Flags for core/ and the FPS rules only: what keeps float out of core on a
# CPU with an FPU, where check-core cannot see it. -mgeneral-regs-only makes
# a float a compile error where the compiler has it (docs/PORTING.md,
# section 5) [empty].
CORE_ONLY_CFLAGS :=

# Flags for the test build only: sanitizers where the toolchain has them,
# -DZL_TEST_SLOW on slow emulated targets (long loops run 1/100 as long).
TEST_CFLAGS :=

# Flags for the demo match (make demo-image) and the demo's tests: size it
# for a board's memory, e.g. -DDEMO_MAX_BOTS=4 -DDEMO_SAMPLES=128, and
# -DDEMO_IMAGE_NO_FILES where there is no file system (see cortex-m3) [empty].
PORT_DEMO_CFLAGS :=
