//! The metric payload readers: JSON, JSON lines and CSV result files, metric extraction
//! from a parsed payload, and TensorBoard event records never panic.
#![no_main]

#[path = "../checks/metrics.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
