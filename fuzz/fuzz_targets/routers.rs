//! Every router: `route` never panics on any question, and decides the same way twice.
//! The first byte picks the router; the rest is the question.
#![no_main]

#[path = "../checks/routers.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
