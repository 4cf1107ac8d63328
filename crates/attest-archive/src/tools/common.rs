//! What the handler groups share: failures worded as refusals, and pieces of answer lines.

use attest_core::text::clip;
use attest_core::{Answer, Fault, Stop};
use serde_json::Value;

use super::Row;
use crate::FeedError;
use crate::quality::RankingQuality;

/// A feed error as an answer: routine failures are refusals that say what to do; a
/// database fault stays a fault.
pub fn fault(e: FeedError) -> Result<Answer<Value>, Fault> {
    match e {
        e if e.is_busy() => Ok(Answer::refuse(
            "the feed database is busy (another process is writing, e.g. attest ingest); try again in a few seconds",
        )),
        FeedError::Sql(e) => Err(Fault::new("feed database", e)),
        FeedError::UnknownItem(id) => Ok(unknown_item(id)),
        FeedError::Fetch(e) => Ok(Answer::refuse(format!("{e}. Nothing was stored."))),
        FeedError::NotAFeed(why) => Ok(Answer::refuse(format!(
            "that address is not a feed (RSS, Atom or JSON Feed): {}. Give the feed's own address (often ending in /feed, /rss or .xml), not the web page.",
            clip(&why, 200)
        ))),
        other => Ok(Answer::refuse(other.to_string())),
    }
}

impl From<FeedError> for Stop {
    /// A routine failure (the database busy, an unknown item, an address that is not a
    /// feed) is the refusal `fault` words; a database fault stays a fault.
    fn from(e: FeedError) -> Stop {
        match fault(e) {
            Ok(refusal) => Stop::from(refusal),
            Err(f) => Stop::Fault(f),
        }
    }
}

/// The refusal for an item id the archive does not have.
pub fn unknown_item(id: i64) -> Answer<Value> {
    Answer::refuse(format!(
        "unknown item_id {id}: there is no such item in the archive. Item ids come from feed.list or feed.search."
    ))
    .with_options(vec!["feed.list".into(), "feed.search".into()])
}

/// The refusal for an item id the archive does not have, naming the items with the
/// nearest ids (from [`crate::FeedStore::items_near`]) as alternatives.
pub fn unknown_item_near(id: i64, near: &[(i64, String)]) -> Answer<Value> {
    if near.is_empty() {
        return Answer::refuse(format!(
            "unknown item_id {id}: the archive has no items yet. Subscribe to a feed with feed.source_add."
        ))
        .with_options(vec!["feed.source_add".into(), "feed.sources".into()]);
    }
    let alts: Vec<String> = near.iter().map(|(i, t)| format!("{i} '{}'", attest_core::text::clip(t, 60))).collect();
    let alts = match alts.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    };
    Answer::refuse(format!(
        "unknown item_id {id}: there is no such item in the archive. Did you mean {alts}? Item ids come from feed.list or feed.search."
    ))
    .with_options(vec!["feed.list".into(), "feed.search".into()])
}

/// A feed error as a fault.
pub fn feed_fault(e: FeedError) -> Fault {
    Fault::new("feed database", e)
}

/// The quality note as answer data (its caveat rides on the answer itself).
pub fn quality_value(q: &RankingQuality) -> Value {
    let mut v = serde_json::to_value(q).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        // The caveat rides on the answer itself.
        o.remove("caveat");
    }
    v
}

/// "raise limit up to 16" for an agent; "raise limit" when the caller takes whole
/// answers (the CLI), where no cap applies.
pub fn raise_limit() -> String {
    match attest_core::budget::current() {
        attest_core::Budget::Agent => format!("raise limit up to {}", super::MAX_LIMIT),
        attest_core::Budget::Whole => "raise limit".to_string(),
    }
}

/// " (N more …; hint)", or nothing when there are no more.
pub fn more_line(more: usize, what: &str, hint: &str) -> String {
    if more == 0 { String::new() } else { format!(" ({more} more {what}; {hint})") }
}

/// The first `n` rows as `[id] title; …`.
pub fn titles(items: &[Row], n: usize) -> String {
    items.iter().take(n).map(|r| format!("[{}] {}", r.item_id, clip(&r.title, 70))).collect::<Vec<_>>().join("; ")
}
