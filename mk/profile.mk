# profile.mk - `make profile PORT=cortex-m3`: the exact instructions per
# function of the sealed 64-player server tick on the emulated Cortex-M3,
# snapshot ticks and the others apart (build/cortex-m3/profile.txt).
#
#   make profile PORT=cortex-m3 PROFILE_TOP=60   more functions (default 40)
#
# The benchmark's objects are linked with tools/m3_profile_main.c (the server
# group at 64 players, sealed) and run under QEMU with its execution log
# flowing through a FIFO to tools/m3_profile.py, which counts only the timed
# part of each tick. A few minutes; nothing large is written (if QEMU fails,
# opening the FIFO once ends the reader).
PROFILE_TOP ?= 40
PROFILE_BIN := $(BUILD)/zl_profile$(EXE)
PROFILE_OBJ := $(filter-out $(BUILD)/bench-obj/bench/main.o,$(BENCH_OBJ)) \
	$(BUILD)/bench-obj/tools/m3_profile_main.o

$(PROFILE_BIN): $(PROFILE_OBJ)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) -Wl,--wrap=getenv $^ $(PORT_LIBS) $(PORT_BENCH_LIBS) -o $@

.PHONY: profile
ifeq ($(PORT),cortex-m3)
profile: $(PROFILE_BIN)
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && mkfifo "$$tmp/log" && \
	    { tools/m3_profile.py $(CROSS)nm $(PROFILE_BIN) "$$tmp/log" $(PROFILE_TOP) > "$$tmp/out" & } && \
	    reader=$$! && \
	    { $(BENCH_RUN) $(PROFILE_BIN) -d in_asm,exec,nochain -D "$$tmp/log" > /dev/null || \
	        { : > "$$tmp/log"; wait $$reader; exit 1; }; } && \
	    wait $$reader && tee $(BUILD)/profile.txt < "$$tmp/out"
else
profile:
	@echo "make profile: PORT=cortex-m3 only (on the host, callgrind: docs/BENCHMARKS.md)"; exit 1
endif
