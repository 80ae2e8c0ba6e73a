#!/usr/bin/env python3
"""check_docs.py — runs every example in the documentation and compares what it
prints with what the page shows (`make doctest`, part of `make test`).

Pages: README.md, ARCHITECTURE.md, SECURITY.md, CHANGELOG.md and docs/*.md
(or the files named on the command line). In each page, fenced blocks are
examples when their language is one of:

  ```sql      run by the sqlite3 CLI (`sqlite3 -init /dev/null -bail`) on a fresh
              :memory: database, `.load build/ifscore` done first, the block on
              its standard input
  ```sh       run with `sh -e -c BLOCK`
  ```python   run with `/usr/bin/python3 -c BLOCK`

all from the repository root, in page order (an example may use a file an
earlier one on the same page wrote). Examples write under build/: a file
that git would list as new after an example is a failure. The ```text block that
immediately follows an example (only blank lines between) is its exact
expected standard output. Without one, the example must print nothing on
standard error, and a sql example nothing at all (a query whose result the
page does not show is a result that can drift). Every example must exit
with status 0.

Attributes after the language word:
  db=PATH     (sql) run on the database at PATH, which must already exist
  norun       shown, never run: for what cannot run here (another OS, a
              package registry); the page's prose says so

Languages that look like examples but would escape the check (bash, shell,
console, py, sqlite ...) are errors, as are unknown attributes. Other
languages (text, json, c, make ...) are listings and are not run.

  python3 tests/docs/check_docs.py [--root DIR] [--list] [PAGE ...]

Prints one line per failing example, `PAGE:LINE: what went wrong`, with a
unified diff of expected against actual output; then a summary. Exit status 1
when any example fails.
"""

import argparse
import difflib
import glob
import os
import re
import signal
import subprocess
import sys
import tempfile

RUNNABLE = {"sql", "sh", "python"}
# Spellings a writer may reach for that the checker would otherwise skip.
UNCHECKED_LOOKALIKES = {
    "bash": "sh", "shell": "sh", "console": "sh", "zsh": "sh",
    "sqlite": "sql", "sqlite3": "sql", "py": "python", "python3": "python",
    "pycon": "python",
}
# Per example. Generous: an example that installs a package may compile it
# (better-sqlite3 builds SQLite from source on a clean checkout: minutes).
TIMEOUT = int(os.environ.get("DOCTEST_TIMEOUT", "1200"))

FENCE_OPEN = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`]*)$")


class Block:
    def __init__(self, page, line, lang, attrs, body, end):
        self.page, self.line, self.lang, self.attrs = page, line, lang, attrs
        self.body, self.end = body, end   # end: line number of the closing fence


def parse_blocks(page, text):
    """Fenced blocks of a Markdown page, CommonMark style: a fence of three or
    more backticks (or tildes), closed by a fence of the same character at
    least as long with nothing after it. Returns (blocks, errors)."""
    lines = text.split("\n")
    blocks, errors = [], []
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3).strip()
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence))
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if j == len(lines):
            errors.append("%s:%d: code fence never closed" % (page, i + 1))
            break
        body = []
        for ln in lines[i + 1:j]:
            # remove the fence's own indentation (blocks inside list items)
            k = 0
            while k < indent and k < len(ln) and ln[k] == " ":
                k += 1
            body.append(ln[k:])
        words = info.split()
        lang = words[0].lower() if words else ""
        blocks.append(Block(page, i + 1, lang, words[1:], body, j + 1))
        i = j + 1
    return blocks, lines, errors


def examples(page, text):
    """[(block, expected_block_or_None)] for the runnable blocks, plus errors."""
    blocks, lines, errors = parse_blocks(page, text)
    out = []
    for n, b in enumerate(blocks):
        if b.lang in UNCHECKED_LOOKALIKES:
            errors.append("%s:%d: ```%s blocks are not checked; write ```%s "
                          "(add norun if it truly cannot run here)"
                          % (page, b.line, b.lang, UNCHECKED_LOOKALIKES[b.lang]))
            continue
        if b.lang not in RUNNABLE:
            continue
        bad = [a for a in b.attrs
               if a != "norun" and not (a.startswith("db=") and b.lang == "sql")]
        if bad:
            errors.append("%s:%d: unknown attribute %s on a ```%s block "
                          "(known: norun, and db=PATH on sql)"
                          % (page, b.line, " ".join(bad), b.lang))
            continue
        expected = None
        if n + 1 < len(blocks) and blocks[n + 1].lang == "text":
            nxt = blocks[n + 1]
            between = lines[b.end:nxt.line - 1]
            if all(not s.strip() for s in between):
                expected = nxt
        out.append((b, expected))
    return out, errors


LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"(`+).+?\1")


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    blocks, lines, _ = parse_blocks(path, text)
    inside = set()
    for b in blocks:
        inside.update(range(b.line, b.end + 1))
    return {slug(ln.lstrip("#")) for n, ln in enumerate(lines, 1)
            if n not in inside and re.match(r"^#{1,6} ", ln)}


def check_links(page, path, text):
    """Errors for relative links (outside code) to files or headings that
    do not exist."""
    blocks, lines, _ = parse_blocks(page, text)
    inside = set()
    for b in blocks:
        inside.update(range(b.line, b.end + 1))
    errors = []
    for n, ln in enumerate(lines, 1):
        if n in inside:
            continue
        for m in LINK.finditer(INLINE_CODE.sub("", ln)):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue                      # http:, https:, mailto: ...
            file_part, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                if file_part else path
            if not os.path.exists(dest):
                errors.append("%s:%d: link to %s: no such file" % (page, n, target))
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                errors.append("%s:%d: link to %s: no heading #%s in %s"
                              % (page, n, target, frag, file_part or page))
    return errors


def untracked(root):
    """Files git would list as new (untracked and not ignored), or None when
    the tree is not a git checkout: examples must write under build/."""
    try:
        p = subprocess.run(["git", "-C", root, "status", "--porcelain",
                            "--untracked-files=all"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    return {ln[3:] for ln in p.stdout.decode("utf-8", "replace").splitlines()
            if ln.startswith("?? ")}


def clean_env():
    env = dict(os.environ)
    # Examples run as a user would type them, not as children of make.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(k, None)
    env["LC_ALL"] = "C.UTF-8"
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(block, root, sqlite, python, env):
    """(exit status, stdout, stderr, problem): problem is a message when the
    example could not be run at all."""
    src = "\n".join(block.body) + "\n"
    feed = None                       # standard input: the SQL, else nothing
    if block.lang == "sql":
        db = ":memory:"
        for a in block.attrs:
            if a.startswith("db="):
                db = a[3:]
                if not os.path.exists(os.path.join(root, db)):
                    return (None, b"", b"", "db=%s does not exist (an earlier "
                            "example on the page must create it)" % db)
        argv = [sqlite, "-init", "/dev/null", "-bail",
                "-cmd", ".load build/ifscore", db]
        feed = src.encode()
    elif block.lang == "sh":
        argv = ["sh", "-e", "-c", src]
    else:
        argv = [python, "-c", src]
    # Its own process group, so that a timeout stops everything it started.
    p = subprocess.Popen(argv, cwd=root, env=env, start_new_session=True,
                         stdin=subprocess.PIPE if feed is not None else subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(feed, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, b"", b"", "timed out after %d s" % TIMEOUT
    return p.returncode, out, err, None


def show(data):
    return data.decode("utf-8", "backslashreplace")


def visible(line):
    """A diff line with trailing spaces and tabs made visible."""
    stripped = line.rstrip("\n")
    body = stripped.rstrip(" \t")
    tail = stripped[len(body):].replace(" ", "·").replace("\t", "→")
    return body + tail + "\n"


def check_example(block, expected, root, sqlite, python, env):
    """None when the example prints what the page shows, else a message."""
    where = "%s:%d: ```%s" % (block.page, block.line, " ".join([block.lang] + block.attrs))
    before = untracked(root)
    status, out, err, problem = run(block, root, sqlite, python, env)
    if problem:
        return "%s: %s" % (where, problem)
    msgs = []
    after = untracked(root) if before is not None else None
    if after is not None and after - before:
        msgs.append("%s: left files in the repository (write under build/): %s"
                    % (where, " ".join(sorted(after - before))))
    if status != 0:
        msgs.append("%s: exited with status %d" % (where, status))
    if expected is None:
        if out and block.lang == "sql":
            msgs.append("%s: prints output the page does not show (put a ```text "
                        "block after it):\n%s" % (where, indent(show(out))))
        if err:
            msgs.append("%s: printed on stderr (the page shows no output):\n%s"
                        % (where, indent(show(err))))
        return "\n".join(msgs) if msgs else None
    want = "\n".join(expected.body) + "\n" if expected.body else ""
    got = show(out)
    if got != want:
        diff = difflib.unified_diff(
            [visible(s) for s in want.splitlines(True)],
            [visible(s) for s in got.splitlines(True)],
            "%s:%d (the page)" % (expected.page, expected.line + 1),
            "actual output", n=2)
        msgs.append("%s: output differs from the ```text block at line %d:\n%s"
                    % (where, expected.line, indent("".join(diff))))
    if err:
        msgs.append("%s: stderr:\n%s" % (where, indent(show(err))))
    return "\n".join(msgs) if msgs else None


def indent(s):
    return "".join("    " + ln for ln in s.splitlines(True)) or "    (empty)\n"


def unlinked_pages(root):
    """docs/*.md pages README.md does not link (a note, not a failure)."""
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        return []
    with open(readme, encoding="utf-8") as f:
        targets = {os.path.normpath(m.group(1).partition("#")[0])
                   for m in LINK.finditer(f.read())}
    return [p for p in default_pages(root)
            if p.startswith("docs" + os.sep) and p not in targets]


def default_pages(root):
    pages = [p for p in ("README.md", "ARCHITECTURE.md", "SECURITY.md", "CHANGELOG.md")
             if os.path.exists(os.path.join(root, p))]
    pages += sorted(os.path.relpath(p, root)
                    for p in glob.glob(os.path.join(root, "docs", "*.md")))
    return pages


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*", help="pages (default: all documentation)")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."), help="repository root")
    ap.add_argument("--list", action="store_true", help="list the examples, run none")
    ap.add_argument("--sqlite", default=os.environ.get("SQLITE", "sqlite3"))
    ap.add_argument("--python", default=os.environ.get("PYTHON", "/usr/bin/python3"))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    pages = args.pages or default_pages(root)
    env = clean_env()

    if not args.list and not os.path.exists(os.path.join(root, "build", "ifscore.so")):
        print("doctest: build/ifscore.so is missing; run make first")
        return 1

    failures, ran, shown = 0, 0, 0
    for page in pages:
        path = page if os.path.isabs(page) else os.path.join(root, page)
        name = os.path.relpath(path, root) if not args.pages else page
        with open(path, encoding="utf-8") as f:
            text = f.read()
        exs, errors = examples(name, text)
        errors += check_links(name, path, text)
        for e in errors:
            print("FAIL " + e, flush=True)
        failures += len(errors)
        for block, expected in exs:
            if "norun" in block.attrs:
                shown += 1
                continue
            ran += 1
            if args.list:
                print("%s:%d: ```%s%s" % (name, block.line, " ".join(
                    [block.lang] + block.attrs), " + text" if expected else ""))
                continue
            msg = check_example(block, expected, root, args.sqlite, args.python, env)
            if msg:
                failures += 1
                print("FAIL " + msg, flush=True)
    if not args.pages:
        notes = unlinked_pages(root)
        for n in notes:
            print("note: README.md does not link %s" % n)
    summary = "doctest: %d example%s in %d page%s (%d more shown only, norun)" % (
        ran, "" if ran == 1 else "s", len(pages), "" if len(pages) == 1 else "s", shown)
    if args.list:
        print(summary)
        return 0
    if failures:
        print("%s: %d FAILED" % (summary, failures))
        return 1
    print("%s: all print what the pages show" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
