//! Show the rewrite chain behind a saturation proof.
//!
//! `cargo run -p attest-sym --example egg_steps`

fn main() -> Result<(), attest_sym::SymError> {
    let v = attest_sym::verify("exp(x/2)^2", "exp(x)", &attest_sym::Limits::default())?;
    println!("{}: {}", v.verdict.as_str(), v.reason);
    for s in &v.steps {
        println!("  {s}");
    }
    Ok(())
}
