//! Plain data types of the feed: subscriptions, items, readers, clicks and engagement.
//!
//! Times are strings in one fixed UTC form (`YYYY-MM-DDTHH:MM:SSZ`, see [`stamp`]) so
//! they compare correctly as text in the database and on the wire.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::macros::format_description;

use crate::clean;

/// Format a time as the fixed UTC text form used everywhere in the feed
/// (`2026-10-31T09:00:00Z`). Sub-second precision is dropped.
pub fn stamp(t: OffsetDateTime) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    t.format(format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]Z"))
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into())
}

/// The current time in the [`stamp`] form.
pub fn now_stamp() -> String {
    stamp(OffsetDateTime::now_utc())
}

/// Parse a [`stamp`] (or any RFC 3339 time) back into a time.
pub fn parse_stamp(s: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
}

/// A subscription, with what the last fetch found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Feed {
    /// Stable id, used by `feed.source_remove`.
    pub id: i64,
    /// Where the feed is fetched from (http(s), `file://` or a local path).
    pub url: String,
    /// The title given at subscription or read from the feed.
    pub title: Option<String>,
    /// The ETag of the last full answer, sent back as `If-None-Match`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etag: Option<String>,
    /// The Last-Modified of the last full answer, sent back as `If-Modified-Since`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// When the feed was last fetched successfully (including "not modified").
    pub last_fetched: Option<String>,
    /// Why the last fetch failed; `None` after a success.
    pub last_error: Option<String>,
    /// When the subscription was made.
    pub added_at: String,
    /// How many items in the archive belong to this feed.
    pub item_count: i64,
}

/// One item of the archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Item {
    /// Stable id (`item:<id>` in refs).
    pub id: i64,
    /// The feed it came from; `None` once that feed was unsubscribed.
    pub feed_id: Option<i64>,
    /// The feed's title, shown as the item's source.
    pub source: Option<String>,
    /// The entry id the feed gave (or one derived from its link/title).
    pub guid: String,
    /// Cleaned title.
    pub title: String,
    /// Link to the item.
    pub url: Option<String>,
    /// Cleaned summary (plain text, no arXiv preamble).
    pub summary: String,
    /// The feed's date for it, or when it was first seen if the feed gave none.
    pub published: String,
    /// When this archive first saw it.
    pub first_seen: String,
    /// blake3 over the normalised title and summary.
    pub content_hash: String,
    /// Normalised DOI (lowercase), when one was found.
    pub doi: Option<String>,
    /// Normalised arXiv id (no version suffix), when one was found.
    pub arxiv_id: Option<String>,
    /// Categories the feed carried, normalised, sorted.
    pub tags: Vec<String>,
    /// The people the feed names as its authors, in its order ([`clean::authors`]).
    #[serde(default)]
    pub authors: Vec<String>,
}

/// An item ready to be stored: cleaned text plus its dedup keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewItem {
    /// Entry id within its feed.
    pub guid: String,
    /// Cleaned title.
    pub title: String,
    /// Link.
    pub url: Option<String>,
    /// Cleaned summary.
    pub summary: String,
    /// The feed's date in [`stamp`] form, if it gave one.
    pub published: Option<String>,
    /// See [`Item::content_hash`].
    pub content_hash: String,
    /// See [`Item::doi`].
    pub doi: Option<String>,
    /// See [`Item::arxiv_id`].
    pub arxiv_id: Option<String>,
    /// Normalised, deduplicated tags the feed itself carried (stored with origin
    /// `feed`).
    pub tags: Vec<String>,
    /// Keyphrase tags extracted from the title and summary (stored with origin
    /// `keyphrase`); filled by the feed crate's `ingest::add_keyphrases`, empty otherwise.
    pub keyphrases: Vec<String>,
    /// The authors the feed names ([`clean::authors`]); empty when it names none.
    pub authors: Vec<String>,
}

impl NewItem {
    /// Build an item from already-cleaned text, computing the content hash and
    /// normalising the tags. `doi` / `arxiv_id` are normalised if given; when absent
    /// they are looked for in `url` and `guid` (never in the summary, which may cite
    /// other papers).
    pub fn build(
        guid: impl Into<String>,
        title: impl Into<String>,
        url: Option<String>,
        summary: impl Into<String>,
        published: Option<String>,
        tags: impl IntoIterator<Item = String>,
    ) -> NewItem {
        let guid = guid.into();
        let title = title.into();
        let summary = summary.into();
        let from = [url.as_deref().unwrap_or(""), guid.as_str()];
        let doi = from.iter().find_map(|s| clean::find_doi(s));
        let arxiv_id = from
            .iter()
            .find_map(|s| clean::find_arxiv_id(s))
            .or_else(|| doi.as_deref().and_then(clean::arxiv_from_doi));
        let mut tags: Vec<String> = tags.into_iter().filter_map(|t| clean::normalise_tag(&t)).collect();
        tags.sort();
        tags.dedup();
        NewItem {
            content_hash: clean::content_hash(&title, &summary),
            guid,
            title,
            url,
            summary,
            published,
            doi,
            arxiv_id,
            tags,
            keyphrases: Vec::new(),
            authors: Vec::new(),
        }
    }
}

/// A reader (persona): a name and the interests text their ranking starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reader {
    /// Stable id.
    pub id: i64,
    /// The name as first spelled; looked up case-insensitively.
    pub name: String,
    /// Free text naming the reader's topics.
    pub interests: String,
    /// When the reader was created.
    pub created_at: String,
}

/// Where a click (a useful / not-useful verdict) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ClickSource {
    /// A person pressed a button in a user interface.
    Ui,
    /// An agent recorded a verdict the person gave in conversation (`feed.rate`).
    Agent,
    /// Engagement (reading, asking why) harvested as a weak positive.
    Implicit,
    /// A model reacting as the persona; not a person's judgement.
    Simulated,
    /// Demo seeding; circular by construction and never evidence of quality.
    Bootstrap,
}

impl ClickSource {
    /// Every source, in a fixed order.
    pub const ALL: [ClickSource; 5] =
        [ClickSource::Ui, ClickSource::Agent, ClickSource::Implicit, ClickSource::Simulated, ClickSource::Bootstrap];

    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ClickSource::Ui => "ui",
            ClickSource::Agent => "agent",
            ClickSource::Implicit => "implicit",
            ClickSource::Simulated => "simulated",
            ClickSource::Bootstrap => "bootstrap",
        }
    }

    /// A person judged the item (ui or agent).
    pub fn is_human(self) -> bool {
        matches!(self, ClickSource::Ui | ClickSource::Agent)
    }

    /// May the click be used as evidence when measuring ranking quality? Bootstrap
    /// labels never are: they were drawn from the ranking they would measure.
    pub fn counts_as_evidence(self) -> bool {
        self != ClickSource::Bootstrap
    }
}

impl fmt::Display for ClickSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ClickSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClickSource::ALL
            .into_iter()
            .find(|c| c.as_str() == s.trim().to_lowercase())
            .ok_or_else(|| format!("unknown click source '{s}': use one of ui, agent, implicit, simulated, bootstrap"))
    }
}

/// A reader's verdict on an item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Click {
    /// Who judged.
    pub reader_id: i64,
    /// What was judged.
    pub item_id: i64,
    /// The verdict.
    pub useful: bool,
    /// Where the verdict came from.
    pub source: ClickSource,
    /// When it was recorded (the latest rating).
    pub at: String,
}

/// What a reader did with an item short of rating it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EngagementKind {
    /// Opened the item (`feed.read`).
    Read,
    /// Asked why it was shown (`feed.explain`).
    Explain,
}

impl EngagementKind {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EngagementKind::Read => "read",
            EngagementKind::Explain => "explain",
        }
    }
}

impl FromStr for EngagementKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "read" => Ok(EngagementKind::Read),
            "explain" => Ok(EngagementKind::Explain),
            _ => Err(format!("unknown engagement kind '{s}': use read or explain")),
        }
    }
}

/// One engagement record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Engagement {
    /// Who.
    pub reader_id: i64,
    /// Which item.
    pub item_id: i64,
    /// What they did.
    pub kind: EngagementKind,
    /// When they first did it.
    pub at: String,
}

/// Sizes of the feed data.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Counts {
    /// Subscriptions.
    pub feeds: i64,
    /// Items in the archive.
    pub items: i64,
    /// Items whose feed was unsubscribed.
    pub orphaned_items: i64,
    /// Readers.
    pub readers: i64,
    /// Clicks, all readers and sources.
    pub clicks: i64,
}

// ---- rows the concept graph (attest-kg) reads -------------------------------------
// (Placed before the test module, not after it: clippy's items_after_test_module.)

/// One tag of one item, as stored (`item_tags`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ItemTag {
    /// The item.
    pub item_id: i64,
    /// The tag, as stored (lower case).
    pub tag: String,
}

/// How many items the archive holds, and how many of them carry no tag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArchiveCounts {
    /// Items in the archive.
    pub items: i64,
    /// Items with no tag at all.
    pub untagged: i64,
}

/// An item's title and link, for citing it as evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ItemLink {
    /// The item's id.
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its link.
    pub url: Option<String>,
}
// ---- end of the rows attest-kg reads ------------------------------------------------

/// What a reader's ranking depends on, read in one query: the archive's state and the
/// reader's ratings. The ranking cache keeps a window while this is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RankingState {
    /// The newest item's id.
    pub max_item: Option<i64>,
    /// How many subscriptions there are.
    pub feeds: i64,
    /// The newest fetch of any subscription.
    pub last_fetched: Option<String>,
    /// How many ratings the reader has.
    pub clicks: i64,
    /// How many of them say useful.
    pub useful: i64,
    /// The newest rating's time.
    pub last_click: Option<String>,
    /// A checksum over (item, verdict, source) of the reader's ratings, so a verdict or
    /// source changed by another process within the same second is seen.
    pub verdicts: i64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_are_fixed_width_utc() {
        let t = parse_stamp("2026-03-01T23:30:00+02:00").unwrap();
        assert_eq!(stamp(t), "2026-03-01T21:30:00Z");
        assert_eq!(parse_stamp(&stamp(t)), Some(t));
    }

    #[test]
    fn click_sources_round_trip() {
        for s in ClickSource::ALL {
            assert_eq!(s.as_str().parse::<ClickSource>().unwrap(), s);
        }
        assert!("person".parse::<ClickSource>().is_err());
        assert!(!ClickSource::Bootstrap.counts_as_evidence());
        assert!(ClickSource::Agent.is_human() && !ClickSource::Implicit.is_human());
    }

    #[test]
    fn new_item_finds_ids_in_link_not_summary() {
        let it = NewItem::build(
            "g1",
            "T",
            Some("https://arxiv.org/abs/2501.01234v3".into()),
            "compare doi:10.1000/other",
            None,
            ["cs.LG".to_string(), "cs.lg".into(), " ".into()],
        );
        assert_eq!(it.arxiv_id.as_deref(), Some("2501.01234"));
        assert_eq!(it.doi, None);
        assert_eq!(it.tags, vec!["cs.lg".to_string()]);
    }
}
