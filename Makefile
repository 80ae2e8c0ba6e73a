# ifscore — build/ifscore.so, a SQLite extension scoring instruction following.
#   make          build/ifscore.so
#   make demo     score the bundled sample and print a per-model table
#   make test     unit tests (Check), SQL tests (sqlite3 CLI), parity vs Python
#   make install  copy the extension to $(PREFIX)/lib/sqlite3

CC      ?= cc
PREFIX  ?= /usr/local
PYTHON  ?= /usr/bin/python3
SQLITE  ?= sqlite3
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN     = -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE
PKG_CFLAGS = $(shell pkg-config --cflags sqlite3 libpcre2-8)
PKG_LIBS   = $(shell pkg-config --libs libpcre2-8)
CHECK_CFLAGS = $(shell pkg-config --cflags check)
CHECK_LIBS   = $(shell pkg-config --libs check)

CORE_SRC = ext/ifs_common.c ext/ifs_text.c ext/ifs_needle.c ext/ifs_json.c ext/ifs_pyval.c \
           ext/ifs_re_parse.c ext/ifs_re_charset.c ext/ifs_re_emit.c ext/ifs_re_nfa.c \
           ext/ifs_unicode_names.c \
           ext/ifs_regex.c ext/ifs_redfa.c ext/ifs_eval.c
CORE_OBJ = $(CORE_SRC:ext/%.c=build/obj/%.o)
EXT_OBJ  = $(CORE_OBJ) build/obj/ifs_alloc_sqlite.o build/obj/ifscore.o
HEADERS  = $(wildcard ext/*.h)

UNIT_SRC = $(wildcard tests/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/%.c=build/tests/%)

.PHONY: all deps demo test unit tables sqltest sqltest-valgrind parity regexdiff analytics bench install clean
all: build/ifscore.so

deps:
	@sh tools/deps.sh

build/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/obj
	$(CC) $(WARN) $(CFLAGS) -fPIC $(PKG_CFLAGS) -c $< -o $@

build/ifscore.so: $(EXT_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(EXT_OBJ) $(PKG_LIBS)

# The same extension without PCRE2's JIT, for valgrind: JIT code reads past
# the subject with vector loads on purpose, which memcheck reports.
NOJIT_OBJ = $(EXT_OBJ:build/obj/%=build/nojit/%)
build/nojit/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/nojit
	$(CC) $(WARN) $(CFLAGS) -DIFS_NO_JIT -fPIC $(PKG_CFLAGS) -c $< -o $@

build/nojit/ifscore.so: $(NOJIT_OBJ)
	$(CC) $(CFLAGS) -shared -o $@ $(NOJIT_OBJ) $(PKG_LIBS)

# Unit tests link the core built with its test hooks (IFS_TESTING, see
# ext/ifs_common.h); the extension's objects never have them.
TEST_DEFS = -DIFS_TESTING
TEST_OBJ  = $(CORE_SRC:ext/%.c=build/tobj/%.o)
build/tobj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/tobj
	$(CC) $(WARN) $(CFLAGS) $(TEST_DEFS) $(PKG_CFLAGS) -c $< -o $@
.SECONDARY: $(TEST_OBJ)

build/tests/%: tests/%.c tests/ifs_alloc_test.c $(TEST_OBJ) $(HEADERS) tests/ifs_test.h tests/ref_text.h tests/soup.h
	@mkdir -p build/tests
	$(CC) $(WARN) $(CFLAGS) $(TEST_DEFS) $(PKG_CFLAGS) $(CHECK_CFLAGS) -Iext -o $@ $< \
	  tests/ifs_alloc_test.c $(TEST_OBJ) $(PKG_LIBS) $(CHECK_LIBS)

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do echo "== $$t"; CK_DEFAULT_TIMEOUT=300 $$t || exit 1; done

sqltest: build/ifscore.so
	@sh tests/sql/run.sh $(SQLITE)

sqltest-valgrind: build/nojit/ifscore.so
	@VALGRIND=1 IFSCORE_LIB=build/nojit/ifscore sh tests/sql/run.sh $(SQLITE)

parity: build/ifscore.so
	@$(PYTHON) tests/parity.py

regexdiff: build/ifscore.so
	@$(PYTHON) tests/regex_diff.py

tables: | deps
	@$(PYTHON) tests/check_tables.py

analytics: build/ifscore.so
	@sh tests/sql_analytics/run.sh $(SQLITE)
	@$(PYTHON) tests/analytics.py

# test-san, test-valgrind, test-hostile and test-threads are in mk/hostile.mk,
# doctest in mk/docs.mk
test: unit tables sqltest sqltest-valgrind parity regexdiff analytics doctest \
      test-san test-valgrind test-hostile test-threads
	@echo "make test: all suites passed"

demo: build/ifscore.so
	@sh demo/run.sh $(SQLITE)

bench: build/ifscore.so
	@$(PYTHON) bench/bench.py

install: build/ifscore.so
	install -d $(DESTDIR)$(PREFIX)/lib/sqlite3
	install -m 644 build/ifscore.so $(DESTDIR)$(PREFIX)/lib/sqlite3/ifscore.so

clean:
	rm -rf build

# Further suites (sanitizers, fuzzing, hostile input) keep their rules here.
-include mk/*.mk
