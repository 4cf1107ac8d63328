//! Property: a false identity is never proved. Random polynomial (and rational)
//! expressions are paired with their expansion, with a perturbed expansion and with
//! an unrelated expression; whatever the verdict, it must be true at exact rational
//! points.

use std::collections::BTreeMap;

use attest_sym::eval::eval_exact;
use attest_sym::verify::SplitMix;
use attest_sym::{Limits, Q, Verdict, parse_expr, simplify, verify};

fn random_expr(rng: &mut SplitMix, depth: u32) -> String {
    if depth == 0 || rng.next().is_multiple_of(4) {
        return match rng.next() % 4 {
            0 => "x".into(),
            1 => "y".into(),
            _ => format!("{}", (rng.next() % 7) as i64 - 3),
        };
    }
    let (a, b) = (random_expr(rng, depth - 1), random_expr(rng, depth - 1));
    match rng.next() % 6 {
        0 | 1 => format!("({a}) + ({b})"),
        2 => format!("({a}) - ({b})"),
        3 | 4 => format!("({a})*({b})"),
        _ => format!("({a})^{}", rng.next() % 4),
    }
}

fn points(rng: &mut SplitMix) -> Vec<BTreeMap<String, Q>> {
    (0..25)
        .map(|_| {
            let mut r = |s: u64| {
                Q::new(((rng.next() % 41) as i64 - 20).into(), ((rng.next() % 5) as i64 + 1 + s as i64).into())
            };
            [("x".to_string(), r(0)), ("y".to_string(), r(1))].into()
        })
        .collect()
}

/// Whether the claim holds at every point where both sides are defined.
fn holds(l: &str, r: &str, rng: &mut SplitMix) -> bool {
    let lim = Limits::default();
    let (a, b) = (parse_expr(l, &lim).unwrap(), parse_expr(r, &lim).unwrap());
    points(rng).iter().all(|p| match (eval_exact(&a, p), eval_exact(&b, p)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    })
}

#[test]
fn no_false_identity_is_ever_proved() {
    let mut rng = SplitMix(20_260_101);
    let lim = Limits::default();
    let (mut proved, mut refuted) = (0, 0);
    for i in 0..400 {
        let a = random_expr(&mut rng, 4);
        let expanded = simplify(&a, &lim).map(|s| s.result).unwrap_or_else(|_| a.clone());
        let k = rng.next() % 3;
        let (lhs, rhs) = match i % 4 {
            0 => (a.clone(), expanded),
            1 => (a.clone(), format!("{expanded} + {}", 1 + rng.next() % 3)),
            2 => (format!("(({a})*(x - {k}))/(x - {k})"), a.clone()),
            _ => (a.clone(), random_expr(&mut rng, 4)),
        };
        let Ok(v) = verify(&lhs, &rhs, &lim) else { continue };
        match v.verdict {
            Verdict::Proved | Verdict::ProvedWhereDefined => {
                proved += 1;
                assert!(holds(&lhs, &rhs, &mut rng), "proved but false: {lhs} = {rhs}");
            }
            Verdict::Refuted => {
                refuted += 1;
                assert!(!holds(&lhs, &rhs, &mut SplitMix(7)) || v.counterexample.is_some(), "{lhs} = {rhs}");
                let c = v.counterexample.expect("a counterexample");
                assert_ne!(c.lhs_value, c.rhs_value, "{lhs} = {rhs}");
            }
            Verdict::Unknown => {}
        }
        if i % 4 == 1 {
            assert_eq!(v.verdict, Verdict::Refuted, "{lhs} = {rhs}: a shifted polynomial must be refuted");
        }
    }
    assert!(proved > 100 && refuted > 100, "proved {proved}, refuted {refuted}");
}

/// Property: products of powers of `exp(p/q · x)` are proved equal to `exp(c·x)`
/// exactly when `c` is the true sum of the exponents; a near miss (the sum shifted by
/// a small fraction, or a constant added) is never proved. The truth is known by
/// construction, so no evaluation is needed to judge the verdict.
#[test]
fn exp_products_with_fractional_exponents() {
    let mut rng = SplitMix(20_261_130);
    let lim = Limits::default();
    let (mut proved, mut rejected) = (0, 0);
    for i in 0..200 {
        let mut total = Q::from_integer(0.into());
        let mut factors = Vec::new();
        for _ in 0..1 + rng.next() % 3 {
            let p = (rng.next() % 7) as i64 - 3;
            let q = 1 + (rng.next() % 4) as i64;
            let k = 1 + (rng.next() % 3) as i64;
            total += Q::new((p * k).into(), q.into());
            factors.push(format!("exp(({p}/{q})*x)^{k}"));
        }
        let lhs = factors.join(" * ");
        let (rhs, truth) = match i % 3 {
            0 => (format!("exp(({total})*x)"), true),
            1 => {
                let shift = Q::new(1.into(), (2 + (rng.next() % 5) as i64).into());
                (format!("exp(({})*x)", &total + shift), false)
            }
            _ => (format!("exp(({total})*x) + 1/1000000"), false),
        };
        let v = verify(&lhs, &rhs, &lim).unwrap_or_else(|e| panic!("{lhs} = {rhs}: {e}"));
        let is_proved = matches!(v.verdict, Verdict::Proved | Verdict::ProvedWhereDefined);
        if truth {
            assert_eq!(v.verdict, Verdict::Proved, "{lhs} = {rhs}: {}", v.reason);
            proved += 1;
        } else {
            assert!(!is_proved, "proved but false: {lhs} = {rhs}");
            rejected += 1;
        }
    }
    assert!(proved > 50 && rejected > 100, "proved {proved}, rejected {rejected}");
}
