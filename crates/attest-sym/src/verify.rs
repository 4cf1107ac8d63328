//! `verify` and `check`: is `lhs = rhs`? Proved, proved where defined, refuted with a
//! confirmed counterexample, or unknown — never a false "proved", never "unknown"
//! reported as false.
//!
//! The pipeline: a seeded numeric refuter at 50 points (disagreements confirmed in
//! exact rational or interval arithmetic before they count), then the normal form
//! (expanded, collected, cancelled; only domain-safe rewrites), then the normal form
//! again with rules that hold where both sides are defined (logarithm laws).

use std::collections::BTreeMap;

use num_traits::Signed;
use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{ExactEnv, FloatProgram, eval_exact, eval_interval};
use crate::expr::{Expr, qf};
use crate::limits::Limits;
use crate::nf::{Atom, Cx, Mode, Nf, normal_form};
use crate::parse::{parse_chain, parse_expr};

/// The verdict on a claimed equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Equal for every real value of the variables.
    Proved,
    /// Equal wherever both sides are defined; `domain` says what is excluded.
    ProvedWhereDefined,
    /// Not equal: `counterexample` holds a point where both sides are defined and differ.
    Refuted,
    /// Neither proved nor refuted. This is not a "false".
    Unknown,
}

impl Verdict {
    /// The verdict as written in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Proved => "proved",
            Verdict::ProvedWhereDefined => "proved where defined",
            Verdict::Refuted => "refuted",
            Verdict::Unknown => "unknown",
        }
    }
}

/// A point where the two sides differ, with both values.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Counterexample {
    /// Variable → value (exact rationals, as text).
    pub point: BTreeMap<String, String>,
    /// The left-hand side's value there.
    pub lhs_value: String,
    /// The right-hand side's value there.
    pub rhs_value: String,
    /// How the difference was confirmed: `exact` (rational arithmetic) or `interval`
    /// (outward-rounded interval arithmetic).
    pub confirmed_by: String,
}

/// What the numeric check saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
pub struct NumericCheck {
    /// Points tried.
    pub points: usize,
    /// Points where both sides are defined.
    pub both_defined: usize,
    /// Of those, points where the values agree.
    pub agreeing: usize,
    /// Points where only the left-hand side is defined.
    pub lhs_only: usize,
    /// Points where only the right-hand side is defined.
    pub rhs_only: usize,
}

/// The answer of [`verify`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Verification {
    /// The verdict.
    pub verdict: Verdict,
    /// The left-hand side as read.
    pub lhs: String,
    /// The right-hand side as read.
    pub rhs: String,
    /// Why, in one sentence.
    pub reason: String,
    /// The rewrite steps, when proved.
    pub steps: Vec<String>,
    /// Domain conditions under which a `proved_where_defined` holds (e.g. `x ≠ 1`).
    pub domain: Vec<String>,
    /// The counterexample, when refuted.
    pub counterexample: Option<Counterexample>,
    /// The numeric evidence.
    pub numeric: NumericCheck,
}

/// Verify `lhs = rhs`, each given as text.
pub fn verify(lhs: &str, rhs: &str, limits: &Limits) -> Result<Verification> {
    let l = parse_expr(lhs, limits)?;
    let r = parse_expr(rhs, limits)?;
    verify_exprs(&l, &r, limits)
}

/// Verify an equation written as one text (`lhs = rhs`, `lhs == rhs`, "lhs equals rhs").
pub fn verify_equation(text: &str, limits: &Limits) -> Result<Verification> {
    let st = crate::parse::parse_statement(text, limits)?;
    let rhs = st.rhs.ok_or_else(|| {
        SymError::input("verify needs an equation: write it as 'lhs = rhs' or give lhs and rhs separately")
    })?;
    verify_exprs(&st.lhs, &rhs, limits)
}

/// Replace `d/dx` nodes by the derivative they denote, for numeric evaluation.
pub fn lower(e: &Expr, limits: &Limits) -> Result<Expr> {
    if !has_deriv(e) {
        return Ok(e.clone());
    }
    lower_derivs(e, limits)
}

/// Whether `e` contains a derivative (`d/dx …`).
pub fn has_derivative(e: &Expr) -> bool {
    has_deriv(e)
}

fn has_deriv(e: &Expr) -> bool {
    match e {
        Expr::Deriv(..) => true,
        Expr::Add(v) | Expr::Mul(v) => v.iter().any(has_deriv),
        Expr::Pow(a, b) => has_deriv(a) || has_deriv(b),
        Expr::Func(_, a) => has_deriv(a),
        _ => false,
    }
}

fn lower_cow<'a>(e: &'a Expr, limits: &Limits) -> Result<std::borrow::Cow<'a, Expr>> {
    Ok(if has_deriv(e) { std::borrow::Cow::Owned(lower_derivs(e, limits)?) } else { std::borrow::Cow::Borrowed(e) })
}

fn lower_derivs(e: &Expr, limits: &Limits) -> Result<Expr> {
    Ok(match e {
        Expr::Deriv(..) => normal_form(e, &mut Cx::new(*limits))?.to_expr(),
        Expr::Add(v) => Expr::Add(v.iter().map(|t| lower_derivs(t, limits)).collect::<Result<_>>()?),
        Expr::Mul(v) => Expr::Mul(v.iter().map(|t| lower_derivs(t, limits)).collect::<Result<_>>()?),
        Expr::Pow(a, b) => Expr::pow(lower_derivs(a, limits)?, lower_derivs(b, limits)?),
        Expr::Func(f, a) => Expr::func(*f, lower_derivs(a, limits)?),
        _ => e.clone(),
    })
}

/// Verify two parsed expressions.
pub fn verify_exprs(l: &Expr, r: &Expr, limits: &Limits) -> Result<Verification> {
    let (ll, rl) = (lower_cow(l, limits)?, lower_cow(r, limits)?);
    let mut vars: Vec<String> = ll.free_symbols().union(&rl.free_symbols()).cloned().collect();
    vars.sort();
    let mut out = Verification {
        verdict: Verdict::Unknown,
        lhs: l.to_string(),
        rhs: r.to_string(),
        reason: String::new(),
        steps: Vec::new(),
        domain: Vec::new(),
        counterexample: None,
        numeric: NumericCheck::default(),
    };
    // A quick numeric check at 12 fixed points catches most false claims; then the
    // normal form; then, unless it proved the claim, 38 seeded points more.
    let total = if vars.is_empty() { 1 } else { 50 };
    let split = total.min(12);
    let points = sample_values(vars.len(), 0, split);
    if let Some(c) = numeric_check(&ll, &rl, &vars, &points, &mut out.numeric) {
        return Ok(refuted(out, c));
    }
    if constant_verdict(&ll, &rl, &mut out) {
        return Ok(out);
    }
    let first = nf_difference(l, r, limits, Mode::Exact);
    let proved_by_nf = matches!(&first, Ok((_, _, d, _)) if d.is_zero());
    if !proved_by_nf
        && let Some(c) = numeric_check(&ll, &rl, &vars, &sample_values(vars.len(), split, total), &mut out.numeric)
    {
        return Ok(refuted(out, c));
    }
    let (nl, nr, diff, cx) = match first {
        Ok(v) => v,
        Err(SymError::Input { message: m }) => {
            out.reason = format!("could not compare the two sides: {m}");
            return Ok(out);
        }
        Err(e) => return Err(e),
    };
    if diff.is_zero() {
        return Ok(proved(out, &nl, &nr, &cx, false));
    }
    if let Some(c) = exact_refutation(&diff, &ll, &rl, &vars) {
        out.verdict = Verdict::Refuted;
        out.reason = format!(
            "the difference of the two sides is {} , not 0; at {} left is {} and right is {}",
            diff,
            point_text(&c.point),
            c.lhs_value,
            c.rhs_value
        );
        out.counterexample = Some(c);
        return Ok(out);
    }
    if let Ok((nl2, nr2, d2, cx2)) = nf_difference(l, r, limits, Mode::WhereDefined)
        && d2.is_zero()
    {
        return Ok(proved(out, &nl2, &nr2, &cx2, true));
    }
    if out.numeric.both_defined > 0
        && let Some(chain) = crate::saturate::prove(&ll, &rl)
    {
        out.verdict = Verdict::ProvedWhereDefined;
        out.domain = cx.cond_texts();
        if out.domain.is_empty() {
            out.domain.push("wherever every rewrite step is defined".into());
        }
        out.reason = "proved by equality saturation with rewrite rules, each valid wherever both of its sides are defined; the sides agree at every point tried".into();
        out.steps = chain;
        return Ok(out);
    }
    out.reason = if out.numeric.both_defined > 0 {
        format!(
            "no proof found: the normal forms differ by {diff}, yet the sides agree at all {} points tried where both are defined; treat this as unknown, not false",
            out.numeric.both_defined
        )
    } else {
        "no proof found, and no point tried has both sides defined; treat this as unknown, not false".to_string()
    };
    Ok(out)
}

/// Both sides constant with rational values (no π, no irrational root): decided by
/// exact arithmetic, before any normal form is built. A difference was already
/// confirmed exactly by the numeric check, so only equality is left to report here.
fn constant_verdict(l: &Expr, r: &Expr, out: &mut Verification) -> bool {
    if out.numeric.points != 1 || out.numeric.both_defined != 1 {
        return false;
    }
    let env = ExactEnv::new();
    let (Some(a), Some(b)) = (eval_exact(l, &env), eval_exact(r, &env)) else { return false };
    if a != b {
        return false;
    }
    let a = Expr::Num(a).to_string();
    out.verdict = Verdict::Proved;
    out.reason = format!("both sides are the rational number {a}, computed exactly");
    if real_root_of_negative(l, &env) || real_root_of_negative(r, &env) {
        out.reason.push_str("; ");
        out.reason.push_str(REAL_ROOT_NOTE);
    }
    out.steps = vec![
        format!("left side = {a} (exact rational arithmetic)"),
        format!("right side = {a}"),
        "left − right = 0".into(),
    ];
    true
}

/// Said (in the reason, and by the tools as a caveat) when a claim takes an odd root
/// of a negative number: the convention decides the verdict.
pub const REAL_ROOT_NOTE: &str = "an odd root of a negative number is taken as the real root ((-8)^(1/3) = -2), where complex-valued systems such as SymPy take the principal complex root instead";

/// Whether `e` takes an odd root of a negative number somewhere.
fn real_root_of_negative(e: &Expr, env: &ExactEnv) -> bool {
    match e {
        Expr::Pow(b, x) => {
            let odd_root = matches!(x.as_ref(), Expr::Num(r) if !r.is_integer());
            (odd_root && eval_exact(b, env).is_some_and(|v| v.is_negative()))
                || real_root_of_negative(b, env)
                || real_root_of_negative(x, env)
        }
        Expr::Add(v) | Expr::Mul(v) => v.iter().any(|t| real_root_of_negative(t, env)),
        Expr::Func(_, a) | Expr::Deriv(a, _, _) => real_root_of_negative(a, env),
        _ => false,
    }
}

type NfPair = (Nf, Nf, Nf, Cx);

fn nf_difference(l: &Expr, r: &Expr, limits: &Limits, mode: Mode) -> Result<NfPair> {
    let mut cx = Cx::new(*limits);
    cx.mode = mode;
    let nl = normal_form(l, &mut cx)?;
    let nr = normal_form(r, &mut cx)?;
    let mut diff = nl.sub(&nr, &mut cx)?;
    if !diff.is_zero()
        && let Some(d) = crate::nf::rebase_exp(&diff, &mut cx)?
    {
        diff = d;
    }
    Ok((nl, nr, diff, cx))
}

fn proved(mut out: Verification, nl: &Nf, nr: &Nf, cx: &Cx, where_defined_rules: bool) -> Verification {
    out.domain = cx.cond_texts();
    out.steps.push(format!("left side in normal form: {nl}"));
    out.steps.push(format!("right side in normal form: {nr}"));
    for r in &cx.rules {
        out.steps.push(format!("rule used: {r}"));
    }
    out.steps.push("left − right = 0".to_string());
    if out.numeric.both_defined == 0 {
        out.verdict = Verdict::Unknown;
        out.reason = "the normal forms agree, but no point tried has both sides defined, so the claim may be vacuous; treat as unknown".into();
        return out;
    }
    if out.domain.is_empty() && !where_defined_rules {
        out.verdict = Verdict::Proved;
        out.reason = "both sides have the same normal form (expanded, collected and cancelled), so they are equal for all real values".into();
    } else {
        out.verdict = Verdict::ProvedWhereDefined;
        let excl = if out.domain.is_empty() { "see the rules used".to_string() } else { out.domain.join(", ") };
        out.reason = format!(
            "both sides have the same normal form, so they are equal wherever both are defined ({excl}); {}",
            if where_defined_rules {
                "the proof uses rules that hold only where both sides are defined (see the steps)"
            } else {
                "outside that set at least one side is undefined"
            }
        );
    }
    if cx.rules.contains(ODD_ROOT_RULE) {
        out.reason.push_str("; ");
        out.reason.push_str(REAL_ROOT_NOTE);
    }
    out
}

/// The normal form's rule for odd real roots (see [`REAL_ROOT_NOTE`]).
pub const ODD_ROOT_RULE: &str = "odd real roots: root(a^e, k) = root(a, k)^e";

/// Deterministic sample points: small values first (with different values for
/// different variables), then seeded pseudo-random rationals of both signs.
pub fn sample_points(vars: &[String], n: usize) -> Vec<ExactEnv> {
    sample_values(vars.len(), 0, n).iter().map(|p| exact_env(vars, p)).collect()
}

/// Sample points as `(numerator, denominator)` pairs in one flat vector: `count`
/// rows of `nvars` columns (a point with no variables is an empty row).
struct Points {
    nvars: usize,
    count: usize,
    values: Vec<(i64, i64)>,
}

impl Points {
    fn iter(&self) -> impl Iterator<Item = &[(i64, i64)]> {
        (0..self.count).map(|i| &self.values[i * self.nvars..(i + 1) * self.nvars])
    }
}

/// Points `start..end` of [`sample_points`] as `(numerator, denominator)` pairs, one
/// row per point, one column per variable: cheap to make, turned into exact rationals
/// only when a point is confirmed. `start` is 0 or at least the number of fixed points.
fn sample_values(nvars: usize, start: usize, end: usize) -> Points {
    const FIXED: [(i64, i64); 12] =
        [(2, 1), (-1, 1), (1, 2), (3, 1), (-2, 1), (-1, 3), (5, 2), (1, 1), (0, 1), (-7, 4), (2, 3), (-5, 1)];
    debug_assert!(start == 0 || start >= FIXED.len() || start >= end);
    let mut rng = SplitMix(0x5eed_a77e_57ed);
    let count = end.saturating_sub(start);
    let mut values = Vec::with_capacity(count * nvars);
    for i in start..end {
        for j in 0..nvars {
            values.push(if i < FIXED.len() {
                FIXED[(i + 5 * j) % FIXED.len()]
            } else {
                let num = (rng.next() % 61) as i64 - 30;
                let den = (rng.next() % 7) as i64 + 1;
                (num, den)
            });
        }
    }
    Points { nvars, count, values }
}

fn exact_env(vars: &[String], values: &[(i64, i64)]) -> ExactEnv {
    vars.iter().zip(values).map(|(v, (n, d))| (v.clone(), qf(*n, *d))).collect()
}

/// A tiny deterministic generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * 1f64.max(a.abs()).max(b.abs())
}

fn refuted(mut out: Verification, c: Counterexample) -> Verification {
    out.verdict = Verdict::Refuted;
    out.reason =
        format!("the two sides differ at {}: left {} but right {}", point_text(&c.point), c.lhs_value, c.rhs_value);
    out.counterexample = Some(c);
    out
}

fn numeric_check(
    l: &Expr,
    r: &Expr,
    vars: &[String],
    points: &Points,
    stats: &mut NumericCheck,
) -> Option<Counterexample> {
    let mut fvals = vec![0.0; vars.len()];
    let (lp, rp) = (FloatProgram::new(l, vars), FloatProgram::new(r, vars));
    let mut stack = Vec::with_capacity(8);
    for p in points.iter() {
        stats.points += 1;
        for (f, (n, d)) in fvals.iter_mut().zip(p) {
            *f = *n as f64 / *d as f64;
        }
        match (lp.eval(&fvals, &mut stack), rp.eval(&fvals, &mut stack)) {
            (Some(a), Some(b)) => {
                stats.both_defined += 1;
                if close(a, b) {
                    stats.agreeing += 1;
                } else if let Some(c) = confirm(l, r, &exact_env(vars, p)) {
                    return Some(c);
                }
            }
            (Some(_), None) => stats.lhs_only += 1,
            (None, Some(_)) => stats.rhs_only += 1,
            (None, None) => {}
        }
    }
    None
}

/// Confirm that the two sides really differ at `env`: exactly when both values are
/// rational, else by disjoint intervals.
pub fn confirm(l: &Expr, r: &Expr, env: &ExactEnv) -> Option<Counterexample> {
    let point = env.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
    if let (Some(a), Some(b)) = (eval_exact(l, env), eval_exact(r, env)) {
        return (a != b).then(|| Counterexample {
            point,
            lhs_value: a.to_string(),
            rhs_value: b.to_string(),
            confirmed_by: "exact".into(),
        });
    }
    let (a, b) = (eval_interval(l, env)?, eval_interval(r, env)?);
    a.disjoint(&b).then(|| Counterexample {
        point,
        lhs_value: show_value(l, env, a.lo, a.hi),
        rhs_value: show_value(r, env, b.lo, b.hi),
        confirmed_by: "interval".into(),
    })
}

fn show_value(e: &Expr, env: &ExactEnv, lo: f64, hi: f64) -> String {
    match eval_exact(e, env) {
        Some(v) => v.to_string(),
        None => attest_core::text::fmt_sig(0.5 * (lo + hi), 10),
    }
}

/// When the difference is a non-zero polynomial in plain variables only, it is
/// non-zero at some sample point: find one, exactly.
fn exact_refutation(diff: &Nf, l: &Expr, r: &Expr, vars: &[String]) -> Option<Counterexample> {
    if !diff.atoms().iter().all(|a| matches!(a, Atom::Sym(_))) {
        return None;
    }
    sample_values(vars.len(), 0, 50).iter().find_map(|p| {
        let env = exact_env(vars, p);
        let (a, b) = (eval_exact(l, &env)?, eval_exact(r, &env)?);
        (a != b).then(|| Counterexample {
            point: env.iter().map(|(k, v)| (k.clone(), v.to_string())).collect(),
            lhs_value: a.to_string(),
            rhs_value: b.to_string(),
            confirmed_by: "exact".into(),
        })
    })
}

fn point_text(p: &BTreeMap<String, String>) -> String {
    if p.is_empty() {
        return "every point (both sides are constants)".into();
    }
    p.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

/// One step of a checked derivation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CheckStep {
    /// 1-based line number of the step's left side.
    pub from_line: usize,
    /// 1-based line number of the step's right side.
    pub to_line: usize,
    /// The verification of this step.
    pub verification: Verification,
}

/// The answer of [`check`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CheckReport {
    /// Every consecutive pair, in order.
    pub steps: Vec<CheckStep>,
    /// Whether every step is proved (or proved where defined).
    pub all_proved: bool,
    /// The first step refuted, as `(from_line, to_line)`.
    pub first_refuted: Option<(usize, usize)>,
    /// Steps neither proved nor refuted.
    pub unknown_steps: usize,
}

/// Check a derivation written one step per line (a line may start with `=`, or be
/// an equation `a = b`, whose sides are both steps). Blank lines are skipped.
pub fn check(text: &str, limits: &Limits) -> Result<CheckReport> {
    if text.len() > limits.max_len * 4 {
        return Err(SymError::limit(format!("the derivation is over {} characters", limits.max_len * 4)));
    }
    let mut items: Vec<(usize, Expr)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim().trim_start_matches('=').trim();
        let line = line.trim_end_matches(['.', ',', ';']).trim();
        if line.is_empty() {
            continue;
        }
        for e in parse_chain(line, limits).map_err(|e| prefix_line(e, i + 1))? {
            items.push((i + 1, e));
        }
    }
    if items.len() < 2 {
        return Err(SymError::input("a derivation needs at least two steps: one expression per line"));
    }
    if items.len() > 50 {
        return Err(SymError::limit("a derivation may have at most 50 steps"));
    }
    let mut steps = Vec::new();
    for w in items.windows(2) {
        let v = verify_exprs(&w[0].1, &w[1].1, limits)?;
        steps.push(CheckStep { from_line: w[0].0, to_line: w[1].0, verification: v });
    }
    let all_proved =
        steps.iter().all(|s| matches!(s.verification.verdict, Verdict::Proved | Verdict::ProvedWhereDefined));
    let first_refuted =
        steps.iter().find(|s| s.verification.verdict == Verdict::Refuted).map(|s| (s.from_line, s.to_line));
    let unknown_steps = steps.iter().filter(|s| s.verification.verdict == Verdict::Unknown).count();
    Ok(CheckReport { steps, all_proved, first_refuted, unknown_steps })
}

fn prefix_line(e: SymError, line: usize) -> SymError {
    match e {
        SymError::Parse { message, position, caret } => {
            SymError::Parse { message: format!("line {line}: {message}"), position, caret }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(l: &str, r: &str) -> Verification {
        verify(l, r, &Limits::default()).unwrap_or_else(|e| panic!("{l} = {r}: {e}"))
    }

    #[test]
    fn headline_cases() {
        assert_eq!(v("(a+b)^2", "a^2 + 2ab + b^2").verdict, Verdict::Proved);
        let w = v("(x^2-1)/(x-1)", "x+1");
        assert_eq!(w.verdict, Verdict::ProvedWhereDefined);
        assert_eq!(w.domain, ["x ≠ 1"]);
        let s = v("sqrt(x^2)", "x");
        assert_eq!(s.verdict, Verdict::Refuted);
        let c = s.counterexample.unwrap();
        assert_eq!(c.point["x"], "-1");
        assert_eq!((c.lhs_value.as_str(), c.rhs_value.as_str()), ("1", "-1"));
        assert_eq!(v("sin(x)^2 + cos(x)^2", "1").verdict, Verdict::Proved);
        assert_eq!(v("d/dx sin(x)^2", "2 sin(x) cos(x)").verdict, Verdict::Proved);
        assert_eq!(v("log(x y)", "log(x) + log(y)").verdict, Verdict::ProvedWhereDefined);
        let t = v("sin(x)", "x");
        assert_eq!(t.verdict, Verdict::Refuted);
        assert_eq!(t.counterexample.unwrap().confirmed_by, "interval");
    }

    #[test]
    fn exp_with_fractional_exponents_share_a_base() {
        for (l, r) in [
            ("exp(x/2)^2", "exp(x)"),
            ("exp(x/2) exp(x/3)", "exp(5x/6)"),
            ("exp(-x/2)^2 exp(x)", "1"),
            ("exp(x/3)^3 / exp(x/2)", "exp(x/2)"),
            ("exp(x y/2)^2", "exp(x y)"),
        ] {
            let w = v(l, r);
            assert_eq!(w.verdict, Verdict::Proved, "{l} = {r}: {}", w.reason);
            assert!(w.domain.is_empty(), "{l} = {r}");
        }
        // Near misses are never proved.
        for (l, r) in [
            ("exp(x/2)^2", "exp(x) + 10^-30"),
            ("exp(x/2)^3", "exp(x)"),
            ("exp(x/3)^2", "exp(x/2)"),
            ("exp(x/2) exp(y/2)", "exp(x/2 + y/3)"),
            ("exp(x/2)^2", "exp(x y)"),
        ] {
            let w = v(l, r);
            assert!(!matches!(w.verdict, Verdict::Proved | Verdict::ProvedWhereDefined), "{l} = {r}: {}", w.reason);
        }
        assert_eq!(v("exp(x/2)^2", "exp(x) + 10^-30").verdict, Verdict::Refuted);
    }

    #[test]
    fn constants_are_decided_exactly() {
        for (l, r) in [("0.1 + 0.2", "0.3"), ("8^(1/3)", "2"), ("1/2 + 1/3", "5/6"), ("log(1)", "0")] {
            let w = v(l, r);
            assert_eq!(w.verdict, Verdict::Proved, "{l} = {r}: {}", w.reason);
        }
        for (l, r) in [("1/3", "0.333333333333333333"), ("0.1 + 0.2", "0.30000000000000004"), ("2^10", "1000")] {
            let w = v(l, r);
            assert_eq!(w.verdict, Verdict::Refuted, "{l} = {r}: {}", w.reason);
            assert_eq!(w.counterexample.unwrap().confirmed_by, "exact");
        }
        // Odd roots of negative numbers are real, and the answer says so.
        let w = v("(-8)^(1/3)", "-2");
        assert_eq!(w.verdict, Verdict::Proved, "{}", w.reason);
        assert!(w.reason.contains("real root"), "{}", w.reason);
        assert!(!v("8^(1/3)", "2").reason.contains("real root"));
        // sqrt(2) is not rational: never proved equal to its float.
        assert!(!matches!(v("sqrt(2)", "1.4142135623730951").verdict, Verdict::Proved | Verdict::ProvedWhereDefined));
    }

    #[test]
    fn check_finds_the_bad_step() {
        let r = check("(x+1)^2 - 1\n= x^2 + 2x\n= x(x+2)\n= x^2 + 2x + 1", &Limits::default()).unwrap();
        assert_eq!(r.steps.len(), 3);
        assert_eq!(r.first_refuted, Some((3, 4)));
        assert!(!r.all_proved);
    }
}
