#!/usr/bin/env python3
"""amalgamate.py — writes the library as one C file (make amalgamation).

    python3 tools/amalgamate.py -o build/amalgamation/ifscore.c \
        --version 0.1.0 --license LICENSE ext/a.c ext/b.c ...

The sources are the Makefile's list for build/ifscore.so, in its order. Each
project header ("x.h", from the source's own directory) is inlined where it
is first included, tables included; system headers stay #include lines. The
result builds with one command and no project flags:

    cc -O2 -fPIC -shared ifscore.c $(pkg-config --cflags --libs libpcre2-8) -o ifscore.so

so it defines what the Makefile passes on the command line (_GNU_SOURCE,
IFS_VERSION) and gives everything but sqlite3_ifscore_init hidden
visibility (the Makefile's -fvisibility=hidden).

One file means one scope for what separate files kept apart:
- a macro a source defines is #undef'd after that source, unless a project
  header defines it too (the header's definition must stay);
- a file-scope static, type or tag that two sources both define is renamed
  in each, by a #define before the source and an #undef after it.
"""

import argparse
import os
import re
import sys

INCLUDE_LOCAL = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
INCLUDE_SYSTEM = re.compile(r"^\s*#\s*include\s+<[^>]+>")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")
# file-scope names a source defines (the project's style: at column 0,
# a static perhaps after an attribute macro such as SIMD_TARGET)
STATIC_NAME = re.compile(r"^(?:[A-Za-z_]\w*\s+)*?static\b[^;=(\[{]*?\b([A-Za-z_]\w*)\s*[(\[=;]")
TYPEDEF_END = re.compile(r"^}\s*([A-Za-z_]\w*)\s*;")
TYPEDEF_LINE = re.compile(r"^typedef\b[^;{]*?\b([A-Za-z_]\w*)\s*;")
TAG_DEF = re.compile(r"^(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*{")


def without_attributes(line):
    """line less each __attribute__((...)) (its parentheses balanced), whose
    parenthesis would otherwise pass for a function's."""
    out, i = [], 0
    while True:
        j = line.find("__attribute__", i)
        if j < 0:
            return "".join(out) + line[i:]
        out.append(line[i:j])
        k, depth = j + len("__attribute__"), 0
        while k < len(line):
            if line[k] == "(":
                depth += 1
            elif line[k] == ")":
                depth -= 1
                if depth == 0:
                    k += 1
                    break
            elif depth == 0 and not line[k].isspace():
                break
            k += 1
        i = k


def file_scope_names(text):
    names = set()
    for line in text.split("\n"):
        line = without_attributes(line)
        for rx in (STATIC_NAME, TYPEDEF_END, TYPEDEF_LINE, TAG_DEF):
            m = rx.match(line)
            if m and not m.group(1).startswith("__"):   # reserved: never the project's
                names.add(m.group(1))
    return names


class Amalgamation:
    def __init__(self):
        self.out = []
        self.inlined = set()

    def emit_file(self, path, defined_macros):
        """Appends path's text, inlining project headers not yet inlined.
        Collects the macros the file itself defines into defined_macros."""
        directory = os.path.dirname(path)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines:
            m = INCLUDE_LOCAL.match(line)
            if m:
                header = os.path.normpath(os.path.join(directory, m.group(1)))
                if not os.path.exists(header):
                    sys.exit("amalgamate: %s includes %s, not found" % (path, m.group(1)))
                if header not in self.inlined:
                    self.inlined.add(header)
                    self.out.append("/* ---- %s ---- */" % header)
                    self.emit_file(header, set())   # a header's macros stay
                    self.out.append("/* ---- end of %s ---- */" % header)
                continue
            if INCLUDE_SYSTEM.match(line):
                # declarations from system headers keep default visibility
                self.out += ["#if IFS_AMALG_VISIBILITY",
                             "#pragma GCC visibility push(default)",
                             "#endif", line,
                             "#if IFS_AMALG_VISIBILITY",
                             "#pragma GCC visibility pop",
                             "#endif"]
                continue
            m = DEFINE.match(line)
            if m:
                defined_macros.add(m.group(1))
            self.out.append(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--license", required=True)
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()

    texts = {}
    for src in args.sources:
        with open(src, encoding="utf-8") as f:
            texts[src] = f.read()
    # macros of the project's headers outlive the source that inlines them
    header_macros = set()
    for directory in sorted({os.path.dirname(src) or "." for src in args.sources}):
        for name in sorted(os.listdir(directory)):
            if name.endswith(".h"):
                with open(os.path.join(directory, name), encoding="utf-8") as f:
                    for line in f:
                        m = DEFINE.match(line)
                        if m:
                            header_macros.add(m.group(1))
    seen, clashing = set(), set()
    for src in args.sources:
        names = file_scope_names(texts[src])
        clashing |= seen & names
        seen |= names

    with open(args.license, encoding="utf-8") as f:
        license_text = f.read().strip()
    a = Amalgamation()
    a.out += [
        "/*",
        "** ifscore %s — the SQLite extension in one file, generated by" % args.version,
        "** tools/amalgamate.py from: %s." % " ".join(os.path.basename(s) for s in args.sources),
        "** Edit those, not this.  Build a loadable extension with:",
        "**",
        "**   cc -O2 -fPIC -shared ifscore.c $(pkg-config --cflags --libs libpcre2-8) -o ifscore.so",
        "**",
        "** It needs sqlite3ext.h (Debian: libsqlite3-dev) and PCRE2 (libpcre2-dev).",
        "**",
    ]
    a.out += [("** " + l).rstrip() for l in license_text.split("\n")]
    a.out += [
        "*/",
        "#ifndef _GNU_SOURCE",
        "#define _GNU_SOURCE   /* memmem */",
        "#endif",
        "#ifndef IFS_VERSION",
        '#define IFS_VERSION "%s"' % args.version,
        "#endif",
        "/* Only sqlite3_ifscore_init is exported (it says so itself); the rest is",
        "** hidden, as the Makefile's -fvisibility=hidden makes it. */",
        "#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)",
        "#define IFS_AMALG_VISIBILITY 1",
        "#pragma GCC visibility push(hidden)",
        "/* tables from headers are now in the main file, where an unused one",
        "** (kept for the unit tests) would be reported */",
        "#pragma GCC diagnostic ignored \"-Wunused-const-variable\"",
        "#else",
        "#define IFS_AMALG_VISIBILITY 0",
        "#endif",
        "",
    ]
    for src in args.sources:
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(src))[0])
        renamed = sorted(file_scope_names(texts[src]) & clashing)
        a.out.append("/* ==== %s ==== */" % src)
        for name in renamed:
            a.out.append("#define %s %s__%s" % (name, stem, name))
        macros = set()
        a.emit_file(src, macros)
        for name in sorted((macros - header_macros) | set(renamed)):
            if name not in ("_GNU_SOURCE", "IFS_VERSION"):
                a.out.append("#undef %s" % name)
        a.out.append("")
    a.out += ["#if IFS_AMALG_VISIBILITY", "#pragma GCC visibility pop", "#endif"]
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    tmp = args.output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(a.out) + "\n")
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
