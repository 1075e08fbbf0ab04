# protocol.mk - the examples docs/PROTOCOL.md quotes.
#   make protocol-examples   builds $(BUILD)/protocol_examples: real packets from
#                            fixed keys, nonces, times and seed, as named blocks

PROTOCOL_BIN := $(BUILD)/protocol_examples$(EXE)
PROTOCOL_OBJ := $(BUILD)/obj/tests/protocol/protocol_examples.o

.PHONY: protocol-examples
protocol-examples: $(PROTOCOL_BIN)

$(PROTOCOL_OBJ): tests/protocol/protocol_examples.c $(PORT_MK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -Iexamples/fps -c $< -o $@

# The game's objects before the library: they call into it.
$(PROTOCOL_BIN): $(PROTOCOL_OBJ) $(GAME_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/libzerolag.a
	$(CC) $(CFLAGS_ALL) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

-include $(PROTOCOL_OBJ:.o=.d)
