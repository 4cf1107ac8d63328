//! `attest-provenance`: the run ledger and the claim checker, served over MCP.
//! It links attest-runs and nothing of the other domains.

fn main() -> std::process::ExitCode {
    attest_mcp::surface_main("provenance", |config| async move { Ok(attest_runs::tools::catalogue(&config).await?) })
}
