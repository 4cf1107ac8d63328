//! Every router: `route` never panics on any question, and decides the same way twice.
//! The first byte picks the router; the rest is the question.
//!
//! The body of the `routers` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

use attest_core::ask::{Args, Route};

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let question = String::from_utf8_lossy(rest);
    let router: &dyn Route = match pick % 4 {
        0 => &attest_runs::router::ROUTER,
        1 => &attest_feed::router::ROUTER,
        2 => &attest_kg::router::ROUTER,
        _ => &attest_sym::router::ROUTER,
    };
    let given = Args::new();
    let first = format!("{:?}", router.route(&question, &given));
    let again = format!("{:?}", router.route(&question, &given));
    assert_eq!(first, again, "router {} is not deterministic", pick % 4);
}
