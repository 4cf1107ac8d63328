//! What the tools over the archive share, and `feed.search`.
//!
//! The ranking index of a reader's window is the expensive part of ranking (about
//! 24 µs per item to build); [`Context`] keeps it per reader and window with the
//! reader's model fitted on it, rebuilt only when the archive or the subscriptions
//! change (checked by one cheap fingerprint query per call, so an `attest ingest` run
//! by another process is seen too). A change of the reader's ratings alone keeps the
//! index when it still covers the rated items, and refits only the model.
//! `feed.search` ([`search_tool`]) scores its hits against that index with that model.
//!
//! The limits every reader-facing list shares are written here once; the feed
//! catalogue re-exports them.

mod common;
mod context;
mod reader;
mod replies;
mod search;
mod shown;

use attest_core::Hints;

pub use common::{fault, feed_fault, more_line, quality_value, raise_limit, titles, unknown_item, unknown_item_near};
pub use context::{Context, Fingerprint, Window, window_for};
pub use reader::{reader_for, reader_names, with_notice};
pub use replies::{Row, Searched, byline, item_ref, row};
pub use search::{SearchArgs, search_items, search_tool};
pub use shown::{MAX_SESSIONS, Shown};

/// Most rows any list returns.
pub const MAX_LIMIT: i64 = 16;
/// Rows a list returns by default.
pub const DEFAULT_LIMIT: i64 = 5;
/// The default window of `feed.list`, in days (as the original).
pub const LIST_DAYS: i64 = 14;
/// The default window of `feed.digest`, in days.
pub const DIGEST_DAYS: i64 = 7;
/// Full-text hits `feed.search` re-ranks for the reader.
pub const SEARCH_POOL: usize = 100;
/// Characters of a title in a row.
pub const TITLE_CHARS: usize = 100;
/// Characters of a url in a ref.
pub const URL_CHARS: usize = 200;
/// Characters of a summary `feed.read` returns.
pub const SUMMARY_CHARS: usize = 1_500;
/// The longest window, in days.
pub const MAX_DAYS: i64 = 3_650;

/// A write that can be repeated with the same effect (a ranked read records what was
/// shown).
pub const WRITE_IDEMPOTENT: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: false };
