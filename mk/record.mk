# record.mk - the match record every port's record suite replays:
#   make record-vector   records a 60 s match on this machine
#                        (tests/vectors/gen_match_record.c) and rewrites
#                        tests/vectors/match_record.h; run it on the host
#                        (PORT=posix) when the match legitimately changes
#   make replay          builds $(BUILD)/zl_replay (examples/replay)

RECORD_GEN := $(BUILD)/gen_match_record$(EXE)
RECORD_GEN_OBJ := $(BUILD)/test-obj/tests/vectors/gen_match_record.o \
	$(addprefix $(BUILD)/test-obj/tests/,zl_match.o zl_test.o zl_print.o) \
	$(LIB_SRC:%.c=$(BUILD)/test-obj/%.o) $(GAME_SRC:%.c=$(BUILD)/test-obj/%.o) \
	$(PORT_TEST_SRC:%.c=$(BUILD)/test-obj/%.o)

.PHONY: record-vector replay
$(RECORD_GEN): $(RECORD_GEN_OBJ)
	$(CC) $(CFLAGS_ALL) $(TEST_CFLAGS) $(PORT_LDFLAGS) $^ $(PORT_LIBS) -o $@

record-vector: $(RECORD_GEN)
	$(RUN) $(RECORD_GEN) tests/vectors/match_record.h

-include $(RECORD_GEN_OBJ:.o=.d)
