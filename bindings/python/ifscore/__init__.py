"""ifscore — the ifscore SQLite extension for Python.

    import sqlite3, ifscore
    conn = sqlite3.connect("runs.db")
    ifscore.load(conn)
    conn.execute("SELECT if_score('Hello world', '{\\"max_words\\": 5}')")

load() takes a sqlite3 or an apsw connection. It turns extension loading on
for the one call and off again, so SQL run on the connection afterwards
cannot load other libraries (SELECT load_extension(...) is refused).
loadable_path() is the absolute path of the library this package carries,
for tools that load it themselves (sqlite-utils, Datasette, the sqlite3 CLI).
"""
import os
import sys

__all__ = ["load", "loadable_path", "ExtensionLoadingUnavailable", "__version__"]

_LIB_NAME = "ifscore.dylib" if sys.platform == "darwin" else "ifscore.so"

try:
    from importlib.metadata import version as _dist_version
    __version__ = _dist_version("ifscore")
except Exception:        # not installed as a distribution (e.g. copied in)
    __version__ = "unknown"


class ExtensionLoadingUnavailable(RuntimeError):
    """The connection cannot load SQLite extensions at all."""


_NO_LOADING = (
    "this Python's sqlite3 module was built without extension loading "
    "(sqlite3.Connection has no enable_load_extension), so it cannot load ifscore. "
    "Use apsw instead (pip install apsw, or Debian's python3-apsw; then "
    "ifscore.load(apsw.Connection(path))), or a Python built with "
    "--enable-loadable-sqlite-extensions (Debian's /usr/bin/python3 is; with pyenv: "
    "PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install --force VERSION)."
)


def loadable_path():
    """The absolute path of the loadable library in this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), _LIB_NAME)
    if not os.path.exists(path):
        raise FileNotFoundError(
            "ifscore: %s is missing: the package was installed without its library "
            "(install it with pip install ., which builds it, or from a wheel)" % path)
    return path


def _is_instance(conn, module):
    """conn is a module.Connection (the module is not imported here)."""
    mod = sys.modules.get(module)
    return mod is not None and isinstance(conn, getattr(mod, "Connection", ()))


def load(conn):
    """Loads ifscore into conn, a sqlite3.Connection or an apsw.Connection,
    and leaves extension loading disabled on it. Returns conn."""
    # sqlite3: enable_load_extension/load_extension; apsw before 3.42:
    # enableloadextension/loadextension (later versions have both spellings)
    enable = getattr(conn, "enable_load_extension", None) or getattr(conn, "enableloadextension", None)
    load_ext = getattr(conn, "load_extension", None) or getattr(conn, "loadextension", None)
    if enable is None or load_ext is None:
        if _is_instance(conn, "sqlite3"):
            raise ExtensionLoadingUnavailable(_NO_LOADING)
        if _is_instance(conn, "apsw"):
            raise ExtensionLoadingUnavailable(
                "this apsw was built without extension loading: use one built "
                "with it (apsw's own wheels and Debian's python3-apsw are)")
        raise TypeError("ifscore.load: expected a sqlite3 or apsw connection, got %s.%s"
                        % (type(conn).__module__, type(conn).__qualname__))
    path = loadable_path()
    enable(True)
    try:
        load_ext(path)
    finally:
        enable(False)
    return conn
