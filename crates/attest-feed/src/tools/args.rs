//! The tools' arguments. Their doc comments become the parameter descriptions agents read.

use attest_core::{Bounded, RowLimit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{DEFAULT_LIMIT, DIGEST_DAYS, LIST_DAYS, MAX_DAYS, MAX_LIMIT};

/// Arguments of `feed.list`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The reader (persona) whose feed this is, e.g. `alice`. An unknown name is created
    /// with interests taken from the archive, and the answer says so. Empty: the only
    /// reader, when there is exactly one.
    #[serde(default)]
    pub user: String,
    /// How many items to show.
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
    /// The window in days: items published since then that the reader has
    /// not rated.
    #[serde(default)]
    pub days: Bounded<1, MAX_DAYS, LIST_DAYS>,
}

/// Arguments of the tools about one item (`feed.read`, `feed.explain`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ItemArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The item's id, from feed.list or feed.search.
    #[serde(default)]
    pub item_id: Option<i64>,
    /// Or the item's address (its link or GUID), when there is no item_id.
    #[serde(default)]
    pub url: Option<String>,
}

/// Arguments of `feed.rate`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RateArgs {
    /// The reader giving the verdict (must exist: a typo must not start a new persona;
    /// empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The item's id, from feed.list or feed.search.
    #[serde(default)]
    pub item_id: Option<i64>,
    /// Or the item's address (its link or GUID), when there is no item_id.
    #[serde(default)]
    pub url: Option<String>,
    /// true = useful to this reader (default), false = not useful.
    #[serde(default = "yes")]
    pub useful: bool,
    /// Who gave the verdict: `agent` (default: the person said so in conversation) or
    /// `ui`. `implicit`, `simulated` and `bootstrap` are for tools and demos.
    #[serde(default)]
    pub source: Option<String>,
}

/// Arguments of `feed.digest`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DigestArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The window in days.
    #[serde(default)]
    pub days: Bounded<1, MAX_DAYS, DIGEST_DAYS>,
    /// How many topics to show (at most 8); each lists its best 3 items by title.
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
}

/// Arguments of `feed.persona_create`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CreateArgs {
    /// The new reader's name (unique regardless of case, at most 64 characters).
    #[serde(default)]
    pub user: String,
    /// The same, as a question names it ("create a persona called alice"); wins over
    /// user.
    #[serde(default)]
    pub name: Option<String>,
    /// What the reader wants to read about, in their words ("asymmetric catalysis,
    /// C-H activation, flow chemistry").
    #[serde(default)]
    pub interests: String,
}

/// Arguments of `feed.persona_update`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct UpdateArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The reader as a question names it ("alice's interests"); wins over user.
    #[serde(default)]
    pub name: Option<String>,
    /// The new interests text (replaces the old one unless append=true).
    #[serde(default)]
    pub interests: String,
    /// Add the text to the existing interests instead of replacing them.
    #[serde(default)]
    pub append: bool,
}

/// Arguments of the tools that take only a reader.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct UserArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default, alias = "name")]
    pub user: String,
}

/// Arguments of `feed.persona_reset` and `feed.persona_delete`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ConfirmArgs {
    /// The reader (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// The reader as a question names it ("delete the persona bob"); wins over user.
    #[serde(default)]
    pub name: Option<String>,
    /// Must be true: this erases the reader's ratings (and, for delete, the reader).
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `feed.persona_merge`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct MergeArgs {
    /// The name to merge away (its ratings, reading history and interests move; the name
    /// is deleted).
    #[serde(default)]
    pub from: String,
    /// The name to keep.
    #[serde(default)]
    pub into: String,
    /// Must be true: the `from` reader is deleted.
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `feed.persona_suggest_interests` and `feed.source_suggest`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SuggestArgs {
    /// The reader (optional: suggestions come from the whole archive; a known reader's
    /// ratings weigh in).
    #[serde(default, alias = "name")]
    pub user: Option<String>,
    /// How many suggestions.
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
}

/// Arguments of `feed.source_add`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourceAddArgs {
    /// The feed's address (http or https): RSS, Atom or JSON Feed.
    #[serde(default)]
    pub url: String,
    /// A title to show for it (default: the feed's own).
    #[serde(default)]
    pub title: Option<String>,
    /// Fetch it now to check it is a feed and store its items (default true). With
    /// false it is only registered, and fetched at the next `attest ingest`.
    #[serde(default = "yes")]
    pub fetch: bool,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

fn yes() -> bool {
    true
}

/// Arguments of `feed.source_remove`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourceRemoveArgs {
    /// The subscription's id, from feed.sources.
    #[serde(default)]
    pub feed_id: Option<i64>,
    /// Or its address.
    #[serde(default)]
    pub url: Option<String>,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

/// Arguments of `feed.source_preview`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PreviewArgs {
    /// The address to look at (http or https).
    #[serde(default)]
    pub url: String,
    /// How many entries to show.
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
    /// Accepted for symmetry; previews store nothing.
    #[serde(default)]
    pub user: Option<String>,
}

/// Arguments of `feed.sources`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SourcesArgs {
    /// How many subscriptions to show (failing ones first).
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
    /// Subscriptions are shared by every reader; accepted for symmetry.
    #[serde(default)]
    pub user: Option<String>,
}

/// What `feed.ask` takes besides the question: what the agent already knows, read by
/// the router and passed to whichever tool the question reaches when it takes them.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct AskContext {
    /// The reader asking (if not given: the one the question names, else the only
    /// reader).
    #[serde(default)]
    pub user: Option<String>,
    /// The item the question is about, if any (completes rate/read/explain in one call).
    #[serde(default)]
    pub item_id: Option<i64>,
    /// An address the question is about (an item's link, or a feed to add or preview).
    #[serde(default)]
    pub url: Option<String>,
}
