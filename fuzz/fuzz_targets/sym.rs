//! The symbolic parser within its limits: any text is parsed or refused, never a panic.
#![no_main]

#[path = "../checks/sym.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
