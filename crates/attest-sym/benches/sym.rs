//! Criterion benches over the identity table: verify, simplify, differentiate, solve.

use std::hint::black_box;

use attest_sym::{Limits, differentiate, simplify, solve, verify};
use criterion::{Criterion, criterion_group, criterion_main};

#[derive(serde::Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    lhs: String,
    rhs: String,
}

fn table() -> Vec<Case> {
    toml::from_str::<Table>(include_str!("../tests/identities.toml")).expect("identity table").case
}

fn benches(c: &mut Criterion) {
    let l = Limits::default();
    let cases = table();
    c.bench_function("verify/identity table (per case)", |b| {
        let mut i = 0;
        b.iter(|| {
            let case = &cases[i % cases.len()];
            i += 1;
            black_box(verify(&case.lhs, &case.rhs, &l).ok())
        })
    });
    for (name, lhs, rhs) in [
        ("verify/(a+b)^2", "(a+b)^2", "a^2 + 2ab + b^2"),
        ("verify/sqrt(x^2)=x refuted", "sqrt(x^2)", "x"),
        ("verify/sin^2+cos^2", "sin(x)^2 + cos(x)^2", "1"),
        ("verify/(x^2-1)/(x-1)", "(x^2-1)/(x-1)", "x + 1"),
        ("verify/d/dx sin^2", "d/dx sin(x)^2", "2 sin(x) cos(x)"),
    ] {
        c.bench_function(name, |b| b.iter(|| black_box(verify(lhs, rhs, &l).ok())));
    }
    // Issue 16's operations, one representative each.
    c.bench_function("limit/sin(x)/x at 0", |b| {
        b.iter(|| black_box(attest_sym::limit("sin(x)/x", None, "0", None, &l).ok()))
    });
    c.bench_function("limit/(1+1/x)^x at oo", |b| {
        b.iter(|| black_box(attest_sym::limit("(1 + 1/x)^x", None, "oo", None, &l).ok()))
    });
    c.bench_function("series/sin(x) order 8", |b| {
        b.iter(|| black_box(attest_sym::series("sin(x)", None, None, 8, &l).ok()))
    });
    c.bench_function("sum/k^2 to n", |b| b.iter(|| black_box(attest_sym::sum("k^2", None, "1", "n", &l).ok())));
    c.bench_function("sum/1/k^2 to oo", |b| b.iter(|| black_box(attest_sym::sum("1/k^2", None, "1", "oo", &l).ok())));
    // Integration: partial fractions with a sum over the roots of an irreducible cubic
    // (roots found and checked), and the same over a finite range (numeric value).
    c.bench_function("integrate/1/(x^3+x+1) (root sum)", |b| {
        b.iter(|| black_box(attest_sym::integrate("1/(x^3 + x + 1)", None, None, &l).ok()))
    });
    c.bench_function("integrate/1/(x^3+x+1) over [0, 1] (root sum)", |b| {
        b.iter(|| black_box(attest_sym::integrate("1/(x^3 + x + 1)", None, Some(("0", "1")), &l).ok()))
    });
    // Root sums collapsed (Lazard–Rioboo–Trager): Rioboo's arctangent, the split quartic,
    // and an exact definite value over the collapsed form.
    for e in ["x/(x^4 + 1)", "1/(x^4 + 1)", "(x^2 + 1)/(x^4 + 1)", "x/(x^4 - 2)"] {
        c.bench_function(&format!("integrate/{e} (collapsed)"), |b| {
            b.iter(|| black_box(attest_sym::integrate(e, None, None, &l).ok()))
        });
    }
    c.bench_function("integrate/x/(x^4 + 1) over [0, 1] (collapsed)", |b| {
        b.iter(|| black_box(attest_sym::integrate("x/(x^4 + 1)", None, Some(("0", "1")), &l).ok()))
    });
    c.bench_function("matrix/3x3 inverse", |b| {
        b.iter(|| black_box(attest_sym::matrix("[[2,0,1],[1,3,2],[1,1,2]]", Some("inverse"), &l).ok()))
    });
    c.bench_function("solve/3x3 linear system", |b| {
        b.iter(|| black_box(attest_sym::solve_system("x + y + z = 6; x - y = 0; z = 2", None, &l).ok()))
    });
    c.bench_function("simplify/identity table lhs (per case)", |b| {
        let mut i = 0;
        b.iter(|| {
            let case = &cases[i % cases.len()];
            i += 1;
            black_box(simplify(&case.lhs, &l).ok())
        })
    });
    c.bench_function("differentiate/identity table lhs (per case)", |b| {
        let mut i = 0;
        b.iter(|| {
            let case = &cases[i % cases.len()];
            i += 1;
            black_box(differentiate(&case.lhs, None, 1, &l).ok())
        })
    });
    let equations: Vec<String> = cases.iter().map(|c| format!("{} = {}", c.lhs, c.rhs)).collect();
    c.bench_function("solve/identity table as equations (per case)", |b| {
        let mut i = 0;
        b.iter(|| {
            let e = &equations[i % equations.len()];
            i += 1;
            black_box(solve(e, None, &l).ok())
        })
    });
    c.bench_function("solve/x^2-5x+6", |b| b.iter(|| black_box(solve("x^2 - 5x + 6", None, &l).ok())));
}

criterion_group!(sym, benches);
criterion_main!(sym);
