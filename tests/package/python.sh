#!/bin/sh
# python.sh — the Python package as a user gets it, offline, from Debian's
# packages only (make test-python):
#   1. pip install --no-build-isolation . into a fresh venv that sees Debian's
#      setuptools, wheel and apsw (--system-site-packages), then
#      tests/package/test_python.py with that venv's Python
#   2. pip wheel . : one platform wheel carrying the library, installed into
#      a second fresh venv without Debian's packages; the same test there
#      (apsw is then absent, and the test is told so)
#   3. pip install . into a plain venv (no wheel package): see below
set -e
PYTHON=${PYTHON:-/usr/bin/python3}
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
work=build/package/python
rm -rf "$work"
mkdir -p "$work"
version=$(cat VERSION)
pip_quiet() { "$@" --no-index --no-deps --disable-pip-version-check -q; }

echo "== pip install . (venv with Debian's site packages)"
"$PYTHON" -m venv --system-site-packages "$work/venv"
pip_quiet "$work/venv/bin/pip" install --no-build-isolation .
# from elsewhere than the checkout, so only the installed package can answer
(cd "$work" && IFSCORE_WANT_APSW=1 venv/bin/python "$ROOT/tests/package/test_python.py" "$version")

echo "== pip wheel ."
pip_quiet "$work/venv/bin/pip" wheel --no-build-isolation -w "$work/wheels" .
set -- "$work"/wheels/*.whl
[ $# = 1 ] || { echo "FAIL pip wheel: want one wheel, got: $*"; exit 1; }
plat=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_platform().replace("-", "_").replace(".", "_"))')
want="ifscore-$version-py3-none-$plat.whl"
if [ "$(basename "$1")" != "$want" ]; then
  echo "FAIL pip wheel: built $(basename "$1"), want $want"; exit 1
fi
echo "ok   pip wheel: $want"
"$PYTHON" - "$1" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
lib = [n for n in names if n.startswith("ifscore/") and n.endswith((".so", ".dylib"))]
wheel = [n for n in names if n.endswith(".dist-info/WHEEL")]
meta = zipfile.ZipFile(sys.argv[1]).read(wheel[0]).decode() if wheel else ""
if lib != ["ifscore/ifscore.so"] or "Root-Is-Purelib: false" not in meta:
    sys.exit("FAIL wheel contents: libraries %s, WHEEL:\n%s" % (lib, meta))
print("ok   wheel carries ifscore/ifscore.so and is not pure Python")
PY
"$PYTHON" -m venv "$work/wheel-venv"
pip_quiet "$work/wheel-venv/bin/pip" install "$1"
(cd "$work" && wheel-venv/bin/python "$ROOT/tests/package/test_python.py" "$version")

# 3. pip install . in a plain venv (pip and setuptools, no wheel package):
#    with setuptools >= 70.1 it builds; with an older one (Debian 12's) the
#    build stops with one line that says what to install
echo "== pip install . (venv without the wheel package)"
msg="ifscore: building needs setuptools >= 70.1 or the wheel package: on Debian apt-get install python3-wheel (a venv then needs --system-site-packages), or pip install wheel"
"$PYTHON" -m venv "$work/plain-venv"
if "$work/plain-venv/bin/python" -c 'import wheel' 2>/dev/null; then
  echo "FAIL a plain venv has the wheel package"; exit 1
fi
if "$work/plain-venv/bin/python" -c 'import setuptools.command.bdist_wheel' 2>/dev/null; then
  pip_quiet "$work/plain-venv/bin/pip" install --no-build-isolation .
  (cd "$work" && plain-venv/bin/python "$ROOT/tests/package/test_python.py" "$version")
elif out=$(pip_quiet "$work/plain-venv/bin/pip" install --no-build-isolation . 2>&1); then
  echo "FAIL pip install . without the wheel package succeeded"; exit 1
else
  case $out in
    *"$msg"*) echo "ok   without the wheel package: $msg" ;;
    *) echo "FAIL without the wheel package, not the one-line message:"; echo "$out"; exit 1 ;;
  esac
fi
