# footprint.mk - `make footprint`: static RAM and flash of a client and of a
# server program (library + FPS rules + a tiny main), default and embedded
# configuration, on the Cortex-M3 and on the host; each program is also run.
#
#   make footprint                      the table (build/footprint.txt)
#   make footprint FOOTPRINT_NAME=name  outputs in build/<port>/<name>/ and the
#                                       table in build/<name>.txt instead
#   make footprint FOOTPRINT_OPT=-O2    another optimisation level (-Os)
#   make footprint-live                 a Cortex-M3 client joins a POSIX server
#                                       over its UART and a SLIP bridge (15 s)
#
# Each (port, configuration) is a sub-make with that port's toolchain,
# building into build/<port>/$(FOOTPRINT_NAME)/<config>/. Objects are compiled
# for the footprint alone (-ffunction-sections, linked with --gc-sections)
# so only what the programs use is counted.

FOOTPRINT_NAME ?= footprint
FOOTPRINT_OPT ?= -Os
FOOTPRINT_PORTS := cortex-m3 posix
FOOTPRINT_CONFIGS := default embedded

.PHONY: footprint footprint-port
footprint:
	@for port in $(FOOTPRINT_PORTS); do for config in $(FOOTPRINT_CONFIGS); do \
	    $(MAKE) --no-print-directory footprint-port PORT=$$port FOOTPRINT_CONFIG=$$config \
	        FOOTPRINT_NAME=$(FOOTPRINT_NAME) FOOTPRINT_OPT="$(FOOTPRINT_OPT)" || exit 1; \
	done; done
	@examples/footprint/footprint.sh $(FOOTPRINT_NAME) "$(FOOTPRINT_OPT)" $(FOOTPRINT_PORTS) | \
	    tee build/$(FOOTPRINT_NAME).txt

FOOTPRINT_CONFIG ?= default
# build/<port>, not $(BUILD): a BUILD given to `make footprint` reaches
# every port's sub-make and would put both ports in one folder.
FP_DIR := build/$(PORT)/$(FOOTPRINT_NAME)/$(FOOTPRINT_CONFIG)
FP_CFLAGS := $(WARN) $(FOOTPRINT_OPT) $(PORT_CFLAGS) $(INC) -Iexamples/fps -Iexamples/footprint \
	-ffunction-sections -fdata-sections -MMD -MP \
	$(if $(filter embedded,$(FOOTPRINT_CONFIG)),-DZL_USER_CONFIG)
# The programs bring their own assertion handler (no stdio): zl_assert.c stays out.
FP_BOARD := examples/footprint/fp_board_$(if $(filter cortex-m3,$(PORT)),m3,host).c
FP_SHARED_SRC := $(CORE_SRC) $(GAME_SRC) $(filter-out platform/zl_assert.c,$(PLATFORM_SRC)) \
	$(PORT_SRC) $(PORT_IMAGE_SRC) examples/footprint/fp_setup.c $(FP_BOARD)
FP_SHARED_OBJ := $(FP_SHARED_SRC:%.c=$(FP_DIR)/obj/%.o)
FP_PROGRAMS := client server selftest
FP_BINS := $(FP_PROGRAMS:%=$(FP_DIR)/%$(EXE))
# The live test's programs: the client on the board, server and bridge on the host.
FP_LIVE := $(if $(filter cortex-m3,$(PORT)),live_client,live_server)
FP_LIVE_BINS := $(FP_LIVE:%=$(FP_DIR)/%$(EXE))
FP_BRIDGE := $(FP_DIR)/slip_bridge$(EXE)
# The programs run with the UART unplugged: what they send goes nowhere.
FP_RUN := $(if $(filter cortex-m3,$(PORT)),$(QEMU_M3) -serial null -kernel,$(RUN))

# Builds the programs, runs each (its output and exit status go to
# <program>.run) and records the size tool's view (sizes.txt, symbols.txt).
footprint-port: $(FP_BINS)
	@for p in $(FP_PROGRAMS); do \
	    $(FP_RUN) $(FP_DIR)/$$p$(EXE) > $(FP_DIR)/$$p.run 2>&1; echo "exit $$?" >> $(FP_DIR)/$$p.run; \
	done
	@$(SIZE) -B $(FP_BINS) > $(FP_DIR)/sizes.txt
	@$(NM) -S -t d --size-sort $(FP_BINS) > $(FP_DIR)/symbols.txt
	@echo "footprint: $(PORT) $(FOOTPRINT_CONFIG) built and run in $(FP_DIR)"

# The link map tells which input files the kept bytes came from.
$(FP_BINS) $(FP_LIVE_BINS): $(FP_DIR)/%$(EXE): $(FP_DIR)/obj/examples/footprint/%_main.o \
		$(FP_SHARED_OBJ)
	$(CC) $(FP_CFLAGS) $(PORT_LDFLAGS) -Wl,--gc-sections -Wl,-Map=$(FP_DIR)/$*.map $^ \
	    $(PORT_LIBS) -o $@

$(FP_BRIDGE): $(FP_DIR)/obj/tools/slip_bridge.o $(FP_SHARED_OBJ)
	$(CC) $(FP_CFLAGS) $(PORT_LDFLAGS) -Wl,--gc-sections $^ $(PORT_LIBS) -o $@

# The live test (examples/footprint/live.sh): UDP ports on 127.0.0.1 and
# 15 s of real time, so it is a target of its own.
.PHONY: footprint-live footprint-live-port
footprint-live:
	@$(MAKE) --no-print-directory footprint-live-port PORT=cortex-m3 FOOTPRINT_CONFIG=embedded \
	    FOOTPRINT_NAME=$(FOOTPRINT_NAME) FOOTPRINT_OPT="$(FOOTPRINT_OPT)"
	@$(MAKE) --no-print-directory footprint-live-port PORT=posix FOOTPRINT_CONFIG=embedded \
	    FOOTPRINT_NAME=$(FOOTPRINT_NAME) FOOTPRINT_OPT="$(FOOTPRINT_OPT)" LIVE_BRIDGE=1
	@examples/footprint/live.sh $(FOOTPRINT_NAME)

# The board's emulator command goes to a file for live.sh (one place: port.mk).
footprint-live-port: $(FP_LIVE_BINS) $(if $(LIVE_BRIDGE),$(FP_BRIDGE))
	$(if $(QEMU_M3),@echo '$(QEMU_M3)' > $(FP_DIR)/emulator.cmd)

# core/ and the FPS rules keep their core-only flags (no float on x86-64).
$(FP_DIR)/obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(FP_CFLAGS) $(if $(filter core/% examples/fps/%,$<),$(CORE_ONLY_CFLAGS)) -c $< -o $@

-include $(wildcard $(FP_DIR)/obj/*/*.d $(FP_DIR)/obj/*/*/*.d)
