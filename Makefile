# zerolag - one entry point for every platform.
#   make                      build build/$(PORT)/libzerolag.a (PORT=posix by default)
#   make test                 run the suite on every port, then one summary table
#   make test PORT=<name>     run the suite on one port
#   make check                the inner loop (about two minutes): the host suite
#                             (PORT=posix) as built, then with SANITIZE=1
#   make check-core           prove core/ is allocation-free and sans-IO (nm)
#   make bench | demo | fuzz  benchmarks, demo match, fuzzers
#   make profile PORT=cortex-m3  instructions per function of the sealed
#                             64-player tick (mk/profile.mk)
#   make fuzz-long            every fuzzer to FUZZ_LONG_RUNS (10 million) executions
#   make ... SANITIZE=1       everything (library, programs, tests, demo) with the
#                             port's sanitizers (ASan+UBSan on posix), in build/<port>-sanitize
#   make install PREFIX=...   library, headers, pkg-config and CMake packages (mk/install.mk)
# A port is a folder ports/<name>/ with a port.mk (docs/PORTING.md).

SHELL := /bin/bash
ALL_PORTS := $(filter-out template,$(notdir $(patsubst %/,%,$(dir $(wildcard ports/*/port.mk)))))
# The host first, then the others.
PORTS := $(filter posix,$(ALL_PORTS)) $(filter-out posix,$(ALL_PORTS))
PORT ?= posix

ifeq ($(wildcard ports/$(PORT)/port.mk),)
$(error unknown PORT '$(PORT)'; known: $(PORTS))
endif

# Defaults a port.mk may override.
CROSS :=
EXE :=
RUN :=
PORT_CFLAGS :=
PORT_LDFLAGS :=
PORT_LIBS :=
PORT_DIR := ports/$(PORT)
PORT_SRC :=
# Conformance-suite glue; a port with other loopback addresses supplies its own.
PORT_TEST_SRC := tests/port/zl_test_port_loopback.c
PORT_BENCH_SRC :=
# Flags and libraries of the benchmark program's own files (not core's):
# e.g. a reference library the crypto group measures core beside.
PORT_BENCH_CFLAGS :=
PORT_BENCH_LIBS :=
PORT_IMAGE_SRC :=
BENCH_RUN = $(RUN)
CORE_ONLY_CFLAGS :=
TEST_CFLAGS :=
PORT_DEMO_CFLAGS :=
# 1 when benchmarks run under a user-mode emulator: their times are labelled
# as such and not scored against targets.
BENCH_EMULATED :=
# The most 64-slot matches the benchmark's matches program runs side by side
# (a port lowers it to what its memory holds).
BENCH_MATCHES_MAX := 8
# Sanitizer flags SANITIZE=1 builds everything with; empty: the port has no
# sanitizer runtime.
PORT_SANITIZE :=
# command:package pairs tools/install-deps.sh checks and installs.
PORT_PACKAGES :=
# Tools whose names are not $(CROSS)gcc, $(CROSS)ar ... (emscripten's emcc).
PORT_CC :=
PORT_AR :=
PORT_NM :=
PORT_SIZE :=
include ports/$(PORT)/port.mk
# The port's make files (port.mk and what it includes): every object depends
# on them, so editing a port's flags rebuilds that port.
PORT_MK := $(filter ports/%,$(MAKEFILE_LIST))

CC := $(or $(PORT_CC),$(CROSS)gcc)
AR := $(or $(PORT_AR),$(CROSS)ar)
NM := $(or $(PORT_NM),$(CROSS)nm)
SIZE := $(or $(PORT_SIZE),$(CROSS)size)

# A user configuration (core/base/zl_config.h): a folder holding zl_user_config.h.
# The library and what is built with it use it, in a build folder of their
# own so objects of two configurations never mix; make install carries it.
USER_CONFIG_DIR ?=
BUILD := build/$(PORT)$(if $(USER_CONFIG_DIR),/user-config)
CONFIG_CFLAGS := $(if $(USER_CONFIG_DIR),-DZL_USER_CONFIG -I$(USER_CONFIG_DIR))
SANITIZE ?=
ifeq ($(SANITIZE),1)
ifeq ($(PORT_SANITIZE),)
$(error SANITIZE=1: PORT=$(PORT) has no sanitizer runtime (PORT_SANITIZE in its port.mk); use PORT=posix)
endif
# Its own objects: a sanitized object never mixes with a plain build.
BUILD := $(BUILD)-sanitize
endif
include sources.mk
WARN := -std=c99 -pedantic -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Werror
OPT ?= -O2 -g
# core/ for zerolag.h, then a folder a layer of core (sources.mk).
INC := -Icore $(ZL_CORE_LAYERS:%=-Icore/%) -Iplatform -I$(PORT_DIR) -Iports/common
CFLAGS_ALL := $(WARN) $(OPT) $(PORT_CFLAGS) $(if $(filter 1,$(SANITIZE)),$(PORT_SANITIZE)) \
	$(INC) $(CONFIG_CFLAGS) -MMD -MP

CORE_SRC := $(wildcard $(ZL_CORE_SOURCES))
PLATFORM_SRC := $(wildcard $(ZL_PLATFORM_SOURCES))
LIB_SRC := $(CORE_SRC) $(PLATFORM_SRC) $(PORT_SRC)
# The reference FPS rules: simulation code, held to core's rules (no float).
GAME_SRC := $(wildcard examples/fps/*.c)
# Startup code a bare-metal port links into every program image.
# The demo's bookkeeping (records, histogram, options, the shot join, the
# impact message) is tested too.
TEST_SRC := $(wildcard tests/*.c) $(PORT_TEST_SRC) $(PORT_IMAGE_SRC) \
	$(addprefix examples/demo/,demo_impact.c demo_record.c demo_stopwatch.c demo_match.c demo_options.c)
BENCH_SRC := $(wildcard bench/*.c) tests/zl_print.c tests/zl_runner.c $(PORT_BENCH_SRC) $(PORT_IMAGE_SRC)

LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o) $(GAME_SRC:%.c=$(BUILD)/obj/%.o)
# Tests rebuild everything with the test flags (sanitizers on hosts).
TEST_OBJ := $(LIB_SRC:%.c=$(BUILD)/test-obj/%.o) $(GAME_SRC:%.c=$(BUILD)/test-obj/%.o) \
	$(TEST_SRC:%.c=$(BUILD)/test-obj/%.o)
TEST_BIN := $(BUILD)/zl_tests$(EXE)
# Benchmarks rebuild everything with their own capacities (bench/zl_user_config.h:
# 256 players), in their own object folder, so the library and tests keep the defaults.
BENCH_CFLAGS := -DZL_USER_CONFIG -Ibench $(if $(BENCH_EMULATED),-DZL_BENCH_EMULATED=1)
BENCH_OBJ := $(patsubst %.c,$(BUILD)/bench-obj/%.o,$(LIB_SRC) $(GAME_SRC) $(BENCH_SRC))
BENCH_BIN := $(BUILD)/zl_bench$(EXE)
# The matches program: M servers of 64 slots in one process (bench/matches/),
# with capacities of its own so several fit; M goes up to BENCH_MATCHES_MAX.
MATCHES_CFLAGS := -DZL_USER_CONFIG -Ibench/matches -Ibench -DZL_BENCH_MATCHES_MAX=$(BENCH_MATCHES_MAX) \
	$(if $(BENCH_EMULATED),-DZL_BENCH_EMULATED=1)
MATCHES_SRC := bench/main.c bench/zl_bench.c bench/bench_match.c bench/matches/bench_matches.c \
	tests/zl_print.c tests/zl_runner.c $(PORT_BENCH_SRC) $(PORT_IMAGE_SRC)
MATCHES_OBJ := $(patsubst %.c,$(BUILD)/bench-matches-obj/%.o,$(LIB_SRC) $(GAME_SRC) $(MATCHES_SRC))
MATCHES_BIN := $(BUILD)/zl_bench_matches$(EXE)

.PHONY: all lib test test-one test-all check check-core bench fuzz fuzz-long clean
FUZZ_SECONDS ?= 60
# fuzz-long: executions per harness, and a time limit per harness that only
# a machine far slower than the 2-core build machine (under 15 minutes each
# there) would reach.
FUZZ_LONG_RUNS ?= 10000000
FUZZ_LONG_SECONDS ?= 3600
all: lib
lib: $(BUILD)/libzerolag.a

$(BUILD)/libzerolag.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/obj/core/%.o: core/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CORE_ONLY_CFLAGS) -c $< -o $@

$(BUILD)/obj/examples/fps/%.o: examples/fps/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CORE_ONLY_CFLAGS) -c $< -o $@

# The library's platform and port objects see core, platform and the port only.
$(BUILD)/obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(BUILD)/test-obj/core/%.o: core/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CORE_ONLY_CFLAGS) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/test-obj/examples/fps/%.o: examples/fps/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CORE_ONLY_CFLAGS) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/test-obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) $(PORT_DEMO_CFLAGS) -Itests -Iexamples/fps -Iexamples/demo \
		-c $< -o $@

$(TEST_BIN): $(TEST_OBJ)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

check-core: $(CORE_OBJ)
	@tools/check-core.sh "$(NM)" $(CORE_OBJ)

# The benchmarks are built too (not run): a change that breaks them fails here.
test-one: check-core $(TEST_BIN) $(BENCH_BIN)
	$(RUN) $(TEST_BIN)

# Without PORT on the command line, `make test` runs every port.
ifeq ($(origin PORT),command line)
test: test-one
else
test: test-all
endif

test-all:
	@tools/test-all.sh $(PORTS)

# The quick check between edits: the host's suite (with check-core and the
# benchmarks built) twice, the second time with every object sanitized; the
# other ports, the install check and the fuzzers are make test's.
check:
	@$(MAKE) --no-print-directory test PORT=posix SANITIZE=
	@$(MAKE) --no-print-directory test PORT=posix SANITIZE=1

# core/ and the FPS rules keep their core-only flags; the rest sees tests/ and fps.h.
BENCH_SIDE_CFLAGS = $(if $(filter core/% examples/%,$<),$(CORE_ONLY_CFLAGS),-Itests -Iexamples/fps $(PORT_BENCH_CFLAGS))
$(BUILD)/bench-obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(BENCH_CFLAGS) $(BENCH_SIDE_CFLAGS) -c $< -o $@

$(BUILD)/bench-matches-obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(MATCHES_CFLAGS) $(BENCH_SIDE_CFLAGS) -c $< -o $@

$(BENCH_BIN): $(BENCH_OBJ)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) $(PORT_BENCH_LIBS) -o $@

$(MATCHES_BIN): $(MATCHES_OBJ)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

# The table goes to the terminal and build/<port>/bench.txt; the CSV lines
# to build/<port>/bench.csv.
bench: $(BENCH_BIN) $(MATCHES_BIN)
	set -o pipefail; { $(BENCH_RUN) $(BENCH_BIN) && $(BENCH_RUN) $(MATCHES_BIN); } | \
		tee $(BUILD)/bench.txt | grep -v '^csv,'
	@echo "group,name,unit,median,min,max" > $(BUILD)/bench.csv
	@sed -n 's/^csv,//p' $(BUILD)/bench.txt | tr -d '\r' >> $(BUILD)/bench.csv
	@echo "wrote $(BUILD)/bench.txt and $(BUILD)/bench.csv"

# libFuzzer harnesses tests/fuzz/fuzz_*.c, each for FUZZ_SECONDS (host only).
fuzz:
	tools/fuzz.sh $(FUZZ_SECONDS)

# Every harness to FUZZ_LONG_RUNS executions, one after the other; the
# table gives each one's executions, rate and time.
fuzz-long:
	FUZZ_RUNS=$(FUZZ_LONG_RUNS) FUZZ_BUILD=build/fuzz-long tools/fuzz.sh $(FUZZ_LONG_SECONDS)

# Larger targets keep their rules in mk/<name>.mk (demo, soak, footprint).
include $(wildcard mk/*.mk)

clean:
	rm -rf build

# Header dependencies (-MMD): editing core/base/zl_config.h or a user config
# rebuilds every object that includes it.
-include $(LIB_OBJ:.o=.d) $(CORE_OBJ:.o=.d) $(BENCH_OBJ:.o=.d) $(MATCHES_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
