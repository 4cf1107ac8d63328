//! `attest-provenance`: the run ledger and the claim checker, served over MCP, with
//! `cite.check` (claims whose `cite=` key no source resolves). It links attest-runs and
//! attest-cite, nothing of the other domains.

use attest_cite::{Sources, scan::resolver_config, tools::check_tool};

fn main() -> std::process::ExitCode {
    attest_mcp::surface_main("provenance", |config| async move {
        let mut catalogue = attest_runs::tools::catalogue(&config).await?;
        let sources = resolver_config(|k| std::env::var(k).ok(), config.root.as_deref());
        catalogue.push(check_tool(Sources::lazy(sources), config.root.clone()));
        Ok(catalogue)
    })
}
