//! Taylor (Maclaurin) series to a stated order about a point, and Laurent series at a
//! pole the normal form can clear.
//!
//! The coefficients are exact: the `k`-th derivative (on the normal form) evaluated at
//! the point, over `k!`. Order `n` means the terms up to `(x − a)^(n−1)` and the
//! remainder `O((x − a)^n)`, as SymPy's `series(f, x, a, n)` writes it. When the
//! function is undefined at the point, `(x − a)^m · f` for `m` = 1, 2, 3 is tried
//! (a pole of order `m` cleared by cancelling) and the series is divided back.
//! Every series is confirmed numerically before it is returned: the error at two
//! nearby points must shrink as fast as the remainder order says.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::expr::{Expr, Q};
use crate::limits::Limits;
use crate::nf::{Cx, Nf, derivative, normal_form};

/// The answer of [`series`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SeriesResult {
    /// The expression as read.
    pub input: String,
    /// The variable.
    pub variable: String,
    /// The point expanded about.
    pub point: String,
    /// The order `n`: terms up to `(x − a)^(n−1)`, remainder `O((x − a)^n)`.
    pub order: u32,
    /// The series with its remainder, e.g. `x - x^3/6 + x^5/120 + O(x^6)`.
    pub series: String,
    /// The polynomial (or Laurent) part alone.
    pub polynomial: String,
    /// The remainder, e.g. `O(x^6)`.
    pub remainder: String,
    /// The coefficients of `(x − a)^k`, from the lowest power.
    pub coefficients: Vec<String>,
    /// The lowest power: negative for a Laurent series at a pole.
    pub lowest_power: i32,
    /// The numeric cross-check.
    pub check: String,
}

/// The Taylor series of `text` in `var` about `about` (default 0) to order `order`.
pub fn series(text: &str, var: Option<&str>, about: Option<&str>, order: u32, limits: &Limits) -> Result<SeriesResult> {
    let e = crate::parse_expr(text, limits)?;
    let e = crate::verify::lower(&e, limits)?;
    let v = crate::ops::resolve_var(&e, var)?;
    if order == 0 || order > limits.max_order {
        return Err(SymError::limit(format!("series order {order} is outside 1 to {}", limits.max_order)));
    }
    let about = about.map(str::trim).filter(|a| !a.is_empty()).unwrap_or("0");
    let a = crate::parse_expr(about, limits)?;
    if !a.free_symbols().is_empty() {
        return Err(SymError::input(format!("the point {about} must be a number, not an expression in variables")));
    }
    let av =
        eval_f64(&a, &FloatEnv::new()).ok_or_else(|| SymError::input(format!("the point {about} is undefined")))?;
    let mut cx = Cx::new(*limits);
    let a = normal_form(&a, &mut cx)?.to_expr();
    let f = normal_form(&e, &mut cx)?;
    let t = if is_zero(&a) { Expr::sym(&v) } else { Expr::sub(Expr::sym(&v), a.clone()) };
    // A quotient of polynomials in x with rational coefficients about a rational point:
    // power-series division, exact and without derivatives (whose normal forms grow).
    if let Some((cs, lowest)) = rational_series(&f, &v, &a, order) {
        let coeffs: Vec<Expr> = cs.into_iter().map(Expr::Num).collect();
        return finish(&e, &v, &a, av, order, coeffs, lowest, &mut cx);
    }
    // A rational derivative (atan, log(1 + x), …): f(a) + the term-by-term integral of
    // the derivative's series.
    if order > 1
        && let Some(f0) = value_at(&f, &v, &a, limits)
        && let Ok(d) = derivative(&f, &v, &mut cx)
        && let Some((ds, 0)) = rational_series(&d, &v, &a, order - 1)
    {
        let mut coeffs = vec![f0];
        coeffs.extend(ds.into_iter().enumerate().map(|(k, c)| Expr::Num(&c / &Q::int(k as i64 + 1))));
        return finish(&e, &v, &a, av, order, coeffs, 0, &mut cx);
    }
    // A pole of order m: (x − a)^m f is defined at a.
    let mut pole = 0u32;
    let mut g = f.clone();
    while value_at(&g, &v, &a, limits).is_none() {
        pole += 1;
        if pole > 3 {
            return Err(SymError::unsupported(format!(
                "{e} is undefined at {v} = {a} and is not a pole of order ≤ 3 that cancelling clears; no Taylor or Laurent series here"
            )));
        }
        g = normal_form(&Expr::mul(Expr::pow(t.clone(), Expr::int(i64::from(pole))), e.clone()), &mut cx)?;
    }
    // g's Taylor coefficients up to (x−a)^(order−1+pole).
    let n_terms = order + pole;
    let mut coeffs: Vec<Expr> = Vec::new();
    let mut d = g.clone();
    let mut fact = Q::int(1);
    for k in 0..n_terms {
        if k > 0 {
            d = derivative(&d, &v, &mut cx)?;
            fact = &fact * &Q::int(i64::from(k));
        }
        let c = value_at(&d, &v, &a, limits).ok_or_else(|| {
            SymError::unsupported(format!("the derivative of order {k} of {e} is undefined at {v} = {a}"))
        })?;
        let c = normal_form(&Expr::mul(c, Expr::Num(fact.recip())), &mut cx)?.to_expr();
        coeffs.push(c);
    }
    let lowest = -(pole as i32);
    finish(&e, &v, &a, av, order, coeffs, lowest, &mut cx)
}

/// Print, check and wrap the series with coefficients of `(x − a)^(lowest + k)`.
#[allow(clippy::too_many_arguments)]
fn finish(
    e: &Expr,
    v: &str,
    a: &Expr,
    av: f64,
    order: u32,
    coeffs: Vec<Expr>,
    lowest: i32,
    cx: &mut Cx,
) -> Result<SeriesResult> {
    let (e, v, a) = (e.clone(), v.to_string(), a.clone());
    let cx = &mut *cx;
    let t = if is_zero(&a) { Expr::sym(&v) } else { Expr::sub(Expr::sym(&v), a.clone()) };
    let coeffs: Vec<Expr> = coeffs.into_iter().take((i64::from(order) - i64::from(lowest)).max(0) as usize).collect();
    let mut terms = Vec::new();
    for (k, c) in coeffs.iter().enumerate() {
        if is_zero(c) {
            continue;
        }
        let p = k as i32 + lowest;
        terms.push(Expr::mul(c.clone(), Expr::pow(t.clone(), Expr::int(i64::from(p)))));
    }
    let poly = if terms.is_empty() { Expr::int(0) } else { Expr::Add(terms) };
    // About a ≠ 0 the terms are written in powers of (x − a), not expanded.
    let tt = if is_zero(&a) { v.clone() } else { format!("({})", Expr::sub(Expr::sym(&v), a.clone())) };
    let mut shown: Vec<String> = Vec::new();
    for (k, c) in coeffs.iter().enumerate() {
        if is_zero(c) {
            continue;
        }
        let p = k as i32 + lowest;
        let term = if is_zero(&a) || p == 0 {
            normal_form(&Expr::mul(c.clone(), Expr::pow(t.clone(), Expr::int(i64::from(p)))), cx)?.to_expr().to_string()
        } else {
            let pw = if p == 1 { tt.clone() } else { format!("{tt}^{p}") };
            // c = r·body with r rational: "r_num*body*(x - a)^p/r_den".
            let (r, body) = match c {
                Expr::Num(n) => (n.clone(), None),
                Expr::Mul(v) if matches!(v.first(), Some(Expr::Num(_))) => {
                    let Some(Expr::Num(n)) = v.first() else { unreachable!("checked") };
                    let rest = if v.len() == 2 { v[1].clone() } else { Expr::Mul(v[1..].to_vec()) };
                    (n.clone(), Some(rest))
                }
                c => (Q::int(1), Some(c.clone())),
            };
            let (num, den) = (Q::from_integer(r.numer()), Q::from_integer(r.denom()));
            let mut head = match &body {
                Some(b) if b.is_atomic() => format!("{b}*{pw}"),
                Some(b) => format!("({b})*{pw}"),
                None => pw,
            };
            if num == Q::int(-1) {
                head = format!("-{head}");
            } else if num != Q::int(1) {
                head = format!("{}*{head}", Expr::Num(num));
            }
            if den == Q::int(1) { head } else { format!("{head}/{}", Expr::Num(den)) }
        };
        shown.push(term);
    }
    if shown.is_empty() {
        shown.push("0".into());
    }
    let mut polynomial = String::new();
    for (i, s) in shown.iter().enumerate() {
        if i == 0 {
            polynomial.push_str(s);
        } else if let Some(rest) = s.strip_prefix('-') {
            polynomial.push_str(&format!(" - {rest}"));
        } else {
            polynomial.push_str(&format!(" + {s}"));
        }
    }
    let remainder = format!("O({tt}^{order})");
    let check = confirm(&e, &poly, &v, av, order).map_err(|why| {
        SymError::unsupported(format!("the series of {e} was computed but a numeric check did not confirm it ({why})"))
    })?;
    let series = if polynomial == "0" { remainder.clone() } else { format!("{polynomial} + {remainder}") };
    Ok(SeriesResult {
        input: e.to_string(),
        variable: v,
        point: a.to_string(),
        order,
        series,
        polynomial,
        remainder,
        coefficients: coeffs.iter().map(Expr::to_string).collect(),
        lowest_power: lowest,
        check,
    })
}

/// The Laurent/Taylor coefficients of a rational function in `v` (rational
/// coefficients) about a rational point, by power-series division: the coefficients
/// from `(x − a)^lowest` up to `(x − a)^(order − 1)`.
fn rational_series(f: &Nf, v: &str, a: &Expr, order: u32) -> Option<(Vec<Q>, i32)> {
    let a = a.as_num()?.clone();
    let x = crate::nf::Atom::Sym(v.into());
    let coeffs = |p: &crate::poly::Poly| -> Option<Vec<Q>> {
        if p.atoms().iter().any(|t| *t != x) {
            return None;
        }
        let m = p.coeffs_in(&x);
        let deg = m.keys().max().copied().unwrap_or(0) as usize;
        let mut out = vec![Q::int(0); deg + 1];
        for (k, c) in m {
            out[k as usize] = c.as_const()?;
        }
        Some(out)
    };
    let (p, q) = (coeffs(&f.num)?, coeffs(&f.den)?);
    if q.len() == 1 && p.len() <= 2 {
        return None; // a constant or linear: the derivative route prints it as well
    }
    // Shift to t = x − a.
    let shift = |c: &[Q]| -> Vec<Q> {
        let mut out = c.to_vec();
        let n = out.len();
        for i in 0..n {
            for j in (i..n - 1).rev() {
                let t = &out[j + 1] * &a;
                out[j] = &out[j] + &t;
            }
        }
        out
    };
    let (p, q) = (shift(&p), shift(&q));
    let m = q.iter().position(|c| *c != Q::int(0))?;
    let q = &q[m..];
    let lowest = -(m as i32);
    let n = (i64::from(order) - i64::from(lowest)).max(0) as usize;
    let mut c: Vec<Q> = Vec::with_capacity(n);
    for k in 0..n {
        let mut acc = p.get(k).cloned().unwrap_or(Q::int(0));
        for j in 1..=k.min(q.len() - 1) {
            acc = &acc - &(&q[j] * &c[k - j]);
        }
        let ck = &acc / &q[0];
        if ck.bits() > 3400 {
            return None;
        }
        c.push(ck);
    }
    Some((c, lowest))
}

fn is_zero(e: &Expr) -> bool {
    matches!(e, Expr::Num(n) if n == &Q::int(0))
}

/// The exact value of `f` at `v = a`, when defined.
fn value_at(f: &Nf, v: &str, a: &Expr, limits: &Limits) -> Option<Expr> {
    let s = f.to_expr().substitute(&|n| (n == v).then(|| a.clone()));
    eval_f64(&s, &FloatEnv::new())?;
    let n = normal_form(&s, &mut Cx::new(*limits)).ok()?;
    n.free_symbols().is_empty().then(|| n.to_expr())
}

/// The error at `a + h` against at `a + h/2` must fall by about `2^order` (or be at
/// rounding level), for one of a few step sizes.
fn confirm(f: &Expr, p: &Expr, v: &str, a: f64, order: u32) -> std::result::Result<String, String> {
    let at = |e: &Expr, x: f64| crate::eval::eval_f64_with(e, &|s: &str| (s == v).then_some(x));
    for h in [0.1, 0.02, 0.004] {
        let (Some(f1), Some(p1), Some(f2), Some(p2)) =
            (at(f, a + h), at(p, a + h), at(f, a + h / 2.0), at(p, a + h / 2.0))
        else {
            continue;
        };
        let (e1, e2) = ((f1 - p1).abs(), (f2 - p2).abs());
        let floor = 1e-11 * f2.abs().max(1.0);
        if e2 <= floor {
            return Ok(format!("at {v} = {} the series matches to {e2:.1e}", a + h / 2.0));
        }
        let want = 2f64.powi(order as i32) * 0.45;
        if e1 / e2 >= want {
            return Ok(format!(
                "halving the step from {h} shrinks the error by {:.1} (≥ 2^{order}·0.45 expected of O(h^{order}))",
                e1 / e2
            ));
        }
    }
    Err("the error did not shrink as the remainder order says".into())
}

/// Read "taylor"-style notation is left to the router; this only checks the order.
#[cfg(test)]
mod tests {
    use super::*;

    fn s(e: &str, about: Option<&str>, n: u32) -> String {
        series(e, None, about, n, &Limits::default()).unwrap().series
    }

    #[test]
    fn maclaurin_and_taylor() {
        assert_eq!(s("sin(x)", None, 6), "x - x^3/6 + x^5/120 + O(x^6)");
        assert_eq!(s("exp(x)", None, 4), "1 + x + x^2/2 + x^3/6 + O(x^4)");
        assert_eq!(s("1/(1-x)", None, 3), "1 + x + x^2 + O(x^3)");
        assert_eq!(s("log(1+x)", None, 4), "x - x^2/2 + x^3/3 + O(x^4)");
        let r = series("exp(x)/x", None, None, 3, &Limits::default()).unwrap();
        assert_eq!(r.lowest_power, -1);
        assert!(r.series.starts_with("1/x + 1 + x/2"), "{}", r.series);
        assert_eq!(s("log(x)", Some("1"), 4), "(x - 1) - (x - 1)^2/2 + (x - 1)^3/3 + O((x - 1)^4)");
        assert!(series("log(x)", None, None, 3, &Limits::default()).is_err());
    }
}
