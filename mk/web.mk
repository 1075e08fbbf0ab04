# mk/web.mk - the page: the demo's match in one WebAssembly module, drawn on
# a canvas by plain JavaScript (examples/web/).
#   make web          build/web/: index.html, web.js and zerolag.js (the
#                     module inside); open build/web/index.html or serve the
#                     folder with any static server
#   make web-native   the page's bot-only match built for the host
#                     (build/posix/web/web_native: its hash and frame costs)
# tools/web-test.sh plays the page in headless chromium.

WEB_OUT := build/web
# What the page's match needs of the demo: the players, bots and the shot join.
WEB_SRC := examples/web/web_sim.c $(addprefix examples/demo/,demo_arena.c demo_bot.c demo_game.c demo_impact.c demo_local.c \
	demo_match.c demo_player.c demo_record.c demo_stopwatch.c demo_welcome.c) $(PORT_BENCH_SRC)
WEB_OBJ := $(WEB_SRC:%.c=$(BUILD)/obj/%.o)
WEB_LIB_OBJ := $(LIB_OBJ) $(GAME_SRC:%.c=$(BUILD)/obj/%.o)
# The functions web.js calls (web_sim.h), and malloc for its buffers; the
# match's statics take 24 MB.
WEB_EXPORTS := web_start web_step web_input web_link web_switch web_slots web_view \
	web_impacts web_graph web_hash web_frame_ns web_tick_ns web_frames web_ticks \
	web_walls web_wall malloc
web_comma := ,
web_space := $() $()
WEB_LDFLAGS := -sSINGLE_FILE=1 -sINITIAL_MEMORY=64MB -sALLOW_MEMORY_GROWTH=1 -sTOTAL_STACK=4MB \
	-sEXPORTED_FUNCTIONS=$(subst $(web_space),$(web_comma),$(strip $(WEB_EXPORTS:%=_%)))

.PHONY: web web-native web-page
web:
	@$(MAKE) --no-print-directory -j2 PORT=wasm32 web-page
	@echo "make web: open $(WEB_OUT)/index.html in a browser (or serve $(WEB_OUT)/ with any static server, e.g. python3 -m http.server -d $(WEB_OUT))"

web-native:
	@$(MAKE) --no-print-directory -j2 PORT=posix build/posix/web/web_native

web-page: $(WEB_OUT)/zerolag.js $(WEB_OUT)/index.html $(WEB_OUT)/web.js

$(BUILD)/obj/examples/web/%.o: examples/web/%.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(DEMO_CFLAGS) -Iexamples/fps -Iexamples/demo -c $< -o $@

$(WEB_OUT)/zerolag.js: $(WEB_OBJ) $(WEB_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(WEB_LDFLAGS) $^ $(PORT_LIBS) -o $@

$(WEB_OUT)/%: examples/web/%
	@mkdir -p $(dir $@)
	cp $< $@

$(BUILD)/web/web_native$(EXE): $(BUILD)/obj/examples/web/web_native_main.o $(WEB_OBJ) $(WEB_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

-include $(WEB_OBJ:.o=.d) $(BUILD)/obj/examples/web/web_native_main.d
