//! The feed tools' [`Context`]: the archive's (store, embeddings, ranking cache) plus
//! what only the feed surface does, fetching addresses agents give and searching the
//! web literature.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use crate::FeedStore;
use crate::embed::EmbedService;
use crate::fetch::{FetchOptions, Fetcher};
use crate::research::ResearchConfig;

/// What the feed tools share: the archive's context (which derefs to it), the fetcher
/// for addresses agents give, and the `feed.research` settings.
#[derive(Debug)]
pub struct Context {
    /// The store, the embedding server and the ranking cache, which `feed.search`
    /// shares.
    pub archive: Arc<attest_archive::tools::Context>,
    /// The fetcher for `feed.source_add` / `feed.source_preview`.
    pub fetcher: Fetcher,
    /// Where `feed.research` searches, and whether it may (`ATTEST_RESEARCH_WEB`).
    pub research: ResearchConfig,
}

impl Deref for Context {
    type Target = attest_archive::tools::Context;

    fn deref(&self) -> &Self::Target {
        &self.archive
    }
}

impl Context {
    /// A context over a store. The fetcher reads http(s) only (no local files) unless
    /// `ATTEST_FEED_LOCAL=1`; `ATTEST_FEED_TIMEOUT` (seconds) shortens its 30 s limit.
    /// The embedding server and `feed.research` come from the environment
    /// ([`Context::with_env_services`]).
    pub fn new(store: FeedStore) -> Context {
        let mut opts = FetchOptions { allow_local: env_flag("ATTEST_FEED_LOCAL"), ..FetchOptions::default() };
        if let Some(secs) = std::env::var("ATTEST_FEED_TIMEOUT").ok().and_then(|v| v.trim().parse::<u64>().ok()) {
            opts.timeout = Duration::from_secs(secs.clamp(1, 300));
            opts.connect_timeout = opts.connect_timeout.min(opts.timeout);
        }
        Context::with_fetcher(store, Fetcher::new(opts)).with_env_services()
    }

    /// A context with an explicit fetcher, no embedding server and `feed.research` off.
    pub fn with_fetcher(store: FeedStore, fetcher: Fetcher) -> Context {
        Context {
            archive: Arc::new(attest_archive::tools::Context::new(store).with_fill_hint(
                "subscribe with feed.source_add(url) (or run attest ingest with a feeds file)",
                &["feed.source_add"],
            )),
            fetcher,
            research: ResearchConfig::default(),
        }
    }

    /// Use this embedding server for ranking (`None`: words only). Call before the
    /// context is shared.
    pub fn with_embedder(mut self, embed: Option<EmbedService>) -> Context {
        let archive = Arc::try_unwrap(self.archive).unwrap_or_else(|shared| {
            let (how, tools) = shared.fill_hint();
            attest_archive::tools::Context::new(shared.store.clone()).with_fill_hint(how, tools)
        });
        self.archive = Arc::new(archive.with_embedder(embed));
        self
    }

    /// Use these `feed.research` settings.
    pub fn with_research(mut self, research: ResearchConfig) -> Context {
        self.research = research;
        self
    }

    /// The embedding server (`EMBED_BASE_URL`, …) and the `feed.research` settings
    /// (`ATTEST_RESEARCH_WEB`, …) named by the environment.
    pub fn with_env_services(self) -> Context {
        let get = |k: &str| std::env::var(k).ok();
        self.with_embedder(crate::embed::from_env(get)).with_research(ResearchConfig::from_env(get))
    }
}

fn env_flag(key: &str) -> bool {
    std::env::var(key)
        .is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off"))
}
