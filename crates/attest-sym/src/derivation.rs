//! `derivation`: the steps behind a derivative, an integral or a simplification,
//! each step a rule and what it produced. The steps are the ones this library took,
//! not a reconstruction.

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Result, SymError};
use crate::expr::Expr;
use crate::integrate::integrate;
use crate::limits::Limits;
use crate::nf::{Cx, derivative, normal_form};
use crate::ops::resolve_var;
use crate::parse::parse_expr;

/// One step: the rule and what it produced.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DerivationStep {
    /// The rule applied, in words.
    pub rule: String,
    /// What it was applied to.
    pub on: String,
    /// What it produced.
    pub gives: String,
}

/// The answer of [`derivation`].
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DerivationResult {
    /// The input as read.
    pub input: String,
    /// `differentiate`, `integrate` or `simplify`.
    pub operation: String,
    /// The variable, for calculus.
    pub variable: Option<String>,
    /// The final result.
    pub result: String,
    /// The steps, in order.
    pub steps: Vec<DerivationStep>,
}

/// The steps of `operation` (`differentiate`, `integrate` or `simplify`) on `text`.
pub fn derivation(text: &str, operation: &str, var: Option<&str>, limits: &Limits) -> Result<DerivationResult> {
    let op = match operation.trim().to_lowercase().as_str() {
        "differentiate" | "derivative" | "diff" | "d/dx" => "differentiate",
        "integrate" | "integral" | "antiderivative" => "integrate",
        "simplify" | "" => "simplify",
        other => {
            return Err(SymError::input(format!(
                "unknown operation '{other}': use differentiate, integrate or simplify"
            )));
        }
    };
    let e = parse_expr(text, limits)?;
    match op {
        "differentiate" => differentiate_steps(&e, var, limits),
        "integrate" => {
            let r = integrate(text, var, None, limits)?;
            let mut steps: Vec<DerivationStep> = r
                .steps
                .into_iter()
                .map(|s| DerivationStep { rule: s.rule, on: s.integrand, gives: s.result })
                .collect();
            // With sums over roots, the check is split (exact part exactly, the sums numerically).
            let check = if r.root_sums.is_empty() {
                "check: differentiate the result back".into()
            } else {
                format!("check: {}", r.checked)
            };
            steps.push(DerivationStep { rule: check, on: r.antiderivative.clone(), gives: r.input.clone() });
            Ok(DerivationResult {
                input: r.input,
                operation: op.into(),
                variable: Some(r.variable),
                result: r.antiderivative,
                steps,
            })
        }
        _ => {
            let mut cx = Cx::new(*limits);
            let nf = normal_form(&e, &mut cx)?;
            let mut steps = vec![DerivationStep {
                rule: "expand, collect like terms, cancel common factors".into(),
                on: e.to_string(),
                gives: nf.to_string(),
            }];
            for r in &cx.rules {
                steps.push(DerivationStep {
                    rule: format!("rule used: {r}"),
                    on: e.to_string(),
                    gives: nf.to_string(),
                });
            }
            Ok(DerivationResult {
                input: e.to_string(),
                operation: op.into(),
                variable: None,
                result: nf.to_string(),
                steps,
            })
        }
    }
}

fn differentiate_steps(e: &Expr, var: Option<&str>, limits: &Limits) -> Result<DerivationResult> {
    let v = resolve_var(e, var)?;
    let mut cx = Cx::new(*limits);
    let terms: Vec<Expr> = match e {
        Expr::Add(ts) => ts.clone(),
        other => vec![other.clone()],
    };
    let mut steps = Vec::new();
    let mut total = crate::nf::Nf::zero();
    for t in &terms {
        let d = derivative(&normal_form(t, &mut cx)?, &v, &mut cx)?;
        steps.push(DerivationStep { rule: rule_for(t, &v), on: format!("d/d{v} [{t}]"), gives: d.to_string() });
        total = total.add(&d, &mut cx)?;
    }
    if terms.len() > 1 {
        steps.push(DerivationStep {
            rule: "sum rule: add the terms' derivatives and simplify".into(),
            on: e.to_string(),
            gives: total.to_string(),
        });
    }
    Ok(DerivationResult {
        input: e.to_string(),
        operation: "differentiate".into(),
        variable: Some(v),
        result: total.to_string(),
        steps,
    })
}

fn depends(e: &Expr, v: &str) -> bool {
    e.free_symbols().contains(v)
}

/// The main rule for differentiating one term, named from its shape.
fn rule_for(t: &Expr, v: &str) -> String {
    if !depends(t, v) {
        return "constant rule".into();
    }
    match t {
        Expr::Sym(_) => "d/dx x = 1".into(),
        Expr::Pow(b, x) if !depends(x, v) => {
            if matches!(b.as_ref(), Expr::Sym(s) if s == v) {
                "power rule".into()
            } else {
                "power rule with the chain rule".into()
            }
        }
        Expr::Pow(..) => "exponential rule: d a^u = a^u (u' log a + u a'/a)".into(),
        Expr::Func(f, a) => {
            let base = format!("derivative of {}", f.name());
            if matches!(a.as_ref(), Expr::Sym(s) if s == v) { base } else { format!("chain rule with the {base}") }
        }
        Expr::Mul(fs) => {
            let dep: Vec<&Expr> = fs.iter().filter(|f| depends(f, v)).collect();
            let quotient =
                dep.iter().any(|f| matches!(f, Expr::Pow(_, x) if x.as_num().is_some_and(|n| n < &crate::expr::q(0))));
            match (dep.len(), quotient) {
                (1, _) => format!("constant multiple, then {}", rule_for(dep[0], v)),
                (_, true) => "quotient rule".into(),
                _ => "product rule".into(),
            }
        }
        Expr::Deriv(..) => "higher derivative".into(),
        _ => "linearity".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_name_rules() {
        let l = Limits::default();
        let d = derivation("x^2 + sin(3x) + x exp(x)", "differentiate", None, &l).unwrap();
        let rules: Vec<&str> = d.steps.iter().map(|s| s.rule.as_str()).collect();
        assert_eq!(rules[0], "power rule");
        assert!(rules[1].starts_with("chain rule"));
        assert_eq!(rules[2], "product rule");
        let i = derivation("x exp(x)", "integrate", None, &l).unwrap();
        assert!(i.steps.iter().any(|s| s.rule.contains("by parts")));
        assert!(derivation("x", "fly", None, &l).is_err());
    }
}
