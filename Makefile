# nfsload build. User CFLAGS/LDFLAGS are added to ours, never replaced.
#   make                 build ./nfsload (into build/, linked at ./nfsload)
#   make test            install test deps (as root), unit + integration tests
#   make demo            private nfs-ganesha on loopback, a 10 s run, report
#   make bench           side-by-side benchmark (bench/run.sh)
#   make soak            1000 connections x iodepth 4 for 10 min: RSS, errors (bench/soak.sh)
#   make SAN=address,undefined test     sanitizer build in build-san-*/
#   make SAN=thread test                ThreadSanitizer (tests/tsan.supp)
#   make MPI=1           also build-mpi/nfsload: mpirun -np N ... build-mpi/nfsload ARGS
#   make install PREFIX=/usr/local DESTDIR=

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
PKG_CONFIG ?= pkg-config

OPT ?= -O2 -g
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(OPT) \
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
# The native engine: libtirpc's XDR, liburing's rings.
RPC_CFLAGS := $(shell $(PKG_CONFIG) --cflags libtirpc 2>/dev/null || echo -I/usr/include/tirpc)
RPC_LIBS := $(shell $(PKG_CONFIG) --libs libtirpc 2>/dev/null || echo -ltirpc) -luring \
	$(shell $(PKG_CONFIG) --libs krb5-gssapi 2>/dev/null || echo -lgssapi_krb5)
ALL_CFLAGS = $(BASE_CFLAGS) $(NFS_CFLAGS) $(RPC_CFLAGS) $(CFLAGS)
# libzstd: --op-log FILE.zst written and read back (src/measure/oplog_file.c only).
LIBS := $(NFS_LIBS) $(RPC_LIBS) -lev -lz -lpthread -lm -linih -lxxhash -ljansson -lpcap \
	$(shell $(PKG_CONFIG) --libs libzstd 2>/dev/null || echo -lzstd)

# Every .c under src/ (folders are the layers: docs/ARCHITECTURE.md).
SRCS := $(sort $(shell find src -name '*.c'))
LIB_OBJS := $(patsubst src/%.c,$(BUILD)/%.o,$(filter-out src/main.c,$(SRCS)))
UNIT_SRCS := $(wildcard tests/test_*.c)
UNIT_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))
HELPER_SRCS := $(wildcard tests/helper_*.c)
HELPER_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(HELPER_SRCS))

.PHONY: all test unit integration demo bench soak install uninstall clean deps-build deps-test \
	deps-demo test-build
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

# MPI=1: also the MPI build ($(BUILD)-mpi/nfsload, Open MPI from libopenmpi-dev): the same
# tool, which under mpirun runs one nfsload per rank and prints one report (src/cluster*.c).
# make test builds it too (not under SAN) for tests/mpi.sh.
MPI_BUILD := $(BUILD)-mpi
MPI_CFLAGS = $(shell mpicc --showme:compile 2>/dev/null) -DNFSLOAD_MPI
MPI_LIBS = $(shell mpicc --showme:link 2>/dev/null || echo -lmpi)
MPI_OBJS := $(patsubst src/%.c,$(MPI_BUILD)/%.o,$(SRCS))
ifeq ($(MPI),1)
all: $(MPI_BUILD)/nfsload
endif

# libev linked statically here: its shared library also exports libevent's API
# (event_add, ...), which Open MPI's libopen-pal would call instead of libevent's and crash
# in MPI_Init. From libev.a only ev.o is linked, not its libevent emulation (event.o).
$(MPI_BUILD)/nfsload: $(MPI_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(patsubst -lev,-l:libev.a,$(LIBS)) $(MPI_LIBS)

$(MPI_BUILD)/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(MPI_CFLAGS) -c -o $@ $<

deps-build:
	@scripts/deps.sh build
deps-test:
	@scripts/deps.sh test
deps-demo:
	@scripts/deps.sh demo

# unit and integration add a line "PASSED FAILED SKIPPED NAME" per test binary or suite
# to $(BUILD)/unit.counts or $(BUILD)/integration.counts (shell function tally NAME
# STATUS [PASSED FAILED SKIPPED]); each ends with its own "passed, failed, skipped" line
# (COUNTS_LINE) and make test sums both. A binary or suite that printed no counts (it
# crashed), or exited non-zero with none failed, counts as one failed test.
TALLY = tally() { p=$${3:-0} f=$${4:-0} s=$${5:-0}; \
	if [ -z "$${5:-}" ]; then echo "== $$1: exit $$2 without test counts, counted as 1 failed"; f=1; \
	elif [ "$$2" != 0 ] && [ "$$f" = 0 ]; then echo "== $$1: exit $$2, counted as 1 failed"; f=1; fi; \
	echo "$$p $$f $$s $$1" >>"$$counts"; }
# COUNTS_LINE LABEL FILES: "== LABEL: N passed, M failed, K skipped"; non-zero if any failed.
COUNTS_LINE = cat $(2) | awk '{ p += $$1; f += $$2; s += $$3 } \
	END { printf "== $(1): %d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }'

# cmocka prints "[  PASSED  ] N test(s).", "[  FAILED  ] N test(s)..." and "[  SKIPPED ]
# N test(s)..." per group (a skipped test is in none of the others); each skip says why
# just above its "[  SKIPPED ] NAME" line. A sanitizer's report in a binary's output is
# one more failure whatever its exit status (UBSan goes on without halt_on_error=1).
SAN_REPORT := ERROR: [A-Za-z]+Sanitizer|runtime error: |WARNING: ThreadSanitizer
unit: $(UNIT_BINS)
	@counts=$(BUILD)/unit.counts; : >$$counts; $(TALLY); \
	for t in $(UNIT_BINS); do echo "== $$t"; rc=0; $$t >$$t.out 2>&1 || rc=$$?; cat $$t.out; \
		tally $$t $$rc $$(awk '/^\[  PASSED  \] [0-9]+ test/ { p += $$4; n = 1 } \
			/^\[  FAILED  \] [0-9]+ test/ { f += $$4; n = 1 } \
			/^\[  SKIPPED \] [0-9]+ test/ { s += $$4 } \
			END { if (n) print p + 0, f + 0, s + 0 }' $$t.out); \
		if grep -Eq "$(SAN_REPORT)" $$t.out; then echo "== $$t: a sanitizer report in its" \
			"output, counted as 1 failed"; echo "0 1 0 $$t" >>$$counts; fi; \
	done; $(call COUNTS_LINE,unit,$$counts)

SUITES := tests/integration.sh tests/analysis.sh tests/latency.sh tests/faults.sh tests/jobs.sh tests/presets.sh tests/verify.sh \
	tests/native.sh tests/native_faults.sh tests/wire.sh tests/trunk.sh tests/wiretime.sh tests/merge.sh tests/mpi.sh \
	tests/local.sh tests/servers.sh tests/krb5.sh tests/trace.sh tests/curve.sh tests/replay.sh tests/oplog.sh
SUITES += tests/judges.sh tests/versions.sh tests/v42.sh
SUITES += tests/locks.sh
# The sanitizer builds leave out the presets (jobs.sh's code paths at a larger scale)
# so that CI runs both sanitizer passes within its time budget, and the MPI suite (the
# MPI build is not a sanitizer build; its code is the same as the one tested under them).
ifneq ($(SAN),)
SUITES := $(filter-out tests/presets.sh tests/mpi.sh,$(SUITES))
endif
# Each suite's t_summary (tests/lib.sh) writes "PASSED FAILED SKIPPED" to the file T_COUNTS
# names (its skips are "skip - NAME: WHY" lines in its log).
integration: $(BUILD)/nfsload $(HELPER_BINS)
	@counts=$(BUILD)/integration.counts; : >$$counts; $(TALLY); \
	for t in $(SUITES); do echo "== $$t"; start=$$(date +%s); \
		c=$(BUILD)/tests/$$(basename $$t .sh).counts; rm -f $$c; rc=0; \
		T_COUNTS=$(CURDIR)/$$c LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		TSAN_OPTIONS="suppressions=$(CURDIR)/tests/tsan.supp $$TSAN_OPTIONS" \
		SAN=$(SAN) NFSLOAD=$(BUILD)/nfsload HELPERS=$(BUILD)/tests \
		NFSLOAD_MPI=$(CURDIR)/$(MPI_BUILD)/nfsload $$t || rc=$$?; \
		echo "== $$t: $$(($$(date +%s) - start)) s"; \
		tally $$t $$rc $$(cat $$c 2>/dev/null); \
	done; $(call COUNTS_LINE,integration,$$counts)

NPROC := $(shell nproc 2>/dev/null || echo 2)
# Everything is built first, in parallel (a build failure stops here); then the unit tests and the
# suites all run, and one line sums them: "== make test: N passed, M failed, K skipped".
# Non-zero if anything failed.
test: deps-test
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	@rc=0; $(MAKE) --no-print-directory unit || rc=1; \
	$(MAKE) --no-print-directory integration || rc=1; \
	$(call COUNTS_LINE,make test,$(BUILD)/unit.counts $(BUILD)/integration.counts) || rc=1; \
	exit $$rc

test-build: $(BUILD)/nfsload $(UNIT_BINS) $(HELPER_BINS) $(if $(SAN),,$(MPI_BUILD)/nfsload)
	@:

demo: deps-demo
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
	rm -rf build build-mpi build-san-* build-fuzz nfsload

-include $(LIB_OBJS:.o=.d) $(BUILD)/main.d $(UNIT_BINS:=.d) $(HELPER_BINS:=.d) $(MPI_OBJS:.o=.d)

# ---- fuzzing (tests/fuzz/README.md) ----
#   make fuzz [FUZZ_SECONDS=60]   the libFuzzer targets (FUZZ_TARGETS) built with clang into
#   build-fuzz/ (scripts/deps.sh fuzz installs clang and libFuzzer); each replays
#   tests/fuzz/regress/<target>/, then fuzzes FUZZ_SECONDS from a copy of
#   tests/fuzz/corpus/<target>/. Fails on a crash. tests/fuzz/check.sh: every target once
#   over its corpus and regress inputs, no fuzzing (ok/FAIL lines, for the mutants).
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_BUILD := build-fuzz
FUZZ_TARGETS := options url units job rpc merge oplog nfs3 nfs4 nfs42 gss pcap replay
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(NFS_CFLAGS) $(RPC_CFLAGS) $(FUZZ_SAN)
# all of src/ but main.c, as the unit tests link it (config.c's dependencies move)
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(filter-out src/main.c,$(SRCS)))
FUZZ_BINS := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz deps-fuzz
.SECONDARY: $(FUZZ_OBJS)
fuzz: $(FUZZ_BINS)
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(FUZZ_BUILD)/obj/%.o: src/%.c $(wildcard include/*.h) $(shell find src -name '*.h') | $(FUZZ_BUILD)/obj
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_EXTRA_$*) $(FUZZ_OBJS) $(LIBS)

# nfs3's judge: libnfs's own XDR decoders, in a unit of their own (libnfs's XDR header
# and libtirpc's cannot meet)
FUZZ_EXTRA_nfs3 := $(FUZZ_BUILD)/libnfs_oracle.o
$(FUZZ_BUILD)/fuzz_nfs3: $(FUZZ_EXTRA_nfs3)
$(FUZZ_BUILD)/libnfs_oracle.o: tests/fuzz/libnfs_oracle.c tests/fuzz/libnfs_oracle.h | $(FUZZ_BUILD)/obj
	$(FUZZ_CC) -g -O1 -std=c11 -D_GNU_SOURCE $(NFS_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $@ $<

deps-fuzz:
	@scripts/deps.sh fuzz

# deps-fuzz first: clang and libFuzzer before anything is compiled with them
$(FUZZ_BUILD)/obj: | deps-fuzz
	mkdir -p $@
	@echo '*' > $(FUZZ_BUILD)/.gitignore
