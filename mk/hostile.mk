# mk/hostile.mk — hostile input, faults, sanitizers, threads and fuzzing.
# Included by the main Makefile; every output is under build/san,
# build/tsan or build/fuzz.
#
#   make test-hostile    huge, deep, invalid and catastrophic inputs, every
#                        SQL function under a failing allocator, length
#                        limits, closing mid-use, trusted_schema=off
#                        (ASan+UBSan build, extension linked statically)
#   make test-threads    N threads x own connection on one corpus, under
#                        ThreadSanitizer, answers equal to one thread's
#   make test-san        unit tests, SQL tests and SAN_PARITY_COUNT parity
#                        cases on an ASan+UBSan build, plus the fuzz
#                        regression inputs
#   make test-valgrind   SQL tests under valgrind memcheck (normal build);
#                        first proves the harness fails on a planted leak
#   make fuzz            every libFuzzer target for FUZZ_SECONDS (default 60)
#                        each, FUZZ_JOBS (default 2) processes at once
#   make fuzz-replay     the fuzz targets over their seeds and regression
#                        inputs, without libFuzzer (any C compiler)

SAN_CC      ?= $(CC)
# SAN_KNOWN: checks to leave out while a reported finding is being fixed,
# e.g. SAN_KNOWN=-fno-sanitize=alignment (changing it needs a clean build/san)
SAN_KNOWN   ?=
SAN_FLAGS   ?= -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer $(SAN_KNOWN)
TSAN_CC     ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo $(CC))
TSAN_FLAGS  ?= -O1 -g -fsanitize=thread -fno-omit-frame-pointer
FUZZ_CC     ?= clang
FUZZ_FLAGS  ?= -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer
# Workarounds for findings already reported and not yet fixed, so that a
# long run can look past them (the replay keeps failing on them meanwhile).
FUZZ_KNOWN  ?=
FUZZ_SECONDS ?= 60
FUZZ_JOBS   ?= 2
FUZZ_TARGETS = fuzz_json fuzz_regex fuzz_text fuzz_pyval fuzz_eval

# ext/ objects built by another compiler than the main build's (clang for
# fuzzing and TSan) keep the warnings but not -Werror: a warning only that
# compiler gives must not stop the run (the main build is the judge)
XWARN        = $(filter-out -Werror,$(WARN))
HOSTILE_HDR  = $(HEADERS) $(wildcard tests/hostile/*.h)
FUZZ_HDR     = $(HEADERS) tests/fuzz/fuzz_common.h tests/ref_text.h
SQLITE_LIBS  = $(shell pkg-config --libs sqlite3) -lpthread -lm
# ASan runtime of the sanitizer compiler, preloaded into the sqlite3 CLI
SAN_RUNTIME  = $(shell $(SAN_CC) -print-file-name=libasan.so)
SAN_ENV      = ASAN_OPTIONS=detect_leaks=1:exitcode=99:abort_on_error=0 \
               UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
               LSAN_OPTIONS=exitcode=99 CK_TIMEOUT_MULTIPLIER=10

.PHONY: test-san test-valgrind test-hostile test-threads fuzz fuzz-build \
        fuzz-replay fuzz-seeds san-unit san-sqltest san-parity

# ---- ASan+UBSan objects (-DSQLITE_CORE where the glue is linked in) ----
# Test builds all: with the core's test hooks (TEST_DEFS, see the Makefile).

build/san/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/san/obj
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(TEST_DEFS) -fPIC $(PKG_CFLAGS) -c $< -o $@

build/san/core/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/san/core
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(TEST_DEFS) -DSQLITE_CORE $(PKG_CFLAGS) -c $< -o $@

SAN_CORE_OBJ = $(CORE_SRC:ext/%.c=build/san/obj/%.o)
SAN_EXT_OBJ  = $(SAN_CORE_OBJ) build/san/obj/ifs_alloc_sqlite.o build/san/obj/ifscore.o
SAN_STATIC   = $(SAN_CORE_OBJ) build/san/core/ifs_alloc_sqlite.o build/san/core/ifscore.o

build/san/ifscore.so: $(SAN_EXT_OBJ)
	$(SAN_CC) $(SAN_FLAGS) -shared -o $@ $(SAN_EXT_OBJ) $(PKG_LIBS)

build/san/tests/%: tests/%.c tests/ifs_alloc_test.c $(SAN_CORE_OBJ) $(HEADERS) tests/ifs_test.h tests/ref_text.h tests/soup.h
	@mkdir -p build/san/tests
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(TEST_DEFS) $(PKG_CFLAGS) $(CHECK_CFLAGS) -Iext -o $@ $< \
	  tests/ifs_alloc_test.c $(SAN_CORE_OBJ) $(PKG_LIBS) $(CHECK_LIBS)

# the sqlite3 CLI with the sanitizer runtime preloaded (it is not built
# with ASan itself, so the runtime must come first)
build/san/sqlite3: mk/hostile.mk | deps
	@mkdir -p build/san
	@printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$$@"\n' "$(SAN_RUNTIME)" \
	  "$$(command -v $(SQLITE))" >$@
	@chmod +x $@

# (ASan and UBSan make the C code two to three times slower: the unit tests'
# bounds in CPU seconds, and the regex clock they set, are stretched as much)
san-unit: $(UNIT_SRC:tests/%.c=build/san/tests/%)
	@for t in $^; do echo "== $$t"; $(SAN_ENV) IFS_TEST_SLOWDOWN=3 $$t || exit 1; done

san-sqltest: build/san/ifscore.so build/san/sqlite3
	@$(SAN_ENV) IFSCORE_LIB=build/san/ifscore sh tests/sql/run.sh build/san/sqlite3

# the parity suite's adversarial cases through the ASan+UBSan extension
# (Python is not built with ASan: the runtime is preloaded, leaks not checked)
SAN_PARITY_COUNT ?= 3000
san-parity: build/san/ifscore.so
	@LD_PRELOAD=$(SAN_RUNTIME) ASAN_OPTIONS=detect_leaks=0:exitcode=99 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	  $(PYTHON) tests/parity.py --lib build/san/ifscore --count $(SAN_PARITY_COUNT)

test-san: san-unit san-sqltest san-parity fuzz-replay
	@echo "make test-san: unit, SQL, parity and fuzz-replay clean under ASan+UBSan"

# ---- hostile inputs (C driver, SQLite + extension linked statically) ----

build/san/hostile: tests/hostile/hostile.c $(SAN_STATIC) $(HOSTILE_HDR)
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) -Iext -o $@ $< $(SAN_STATIC) \
	  $(PKG_LIBS) $(SQLITE_LIBS)

test-hostile: build/san/hostile $(EXT_OBJ)
	@sh tests/hostile/check_globals.sh $(EXT_OBJ)
	@$(SAN_ENV) build/san/hostile

# ---- threads under ThreadSanitizer ----

build/tsan/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/tsan/obj
	$(TSAN_CC) $(XWARN) $(TSAN_FLAGS) -DSQLITE_CORE $(PKG_CFLAGS) -c $< -o $@

TSAN_OBJ = $(CORE_SRC:ext/%.c=build/tsan/obj/%.o) build/tsan/obj/ifs_alloc_sqlite.o \
           build/tsan/obj/ifscore.o

build/tsan/threads: tests/hostile/threads.c $(TSAN_OBJ) $(HOSTILE_HDR)
	$(TSAN_CC) $(WARN) $(TSAN_FLAGS) $(PKG_CFLAGS) -Iext -o $@ $< $(TSAN_OBJ) \
	  $(PKG_LIBS) $(SQLITE_LIBS)

# the same program on the ASan build: run instead when the kernel leaves
# ThreadSanitizer no room for its shadow memory (see run_tsan.sh)
build/san/threads: tests/hostile/threads.c $(SAN_STATIC) $(HOSTILE_HDR)
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(PKG_CFLAGS) -Iext -o $@ $< $(SAN_STATIC) \
	  $(PKG_LIBS) $(SQLITE_LIBS)

test-threads: build/tsan/threads build/san/threads
	@$(SAN_ENV) sh tests/hostile/run_tsan.sh build/tsan/threads build/san/threads

# ---- valgrind ----

# An extension that leaks one block on purpose: the harness must fail on it.
LEAK_OBJ = $(CORE_OBJ) build/obj/ifs_alloc_sqlite.o build/san/leak/ifscore_real.o

build/san/leak/ifscore_real.o: ext/ifscore.c $(HEADERS) | deps
	@mkdir -p build/san/leak
	$(CC) $(WARN) $(CFLAGS) -fPIC $(PKG_CFLAGS) -Dsqlite3_ifscore_init=ifs_leak_real_init \
	  -c $< -o $@

build/san/leak/ifscore.so: tests/hostile/leak_ext.c $(LEAK_OBJ)
	$(CC) $(WARN) $(CFLAGS) -fPIC -shared $(PKG_CFLAGS) -o $@ $< $(LEAK_OBJ) $(PKG_LIBS)

test-valgrind: build/ifscore.so build/san/leak/ifscore.so
	@sh tests/hostile/run_valgrind.sh $(SQLITE)

# ---- fuzzing ----

build/fuzz/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/fuzz/obj
	$(FUZZ_CC) $(XWARN) $(FUZZ_FLAGS) $(FUZZ_KNOWN) $(TEST_DEFS) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -c $< -o $@

FUZZ_OBJ = $(CORE_SRC:ext/%.c=build/fuzz/obj/%.o) build/fuzz/obj/ifs_alloc_std.o

build/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ) $(FUZZ_HDR)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) $(FUZZ_KNOWN) $(TEST_DEFS) -fsanitize=fuzzer $(PKG_CFLAGS) -Iext -o $@ $< \
	  $(FUZZ_OBJ) $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_TARGETS:%=build/fuzz/%)

# seed corpora: checked-in seeds + generated ones (tests, shared data)
fuzz-seeds: | deps
	@$(PYTHON) tests/fuzz/make_seeds.py build/fuzz/corpus

fuzz: fuzz-build fuzz-seeds
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) sh tests/fuzz/run.sh $(FUZZ_TARGETS)

# replay: the same harnesses with a plain main(), under ASan+UBSan
build/san/replay/%: tests/fuzz/%.c tests/fuzz/replay_main.c $(SAN_CORE_OBJ) build/san/obj/ifs_alloc_std.o $(FUZZ_HDR)
	@mkdir -p build/san/replay
	$(SAN_CC) $(WARN) $(SAN_FLAGS) $(TEST_DEFS) $(PKG_CFLAGS) -Iext -o $@ $< tests/fuzz/replay_main.c \
	  $(SAN_CORE_OBJ) build/san/obj/ifs_alloc_std.o $(PKG_LIBS) -lm

fuzz-replay: $(FUZZ_TARGETS:%=build/san/replay/%)
	@for t in $(FUZZ_TARGETS); do \
	  $(SAN_ENV) build/san/replay/$$t tests/fuzz/seeds/$$t tests/fuzz/regressions/$$t || exit 1; \
	done

# objects reached only through pattern rules are kept between runs
.SECONDARY: $(FUZZ_OBJ) $(SAN_CORE_OBJ) $(SAN_EXT_OBJ) $(SAN_STATIC) $(TSAN_OBJ) \
            build/san/obj/ifs_alloc_std.o
