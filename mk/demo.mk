# mk/demo.mk - the demo match and the programs people run.
#   make demo                          a 30 s match: server + 8 bots as processes,
#                                      live net graph, report, pictures in build/<port>/demo/
#   make demo DEMO_ARGS="--fakelag 200 --bots 4"   the launcher's options (--help)
#   make demo-programs [PORT=windows]  zl_server, zl_client, zl_token and zl_replay for one port
#   make demo-image [PORT=cortex-m3]   the match in one program image on a simulated
#                                      clock (in-image loopback), the same report
# Outputs go to $(BUILD)/demo/ (build/<port>/demo/): each port's programs and
# pictures apart, so one port never runs another's binary. A program's main
# is examples/demo/demo_<role>_main.c: zl_server, zl_client and zl_token
# from demo_server_main.c, demo_client_main.c and demo_token_main.c, the
# launcher zl_demo from demo_launcher_main.c, zl_demo_image from
# demo_image_main.c; every other demo_*.c is shared by the programs.

DEMO_DIR := $(BUILD)/demo
# Each host file carries one operating system's calls; ports without their
# own (the qemu-user ports) are POSIX.
DEMO_HOST_SRC := $(firstword $(wildcard examples/demo/demo_host_$(PORT).c) examples/demo/demo_host_posix.c)
# What the single image needs: no sockets, no terminal, no options.
DEMO_MATCH_SRC := $(addprefix examples/demo/,demo_arena.c demo_bot.c demo_game.c demo_impact.c \
	demo_local.c demo_match.c \
	demo_pictures.c demo_player.c demo_record.c demo_referee.c demo_report.c demo_stopwatch.c \
	demo_svg.c demo_welcome.c)
DEMO_SRC := $(DEMO_MATCH_SRC) $(addprefix examples/demo/,demo_agones.c demo_broadcast.c demo_http.c \
	demo_client_demo.c demo_join.c demo_metrics.c demo_net.c demo_options.c demo_view.c) \
	$(DEMO_HOST_SRC) $(PORT_BENCH_SRC)
DEMO_OBJ := $(DEMO_SRC:%.c=$(BUILD)/obj/%.o)
# zl_client --watch fetches a broadcast over HTTP with libcurl where the port
# links it (DEMO_WATCH_LIBS in its port.mk); elsewhere it says it cannot.
DEMO_WATCH_OBJ := $(BUILD)/obj/examples/demo/$(if $(DEMO_WATCH_LIBS),demo_watch.o,demo_watch_none.o)
DEMO_LIB_OBJ := $(LIB_OBJ) $(GAME_SRC:%.c=$(BUILD)/obj/%.o)
DEMO_PROGRAMS := $(DEMO_DIR)/zl_server$(EXE) $(DEMO_DIR)/zl_client$(EXE) $(DEMO_DIR)/zl_token$(EXE) \
	$(DEMO_DIR)/zl_replay$(EXE)
DEMO_IMAGE := $(DEMO_DIR)/zl_demo_image$(EXE)
DEMO_IMAGE_OBJ := $(BUILD)/obj/examples/demo/demo_image_main.o \
	$(DEMO_MATCH_SRC:%.c=$(BUILD)/obj/%.o) \
	$(PORT_BENCH_SRC:%.c=$(BUILD)/obj/%.o) $(PORT_IMAGE_SRC:%.c=$(BUILD)/obj/%.o)
# A port may size the match for its memory (PORT_DEMO_CFLAGS in its port.mk).
DEMO_CFLAGS := $(PORT_DEMO_CFLAGS)
DEMO_ARGS ?=

.PHONY: demo demo-programs demo-image tv-test
demo-programs: $(DEMO_PROGRAMS)

$(BUILD)/obj/examples/demo/%.o: examples/demo/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEMO_CFLAGS) -DDEMO_DIR='"$(DEMO_DIR)"' -Iexamples/fps -Iexamples/demo \
		-c $< -o $@

$(DEMO_DIR)/zl_%$(EXE): $(BUILD)/obj/examples/demo/demo_%_main.o $(DEMO_OBJ) $(DEMO_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) $(DEMO_LINK_LIBS) -o $@

$(DEMO_DIR)/zl_client$(EXE): $(DEMO_WATCH_OBJ)
$(DEMO_DIR)/zl_client$(EXE): DEMO_LINK_LIBS := $(DEMO_WATCH_LIBS)

# The launcher forks the programs: POSIX only.
$(DEMO_DIR)/zl_demo: $(BUILD)/obj/examples/demo/demo_launcher_main.o $(DEMO_OBJ) $(DEMO_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

$(DEMO_IMAGE): $(DEMO_IMAGE_OBJ) $(DEMO_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

# The junk flood that measures a server under attack (tools/flood-demo.sh);
# a host tool for POSIX systems.
$(BUILD)/zl_flood: tools/zl_flood.c
	$(CC) $(WARN) $(OPT) $< -o $@

# Two jobs at most: the build machine is shared.
demo:
	@$(MAKE) --no-print-directory -j2 $(DEMO_PROGRAMS) $(DEMO_DIR)/zl_demo
	$(DEMO_DIR)/zl_demo --bin $(DEMO_DIR) --out $(DEMO_DIR) $(DEMO_ARGS)

# The broadcast row: a live match served by nginx to 100 spectators.
tv-test:
	@$(MAKE) --no-print-directory -j2 $(DEMO_PROGRAMS)
	tools/tv-test.sh $(DEMO_DIR)

# BENCH_RUN: on the Cortex-M3 it counts instructions (qemu -icount shift=0).
demo-image:
	@$(MAKE) --no-print-directory -j2 $(DEMO_IMAGE)
	$(BENCH_RUN) $(DEMO_IMAGE)

# The programs' own objects are not intermediate files: keep them.
DEMO_MAIN_OBJ := $(patsubst %,$(BUILD)/obj/examples/demo/demo_%_main.o,server client token launcher image)
.SECONDARY: $(DEMO_MAIN_OBJ)

-include $(DEMO_OBJ:.o=.d) $(DEMO_MAIN_OBJ:.o=.d) $(DEMO_WATCH_OBJ:.o=.d)
