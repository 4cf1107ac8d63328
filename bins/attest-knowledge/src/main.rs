//! `attest-knowledge`: the concept graph of what was read (`kg.*`), the archive search
//! (`feed.search`) and the citations behind it (`cite.*`), served over MCP. It links
//! attest-kg (with the feed archive it reads, from attest-archive), attest-cite and its
//! CrossRef reader (attest-crossref), and the embedding client (attest-openai), nothing
//! else: not the feed catalogue.
//!
//! Citation sources come from the environment: `ATTEST_BIB` (`.bib` files or folders,
//! `:`-separated; default every `*.bib` under `RESEARCH_ROOT`), `ATTEST_ZOTERO` (a
//! `zotero.sqlite`, or `off`), `ATTEST_CITATION_WEB=1` (CrossRef for DOIs, off by
//! default; CrossRef is attached here, with `attest_crossref::enable`, only when it is
//! set). The reference library (`cite.save`, `cite.sync`, `cite.related`,
//! `cite.export`) lives in the same database as the archive. See
//! specs/knowledge-surface.md.

use std::sync::Arc;

use attest_cite::{Sources, library_tools, scan::resolver_config, tools as cite};

fn main() -> std::process::ExitCode {
    attest_mcp::surface_main("knowledge", |config| async move {
        // `feed.search` ranks with the embedding server when one is configured.
        let embed = attest_openai::embed_service_from_env(|k| std::env::var(k).ok());
        let mut catalogue = attest_kg::tools::catalogue(&config, embed).await?;
        let sources = resolver_config(|k| std::env::var(k).ok(), config.root.as_deref());
        let sources = attest_crossref::enable(sources);
        // Read on the first citation call, not before the handshake.
        let sources = Sources::lazy(sources);
        // The citation tools with the reference library in the same database.
        catalogue.extend(library_tools::catalogue(&config, Arc::clone(&sources)).await?);
        catalogue.push(cite::check_tool(sources, config.root.clone()));
        Ok(catalogue)
    })
}
