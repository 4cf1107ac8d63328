//! MCP request decoding: the check every stdio line and HTTP body passes before rmcp
//! sees it never panics, and an id is recovered from anything that has one.
#![no_main]

#[path = "../checks/mcp.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check(data));
