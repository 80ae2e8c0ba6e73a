# ifscore — build/ifscore.so, a SQLite extension scoring instruction following.
#   make              build/ifscore.so (build/ifscore.dylib on macOS), PCRE2
#                     linked in statically; exports only sqlite3_ifscore_init
#   make PCRE2=system the same, linked against the system's shared libpcre2-8
#   make deps         install the Debian packages building and testing need
#   make demo         score the bundled sample and print a per-model table
#   make test         every suite (unit, SQL, parity, packaging, ...), -Werror
#   make amalgamation build/amalgamation/ifscore.c, the library in one file
#   make install      copy the extension to $(PREFIX)/lib/sqlite3
# CC, PKG_CONFIG, CFLAGS and LDFLAGS may be overridden (e.g. a cross compiler).

CC      ?= cc
PKG_CONFIG ?= pkg-config
PREFIX  ?= /usr/local
PYTHON  ?= /usr/bin/python3
SQLITE  ?= sqlite3
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
VERSION := $(shell cat VERSION)
# -Werror is for make test and CI (set there), not for a user's compiler
WERROR  ?=
WARN     = -std=c11 -Wall -Wextra $(WERROR) -D_GNU_SOURCE -DIFS_VERSION='"$(VERSION)"'
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags sqlite3 libpcre2-8)
PKG_LIBS   = $(shell $(PKG_CONFIG) --libs libpcre2-8)
CHECK_CFLAGS = $(shell $(PKG_CONFIG) --cflags check)
CHECK_LIBS   = $(shell $(PKG_CONFIG) --libs check)

# The loadable library.  Linux (ELF): PCRE2 from its static archive, its
# symbols kept local (--exclude-libs) and only the entry point exported (the
# version script; the core is compiled with hidden visibility).  macOS: a
# .dylib exporting the entry point alone; not tested here (no macOS machine).
PCRE2   ?= static
TARGET  := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(findstring darwin,$(TARGET))$(findstring apple,$(TARGET)),)
SO       = dylib
LIB_LDFLAGS = -dynamiclib -undefined dynamic_lookup \
              -Wl,-exported_symbol,_sqlite3_ifscore_init
else
SO       = so
LIB_LDFLAGS = -shared -Wl,-z,defs -Wl,--exclude-libs,ALL \
              -Wl,--version-script=ext/ifscore.map
endif
ifeq ($(PCRE2),system)
LIB_PCRE2 = $(PKG_LIBS)
else ifeq ($(PCRE2),static)
LIB_PCRE2 = $(shell $(PKG_CONFIG) --variable=libdir libpcre2-8)/libpcre2-8.a
else
$(error PCRE2 must be static (the default) or system, not '$(PCRE2)')
endif
LIB = build/ifscore.$(SO)
# $(call link_lib,OBJECTS,PCRE2) links a loadable library as $@
link_lib = $(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(1) $(2) $(LIB_LDFLAGS)

CORE_SRC = ext/ifs_common.c ext/ifs_heap.c ext/ifs_text.c ext/ifs_needle.c ext/ifs_needle_set.c ext/ifs_json.c \
           ext/ifs_pyval.c ext/ifs_re_parse.c ext/ifs_re_charset.c ext/ifs_re_emit.c ext/ifs_re_nfa.c \
           ext/ifs_unicode_names.c \
           ext/ifs_regex.c ext/ifs_redfa.c ext/ifs_set_cache.c ext/ifs_list_cache.c ext/ifs_eval.c ext/ifs_memo.c
CORE_OBJ = $(CORE_SRC:ext/%.c=build/obj/%.o)
EXT_OBJ  = $(CORE_OBJ) build/obj/ifs_alloc_sqlite.o build/obj/ifscore.o
HEADERS  = $(wildcard ext/*.h) VERSION

UNIT_SRC = $(wildcard tests/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/%.c=build/tests/%)

.PHONY: all deps demo test prefetch unit tables sqltest sqltest-valgrind parity regexdiff analytics bench \
        install clean warnings
all: $(LIB)

# Packages are installed only for make deps and test (all the suites need)
# and demo (what it needs: the build's and the CLI), as root with apt-get;
# otherwise the command is printed. Other goals just say what a build is
# missing.
ifneq ($(filter deps test,$(MAKECMDGOALS)),)
deps:
	@sh tools/deps.sh install
else ifneq ($(filter demo,$(MAKECMDGOALS)),)
deps:
	@sh tools/deps.sh demo
else
deps:
	@sh tools/deps.sh check
endif

build/obj/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/obj
	$(CC) $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden $(PKG_CFLAGS) -c $< -o $@

# relinks when PCRE2= changes between builds
build/link-pcre2-$(PCRE2):
	@mkdir -p build && rm -f build/link-pcre2-* && touch $@

$(LIB): $(EXT_OBJ) ext/ifscore.map build/link-pcre2-$(PCRE2)
	@command -v $(PKG_CONFIG) >/dev/null 2>&1 || { \
	  echo "$(PKG_CONFIG) not found: it tells where PCRE2 and SQLite are (Debian: pkg-config)," \
	       "or set PKG_CONFIG" >&2; exit 1; }
	@case "$(LIB_PCRE2)" in *.a) test -f "$(LIB_PCRE2)" || { \
	  echo "$(LIB_PCRE2) not found: install PCRE2's static library (Debian: libpcre2-dev)," \
	       "or link the shared one with make PCRE2=system" >&2; exit 1; } ;; esac
	$(call link_lib,$(EXT_OBJ),$(LIB_PCRE2))

# The same extension without PCRE2's JIT, for valgrind: JIT code reads past
# the subject with vector loads on purpose, which memcheck reports.
NOJIT_OBJ = $(EXT_OBJ:build/obj/%=build/nojit/%)
build/nojit/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/nojit
	$(CC) $(WARN) $(CFLAGS) -DIFS_NO_JIT -fPIC -fvisibility=hidden $(PKG_CFLAGS) -c $< -o $@

build/nojit/ifscore.so: $(NOJIT_OBJ) build/link-pcre2-$(PCRE2)
	$(call link_lib,$(NOJIT_OBJ),$(LIB_PCRE2))

# Every ext/ source compiled with -Werror, whatever plain make left in
# build/obj (make test's own objects get -Werror too)
WERROR_OBJ = $(EXT_OBJ:build/obj/%=build/werror/%) build/werror/ifs_alloc_std.o
build/werror/%.o: ext/%.c $(HEADERS) | deps
	@mkdir -p build/werror
	$(CC) $(WARN) -Werror $(CFLAGS) -fPIC -fvisibility=hidden $(PKG_CFLAGS) -c $< -o $@

warnings: $(WERROR_OBJ)
	@echo "warnings: $(words $(WERROR_OBJ)) sources compile with -Werror"

# The cache prefetches are in the machine code (a dropped one fails no other test)
prefetch: $(WERROR_OBJ)
	@sh tests/prefetch.sh build/werror

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
# doctest in mk/docs.mk, test-package in mk/package.mk, regexlong in mk/regex-budget.mk,
# bench-smoke in mk/bench.mk
test: WERROR = -Werror
test: warnings prefetch unit tables sqltest sqltest-valgrind parity regexdiff regexlong analytics doctest \
      test-san test-valgrind test-hostile test-threads test-package bench-smoke
	@echo "make test: all suites passed"

demo: build/ifscore.so
	@sh demo/run.sh $(SQLITE)

bench: build/ifscore.so
	@$(PYTHON) bench/bench.py

install: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/lib/sqlite3
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/sqlite3/ifscore.$(SO)

clean:
	rm -rf build

# Further suites (sanitizers, fuzzing, hostile input) keep their rules here.
-include mk/*.mk
