#!/usr/bin/env python3
"""Run attest-sym's identity table through SymPy, side by side.

For each case, SymPy decides with `simplify(lhs - rhs) == 0` (cache cleared before
each call, parse time excluded); attest-sym's verdict and median time per call come
from `cargo run --release -p attest-sym --example sympy_table`. Prints a table, the
agreement on cases both decide, every disagreement, the median and minimum speed
ratio, and every case under 50x. Honours CARGO_TARGET_DIR (default target/h-sym).

    python3 -m venv target/py-sympy && target/py-sympy/bin/pip install sympy
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
    env.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target", "h-sym"))
    out = subprocess.run(
        ["cargo", "run", "-q", "--release", "-p", "attest-sym", "--example", "sympy_table"],
        cwd=os.environ.get("SYM_WORKSPACE", ROOT), env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def build(text):
    # The table's expressions are written by our own printer with a fixed vocabulary.
    return eval(text, {"__builtins__": {}}, NAMES)  # noqa: S307


def sympy_verdict(lhs_text, rhs_text):
    """equal / unequal / undecided, and seconds for building both sides and deciding
    (building is SymPy's parse step: it already evaluates, as attest-sym's time
    includes its parse)."""
    clear_cache()
    t = time.perf_counter()
    lhs, rhs = build(lhs_text), build(rhs_text)
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


def ours(v):
    return {"proved": "equal", "proved where defined": "equal", "refuted": "unequal"}.get(v, "undecided")


def main():
    rows = rust_table()
    agree, differ, ratios = 0, [], []
    print(f"{'claim':58} {'attest-sym':22} {'sympy':10} {'rust µs':>9} {'sympy ms':>9} {'ratio':>7}")
    for r in rows:
        sv, st = sympy_verdict(r["lhs"], r["rhs"])
        rv = ours(r["verdict"])
        ratio = st / r["rust_seconds"] if r["rust_seconds"] > 0 else float("inf")
        ratios.append(ratio)
        if "undecided" not in (sv, rv):
            if sv == rv:
                agree += 1
            else:
                differ.append((r["claim"], r["verdict"], sv))
        print(f"{r['claim'][:58]:58} {r['verdict']:22} {sv:10} {r['rust_seconds'] * 1e6:9.1f} {st * 1e3:9.2f} {ratio:7.0f}")
    both = agree + len(differ)
    print(f"\nagreement on cases both decide: {agree}/{both}")
    for claim, rv, sv in differ:
        print(f"  differ: {claim}: attest-sym {rv}, sympy {sv}")
    undecided = [r["claim"] for r in rows if ours(r["verdict"]) == "undecided"]
    print(f"attest-sym unknown on {len(undecided)} case(s): {undecided}")
    rust = sorted(r["rust_seconds"] for r in rows)
    print(f"attest-sym verify per case: p50 {rust[len(rust) // 2] * 1e6:.1f} µs, max {rust[-1] * 1e6:.1f} µs")
    print(f"median speed ratio (sympy time / attest-sym time): {statistics.median(ratios):.0f}x; "
          f"min {min(ratios):.0f}x")
    slow = [(ratio, r["claim"]) for ratio, r in zip(ratios, rows) if ratio < 50]
    print(f"cases under 50x: {len(slow)}")
    for ratio, claim in sorted(slow):
        print(f"  {ratio:5.0f}x  {claim}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
