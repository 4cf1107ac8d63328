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
    insta::assert_snapshot!("tower_simplify", limit_message(simplify(&tower, &Limits::default())));
    insta::assert_snapshot!("tower_verify", limit_message(verify(&tower, "x", &Limits::default())));
}

#[test]
fn deep_parentheses_are_refused_and_shallow_ones_work() {
    let deep = "(".repeat(20_000) + "x" + &")".repeat(20_000);
    insta::assert_snapshot!(
        "deep_parentheses",
        limit_message(simplify(&deep, &Limits { max_len: 1_000_000, ..Limits::default() }))
    );
    // Just under the limit: parse, normal form, numeric check and proof all work.
    let ok = "(".repeat(20) + "x + 1" + &")".repeat(20);
    let v = verify(&ok, "1 + x", &Limits::default()).unwrap();
    assert_eq!(v.verdict, attest_sym::Verdict::Proved);
}

#[test]
fn a_huge_expansion_is_refused_before_it_starts() {
    insta::assert_snapshot!("huge_power_simplify", limit_message(simplify("(x+1)^100000", &Limits::default())));
    insta::assert_snapshot!("many_terms_simplify", limit_message(simplify("(a+b+c+d+e+f)^30", &Limits::default())));
    insta::assert_snapshot!(
        "huge_power_verify",
        limit_message(verify("(x+1)^100000", "(1+x)^100000", &Limits::default()))
    );
}

#[test]
fn a_one_megabyte_expression_is_refused_by_length() {
    let big = "x+".repeat(500_000) + "x";
    insta::assert_snapshot!("one_megabyte", limit_message(simplify(&big, &Limits::default())));
}

#[test]
fn towering_numbers_are_refused() {
    insta::assert_snapshot!("towering_number", limit_message(simplify("9^9^9", &Limits::default())));
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
    insta::assert_snapshot!("tight_derivative", limit_message(differentiate(product, Some("x"), 10, &tight)));
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
    insta::assert_snapshot!("divisor_heavy_solve_notes", r.notes.join("\n"));
    assert!(!r.roots.is_empty());
}

#[test]
fn new_operations_refuse_or_contain_bad_input_and_the_next_call_works() {
    use attest_sym::{LimitStatus, SumStatus, limit, matrix, series, solve_system, sum};
    let l = Limits::default();
    // A 50×50 matrix is refused by size, before any entry is read.
    let row = format!("[{}]", vec!["1"; 50].join(","));
    let big = format!("[{}]", vec![row; 50].join(","));
    insta::assert_snapshot!("matrix_50x50", limit_message(matrix(&big, Some("determinant"), &l)));
    assert_eq!(matrix("[[1,2],[3,4]]", Some("determinant"), &l).unwrap().result.as_deref(), Some("-2"));
    // A system with 50 unknowns is refused by count.
    let eqs: Vec<String> = (0..50).map(|i| format!("x_{i} + x_{} = {i}", (i + 1) % 50)).collect();
    insta::assert_snapshot!("system_50_unknowns", limit_message(solve_system(&eqs.join("; "), None, &l)));
    assert_eq!(solve_system("x + y = 2; x - y = 0", None, &l).unwrap().status, "unique");
    // A sum to 10^12 terms: a closed form, or a refusal — never a loop.
    assert_eq!(sum("k", None, "1", "10^12", &l).unwrap().value.as_deref(), Some("500000000000500000000000"));
    insta::assert_snapshot!("sum_sin_k_to_10_12", limit_message(sum("sin(k)", None, "1", "10^12", &l)));
    insta::assert_snapshot!("sum_harmonic_to_10_300", limit_message(sum("1/k", None, "1", "10^300", &l)));
    assert_eq!(sum("1/k^2", None, "1", "oo", &l).unwrap().status, SumStatus::Value);
    // A series whose derivatives explode is stopped by the work budget; order is capped.
    let tight = Limits { max_work: 20_000, ..Limits::default() };
    assert!(series("exp(exp(exp(x)))", None, None, 20, &tight).is_err());
    insta::assert_snapshot!("series_order_1000", limit_message(series("sin(x)", None, None, 1000, &l)));
    assert!(series("sin(x)", None, None, 6, &l).is_ok());
    // tan(x) to order 20: its derivatives' normal forms pass the digit limit: refused.
    insta::assert_snapshot!("series_tan_order_20", limit_message(series("tan(x)", None, None, 20, &l)));
    assert!(series("atan(x)", None, None, 20, &l).is_ok());
    // Partial fractions of a degree-13 denominator are not attempted; degree 12 of
    // huge coefficients finds no rational roots and says so.
    assert!(integrate("1/(x^13 - 1)", None, None, &l).is_err());
    assert!(integrate("1/(x^3 + x + 1)", None, None, &l).is_ok());
    assert!(integrate("1/(x^3 - x)", None, None, &l).is_ok());
    // A limit that no rule settles is unknown, never a guess; a tower is refused.
    assert_eq!(limit("sin(1/x)", None, "0", None, &l).unwrap().status, LimitStatus::Unknown);
    assert!(limit(&("x^".repeat(3000) + "x"), None, "0", None, &l).is_err());
    // (x+1)^100000/x cannot be expanded: refused or unknown, never a value.
    let huge = limit("(x+1)^100000/x", None, "oo", None, &l);
    assert!(huge.as_ref().map_or(true, |r| r.status == LimitStatus::Unknown), "{huge:?}");
    assert_eq!(limit("sin(x)/x", None, "0", None, &l).unwrap().value.as_deref(), Some("1"));
}

fn any_refusal(r: Result<impl std::fmt::Debug, SymError>) -> String {
    match r {
        Err(e) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn factoring_eigenvalues_and_elimination_are_contained() {
    use attest_sym::{matrix, solve_system};
    let l = Limits::default();
    // Degree 40: the rational roots are searched, the search for factors of degree
    // ≥ 2 is not attempted past degree 24; simplify answers with the polynomial whole.
    let s = simplify("x^40 + 3x^20 + 2", &l).unwrap();
    assert_eq!(s.factored, None);
    let s = simplify("x^40 - 1", &l).unwrap();
    insta::assert_snapshot!(
        "factor_degree_40",
        format!("{}\n{}", s.factored.unwrap_or_default(), s.factor_note.unwrap_or_default())
    );
    assert_eq!(simplify("x^4 + 4", &l).unwrap().factored.as_deref(), Some("(x^2 - 2*x + 2)*(x^2 + 2*x + 2)"));
    // Eigenvalues of a 10×10 matrix are not attempted; a 4×4 of 200-digit entries is
    // contained (an answer or a refusal, never a hang), and a 6×6 of symbols refused.
    let row = |i: usize| format!("[{}]", (0..10).map(|j| ((i * 10 + j) % 7).to_string()).collect::<Vec<_>>().join(","));
    let big = format!("[{}]", (0..10).map(row).collect::<Vec<_>>().join(","));
    insta::assert_snapshot!("eigenvalues_10x10", any_refusal(matrix(&big, Some("eigenvalues"), &l)));
    let huge = "9".repeat(200);
    let m4 = format!("[[{huge}, 1, 2, 3], [4, {huge}, 5, 6], [7, 8, {huge}, 9], [1, 2, 3, {huge}]]");
    let r = matrix(&m4, Some("eigenvalues"), &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    let sym6 = format!("[{}]", ["[a, b, c, d, e, f]"; 6].join(", "));
    insta::assert_snapshot!("symbolic_6x6", limit_message(matrix(&sym6, Some("determinant"), &l)));
    assert_eq!(matrix("[[a, b], [c, d]]", Some("determinant"), &l).unwrap().result.as_deref(), Some("a*d - b*c"));
    // Three unknowns of high degree with huge coefficients: the resultant needed is
    // over the size limit; smaller degrees with huge coefficients are contained.
    let sys = "123456789 x^3 y + 987654321 z^2 = 1; 987654321 y^3 z - 123456789 x = 2; 555555555 x^3 z^3 + y = 3";
    insta::assert_snapshot!("system_3_unknowns_high_degree", limit_message(solve_system(sys, None, &l)));
    let coef = "99999999999999999999";
    let sys2 = format!("{coef} x^2 + {coef} y^2 + z^2 = 1; x^2 y + {coef} z = 2; x y z = {coef}");
    let r = solve_system(&sys2, None, &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. })), "{r:?}");
    let ok = solve_system("x + y + z = 6; x y z = 6; x^2 + y^2 + z^2 = 14", None, &l).unwrap();
    assert_eq!(ok.solutions.len(), 6);
}

#[test]
fn several_variable_factoring_irrational_systems_and_symbolic_eigenvalues_are_contained() {
    use attest_sym::{LimitStatus, limit, matrix, solve_system};
    let l = Limits::default();
    // Several variables of high degree: the one-variable image would pass degree 48,
    // so nothing is searched and the polynomial is shown whole; a product of many
    // factors is split within the sub-product cap.
    let s = simplify("x^30 y^30 - x^29 y + x y^29 - z^25 + 1", &l).unwrap();
    assert_eq!(s.factored, None);
    let wide = simplify("(x+y+z+w)^6", &l).unwrap();
    assert!(
        wide.factored.as_ref().is_none_or(|f| f.contains("x + y + z + w") || f.contains("w + x + y + z")),
        "{wide:?}"
    );
    assert_eq!(simplify("x^2 - y^2", &l).unwrap().factored.as_deref(), Some("(x - y)*(x + y)"));
    // A polynomial system whose eliminants have many irrational roots: the candidate
    // combinations are capped (refused or contained), and a small one still works.
    let r = solve_system("x^4 - 10x^2 + 1 = y^2; y^4 - 10y^2 + 1 = x; x + y = z^3 - 2", None, &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    assert_eq!(solve_system("x^2 + y^2 = 1; x^2 - y^2 = 0", None, &l).unwrap().solutions.len(), 4);
    // Eigenvalues of a symbolic 5×5 whose characteristic polynomial does not split
    // into factors of degree ≤ 2: refused with that reason; a 6×6 is over the size cap.
    let sym5 = "[[a, b, c, d, f], [b, a, c, d, f], [c, b, a, d, f], [d, c, b, a, f], [f, d, c, b, a]]";
    let r = matrix(sym5, Some("eigenvalues"), &l);
    assert!(matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    let sym6 = format!("[{}]", ["[a, b, c, d, g, h]"; 6].join(", "));
    assert!(matches!(matrix(&sym6, Some("rank"), &l), Err(SymError::Limit { .. })));
    assert_eq!(matrix("[[a, b], [2a, 2b]]", Some("rank"), &l).unwrap().rank, Some(1));
    // A sum of many logarithms at infinity: combined once, a value or unknown.
    let logs = (1..=40).map(|k| format!("log(x + {k}) - log(x + {})", k + 1)).collect::<Vec<_>>().join(" + ");
    let r = limit(&logs, None, "oo", None, &l);
    assert!(r.as_ref().map_or(true, |r| matches!(r.status, LimitStatus::Finite | LimitStatus::Unknown)), "{r:?}");
    assert_eq!(limit("log(x) - log(x + 1)", None, "oo", None, &l).unwrap().value.as_deref(), Some("0"));
}

#[test]
fn curves_cubic_factors_and_the_definite_table_are_contained() {
    use attest_sym::{LimitStatus, limit, solve_system};
    let l = Limits::default();
    // Equations with many factors: the branches (one factor per equation) are capped,
    // so this is refused or answered, never a long search; a small curve still works.
    let many = "(x-1)(x-2)(x-3)(x-4)(x-5) = 0; (y-1)(y-2)(y-3)(y-4)(y-5) = 0; (z-1)(z-2)(z-3)(z-4)(z-5)(x - y) = 0";
    let r = solve_system(many, None, &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    // A would-be curve with no real points is never claimed as infinitely many.
    let r = solve_system("x^2 + y^2 + z^2 = -1; xy = 0; yz = 0", None, &l);
    assert!(r.as_ref().map_or(true, |s| s.status != "infinitely_many"), "{r:?}");
    assert_eq!(solve_system("x - y = 0; x^2 - y^2 = 0", None, &l).unwrap().status, "infinitely_many");
    // A pure cubic with a 250-digit constant: refused by a limit or answered.
    let big = format!("1/(x^3 - {}2)", "7".repeat(250));
    let r = integrate(&big, None, None, &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    // A general irreducible cubic is a sum over its roots; a degree-12 irreducible
    // factor with large coefficients is answered (roots checked) or refused, never wrong.
    assert_eq!(integrate("1/(x^3 + x + 1)", None, None, &l).unwrap().root_sums.len(), 1);
    let r = integrate("1/(x^12 + 12345678x^7 - 98765432x + 13)", None, None, &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    // The table of known forms with a huge power: refused or answered, never a hang.
    let r = integrate("1/(x^2 + 1)^60", None, Some(("-oo", "oo")), &l);
    assert!(r.is_ok() || matches!(r, Err(SymError::Limit { .. } | SymError::Unsupported { .. })), "{r:?}");
    // A square root of a huge power at −∞.
    let r = limit("sqrt(x^400 + x) + x^200", None, "-oo", None, &l);
    assert!(r.as_ref().map_or(true, |r| r.status != LimitStatus::DoesNotExist), "{r:?}");
    assert_eq!(integrate("1/(x^2 + 1)^2", None, Some(("-oo", "oo")), &l).unwrap().value.as_deref(), Some("pi/2"));
}
