//! `attest-provenance`: the run ledger and the claim checker, served over MCP, with
//! `cite.check` (claims whose `cite=` key no source resolves). It links attest-runs and
//! attest-cite, nothing of the other domains, and no HTTP client: citations come from
//! local sources only (no attest-crossref), and `ATTEST_CITATION_WEB=1` is reported in
//! the sources as a request this program cannot honour.

use std::sync::Arc;

use attest_cite::{Sources, scan::resolver_config, tools::check_tool};
use attest_runs::claims::{CiteResolver, KeyCheck};

fn main() -> std::process::ExitCode {
    attest_mcp::surface_main("provenance", |config| async move {
        let sources = Sources::lazy(resolver_config(|k| std::env::var(k).ok(), config.root.as_deref()));
        // The claims check lints `cite=` keys against the same sources cite.check reads.
        let lazy = Arc::clone(&sources);
        let citations = move || {
            let sources = Arc::clone(&lazy);
            async move {
                let r = sources.get().await;
                Arc::new(KeyCheck { sources: r.source_names(), resolves: move |k: &str| r.resolves(k) })
                    as Arc<dyn CiteResolver + Send>
            }
        };
        let mut catalogue = attest_runs::tools::catalogue(&config, Some(Arc::new(citations))).await?;
        catalogue.push(check_tool(sources, config.root.clone()));
        Ok(catalogue)
    })
}
