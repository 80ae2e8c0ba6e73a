# mk/bench.mk — the benchmark's smoke test.  Included by the main Makefile.
#
#   make bench          every figure of docs/performance.md (bench/bench.py)
#   make bench-smoke    the same sections on a small table of generated rows
#                       (what a clone without ../shared has), one run each,
#                       and the comparison of two builds (this one with
#                       itself): proves make bench runs to the end; its
#                       figures mean nothing (part of make test)

.PHONY: bench-smoke

bench-smoke: build/ifscore.so
	@mkdir -p build/bench-smoke
	@$(PYTHON) bench/bench.py --quick --data generated --svg-dir build/bench-smoke \
	  --compare build/ifscore >build/bench-smoke/bench.log 2>&1 || \
	  { cat build/bench-smoke/bench.log; exit 1; }
	@grep -q "^ratio: one constraints text per row" build/bench-smoke/bench.log && \
	  grep -q "^one constraints text per row, all distinct .* of 2$$" build/bench-smoke/bench.log && \
	  grep -q "^  the same, each table read again " build/bench-smoke/bench.log && \
	  grep -q "^  each case's lists, each table read again .* of 2$$" build/bench-smoke/bench.log && \
	  test -s build/bench-smoke/bench-distinct.svg && test -s build/bench-smoke/bench-patterns.svg || \
	  { cat build/bench-smoke/bench.log; \
	  echo "bench-smoke: the run did not print every section"; exit 1; }
	@echo "bench-smoke: make bench runs on generated data (build/bench-smoke/bench.log)"
