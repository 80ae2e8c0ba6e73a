# mk/arm64.mk — the library cross-built for arm64 (AArch64, Linux) and
# tested under qemu-user.  Included by the main Makefile; every output is
# under build/arm64.  Not part of make test, which needs no cross
# toolchain; CI runs it after make test.
#
#   make test-arm64   installs what it needs (tools/deps-arm64.sh: Debian's
#                     gcc-aarch64-linux-gnu, qemu-user, the :arm64 PCRE2,
#                     SQLite and Check, Debian's arm64 sqlite3 CLI unpacked
#                     under build/arm64/cli), builds the library and the unit
#                     tests with this Makefile itself (CC=aarch64-linux-gnu-gcc,
#                     pkg-config reading the arm64 .pc files), then runs
#                     under qemu-aarch64 the unit tests, the SQL tests and
#                     ARM64_PARITY_COUNT parity cases (tests/arm64/run.sh)
#   make arm64        just the arm64 build: build/arm64/build/ifscore.so
#   make test-portable the unit tests of the files with vector kernels, built
#                     for this machine with -DIFS_NO_SIMD: the portable loops
#                     alone, as on a CPU with neither SSE2 nor NEON
#                     (build/portable; make test-arm64 runs it first)
#
# The build runs in build/arm64, a folder of links to the sources, so that
# its objects never mix with the host's build/.  By hand, the same build in
# a clean tree (PKG_CONFIG_LIBDIR in the environment: make 4.3 does not
# pass command-line variables to $(shell)):
#   PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig \
#     make CC=aarch64-linux-gnu-gcc
# See docs/arm64.md.

ARM64_CC           ?= aarch64-linux-gnu-gcc
ARM64_PKG_LIBDIR   ?= /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
ARM64_PARITY_COUNT ?= 500
ARM64_JOBS         ?= 2
ARM64_TIMEOUT      ?= 1200
ARM64_DIR           = build/arm64
ARM64_CLI           = $(ARM64_DIR)/cli
# what the build in build/arm64 sees of the repository
ARM64_SOURCES       = Makefile ext tests tools $(wildcard VERSION)

PORTABLE_DIR        = build/portable
PORTABLE_TESTS      = $(addprefix build/tests/,test_ifs_text test_ifs_needle test_ifs_redfa \
                        test_ifs_eval test_ifs_needle_set)

.PHONY: arm64 arm64-deps test-arm64 test-portable

arm64-deps:
	@sh tools/deps-arm64.sh $(ARM64_CLI)

# $(call source_links,DIR): DIR/Makefile, DIR/ext... link to the sources
source_links = mkdir -p $(1) && for f in $(ARM64_SOURCES); do ln -sfn ../../$$f $(1)/$$f; done

# Always handed to the sub-make, which knows what is up to date.
arm64: arm64-deps
	@$(call source_links,$(ARM64_DIR))
	@PKG_CONFIG_LIBDIR=$(ARM64_PKG_LIBDIR) $(MAKE) --no-print-directory -C $(ARM64_DIR) \
	  CC=$(ARM64_CC) PKG_CONFIG=pkg-config WERROR=-Werror \
	  build/ifscore.so $(UNIT_BIN)

test-portable:
	@$(call source_links,$(PORTABLE_DIR))
	@$(MAKE) --no-print-directory -C $(PORTABLE_DIR) CFLAGS="$(CFLAGS) -DIFS_NO_SIMD" \
	  WERROR=-Werror $(PORTABLE_TESTS)
	@for t in $(PORTABLE_TESTS); do echo "== $(PORTABLE_DIR)/$$t (-DIFS_NO_SIMD)"; \
	  CK_DEFAULT_TIMEOUT=300 $(PORTABLE_DIR)/$$t || exit 1; done

test-arm64: test-portable arm64
	@OBJDUMP=aarch64-linux-gnu-objdump sh tests/prefetch.sh $(ARM64_DIR)/build/obj
	@PYTHON=$(PYTHON) ARM64_JOBS=$(ARM64_JOBS) ARM64_PARITY_COUNT=$(ARM64_PARITY_COUNT) \
	  timeout -k 10 $(ARM64_TIMEOUT) sh tests/arm64/run.sh $(ARM64_DIR)/build $(ARM64_CLI) \
	  $(UNIT_BIN:%=$(ARM64_DIR)/%)
