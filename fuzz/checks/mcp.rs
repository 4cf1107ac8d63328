//! MCP request decoding: the check every stdio line and HTTP body passes before rmcp
//! sees it never panics, and an id is recovered from anything that has one.
//!
//! The body of the `mcp` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

use attest_mcp::protocol::{Transport, recover_id};

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let stdio = attest_mcp::protocol::check(data, Transport::Stdio).map_err(|r| format!("{r:?}"));
    let http = attest_mcp::protocol::check(data, Transport::Http).map_err(|r| format!("{r:?}"));
    let _ = recover_id(data);
    // A line that decodes over HTTP decodes over stdio too (HTTP accepts fewer revisions).
    if http.is_ok() {
        assert!(stdio.is_ok(), "accepted over HTTP but not stdio: {stdio:?}");
    }
}
