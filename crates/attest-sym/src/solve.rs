//! Solving one equation in one variable: exact roots of polynomials up to degree 4
//! (rational roots of any degree; Cardano and the trigonometric form for cubics;
//! Ferrari for quartics), numeric roots otherwise. Every root
//! is substituted back into the original equation and the residual reported.

use schemars::JsonSchema;
use serde::Serialize;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64, q_to_f64};
use crate::expr::{Expr, Func, Q, q, qf};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Nf, apply, normal_form, root};
use crate::ops::resolve_var;
use crate::parse::parse_statement;
use crate::verify::lower;

/// One root and how it was checked.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SolvedRoot {
    /// The root, exactly when `exact`, else a decimal.
    pub value: String,
    /// Its numeric value.
    pub numeric: f64,
    /// Whether `value` is exact.
    pub exact: bool,
    /// How many times it is a root of the polynomial (1 for numeric roots).
    pub multiplicity: u32,
    /// `left − right` of the original equation at the root: `0` when checked exactly,
    /// else the floating-point residual.
    pub residual: String,
    /// Whether the check passed (exactly zero, or a residual within 1e-9 relative).
    pub checked: bool,
}

/// The answer of [`solve`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Solution {
    /// The equation as read, `lhs = rhs`.
    pub equation: String,
    /// The variable solved for.
    pub variable: String,
    /// The real roots, in increasing order.
    pub roots: Vec<SolvedRoot>,
    /// What kind of solving was done and what is not listed (complex roots, roots
    /// outside the scanned range, excluded points).
    pub notes: Vec<String>,
}

/// The range scanned for the roots of an equation that is not a polynomial, when the
/// question names none.
pub const DEFAULT_SCAN: (f64, f64) = (-10.0, 10.0);

/// Solve `text` (an equation, or an expression taken as `= 0`) for `var`.
pub fn solve(text: &str, var: Option<&str>, limits: &Limits) -> Result<Solution> {
    solve_in(text, var, None, limits)
}

/// The finite ends of a range to solve in, from their texts (`"-1"`, `"2*pi"`): `lo < hi`,
/// or why not.
pub fn range_of(lo: &str, hi: &str, limits: &Limits) -> Result<(f64, f64)> {
    let value = |t: &str| -> Result<f64> {
        let bare = t.trim().trim_start_matches(['+', '-']).trim();
        if ["oo", "inf", "infinity", "∞", "\\infty"].contains(&bare.to_ascii_lowercase().as_str()) {
            return Err(SymError::unsupported(format!(
                "the range's end {t} is not a finite number: a scan needs finite ends (try [-100, 100])"
            )));
        }
        let e = crate::parse::parse_expr(t, limits)?;
        if !e.free_symbols().is_empty() {
            return Err(SymError::unsupported(format!("the range's end {t} is not a number")));
        }
        eval_f64(&e, &FloatEnv::new())
            .filter(|x| x.is_finite())
            .ok_or_else(|| SymError::unsupported(format!("the range's end {t} is not a finite number")))
    };
    let (a, b) = (value(lo)?, value(hi)?);
    if a >= b {
        return Err(SymError::unsupported(format!(
            "the range [{lo}, {hi}] is empty: its lower end must be below its upper end"
        )));
    }
    Ok((a, b))
}

/// Solve `text` for `var`, listing only the roots in `range` (`[lo, hi]`, ends included)
/// when one is given; an equation that is not a polynomial is scanned over `range`
/// (default [`DEFAULT_SCAN`]).
pub fn solve_in(text: &str, var: Option<&str>, range: Option<(f64, f64)>, limits: &Limits) -> Result<Solution> {
    let st = parse_statement(text, limits)?;
    let rhs_has_variables = st.rhs.as_ref().is_some_and(|r| !r.free_symbols().is_empty());
    let rhs = st.rhs.unwrap_or_else(|| Expr::int(0));
    let whole = Expr::sub(st.lhs.clone(), rhs.clone());
    // The variables are the equation's; name it as written ("a x + b = 0", not "… + 0").
    let v = if rhs_has_variables { resolve_var(&whole, var)? } else { resolve_var(&st.lhs, var)? };
    let mut cx = Cx::new(*limits);
    let nf = normal_form(&whole, &mut cx)?;
    let mut out = Solution {
        equation: format!("{} = {}", st.lhs, rhs),
        variable: v.clone(),
        roots: Vec::new(),
        notes: Vec::new(),
    };
    if nf.is_zero() {
        out.notes.push("the equation holds for every value (both sides are identical)".into());
        return Ok(out);
    }
    let xa = Atom::Sym(v.as_str().into());
    let poly_in_v = nf.num.atoms().iter().all(|a| *a == xa || !Nf::atom(a.clone()).free_symbols().contains(&v));
    let consts: Option<Vec<Q>> = poly_in_v
        .then(|| {
            let cs = nf.num.coeffs_in(&xa);
            let deg = cs.keys().next_back().copied().unwrap_or(0);
            (0..=deg).map(|d| cs.get(&d).map_or(Some(Q::zero()), |p| p.as_const())).collect()
        })
        .flatten();
    let candidates = match consts {
        Some(c) if c.len() > 1 => poly_roots(&c, &mut out.notes, &mut cx)?,
        Some(_) => {
            out.notes.push("the equation has no solution: it reduces to a non-zero constant".into());
            return Ok(out);
        }
        None if poly_in_v && nf.num.degree_in(&xa) <= 2 => symbolic_roots(&nf, &xa, &mut out.notes, &mut cx)?,
        None => numeric_scan(&whole, &v, range.unwrap_or(DEFAULT_SCAN), limits, &mut out.notes)?,
    };
    let lowered_l = lower(&st.lhs, limits)?;
    let lowered_r = lower(&rhs, limits)?;
    for cand in candidates {
        let root = match &cand {
            Cand::Exact(value, mult) => check_root(&st.lhs, &rhs, &lowered_l, &lowered_r, &v, value, *mult, limits),
            Cand::Numeric(x) => check_numeric(&lowered_l, &lowered_r, &v, *x),
        };
        match root {
            Some(r) => out.roots.push(r),
            None => {
                let shown = match &cand {
                    Cand::Exact(value, _) => value.to_string(),
                    Cand::Numeric(x) => attest_core::text::fmt_sig(*x, 12),
                };
                out.notes.push(format!("{v} = {shown} is excluded: the equation is undefined there"));
            }
        }
    }
    out.roots.sort_by(|a, b| a.numeric.total_cmp(&b.numeric));
    if let Some((lo, hi)) = range {
        // A root on an end counts (within rounding of the end's own value).
        let slack = 1e-12 * lo.abs().max(hi.abs()).max(1.0);
        let before = out.roots.len();
        out.roots.retain(|r| r.numeric.is_nan() || (r.numeric >= lo - slack && r.numeric <= hi + slack));
        let dropped = before - out.roots.len();
        let (a, b) = (attest_core::text::fmt_sig(lo, 12), attest_core::text::fmt_sig(hi, 12));
        // A scan over the range already says so; say it again only when roots were left out.
        let scanned_there = out.notes.iter().any(|n| n.contains(&format!("scanning [{a}, {b}]")));
        if dropped > 0 {
            out.notes.push(format!(
                "only roots in [{a}, {b}] were asked for: {} outside it not listed",
                attest_core::text::plural(dropped, "root", "roots")
            ));
        } else if !scanned_there {
            out.notes.push(format!("only roots in [{a}, {b}] were asked for"));
        }
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn check_root(
    l: &Expr,
    r: &Expr,
    ll: &Expr,
    rl: &Expr,
    v: &str,
    value: &Nf,
    mult: u32,
    limits: &Limits,
) -> Option<SolvedRoot> {
    let ve = value.to_expr();
    let free = value.free_symbols();
    let numeric = if free.is_empty() { eval_f64(&ve, &FloatEnv::new()) } else { Some(f64::NAN) }?;
    let sub = |e: &Expr| e.substitute(&|n| (n == v).then(|| ve.clone()));
    let diff = Expr::sub(sub(l), sub(r));
    let exact_zero = normal_form(&diff, &mut Cx::new(*limits)).map(|d| d.is_zero()).unwrap_or(false);
    let (residual, checked) = if exact_zero {
        ("0".to_string(), true)
    } else if free.is_empty() {
        let env: FloatEnv = [(v.to_string(), numeric)].into();
        let (a, b) = (eval_f64(ll, &env)?, eval_f64(rl, &env)?);
        let res = a - b;
        (attest_core::text::fmt_sig(res, 3), res.abs() <= 1e-9 * 1f64.max(a.abs()).max(b.abs()))
    } else {
        ("not checked (symbolic root)".to_string(), false)
    };
    Some(SolvedRoot { value: value.to_string(), numeric, exact: true, multiplicity: mult, residual, checked })
}

/// A numeric root, checked by its floating-point residual.
fn check_numeric(ll: &Expr, rl: &Expr, v: &str, x: f64) -> Option<SolvedRoot> {
    let env: FloatEnv = [(v.to_string(), x)].into();
    let (a, b) = (eval_f64(ll, &env)?, eval_f64(rl, &env)?);
    let res = a - b;
    Some(SolvedRoot {
        value: attest_core::text::fmt_sig(x, 12),
        numeric: x,
        exact: false,
        multiplicity: 1,
        residual: attest_core::text::fmt_sig(res, 3),
        checked: res.abs() <= 1e-9 * 1f64.max(a.abs()).max(b.abs()),
    })
}

fn eval_poly(c: &[Q], x: &Q) -> Q {
    c.iter().rev().fold(Q::zero(), |acc, k| acc * x + k)
}

fn deflate(c: &[Q], r: &Q) -> Vec<Q> {
    // synthetic division by (x - r), coefficients low → high
    let n = c.len() - 1;
    let mut out = vec![Q::zero(); n];
    let mut carry = Q::zero();
    for i in (0..n).rev() {
        carry = &c[i + 1] + &carry * r;
        out[i] = carry.clone();
    }
    out
}

fn divisors(n: &BigInt) -> Option<Vec<BigInt>> {
    let n = n.abs().to_u64().filter(|n| *n <= 1_000_000_000_000)?;
    let mut out = Vec::new();
    let mut d = 1u64;
    while d * d <= n {
        if n % d == 0 {
            out.push(BigInt::from(d));
            out.push(BigInt::from(n / d));
        }
        d += 1;
    }
    Some(out)
}

/// A root found: exact (with its multiplicity) or numeric.
enum Cand {
    Exact(Nf, u32),
    Numeric(f64),
}

type Candidates = Vec<Cand>;

/// The rational roots of a polynomial (coefficients low → high, leading one non-zero)
/// with their multiplicities, and what is left once they are divided out.
pub(crate) struct RationalRoots {
    /// `(root, multiplicity)`, 0 first when it is a root, then in the order found.
    pub found: Vec<(Q, u32)>,
    /// The quotient, coefficients low → high, with no rational root left (unless
    /// `too_large`).
    pub rest: Vec<Q>,
    /// The coefficients were too large to search for rational roots.
    pub too_large: bool,
}

/// Rational roots by the rational-root test (`p | a0`, `q | an` after clearing
/// denominators) and deflation.
pub(crate) fn rational_roots(c: &[Q]) -> RationalRoots {
    let mut c: Vec<Q> = c.to_vec();
    while c.last().is_some_and(Zero::is_zero) {
        c.pop();
    }
    let mut found: Vec<(Q, u32)> = Vec::new();
    let mut zero_mult = 0;
    while c.len() > 1 && c[0].is_zero() {
        c.remove(0);
        zero_mult += 1;
    }
    if zero_mult > 0 {
        found.push((Q::zero(), zero_mult));
    }
    let mut too_large = false;
    let lcm = c.iter().fold(BigInt::one(), |l, k| l.lcm(&k.denom()));
    let ints: Vec<BigInt> = c.iter().map(|k| (k * Q::from_integer(lcm.clone())).to_integer()).collect();
    if c.len() > 2 {
        let candidates = divisors(&ints[0]).zip(divisors(ints.last().expect("non-empty")));
        // At most 50,000 (p, q) pairs, so the search stays in milliseconds.
        if let Some((ps, qs)) = candidates.filter(|(ps, qs)| ps.len() * qs.len() <= 50_000) {
            'outer: for p in &ps {
                for qd in &qs {
                    for sign in [1, -1] {
                        let r = Q::new(p * sign, qd.clone());
                        let mut m = 0;
                        while c.len() > 1 && eval_poly(&c, &r).is_zero() {
                            c = deflate(&c, &r);
                            m += 1;
                        }
                        if m > 0 {
                            found.push((r, m));
                        }
                        if c.len() <= 1 {
                            break 'outer;
                        }
                    }
                }
            }
        } else {
            too_large = true;
        }
    }
    RationalRoots { found, rest: c, too_large }
}

fn poly_roots(c: &[Q], notes: &mut Vec<String>, cx: &mut Cx) -> Result<Candidates> {
    let RationalRoots { found, rest: c, too_large } = rational_roots(c);
    if too_large {
        notes.push("coefficients too large for the rational-root search".into());
    }
    let mut out: Candidates = found.into_iter().map(|(r, m)| Cand::Exact(Nf::constant(r), m)).collect();
    out.extend(remaining_roots(&c, notes, cx)?);
    Ok(out)
}

fn remaining_roots(c: &[Q], notes: &mut Vec<String>, cx: &mut Cx) -> Result<Candidates> {
    let k = |x: Q| Nf::constant(x);
    match c.len() {
        0 | 1 => Ok(Vec::new()),
        2 => Ok(vec![Cand::Exact(k(-&c[0] / &c[1]), 1)]),
        3 => {
            let roots = quadratic(&c[2], &c[1], &c[0], notes, cx)?;
            Ok(roots.into_iter().map(|r| Cand::Exact(r, 1)).collect())
        }
        4 => cubic(c, notes, cx),
        5 => quartic(c, notes, cx),
        _ => {
            notes.push(format!(
                "no exact formula used for the remaining degree-{} factor: its real roots are numeric (Durand–Kerner, polished by Newton's method)",
                c.len() - 1
            ));
            Ok(numeric_poly_roots(c).into_iter().map(Cand::Numeric).collect())
        }
    }
}

fn quadratic(a: &Q, b: &Q, c: &Q, notes: &mut Vec<String>, cx: &mut Cx) -> Result<Vec<Nf>> {
    let disc = b * b - q(4) * a * c;
    let two_a = a * q(2);
    let mid = Nf::constant(-b / &two_a);
    if disc.is_negative() {
        let im = (-&disc).to_f64().unwrap_or(f64::NAN).sqrt() / q_to_f64(&two_a).abs();
        notes.push(format!(
            "no real roots from the quadratic factor: its roots are complex, {} ± {}i",
            attest_core::text::fmt_g(q_to_f64(&(-b / &two_a))),
            attest_core::text::fmt_g(im)
        ));
        return Ok(Vec::new());
    }
    if disc.is_zero() {
        return Ok(vec![mid]);
    }
    let s = root(&Nf::constant(disc), 2, cx)?.scale(&two_a.recip());
    Ok(vec![mid.sub(&s, cx)?, mid.add(&s, cx)?])
}

fn value_of(n: &Nf) -> Option<f64> {
    eval_f64(&n.to_expr(), &FloatEnv::new())
}

/// Real roots of `y² + b·y + c = 0` with exact (possibly irrational) coefficients.
fn quadratic_nf(b: &Nf, c: &Nf, complex: &mut usize, cx: &mut Cx) -> Result<Vec<Nf>> {
    let disc = b.mul(b, cx)?.sub(&c.scale(&q(4)), cx)?;
    let mid = b.scale(&qf(-1, 2));
    if disc.is_zero() {
        return Ok(vec![mid]);
    }
    match value_of(&disc) {
        Some(d) if d > 0.0 => {
            let s = root(&disc, 2, cx)?.scale(&qf(1, 2));
            Ok(vec![mid.sub(&s, cx)?, mid.add(&s, cx)?])
        }
        _ => {
            *complex += 2;
            Ok(Vec::new())
        }
    }
}

/// Ferrari: shift to `y⁴ + p y² + q y + r`, take a positive root `m` of the resolvent
/// cubic, and split into two quadratics `y² ∓ √(2m)·y + (p/2 + m ± √(2m)·q/(4m))`.
fn quartic(c: &[Q], notes: &mut Vec<String>, cx: &mut Cx) -> Result<Candidates> {
    let lead = &c[4];
    let (a, b, cc, d) = (&c[3] / lead, &c[2] / lead, &c[1] / lead, &c[0] / lead);
    let a2 = &a * &a;
    let p = &b - q(3) * &a2 / q(8);
    let qq = &cc - &a * &b / q(2) + &a2 * &a / q(8);
    let r = &d - &a * &cc / q(4) + &a2 * &b / q(16) - q(3) * &a2 * &a2 / q(256);
    let sh = Nf::constant(-&a / q(4));
    let mut complex = 0;
    let mut ys: Vec<Nf> = Vec::new();
    if qq.is_zero() {
        notes.push("quartic without odd terms after the shift: solved as a quadratic in y²".into());
        for z in quadratic_nf(&Nf::constant(p), &Nf::constant(r), &mut complex, cx)? {
            match value_of(&z) {
                Some(v) if v >= 0.0 => {
                    let s = root(&z, 2, cx)?;
                    if s.is_zero() {
                        ys.push(s);
                    } else {
                        ys.push(s.neg());
                        ys.push(s);
                    }
                }
                _ => complex += 2,
            }
        }
    } else {
        let resolvent = [-(&qq * &qq), q(2) * &p * &p - q(8) * &r, q(8) * &p, q(8)];
        let mut sub_notes = Vec::new();
        let ms = poly_roots(&resolvent, &mut sub_notes, cx)?;
        let positive = |n: &Nf| value_of(n).is_some_and(|v| v > 1e-12);
        let exact_ms: Vec<Nf> = ms
            .into_iter()
            .filter_map(|m| match m {
                Cand::Exact(n, _) if positive(&n) => Some(n),
                _ => None,
            })
            .collect();
        let Some(m) = exact_ms.iter().find(|m| m.as_const().is_some()).or(exact_ms.first()).cloned() else {
            notes.push("quartic: no exact positive root of the resolvent cubic; roots are numeric".into());
            return Ok(numeric_poly_roots(c).into_iter().map(Cand::Numeric).collect());
        };
        notes.push(format!("quartic: Ferrari's method with the resolvent cubic's root m = {m}"));
        let s = root(&m.scale(&q(2)), 2, cx)?;
        let base = m.add(&Nf::constant(&p / q(2)), cx)?;
        let tilt = s.mul(&Nf::constant(qq.clone()), cx)?.div(&m.scale(&q(4)), cx)?;
        for sign in [1, -1] {
            let b_coef = s.scale(&q(-sign));
            let c_coef = if sign == 1 { base.add(&tilt, cx)? } else { base.sub(&tilt, cx)? };
            ys.extend(quadratic_nf(&b_coef, &c_coef, &mut complex, cx)?);
        }
    }
    if complex > 0 {
        notes.push(format!("{complex} complex root(s) of the quartic are not listed"));
    }
    ys.into_iter().map(|y| Ok(Cand::Exact(y.add(&sh, cx)?, 1))).collect()
}

/// Cardano for one real root, the trigonometric form for three.
fn cubic(c: &[Q], notes: &mut Vec<String>, cx: &mut Cx) -> Result<Candidates> {
    let (a, b, cc, d) = (&c[3], &c[2], &c[1], &c[0]);
    // x = t - b/(3a): t^3 + p t + q = 0
    let shift = -b / (a * q(3));
    let p = (q(3) * a * cc - b * b) / (q(3) * a * a);
    let qq = (q(2) * b * b * b - q(9) * a * b * cc + q(27) * a * a * d) / (q(27) * a * a * a);
    let delta = &qq * &qq / q(4) + &p * &p * &p / q(27);
    let sh = Nf::constant(shift);
    if delta.is_positive() {
        notes.push("cubic: one real root (Cardano's formula); the other two are complex".into());
        let sd = root(&Nf::constant(delta), 2, cx)?;
        let half_q = Nf::constant(-&qq / q(2));
        let u = root(&half_q.add(&sd, cx)?, 3, cx)?;
        let w = root(&half_q.sub(&sd, cx)?, 3, cx)?;
        return Ok(vec![Cand::Exact(u.add(&w, cx)?.add(&sh, cx)?, 1)]);
    }
    notes.push("cubic with three real roots: trigonometric form".into());
    // t_k = 2 sqrt(-p/3) cos( acos( (3q/(2p)) sqrt(-3/p) ) / 3 - 2πk/3 )
    let m = root(&Nf::constant(-&p / q(3)), 2, cx)?.scale(&q(2));
    let arg_in = root(&Nf::constant(q(-3) / &p), 2, cx)?.scale(&(q(3) * &qq / (q(2) * &p)));
    let theta = apply(Func::Acos, &arg_in, cx)?.scale(&qf(1, 3));
    let mut out = Vec::new();
    for k in 0..3 {
        let ang = theta.sub(&Nf::atom(Atom::Pi).scale(&qf(2 * k, 3)), cx)?;
        let t = m.mul(&apply(Func::Cos, &ang, cx)?, cx)?;
        out.push(Cand::Exact(t.add(&sh, cx)?, 1));
    }
    Ok(out)
}

/// Real roots of a polynomial with rational coefficients, numerically.
fn numeric_poly_roots(c: &[Q]) -> Vec<f64> {
    let cf: Vec<f64> = c.iter().map(q_to_f64).collect();
    let n = cf.len() - 1;
    let lead = cf[n];
    let mon: Vec<f64> = cf.iter().map(|k| k / lead).collect();
    let mut zs: Vec<(f64, f64)> = (0..n)
        .map(|k| {
            let a = 0.4 + 0.9 * k as f64;
            let r = 1.0 + mon.iter().map(|x| x.abs()).fold(0.0, f64::max);
            (r * a.cos() * 0.5, r * a.sin() * 0.5)
        })
        .collect();
    let eval = |z: (f64, f64)| {
        let mut acc = (0.0, 0.0);
        for k in mon.iter().rev() {
            acc = (acc.0 * z.0 - acc.1 * z.1 + k, acc.0 * z.1 + acc.1 * z.0);
        }
        acc
    };
    #[allow(clippy::needless_range_loop)]
    for _ in 0..500 {
        let prev = zs.clone();
        for i in 0..n {
            let num = eval(zs[i]);
            let mut den = (1.0, 0.0);
            for (j, zj) in prev.iter().enumerate() {
                if i != j {
                    let d = (zs[i].0 - zj.0, zs[i].1 - zj.1);
                    den = (den.0 * d.0 - den.1 * d.1, den.0 * d.1 + den.1 * d.0);
                }
            }
            let dd = den.0 * den.0 + den.1 * den.1;
            if dd == 0.0 {
                continue;
            }
            let step = ((num.0 * den.0 + num.1 * den.1) / dd, (num.1 * den.0 - num.0 * den.1) / dd);
            zs[i] = (zs[i].0 - step.0, zs[i].1 - step.1);
        }
    }
    let p = |x: f64| cf.iter().rev().fold(0.0, |acc, k| acc * x + k);
    let dp = |x: f64| cf.iter().enumerate().skip(1).rev().fold(0.0, |acc, (i, k)| acc * x + k * i as f64);
    let mut out: Vec<f64> = Vec::new();
    for (re, im) in zs {
        if im.abs() > 1e-7 * (1.0 + re.abs()) {
            continue;
        }
        let mut x = re;
        for _ in 0..50 {
            let d = dp(x);
            if d == 0.0 {
                break;
            }
            x -= p(x) / d;
        }
        if !out.iter().any(|y| (y - x).abs() < 1e-9 * (1.0 + x.abs())) {
            out.push(x);
        }
    }
    out
}

/// Sign changes and zeros of `lhs - rhs` on `[lo, hi]`, refined by bisection.
fn numeric_scan(
    whole: &Expr,
    v: &str,
    (lo, hi): (f64, f64),
    limits: &Limits,
    notes: &mut Vec<String>,
) -> Result<Candidates> {
    let f = lower(whole, limits)?;
    let others: Vec<String> = f.free_symbols().into_iter().filter(|s| s != v).collect();
    if !others.is_empty() {
        return Err(SymError::unsupported(format!(
            "cannot solve for {v}: the equation is not polynomial in {v} and also involves {}",
            others.join(", ")
        )));
    }
    let n = 4000;
    let (a, b) = (attest_core::text::fmt_sig(lo, 12), attest_core::text::fmt_sig(hi, 12));
    notes.push(format!(
        "not a polynomial: real roots found numerically by scanning [{a}, {b}] in {n} steps and bisecting; roots outside that range{} are not listed",
        if (lo, hi) == DEFAULT_SCAN { " (give a range to look elsewhere)" } else { "" }
    ));
    if (hi - lo) / n as f64 > 0.05 {
        notes.push(format!(
            "the scan's step is {}: two roots closer than that, or a root where the curve touches 0 without crossing, can be missed",
            attest_core::text::fmt_sig((hi - lo) / n as f64, 3)
        ));
    }
    let at = |x: f64| eval_f64(&f, &[(v.to_string(), x)].into());
    let xs: Vec<f64> = (0..=n).map(|i| if i == n { hi } else { lo + (hi - lo) * i as f64 / n as f64 }).collect();
    let mut roots: Vec<f64> = Vec::new();
    for w in xs.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (Some(fa), Some(fb)) = (at(a), at(b)) else { continue };
        // One root found from two sides of a grid point (an exact zero at the point and
        // a bisection in the next interval) is one root; |x| < 1e-12 is 0.
        let push = |roots: &mut Vec<f64>, x: f64| {
            let x = if x.abs() < 1e-12 { 0.0 } else { x };
            if !roots.iter().any(|r| (r - x).abs() <= 1e-7 * x.abs().max(1.0)) {
                roots.push(x);
            }
        };
        if fa == 0.0 {
            push(&mut roots, a);
            continue;
        }
        if fa.signum() == fb.signum() {
            continue;
        }
        let (mut lo, mut hi, mut flo) = (a, b, fa);
        let mut ok = true;
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            let Some(fm) = at(mid) else {
                ok = false;
                break;
            };
            if fm.signum() == flo.signum() {
                lo = mid;
                flo = fm;
            } else {
                hi = mid;
            }
        }
        let x = 0.5 * (lo + hi);
        // A sign change across a pole is not a root.
        if ok && at(x).is_some_and(|y| y.abs() < 1e-6) {
            push(&mut roots, x);
        }
    }
    if roots.len() > 50 {
        notes.push(format!("{} roots found; only the 50 nearest to 0 are listed", roots.len()));
        roots.sort_by(|a, b| a.abs().total_cmp(&b.abs()));
        roots.truncate(50);
    }
    Ok(roots.into_iter().map(Cand::Numeric).collect())
}

/// Linear or quadratic equations whose coefficients involve other variables.
fn symbolic_roots(nf: &Nf, xa: &Atom, notes: &mut Vec<String>, cx: &mut Cx) -> Result<Candidates> {
    let cs = nf.num.coeffs_in(xa);
    let get = |d: u32| Nf { num: cs.get(&d).cloned().unwrap_or_default(), den: crate::poly::Poly::one() };
    let (a, b, c) = (get(2), get(1), get(0));
    if a.is_zero() {
        notes.push(format!("linear in the variable; assumes {} ≠ 0", b));
        return Ok(vec![Cand::Exact(c.neg().div(&b, cx)?, 1)]);
    }
    notes.push(format!("quadratic formula; assumes {a} ≠ 0 and a non-negative discriminant"));
    let disc = b.mul(&b, cx)?.sub(&a.mul(&c, cx)?.scale(&q(4)), cx)?;
    let s = root(&disc, 2, cx)?;
    let two_a = a.scale(&q(2));
    let mb = b.neg();
    Ok(vec![Cand::Exact(mb.sub(&s, cx)?.div(&two_a, cx)?, 1), Cand::Exact(mb.add(&s, cx)?.div(&two_a, cx)?, 1)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_scan_lists_each_root_once() {
        assert_eq!(roots("sin(x) = 0").iter().filter(|r| r.trim_start_matches('-').starts_with('0')).count(), 1);
        assert_eq!(roots("x^(2/3) = 1").len(), 2);
    }

    #[test]
    fn a_range_lists_only_the_roots_in_it() {
        // (equation, range, roots listed, words in the notes)
        type Case<'a> = (&'a str, (&'a str, &'a str), &'a [&'a str], &'a str);
        let cases: &[Case] = &[
            ("sin(x) = 0", ("-1", "4"), &["0", "3.14159265359"], "scanning [-1, 4]"),
            ("sin(x) = 0", ("20", "30"), &["21.9911485751", "25.1327412287", "28.2743338823"], "scanning [20, 30]"),
            ("x^2 - 5x + 6 = 0", ("2.5", "10"), &["3"], "1 root outside it not listed"),
            ("x^2 - 5x + 6", ("2", "3"), &["2", "3"], "only roots in [2, 3]"),
            ("cos(x) = x", ("0", "pi/2"), &["0.739085133215"], "scanning [0, 1.57079632679]"),
            ("exp(x) = 1000", ("-100", "1000"), &["6.90775527898"], "the scan's step is 0.275"),
        ];
        for (eq, (lo, hi), want, note) in cases {
            let l = Limits::default();
            let range = range_of(lo, hi, &l).unwrap();
            let got = solve_in(eq, None, Some(range), &l).unwrap();
            let values: Vec<String> =
                got.roots.iter().map(|r| r.value.trim_start_matches('≈').trim().to_string()).collect();
            assert_eq!(values, *want, "{eq} in [{lo}, {hi}]: {:?}", got.notes);
            assert!(got.notes.iter().any(|n| n.contains(note)), "{eq}: {note} not in {:?}", got.notes);
        }
        for (lo, hi, why) in [("4", "-1", "is empty"), ("0", "oo", "not a finite number"), ("0", "a", "not a number")] {
            let e = range_of(lo, hi, &Limits::default()).unwrap_err().to_string();
            assert!(e.contains(why), "[{lo}, {hi}]: {e}");
        }
    }

    fn roots(s: &str) -> Vec<String> {
        solve(s, None, &Limits::default())
            .unwrap_or_else(|e| panic!("{s}: {e}"))
            .roots
            .into_iter()
            .map(|r| {
                assert!(r.checked, "{s}: {} not checked ({})", r.value, r.residual);
                r.value
            })
            .collect()
    }

    #[test]
    fn exact_and_numeric_roots() {
        assert_eq!(roots("x^2 - 5x + 6"), ["2", "3"]);
        assert_eq!(roots("x^2 = 2"), ["-sqrt(2)", "sqrt(2)"]);
        assert_eq!(roots("2x + 1 = 0"), ["-1/2"]);
        assert_eq!(roots("x^3 - 6x^2 + 11x - 6"), ["1", "2", "3"]);
        assert_eq!(roots("x^4 - 5x^2 + 4"), ["-2", "-1", "1", "2"]);
        assert_eq!(roots("x^4 - 10x^2 + 1").len(), 4);
        assert_eq!(roots("x^4 - 2x - 1").len(), 2);
        assert_eq!(roots("x^4 + 4x^3 + 2x^2 - 4x - 2").len(), 4);
        assert!(roots("x^4 + x + 1").is_empty());
        assert_eq!(roots("x^3 - 2").len(), 1);
        assert_eq!(roots("x^3 - 3x + 1").len(), 3);
        let r = solve("x^5 - x - 1", None, &Limits::default()).unwrap();
        assert_eq!(r.roots.len(), 1);
        assert!(!r.roots[0].exact && r.roots[0].value.starts_with("1.1673039782"), "{:?}", r.roots);
        assert_eq!(roots("cos(x) = x").len(), 1);
        assert!(roots("x^2 + 1").is_empty());
        let s = solve("(x^2-1)/(x-1) = 0", None, &Limits::default()).unwrap();
        assert_eq!(s.roots.len(), 1);
        assert_eq!(s.roots[0].value, "-1");
    }
}
