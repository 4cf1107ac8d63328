//! Hostile inputs: each returns a clear refusal (naming the limit) instead of running
//! long, exhausting memory or overflowing the stack — and the next call still works.

use attest_sym::{Limits, SymError, differentiate, integrate, simplify, solve, verify};

fn limit_message(r: Result<impl std::fmt::Debug, SymError>) -> String {
    match r {
        Err(SymError::Limit { message: m }) => m,
        other => panic!("expected a limit refusal, got {other:?}"),
    }
}

#[test]
fn a_3000_level_power_tower_is_refused() {
    let tower = "x^".repeat(3000) + "x";
    let m = limit_message(simplify(&tower, &Limits::default()));
    assert!(m.contains("nested more than"), "{m}");
    let m = limit_message(verify(&tower, "x", &Limits::default()));
    assert!(m.contains("nested"), "{m}");
}

#[test]
fn deep_parentheses_are_refused_and_shallow_ones_work() {
    let deep = "(".repeat(20_000) + "x" + &")".repeat(20_000);
    assert!(limit_message(simplify(&deep, &Limits { max_len: 1_000_000, ..Limits::default() })).contains("nested"));
    // Just under the limit: parse, normal form, numeric check and proof all work.
    let ok = "(".repeat(20) + "x + 1" + &")".repeat(20);
    let v = verify(&ok, "1 + x", &Limits::default()).unwrap();
    assert_eq!(v.verdict, attest_sym::Verdict::Proved);
}

#[test]
fn a_huge_expansion_is_refused_before_it_starts() {
    let m = limit_message(simplify("(x+1)^100000", &Limits::default()));
    assert!(m.contains("not attempted"), "{m}");
    let m = limit_message(simplify("(a+b+c+d+e+f)^30", &Limits::default()));
    assert!(m.contains("terms"), "{m}");
    let m = limit_message(verify("(x+1)^100000", "(1+x)^100000", &Limits::default()));
    assert!(m.contains("not attempted"), "{m}");
}

#[test]
fn a_one_megabyte_expression_is_refused_by_length() {
    let big = "x+".repeat(500_000) + "x";
    let m = limit_message(simplify(&big, &Limits::default()));
    assert!(m.contains("characters long"), "{m}");
}

#[test]
fn towering_numbers_are_refused() {
    let m = limit_message(simplify("9^9^9", &Limits::default()));
    assert!(m.contains("digits"), "{m}");
    assert!(simplify(&"9".repeat(5000), &Limits::default()).is_err());
    assert!(simplify("1e300000", &Limits::default()).is_err());
}

#[test]
fn a_ten_fold_derivative_of_a_product_finishes_or_refuses() {
    let l = Limits::default();
    let product = "sin(x) cos(x) exp(x) x^2";
    let nested = "d/dx ".repeat(10) + "(" + product + ")";
    let a = simplify(&nested, &l).map(|s| s.result);
    let b = differentiate(product, Some("x"), 10, &l).map(|d| d.result);
    match (&a, &b) {
        (Ok(x), Ok(y)) => assert_eq!(x, y),
        (Err(SymError::Limit { .. }), _) | (_, Err(SymError::Limit { .. })) => {}
        other => panic!("{other:?}"),
    }
    // With a tight work budget the same request is refused cleanly.
    let tight = Limits { max_work: 2_000, ..l };
    let m = limit_message(differentiate(product, Some("x"), 10, &tight));
    assert!(m.contains("steps"), "{m}");
}

#[test]
fn the_next_call_after_a_refusal_works() {
    let l = Limits::default();
    assert!(simplify("(x+1)^100000", &l).is_err());
    assert_eq!(simplify("(x+1)^2", &l).unwrap().result, "x^2 + 2*x + 1");
    assert!(solve("x^2 - 4", None, &l).unwrap().roots.len() == 2);
    assert!(integrate("x", None, None, &l).is_ok());
}

#[test]
fn hostile_inputs_in_a_small_stack() {
    // Half a test thread's stack: the depth and stack limits must hold there too.
    let h = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let l = Limits::default();
            let tower = "x^".repeat(3000) + "x";
            let parens = "(".repeat(3000) + "x" + &")".repeat(3000);
            let minus = "-".repeat(3000) + "x";
            let funcs = "sin(".repeat(3000) + "x" + &")".repeat(3000);
            [tower, parens, minus, funcs].iter().all(|s| simplify(s, &l).is_err())
        })
        .unwrap();
    assert!(h.join().unwrap());
}

#[test]
fn nesting_that_real_drafts_use_is_accepted() {
    for n in [10, 20, 30] {
        let e = "(".repeat(n) + "x + 1" + &")".repeat(n);
        assert!(simplify(&e, &Limits::default()).is_ok(), "{n} levels");
    }
}

#[test]
fn coefficients_with_thousands_of_divisors_do_not_stall_the_rational_root_search() {
    // 735134400 and 963761198400 have 1,344 and 6,720 divisors: every (p, q) pair
    // would be 9 million trials. The search is skipped past 50,000 pairs; simplify
    // still answers (unfactored) and solve falls back to numeric roots, saying why.
    let big = "735134400 x^5 + x + 963761198400";
    let s = simplify(big, &Limits::default()).unwrap();
    assert_eq!(s.factored, None);
    let r = solve(&format!("{big} = 0"), None, &Limits::default()).unwrap();
    assert!(r.notes.iter().any(|n| n.contains("too large for the rational-root search")), "{:?}", r.notes);
    assert!(!r.roots.is_empty());
}
