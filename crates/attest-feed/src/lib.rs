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

pub mod clean;
pub mod fetch;
pub mod ingest;
pub mod model;
pub mod opml;
pub mod search;
pub mod store;
pub mod tagging;

pub mod embed;
pub mod eval;
pub mod explain;
#[cfg(feature = "fetch")]
pub mod openai;
pub mod persona;
pub mod quality;
pub mod rank;
pub mod research;
pub mod router;
pub mod tools;

pub use fetch::{FetchError, FetchOptions};
pub use ingest::{FailedFeed, IngestReport};
pub use model::{Click, ClickSource, Counts, Engagement, EngagementKind, Feed, Item, NewItem, Reader};
pub use search::{SearchHit, SearchQuery};
pub use store::FeedStore;

/// Why a feed operation could not be done. Every message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// The database failed.
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
    /// No reader has this name.
    #[error("unknown reader '{0}'")]
    UnknownReader(String),
    /// No item has this id.
    #[error("unknown item_id: {0}")]
    UnknownItem(i64),
    /// No subscription has this id.
    #[error("unknown feed_id: {0}")]
    UnknownFeed(i64),
    /// A reader name was empty.
    #[error("a reader name must not be empty")]
    EmptyName,
    /// A reader with this name (in any case) exists.
    #[error("a reader named '{0}' already exists")]
    ReaderExists(String),
    /// A feed address that cannot be used.
    #[error("{0}")]
    BadUrl(String),
    /// Fetching failed.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The bytes were not a feed.
    #[error("not a feed (RSS, Atom or JSON Feed): {0}")]
    NotAFeed(String),
    /// The feeds file could not be read.
    #[error("feeds file {path}: {reason}")]
    FeedsFile {
        /// The file.
        path: String,
        /// What was wrong.
        reason: String,
    },
    /// The OPML could not be read.
    #[error("not OPML: {0}")]
    Opml(String),
}

impl FeedError {
    /// True when the database was busy (another writer), so retrying shortly may work.
    pub fn is_busy(&self) -> bool {
        match self {
            FeedError::Sql(sqlx::Error::Database(e)) => {
                let m = e.message().to_lowercase();
                m.contains("locked") || m.contains("busy")
            }
            _ => false,
        }
    }
}

/// Result with [`FeedError`].
pub type Result<T, E = FeedError> = std::result::Result<T, E>;
