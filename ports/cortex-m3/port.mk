# Bare-metal Cortex-M3 on QEMU's mps2-an385 board: newlib with semihosting
# (rdimon) for output and exit status, no heap (_sbrk is wrapped to fail),
# SysTick clock, the in-image loopback network as transport, and a SLIP
# transport over UART0 for programs that talk to a host (zl_uart.h).
CROSS := arm-none-eabi-
# newlib has no command: its semihosting library is the file that proves it.
PORT_PACKAGES := arm-none-eabi-gcc:gcc-arm-none-eabi qemu-system-arm:qemu-system-arm \
	/usr/lib/arm-none-eabi/newlib/thumb/v7-m/nofp/librdimon.a:libnewlib-arm-none-eabi
EXE := .elf
# ChaCha20's rounds and a whole block's XOR in Thumb-2 assembly
# (zl_chacha20_cortex_m3.c) in place of core's C, which spills a third of
# the state every double round and XORs a word at a time, and
# Poly1305 in radix 2^32 with its block loop in assembly
# (zl_poly1305_cortex_m3.c) in place of core's 26-bit limbs.
PORT_CFLAGS := -mcpu=cortex-m3 -mthumb -ffunction-sections -fdata-sections -DZL_PRINT_PORT_OUTPUT \
	-DZL_PORT_CHACHA20_ROUNDS -DZL_PORT_CHACHA20_XOR -DZL_PORT_POLY1305
PORT_LDFLAGS := --specs=rdimon.specs -nostartfiles -Tports/cortex-m3/mps2-an385.ld \
	-Wl,--gc-sections -Wl,--wrap=_sbrk
PORT_LIBS := -lm
PORT_SRC := ports/cortex-m3/zl_port_cortex_m3.c ports/common/zl_port_loopnet.c ports/cortex-m3/zl_uart.c ports/cortex-m3/zl_chacha20_cortex_m3.c \
	ports/cortex-m3/zl_poly1305_cortex_m3.c
PORT_IMAGE_SRC := ports/cortex-m3/startup.c
PORT_BENCH_SRC := ports/cortex-m3/zl_timer_cortex_m3.c
# The emulated board runs long loops about 100x slower than a host.
# The test image's statics fill the board's 16 MiB of PSRAM: its link
# conditioners hold 128 datagrams (enough for 800 ms round trips at 64
# packets a second each way) instead of 256, its input buffers one second
# of stall and its prediction rings 128 commands, not two seconds (its
# reduced bad-links cells need no more), and its blocks are of 4 KiB at
# most with 8 packets in flight (the blocks suite sends 4 KiB here). The
# broadcast suite leaves out its live match (a second snapshot receiver and
# the broadcast's buffers would not fit beside the others).
TEST_CFLAGS := -DZL_TEST_SLOW -DZL_TEST_NO_HEAP -DZL_TEST_NO_BROADCAST_LIVE \
	-DZL_CONDITIONER_PACKETS=128 \
	-DZL_CMDBUF_CAPACITY=128 -DZL_PREDICT_COMMANDS=128 \
	-DZL_BLOCK_MAX=4096 -DZL_BLOCK_PACKETS=8 \
	-fsanitize=undefined -fsanitize-undefined-trap-on-error
QEMU_M3 := qemu-system-arm -M mps2-an385 -nographic -monitor none \
	-semihosting-config enable=on,target=native
RUN := $(QEMU_M3) -kernel
# Benchmarks count instructions: one instruction per virtual nanosecond.
BENCH_RUN := $(QEMU_M3) -icount shift=0 -kernel
# Four 64-slot matches fill the PSRAM the matches program may take (eight
# would need 20 MiB).
BENCH_MATCHES_MAX := 4
# The board's statics must fit its 16 MiB PSRAM, and it has no files: a
# smaller demo match (the demo image and the demo's tests) without pictures.
PORT_DEMO_CFLAGS := -DDEMO_MAX_BOTS=4 -DDEMO_SAMPLES=128 -DDEMO_SHOTS=2048 -DDEMO_IMAGE_NO_FILES
