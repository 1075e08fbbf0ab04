# mk/window.mk - zl_window, the client in a desktop window (SDL2), built
# where SDL2's development files are (sdl2-config answers) on the host port;
# other ports and hosts without SDL2 skip it.
#   make window                  build it (build/posix/window/zl_window)
#   make window-test             the Xvfb test (tools/window-test.sh)

WINDOW_SDL := $(if $(filter posix,$(PORT)),$(shell sdl2-config --version 2>/dev/null))
WINDOW_DIR := $(BUILD)/window
WINDOW_BIN := $(WINDOW_DIR)/zl_window$(EXE)
WINDOW_SRC := $(addprefix examples/demo/,demo_window_main.c demo_window.c demo_glyphs.c)
WINDOW_OBJ := $(WINDOW_SRC:%.c=$(BUILD)/window-obj/%.o)

.PHONY: window window-test
ifneq ($(WINDOW_SDL),)
# SDL's headers as system headers: our warnings are for our code.
WINDOW_CFLAGS := $(patsubst -I%,-isystem %,$(shell sdl2-config --cflags))
WINDOW_LIBS := $(shell sdl2-config --libs)

window: $(WINDOW_BIN)

$(BUILD)/window-obj/%.o: %.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(WINDOW_CFLAGS) -Iexamples/fps -Iexamples/demo -c $< -o $@

$(WINDOW_BIN): $(WINDOW_OBJ) $(DEMO_OBJ) $(DEMO_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(WINDOW_LIBS) $(PORT_LIBS) -o $@

window-test: $(WINDOW_BIN) $(DEMO_PROGRAMS)
	tools/window-test.sh

-include $(WINDOW_OBJ:.o=.d)
else
window window-test:
	@echo "zl_window needs SDL2 (libsdl2-dev) and PORT=posix: skipped"
endif
