# protocol.mk - the examples docs/PROTOCOL.md quotes, checked against the code.
#   make protocol-examples   builds $(BUILD)/protocol_examples: real packets from
#                            fixed keys, nonces, times and seed, as named blocks
#   make check-protocol      rebuilds it and fails when a block of the document
#                            differs (tools/check-protocol-doc.sh)
# `make test PORT=posix` runs check-protocol before the suite.

PROTOCOL_BIN := $(BUILD)/protocol_examples$(EXE)
PROTOCOL_OBJ := $(BUILD)/obj/tests/protocol/protocol_examples.o

.PHONY: protocol-examples check-protocol
protocol-examples: $(PROTOCOL_BIN)

$(PROTOCOL_OBJ): tests/protocol/protocol_examples.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iexamples/fps -c $< -o $@

# The game's objects before the library: they call into it.
$(PROTOCOL_BIN): $(PROTOCOL_OBJ) $(GAME_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libzerolag.a
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

check-protocol: $(PROTOCOL_BIN)
	@tools/check-protocol-doc.sh $(PROTOCOL_BIN)

ifeq ($(PORT),posix)
test-one: check-protocol
endif

-include $(PROTOCOL_OBJ:.o=.d)
