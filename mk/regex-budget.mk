# mk/regex-budget.mk — the match budget against CPython on long answers.
# Included by the main Makefile.
#
#   make regexlong        realistic constraint patterns on real answers joined
#                         to 1-100 KB, single- and multi-line, timed against
#                         CPython: wherever Python answers within 1 s of CPU
#                         the extension must give its answer, and no search
#                         may take more than about 2 s (tests/regex_long.py)
#   make regexlong-long   the same to 1 MB, two text orders, Python given up
#                         to 5 s (for manual runs: many minutes)

.PHONY: regexlong regexlong-long
regexlong: build/ifscore.so
	@$(PYTHON) tests/regex_long.py

regexlong-long: build/ifscore.so
	@$(PYTHON) tests/regex_long.py --long
