//! The reading feed as a library: subscriptions, fetching, ingest with dedup, the item
//! archive and its full-text search, readers (personas), their clicks and engagement,
//! and, in the ranking modules, how items are ordered for a reader.
//!
//! Data side: [`store`] (the feed store API over [`attest_store::Store`]), [`ingest`]
//! (parse with feed-rs, clean, dedup, write one transaction per feed), [`fetch`]
//! (conditional, capped, time-limited reads of http(s) and local feeds), [`opml`],
//! [`clean`], [`search`] (FTS5, the only SQLite-specific queries) and [`model`].
//!
//! The web beyond feeds, both off unless configured: [`embed`] (item vectors for
//! ranking, filled lazily from an OpenAI-compatible `/embeddings` server through
//! `openai`, with `EMBED_BASE_URL`) and [`research`] (`feed.research`: arXiv, PubMed and
//! CrossRef, with `ATTEST_RESEARCH_WEB=1`).
//!
//! This crate knows nothing of MCP; the surface binary wires it in.

#![warn(missing_docs)]

pub mod embed;
pub mod fetch;
pub mod ingest;
/// The JSON web client and the HTTP embedder (the `attest-openai` crate).
#[cfg(feature = "fetch")]
pub use attest_openai as openai;
pub mod opml;
pub mod research;
pub mod router;
pub mod tagging;
pub mod tools;

// The archive's read side, under the paths this crate has always offered them.
pub use attest_archive::{
    Click, ClickSource, Counts, Engagement, EngagementKind, Feed, FeedError, FeedStore, Item, NewItem, Reader, Result,
    SearchHit, SearchQuery, clean, concepts, eval, explain, kind, model, persona, quality, rank, search, store,
};
pub use fetch::{FetchError, FetchOptions};
pub use ingest::{FailedFeed, IngestReport};
