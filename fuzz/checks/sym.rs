//! The symbolic parser within its limits: any text is parsed or refused, never a panic.
//!
//! The body of the `sym` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

use attest_sym::limits::Limits;
use attest_sym::parse::{parse_chain, parse_expr, parse_statement};

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let limits = Limits::default();
    let _ = parse_expr(text, &limits);
    let _ = parse_statement(text, &limits);
    let _ = parse_chain(text, &limits);
    let _ = attest_sym::linalg::parse_matrices(text, &limits);
    let _ = attest_sym::limit::parse_point(text, &limits);
}
