//! Every router: `route` never panics on any question, and decides the same way twice.
//! The first byte picks the router; the rest is the question.
#![no_main]

use attest_core::ask::{Args, Route};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
