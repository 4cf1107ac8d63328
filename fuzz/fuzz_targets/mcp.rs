//! MCP request decoding: the check every stdio line and HTTP body passes before rmcp
//! sees it never panics, and an id is recovered from anything that has one.
#![no_main]

use attest_mcp::protocol::{Transport, check, recover_id};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let stdio = check(data, Transport::Stdio).map_err(|r| format!("{r:?}"));
    let http = check(data, Transport::Http).map_err(|r| format!("{r:?}"));
    let _ = recover_id(data);
    // A line that decodes over HTTP decodes over stdio too (HTTP accepts fewer revisions).
    if http.is_ok() {
        assert!(stdio.is_ok(), "accepted over HTTP but not stdio: {stdio:?}");
    }
});
