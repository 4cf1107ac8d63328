//! `attest-feed`: the reader's feed (ranked reading, search, ratings, personas and
//! subscriptions), served over MCP. It links attest-feed and nothing of the other
//! domains.

fn main() -> std::process::ExitCode {
    attest_mcp::surface_main("feed", |config| async move { Ok(attest_feed::tools::catalogue(&config).await?) })
}
