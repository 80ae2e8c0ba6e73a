"""Build steps of the Python package (named in pyproject.toml; not installed).

The package's one non-Python file is the loadable library, which `make`
builds at the repository root (build/ifscore.so, build/ifscore.dylib on
macOS; PCRE2 linked in).  BuildPy copies it into the package; the wheel is
platform-specific (platlib) but for any Python 3, since the library does
not use Python's C API (BdistWheel's tag); Build keeps setuptools' files
under build/python, apart from make's.
"""
import os
import subprocess
import sys

from setuptools.command.build import build
from setuptools.command.build_py import build_py

try:   # setuptools >= 70.1 has it; before, the wheel package did
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        raise SystemExit(
            "ifscore: building needs setuptools >= 70.1 or the wheel package: on Debian "
            "apt-get install python3-wheel (a venv then needs --system-site-packages), "
            "or pip install wheel") from None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB_NAME = "ifscore.dylib" if sys.platform == "darwin" else "ifscore.so"


def make_library():
    """Runs make at the repository root (a no-op when the library is up to
    date) and returns the library's path."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    command = [os.environ.get("MAKE", "make"), "-C", ROOT, "build/" + LIB_NAME]
    try:
        subprocess.run(command, check=True, env=env)
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(
            "ifscore: building the SQLite extension failed (%s). It needs make, a C "
            "compiler, pkg-config and the development files of SQLite and PCRE2; on "
            "Debian: apt-get install gcc make pkg-config libsqlite3-dev libpcre2-dev"
            % e) from e
    return os.path.join(ROOT, "build", LIB_NAME)


def mark_binary(distribution):
    """The distribution carries a native library: built and installed as
    platform-specific (platlib), as if it had extension modules."""
    distribution.has_ext_modules = lambda: True


class Build(build):
    def initialize_options(self):
        super().initialize_options()
        mark_binary(self.distribution)
        self.build_base = os.path.join("build", "python")


class BuildPy(build_py):
    def run(self):
        super().run()
        lib = make_library()
        self.copy_file(lib, os.path.join(self.build_lib, "ifscore", LIB_NAME))


class BdistWheel(bdist_wheel):
    def finalize_options(self):
        mark_binary(self.distribution)  # so root_is_pure is False
        super().finalize_options()

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform
