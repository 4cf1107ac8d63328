//! Print the identity table as JSON lines for `scripts/sympy_compare.py`: each case in
//! SymPy syntax, attest-sym's verdict and its median time per call (release build).
//!
//! `cargo run --release -p attest-sym --example sympy_table`

use std::time::Instant;

use attest_sym::{Expr, Func, Limits, parse_expr, verify};

#[derive(serde::Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    lhs: String,
    rhs: String,
}

fn sympy(e: &Expr) -> String {
    match e {
        Expr::Num(q) if q.is_integer() => format!("Integer({q})"),
        Expr::Num(q) => format!("Rational({}, {})", q.numer(), q.denom()),
        Expr::Sym(s) => format!("Symbol('{s}', real=True)"),
        Expr::Pi => "pi".into(),
        Expr::E => "E".into(),
        Expr::Add(v) => format!("({})", v.iter().map(sympy).collect::<Vec<_>>().join(" + ")),
        Expr::Mul(v) => format!("({})", v.iter().map(sympy).collect::<Vec<_>>().join(" * ")),
        Expr::Pow(b, x) => format!("(({})**({}))", sympy(b), sympy(x)),
        Expr::Func(f, a) => {
            let name = match f {
                Func::Abs => "Abs",
                other => other.name(),
            };
            format!("{name}({})", sympy(a))
        }
        Expr::Deriv(a, v, n) => format!("diff({}, Symbol('{v}', real=True), {n})", sympy(a)),
    }
}

fn main() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/identities.toml")).unwrap();
    let table: Table = toml::from_str(&text).unwrap();
    let l = Limits::default();
    for c in table.case {
        let (lhs, rhs) = (parse_expr(&c.lhs, &l).unwrap(), parse_expr(&c.rhs, &l).unwrap());
        let verdict = verify(&c.lhs, &c.rhs, &l)
            .map(|v| v.verdict.as_str().to_string())
            .unwrap_or_else(|e| format!("error: {e}"));
        let mut times: Vec<f64> = (0..201)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(verify(&c.lhs, &c.rhs, &l).ok());
                t.elapsed().as_secs_f64()
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let line = serde_json::json!({
            "claim": format!("{} = {}", c.lhs, c.rhs),
            "lhs": sympy(&lhs),
            "rhs": sympy(&rhs),
            "verdict": verdict,
            "rust_seconds": times[times.len() / 2],
        });
        println!("{line}");
    }
}
