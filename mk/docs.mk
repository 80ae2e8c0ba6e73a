# mk/docs.mk — the documentation's examples are tests.  Included by the main
# Makefile.
#
#   make doctest    first proves the checker fails drifting pages
#                   (tests/docs/fixtures/), then runs every example in
#                   README.md, ARCHITECTURE.md, SECURITY.md, CHANGELOG.md and
#                   docs/*.md and compares its output with the page's
#                   (tests/docs/check_docs.py; conventions in docs/testing.md)

.PHONY: doctest
doctest: build/ifscore.so
	@$(PYTHON) tests/docs/test_check_docs.py
	@SQLITE=$(SQLITE) $(PYTHON) tests/docs/check_docs.py
