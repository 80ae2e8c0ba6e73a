#!/usr/bin/python3
"""Checks that the committed generated tables are what their scripts print now.

Each generator is run with this Python (3.11, the oracle's) and its output is
compared with the committed header; a difference means someone edited the
header by hand or the generator changed without a rerun.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLES = [
    ("tools/gen_unicode_tables.py", "ext/ifs_unicode_tables.h"),
    ("tools/gen_regex_tables.py", "ext/ifs_regex_tables.h"),
    ("tools/gen_unicode_names.py", "ext/ifs_unicode_names_table.h"),
    ("tools/gen_english_table.py", "ext/ifs_english_table.h"),
]


def main():
    failed = passed = 0
    for script, header in TABLES:
        script_path = os.path.join(ROOT, script)
        if not os.path.exists(script_path):
            continue
        fresh = subprocess.run([sys.executable, script_path], check=True,
                               capture_output=True).stdout
        with open(os.path.join(ROOT, header), "rb") as f:
            committed = f.read()
        if fresh == committed:
            passed += 1
            print(f"tables: {header} matches {script}")
        else:
            failed += 1
            print(f"tables: {header} differs from what {script} prints; rerun it")
    print(f"tables: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
