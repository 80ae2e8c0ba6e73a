"""make_seeds.py — builds the libFuzzer seed corpora under OUTDIR/<target>/.

    python3 tests/fuzz/make_seeds.py build/fuzz/corpus

Sources, all optional except the first:
  tests/fuzz/seeds/<target>/     hand-written seeds (checked in)
  tests/fuzz/regressions/<target>/  inputs that once failed
  tests/fixtures/if_dataset.jsonl   constraints of the fixture dataset
  ../shared/data/ifeval_cases.jsonl real responses and constraints
  tests/gen_cases.py               the parity suite's adversarial generator
Inputs are cut to MAX_LEN bytes (the fuzzers' -max_len).  Existing files
in OUTDIR are kept, so a corpus grown by earlier runs is not lost.
"""
import hashlib
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests"))
SEP = b"\n~~~~\n"
MAX_LEN = 8192
TARGETS = ["fuzz_json", "fuzz_regex", "fuzz_text", "fuzz_pyval", "fuzz_eval"]
SHARED = os.path.join(ROOT, "..", "shared", "data", "ifeval_cases.jsonl")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "if_dataset.jsonl")


def put(outdir, target, data):
    if data is None:
        return
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    data = data[:MAX_LEN]
    name = hashlib.sha1(data).hexdigest()
    path = os.path.join(outdir, target, name)
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(data)


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def json_values(v, out):
    out.append(v)
    if isinstance(v, list):
        for x in v:
            json_values(x, out)
    elif isinstance(v, dict):
        for x in v.values():
            json_values(x, out)


def text_bytes(s):
    """s as bytes: a character decoded from an invalid byte back to that byte,
    any other lone surrogate (a JSON \\uda30) in the internal three-byte form."""
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return s.encode("utf-8", "surrogatepass")


def add_pair(outdir, resp, cons):
    """One (response, constraints) pair, bytes or None, to every target."""
    r = resp if resp is not None else b""
    if cons is not None:
        put(outdir, "fuzz_eval", (resp + SEP + cons) if resp is not None else cons)
        put(outdir, "fuzz_json", cons)
        put(outdir, "fuzz_pyval", cons)
        try:
            obj = json.loads(cons.decode("utf-8", "surrogateescape"))
        except (ValueError, RecursionError):
            obj = None
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k == "regex" and v:
                    put(outdir, "fuzz_regex", text_bytes(str(v)) + SEP + r)
                try:
                    put(outdir, "fuzz_pyval", json.dumps(v, ensure_ascii=False))
                except (ValueError, RecursionError):
                    pass
    put(outdir, "fuzz_text", r)
    if r.lstrip()[:1] in (b"{", b"[", b"`", b'"'):
        put(outdir, "fuzz_json", r)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "fuzz", "corpus")
    for t in TARGETS:
        os.makedirs(os.path.join(outdir, t), exist_ok=True)
        for sub in ("seeds", "regressions"):
            d = os.path.join(HERE, sub, t)
            if os.path.isdir(d):
                for name in os.listdir(d):
                    shutil.copyfile(os.path.join(d, name), os.path.join(outdir, t, name))
    for row in rows(FIXTURES) + rows(SHARED):
        cons = json.dumps(row.get("constraints"), ensure_ascii=False).encode()
        resp = row.get("response")
        resp = resp.encode("utf-8", "surrogatepass") if isinstance(resp, str) else None
        add_pair(outdir, resp, cons)
    try:
        import gen_cases
        rng = random.Random(6)
        corpus = gen_cases.load_corpus() or False
        for resp, cons in gen_cases.generate(rng, 1500, corpus):
            add_pair(outdir, resp, cons)
    except ImportError as e:                # the generator is optional
        print("make_seeds: gen_cases unavailable:", e)
    for t in TARGETS:
        print("%-11s %5d seeds" % (t, len(os.listdir(os.path.join(outdir, t)))))


if __name__ == "__main__":
    main()
