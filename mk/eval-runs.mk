# mk/eval-runs.mk — the eval-runs report (sql/report.sql). Included by the
# Makefile.
#
#   make report-deps       installs Debian's chromium when missing (as root;
#                          otherwise prints the command): tests/analytics.py
#                          renders the report in it (group render)
#   make report-screenshot the picture in docs/eval-runs.md, docs/img/report.png:
#                          the fixture runs' report, the top 1366x1300 pixels

.PHONY: report-deps report-screenshot

report-deps:
	@sh tools/deps.sh chromium

# The analytics suite renders the report in Chromium.
analytics: report-deps

report-screenshot: demo
	@mkdir -p docs/img
	@d=$$(mktemp -d) && chromium --headless --no-sandbox --disable-gpu --disable-quic \
	  --no-first-run --disable-background-networking --disable-component-update \
	  --disable-sync --hide-scrollbars --user-data-dir=$$d --window-size=1366,1300 \
	  --screenshot=docs/img/report.png "file://$$(pwd)/build/report.html" 2>/dev/null; \
	  rc=$$?; rm -rf $$d; exit $$rc
	@echo "report-screenshot: docs/img/report.png"
