//! The identity table: every case reaches its expected verdict, every refutation's
//! counterexample is re-checked independently, and the table is snapshot-tested.

use std::collections::BTreeMap;

use attest_sym::eval::{eval_exact, eval_f64, eval_interval, to_float_env};
use attest_sym::verify::lower;
use attest_sym::{Limits, Q, Verdict, Verification, parse_expr, verify};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    lhs: String,
    rhs: String,
    verdict: String,
}

#[derive(Serialize)]
struct Seen {
    claim: String,
    verdict: Verdict,
    domain: Vec<String>,
    counterexample: Option<attest_sym::Counterexample>,
}

fn table() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/identities.toml")).unwrap();
    toml::from_str::<Table>(&text).unwrap().case
}

fn run(c: &Case) -> Verification {
    verify(&c.lhs, &c.rhs, &Limits::default()).unwrap_or_else(|e| panic!("{} = {}: {e}", c.lhs, c.rhs))
}

/// Re-check a counterexample without the verifier: parse both sides again, evaluate
/// at the point exactly (or in intervals) and demand a real difference.
fn really_refutes(c: &Case, v: &Verification) -> bool {
    let l = Limits::default();
    let cex = v.counterexample.as_ref().expect("refuted carries a counterexample");
    let env: BTreeMap<String, Q> =
        cex.point.iter().map(|(k, s)| (k.clone(), s.parse::<Q>().expect("a rational point"))).collect();
    let lhs = lower(&parse_expr(&c.lhs, &l).unwrap(), &l).unwrap();
    let rhs = lower(&parse_expr(&c.rhs, &l).unwrap(), &l).unwrap();
    let fenv = to_float_env(&env);
    if eval_f64(&lhs, &fenv).is_none() || eval_f64(&rhs, &fenv).is_none() {
        return false;
    }
    if let (Some(a), Some(b)) = (eval_exact(&lhs, &env), eval_exact(&rhs, &env)) {
        return a != b && a.to_string() == cex.lhs_value && b.to_string() == cex.rhs_value;
    }
    match (eval_interval(&lhs, &env), eval_interval(&rhs, &env)) {
        (Some(a), Some(b)) => a.disjoint(&b),
        _ => false,
    }
}

#[test]
fn every_identity_gets_its_verdict() {
    let cases = table();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let mut wrong = Vec::new();
    for c in &cases {
        let v = run(c);
        let got = serde_json::to_value(v.verdict).unwrap();
        if got != c.verdict.as_str() {
            wrong.push(format!("{} = {}: expected {}, got {got} ({})", c.lhs, c.rhs, c.verdict, v.reason));
            continue;
        }
        if v.verdict == Verdict::Refuted && !really_refutes(c, &v) {
            wrong.push(format!("{} = {}: counterexample {:?} does not refute", c.lhs, c.rhs, v.counterexample));
        }
        if v.verdict == Verdict::ProvedWhereDefined && v.domain.is_empty() && v.steps.iter().all(|s| !s.contains("log"))
        {
            wrong.push(format!("{} = {}: proved where defined without saying where", c.lhs, c.rhs));
        }
    }
    assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn identity_table_snapshot() {
    let seen: Vec<Seen> = table()
        .iter()
        .map(|c| {
            let v = run(c);
            Seen {
                claim: format!("{} = {}", c.lhs, c.rhs),
                verdict: v.verdict,
                domain: v.domain,
                counterexample: v.counterexample,
            }
        })
        .collect();
    insta::assert_yaml_snapshot!(seen);
}
