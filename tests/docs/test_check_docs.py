#!/usr/bin/env python3
"""test_check_docs.py — proves check_docs.py passes a page that prints what it
shows and fails, naming the page and line, every kind of page that does not
(tests/docs/fixtures/). Run by `make doctest` before the real pages."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PYTHON = os.environ.get("PYTHON", "/usr/bin/python3")

# fixture -> (exit status, texts its output must contain)
CASES = {
    "good.md": (0, ["doctest: 7 examples in 1 page (1 more shown only, norun): "
                    "all print what the pages show"]),
    "drift.md": (1, ["drift.md:3: ```sql: output differs from the ```text block at line 7",
                     "--- tests/docs/fixtures/drift.md:8 (the page)",
                     "\n    -1\n    +1.0\n", "1 FAILED"]),
    "stderr.md": (1, ["stderr.md:3: ```sh: printed on stderr", "    oops"]),
    "status.md": (1, ["status.md:3: ```sh: exited with status 1"]),
    "unshown.md": (1, ["unshown.md:3: ```sql: prints output the page does not show"]),
    "prose.md": (1, ["prose.md:3: ```sql: prints output the page does not show"]),
    "sqlerror.md": (1, ["sqlerror.md:3: ```sql: exited with status 1",
                        "if_pass: threshold must be a number"]),
    "lookalike.md": (1, ["lookalike.md:3: ```bash blocks are not checked; write ```sh"]),
    "attribute.md": (1, ["attribute.md:3: unknown attribute no-run"]),
    "missingdb.md": (1, ["missingdb.md:3: ```sql db=build/doctest-no-such.db: "
                         "db=build/doctest-no-such.db does not exist"]),
    "unclosed.md": (1, ["unclosed.md:3: code fence never closed"]),
    "stray.md": (1, ["stray.md:3: ```sh: left files in the repository (write under "
                     "build/): doctest-stray.tmp"]),
    "links.md": (1, ["links.md:6: link to missing.md: no such file",
                     "links.md:8: link to good.md#no-such-heading: no heading",
                     "2 FAILED"]),
}


def main():
    bad = 0
    listed = sorted(f for f in os.listdir(os.path.join(HERE, "fixtures")) if f.endswith(".md"))
    if listed != sorted(CASES):
        print("test_check_docs: fixtures %s but cases for %s" % (listed, sorted(CASES)))
        return 1
    for name, (status, needles) in sorted(CASES.items()):
        page = os.path.join("tests", "docs", "fixtures", name)
        p = subprocess.run([PYTHON, os.path.join(HERE, "check_docs.py"), page],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode("utf-8", "replace")
        missing = [n for n in needles if n not in out]
        if p.returncode != status or missing:
            bad += 1
            print("test_check_docs: %s: exit %d (want %d), missing %r; it printed:\n%s"
                  % (name, p.returncode, status, missing, out))
    for left in ("build/doctest-fixture.db", "doctest-stray.tmp"):
        if os.path.exists(os.path.join(ROOT, left)):
            os.remove(os.path.join(ROOT, left))
    print("test_check_docs: %d of %d fixture pages judged as expected"
          % (len(CASES) - bad, len(CASES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
