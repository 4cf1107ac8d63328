//! Odd and random inputs never panic: every operation returns a value or an error.

use std::collections::BTreeMap;

use attest_sym::verify::SplitMix;
use attest_sym::*;

const ODD: &[&str] = &[
    "",
    " ",
    "=",
    "==",
    "x=",
    "=x",
    "()",
    "(",
    ")",
    "|",
    "||",
    "|x",
    "x|",
    "^",
    "x^",
    "^x",
    "**",
    "2**",
    "x**-1",
    "1/0",
    "0/0",
    "0^0",
    "0^-1",
    "x/0",
    "log(0)",
    "log(-1)",
    "sqrt(-4)",
    "(-8)^(1/3)",
    "(-8)^(2/6)",
    "asin(2)",
    "tan(pi/2)",
    "1/(sin(x)^2 + cos(x)^2 - 1)",
    "\\frac",
    "\\frac{",
    "\\frac{1}",
    "\\sqrt[",
    "\\sqrt[0]{x}",
    "\\sqrt[x]{2}",
    "\\left(",
    "\\right)",
    "\\foo",
    "\\",
    "d/dx",
    "d/dx d/dx",
    "\\frac{d}{dx}",
    "sin",
    "sin^",
    "sin^2",
    "log_",
    "log_2",
    "x_",
    "x_{",
    "x_{}",
    "1e",
    "1e+",
    "1.2.3",
    ".5",
    "5.",
    "x..y",
    "2x3y4z",
    "e^e^e",
    "pi^pi",
    "x^y^z",
    "x^(1/2)^2",
    "abs(abs(abs(x)))",
    "exp(exp(exp(x)))",
    "sin(sin(sin(sin(x))))",
    "(x+1)^(-3)",
    "(x+1)^(1/3)",
    "x^(1/64)",
    "x^(1/65)",
    "2^(1/1000)",
    "(1/2)^1000",
    "10^300",
    "10^-300",
    "x^100000",
    "x^100001",
    "(x^2)^(1/2)",
    "1/(x-x)",
    "x - x",
    "a = b = c",
    "x equals",
    "equals x",
    "is equal to",
    "√x",
    "x²",
    "x · y",
    "x × y",
    "−x",
    "x ≤ 1",
    "x != 1",
    "x!",
    "🙂",
    "x\u{0}",
    "1,2",
    "[x]",
];

fn all_ops(s: &str) {
    let l = Limits::default();
    let _ = simplify(s, &l);
    let _ = differentiate(s, None, 1, &l);
    let _ = differentiate(s, Some("x"), 3, &l);
    let _ = integrate(s, None, None, &l);
    let _ = integrate(s, Some("x"), Some(("0", "1")), &l);
    let _ = solve(s, None, &l);
    let _ = solve(s, Some("x"), &l);
    let _ = evaluate(s, &BTreeMap::new(), &l);
    let _ = evaluate(s, &[("x".to_string(), "2".to_string())].into(), &l);
    let _ = verify(s, "x", &l);
    let _ = verify(s, s, &l);
    let _ = verify_equation(s, &l);
    let _ = check(&format!("{s}\n{s}"), &l);
    let _ = derivation(s, "differentiate", None, &l);
    let _ = derivation(s, "integrate", None, &l);
    let _ = route(s, "");
    let _ = route("simplify", s);
    // The issue-16 operations, with the input in every slot.
    for to in ["0", "oo", "-oo", "0+", s] {
        let _ = limit(s, None, to, None, &l);
    }
    let _ = limit(s, Some("x"), "1", Some("left"), &l);
    let _ = series(s, None, None, 4, &l);
    let _ = series(s, Some("x"), Some("1"), 3, &l);
    let _ = series("sin(x)", None, Some(s), 3, &l);
    let _ = sum(s, None, "1", "n", &l);
    let _ = sum(s, None, "1", "oo", &l);
    let _ = sum("k", None, s, s, &l);
    let _ = matrix(s, None, &l);
    let _ = matrix(&format!("[[{s}, 1], [2, 3]]"), Some("inverse"), &l);
    let _ = solve_system(s, None, &l);
    let _ = solve_system(&format!("{s}; x + y = 1"), None, &l);
    let _ = attest_sym::limit::notation(s);
    let _ = attest_sym::sums::notation(s);
    let _ = route(&format!("limit of {s} as x -> 0"), "");
    let _ = route(&format!("\\sum_{{k=1}}^{{{s}}} {s}"), "");
    let _ = route(&format!("taylor series of {s} about {s} order 3"), "");
    let _ = route(&format!("solve {s}, {s}"), "");
}

#[test]
fn odd_inputs_do_not_panic() {
    for s in ODD {
        all_ops(s);
    }
}

#[test]
fn random_inputs_do_not_panic() {
    let alphabet: Vec<char> =
        "x y 0 1 2 ^ * / + - ( ) | = . e pi sin cos log sqrt \\frac { } _ [ ] , ; & \\lim \\sum \\to oo"
            .chars()
            .collect();
    let mut rng = SplitMix(99);
    for _ in 0..400 {
        let n = (rng.next() % 24) as usize;
        let s: String = (0..n).map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize]).collect();
        all_ops(&s);
    }
}

#[test]
fn units_refusals_are_errors_not_panics() {
    for s in [
        "",
        "3 eV in",
        "in joules",
        "1 kg + 1 m",
        "5 m to s",
        "roll d6",
        "now",
        "2^2^2^2^2^2 m",
        "x".repeat(600).as_str(),
    ] {
        let _ = evaluate_units(s);
    }
    assert!(evaluate_units("1 kg + 1 m").is_err());
}
