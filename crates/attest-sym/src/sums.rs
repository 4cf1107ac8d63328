//! Sums `Σ_{k=a}^{b} f(k)`: finite ones in closed form or exactly term by term, and
//! infinite series' values or convergence.
//!
//! * A polynomial summand has a polynomial closed form of one degree more (Faulhaber):
//!   it is found by exact interpolation through the partial sums, then checked at more
//!   upper bounds than it was fitted to.
//! * A geometric summand (`f(k+1)/f(k)` a constant `r`, shown by the normal form) sums to
//!   `f(a)·(r^(b−a+1) − 1)/(r − 1)`, and for `|r| < 1` to `f(a)/(1 − r)` at infinity.
//! * The classic series: `Σ 1/k^2 = π²/6`, `Σ 1/k^4 = π⁴/90`, `Σ 1/k^6 = π⁶/945`, the
//!   alternating harmonic series `= log 2`, Leibniz's `Σ (−1)^k/(2k+1) = π/4`,
//!   `Σ 1/(k(k+1)) = 1`, matched by the normal form and shifted to the lower bound.
//! * Otherwise at infinity: the term test (a limit that is not 0 ⇒ diverges), the
//!   comparison with `Σ 1/k^p` for rational summands, Leibniz's test for
//!   `(−1)^k·g(k)`, and the ratio test; `unknown` when none decides.
//!
//! A finite sum of at most 1,000 terms without a closed form is added up exactly; a
//! longer one without a closed form is refused, never looped. Every value is checked
//! numerically: a closed form against direct sums at small upper bounds, a series'
//! value against partial sums.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::expr::{Expr, Q};
use crate::limit::{LimitStatus, limit};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, normal_form};
use num_traits::{One, Signed, ToPrimitive, Zero};

/// What a sum came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SumStatus {
    /// A value or closed form, checked.
    Value,
    /// The series converges; its value is not known here.
    Converges,
    /// The series diverges.
    Diverges,
    /// Not decided.
    Unknown,
}

/// The answer of [`sum`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SumResult {
    /// The summand as read.
    pub summand: String,
    /// The index variable.
    pub variable: String,
    /// The lower bound.
    pub lower: String,
    /// The upper bound (`oo` for a series).
    pub upper: String,
    /// What the sum came to.
    pub status: SumStatus,
    /// The value or closed form, when found.
    pub value: Option<String>,
    /// Its decimal value, when it is a constant.
    pub numeric: Option<f64>,
    /// How it was found or decided.
    pub method: String,
    /// The numeric cross-check.
    pub check: String,
    /// Why the status is what it is.
    pub reason: String,
}

/// The most terms added one by one.
pub const MAX_TERMS: i64 = 1_000;

/// `Σ_{var=lower}^{upper} text`; `upper` may be `oo`.
pub fn sum(text: &str, var: Option<&str>, lower: &str, upper: &str, limits: &Limits) -> Result<SumResult> {
    let f = crate::parse_expr(text, limits)?;
    let f = crate::verify::lower(&f, limits)?;
    let up_low = upper.trim().replace(' ', "").to_lowercase();
    let infinite = matches!(up_low.as_str(), "oo" | "+oo" | "∞" | "inf" | "infinity" | "\\infty");
    if up_low.starts_with('-') && up_low.ends_with(['o', '∞', 'y']) {
        return Err(SymError::input("the upper bound of a sum may be a number, an expression in n, or oo"));
    }
    let upper_e = if infinite { None } else { Some(crate::parse_expr(upper, limits)?) };
    let up_syms = upper_e.as_ref().map(Expr::free_symbols).unwrap_or_default();
    let free = f.free_symbols();
    let k = match var.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) => v.to_string(),
        None => {
            let cands: Vec<&String> = free.iter().filter(|s| !up_syms.contains(*s)).collect();
            match cands.as_slice() {
                [one] => (*one).clone(),
                [] => "k".into(),
                many => ["k", "i", "j", "n", "m"]
                    .iter()
                    .find(|p| many.iter().any(|c| c == *p))
                    .map(|p| p.to_string())
                    .ok_or_else(|| SymError::input(format!("which index? {f} has several variables: pass var")))?,
            }
        }
    };
    if free.iter().any(|s| *s != k) {
        return Err(SymError::unsupported(format!(
            "the summand may use only the index {k}; {f} also has {}",
            free.iter().filter(|s| **s != k).cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    if up_syms.contains(&k) {
        return Err(SymError::input(format!("the upper bound {upper} cannot use the index {k}")));
    }
    let a =
        integer(lower, limits).ok_or_else(|| SymError::input(format!("the lower bound {lower} must be an integer")))?;
    let mut out = SumResult {
        summand: f.to_string(),
        variable: k.clone(),
        lower: a.to_string(),
        upper: upper_e.as_ref().map(|u| u.to_string()).unwrap_or_else(|| "oo".into()),
        status: SumStatus::Unknown,
        value: None,
        numeric: None,
        method: String::new(),
        check: String::new(),
        reason: String::new(),
    };
    let s = Summand { f: alternating(&f, &k), k: k.clone(), limits };
    if infinite {
        s.series(&a, &mut out)?;
        return Ok(out);
    }
    let u = upper_e.expect("finite");
    let b = if up_syms.is_empty() {
        Some(
            integer(upper, limits)
                .ok_or_else(|| SymError::input(format!("the upper bound {upper} must be an integer")))?,
        )
    } else {
        None
    };
    // A closed form first.
    if let Some((closed, method)) = s.closed_form(&a)? {
        let value = closed(&u)?;
        s.check_closed(&a, &closed)?;
        out.method = method.into();
        out.check = "the closed form equals the sum added term by term at 8 upper bounds".into();
        out.status = SumStatus::Value;
        out.numeric = if up_syms.is_empty() { eval_f64(&value, &FloatEnv::new()) } else { None };
        out.value = Some(value.to_string());
        return Ok(out);
    }
    let Some(b) = b else {
        out.reason = format!("no closed form here for a sum of {f} (polynomial and geometric summands have one)");
        return Ok(out);
    };
    let count = &(&b - &a) + &Q::one();
    if count > Q::int(MAX_TERMS) {
        return Err(SymError::limit(format!(
            "the sum has {count} terms, over the limit of {MAX_TERMS} added one by one, and {f} has no closed form here (polynomial and geometric summands have one); it was not attempted"
        )));
    }
    let n = count.to_i64().unwrap_or(0).max(0);
    let mut cx = Cx::new(*limits);
    let mut total = Nf::zero();
    let mut approx = 0.0;
    for i in 0..n {
        let t = s.at(&(&a + &Q::int(i)));
        approx +=
            eval_f64(&t, &FloatEnv::new()).ok_or_else(|| SymError::input(format!("the term {t} is undefined")))?;
        total = total.add(&normal_form(&t, &mut cx)?, &mut cx)?;
        // The exact sum's size: refuse rather than carry thousands of digits.
        let bits: u64 = total.num.0.values().chain(total.den.0.values()).map(Q::bits).sum();
        if bits > limits.max_digits as u64 * 10 / 3 {
            return Err(SymError::limit(format!(
                "the exact sum grew past {} digits after {} terms, over the limit; it was not finished",
                limits.max_digits,
                i + 1
            )));
        }
    }
    let value = total.to_expr();
    let exact = eval_f64(&value, &FloatEnv::new());
    if exact.is_none_or(|v| (v - approx).abs() > 1e-9 * approx.abs().max(1.0)) {
        return Err(SymError::unsupported(format!("the exact sum {value} does not match its decimal sum {approx}")));
    }
    out.status = SumStatus::Value;
    out.method = format!("added term by term ({n} terms)");
    out.check = format!("the decimal sum of the terms is {}", attest_core::text::fmt_sig(approx, 12));
    out.numeric = exact;
    out.value = Some(value.to_string());
    Ok(out)
}

fn integer(text: &str, limits: &Limits) -> Option<Q> {
    let e = crate::parse_expr(text, limits).ok()?;
    let n = normal_form(&e, &mut Cx::new(*limits)).ok()?.as_const()?;
    n.is_integer().then_some(n)
}

type Closed<'a> = Box<dyn Fn(&Expr) -> Result<Expr> + 'a>;

struct Summand<'a> {
    f: Expr,
    k: String,
    limits: &'a Limits,
}

impl<'a> Summand<'a> {
    /// The term at an integer, with the index replaced by the number.
    fn at(&self, i: &Q) -> Expr {
        self.f.substitute(&|s| (s == self.k).then(|| Expr::Num(i.clone())))
    }

    fn exact_at(&self, i: &Q) -> Result<Nf> {
        normal_form(&self.at(i), &mut Cx::new(*self.limits))
    }

    fn nf(&self) -> Result<Nf> {
        normal_form(&self.f, &mut Cx::new(*self.limits))
    }

    /// The coefficients of a polynomial in the index with rational coefficients.
    fn polynomial(&self) -> Option<Vec<Q>> {
        let n = self.nf().ok()?;
        let x = Atom::Sym(self.k.as_str().into());
        if !n.den.as_const().is_some_and(|d| d.is_one()) || n.num.atoms().iter().any(|a| *a != x) {
            return None;
        }
        let m = n.num.coeffs_in(&x);
        let deg = m.keys().max().copied().unwrap_or(0) as usize;
        let mut v = vec![Q::zero(); deg + 1];
        for (e, c) in m {
            v[e as usize] = c.as_const()?;
        }
        Some(v)
    }

    /// `r` with `f(k+1) = r·f(k)` for all `k`, shown by the normal form.
    fn ratio(&self) -> Option<Nf> {
        let kk = Expr::add(Expr::sym(&self.k), Expr::int(1));
        let f = powexp(&self.f);
        let next = f.substitute(&|s| (s == self.k).then(|| kk.clone()));
        let mut cx = Cx::new(*self.limits);
        let q = normal_form(&Expr::div(next, f), &mut cx).ok()?;
        (q.free_symbols().is_empty() && !q.is_zero()).then_some(q)
    }

    /// A closed form of `Σ_{k=a}^{N} f(k)` as a function of the upper bound `N`.
    fn closed_form(&self, a: &Q) -> Result<Option<(Closed<'a>, &'static str)>> {
        let limits = self.limits;
        if let Some(p) = self.polynomial() {
            let d = p.len() - 1;
            if d > 30 {
                return Ok(None);
            }
            // Partial sums S(a−1) = 0, S(a), …, S(a+d): d + 2 points for degree d + 1.
            let mut xs = Vec::new();
            let mut ys = Vec::new();
            let mut acc = Q::zero();
            xs.push(a - &Q::one());
            ys.push(Q::zero());
            for i in 0..=d {
                let x = a + &Q::int(i as i64);
                let mut v = Q::zero();
                let mut pw = Q::one();
                for c in &p {
                    v = &v + &(c * &pw);
                    pw = &pw * &x;
                }
                acc = &acc + &v;
                xs.push(x);
                ys.push(acc.clone());
            }
            let coeffs = interpolate(&xs, &ys);
            let closed = move |n: &Expr| -> Result<Expr> {
                let terms: Vec<Expr> = coeffs
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| !c.is_zero())
                    .map(|(i, c)| Expr::mul(Expr::Num(c.clone()), Expr::pow(n.clone(), Expr::int(i as i64))))
                    .collect();
                let e = if terms.is_empty() { Expr::int(0) } else { Expr::Add(terms) };
                Ok(normal_form(&e, &mut Cx::new(*limits))?.to_expr())
            };
            return Ok(Some((Box::new(closed), "closed form of a polynomial sum (Faulhaber), by exact interpolation")));
        }
        if let Some(r) = self.ratio() {
            let first = self.exact_at(a)?.to_expr();
            let r = r.to_expr();
            let a = a.clone();
            let closed = move |n: &Expr| -> Result<Expr> {
                let count = Expr::add(Expr::sub(n.clone(), Expr::Num(a.clone())), Expr::int(1));
                let e = Expr::mul(
                    first.clone(),
                    Expr::div(Expr::sub(Expr::pow(r.clone(), count), Expr::int(1)), Expr::sub(r.clone(), Expr::int(1))),
                );
                Ok(normal_form(&e, &mut Cx::new(*limits))?.to_expr())
            };
            return Ok(Some((Box::new(closed), "geometric sum: first term × (r^count − 1)/(r − 1)")));
        }
        Ok(None)
    }

    /// The closed form against direct sums at upper bounds a … a+7.
    fn check_closed(&self, a: &Q, closed: &Closed<'_>) -> Result<()> {
        let mut cx = Cx::new(*self.limits);
        let mut acc = Nf::zero();
        for i in 0..8 {
            let n = a + &Q::int(i);
            acc = acc.add(&self.exact_at(&n)?, &mut cx)?;
            let c = normal_form(&closed(&Expr::Num(n.clone()))?, &mut cx)?;
            let d = c.sub(&acc, &mut cx)?;
            if !d.is_zero() {
                let (x, y) = (eval_f64(&c.to_expr(), &FloatEnv::new()), eval_f64(&acc.to_expr(), &FloatEnv::new()));
                let close = matches!((x, y), (Some(x), Some(y)) if (x - y).abs() <= 1e-9 * y.abs().max(1.0));
                if !close {
                    return Err(SymError::unsupported(format!(
                        "the closed form found does not match the sum at upper bound {n}; no answer is given"
                    )));
                }
            }
        }
        Ok(())
    }

    /// The value or convergence of `Σ_{k=a}^{∞} f(k)`.
    fn series(&self, a: &Q, out: &mut SumResult) -> Result<()> {
        let limits = self.limits;
        // Every term must exist: the first 2,000 numerically, and for a rational summand
        // no integer root of the denominator at or past the lower bound.
        let prog = crate::eval::FloatProgram::new(&self.f, std::slice::from_ref(&self.k));
        let mut stack = Vec::new();
        let a0 = a.to_i64().ok_or_else(|| SymError::input("the lower bound is too large"))?;
        let mut last = f64::INFINITY;
        for i in a0..a0 + 2000 {
            match prog.eval(&[i as f64], &mut stack) {
                Some(t) => last = t,
                // Past the floating-point range (a geometric tail or growth): not a pole.
                None if last.abs() < 1e-100 || last.abs() > 1e300 => break,
                None => {
                    return Err(SymError::input(format!(
                        "the term at {} = {i} is undefined, so the series is not defined",
                        self.k
                    )));
                }
            }
        }
        if let Ok(n) = self.nf() {
            let x = Atom::Sym(self.k.as_str().into());
            if n.den.atoms().iter().all(|t| *t == x) && n.den.atoms().len() == 1 {
                let dc = n.den.coeffs_in(&x);
                let deg = dc.keys().max().copied().unwrap_or(0) as usize;
                let mut d = vec![Q::zero(); deg + 1];
                let mut all_const = true;
                for (e, p) in dc {
                    match p.as_const() {
                        Some(c) => d[e as usize] = c,
                        None => all_const = false,
                    }
                }
                if all_const
                    && let Some(r) = crate::integrate::rational_roots(&d).into_iter().find(|r| r.is_integer() && r >= a)
                {
                    return Err(SymError::input(format!(
                        "the term at {} = {r} is undefined (the denominator vanishes), so the series is not defined",
                        self.k
                    )));
                }
            }
        }
        // Geometric.
        if let Some(r) = self.ratio() {
            let rv = eval_f64(&r.to_expr(), &FloatEnv::new()).unwrap_or(f64::NAN);
            if rv.abs() < 1.0 {
                let first = self.exact_at(a)?;
                let mut cx = Cx::new(*limits);
                let value = first.div(&Nf::one().sub(&r, &mut cx)?, &mut cx)?.to_expr();
                return self.value(
                    out,
                    value,
                    format!("geometric series with ratio {} (|r| < 1): first term/(1 − r)", r.to_expr()),
                    a,
                );
            }
            out.status = SumStatus::Diverges;
            out.method = format!("geometric series with ratio {} (|r| ≥ 1): the terms do not tend to 0", r.to_expr());
            return Ok(());
        }
        // The classic series.
        let p = |e: &str| {
            let t = crate::parse_expr(e, limits).expect("a table entry parses");
            let kk = Expr::sym(&self.k);
            alternating(&t.substitute(&|s| (s == "k").then(|| kk.clone())), &self.k)
        };
        let table: [(&str, i64, Expr, &str); 6] = [
            ("1/k^2", 1, Expr::div(Expr::pow(Expr::Pi, Expr::int(2)), Expr::int(6)), "Σ 1/k² = π²/6 (Basel problem)"),
            ("1/k^4", 1, Expr::div(Expr::pow(Expr::Pi, Expr::int(4)), Expr::int(90)), "Σ 1/k⁴ = π⁴/90"),
            ("1/k^6", 1, Expr::div(Expr::pow(Expr::Pi, Expr::int(6)), Expr::int(945)), "Σ 1/k⁶ = π⁶/945"),
            (
                "(-1)^(k+1)/k",
                1,
                Expr::func(crate::expr::Func::Log, Expr::int(2)),
                "alternating harmonic series = log 2",
            ),
            ("(-1)^k/(2k+1)", 0, Expr::div(Expr::Pi, Expr::int(4)), "Leibniz series Σ (−1)^k/(2k+1) = π/4"),
            ("1/(k(k+1))", 1, Expr::int(1), "telescoping: 1/(k(k+1)) = 1/k − 1/(k+1)"),
        ];
        for (text, start, value, name) in table {
            for sign in [1, -1] {
                let g = Expr::mul(Expr::int(sign), p(text));
                if self.same_as(&g) {
                    let mut cx = Cx::new(*limits);
                    let mut v = normal_form(&Expr::mul(Expr::int(sign), value.clone()), &mut cx)?;
                    let start = Q::int(start);
                    // Shift to the lower bound: drop or add the terms between.
                    let mut i = start.clone();
                    while &i < a {
                        v = v.sub(&self.exact_at(&i)?, &mut cx)?;
                        i = &i + &Q::one();
                        if &i - &start > Q::int(MAX_TERMS) {
                            return Err(SymError::limit("the lower bound is too far from the table's start"));
                        }
                    }
                    let mut i = a.clone();
                    while i < start {
                        v = v.add(&self.exact_at(&i)?, &mut cx)?;
                        i = &i + &Q::one();
                    }
                    return self.value(out, v.to_expr(), format!("known series: {name}"), a);
                }
            }
        }
        // Convergence tests.
        let lim = limit(&self.f.to_string(), Some(&self.k), "oo", None, limits);
        if let Ok(l) = &lim {
            let nonzero = match l.status {
                LimitStatus::Infinite => true,
                LimitStatus::Finite => l.numeric.is_some_and(|v| v != 0.0),
                _ => false,
            };
            if nonzero {
                out.status = SumStatus::Diverges;
                out.method = format!("term test: the terms tend to {}, not 0", l.value.clone().unwrap_or_default());
                out.check = l.check.clone();
                return Ok(());
            }
        }
        let n = self.nf()?;
        let x = Atom::Sym(self.k.as_str().into());
        let only_k = |nf: &Nf| nf.num.atoms().iter().chain(nf.den.atoms().iter()).all(|t| *t == x);
        if only_k(&n) {
            let gap = n.den.degree_in(&x) as i64 - n.num.degree_in(&x) as i64;
            if gap >= 2 {
                out.status = SumStatus::Converges;
                out.method = format!(
                    "comparison with Σ 1/k^{gap}: a rational summand whose denominator's degree exceeds the numerator's by {gap} ≥ 2"
                );
                out.reason = "no closed form for its value here".into();
                return Ok(());
            }
            if gap == 1 {
                out.status = SumStatus::Diverges;
                out.method = "limit comparison with the harmonic series Σ 1/k: the degrees differ by 1".into();
                return Ok(());
            }
        }
        // |bounded · g| ≤ |g| with Σ |g| convergent (g rational with gap ≥ 2, or
        // c·k^q with q < −1): absolute convergence by comparison.
        if let Expr::Mul(v) = &self.f {
            let (b, rest): (Vec<&Expr>, Vec<&Expr>) = v.iter().partition(|t| crate::limit::is_bounded(t));
            if !b.is_empty() && !rest.is_empty() {
                let g = Expr::Mul(rest.into_iter().cloned().collect());
                if let Ok(gn) = normal_form(&g, &mut Cx::new(*limits)) {
                    let gap = gn.den.degree_in(&x) as i64 - gn.num.degree_in(&x) as i64;
                    let p_ok = power_of_k(&gn.to_expr(), &self.k).is_some_and(|q| q < -Q::one());
                    if (only_k(&gn) && gap >= 2) || p_ok {
                        out.status = SumStatus::Converges;
                        out.method = format!(
                            "absolute comparison: |{}| ≤ 1 and Σ |{}| converges",
                            b.iter().map(|t| t.to_string()).collect::<Vec<_>>().join("·"),
                            gn.to_expr()
                        );
                        out.reason = "no closed form for its value here".into();
                        return Ok(());
                    }
                }
            }
        }
        // (−1)^k · g(k), g rational in k with g → 0.
        for sh in [0, 1] {
            let sign =
                Expr::func(crate::expr::Func::Cos, Expr::mul(Expr::Pi, Expr::add(Expr::sym(&self.k), Expr::int(sh))));
            let g = Expr::div(self.f.clone(), sign);
            let Ok(gn) = normal_form(&g, &mut Cx::new(*limits)) else { continue };
            let decreasing = (only_k(&gn) && gn.den.degree_in(&x) > gn.num.degree_in(&x))
                || power_of_k(&gn.to_expr(), &self.k).is_some_and(|q| q < Q::zero())
                || power_of_k(&g, &self.k).is_some_and(|q| q < Q::zero());
            if decreasing {
                out.status = SumStatus::Converges;
                out.method =
                    format!("alternating series test (Leibniz): (−1)^k times {} which decreases to 0", gn.to_expr());
                out.reason = "no closed form for its value here".into();
                return Ok(());
            }
        }
        // Dirichlet's test: sin or cos of a·k + b (a rational and non-zero, or r·π with
        // r not an even integer: never a multiple of 2π, so the partial sums of the
        // trigonometric factor stay bounded) times g(k) decreasing to 0.
        if let Expr::Mul(v) = &self.f {
            let (trig, rest): (Vec<&Expr>, Vec<&Expr>) =
                v.iter().partition(|t| matches!(t, Expr::Func(crate::expr::Func::Sin | crate::expr::Func::Cos, _)));
            if let ([Expr::Func(_, arg)], false) = (&trig[..], rest.is_empty())
                && self.rotates(arg, limits)
            {
                let g = Expr::Mul(rest.into_iter().cloned().collect());
                if let Ok(gn) = normal_form(&g, &mut Cx::new(*limits)) {
                    let to_zero =
                        (only_k(&gn) && gn.den.degree_in(&x) > gn.num.degree_in(&x) && gn.den.degree_in(&x) > 0)
                            || power_of_k(&gn.to_expr(), &self.k).is_some_and(|q| q < Q::zero());
                    if to_zero {
                        out.status = SumStatus::Converges;
                        out.method = format!(
                            "Dirichlet's test: the partial sums of {} stay bounded and {} decreases to 0",
                            trig[0],
                            gn.to_expr()
                        );
                        out.reason = "no closed form for its value here".into();
                        return Ok(());
                    }
                }
            }
        }
        // p-series with a rational exponent: c·k^q.
        if let Some(q) = power_of_k(&self.f, &self.k) {
            let p = -q;
            out.status = if p > Q::one() { SumStatus::Converges } else { SumStatus::Diverges };
            out.method = format!("p-series Σ 1/k^p with p = {p}: converges exactly when p > 1");
            return Ok(());
        }
        // Ratio test.
        let kk = Expr::add(Expr::sym(&self.k), Expr::int(1));
        let next = self.f.substitute(&|s| (s == self.k).then(|| kk.clone()));
        let ratio = Expr::func(crate::expr::Func::Abs, Expr::div(next, self.f.clone()));
        if let Ok(rn) = normal_form(&ratio, &mut Cx::new(*limits)) {
            let rt = rn.to_expr().to_string();
            if let Ok(l) = limit(&rt, Some(&self.k), "oo", None, limits)
                && l.status == LimitStatus::Finite
                && let Some(v) = l.numeric
                && (v - 1.0).abs() > 1e-9
            {
                out.status = if v < 1.0 { SumStatus::Converges } else { SumStatus::Diverges };
                out.method = format!("ratio test: |f(k+1)/f(k)| → {}", l.value.clone().unwrap_or_default());
                out.check = l.check;
                return Ok(());
            }
        }
        out.reason = format!("no test here decides whether Σ {} converges", out.summand);
        Ok(())
    }

    /// Whether `arg = a·k + b` turns by a fixed angle `a` that is not a multiple of
    /// 2π (so Σ sin(arg) and Σ cos(arg) have bounded partial sums).
    fn rotates(&self, arg: &Expr, limits: &Limits) -> bool {
        let x = Atom::Sym(self.k.as_str().into());
        let Ok(n) = normal_form(arg, &mut Cx::new(*limits)) else { return false };
        if !n.den.is_one() || n.num.degree_in(&x) != 1 {
            return false;
        }
        let cs = n.num.coeffs_in(&x);
        let Some(a) = cs.get(&1) else { return false };
        if let Some(c) = a.as_const() {
            return !c.is_zero();
        }
        // r·π
        match a.len() {
            1 if a.atoms().len() == 1 && a.atoms().contains(&Atom::Pi) && a.degree_in(&Atom::Pi) == 1 => {
                let r = a.0.values().next().cloned().unwrap_or_else(Q::zero);
                let half = &r / &Q::int(2);
                !half.is_integer()
            }
            _ => false,
        }
    }

    fn same_as(&self, g: &Expr) -> bool {
        normal_form(&Expr::sub(self.f.clone(), g.clone()), &mut Cx::new(*self.limits)).is_ok_and(|d| d.is_zero())
    }

    /// Record a series' value after checking it against partial sums.
    fn value(&self, out: &mut SumResult, value: Expr, method: String, a: &Q) -> Result<()> {
        let v = eval_f64(&value, &FloatEnv::new())
            .ok_or_else(|| SymError::unsupported(format!("the value {value} found has no decimal value")))?;
        let a0 = a.to_i64().ok_or_else(|| SymError::input("the lower bound is too large"))?;
        // The summand compiled once (with (−1)^k already cos(πk), so every term is
        // real at a real index); 20,000 terms cost microseconds each, not a tree each.
        let prog = crate::eval::FloatProgram::new(&self.f, std::slice::from_ref(&self.k));
        let mut stack = Vec::new();
        let mut term = |i: i64| prog.eval(&[i as f64], &mut stack);
        let mut partial = |n: i64| -> Option<f64> {
            let mut acc = 0.0;
            let mut c = 0.0;
            let mut last = f64::INFINITY;
            for i in a0..a0 + n {
                // A term past the floating-point range after terms below 1e-100 (a
                // geometric tail) adds nothing visible: stop there.
                let Some(t) = term(i) else {
                    if last.abs() < 1e-100 {
                        break;
                    }
                    return None;
                };
                last = t;
                // Kahan summation keeps the partial sums honest at 20,000 terms.
                let y = t - c;
                let s = acc + y;
                c = (s - acc) - y;
                acc = s;
            }
            Some(acc)
        };
        let (Some(s1), Some(s2)) = (partial(200), partial(20_000)) else {
            return Err(SymError::unsupported("a term of the series is undefined"));
        };
        let (e1, e2) = ((s1 - v).abs(), (s2 - v).abs());
        if !(e2 < 1e-3 * v.abs().max(1.0) && (e2 < e1 || e2 < 1e-12)) {
            return Err(SymError::unsupported(format!(
                "the value {value} found is not confirmed by the partial sums ({s2} after 20000 terms)"
            )));
        }
        out.status = SumStatus::Value;
        out.numeric = Some(v);
        out.value = Some(value.to_string());
        out.method = method;
        out.check = format!(
            "partial sums: {} after 200 terms, {} after 20000 (limit {})",
            attest_core::text::fmt_sig(s1, 10),
            attest_core::text::fmt_sig(s2, 10),
            attest_core::text::fmt_sig(v, 10)
        );
        Ok(())
    }
}

/// `(−1)^e` with `e` an integer-valued polynomial in the index is `cos(π·e)`, which
/// the normal form can work with (a symbolic power needs a positive base).
fn alternating(f: &Expr, k: &str) -> Expr {
    match f {
        Expr::Pow(b, e)
            if b.as_num() == Some(&Q::int(-1))
                && e.free_symbols().iter().all(|s| s == k)
                && !e.free_symbols().is_empty() =>
        {
            Expr::func(crate::expr::Func::Cos, Expr::mul(Expr::Pi, alternating(e, k)))
        }
        Expr::Add(v) => Expr::Add(v.iter().map(|t| alternating(t, k)).collect()),
        Expr::Mul(v) => Expr::Mul(v.iter().map(|t| alternating(t, k)).collect()),
        Expr::Pow(b, e) => Expr::pow(alternating(b, k), alternating(e, k)),
        Expr::Func(g, a) => Expr::func(*g, alternating(a, k)),
        e => e.clone(),
    }
}

/// `c^e` with a positive constant base and a variable exponent is `exp(e·log c)`, so
/// that the normal form sees `c^(k+1) = c·c^k`.
fn powexp(f: &Expr) -> Expr {
    match f {
        Expr::Pow(b, e)
            if b.free_symbols().is_empty()
                && !e.free_symbols().is_empty()
                && eval_f64(b, &FloatEnv::new()).is_some_and(|v| v > 0.0) =>
        {
            if matches!(b.as_ref(), Expr::E) {
                Expr::func(crate::expr::Func::Exp, powexp(e))
            } else {
                Expr::func(
                    crate::expr::Func::Exp,
                    Expr::mul(powexp(e), Expr::func(crate::expr::Func::Log, (**b).clone())),
                )
            }
        }
        Expr::Add(v) => Expr::Add(v.iter().map(powexp).collect()),
        Expr::Mul(v) => Expr::Mul(v.iter().map(powexp).collect()),
        Expr::Pow(b, e) => Expr::pow(powexp(b), powexp(e)),
        Expr::Func(g, a) => Expr::func(*g, powexp(a)),
        e => e.clone(),
    }
}

/// `q` when `f = c·k^q` with `c > 0` and `q` a non-integer rational (integers are
/// rational summands, decided above).
fn power_of_k(f: &Expr, k: &str) -> Option<Q> {
    let factors: Vec<&Expr> = match f {
        Expr::Mul(v) => v.iter().collect(),
        e => vec![e],
    };
    let mut q = None;
    for t in factors {
        match t {
            Expr::Num(c) if c.is_positive() => {}
            Expr::Pow(b, e) if matches!(b.as_ref(), Expr::Sym(s) if s == k) => q = Some(e.as_num()?.clone()),
            Expr::Pow(b, e) => match b.as_ref() {
                Expr::Pow(bb, e2) if matches!(bb.as_ref(), Expr::Sym(s) if s == k) => {
                    q = Some(e.as_num()? * e2.as_num()?);
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    q
}

/// The coefficients (lowest first) of the polynomial through the points, exactly.
fn interpolate(xs: &[Q], ys: &[Q]) -> Vec<Q> {
    let n = xs.len();
    let mut out = vec![Q::zero(); n];
    for i in 0..n {
        // basis polynomial ∏_{j≠i} (x − x_j)/(x_i − x_j)
        let mut basis = vec![Q::one()];
        let mut denom = Q::one();
        for j in 0..n {
            if j == i {
                continue;
            }
            let mut next = vec![Q::zero(); basis.len() + 1];
            for (d, c) in basis.iter().enumerate() {
                next[d + 1] = &next[d + 1] + c;
                next[d] = &next[d] - &(c * &xs[j]);
            }
            basis = next;
            denom = &denom * &(&xs[i] - &xs[j]);
        }
        let scale = &ys[i] / &denom;
        for (d, c) in basis.iter().enumerate() {
            out[d] = &out[d] + &(c * &scale);
        }
    }
    out
}

/// Read `\sum_{k=1}^{n} F`, `\sum_{k=0}^\infty F`, `sum_{k=1}^{n} F`: `(F, k, a, b)`.
pub fn notation(text: &str) -> Option<(String, String, String, String)> {
    let t = text.trim();
    let rest = t.strip_prefix("\\sum").or_else(|| t.strip_prefix("sum")).or_else(|| t.strip_prefix('Σ'))?.trim_start();
    let r = rest.strip_prefix("_{")?;
    let close = crate::limit::matching(r)?;
    let (lower, after) = (&r[..close], r[close + 1..].trim_start());
    let after = after.strip_prefix('^')?.trim_start();
    let (upper, body) = if let Some(r) = after.strip_prefix('{') {
        let c = crate::limit::matching(r)?;
        (&r[..c], &r[c + 1..])
    } else if let Some(r) = after.strip_prefix("\\infty") {
        ("oo", r)
    } else {
        let end = after.find(|c: char| c.is_whitespace() || c == '\\' || c == '(').unwrap_or(after.len());
        (&after[..end], &after[end..])
    };
    let (k, a) = lower.split_once('=')?;
    let body = body.trim();
    if body.is_empty() {
        return None;
    }
    Some((body.to_string(), k.trim().to_string(), a.trim().to_string(), upper.trim().replace("\\infty", "oo")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: &str, a: &str, b: &str) -> SumResult {
        sum(f, None, a, b, &Limits::default()).unwrap()
    }

    #[test]
    fn closed_forms() {
        assert_eq!(s("k", "1", "n").value.as_deref(), Some("n^2/2 + n/2"));
        assert_eq!(s("k^2", "1", "n").value.as_deref(), Some("n^3/3 + n^2/2 + n/6"));
        assert_eq!(s("k^3", "1", "10").value.as_deref(), Some("3025"));
        assert_eq!(s("k^2", "1", "10^12").value.as_deref(), Some("333333333333833333333333500000000000"));
        assert_eq!(s("2^k", "0", "n").value.as_deref(), Some("2^(n + 1) - 1"));
        assert_eq!(s("1/k", "1", "4").value.as_deref(), Some("25/12"));
    }

    #[test]
    fn series_values_and_tests() {
        assert_eq!(s("1/k^2", "1", "oo").value.as_deref(), Some("pi^2/6"));
        assert_eq!(s("1/k^4", "1", "oo").value.as_deref(), Some("pi^4/90"));
        assert_eq!(s("(-1)^(k+1)/k", "1", "oo").value.as_deref(), Some("log(2)"));
        assert_eq!(s("(1/2)^k", "0", "oo").value.as_deref(), Some("2"));
        assert_eq!(s("1/k^2", "2", "oo").value.as_deref(), Some("pi^2/6 - 1"));
        assert_eq!(s("1/k", "1", "oo").status, SumStatus::Diverges);
        assert_eq!(s("1/(k^2+1)", "1", "oo").status, SumStatus::Converges);
        assert_eq!(s("k/(k+1)", "1", "oo").status, SumStatus::Diverges);
        assert_eq!(s("(-1)^k/k", "1", "oo").value.as_deref(), Some("-log(2)"));
        assert_eq!(s("k^(-3/2)", "1", "oo").status, SumStatus::Converges);
        assert!(sum("1/(k - 5)", None, "1", "oo", &Limits::default()).is_err());
        assert!(sum("1/(k - 5000)", None, "1", "oo", &Limits::default()).is_err());
        assert_eq!(s("1/(k - 5)", "6", "oo").status, SumStatus::Diverges);
        assert_eq!(s("sin(k)/k^2", "1", "oo").status, SumStatus::Converges);
        assert_eq!(s("sin(k)/k", "1", "oo").status, SumStatus::Converges);
        assert_eq!(s("cos(pi k/3)/sqrt(k)", "1", "oo").status, SumStatus::Converges);
        assert_eq!(s("sin(k) k", "1", "oo").status, SumStatus::Unknown);
    }

    #[test]
    fn huge_sums_without_closed_form_are_refused() {
        let e = sum("sin(k)", None, "1", "10^12", &Limits::default()).unwrap_err();
        assert!(matches!(e, SymError::Limit { .. }), "{e}");
        let (b, k, a, u) = notation("\\sum_{k=1}^{n} k^2").unwrap();
        assert_eq!((b.as_str(), k.as_str(), a.as_str(), u.as_str()), ("k^2", "k", "1", "n"));
        let (_, _, _, u) = notation("\\sum_{n=1}^\\infty \\frac{1}{n^2}").unwrap();
        assert_eq!(u, "oo");
    }
}
