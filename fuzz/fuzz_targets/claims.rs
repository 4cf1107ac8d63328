//! The claim grammar in every draft format: reading a draft never panics, and reading
//! it twice gives the same claims and problems.
#![no_main]

#[path = "../checks/claims.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
