//! The reading archive as a library: what the feed has stored and what a reader made
//! of it, read and ranked without touching the network.
//!
//! - [`store`]: the archive over [`attest_store::Store`] ([`FeedStore`]): subscriptions,
//!   items, tags, readers, their clicks and engagement, every query in one place;
//!   [`model`] holds the rows as named types, [`address`] how feed addresses are
//!   classified and stored.
//! - [`search`]: full-text search (FTS5), [`clean`]: the text normalisation both sides
//!   of a search use.
//! - [`rank`]: how items are ordered for a reader (pure maths over a [`rank::Corpus`];
//!   `rank::data` is its one I/O part), with [`eval`] (held-out precision),
//!   [`quality`] (how far to trust an order), [`explain`] and [`persona`] (reader
//!   names, interests, what an unknown name does).
//! - [`embed`]: item vectors in the archive and the ranking side of embeddings, behind
//!   the [`rank::Embedder`] trait; the HTTP client that fills them is the feed crate's.
//! - [`tools`]: the ranking cache the feed tools share ([`tools::Context`]) and
//!   `feed.search` ([`tools::search_tool`]), which the knowledge surface serves without
//!   the rest of the feed catalogue.
//!
//! Fetching, ingest, OPML, `feed.research` and the feed catalogue live in `attest-feed`,
//! which builds on this crate. Nothing here opens a socket.

#![warn(missing_docs)]

pub mod address;
pub mod clean;
pub mod concepts;
pub mod embed;
pub mod eval;
pub mod explain;
pub mod kind;
pub mod model;
pub mod persona;
pub mod quality;
pub mod rank;
pub mod search;
pub mod store;
pub mod tools;

pub use address::FetchError;
pub use model::{Click, ClickSource, Counts, Engagement, EngagementKind, Feed, Item, NewItem, Reader};
pub use search::{SearchHit, SearchQuery};
pub use store::FeedStore;

/// Why a feed operation could not be done. Every message says what to do next.
#[derive(Debug, thiserror::Error)]
pub enum FeedError {
    /// The database failed: in words with what to do (`attest_store::words`), never the
    /// driver's text.
    #[error("{}", attest_store::words(.0, None))]
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
    Fetch(#[from] address::FetchError),
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
    /// True when the database was busy (another writer), so retrying shortly may work:
    /// told by `attest_store::Trouble`, the one mapping every domain uses.
    pub fn is_busy(&self) -> bool {
        match self {
            FeedError::Sql(e) => attest_store::Trouble::of(e) == Some(attest_store::Trouble::Busy),
            _ => false,
        }
    }
}

/// Result with [`FeedError`].
pub type Result<T, E = FeedError> = std::result::Result<T, E>;
