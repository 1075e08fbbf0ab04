# soak.mk - `make soak`: the soak suite at full size (a full server of
# clients for 10 simulated minutes, tests/test_soak.c), built with
# -DZL_SOAK_LONG into $(BUILD)/soak so it never mixes with the test build.
SOAK_BUILD := $(BUILD)/soak
SOAK_BIN := $(SOAK_BUILD)/zl_tests$(EXE)

.PHONY: soak
soak:
	$(MAKE) --no-print-directory PORT=$(PORT) BUILD=$(SOAK_BUILD) \
		TEST_CFLAGS="$(TEST_CFLAGS) -DZL_SOAK_LONG" $(SOAK_BIN)
	$(RUN) $(SOAK_BIN) soak
