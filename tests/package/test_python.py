"""test_python.py — the installed Python package, run by tests/package/python.sh
with the Python of a venv the package was installed into.

    python test_python.py VERSION

apsw is required when IFSCORE_WANT_APSW=1 (the venv that sees Debian's
python3-apsw). A Python whose sqlite3 cannot load extensions is stood in for
by a sqlite3.Connection subclass without the extension methods; where such a Python is
on the machine (IFSCORE_NO_EXT_PYTHON, or pyenv's python3 here), the package
is also imported from it and must raise the same error.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import sysconfig

import ifscore

VERSION = sys.argv[1]
passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print("ok   %s" % name)
    else:
        failed += 1
        print("FAIL %s\n     got:  %r\n     want: %r" % (name, got, want))


def raises(fn):
    try:
        fn()
    except Exception as e:          # the test reports which, and its text
        return type(e).__name__, str(e)
    return None


SCORE_SQL = "SELECT if_score('Hello world', '{\"max_words\": 5, \"must_include\": \"hello\"}'), if_reason('Hello world', '{\"max_words\": 1}')"
SCORE_ROW = (1.0, "0/1 satisfied; failed: max_words<=1 (got 2)")

# --- the package itself
path = ifscore.loadable_path()
site = sysconfig.get_paths()["platlib"]
check("loadable_path() is absolute", os.path.isabs(path), True)
check("loadable_path() is the installed package's library",
      path, os.path.join(site, "ifscore", "ifscore.so"))
check("__version__ is the VERSION file's", ifscore.__version__, VERSION)

# --- sqlite3
conn = sqlite3.connect(":memory:")
check("load(sqlite3 connection) returns it", ifscore.load(conn) is conn, True)
check("sqlite3: if_version()", conn.execute("SELECT if_version()").fetchone()[0], VERSION)
check("sqlite3: if_score, if_reason", conn.execute(SCORE_SQL).fetchone(), SCORE_ROW)
check("sqlite3: SQL cannot load libraries afterwards",
      raises(lambda: conn.execute("SELECT load_extension(?)", (path,)).fetchone()),
      ("OperationalError", "not authorized"))
conn2 = sqlite3.connect(":memory:")
check("sqlite3: a connection it was not loaded into has no if_score",
      raises(lambda: conn2.execute("SELECT if_version()")),
      ("OperationalError", "no such function: if_version"))
ifscore.load(conn2)
check("sqlite3: load into a second connection",
      conn2.execute("SELECT if_version()").fetchone()[0], VERSION)

# --- apsw
try:
    import apsw
except ImportError:
    apsw = None
if apsw is None:
    if os.environ.get("IFSCORE_WANT_APSW") == "1":
        check("apsw importable (Debian's python3-apsw)", False, True)
    else:
        print("note apsw is not in this venv (it is tested in the one with Debian's packages)")
else:
    a = apsw.Connection(":memory:")
    check("load(apsw connection) returns it", ifscore.load(a) is a, True)
    check("apsw: if_version()", list(a.cursor().execute("SELECT if_version()")), [(VERSION,)])
    check("apsw: if_score, if_reason", list(a.cursor().execute(SCORE_SQL)), [SCORE_ROW])
    got = raises(lambda: list(a.cursor().execute("SELECT load_extension(?)", (path,))))
    check("apsw: SQL cannot load libraries afterwards",
          got and (got[0], got[1].endswith("not authorized")), ("SQLError", True))

# --- connections that cannot load extensions, and other objects


class NoExtensionsConnection(sqlite3.Connection):
    """A sqlite3.Connection as a Python built without
    --enable-loadable-sqlite-extensions has it: no extension methods."""
    enable_load_extension = None
    load_extension = None


got = raises(lambda: ifscore.load(sqlite3.connect(":memory:", factory=NoExtensionsConnection)))
check("no extension loading: ExtensionLoadingUnavailable", got and got[0],
      "ExtensionLoadingUnavailable")
for phrase in ("built without extension loading", "apsw",
               "--enable-loadable-sqlite-extensions"):
    check("no extension loading: the error says %r" % phrase, phrase in (got or ("", ""))[1], True)
check("load(42): TypeError naming what it takes", raises(lambda: ifscore.load(42)),
      ("TypeError", "ifscore.load: expected a sqlite3 or apsw connection, got builtins.int"))

# --- a real Python without extension loading, where the machine has one
other = os.environ.get("IFSCORE_NO_EXT_PYTHON") or shutil.which("python3", path=os.path.expanduser("~/.pyenv/shims"))
if other:
    probe = subprocess.run([other, "-c", "import sqlite3; print(hasattr(sqlite3.Connection, 'enable_load_extension'))"],
                           capture_output=True, text=True)
    if probe.stdout.strip() == "False":
        out = subprocess.run(
            [other, "-c", "import sqlite3, ifscore\ntry:\n ifscore.load(sqlite3.connect(':memory:'))\n"
             "except ifscore.ExtensionLoadingUnavailable as e:\n print('raised:', e)"],
            capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=site))
        check("%s (no extension loading): load() raises the explanation" % other,
              out.stdout.strip(), "raised: " + ifscore._NO_LOADING)
    else:
        print("note %s can load extensions; the stand-in above is the test" % other)
else:
    print("note no Python without extension loading on this machine; the stand-in above is the test")

print("python package: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
