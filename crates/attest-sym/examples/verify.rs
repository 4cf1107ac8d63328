//! Verify a few claims, check a derivation and route a question.
//!
//! `cargo run -p attest-sym --example verify`

use attest_sym::{Limits, check, route, solve, verify};

fn main() -> Result<(), attest_sym::SymError> {
    let l = Limits::default();
    for (lhs, rhs) in
        [("(a+b)^2", "a^2 + 2ab + b^2"), ("(x^2-1)/(x-1)", "x+1"), ("sqrt(x^2)", "x"), ("asin(x) + acos(x)", "pi/2")]
    {
        let v = verify(lhs, rhs, &l)?;
        println!("{lhs} = {rhs}: {} — {}", v.verdict.as_str(), v.reason);
    }
    let report = check("(x+1)^2 - 1\n= x^2 + 2x\n= x(x+2)\n= x^2 + 2x + 1", &l)?;
    for s in &report.steps {
        println!("lines {}→{}: {}", s.from_line, s.to_line, s.verification.verdict.as_str());
    }
    let roots = solve("x^3 - 6x^2 + 11x - 6 = 0", None, &l)?;
    println!("roots: {:?}", roots.roots.iter().map(|r| r.value.as_str()).collect::<Vec<_>>());
    let d = route("is sin^2 x + cos^2 x equal to 1?", "");
    println!("route: {:?} {:?}", d.tool, d.args);
    Ok(())
}
