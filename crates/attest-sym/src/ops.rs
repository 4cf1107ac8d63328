//! The operations other than verify: simplify, differentiate, evaluate (with
//! substitutions or units), each returning a typed result.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::eval::{FloatEnv, eval_f64};
use crate::expr::Expr;
use crate::limits::Limits;
use crate::nf::{Cx, normal_form};
use crate::parse::parse_expr;
use crate::verify::lower;

/// Choose the variable of an operation: the one given (which must occur, unless the
/// expression is constant), else the only one that occurs, else `x` for a constant.
pub fn resolve_var(e: &Expr, var: Option<&str>) -> Result<String> {
    let free = e.free_symbols();
    match var.map(str::trim).filter(|v| !v.is_empty()) {
        Some(v) if free.is_empty() || free.contains(v) => Ok(v.to_string()),
        Some(v) => Err(SymError::input(format!(
            "'{v}' does not occur in {e}; its variables are {}",
            free.iter().cloned().collect::<Vec<_>>().join(", ")
        ))),
        None => match free.len() {
            0 => Ok("x".into()),
            1 => Ok(free.into_iter().next().expect("one")),
            _ => Err(SymError::input(format!(
                "which variable? {e} has several ({}): pass the variable",
                free.into_iter().collect::<Vec<_>>().join(", ")
            ))),
        },
    }
}

/// The answer of [`simplify`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Simplified {
    /// The input as read (check it was read as meant).
    pub input: String,
    /// The simplified expression (expanded, collected, cancelled).
    pub result: String,
    /// The same, factored: rational content, common monomial, multivariate content,
    /// and the irreducible factors over the rationals of a polynomial in one variable
    /// (`x^4 + 4` → `(x^2 - 2*x + 2)*(x^2 + 2*x + 2)`); absent when that says nothing
    /// more than `result`.
    pub factored: Option<String>,
    /// Said when a factor was too large to search for factors of degree ≥ 2 (it is
    /// shown whole and may still split).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub factor_note: Option<String>,
    /// Its value, when it is a constant.
    pub numeric: Option<f64>,
    /// Where the input is defined, when that is not everywhere (e.g. `x ≠ 1`).
    pub domain: Vec<String>,
    /// Rewrite rules used beyond plain algebra.
    pub rules: Vec<String>,
}

/// Simplify an expression to its normal form. The result equals the input wherever
/// the input is defined; `domain` lists the conditions met.
pub fn simplify(text: &str, limits: &Limits) -> Result<Simplified> {
    let e = parse_expr(text, limits)?;
    let mut cx = Cx::new(*limits);
    let nf = normal_form(&e, &mut cx)?;
    let result = nf.to_expr();
    let numeric = if nf.free_symbols().is_empty() { eval_f64(&result, &FloatEnv::new()) } else { None };
    let result = result.to_string();
    let mut unsearched = Vec::new();
    let factored =
        crate::factor::factored_noting(&nf, limits, &mut unsearched).map(|f| f.to_string()).filter(|f| *f != result);
    let factor_note = unsearched.iter().max().map(|d| {
        format!(
            "a factor of degree {d} is shown whole: factors of degree 2 or more are searched only up to degree {}, so it may still split",
            crate::upoly::MAX_SPLIT_DEGREE
        )
    });
    Ok(Simplified {
        input: e.to_string(),
        result,
        factored,
        factor_note,
        numeric,
        domain: cx.cond_texts(),
        rules: cx.rules.iter().map(|r| r.to_string()).collect(),
    })
}

/// The answer of [`differentiate`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Derivative {
    /// The input as read.
    pub input: String,
    /// The variable.
    pub variable: String,
    /// The order.
    pub order: u32,
    /// The derivative, simplified.
    pub result: String,
}

/// The `order`-th derivative with respect to `var` (the only variable when omitted).
pub fn differentiate(text: &str, var: Option<&str>, order: u32, limits: &Limits) -> Result<Derivative> {
    let e = parse_expr(text, limits)?;
    let v = resolve_var(&e, var)?;
    let order = order.max(1);
    if order > limits.max_order {
        return Err(SymError::limit(format!("derivative order {order} is over the limit of {}", limits.max_order)));
    }
    let mut cx = Cx::new(*limits);
    let mut d = normal_form(&e, &mut cx)?;
    for _ in 0..order {
        d = crate::nf::derivative(&d, &v, &mut cx)?;
    }
    Ok(Derivative { input: e.to_string(), variable: v, order, result: d.to_string() })
}

/// The answer of [`evaluate`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Evaluated {
    /// The input as read.
    pub input: String,
    /// The input with the substitutions made.
    pub substituted: String,
    /// The exact value when there is one (e.g. `3/4`, `2*sqrt(2)`), else the decimal.
    pub value: String,
    /// The value as a number.
    pub numeric: f64,
    /// Whether `value` is exact.
    pub exact: bool,
}

/// Evaluate an expression after substituting values (each value may itself be an
/// expression without variables, e.g. `pi/4`). Refuses, naming every free variable,
/// when any is left.
pub fn evaluate(text: &str, subs: &BTreeMap<String, String>, limits: &Limits) -> Result<Evaluated> {
    let e = parse_expr(text, limits)?;
    let free = e.free_symbols();
    let mut values: BTreeMap<String, Expr> = BTreeMap::new();
    for (k, v) in subs {
        if !free.contains(k) {
            return Err(SymError::input(format!(
                "'{k}' does not occur in {e}; its variables are {}",
                if free.is_empty() { "none".to_string() } else { free.iter().cloned().collect::<Vec<_>>().join(", ") }
            )));
        }
        let val = parse_expr(v, limits)?;
        if !val.free_symbols().is_empty() {
            return Err(SymError::input(format!("the value given for {k} ('{v}') is not a number")));
        }
        values.insert(k.clone(), val);
    }
    // Derivatives are taken before the values go in: d/dx(x^2) at x = 3 is 6, not
    // the derivative of 3^2.
    let s = lower(&e, limits)?.substitute(&|name| values.get(name).cloned());
    let left: Vec<String> = s.free_symbols().into_iter().collect();
    if !left.is_empty() {
        let (noun, verb) = if left.len() == 1 { ("variable", "is") } else { ("variables", "are") };
        return Err(SymError::input(format!(
            "no numeric value: the {noun} {} {verb} still free; give a value for each, e.g. {{\"{}\": 2}}",
            left.join(", "),
            left[0]
        )));
    }
    let numeric = eval_f64(&s, &FloatEnv::new())
        .ok_or_else(|| SymError::input(format!("{s} is undefined (or too large to represent)")))?;
    let mut cx = Cx::new(*limits);
    let exact = normal_form(&s, &mut cx).ok().filter(|n| n.free_symbols().is_empty() && n.terms() <= 6);
    let (value, is_exact) = match exact {
        Some(n) => (n.to_string(), true),
        None => (attest_core::text::fmt_sig(numeric, 12), false),
    };
    // With derivatives taken first, the substituted form no longer shows them: say the
    // point instead ("d/dx(x^2) at x = 3").
    let substituted = if crate::verify::has_derivative(&e) && !subs.is_empty() {
        let point: Vec<String> = subs.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!("{e} at {}", point.join(", "))
    } else {
        s.to_string()
    };
    Ok(Evaluated { input: e.to_string(), substituted, value, numeric, exact: is_exact })
}

/// The answer of [`evaluate_units`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct UnitsResult {
    /// The input.
    pub input: String,
    /// The result with its unit, e.g. `96.56064 km / h`.
    pub result: String,
}

struct Steps(AtomicU64);

impl fend_core::Interrupt for Steps {
    fn should_interrupt(&self) -> bool {
        self.0.fetch_add(1, Ordering::Relaxed) > 2_000_000
    }
}

/// Evaluate a quantity with units, e.g. "3.2 eV in joules" or "60 mph to km/h".
/// Incompatible units are an error naming both.
pub fn evaluate_units(text: &str) -> Result<UnitsResult> {
    let text = text.trim();
    if text.is_empty() {
        return Err(SymError::input("give a quantity with units, e.g. '60 mph in km/h'"));
    }
    if text.len() > 500 {
        return Err(SymError::limit("a unit conversion may be at most 500 characters"));
    }
    if text.contains(['\n', ';']) {
        return Err(SymError::input("give one conversion, on one line"));
    }
    let mut ctx = fend_core::Context::new();
    ctx.disable_rng();
    let steps = Steps(AtomicU64::new(0));
    let r = fend_core::evaluate_with_interrupt(text, &mut ctx, &steps).map_err(|e| {
        if e.contains("nterrupt") {
            SymError::limit("the unit computation took too long and was stopped")
        } else {
            SymError::input(format!("could not evaluate '{text}': {e}"))
        }
    })?;
    let result = r.get_main_result().trim().to_string();
    if result.is_empty() {
        return Err(SymError::input(format!("'{text}' has no value")));
    }
    Ok(UnitsResult { input: text.to_string(), result })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplify_cancels_and_reports_domain() {
        let s = simplify("(x^2-1)/(x-1)", &Limits::default()).unwrap();
        assert_eq!(s.result, "x + 1");
        assert_eq!(s.domain, ["x ≠ 1"]);
    }

    #[test]
    fn a_derivative_is_taken_before_the_point_goes_in() {
        let l = Limits::default();
        let at = |e: &str, v: &str| BTreeMap::from([(v.to_string(), e.to_string())]);
        let r = evaluate("d/dx (x^2)", &at("3", "x"), &l).unwrap();
        assert_eq!((r.value.as_str(), r.substituted.as_str()), ("6", "d/dx(x^2) at x = 3"));
        assert_eq!(evaluate("d^2/dt^2 (t^3)", &at("1", "t"), &l).unwrap().value, "6");
        assert_eq!(evaluate("x^2 + 1", &at("3", "x"), &l).unwrap().substituted, "3^2 + 1");
    }

    #[test]
    fn derivatives() {
        let l = Limits::default();
        assert_eq!(differentiate("x^3", None, 1, &l).unwrap().result, "3*x^2");
        assert_eq!(differentiate("x^3", None, 2, &l).unwrap().result, "6*x");
        assert!(differentiate("x*y", None, 1, &l).unwrap_err().to_string().contains("several"));
        assert!(differentiate("x^2", Some("z"), 1, &l).unwrap_err().to_string().contains("does not occur"));
    }

    #[test]
    fn evaluate_names_free_variables() {
        let l = Limits::default();
        let subs: BTreeMap<String, String> = [("x".to_string(), "pi/4".to_string())].into();
        let v = evaluate("sin(x)^2", &subs, &l).unwrap();
        assert_eq!(v.value, "1/2");
        let e = evaluate("x y + z", &subs, &l).unwrap_err().to_string();
        assert!(e.contains("y, z are still free"), "{e}");
    }

    #[test]
    fn units_convert_and_refuse_mismatches() {
        let r = evaluate_units("60 mph to km/h").unwrap();
        assert!(r.result.starts_with("96.56064"), "{}", r.result);
        let j = evaluate_units("3.2 eV in joules").unwrap();
        assert!(j.result.contains("5.12") || j.result.contains("0.000000000000000000512"), "{}", j.result);
        assert!(evaluate_units("1 kg + 1 m").is_err());
        assert!(evaluate_units("5 meters to seconds").is_err());
    }
}
