# mk/package.mk — the library as others take it: one self-contained file,
# one C file, a Python package, a Node package.  Included by the main
# Makefile; outputs under build/amalgamation, build/package, build/node-app.
#
#   make amalgamation    build/amalgamation/ifscore.c (tools/amalgamate.py,
#                        from the sources of $(LIB), in the Makefile's order)
#   make test-package    all of the below
#   make test-lib        $(LIB) exports sqlite3_ifscore_init alone, needs no
#                        libpcre2, has no text relocations, returns VERSION;
#                        the PCRE2=system link needs libpcre2 and passes the
#                        SQL tests
#   make test-amalgamation   the amalgamation built with the one documented
#                        command, silently, exporting the entry point alone,
#                        passes the SQL tests
#   make test-python     pip install . and pip wheel . in fresh venvs
#                        (offline, Debian's setuptools), sqlite3 and apsw
#   make test-node       npm pack, installed into a project with better-sqlite3
#                        (from npm, build/node-app): require, import, index.d.ts

.PHONY: amalgamation test-package test-lib test-amalgamation test-python test-node

EXT_SRC = $(EXT_OBJ:build/obj/%.o=ext/%.c)

build/amalgamation/ifscore.c: $(EXT_SRC) $(HEADERS) LICENSE tools/amalgamate.py
	@$(PYTHON) tools/amalgamate.py -o $@ --version $(VERSION) --license LICENSE $(EXT_SRC)

amalgamation: build/amalgamation/ifscore.c

# the same objects linked against the shared libpcre2-8 (make PCRE2=system)
build/pcre2-system/ifscore.so: $(EXT_OBJ) ext/ifscore.map
	@mkdir -p $(@D)
	$(call link_lib,$(EXT_OBJ),$(PKG_LIBS))

test-lib: $(LIB) build/pcre2-system/ifscore.so
	@sh tests/package/check_lib.sh $(LIB) static $(SQLITE)
	@sh tests/package/check_lib.sh build/pcre2-system/ifscore.so system $(SQLITE)
	@IFSCORE_LIB=build/pcre2-system/ifscore sh tests/sql/run.sh $(SQLITE)

test-amalgamation: build/amalgamation/ifscore.c
	@sh tests/package/amalgamation.sh $(SQLITE)

test-python: $(LIB)
	@PYTHON=$(PYTHON) sh tests/package/python.sh

# A project with better-sqlite3 (from npm; it compiles SQLite, minutes) and
# typescript, kept between runs: for test-node and for the Node example of
# docs/install.md, which make doctest runs (hence its prerequisite here).
NODE_APP_READY = build/node-app/node_modules/better-sqlite3/build/Release/better_sqlite3.node
$(NODE_APP_READY): | deps
	@mkdir -p build/node-app
	@cd build/node-app && { [ -f package.json ] || npm init -y >/dev/null; } && \
	  echo "== npm install better-sqlite3@^12 typescript@^5 (builds SQLite from source)" && \
	  npm install --no-audit --no-fund --loglevel=error better-sqlite3@^12 typescript@^5

doctest: $(NODE_APP_READY)

test-node: $(NODE_APP_READY) | deps
	@sh tests/package/node.sh

test-package: test-lib test-amalgamation test-python test-node
