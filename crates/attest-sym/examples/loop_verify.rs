//! Call `verify(lhs, rhs)` `n` times and print the mean time per call: a target for
//! profilers (`perf record`, `valgrind --tool=callgrind`, which counts instructions
//! whatever else the machine is doing).
//!
//! `cargo run --release -p attest-sym --example loop_verify -- 'w/w' '1' 100000`

use attest_sym::{Limits, verify};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, lhs, rhs, n] = args.as_slice() else {
        eprintln!("usage: loop_verify LHS RHS CALLS");
        std::process::exit(2);
    };
    let n: u32 = n.parse().expect("CALLS is a number");
    let limits = Limits::default();
    let start = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(verify(lhs, rhs, &limits).ok());
    }
    println!("{:.2} µs per call", start.elapsed().as_secs_f64() * 1e6 / f64::from(n.max(1)));
}
