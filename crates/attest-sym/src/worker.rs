//! The worker protocol of the symbolic surface: one JSON request in, one JSON
//! response out, computed with this library under [`Limits::default`].
//!
//! This module is pure: it does not spawn, read stdin or know about processes. The
//! surface binary runs [`handle`] inside a sandboxed worker process
//! (`attest_sandbox::worker_main(attest_sym::worker::handle)`); tests and the CLI may call
//! it in-process. Requests are [`Request`]s tagged by `op`:
//!
//! ```json
//! {"op": "verify", "lhs": "(a+b)^2", "rhs": "a^2 + 2ab + b^2"}
//! ```
//!
//! and a response is either
//!
//! ```json
//! {"ok": <the typed result>, "answer": "proved: …", "caveats": ["…"]}
//! {"err": {"kind": "parse", "message": "…", "position": 4, "caret": "…"}, "answer": "could not read …"}
//! ```
//!
//! `answer` is the line a researcher reads verbatim and `caveats` the reasons not to
//! trust it; both are worded here, next to the typed results, so every executor (the
//! sandbox, in-process) words them the same way. [`handle`] never panics on any
//! request; a panic would still only end the worker process.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::derivation::DerivationResult;
use crate::error::SymError;
use crate::integrate::Integral;
use crate::limit::{LimitResult, LimitStatus};
use crate::limits::Limits;
use crate::linalg::{MatrixResult, SystemSolution};
use crate::ops::{Derivative, Evaluated, Simplified, UnitsResult};
use crate::series::SeriesResult;
use crate::solve::Solution;
use crate::sums::{SumResult, SumStatus};
use crate::verify::{CheckReport, Verdict, Verification};

/// One request to the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Request {
    /// Simplify an expression.
    Simplify {
        /// The expression.
        expr: String,
    },
    /// Solve an equation (or an expression `= 0`).
    Solve {
        /// The equation.
        expr: String,
        /// The unknown (default: the only variable).
        #[serde(default)]
        var: Option<String>,
        /// Only roots in `[lower, upper]` (constant expressions).
        #[serde(default)]
        range: Option<[String; 2]>,
    },
    /// Differentiate.
    Differentiate {
        /// The expression.
        expr: String,
        /// The variable (default: the only one).
        #[serde(default)]
        var: Option<String>,
        /// The order (default 1).
        #[serde(default)]
        order: Option<u32>,
    },
    /// Integrate, indefinitely or over bounds.
    Integrate {
        /// The integrand.
        expr: String,
        /// The variable (default: the only one).
        #[serde(default)]
        var: Option<String>,
        /// Lower and upper bound.
        #[serde(default)]
        bounds: Option<[String; 2]>,
    },
    /// The steps of an operation.
    Derivation {
        /// The expression.
        expr: String,
        /// `differentiate`, `integrate` or `simplify`.
        operation: String,
        /// The variable.
        #[serde(default)]
        var: Option<String>,
    },
    /// Verify `lhs = rhs`.
    Verify {
        /// The left side.
        lhs: String,
        /// The right side.
        rhs: String,
    },
    /// Verify one equation `lhs = rhs` written as one string.
    VerifyEquation {
        /// The equation.
        equation: String,
    },
    /// Evaluate an expression after substitutions, or a quantity with units.
    Evaluate {
        /// The expression (absent for a units question).
        #[serde(default)]
        expr: Option<String>,
        /// Values for the variables, each a constant expression.
        #[serde(default)]
        subs: BTreeMap<String, String>,
        /// A quantity with units, e.g. "3.2 eV in joules".
        #[serde(default)]
        units: Option<String>,
    },
    /// The limit of an expression as a variable approaches a point.
    Limit {
        /// The expression, or the whole `\lim_{x \to a} f`.
        expr: String,
        /// The variable (default: the only one).
        #[serde(default)]
        var: Option<String>,
        /// The point: a number, `oo` or `-oo` (absent when `expr` says it).
        #[serde(default)]
        to: Option<String>,
        /// `left`, `right` or `both` (default).
        #[serde(default)]
        direction: Option<String>,
    },
    /// A Taylor series.
    Series {
        /// The expression.
        expr: String,
        /// The variable (default: the only one).
        #[serde(default)]
        var: Option<String>,
        /// The point expanded about (default 0).
        #[serde(default)]
        about: Option<String>,
        /// The order: the remainder is `O((x − a)^order)` (default 6).
        #[serde(default)]
        order: Option<u32>,
    },
    /// A finite sum or a series.
    Sum {
        /// The summand, or the whole `\sum_{k=1}^{n} f`.
        expr: String,
        /// The index (default: the summand's variable).
        #[serde(default)]
        var: Option<String>,
        /// The lower bound.
        #[serde(default)]
        lower: Option<String>,
        /// The upper bound (`oo` for a series).
        #[serde(default)]
        upper: Option<String>,
    },
    /// A matrix operation.
    Matrix {
        /// The matrix, or two matrices for a product.
        expr: String,
        /// `determinant`, `inverse`, `rank`, `transpose`, `product`, `eigenvalues` or
        /// `summary`.
        #[serde(default)]
        operation: Option<String>,
    },
    /// Check a derivation, one step per line.
    Check {
        /// The lines.
        lines: String,
    },
    /// Is the worker alive? Answers `{"ok": "pong"}`.
    Ping,
}

/// Serve one request: parse it as a [`Request`], run it with default limits, and
/// answer `{"ok", "answer", "caveats"}` or `{"err", "answer"}`. Never panics.
pub fn handle(request: Value) -> Value {
    match serde_json::from_value::<Request>(request) {
        Ok(r) => run(&r, &Limits::default()),
        Err(e) => {
            let err = SymError::input(format!("the worker could not read the request: {e}"));
            json!({ "answer": err.to_string(), "err": err })
        }
    }
}

/// Run a typed request under `limits`; the JSON response as [`handle`] gives it.
pub fn run(request: &Request, limits: &Limits) -> Value {
    let l = limits;
    let done = match request {
        Request::Ping => return json!({ "ok": "pong", "answer": "pong", "caveats": [] }),
        Request::Simplify { expr } => crate::simplify(expr, l).map(|r| respond(present_simplify(&r), &r)),
        Request::Solve { expr, range: Some(_), .. } if crate::linalg::split_system(expr).is_some() => {
            Err(crate::error::SymError::unsupported(
                "a range applies to one equation in one unknown, not to a system; solve the system without it",
            ))
        }
        Request::Solve { expr, var, .. } if crate::linalg::split_system(expr).is_some() => {
            let vars: Option<Vec<String>> =
                var.as_ref().map(|v| v.split([',', ' ']).filter(|s| !s.is_empty()).map(str::to_string).collect());
            crate::solve_system(expr, vars.as_deref(), l).map(|r| respond(present_system(&r), &r))
        }
        Request::Solve { expr, var, range } => range
            .as_ref()
            .map(|[lo, hi]| crate::solve::range_of(lo, hi, l))
            .transpose()
            .and_then(|range| crate::solve::solve_in(expr, var.as_deref(), range, l))
            .map(|r| respond(present_solve(&r), &r)),
        Request::Limit { expr, var, to, direction } => {
            run_limit(expr, var.as_deref(), to.as_deref(), direction.as_deref(), l)
        }
        Request::Series { expr, var, about, order } => {
            crate::series(expr, var.as_deref(), about.as_deref(), order.unwrap_or(6), l)
                .map(|r| respond(present_series(&r), &r))
        }
        Request::Sum { expr, var, lower, upper } => {
            run_sum(expr, var.as_deref(), lower.as_deref(), upper.as_deref(), l)
        }
        Request::Matrix { expr, operation } => {
            crate::matrix(expr, operation.as_deref(), l).map(|r| respond(present_matrix(&r), &r))
        }
        Request::Differentiate { expr, var, order } => {
            crate::differentiate(expr, var.as_deref(), order.unwrap_or(1), l)
                .map(|r| respond(present_derivative(&r), &r))
        }
        Request::Integrate { expr, var, bounds } => {
            let b = bounds.as_ref().map(|[a, b]| (a.as_str(), b.as_str()));
            crate::integrate(expr, var.as_deref(), b, l).map(|r| respond(present_integral(&r), &r))
        }
        Request::Derivation { expr, operation, var } => {
            crate::derivation(expr, operation, var.as_deref(), l).map(|r| respond(present_derivation(&r), &r))
        }
        Request::Verify { lhs, rhs } if crate::matexpr::is_matrix_claim(lhs, rhs) => {
            crate::matexpr::verify(lhs, rhs, l).map(|r| respond(present_verification(&r), &r))
        }
        Request::VerifyEquation { equation } if crate::matexpr::is_matrix_claim(equation, "") => {
            match crate::matexpr::split_claim(equation) {
                Some((lhs, rhs)) => crate::matexpr::verify(lhs, rhs, l).map(|r| respond(present_verification(&r), &r)),
                None => Err(SymError::input("a matrix identity needs one '=' between its two sides")),
            }
        }
        Request::Verify { lhs, rhs } => crate::verify(lhs, rhs, l)
            .map(|r| respond(present_verification(&r), &r))
            .map_err(|e| which_side(e, lhs, rhs, l)),
        Request::VerifyEquation { equation } => {
            crate::verify_equation(equation, l).map(|r| respond(present_verification(&r), &r))
        }
        Request::Evaluate { units: Some(u), .. } if !u.trim().is_empty() => {
            crate::evaluate_units(u).map(|r| respond(present_units(&r), &r))
        }
        Request::Evaluate { expr: Some(e), subs, .. } if !e.trim().is_empty() => {
            crate::evaluate(e, subs, l).map(|r| respond(present_evaluated(&r), &r))
        }
        Request::Evaluate { .. } => Err(SymError::input(
            "give an expression to evaluate (expr, with subs for its variables) or a quantity with units (units, e.g. '3.2 eV in joules')",
        )),
        Request::Check { lines } => crate::check(lines, l).map(|r| respond(present_check(&r), &r)),
    };
    done.unwrap_or_else(|e| json!({ "answer": present_error(&e), "err": e }))
}

fn run_limit(
    expr: &str,
    var: Option<&str>,
    to: Option<&str>,
    direction: Option<&str>,
    l: &Limits,
) -> Result<Value, SymError> {
    let to = to.map(str::trim).filter(|t| !t.is_empty());
    let (body, v, point, side) = match (to, crate::limit::notation(expr)) {
        (None, Some((b, v, a, s))) => (b, Some(v), a, s),
        (Some(t), _) => {
            let (a, s) = crate::limit::strip_side(t);
            (expr.to_string(), var.map(str::to_string), a, s)
        }
        (None, None) => {
            return Err(SymError::input(
                "give the point the variable approaches in to (a number, oo or -oo), or write \\lim_{x \\to a} f",
            ));
        }
    };
    let v = var.map(str::to_string).or(v);
    let dir = direction.map(str::trim).filter(|d| !d.is_empty()).or(side);
    crate::limit(&body, v.as_deref(), &point, dir, l).map(|r| respond(present_limit(&r), &r))
}

fn run_sum(
    expr: &str,
    var: Option<&str>,
    lower: Option<&str>,
    upper: Option<&str>,
    l: &Limits,
) -> Result<Value, SymError> {
    let given = |s: Option<&str>| s.map(str::trim).filter(|t| !t.is_empty()).map(str::to_string);
    let (body, v, a, b) = match (given(upper), crate::sums::notation(expr)) {
        (None, Some((body, k, a, b))) => (body, Some(k), a, b),
        (Some(b), _) => (expr.to_string(), None, given(lower).unwrap_or_else(|| "1".into()), b),
        (None, None) => {
            return Err(SymError::input(
                "give the bounds in lower and upper (upper may be oo), or write \\sum_{k=1}^{n} f",
            ));
        }
    };
    let v = var.map(str::to_string).or(v);
    crate::sum(&body, v.as_deref(), &a, &b, l).map(|r| respond(present_sum(&r), &r))
}

/// A parse error in `verify(lhs, rhs)` does not say which side; find out.
fn which_side(e: SymError, lhs: &str, rhs: &str, l: &Limits) -> SymError {
    match e {
        SymError::Parse { message, position, caret } => {
            let side = if crate::parse_expr(lhs, l).is_err() {
                "left side"
            } else if crate::parse_expr(rhs, l).is_err() {
                "right side"
            } else {
                return SymError::Parse { message, position, caret };
            };
            SymError::Parse { message: format!("{side}: {message}"), position, caret }
        }
        other => other,
    }
}

fn respond<T: Serialize>((answer, caveats): (String, Vec<String>), result: &T) -> Value {
    json!({ "ok": result, "answer": answer, "caveats": caveats })
}

// ---------------------------------------------------------------------------------------
// Answer wording: the line a researcher reads verbatim, and the caveats.

/// The answer line for a refusal: what went wrong and, for a parse error, where.
pub fn present_error(e: &SymError) -> String {
    match e {
        SymError::Parse { message, position, caret } => {
            format!("could not read the input: {message} (at position {position})\n{caret}")
        }
        SymError::Limit { message } => format!("refused: {message}"),
        // "cannot integrate …" already says so; other messages get the lead-in.
        SymError::Unsupported { message } if message.starts_with("cannot ") => message.clone(),
        SymError::Unsupported { message } => format!("cannot do this: {message}"),
        SymError::Input { message } => message.clone(),
    }
}

fn point_text(point: &BTreeMap<String, String>) -> String {
    point.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")
}

/// Split domain conditions into excluded points (`x ≠ 1` → `x = 1`) and the rest.
fn domain_phrase(domain: &[String]) -> String {
    let mut except = Vec::new();
    let mut within = Vec::new();
    for d in domain {
        match d.split_once(" ≠ ") {
            Some((a, b)) => except.push(format!("{a} = {b}")),
            None => within.push(d.clone()),
        }
    }
    let mut parts = Vec::new();
    if !within.is_empty() {
        parts.push(format!("for {}", within.join(" and ")));
    }
    if !except.is_empty() {
        parts.push(format!("except at {}", except.join(" and ")));
    }
    parts.join(", ")
}

/// The reason of a proof in a few words.
fn proof_tag(v: &Verification) -> String {
    let rules: Vec<&str> = v.steps.iter().filter_map(|s| s.strip_prefix("rule used: ")).collect();
    if v.reason.starts_with("proved by equality saturation") {
        "equality saturation".into()
    } else if v.reason.starts_with("both sides computed exactly in rational arithmetic") {
        "exact matrix arithmetic, recomputed in floating point".into()
    } else if v.reason.starts_with("both sides are the rational number") {
        "exact rational arithmetic".into()
    } else if rules.is_empty() {
        "polynomial normal form".into()
    } else {
        let shown: Vec<&str> = rules.iter().take(2).copied().collect();
        let more = if rules.len() > 2 { format!(" and {} more", rules.len() - 2) } else { String::new() };
        format!("normal form, using {}{more}", shown.join("; "))
    }
}

/// The answer line and caveats of a verification.
pub fn present_verification(v: &Verification) -> (String, Vec<String>) {
    let claim = format!("{} = {}", clip(&v.lhs), clip(&v.rhs));
    let mut caveats = Vec::new();
    if v.reason.contains(crate::verify::REAL_ROOT_NOTE) {
        caveats.push(crate::verify::REAL_ROOT_NOTE.to_string());
    }
    let line = match v.verdict {
        Verdict::Proved => format!("proved: {claim} ({})", proof_tag(v)),
        Verdict::ProvedWhereDefined => {
            let real: Vec<String> = v.domain.iter().filter(|d| !d.starts_with("wherever")).cloned().collect::<Vec<_>>();
            let where_ = domain_phrase(&real);
            if !real.is_empty() {
                caveats.push(format!("holds only where both sides are defined: {}", real.join(", ")));
            } else if v.reason.starts_with("proved by equality saturation") {
                caveats.push(
                    "proved with rewrite rules that each hold wherever both of their sides are defined (see data.steps)"
                        .into(),
                );
            }
            if v.reason.contains("rules that hold only where both sides are defined") {
                caveats.push("the proof uses rules valid only where both sides are defined (see data.steps)".into());
            }
            if where_.is_empty() {
                format!("proved where defined: {claim} ({})", proof_tag(v))
            } else {
                format!("proved where defined: {claim}, {where_}")
            }
        }
        Verdict::Refuted => match &v.counterexample {
            Some(c) if !c.point.is_empty() => format!(
                "refuted at {}: left {}, right {}, so {claim} is not an identity",
                point_text(&c.point),
                c.lhs_value,
                c.rhs_value
            ),
            Some(c) => format!("refuted: left {}, right {}, so {claim} is false", c.lhs_value, c.rhs_value),
            None => format!("refuted: {claim} is false ({})", v.reason),
        },
        Verdict::Unknown => {
            caveats.push(v.reason.clone());
            if !v.reason.contains("not false") {
                caveats.push("unknown is not false: the claim may still hold".into());
            }
            format!("unknown: no proof and no counterexample for {claim}")
        }
    };
    if v.verdict == Verdict::Refuted
        && let Some(c) = &v.counterexample
        && c.confirmed_by != "exact"
    {
        caveats.push(format!("the difference was confirmed by {} arithmetic, not exactly", c.confirmed_by));
    }
    (line, caveats)
}

fn present_check(r: &CheckReport) -> (String, Vec<String>) {
    let n = r.steps.len();
    let mut caveats = Vec::new();
    for s in &r.steps {
        if s.verification.verdict == Verdict::ProvedWhereDefined && !s.verification.domain.is_empty() {
            caveats.push(format!(
                "line {} → {} holds only where defined: {}",
                s.from_line,
                s.to_line,
                s.verification.domain.join(", ")
            ));
        }
    }
    let unknown: Vec<String> = r
        .steps
        .iter()
        .filter(|s| s.verification.verdict == Verdict::Unknown)
        .map(|s| format!("{} → {}", s.from_line, s.to_line))
        .collect();
    let line = if let Some((a, b)) = r.first_refuted {
        let step = r.steps.iter().find(|s| (s.from_line, s.to_line) == (a, b)).map(|s| &s.verification);
        let at = match step.and_then(|v| v.counterexample.as_ref()) {
            Some(c) if !c.point.is_empty() => {
                format!(" at {}: left {}, right {}", point_text(&c.point), c.lhs_value, c.rhs_value)
            }
            Some(c) => format!(": left {}, right {}", c.lhs_value, c.rhs_value),
            None => String::new(),
        };
        let claim = step.map(|v| format!(" ({} = {})", clip(&v.lhs), clip(&v.rhs))).unwrap_or_default();
        format!("refuted: the step from line {a} to line {b}{claim} fails{at}")
    } else if !unknown.is_empty() {
        caveats.push("unknown is not false: those steps may still hold".into());
        format!(
            "unknown: {} of {n} steps could not be decided (lines {}); the others hold",
            unknown.len(),
            unknown.join(", ")
        )
    } else if r.steps.iter().any(|s| s.verification.verdict == Verdict::ProvedWhereDefined) {
        format!("proved where defined: {} where both sides are defined", all_steps(n))
    } else {
        format!("proved: {}", all_steps(n))
    };
    if r.first_refuted.is_some() && !unknown.is_empty() {
        caveats.push(format!("{} other step(s) are unknown (lines {})", unknown.len(), unknown.join(", ")));
    }
    (line, caveats)
}

fn all_steps(n: usize) -> String {
    if n == 1 { "the step holds".into() } else { format!("all {n} steps hold") }
}

/// An input echoed in an answer line, cut so the line stays readable (the whole of it
/// is in `data`).
fn clip(e: &str) -> String {
    attest_core::text::clip(e, 300)
}

/// A result in an answer line, cut only when very long (the whole of it is in `data`).
fn clip_out(e: &str) -> String {
    attest_core::text::clip(e, 1500)
}

fn present_simplify(r: &Simplified) -> (String, Vec<String>) {
    // An input already in its simplest form is said once ("x^3 - x = x*(x - 1)*(x + 1)").
    let mut line = if r.input.replace(' ', "") == r.result.replace(' ', "") {
        format!("simplified: {}", clip_out(&r.result))
    } else {
        format!("simplified: {} = {}", clip(&r.input), clip_out(&r.result))
    };
    if let Some(x) = r.numeric
        && x.to_string() != r.result
        && r.result.parse::<f64>().is_err()
    {
        line.push_str(&format!(" ≈ {}", attest_core::text::fmt_sig(x, 12)));
    }
    if let Some(f) = &r.factored {
        line.push_str(&format!(" = {}", clip_out(f)));
    }
    let mut caveats: Vec<String> = r.factor_note.iter().cloned().collect();
    if !r.domain.is_empty() {
        line.push_str(&format!(", {}", domain_phrase(&r.domain)));
        caveats.push(format!(
            "equal only where the input is defined ({}); the simplified form may be defined where the input is not",
            r.domain.join(", ")
        ));
    }
    (line, caveats)
}

fn present_derivative(r: &Derivative) -> (String, Vec<String>) {
    let d =
        if r.order == 1 { format!("d/d{}", r.variable) } else { format!("d^{}/d{}^{}", r.order, r.variable, r.order) };
    (format!("{d} [{}] = {}", clip(&r.input), clip_out(&r.result)), Vec::new())
}

fn present_integral(r: &Integral) -> (String, Vec<String>) {
    let v = &r.variable;
    let line = match (&r.bounds, &r.value) {
        (Some([a, b]), Some(value)) if value == "diverges" => {
            format!("∫ from {a} to {b} of {} d{v} diverges", clip(&r.input))
        }
        (Some([a, b]), Some(value)) => {
            let approx = r
                .numeric
                .filter(|x| value.parse::<f64>().is_err() || x.to_string() != *value)
                .map(|x| format!(" ≈ {}", attest_core::text::fmt_sig(x, 12)))
                .unwrap_or_default();
            format!("∫ from {a} to {b} of {} d{v} = {}{approx}", clip(&r.input), clip_out(value))
        }
        (Some([a, b]), None) => {
            let n = r.numeric.map(|x| attest_core::text::fmt_sig(x, 12)).unwrap_or_else(|| "?".into());
            format!("∫ from {a} to {b} of {} d{v} ≈ {n}", clip(&r.input))
        }
        _ => format!("∫ {} d{v} = {} + C", clip(&r.input), clip_out(&r.antiderivative)),
    };
    let mut caveats = Vec::new();
    if r.bounds.is_some() && r.value.is_none() {
        caveats.push("the value is numeric, not exact".to_string());
    }
    if !r.root_sums.is_empty() {
        for s in &r.root_sums {
            let mut roots: Vec<String> = Vec::new();
            let mut i = 0;
            while i < s.roots.len() {
                let z = &s.roots[i];
                match (z.split_once(" + "), s.roots.get(i + 1)) {
                    (Some((re, im)), Some(next)) if *next == format!("{re} - {im}") => {
                        roots.push(format!("{re} ± {im}"));
                        i += 2;
                    }
                    _ => {
                        roots.push(z.clone());
                        i += 1;
                    }
                }
            }
            let real = match s.real_roots {
                0 => "none of them real".to_string(),
                k if k == s.degree => "all of them real".to_string(),
                k => format!("{k} real"),
            };
            let i = s.text.strip_prefix("Σ_{").and_then(|t| t.split_once(':')).map_or("r", |(i, _)| i);
            caveats.push(format!(
                "Σ runs over the {} complex roots {i} of {} = 0 ({real}): {i} ≈ {}",
                s.degree,
                s.polynomial,
                roots.join(", ")
            ));
            if s.coefficient != s.reduced {
                caveats.push(format!(
                    "the coefficient of log({v} − {i}) is A({i})/Q'({i}) = {}, which is {} modulo {} (exact)",
                    s.coefficient, s.reduced, s.polynomial
                ));
            }
            caveats.push(format!("in LaTeX: {}", s.latex));
        }
        caveats.push(format!(
            "log is the complex logarithm: for real {v} the root sum is real up to a constant on each interval \
             between real poles (conjugate roots pair up into real logarithms and arctangents)"
        ));
    }
    // How the answer was confirmed, as every symbolic answer says it.
    if !r.checked.is_empty() {
        caveats.push(format!("checked: {}", r.checked));
    }
    (line, caveats)
}

fn present_solve(r: &Solution) -> (String, Vec<String>) {
    let v = &r.variable;
    let mut caveats: Vec<String> = r.notes.clone();
    let line = if r.roots.is_empty() {
        format!("no real solution for {v} found: {}", clip(&r.equation))
    } else {
        let roots: Vec<String> = r
            .roots
            .iter()
            .map(|x| {
                let eq = if x.exact { "=" } else { "≈" };
                let mult =
                    if x.multiplicity > 1 { format!(" (multiplicity {})", x.multiplicity) } else { String::new() };
                format!("{v} {eq} {}{mult}", clip(&x.value))
            })
            .collect();
        format!("{}: {}", clip(&r.equation), clip_out(&roots.join(", ")))
    };
    if r.roots.iter().any(|x| !x.exact) {
        caveats.push("roots marked ≈ are numeric, not exact".into());
    }
    let unchecked: Vec<&str> = r.roots.iter().filter(|x| !x.checked).map(|x| x.value.as_str()).collect();
    if !unchecked.is_empty() {
        caveats.push(format!("substituting back did not confirm: {}", unchecked.join(", ")));
    }
    (line, caveats)
}

fn present_evaluated(r: &Evaluated) -> (String, Vec<String>) {
    let shown = clip(&r.substituted);
    let approx = format!(" ≈ {}", attest_core::text::fmt_sig(r.numeric, 12));
    if r.exact {
        // "d/dx(x^2) at x = 3: 6"
        if r.substituted.starts_with(&r.input) && r.substituted.len() > r.input.len() {
            let approx = if r.value.chars().any(char::is_alphabetic) { approx } else { String::new() };
            return (format!("{shown}: {}{approx}", r.value), Vec::new());
        }
        if r.value == r.substituted {
            return (format!("{shown}{approx}"), Vec::new());
        }
        // Rationals are exact as written; irrational closed forms get a decimal too.
        let approx = if r.value.chars().any(char::is_alphabetic) { approx } else { String::new() };
        (format!("{shown} = {}{approx}", r.value), Vec::new())
    } else {
        (format!("{shown} ≈ {}", r.value), vec!["a 12-significant-digit decimal, not an exact value".into()])
    }
}

fn present_units(r: &UnitsResult) -> (String, Vec<String>) {
    let mut caveats = Vec::new();
    if r.result.starts_with("approx.") {
        caveats.push("the conversion is rounded".to_string());
    }
    (format!("{} = {}", clip(&r.input), readable_quantity(&r.result)), caveats)
}

/// fend writes exact decimals in full (`0.00000000000000000051269652288 joules`); show
/// very small or very large ones in scientific notation, keeping every digit.
fn readable_quantity(result: &str) -> String {
    let (num, unit) = result.split_once(' ').unwrap_or((result, ""));
    let (sign, digits) = num.strip_prefix('-').map_or(("", num), |d| ("-", d));
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit() || c == '.') || digits.matches('.').count() > 1 {
        return result.to_string();
    }
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let (mantissa, exponent) = if int.trim_start_matches('0').is_empty() {
        let zeros = frac.len() - frac.trim_start_matches('0').len();
        if zeros < 4 || frac.len() == zeros {
            return result.to_string();
        }
        (frac.trim_start_matches('0').to_string(), -(zeros as i64) - 1)
    } else {
        let int = int.trim_start_matches('0');
        if int.len() < 10 {
            return result.to_string();
        }
        (format!("{int}{frac}"), int.len() as i64 - 1)
    };
    let mantissa = mantissa.trim_end_matches('0');
    let (head, tail) = mantissa.split_at(1);
    let tail = if tail.is_empty() { String::new() } else { format!(".{tail}") };
    let unit = if unit.is_empty() { String::new() } else { format!(" {unit}") };
    format!("{sign}{head}{tail} × 10^{exponent}{unit}")
}

fn limit_head(r: &LimitResult) -> String {
    let side = match r.direction.as_str() {
        "right" if !r.point.ends_with("oo") => "+",
        "left" if !r.point.ends_with("oo") => "-",
        _ => "",
    };
    format!("lim_{{{}→{}{side}}} {}", r.variable, r.point, clip(&r.input))
}

fn approx(value: &str, numeric: Option<f64>) -> String {
    match numeric {
        Some(x) if value.chars().any(char::is_alphabetic) => format!(" ≈ {}", attest_core::text::fmt_sig(x, 12)),
        _ => String::new(),
    }
}

fn present_limit(r: &LimitResult) -> (String, Vec<String>) {
    let head = limit_head(r);
    let mut caveats = Vec::new();
    let line = match r.status {
        LimitStatus::Finite | LimitStatus::Infinite => {
            let v = r.value.clone().unwrap_or_default();
            if !r.check.is_empty() {
                caveats.push(format!("checked numerically: {}", r.check));
            }
            format!("{head} = {v}{}", approx(&v, r.numeric))
        }
        LimitStatus::DoesNotExist => format!(
            "{head} does not exist: from the left {}, from the right {}",
            r.left.clone().unwrap_or_default(),
            r.right.clone().unwrap_or_default()
        ),
        LimitStatus::Unknown => {
            caveats.push("unknown is not \"does not exist\": the limit may still exist".into());
            format!("unknown: no limit found for {head}")
        }
    };
    if !r.reason.is_empty() {
        caveats.insert(0, r.reason.clone());
    }
    (line, caveats)
}

fn present_series(r: &SeriesResult) -> (String, Vec<String>) {
    let about = format!("about {} = {}", r.variable, r.point);
    let kind = if r.lowest_power < 0 { "Laurent series" } else { "Taylor series" };
    (
        format!("{} = {} ({kind} {about})", clip(&r.input), clip_out(&r.series)),
        vec![format!("{} is the remainder: the terms of order {} and higher are not shown", r.remainder, r.order)],
    )
}

fn present_sum(r: &SumResult) -> (String, Vec<String>) {
    let head = format!("Σ_{{{}={}}}^{{{}}} {}", r.variable, r.lower, r.upper, clip(&r.summand));
    let mut caveats = Vec::new();
    let line = match r.status {
        SumStatus::Value => {
            let v = r.value.clone().unwrap_or_default();
            format!("{head} = {}{}", clip_out(&v), approx(&v, r.numeric))
        }
        SumStatus::Converges => {
            caveats.push("its value is not found here; only convergence is shown".into());
            format!("{head} converges ({})", r.method)
        }
        SumStatus::Diverges => format!("{head} diverges ({})", r.method),
        SumStatus::Unknown => {
            caveats.push("unknown is neither converges nor diverges: no test here decided it".into());
            format!("unknown: {}", r.reason)
        }
    };
    if r.status == SumStatus::Value {
        caveats.push(format!("{}; checked: {}", r.method, r.check));
    } else if !r.check.is_empty() {
        caveats.push(format!("checked: {}", r.check));
    }
    (line, caveats)
}

fn present_matrix(r: &MatrixResult) -> (String, Vec<String>) {
    let m = clip(&r.input);
    let res = r.result.clone().unwrap_or_default();
    let line = match r.operation.as_str() {
        "determinant" => format!("det {m} = {res}"),
        "rank" if r.check.contains("generic values") => format!("rank {m} = {res} for generic values of the entries"),
        "rank" => format!("rank {m} = {res}"),
        "eigenvalues" => format!("eigenvalues of {m}: {}", clip_out(&res)),
        "transpose" => format!("transpose of {m} = {}", clip_out(&res)),
        "product" => format!("{m} = {}", clip_out(&res)),
        "inverse" | "summary" if r.singular == Some(true) && r.rank.is_none() => {
            format!("{m} is singular (determinant 0 for every value of its entries): it has no inverse")
        }
        "inverse" | "summary" if r.singular == Some(true) => {
            format!("{m} is singular (determinant 0, rank {}): it has no inverse", r.rank.unwrap_or_default())
        }
        "inverse" => format!("inverse of {m} = {}", clip_out(&res)),
        _ => match &r.determinant {
            Some(d) if r.rank.is_none() => format!("{m}: determinant {d}, inverse {}", clip_out(&res)),
            Some(d) => format!("{m}: determinant {d}, rank {}, inverse {}", r.rank.unwrap_or_default(), clip_out(&res)),
            None => format!("{m}: {}×{}, rank {}", r.shape[0], r.shape[1], r.rank.unwrap_or_default()),
        },
    };
    let mut caveats = vec![format!("checked: {}", r.check)];
    if let Some(c) = &r.characteristic {
        caveats.insert(0, format!("characteristic polynomial det(x·I − A) = {c}"));
    }
    if let Some(vs) = &r.eigenvectors {
        let shown: Vec<String> =
            vs.iter().map(|v| v.split_once(": ").map_or(v.clone(), |(l, b)| format!("{b} for {l}"))).collect();
        caveats.insert(1, format!("eigenvectors: {}", clip_out(&shown.join("; "))));
    }
    (line, caveats)
}

fn present_system(r: &SystemSolution) -> (String, Vec<String>) {
    let eqs = clip(&r.equations.join(", "));
    let vals = || r.solution.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
    let pairs = || {
        r.solutions
            .iter()
            .map(|s| format!("({})", s.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let line = match r.status.as_str() {
        "unique" => format!("{eqs}: {}", clip_out(&vals())),
        "finite" => format!("{eqs}: {}", clip_out(&pairs())),
        "partial" if r.solutions.is_empty() => {
            format!(
                "unknown: no rational solution of {eqs} found, and the search for solutions with irrational values was out of reach here"
            )
        }
        "partial" => {
            format!(
                "{eqs}: {}, and perhaps solutions with irrational values (their search was out of reach here)",
                clip_out(&pairs())
            )
        }
        "none" if r.evidence.is_none() => format!("no real solution found: {eqs}"),
        "none" => format!("no solution: {eqs} are inconsistent; {}", r.evidence.clone().unwrap_or_default()),
        _ if r.notes.iter().any(|n| n.starts_with("family: ")) => {
            let fams: Vec<&str> = r.notes.iter().filter_map(|n| n.strip_prefix("family: ")).collect();
            let mut line = format!("infinitely many solutions of {eqs}: {}", clip_out(&fams.join("; or ")));
            if !r.solutions.is_empty() {
                line.push_str(&format!("; and the isolated solutions {}", clip_out(&pairs())));
            }
            line
        }
        _ => format!("infinitely many solutions of {eqs}: {}, with {} free", clip_out(&vals()), r.free.join(", ")),
    };
    let mut caveats: Vec<String> = r.notes.iter().filter(|n| !n.starts_with("family: ")).cloned().collect();
    if let Some(e) = r.evidence.as_ref().filter(|_| r.status == "infinitely_many") {
        caveats.push(format!("evidence: {e}"));
    }
    caveats.push(format!("checked: {}", r.check));
    if r.solutions.iter().flat_map(|s| s.values()).any(|v| v.starts_with('≈')) {
        caveats.push("values marked ≈ are numeric, not exact".into());
    }
    (line, caveats)
}

fn present_derivation(r: &DerivationResult) -> (String, Vec<String>) {
    let what = match (r.operation.as_str(), &r.variable) {
        ("differentiate", Some(v)) => format!("d/d{v} [{}] = {}", clip(&r.input), clip_out(&r.result)),
        ("integrate", Some(v)) => format!("∫ {} d{v} = {} + C", clip(&r.input), clip_out(&r.result)),
        _ => format!("{} = {}", clip(&r.input), clip_out(&r.result)),
    };
    let mut rules: Vec<&str> = Vec::new();
    for s in &r.steps {
        if !rules.contains(&s.rule.as_str()) {
            rules.push(&s.rule);
        }
    }
    let shown = attest_core::text::clip(&rules.join("; "), 240);
    let steps = attest_core::text::plural(r.steps.len(), "step", "steps");
    (format!("{what}, in {steps}\nrules: {shown}"), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(v: Value) -> Value {
        handle(v)
    }

    #[test]
    fn verdicts_read_as_researchers_say_them() {
        let p = call(json!({"op": "verify", "lhs": "(a+b)^2", "rhs": "a^2+2ab+b^2"}));
        assert_eq!(p["answer"], "proved: (a + b)^2 = a^2 + 2*a*b + b^2 (polynomial normal form)", "{p}");
        let r = call(json!({"op": "verify", "lhs": "sqrt(x^2)", "rhs": "x"}));
        let a = r["answer"].as_str().unwrap();
        assert!(a.starts_with("refuted at x = -1: left 1, right -1"), "{a}");
        let w = call(json!({"op": "verify_equation", "equation": "(x^2-1)/(x-1) = x+1"}));
        let a = w["answer"].as_str().unwrap();
        assert!(a.starts_with("proved where defined:") && a.ends_with("except at x = 1"), "{a}");
        assert!(w["caveats"][0].as_str().unwrap().contains("x ≠ 1"), "{w}");
    }

    #[test]
    fn errors_are_answers_with_a_kind() {
        let e = call(json!({"op": "simplify", "expr": "x + * 2"}));
        assert_eq!(e["err"]["kind"], "parse");
        assert!(e["answer"].as_str().unwrap().contains('^'), "{e}");
        let side = call(json!({"op": "verify", "lhs": "x", "rhs": "(x"}));
        assert!(side["answer"].as_str().unwrap().contains("right side"), "{side}");
        let bad = call(json!({"op": "nope"}));
        assert_eq!(bad["err"]["kind"], "input");
        let junk = call(json!([1, 2, {"op": 3}]));
        assert_eq!(junk["err"]["kind"], "input");
        assert_eq!(call(json!({"op": "ping"}))["ok"], "pong");
    }

    #[test]
    fn tiny_and_huge_quantities_read_in_scientific_notation() {
        assert_eq!(readable_quantity("0.00000000000000000051269652288 joules"), "5.1269652288 × 10^-19 joules");
        assert_eq!(readable_quantity("-0.00001 m"), "-1 × 10^-5 m");
        assert_eq!(readable_quantity("299792458000 m / s"), "2.99792458 × 10^11 m / s");
        assert_eq!(readable_quantity("96.56064 km / h"), "96.56064 km / h");
        assert_eq!(readable_quantity("0.001 kg"), "0.001 kg");
        assert_eq!(readable_quantity("approx. 3.1415926535 m"), "approx. 3.1415926535 m");
    }

    #[test]
    fn requests_round_trip() {
        let r = Request::Integrate { expr: "x".into(), var: None, bounds: Some(["0".into(), "1".into()]) };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["op"], "integrate");
        assert_eq!(serde_json::from_value::<Request>(v).unwrap(), r);
    }
}
