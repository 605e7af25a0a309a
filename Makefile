# nfsload build. User CFLAGS/LDFLAGS are added to ours, never replaced.
#   make                 build ./nfsload (into build/, linked at ./nfsload)
#   make test            install test deps (as root), unit + integration tests
#   make demo            private nfs-ganesha on loopback, a 10 s run, report
#   make bench           side-by-side benchmark (bench/run.sh)
#   make soak            1000 connections x iodepth 4 for 10 min: RSS, errors (bench/soak.sh)
#   make SAN=address,undefined test     sanitizer build in build-san-*/
#   make SAN=thread test                ThreadSanitizer (tests/tsan.supp)
#   make install PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
PKG_CONFIG ?= pkg-config

OPT ?= -O2 -g
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude $(OPT) \
	-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-MMD -MP
ifeq ($(CI),true)
BASE_CFLAGS += -Werror
endif
ifneq ($(WERROR),)
BASE_CFLAGS += -Werror
endif

comma := ,
ifneq ($(SAN),)
BUILD := build-san-$(subst $(comma),-,$(SAN))
BASE_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
SAN_LDFLAGS := -fsanitize=$(SAN)
else
BUILD := build
endif
NFS_CFLAGS := $(shell $(PKG_CONFIG) --cflags libnfs 2>/dev/null)
NFS_LIBS := $(shell $(PKG_CONFIG) --libs libnfs 2>/dev/null || echo -lnfs)
ALL_CFLAGS = $(BASE_CFLAGS) $(NFS_CFLAGS) $(CFLAGS)
LIBS := $(NFS_LIBS) -lev -lz -lpthread -lm -linih -lxxhash

SRCS := $(wildcard src/*.c src/engine/*.c)
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(filter-out src/main.c,$(SRCS)))
UNIT_SRCS := $(wildcard tests/test_*.c)
UNIT_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPER_SRCS := $(wildcard tests/helper_*.c)
HELPER_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(HELPER_SRCS))

.PHONY: all test unit integration demo bench soak install uninstall clean deps-build deps-test
all: $(BUILD)/nfsload nfsload

nfsload: $(BUILD)/nfsload
	@if [ "$(BUILD)" = build ]; then ln -sf build/nfsload nfsload; fi

$(BUILD)/nfsload: $(BUILD)/main.o $(LIB_OBJS)
	$(CC) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: src/%.c | $(BUILD)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIB_OBJS) | $(BUILD)/tests
	$(CC) $(ALL_CFLAGS) $(SAN_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) -lcmocka $(LIBS)

$(BUILD) $(BUILD)/tests:
	mkdir -p $@

deps-build:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

SUITES := tests/integration.sh tests/analysis.sh tests/latency.sh tests/faults.sh tests/jobs.sh tests/presets.sh tests/verify.sh
# The sanitizer builds leave out the presets (jobs.sh's code paths at a larger scale)
# so that CI runs both sanitizer passes within its time budget.
ifneq ($(SAN),)
SUITES := $(filter-out tests/presets.sh,$(SUITES))
endif
integration: $(BUILD)/nfsload $(HELPER_BINS)
	@rc=0; for t in $(SUITES); do echo "== $$t"; start=$$(date +%s); \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp $$TSAN_OPTIONS" \
		SAN=$(SAN) NFSLOAD=$(BUILD)/nfsload HELPERS=$(BUILD)/tests $$t || rc=1; \
		echo "== $$t: $$(($$(date +%s) - start)) s"; done; exit $$rc

test: deps-test
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory integration

demo: deps-test
	@$(MAKE) --no-print-directory all
	scripts/demo.sh $(BUILD)/nfsload

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	bench/run.sh $(BUILD)/nfsload

soak:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	bench/soak.sh $(BUILD)/nfsload

JOBDIR ?= $(PREFIX)/share/nfsload/jobs
install: $(BUILD)/nfsload
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(JOBDIR)
	install -m 755 $(BUILD)/nfsload $(DESTDIR)$(BINDIR)/nfsload
	install -m 644 man/nfsload.1 $(DESTDIR)$(MANDIR)/man1/nfsload.1
	install -m 644 jobs/*.job $(DESTDIR)$(JOBDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/nfsload $(DESTDIR)$(MANDIR)/man1/nfsload.1
	rm -rf $(DESTDIR)$(JOBDIR)

clean:
	rm -rf build build-san-* build-fuzz nfsload

-include $(wildcard $(BUILD)/*.d $(BUILD)/engine/*.d $(BUILD)/tests/*.d)

# ---- fuzzing (tests/fuzz/README.md) ----
#   make fuzz [FUZZ_SECONDS=60]   libFuzzer targets (options url units job) built
#   with clang into build-fuzz/; each replays tests/fuzz/regress/<target>/, then
#   fuzzes FUZZ_SECONDS from a copy of tests/fuzz/corpus/<target>/. Fails on a crash.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_BUILD := build-fuzz
FUZZ_TARGETS := options url units job
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude $(NFS_CFLAGS) $(FUZZ_SAN)
# all of src/ but main.c, as the unit tests link it (config.c's dependencies move)
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(filter-out src/main.c,$(SRCS)))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz
.SECONDARY: $(FUZZ_OBJS)
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(FUZZ_BUILD)/obj/%.o: src/%.c $(wildcard include/*.h src/*.h src/engine/*.h) | $(FUZZ_BUILD)/obj
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJS) $(LIBS)

$(FUZZ_BUILD)/obj:
	mkdir -p $@
	@echo '*' > $(FUZZ_BUILD)/.gitignore
