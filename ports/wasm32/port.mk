# WebAssembly (wasm32): built with emscripten, run under node. A module has
# no UDP socket, so the port's network is the in-module loop network (as on
# the Cortex-M3): the conformance suite's datagrams and every match of the
# suite run inside the one module. make web builds the page on this port
# (mk/web.mk).
PORT_CC := emcc
PORT_AR := emar
PORT_NM := emnm
PORT_SIZE := emsize
EXE := .js
RUN := node
# Debian's node acorn (for emcc's optimizer) lies in /usr/share/nodejs,
# where a node built elsewhere does not look.
export NODE_PATH := /usr/share/nodejs
# The page's test (tools/web-test.sh, the web row of make test) plays it in
# chromium, driven from node by playwright-core (npm ci by install-deps.sh).
PORT_PACKAGES := emcc:emscripten node:nodejs /usr/share/nodejs/acorn:node-acorn npm:npm \
	chromium:chromium
PORT_SRC := ports/wasm32/zl_port_wasm32.c ports/common/zl_port_loopnet.c
PORT_BENCH_SRC := ports/posix/zl_timer_posix.c
PORT_LIBS := -lm
# One .js file with the module inside (no .wasm to fetch: node 20's fetch
# cannot read a file path); the exit status is main's; the statics of the
# suite (66 MB) and the bench are larger than the default 16 MiB: 256 MiB
# to start with, and memory may grow.
PORT_LDFLAGS := -sSINGLE_FILE=1 -sEXIT_RUNTIME=1 -sINITIAL_MEMORY=256MB -sALLOW_MEMORY_GROWTH=1 \
	-sTOTAL_STACK=8MB
# UBSan in trap mode: no runtime library to link.
TEST_CFLAGS := -fsanitize=undefined -fsanitize-undefined-trap-on-error
# Nothing keeps float out of core here: WebAssembly's floating point is
# instructions (no helper calls for check-core to find) and clang has no
# flag that removes them. The other ports build the same core with a check.
