//! The feed parser path (RSS, Atom, RDF, JSON Feed through feed-rs, then attest's
//! cleaning and identifiers) never panics, and parses the same bytes the same way.
#![no_main]

#[path = "../checks/feed.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
