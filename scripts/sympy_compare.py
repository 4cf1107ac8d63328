#!/usr/bin/env python3
"""Run attest-sym's identity table through SymPy, side by side.

For each case, SymPy decides with `simplify(lhs - rhs) == 0` (plus a one-point test
when that is not zero). Its time per call is measured two ways, each the median of
up to 21 calls (at most ~0.5 s per case) with SymPy's cache cleared before each:

* **from text**: `sympify` of both sides' text, then decide. This is what a
  SymPy-backed tool pays per call (the original attestation sympified the user's
  text), and it is what attest-sym's time covers: parsing the text, deciding, and
  writing the answer's texts.
* **prebuilt**: the sides built by evaluating constructor calls (`Rational(1, 10) +
  ...`) with Python's `eval`, then decide: SymPy's floor, with no text parsing of
  its own.

attest-sym's verdict and median time per call (of 201 warm calls) come from
`cargo run --release -p attest-sym --example sympy_table`. Prints a table, the
agreement on cases both decide, every disagreement, the median and minimum ratio for
both SymPy timings, and every case under 50x. Honours CARGO_TARGET_DIR (default
target/, shared with the tests).

    python3 -m venv target/py-sympy && target/py-sympy/bin/pip install sympy==1.14.0
    target/py-sympy/bin/python scripts/sympy_compare.py
"""

import json
import os
import statistics
import subprocess
import sys
import time

import sympy
from sympy import Rational
from sympy.core.cache import clear_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAMES = {k: getattr(sympy, k) for k in [
    "E", "Abs", "Integer", "Rational", "Symbol", "diff", "pi", "sin", "cos", "tan", "sec", "csc", "cot",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp", "log"]}


def rust_table():
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    out = subprocess.run(
        ["cargo", "run", "-q", "--release", "-p", "attest-sym", "--example", "sympy_table"],
        cwd=os.environ.get("SYM_WORKSPACE", ROOT), env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def build(text):
    # The table's expressions are written by our own printer with a fixed vocabulary.
    return eval(text, {"__builtins__": {}}, NAMES)  # noqa: S307


def sympy_verdict(lhs_text, rhs_text, from_text):
    """equal / unequal / undecided, and seconds for reading both sides and deciding."""
    clear_cache()
    t = time.perf_counter()
    read = sympy.sympify if from_text else build
    lhs, rhs = read(lhs_text), read(rhs_text)
    d = sympy.simplify(lhs - rhs)
    verdict = "equal" if d == 0 else None
    if verdict is None:
        free = sorted(d.free_symbols, key=str)
        if not free:
            verdict = "unequal" if d.is_zero is False else "undecided"
        else:
            point = {s: Rational(3, 7) + i for i, s in enumerate(free)}
            try:
                v = complex(d.subs(point).evalf())
                verdict = "unequal" if abs(v) > 1e-9 else "undecided"
            except (TypeError, ValueError):
                verdict = "undecided"
    return verdict, time.perf_counter() - t


def median_time(lhs_text, rhs_text, from_text):
    verdict, first = sympy_verdict(lhs_text, rhs_text, from_text)
    times = [first]
    while len(times) < 21 and sum(times) < 0.5:
        times.append(sympy_verdict(lhs_text, rhs_text, from_text)[1])
    return verdict, statistics.median(times)


def ours(v):
    return {"proved": "equal", "proved where defined": "equal", "refuted": "unequal"}.get(v, "undecided")


def main():
    rows = rust_table()
    agree, differ, text_ratios, built_ratios = 0, [], [], []
    print(f"{'claim':52} {'attest-sym':21} {'sympy':9} {'rust µs':>8} {'text ms':>8} {'built ms':>8} "
          f"{'ratio':>6} {'floor':>6}")
    for r in rows:
        sv, st = median_time(r["lhs"], r["rhs"], True)
        sv_built, sb = median_time(r["lhs"], r["rhs"], False)
        assert sv == sv_built, (r["claim"], sv, sv_built)
        rv = ours(r["verdict"])
        rust = r["rust_seconds"]
        text_ratios.append(st / rust)
        built_ratios.append(sb / rust)
        if "undecided" not in (sv, rv):
            if sv == rv:
                agree += 1
            else:
                differ.append((r["claim"], r["verdict"], sv))
        print(f"{r['claim'][:52]:52} {r['verdict']:21} {sv:9} {rust * 1e6:8.1f} {st * 1e3:8.2f} {sb * 1e3:8.2f} "
              f"{st / rust:6.0f} {sb / rust:6.0f}")
    both = agree + len(differ)
    print(f"\nagreement on cases both decide: {agree}/{both}")
    for claim, rv, sv in differ:
        print(f"  differ: {claim}: attest-sym {rv}, sympy {sv}")
    undecided = [r["claim"] for r in rows if ours(r["verdict"]) == "undecided"]
    print(f"attest-sym unknown on {len(undecided)} case(s): {undecided}")
    rust = sorted(r["rust_seconds"] for r in rows)
    print(f"attest-sym verify per case: p50 {rust[len(rust) // 2] * 1e6:.1f} µs, max {rust[-1] * 1e6:.1f} µs")
    for name, ratios in [("from text (sympify)", text_ratios), ("prebuilt (SymPy's floor)", built_ratios)]:
        slow = sorted((ratio, r["claim"]) for ratio, r in zip(ratios, rows) if ratio < 50)
        print(f"speed ratio vs SymPy {name}: median {statistics.median(ratios):.0f}x, min {min(ratios):.0f}x, "
              f"{len(slow)} case(s) under 50x")
        for ratio, claim in slow:
            print(f"  {ratio:5.0f}x  {claim}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
