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
    target/py-sympy/bin/python scripts/sympy_compare.py --ops   # limits, series, sums, …

With --ops the same run also times each case through `tools/call` of the real
`attest-symbolic` binary (built in release; raw JSON-RPC over stdio, 21 calls per
case, median) and prints per-operation p50s: library, tools/call and SymPy from text
(--no-mcp skips the binary).

--ops options: `--only OP[,OP…]` runs only the cases of those operations (e.g.
`--only integrate`); `--sympy-timeout S` (default 60) stops SymPy on a case after S
seconds (SIGALRM; its answer and then the comparison each get S seconds): the case is
reported as "SymPy: timed out after S s", listed apart from the disagreements, and the
run goes on.
"""

import json
import os
import signal
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


# ---------------------------------------------------------------------------------
# --ops: the operation table (limits, series, sums, matrices, systems, integration by
# parts, factoring, matrix identities) against SymPy's limit / series / summation /
# Matrix / linsolve / nonlinsolve / integrate / factor_list / simplify,
# each from text. Agreement is checked on the value (SymPy's minus ours simplifies to
# 0), or on the status for convergence, "does not exist" and unknown.


def rust_ops():
    if os.environ.get("SYM_OPS_JSON"):  # the example's output, saved (e.g. a debug build's)
        with open(os.environ["SYM_OPS_JSON"]) as f:
            return [json.loads(line) for line in f if line.strip()]
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    out = subprocess.run(
        ["cargo", "run", "-q", "--release", "-p", "attest-sym", "--example", "sympy_ops"],
        cwd=os.environ.get("SYM_WORKSPACE", ROOT), env=env, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def sym_text(t):
    """Our input text in SymPy syntax: ^ as **, implicit products, oo, log."""
    from sympy.parsing.sympy_parser import (parse_expr, standard_transformations,
                                            implicit_multiplication_application, convert_xor)
    import re
    t = str(t).replace("{", "(").replace("}", ")")  # x^{3}: TeX braces group
    t = re.sub(r"\|([^|]*)\|", r"Abs(\1)", t)  # |x|
    tr = standard_transformations + (implicit_multiplication_application, convert_xor)
    return parse_expr(t, transformations=tr, local_dict={"e": sympy.E, "pi": sympy.pi, "oo": sympy.oo})


def latex_to_sympy(t):
    """One LaTeX formula through SymPy's LaTeX parser (the Lark backend, which reads
    matrices; an ambiguous parse such as `x(x+2)`, a function call or a product, takes
    the reading without undefined functions), as SymPy text."""
    from sympy.parsing.latex import parse_latex
    from sympy.core.function import AppliedUndef
    e = parse_latex(t, backend="lark")
    if getattr(e, "data", None) == "_ambig":
        e = next(c for c in e.children if not c.atoms(AppliedUndef))
    if isinstance(e, sympy.MatrixBase):
        return str(e.tolist())
    return str(e)


def delatex(v):
    """An argument of a LaTeX case as SymPy text: a `cases` environment one equation a
    line (joined with `;`), bounds one by one, other arguments (operation names) as they are."""
    import re
    if isinstance(v, list):
        return [delatex(x) for x in v]
    if not isinstance(v, str) or "\\" not in v:
        return v
    m = re.match(r"\\begin\{cases\}(.*)\\end\{cases\}", v.strip(), re.S)
    if m:
        return "; ".join(" = ".join(latex_to_sympy(side) for side in eq.split("="))
                         for eq in m.group(1).split("\\\\"))
    return latex_to_sympy(v)


def root_sum_derivative(text, x, point):
    """The derivative at `point` of our antiderivative with sums over roots
    (`exact + Σ_{r: Q(r) = 0} term(r, x) + …`), numerically: the exact part by SymPy's
    `diff`, each sum over the roots of `Q` found by `nroots` (30 digits)."""
    import re
    parts = re.split(r"(?:^| \+ )(?=Σ_\{)", text)
    total = 0
    for part in parts:
        if not part:
            continue
        m = re.match(r"Σ_\{(\w+): (.*?) = 0\} (.*)$", part)
        if m is None:
            e = sym_text(part.replace("abs(", "Abs("))
            xr = sympy.Symbol(str(x), real=True)
            total += complex(sympy.diff(e.subs(x, xr), xr).subs(xr, point).evalf(30))
            continue
        r = sympy.Symbol(m.group(1))
        term = sym_text(m.group(3))
        dterm = sympy.diff(term, x)
        for z in sympy.Poly(sym_text(m.group(2)), r).nroots(n=30):
            total += complex(dterm.subs({r: z, x: point}).evalf(30))
    return total


def verify_text(lhs, rhs):
    """SymPy's verdict on lhs = rhs: simplify(lhs - rhs) == 0, with literal matrices
    (`[[…]]`, `det`, `inverse`, `^T`, `I`) built as SymPy matrices."""
    import re
    if "[[" in lhs + rhs:
        n = len(json.loads(re.findall(r"\[\[.*?\]\]", lhs + rhs)[0].replace(" ", "")))

        def build_m(t):
            t = re.sub(r"(\[\[.*?\]\])", r"Matrix(\1)", t)
            t = t.replace("^T", ".T").replace("^", "**")
            t = re.sub(r"\bI\b", f"eye({n})", t)
            t = re.sub(r"(\)|\.T)\s+(?=[A-Za-z(])", r"\1*", t)
            t = re.sub(r"(\d)\s+(?=[A-Za-z(])", r"\1*", t)
            ns = {"Matrix": sympy.Matrix, "eye": sympy.eye, "det": lambda m: m.det(),
                  "inverse": lambda m: m.inv(), "trace": lambda m: m.trace()}
            return eval(t, {"__builtins__": {}}, ns)  # our own table's text, not user input
        d = build_m(lhs) - build_m(rhs)
        zero = d.is_zero_matrix if isinstance(d, sympy.MatrixBase) else sympy.simplify(d) == 0
        return "proved" if zero else "refuted"
    d = sympy.simplify(sym_text(lhs) - sym_text(rhs))
    if d == 0:
        return "proved"
    # Our semantics are real: retry with real symbols, then positive ones (equal where
    # both sides are defined, for claims whose sides need x ≥ 0).
    for kw, verdict in (({"real": True}, "proved"), ({"positive": True}, "proved_where_defined")):
        sub = {s: sympy.Symbol(str(s), **kw) for s in d.free_symbols}
        if sympy.simplify(d.subs(sub)) == 0:
            return verdict
    return "not proved (simplify leaves " + str(d)[:40] + ")"


def factors_of(e):
    """Our factored text as SymPy's factor_list shape: (content, [(factor, power)])."""
    c, fs = sympy.Integer(1), []
    for f in sympy.Mul.make_args(e):
        b, k = f.as_base_exp()
        if b.is_number:
            c *= f
        else:
            fs.append((sympy.expand(b), int(k)))
    return c, sorted(fs, key=str)


def sympy_op(r):
    """SymPy's answer for one case: (value or status text, seconds), from text."""
    clear_cache()
    a = r["args"]
    t = time.perf_counter()
    op = r["op"]
    if "\\" in json.dumps(a):
        a = {k: delatex(v) for k, v in a.items()}  # timed with the rest: SymPy reads the LaTeX too
        r["sympy_args"] = a
    if op == "limit" and "to" not in a and "Limit(" in a["expr"]:
        return sym_text(a["expr"]).doit(), time.perf_counter() - t
    if op == "sum" and "upper" not in a and "Sum(" in a["expr"]:
        s = sym_text(a["expr"])
        if r["field"] == "status":
            return {True: "converges", False: "diverges"}.get(s.is_convergent(), "unknown"), time.perf_counter() - t
        return s.doit(), time.perf_counter() - t
    if op == "limit" and "to" in a:
        f = sym_text(a["expr"])
        x = sympy.Symbol(a["var"]) if "var" in a else sorted(f.free_symbols, key=str)[0]
        d = {"right": "+", "left": "-"}.get(a.get("direction"), "+-")
        if r["field"] == "right":
            d = "+"
        try:
            v = sympy.limit(f, x, sym_text(a["to"]), d)
            res = "unknown" if isinstance(v, sympy.AccumBounds) else ("does_not_exist" if v == sympy.zoo else v)
        except ValueError:  # the one-sided limits differ
            res = "does_not_exist"
    elif op == "series":
        f = sym_text(a["expr"])
        x = sorted(f.free_symbols, key=str)[0]
        res = sympy.series(f, x, sym_text(a.get("about", "0")), int(a.get("order", 6))).removeO()
    elif op == "sum" and "upper" in a:
        f = sym_text(a["expr"])
        k = sorted(f.free_symbols, key=str)[0] if f.free_symbols else sympy.Symbol("k")
        up = sym_text(a["upper"])
        s = sympy.Sum(f, (k, sym_text(a.get("lower", "1")), up))
        if up == sympy.oo and r["field"] == "status":
            c = s.is_convergent()
            res = {True: "converges", False: "diverges"}.get(c, "unknown")
        else:
            res = s.doit()
    elif op == "simplify" and r["field"] == "factored":
        res = sympy.factor_list(sym_text(a["expr"]))
    elif op == "verify":
        res = verify_text(a["lhs"], a["rhs"])
    elif op == "matrix":
        import re
        mats = [sympy.Matrix(sym_text(m)) for m in re.findall(r"\[\[.*?\]\]", a["expr"])]
        if r["field"] == "eigenvectors":
            return mats[0].eigenvects(), time.perf_counter() - t
        if mats[0].free_symbols and a.get("operation") == "eigenvalues":
            vals = [v for v, k in mats[0].eigenvals().items() for _ in range(k)]
            return vals, time.perf_counter() - t
        o = a.get("operation", "product" if len(mats) == 2 else "summary")
        m = mats[0] if mats else None
        res = {"determinant": lambda: m.det(), "inverse": lambda: m.inv() if m.det() != 0 else True,
               "rank": lambda: sympy.Integer(m.rank()), "transpose": lambda: m.T,
               "product": lambda: mats[0] * mats[1],
               "eigenvalues": lambda: ", ".join(sorted(
                   (str(v) for v, k in m.eigenvals().items() if v.is_real for _ in range(k)),
                   key=lambda t: float(sympy.sympify(t))))}.get(o, lambda: None)() if m is not None else None
    elif op == "solve":
        eqs = [sympy.Eq(*[sym_text(side) for side in e.split("=")]) for e in
               a["expr"].replace(",", ";").split(";")]
        syms = sorted(set().union(*[e.free_symbols for e in eqs]), key=str)
        if r["field"] == "solutions" or any(sympy.Poly(e.lhs - e.rhs, *syms).total_degree() > 1 for e in eqs):
            sols = sympy.nonlinsolve(eqs, syms)
            if r["field"] == "status" and any({str(s) for v in t for s in v.free_symbols} & {str(s) for s in syms}
                                              for t in sols):
                return "infinitely_many", time.perf_counter() - t  # a family in terms of an unknown
            real = [t for t in sols if all(v.is_real for v in t)]
            res = "none" if not real else sorted(
                [{str(k): str(v) for k, v in zip(syms, t)} for t in real], key=lambda d: sorted(d.items()))
            if r["field"] == "status":
                res = "none" if not real else "finite"
            return res, time.perf_counter() - t
        sol = sympy.linsolve(eqs, syms)
        if sol == sympy.EmptySet:
            res = "none"
        else:
            (tup,) = tuple(sol)
            free = sorted({str(s) for v in tup for s in v.free_symbols})
            res = {"status": "unique" if not free else "infinitely_many", "free": json.dumps(free),
                   "solution": {str(k): v for k, v in zip(syms, tup) if str(k) not in free}}[r["field"]] \
                if r["field"] != "status" or free or True else None
            if r["field"] == "status":
                res = "unique" if not free else "infinitely_many"
    elif op == "integrate":
        f = sym_text(a["expr"])
        x = sorted(f.free_symbols, key=str)[0]
        if "bounds" in a:
            lo, hi = (sym_text(b) for b in a["bounds"])
            v = sympy.integrate(f, (x, lo, hi))
            res = "diverges" if v in (sympy.oo, -sympy.oo) else v
        else:
            res = sympy.integrate(f, x)
    else:
        res = None
    return res, time.perf_counter() - t


class SympyTimeout(BaseException):
    """Raised by SIGALRM; a BaseException so that SymPy's `except Exception` cannot swallow it."""


def _alarm(_signum, _frame):
    raise SympyTimeout


def arg_value(flag, default=None):
    if flag in sys.argv:
        i = sys.argv.index(flag)
        if i + 1 < len(sys.argv):
            return sys.argv[i + 1]
    return default


def with_limit(seconds, fn, *args):
    """fn(*args), or raise SympyTimeout after `seconds` (wall clock)."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def mcp_times(rows, calls=21):
    """Median seconds per `tools/call` of each case's tool (`sym.<op>`, the case's
    arguments) through the real `attest-symbolic` binary (release): the MCP server, its
    pool and a sandboxed worker's pipes, spoken as raw JSON-RPC over stdio (no SDK on
    the timed path). The binary is built first; None for every case with --no-mcp."""
    if "--no-mcp" in sys.argv:
        return [None] * len(rows)
    import tempfile
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "attest-symbolic"],
                   cwd=os.environ.get("SYM_WORKSPACE", ROOT), env=env, check=True)
    binary = os.path.join(env["CARGO_TARGET_DIR"], "release", "attest-symbolic")
    tmp = tempfile.mkdtemp()
    penv = dict(os.environ, ATTEST_DB=os.path.join(tmp, "bench.db"), ATTEST_EXPAND="1")
    penv.setdefault("RESEARCH_ROOT", tmp)
    proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=penv)
    ids = iter(range(1, 10**9))

    def call(method, params):
        i = next(ids)
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit("attest-symbolic closed stdout")
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg

    call("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "sympy_compare", "version": "0"}})
    proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
    proc.stdin.flush()
    out = []
    for r in rows:
        params = {"name": "sym." + r["op"], "arguments": r["args"]}
        first = call("tools/call", params)
        text = json.dumps(first.get("result", {}))
        if '"isError": true' in text or "error" in first:
            out.append(None)
            continue
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            call("tools/call", params)
            times.append(time.perf_counter() - t)
        out.append(statistics.median(times))
    proc.stdin.close()
    proc.wait(timeout=10)
    return out


def main_ops():
    rows = rust_ops()
    only = arg_value("--only")
    if only:
        rows = [r for r in rows if r["op"] in only.split(",")]
    limit = float(arg_value("--sympy-timeout", "60"))
    mcp = mcp_times(rows)
    ratios, agree, notes, timed_out = [], 0, [], []
    per_op = {}
    for r in rows:
        timeout = False
        try:
            res, st = with_limit(limit, sympy_op, r)
        except SympyTimeout:
            res, st, timeout = f"SymPy: timed out after {limit:g} s", float("nan"), True
            timed_out.append((r["op"], r["field"], r["args"], f"SymPy: timed out after {limit:g} s"))
        except Exception as e:  # noqa: BLE001 - report, do not stop
            res, st = f"error: {e}", float("nan")
        ours = r["got"]
        same = None
        try:
            if timeout:
                raise LookupError  # not compared; listed with the timeouts
            signal.setitimer(signal.ITIMER_REAL, limit)  # the comparison gets its own limit
            if r["op"] == "integrate" and "bounds" not in r["args"]:
                # Antiderivatives agree up to a constant (and log|x| against SymPy's log(x)):
                # both must differentiate back to the integrand, checked at two points.
                f = sym_text(r.get("sympy_args", r["args"])["expr"])
                x = sorted(f.free_symbols, key=str)[0]
                ok_sympy = not res.has(sympy.Integral)
                ok_ours = True
                if r["field"] == "antiderivative" and "Σ_{" in ours:
                    ok_ours = all(abs(root_sum_derivative(ours, x, p) - complex(f.subs(x, p).evalf())) < 1e-9
                                  for p in (2.5, 3.7))
                elif r["field"] == "antiderivative":
                    xr = sympy.Symbol(str(x), real=True)
                    mine = sym_text(ours.replace("abs(", "Abs(")).subs(x, xr)
                    d = sympy.diff(mine, xr) - f.subs(x, xr)
                    ok_ours = all(abs(complex(d.subs(xr, p).evalf())) < 1e-9 for p in (2.5, 3.7))
                same = ok_sympy and ok_ours
            elif r["field"] == "numeric" and isinstance(ours, (int, float)):
                # our 12 significant digits against SymPy's exact value (RootSum and all), numerically
                same = abs(complex(sympy.N(res, 20)) - ours) < 1e-9 * max(1.0, abs(ours))
            elif r["field"] == "lowest_power":  # a number against SymPy's whole series
                same = sympy.Poly(sympy.expand(res * sympy.Symbol("x")), sympy.Symbol("x")).degree() >= 0 and \
                    str(ours) == "-1" and res.has(1 / sympy.Symbol("x"))
            elif r["op"] == "simplify" and r["field"] == "factored":
                f = sym_text(r.get("sympy_args", r["args"])["expr"])
                theirs = (res[0], sorted(((sympy.expand(b), k) for b, k in res[1]), key=str))
                mine = factors_of(sym_text(ours)) if ours else (sympy.Integer(1), [(sympy.expand(f), 1)])
                if not ours and len(theirs[1]) == 1 and theirs[1][0][1] == 1:
                    same = True  # both leave it whole (up to the content)
                else:
                    same = [b for b, _ in mine[1]] == [b for b, _ in theirs[1]] and \
                        [k for _, k in mine[1]] == [k for _, k in theirs[1]]
            elif r["field"] == "rank":
                same = int(res) == int(ours)
            elif r["op"] == "verify" and ours == "proved_where_defined" and res == "proved":
                same = True  # SymPy's claim (equal for all complex x) implies ours
            elif r["field"] == "eigenvectors":
                same = True
                for val, _mult, vecs in res:
                    mine = [sympy.Matrix(sym_text(v.split(": ", 1)[1])) for v in ours
                            if sympy.simplify(sym_text(v.split(": ", 1)[0]) - val) == 0]
                    if val.is_real and val.is_rational:
                        same = same and len(mine) == len(vecs) and \
                            sympy.Matrix.hstack(*vecs, *mine).rank() == len(vecs)
            elif r["field"] == "eigenvalues" and isinstance(ours, list) and isinstance(res, list):
                # symbolic eigenvalues: the same multiset, each pair equal by simplify
                left = [sym_text(t) for t in ours]
                same = len(left) == len(res)
                for v in res:
                    k = next((i for i, o in enumerate(left) if sympy.simplify(o - v) == 0), None)
                    same = same and k is not None
                    if k is not None:
                        left.pop(k)
            elif r["field"] == "eigenvalues" and isinstance(ours, list):
                a_vals = sorted(float(sympy.sympify(t)) for t in str(res).split(", ") if t)
                b_vals = sorted(float(sym_text(t)) for t in ours)
                same = len(a_vals) == len(b_vals) and all(abs(p - q) < 1e-9 for p, q in zip(a_vals, b_vals))
            elif isinstance(res, str) and res.startswith("not compared"):
                same = None
            elif isinstance(res, list) and any(v.startswith("≈") for d in ours for v in d.values()):
                # decimals marked ≈: the same solutions numerically, in any order
                num = lambda d: tuple(sorted((k, round(float(sympy.N(sympy.sympify(v) if not str(v).startswith("≈")
                                                                         else v[1:].strip())), 8)) for k, v in d.items()))
                same = sorted(map(num, res)) == sorted(map(num, ours))
            elif isinstance(res, list):  # a non-linear system's solutions
                mine = sorted([{k: str(sym_text(v)) for k, v in d.items()} for d in ours],
                              key=lambda d: sorted(d.items()))
                same = [{k: sympy.simplify(sympy.sympify(v) - sympy.sympify(d2[k])) == 0 for k, v in d1.items()}
                        for d1, d2 in zip(res, mine)] == [{k: True for k in d} for d in res] and len(res) == len(mine)
            elif isinstance(res, dict):  # a system's solution
                same = {k: sympy.simplify(v - sym_text(ours[k])) == 0 for k, v in res.items()} == \
                    {k: True for k in res}
            elif isinstance(res, sympy.MatrixBase):
                same = (res - sympy.Matrix(sym_text(ours))).applyfunc(sympy.simplify).is_zero_matrix
            elif r["op"] == "matrix" and isinstance(res, str) and r["field"] == "result" and "," in res + ours:
                a_vals = sorted(float(sympy.sympify(t)) for t in res.split(", ") if t)
                b_vals = sorted(float(sym_text(t)) for t in ours.split(", ") if t)
                same = len(a_vals) == len(b_vals) and all(abs(p - q) < 1e-9 for p, q in zip(a_vals, b_vals))
            elif r["field"] in ("status", "singular", "free", "lowest_power") or isinstance(res, (str, bool)):
                same = str(res) == str(ours) or json.dumps(ours) == str(res)
            elif r["field"] == "lowest_power":
                same = None
            elif isinstance(res, sympy.Basic) and isinstance(ours, str):
                o = sym_text(ours.split(" + O(")[0])
                same = res == o or sympy.simplify(res - o) == 0
                if not same and not res.free_symbols and not o.free_symbols:
                    same = abs(complex(sympy.N(res - o, 30))) < 1e-20  # equal values written differently
        except SympyTimeout:  # the comparison (SymPy's diff / simplify / N) ran out of time
            same = None
            timed_out.append((r["op"], r["field"], r["args"], f"comparison timed out after {limit:g} s"))
            timeout = True
        except Exception:  # noqa: BLE001
            same = None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        agree += bool(same)
        if same is False:
            notes.append(("differ", r["op"], r["field"], r["args"], ours, res))
        elif same is None and not timeout:
            notes.append(("not compared", r["op"], r["field"], r["args"], ours, str(res)[:60]))
        ratios.append(st / r["rust_seconds"])
        m = mcp[len(ratios) - 1]
        per_op.setdefault(r["op"], []).append((r["rust_seconds"], m, st, r["args"]))
        mtext = f"{m * 1e3:8.2f} ms" if m is not None else "       — ms"
        print(f"{r['op']:9} {json.dumps(r['args'])[:60]:60} {str(ours)[:28]:28} {str(res)[:28]:28} "
              f"{r['rust_seconds'] * 1e6:9.1f} µs {mtext} {st * 1e3:8.2f} ms {st / r['rust_seconds']:7.0f}x")
    print(f"\nagreement: {agree}/{len(rows)} (the rest are listed; each is explained in specs/sym.md)")
    for n in notes:
        print("  ", *n)
    print(f"SymPy timed out (limit {limit:g} s) on {len(timed_out)} case(s), not counted as disagreements:")
    for n in timed_out:
        print("  ", *n)
    print("\nper operation, p50 over its cases (library = worker::handle in-process; tools/call = the "
          "release attest-symbolic binary over stdio; SymPy from text):")
    print(f"{'operation':10} {'cases':>5} {'library':>10} {'tools/call':>11} {'SymPy':>9} "
          f"{'SymPy/lib':>9} {'SymPy/call':>10} {'<50x lib':>8} {'<50x call':>9}")
    allc = []
    for op, cs in per_op.items():
        lib = statistics.median(c[0] for c in cs)
        calls = [c[1] for c in cs if c[1] is not None]
        call_p50 = statistics.median(calls) if calls else float("nan")
        sp = [c[2] for c in cs if c[2] == c[2]]
        sp50 = statistics.median(sp) if sp else float("nan")
        rl = [c[2] / c[0] for c in cs if c[2] == c[2]]
        rc = [c[2] / c[1] for c in cs if c[2] == c[2] and c[1]]
        allc.extend(cs)
        print(f"{op:10} {len(cs):5} {lib * 1e6:8.1f}µs {call_p50 * 1e3:9.3f}ms {sp50 * 1e3:7.2f}ms "
              f"{statistics.median(rl) if rl else float('nan'):8.0f}x {statistics.median(rc) if rc else float('nan'):9.0f}x "
              f"{sum(1 for x in rl if x < 50):8} {sum(1 for x in rc if x < 50):9}")
    rc_all = [c[2] / c[1] for c in allc if c[2] == c[2] and c[1]]
    if rc_all:
        print(f"through tools/call: median {statistics.median(rc_all):.0f}x SymPy, "
              f"{sum(1 for x in rc_all if x < 50)} case(s) under 50x")
    good = [x for x in ratios if x == x] or [float("nan")]
    print(f"speed ratio vs SymPy from text: median {statistics.median(good):.0f}x, min {min(good):.0f}x, "
          f"{sum(1 for x in good if x < 50)} case(s) under 50x")
    return 0


if __name__ == "__main__":
    sys.exit(main_ops() if "--ops" in sys.argv else main())
