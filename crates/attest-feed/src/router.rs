//! The `feed.ask` router: a question in the reader's words to one feed tool.
//!
//! Pure and deterministic: no model, no database, no clock. Rules are data (the
//! ordered [`RULES`] table of [`ROUTER`] and the phrase lists beside it), matched on
//! whole words through [`attest_core::route::Question`], never on substrings, over the
//! [`Facts`] a question is read into once. Routing is attest-core's one `<ns>.ask`
//! pipeline ([`attest_core::ask`]): there is no catch-all (a question no rule claims
//! gets a question back with the tools to choose from), and a question that belongs to
//! another surface is declined by name.
//!
//! Arguments are read from the question: the subject of a search ("anything new on
//! retrieval augmented generation?" gives `query: "retrieval augmented generation"`),
//! an item id ("item 4043", "#4043"), a feed id ("feed 12"), a url, a persona name
//! ("persona alice", "called alice", "alice's ratings"), an interests text ("I work on
//! …"), a verdict (`useful: false` for "not relevant"), the literature sources
//! named for `feed.research`, how many and over how many days ("top 5, last 3 days":
//! `limit`, `days`, `offset`, read by `router/counts.rs`) and the feed a search is limited to
//! ("from the bioRxiv feed": `source`). The full contract is in `specs/feed-routing.md`.

use std::sync::{LazyLock, OnceLock};

use attest_core::Decision;
use attest_core::ask::{Args, Asked, Router, Rule};
use attest_core::route::Question;
use attest_core::score::{Cue, Scoring, Write, cue};
use regex::Regex;

mod counts;
mod subject;
mod verdict;
pub use counts::Counts;
use serde_json::Value;
pub use verdict::Verdict;

/// The routing table, in order: the first rule whose phrase occurs (or that needs
/// none) and whose condition holds decides, with the arguments its extraction reads
/// (or a question back when the question lacks one the tool needs). Every condition
/// and extraction reads the [`Facts`] the question was read into once.
pub static RULES: &[Rule<Facts>] = &[
    // A url in the question (and no item id) decides most questions by itself: a feed
    // to preview, drop or add, or the item at that address to read.
    Rule::new("feed.source_preview", URL_PREVIEW).when(url_without_item).args(counted),
    Rule::new("feed.source_remove", URL_REMOVE).when(url_without_item).args(stated),
    Rule::new("feed.source_add", URL_ADD).when(url_without_item).args(stated),
    Rule::new("feed.read", URL_READ).when(url_without_item).args(stated),
    // A bare url, with no verdict or why about the item there, is asked back.
    Rule::new("feed.source_add", &[]).when(bare_url).args(what_to_do_with_url).because("a url alone"),
    Rule::new("feed.harvest_engagement", HARVEST).args(for_reader),
    Rule::new("feed.persona_merge", PERSONA_MERGE).args(two_names),
    Rule::new("feed.persona_delete", PERSONA_DELETE).args(persona_named),
    Rule::new("feed.persona_reset", PERSONA_RESET).args(persona_named),
    Rule::new("feed.persona_create", PERSONA_CREATE).args(persona_with_interests),
    Rule::new("feed.persona_update", PERSONA_UPDATE).args(persona_with_interests),
    Rule::new("feed.persona_suggest_interests", SUGGEST_INTERESTS).args(counted_for_reader),
    Rule::new("feed.source_suggest", SOURCE_SUGGEST).args(counted_for_reader),
    Rule::new("feed.source_remove", SOURCE_REMOVE).args(feed_named),
    Rule::new("feed.source_preview", SOURCE_PREVIEW).args(counted),
    Rule::new("feed.source_add", SOURCE_ADD).args(stated),
    // Beyond the archive, said in so many words, before the subscriptions' words.
    Rule::new("feed.research", RESEARCH_BEYOND).when(topic_or_chosen).args(literature),
    Rule::new("feed.sources", SOURCES).args(counted),
    // The literature needs a topic; without one the later rules decide.
    Rule::new("feed.research", RESEARCH).when(topic_or_chosen).args(literature),
    // "why …" is about one item, or about an item's place ("so high", "at the top");
    // "why does my feed keep …" is about the persona (below).
    Rule::new("feed.explain", EXPLAIN).when(item_or_placement).args(for_reader),
    // A verdict asked as a question about an item ("is this relevant to me?") asks
    // for a reason, not a verdict, unless it says "mark" or "rate".
    Rule::new("feed.explain", &[]).when(question_about_item).args(for_reader).because("a verdict asked as a question"),
    // A verdict on an item (`verdict::read`: polar words and negation, not a list of
    // replies) records it; a hedged or mixed one is asked back.
    Rule::new("feed.rate", &[]).when(verdict_on_item).args(verdict).because("a verdict on an item"),
    Rule::new("feed.read", READ).when(points_at_item).args(for_reader),
    // A search lead: an item id reads it, an instruction to track asks how, a subject
    // is searched; none of these, and the later rules decide.
    Rule::new("feed.read", SEARCH_LEADS).when(names_item).args(for_reader),
    // Chosen by the model or the scores without a lead, the subject is what is left.
    Rule::new("feed.search", SEARCH_LEADS).when(subject_track_or_chosen).args(search_query),
    Rule::new("feed.read", DIGEST).when(names_item).args(for_reader),
    // Unread items are today's reading, whatever window they are asked over.
    Rule::new("feed.list", &["unread"]).args(reading_window),
    Rule::new("feed.digest", DIGEST).args(reading_window),
    Rule::new("feed.persona_status", PERSONA_STATUS).args(for_reader),
    Rule::new("feed.read", LIST).when(names_item).args(for_reader),
    Rule::new("feed.list", LIST).args(reading_window),
    // No phrase: an item id (or an item given beside an empty question) is read; an
    // instruction to track a topic is asked how.
    Rule::new("feed.read", &[]).when(item_given).args(for_reader).because("an item id"),
    Rule::new("feed.persona_update", &[]).when(tracks).args(how_to_track).because("an instruction to track"),
    // A short reply about an item that nothing above claims is asked back about the item.
    Rule::new("feed.rate", &[]).when(unclear_reply_about_item).args(what_about_item).because("a reply about an item"),
];

/// The feed surface's router.
pub static ROUTER: Router<Facts> = Router {
    surface: "feed",
    rules: RULES,
    empty: EMPTY,
    unclear: UNCLEAR,
    options: DEFAULT_OPTIONS,
    decline_note: " If you meant your feed, say which: today's reading, a search of the archive, or the week by topic.",
    scoring: SCORING,
    learned: attest_core::ask::Learned::new(include_str!("route-model.tsv"), attest_core::learn::Policy::CHOSEN),
};

/// The question back for an empty question.
pub const EMPTY: &str =
    "What would you like from your feed: today's reading, a search of the archive, or the week by topic?";

/// The question back for a question no rule claims.
pub const UNCLEAR: &str =
    "Did you mean today's ranked reading, a search of the whole archive, or the week grouped by topic?";

/// Turning what was read into ratings.
const HARVEST: &[&str] = &[
    "harvest",
    "engagement",
    "learn from what i read",
    "learn from what i've read",
    "learn from what i opened",
    "learn from my reading",
    "count what i read",
    "count my reading",
    "use my reading history",
    "implicit ratings",
    "implicit rating",
    "weak positives",
    "weak positive",
    "read but not rated",
    "opened but not rated",
    "reads into ratings",
    "into implicit",
    "opened into",
];

/// Two names of one person, merged.
const PERSONA_MERGE: &[&str] = &[
    "merge",
    "merge persona",
    "merge reader",
    "merge readers",
    "merge the readers",
    "merge profiles",
    "same person",
    "the same reader",
    "one person",
    "combine readers",
    "combine the readers",
    "combine profiles",
];

/// Deleting a reader.
const PERSONA_DELETE: &[&str] = &[
    "delete persona",
    "delete the persona",
    "delete my persona",
    "delete this persona",
    "delete * persona",
    "delete reader",
    "delete the reader",
    "delete * reader",
    "delete my profile",
    "delete the profile",
    "delete * profile",
    "remove persona",
    "remove the persona",
    "remove * persona",
    "remove reader",
    "remove the reader",
    "drop the persona",
    "get rid of the persona",
];

/// Forgetting a reader's ratings.
const PERSONA_RESET: &[&str] = &[
    "reset",
    "start over",
    "start from scratch",
    "forget my ratings",
    "forget my clicks",
    "forget * ratings",
    "forget what i rated",
    "forget everything i rated",
    "clear my ratings",
    "clear my clicks",
    "clear * ratings",
    "clear ratings",
    "wipe my ratings",
    "wipe * ratings",
    "erase my ratings",
];

/// Creating a reader.
const PERSONA_CREATE: &[&str] = &[
    "create persona",
    "create a persona",
    "create a new persona",
    "create the persona",
    "create reader",
    "create a reader",
    "create a new reader",
    "create a profile",
    "new persona",
    "new reader",
    "new profile",
    "add a persona",
    "add persona",
    "add a reader",
    "add reader",
    "make a persona",
    "make a new persona",
    "set up a persona",
    "set up a reader",
    "register a reader",
    "make a reader",
    "make a new reader",
    "reader named",
    "reader called",
    "persona named",
    "persona called",
    "profile for",
];

/// Changing a reader's interests (or stating them).
const PERSONA_UPDATE: &[&str] = &[
    "update my interests",
    "update interests",
    "update the interests",
    "update * interests",
    "change my interests",
    "change interests",
    "change * interests",
    "set my interests",
    "set interests",
    "set * interests",
    "replace my interests",
    "edit my interests",
    "my interests are",
    "my interests should",
    "to my interests",
    "i'm interested in",
    "i am interested in",
    "i'm now interested in",
    "i am now interested in",
    "also interested in",
    "i work on",
    "i now work on",
    "i'm working on",
    "i am working on",
    "my research is on",
    "my research is about",
    "my field is",
    "update my persona",
    "update the persona",
    "update my profile",
    "retune",
    "append",
    "to * interests",
    "add to my interests",
];

/// What the archive covers, as interests to pick.
const SUGGEST_INTERESTS: &[&str] = &[
    "suggest interests",
    "suggest some interests",
    "suggest topics",
    "suggest some topics",
    "what topics could",
    "what topics should",
    "which topics should",
    "what interests should",
    "topics to follow",
    "what does the archive cover",
    "what does my archive cover",
    "what does this archive cover",
    "what topics are covered",
    "which topics are covered",
    "most common tags",
    "common topics",
    "top tags",
    "popular tags",
    "what tags",
    "interest topics",
    "ideas for my interests",
    "what to write as my interests",
    "what should my interests be",
    "ideas from the archive",
    "propose interests",
    "propose some interests",
    "propose topics",
    "propose some topics",
];

/// Feeds to subscribe to.
const SOURCE_SUGGEST: &[&str] = &[
    "suggest feeds",
    "suggest a feed",
    "suggest some feeds",
    "suggest more feeds",
    "suggest new feeds",
    "suggest sources",
    "suggest new sources",
    "recommend feeds",
    "recommend a feed",
    "recommend some feeds",
    "recommend sources",
    "feed suggestions",
    "source suggestions",
    "should i subscribe",
    "should i follow",
    "feeds should i",
    "sources should i",
    "more sources",
    "more feeds",
    "other feeds",
    "new sources",
    "new feeds",
    "am i missing",
    "more coverage",
    "feeds to add",
    "sources to add",
    "feeds worth",
    "don't cover",
    "do not cover",
    "not covered",
    "categories i'm missing",
    "categories am i missing",
    "uncovered categories",
];

/// Unsubscribing.
const SOURCE_REMOVE: &[&str] = &[
    "unsubscribe",
    "unsub",
    "unsub from",
    "remove feed",
    "remove the feed",
    "remove this feed",
    "remove that feed",
    "remove source",
    "remove the source",
    "drop feed",
    "drop the feed",
    "drop source",
    "delete feed",
    "delete the feed",
    "delete source",
    "stop following",
    "stop subscribing",
    "drop subscription",
    "drop the subscription",
    "remove subscription",
    "remove the subscription",
    "cancel subscription",
    "cancel the subscription",
    "unfollow",
];

/// Looking at a feed before subscribing.
const SOURCE_PREVIEW: &[&str] = &[
    "preview",
    "peek at",
    "sneak peek",
    "what does that feed",
    "what does this feed",
    "what's in that feed",
    "what's in this feed",
    "whats in that feed",
    "before i subscribe",
    "before subscribing",
];

/// Subscribing.
const SOURCE_ADD: &[&str] = &[
    "subscribe",
    "subscribe to",
    "subscribe me",
    "add feed",
    "add a feed",
    "add the feed",
    "add this feed",
    "add that feed",
    "add a source",
    "add source",
    "add the source",
    "add this source",
    "follow the feed",
    "follow this feed",
    "follow feed",
    "new subscription",
    "import opml",
    "import my opml",
    "opml",
];

/// The subscriptions and their health.
const SOURCES: &[&str] = &[
    "my feeds",
    "my sources",
    "my subscriptions",
    "subscriptions",
    "subscribed",
    "which feeds",
    "what feeds",
    "list feeds",
    "list the feeds",
    "list my feeds",
    "list sources",
    "show feeds",
    "show my feeds",
    "feeds am i",
    "feeds do i",
    "sources do i",
    "last fetched",
    "last updated",
    "last refresh",
    "last refreshed",
    "last ingest",
    "how fresh",
    "how current",
    "how stale",
    "stale feeds",
    "failing feeds",
    "broken feeds",
    "feed errors",
    "fetch errors",
    "feed health",
    "when was * fetched",
    "when were * fetched",
];

/// The literature beyond the archive.
const RESEARCH: &[&str] = &[
    "arxiv",
    "pubmed",
    "crossref",
    "the literature",
    "published literature",
    "literature search",
    "outside my feed",
    "beyond my feed",
    "outside my archive",
    "beyond my archive",
    "outside the archive",
    "beyond the archive",
    "not in my feed",
    "been published",
    "published on",
    "published about",
    "beyond my feeds",
    "outside my feeds",
    "not in my feeds",
    "on the web",
];

/// The literature beyond the archive, in words that also name the feeds.
const RESEARCH_BEYOND: &[&str] = &[
    "beyond my feeds",
    "outside my feeds",
    "not in my feeds",
    "beyond my feed",
    "outside my feed",
    "outside my subscriptions",
    "beyond my subscriptions",
    "not my archive",
];

/// Why an item is placed where it is.
const EXPLAIN: &[&str] = &[
    "why is",
    "why was",
    "why are",
    "why did",
    "why does",
    "why do",
    "why am i",
    "why this",
    "why that",
    "why's",
    "explain",
    "how come",
    "what placed",
    "what put",
    "what puts",
    "reason for",
    "being shown",
    "shown to",
    "did it match",
    "what matched",
    "why on earth",
];

/// Reading one item.
const READ: &[&str] = &[
    "summarize",
    "summarise",
    "summary",
    "abstract",
    "tldr",
    "tl dr",
    "read me",
    "read item",
    "open item",
    "open",
    "show me item",
    "show item",
    "tell me about",
    "tell me more",
    "say more",
    "more details",
    "more detail",
    "more about it",
    "more about this",
    "go on",
    "elaborate",
    "expand on",
    "what is it about",
    "what's it about",
    "what is this about",
    "what's this about",
    "what's this one about",
    "what is this one about",
    "what's that one about",
    "what's that about",
    "what does it say",
    "details",
    "full text",
    "gist",
];

/// The window grouped by topic.
const DIGEST: &[&str] = &[
    "digest",
    "by topic",
    "by theme",
    "grouped",
    "group by",
    "clustered",
    "themes",
    "overview",
    "week in review",
    "this week",
    "past week",
    "last week",
    "weekly",
    "catch me up",
    "what did i miss",
    "what have i missed",
    "roundup",
    "round up",
    "been reading",
    "what have i read",
    "what topics",
    "main topics",
];

/// How the reader's ranking stands.
const PERSONA_STATUS: &[&str] = &[
    "persona",
    "personas",
    "profile",
    "my interests",
    "how well trained",
    "how trained",
    "how well do you know",
    "what do you know about me",
    "learned about me",
    "learnt about me",
    "learning from",
    "learn from me",
    "are you learning",
    "my ratings",
    "how many ratings",
    "have i rated",
    "i've rated",
    "readers",
    "which readers",
    "why is my feed",
    "why does my feed",
    "my feed keeps",
    "blend weight",
    "how personalised",
    "how personalized",
];

/// Today's ranked reading.
const LIST: &[&str] = &[
    "should i read",
    "to read",
    "read today",
    "read next",
    "read first",
    "what's new",
    "whats new",
    "what is new",
    "anything new",
    "something new",
    "new papers",
    "new items",
    "new today",
    "recommend",
    "recommend me",
    "recommendations",
    "recommended",
    "my feed",
    "the feed",
    "top papers",
    "top items",
    "top picks",
    "best papers",
    "today's papers",
    "today's feed",
    "today's reading",
    "reading list",
    "anything for me",
    "anything good",
    "anything interesting",
    "worth reading",
    "catch up",
    "latest",
    "unread",
    "something to read",
    "my reading",
    "top of",
];

/// With a url: looking at the feed there before subscribing.
const URL_PREVIEW: &[&str] = &[
    "preview",
    "peek",
    "what's in",
    "whats in",
    "what is in",
    "look like",
    "what does it publish",
    "what it publishes",
    "before i subscribe",
    "before subscribing",
    "sample",
];

/// With a url: unsubscribing from the feed there.
const URL_REMOVE: &[&str] = &["unsubscribe", "remove", "drop", "stop following", "delete"];

/// With a url: subscribing to the feed there.
const URL_ADD: &[&str] = &["add", "subscribe", "follow", "track", "include", "import", "watch", "register"];

/// With a url: reading the item there.
const URL_READ: &[&str] = &["read", "summarize", "summarise", "open", "what is this", "what's this", "tell me about"];

/// Phrases after which the subject of a search follows ("papers on …", "find …").
/// The earliest in the question wins, the longest at the same place.
pub const SEARCH_LEADS: &[&str] = &[
    "in the archive about",
    "in my archive about",
    "in the archive on",
    "in my archive on",
    "archive search",
    "anything new on",
    "anything new about",
    "anything new in",
    "anything on",
    "anything about",
    "anything related to",
    "is there anything on",
    "are there any",
    "is there any",
    "any new",
    "any recent",
    "something on",
    "something about",
    "papers on",
    "papers about",
    "papers in",
    "paper on",
    "paper about",
    "articles on",
    "articles about",
    "posts on",
    "posts about",
    "items on",
    "items about",
    "work on",
    "research on",
    "news on",
    "news about",
    "latest on",
    "latest in",
    "latest about",
    "what's new on",
    "what's new in",
    "what's new about",
    "whats new on",
    "whats new in",
    "what is new in",
    "what is new on",
    "search for",
    "search",
    "find me",
    "find",
    "look for",
    "looking for",
    "look up",
    "did i read about",
    "have i read about",
    "did i see",
    "have i seen",
    "read about",
    "more on",
    "more about",
    "stuff on",
    "stuff about",
    "surveys on",
    "surveys of",
    "survey of",
    "reviews of",
    "review of",
    "relevant to",
    "related to",
    "tell me about",
    "tagged",
    "with the tag",
    "today about",
];

/// Words at the start of a subject that are asking, not subject; removed repeatedly.
const SUBJECT_INTRODUCERS: &[&str] = &[
    "papers",
    "paper",
    "articles",
    "article",
    "posts",
    "post",
    "items",
    "stuff",
    "things",
    "anything",
    "something",
    "work",
    "research",
    "new",
    "recent",
    "recently",
    "latest",
    "good",
    "interesting",
    "published",
    "related to",
    "to do with",
    "on",
    "about",
    "regarding",
    "concerning",
    "in",
    "for",
    "the",
    "any",
    "some",
    "me",
    "of",
    "into",
    "around",
    "more",
    "is",
    "are",
    "there",
    "has",
    "have",
    "been",
    "what",
    "what's",
    "my archive",
    "the archive",
    "my feeds",
    "my feed",
    "the feed",
    "my reading",
    "my library",
    "everything",
    "through",
];

/// Words at the end of a subject that say when or where, not what; removed repeatedly.
const SUBJECT_FILLERS: &[&str] = &[
    "today",
    "lately",
    "recently",
    "this week",
    "this month",
    "this year",
    "this morning",
    "these days",
    "so far",
    "yet",
    "at all",
    "again",
    "please",
    "now",
    "in my feed",
    "on my feed",
    "in the feed",
    "my feed",
    "in my archive",
    "in the archive",
    "in my reading",
    "for me",
    "for today",
    "that i read",
    "i read",
    "i've read",
    "i have read",
    "i saw",
    "from my feeds",
    "in my subscriptions",
    "papers",
    "paper",
    "articles",
    "posts",
    "items",
    "stuff",
    "out there",
    "lately",
    "anywhere",
];

/// Words that point at one item, so verdicts, explanations and reading have a target.
const REFERENCES: &[&str] = &[
    "this",
    "that",
    "it",
    "this one",
    "that one",
    "the first",
    "the second",
    "the third",
    "the last one",
    "the top one",
    "first one",
    "second one",
    "top one",
    "the paper",
    "the item",
    "the article",
    "this paper",
    "that paper",
    "this item",
    "that item",
    "this article",
    "that article",
    "this post",
    "that post",
    "that's",
    "it's",
    "this's",
];

/// "this week", "that feed" …: `this`/`that` followed by these words is not an item.
const NOT_ITEM_AFTER_DEMONSTRATIVE: &[&str] =
    &["week", "month", "year", "morning", "evening", "space", "feed", "topic", "field", "area", "persona"];

/// Words that make an explanation about an item's place even without a reference.
const PLACEMENT: &[&str] = &[
    "ranked",
    "rank",
    "here",
    "top",
    "first",
    "recommended",
    "shown",
    "showing",
    "seeing",
    "listed",
    "in my feed",
    "so high",
    "so low",
];

/// Words that make a rating explicit even in question form ("can you mark it…").
const RATE_VERBS: &[&str] = &["mark", "rate", "thumbs up", "thumbs down", "upvote", "downvote", "more like this"];

/// Leading words of a request for something else, which a verdict word inside does not
/// make a rating ("find papers relevant to this").
const REQUESTS: &[&str] = &[
    "find",
    "search",
    "look",
    "list",
    "open",
    "read",
    "summarize",
    "summarise",
    "tell",
    "explain",
    "fetch",
    "subscribe",
    "add",
    "compare",
];

/// Leading words of a question (as opposed to a statement).
const INTERROGATIVES: &[&str] = &[
    "is", "are", "was", "were", "would", "will", "should", "does", "do", "did", "could", "can", "might", "am", "how",
    "what", "which", "why",
];

/// Instructions to follow a topic over time, which the feed can do two ways.
const TRACK: &[&str] =
    &["track", "follow", "watch", "monitor", "keep an eye on", "keep me posted on", "keep me updated on", "alert me"];

/// Literature services `feed.research` can search, in the order they are named.
const RESEARCH_SOURCES: &[&str] = &["arxiv", "pubmed", "crossref"];

const DEFAULT_OPTIONS: &[&str] = &["feed.list", "feed.search", "feed.digest"];

static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"(?i)\b(?:https?|file)://[^\s<>"'`]+"#).expect("url pattern"));
static ITEM_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\bitem(?:[\s_-]*id)?\s*(?:#|no\.?|number)?\s*:?\s*|(?:^|[\s(])#)(\d{1,12})\b")
        .expect("item pattern")
});
static FEED_ID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:feed|source)(?:[\s_-]*id)?\s*(?:#|no\.?|number)?\s*:?\s*(\d{1,12})\b").expect("feed pattern")
});
static PERSONA_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:\b(?:persona|reader|profile|user)(?:\s+|\s*[=:]\s*)(?:(?:called|named)\s+)?|\b(?:called|named)\s+|\bname(?:\s+is\s+|\s*[=:]\s*))["“']?([\p{L}\p{N}][\p{L}\p{N}_.-]*)"#,
    )
    .expect("name pattern")
});
static POSSESSIVE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b([\p{L}\p{N}][\p{L}\p{N}_.-]*)['’]s\s+(?:persona|profile|ratings|rating|clicks|interests|interest|reading|feed|history|digest|list|week|items|reads|stuff|ranking|rankings|votes|thumbs|topics|unrated|unread|ranked|reader|queue|opened|picks|recommendations|suggestions)\b",
    )
    .expect("possessive pattern")
});
static SHOULD_NAME_READ: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:should|would|could|does|will)\s+([\p{L}][\p{L}\p{N}_.-]*)\s+(?:read|see|like|want|look)\b|\bwhat\s+([\p{L}][\p{L}\p{N}_.-]*)\s+should\s+(?:read|see|look)\b|\b(?:has|have|did)\s+([\p{L}][\p{L}\p{N}_.-]*)\s+(?:given|rated|opened|marked|liked|read)\b|(?:^|[\s,(])([\p{L}][\p{L}\p{N}_.-]*)\s+(?:has\s+)?(?:opened|clicked)\b")
        .expect("reader pattern")
});
/// "… for marta", "… for ben pls", "… for bob, 6 of them": a name closing a request or
/// its first clause, not after a search verb ("search for diffusion" names no reader).
static FOR_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[^\p{L}])(?:(?:rate|rated|rating|ratings|digest|roundup|list|feeds|sources|suggest|suggestions|recommend|reset|erase|wipe|clear|forget|delete|status|profile|interests|topics|week|items|useful|helpful|picks|today|top|queue|unread|unrated|reading|worth|engagement|why|explain|ranked|ranking|shown|match|matched|abstract|item|thumbs|down|up)[\w\s,'-]{0,40}?)\bfor\s+([\p{L}][\p{L}\p{N}_.-]{1,30})\s*(?:,\s.*|,?\s*(?:pls|please|thanks|now|today|so\s+.*)|\s+(?:from|since|this|over|during)\s+[^?!]*)?\s*[?.!]*$",
    )
    .expect("for-name pattern")
});
/// "merge bob into robert", "combine bob with robert", "bob and robert are the same person".
/// A name given as a key's value ("name=dr_osei", "user=chen").
static KEYED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\b(?:name|user|persona|reader)\s*=\s*["'‘“]?([\p{L}\p{N}][\p{L}\p{N}_.-]*)"#)
        .expect("keyed name pattern")
});
/// A name set off beside the reader ("for me (priya)", "the user (matteo) wants",
/// "the user, mei, would like"), or opening the request ("for lucia: rate …").
static APPOSED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:me|user|reader)\s*(?:\(\s*([\p{L}][\p{L}\p{N}_.-]*)\s*\)|,\s*([\p{L}][\p{L}\p{N}_.-]*)\s*,)|^\s*for\s+([\p{L}][\p{L}\p{N}_.-]*)\s*:|\breader\s+is\s+([\p{L}][\p{L}\p{N}_.-]*)")
        .expect("apposed name pattern")
});
static MERGE_NAMES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)\b(?:merge|merged|merging|combine|combined|fold|folded|folding)\s+(?:(?:the\s+)?(?:reader|persona|profile|user)s?\s+)?["'‘“]?([\p{L}\p{N}_.-]+?)["'’”]?(?:['’]s(?:\s+(?:ratings|history|reads|clicks|data|votes|profile|persona)(?:\s+and\s+\w+)?)?)?\s+(?:into|with|and)\s+(?:(?:reader|persona|profile|user)\s+)?["'‘“]?([\p{L}\p{N}_.-]+?)["'’”]?(?:[\s,.;:?!]|$)"#,
    )
    .expect("merge pattern")
});
/// "bob and robert are the same person": the names in the order said.
static SAME_NAMES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([\p{L}\p{N}_.-]+)\s+and\s+([\p{L}\p{N}_.-]+)\s+are\s+(?:the\s+same|one)\b")
        .expect("same pattern")
});
/// A name in quotes beside the word for a reader ("the 'test_user' persona", "name it
/// 'anne-teaching'", "a new persona, 'lab-vision'").
static QUOTED_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:\b(?:persona|reader|profile|user|named|called|name\s+it|name\s+is|name)\s*[,=:]?\s*["'‘“]([\p{L}\p{N}_.-]+)["'’”]|["'‘“]([\p{L}\p{N}_.-]+)["'’”]\s+(?:persona|reader|profile)\b)"#,
    )
    .expect("quoted name pattern")
});
static ADD_TO_INTERESTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:add|append|put|include)\s+(.+?)\s+(?:to|into|onto)\s+(?:my|the|his|her|their|\S+['’]s|[\p{L}\p{N}_.-]+)\s+(?:interests|topics|interest\s+profile)\b|\b(?:add|append)\s+(?:to|into)\s+(?:my|the|his|her|their|\S+['’]s)\s+(?:interests|topics)\s*:\s*(.+)").expect("add pattern")
});
static VENUE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:on|in|from|via|at|through|search|searching|check)\s+)?(?:arxiv|pubmed|crossref|the\s+(?:published\s+)?literature)\b|\b(?:outside|beyond|not\s+in)\s+(?:my|the)\s+(?:feed|archive)\b",
    )
    .expect("venue pattern")
});

/// Words that cannot be a persona name where one is expected.
const NOT_NAMES: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "me",
    "your",
    "called",
    "named",
    "for",
    "to",
    "with",
    "and",
    "or",
    "that",
    "which",
    "who",
    "status",
    "interests",
    "interest",
    "list",
    "is",
    "was",
    "has",
    "have",
    "please",
    "now",
    "too",
    "it",
    "of",
    "in",
    "on",
    "about",
    "so",
    "should",
    "i",
    "you",
    "ratings",
    "clicks",
    "feed",
    "settings",
    "profile",
    "persona",
    "reader",
    "readers",
    "personas",
    "today",
    "yesterday",
    "tonight",
    "week",
    "month",
    "year",
    "morning",
    "this",
    "what",
    "who",
    "there",
    "here",
    "let",
    "everyone",
    "nobody",
    "agent",
    "interested",
    "works",
    "work",
    "reads",
    "follows",
    "from",
    "again",
    "as",
    "be",
    "all",
    "we",
    "they",
    "he",
    "she",
    "one",
    "someone",
    "anyone",
    "people",
    "look",
    "like",
    "tomorrow",
    "later",
    "us",
    "them",
    "real",
    "sure",
    "both",
    "each",
    "good",
    "fun",
    "reading",
    "would",
    "wants",
    "want",
    "asks",
    "asked",
    "asking",
    "needs",
    "likes",
    "says",
    "said",
    "just",
    "also",
    "can",
    "could",
    "will",
    "did",
    "does",
    "prefers",
    "only",
    "itself",
    "entirely",
    "altogether",
    "completely",
    "data",
    "name",
    "her",
    "him",
    "his",
    "their",
    "user",
    "everything",
    "stuff",
    "things",
    "items",
    "anything",
    "something",
    "nothing",
    "found",
    "wonders",
    "thing",
    "currently",
    "additionally",
    "looking",
    "puzzled",
    "new",
];

/// Route a question to a feed tool, or ask back, or decline it to the surface that
/// owns it (the CLI's `attest route feed`; `feed.ask` decides through [`ROUTER`] with
/// the ask's context).
pub fn route(question: &str) -> Decision {
    ROUTER.decide(question, &Args::new())
}

/// What a question states, read once before any rule is tried.
#[derive(Debug)]
pub struct Facts {
    /// The question without its url, as words.
    q: Question,
    /// That text (the question trimmed, its url blanked out).
    text: String,
    /// The url in the question, if any.
    url: Option<String>,
    /// An item id the question names ("item 4043", "#4043").
    item_id: Option<i64>,
    /// An item id given beside the question (the ask's `item_id`).
    given_item: Option<i64>,
    /// A persona the question names.
    persona: Option<String>,
    /// The subject of a search, after the earliest search lead.
    subject: Option<String>,
    /// Where that search lead starts in the question as read (`q.raw`).
    subject_at: Option<usize>,
    /// The words another surface's markers are looked for in: the text without the
    /// search subject ("papers on knowledge graph embeddings" stays here).
    frame: Question,
    /// An item id, a url (in the question or given), or words like "this paper".
    points_at_item: bool,
    /// The question opens with a question word ("is", "why", …).
    interrogative: bool,
    /// An instruction to follow a topic over time ("track diffusion models").
    track: bool,
    /// The verdict the words give on an item, if any ([`verdict::read`]).
    verdict: Verdict,
    /// The question opens with a request for something else ("find …", "summarize …").
    request: bool,
    /// The subject of a literature search, read when a literature phrase occurs.
    topic: OnceLock<Option<String>>,
    /// How many, over how many days, from where on (`counts::read`).
    counts: Counts,
}

impl attest_core::ask::Facts for Facts {
    fn read(question: &str, given: &Args) -> Facts {
        // Thumbs are words here: "👍" is "thumbs up".
        let thumbs = question.replace('\u{1f44d}', " thumbs up ").replace('\u{1f44e}', " thumbs down ");
        let raw = thumbs.trim();
        let url = URL.find(raw).map(|m| trim_url(m.as_str()).to_string());
        let text = URL.replace_all(raw, " ").to_string();
        let q = Question::new(&text);
        let item_id = ITEM_ID.captures(&text).and_then(|c| c[1].parse::<i64>().ok()).filter(|&n| n > 0);
        let given_item = given
            .get("item_id")
            .and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok())))
            .filter(|&n| n > 0);
        let given_url = given.get("url").and_then(Value::as_str).is_some_and(|u| !u.trim().is_empty());
        let persona = persona_name(&text).map(|(_, name)| name);
        let subject = search_subject(&q, persona.clone());
        let frame = match &subject {
            // The subject's offsets are in the question as read (`q.raw`: trimmed, curly
            // quotes straightened), not in `text`.
            Some(s) => Question::new(&format!("{} {}", &q.raw[..s.start], &q.raw[s.end..])),
            None => Question::new(&text),
        };
        let points_at_item =
            item_id.is_some() || url.is_some() || given_item.is_some() || given_url || references_item(&q);
        let interrogative = q.words.first().is_some_and(|w| INTERROGATIVES.contains(&w.text.as_str()));
        let track = track_instruction(&q);
        let verdict = verdict::read(&q);
        let request = opening_word(&q).is_some_and(|w| REQUESTS.contains(&w));
        let counts = counts::read(&text);
        Facts {
            text,
            url,
            item_id,
            given_item,
            persona,
            subject_at: subject.as_ref().map(|s| s.lead),
            subject: subject.map(|s| s.text),
            frame,
            points_at_item,
            interrogative,
            track,
            verdict,
            request,
            topic: OnceLock::new(),
            counts,
            q,
        }
    }

    fn words(&self) -> &Question {
        &self.q
    }

    /// A bare url, or an item given beside an empty question, is something to route.
    fn is_empty(&self) -> bool {
        self.q.is_empty() && self.url.is_none() && self.given_item.is_none()
    }

    /// Another surface's markers are looked for outside the search subject.
    fn frame(&self, _own: Option<&Decision>) -> Question {
        self.frame.clone()
    }
}

impl Facts {
    /// The subject of a literature search, read once.
    fn topic(&self) -> Option<&String> {
        self.topic.get_or_init(|| research_topic(&self.text)).as_ref()
    }

    /// What every decision carries: the url and the item id the question states.
    fn base(&self) -> Args {
        let mut a = Args::new();
        if let Some(u) = &self.url {
            a.insert("url".into(), Value::String(u.clone()));
        }
        if let Some(id) = self.item_id {
            a.insert("item_id".into(), Value::from(id));
        }
        a
    }

    /// The item as a reply names it: "item 7", or "this item".
    fn item_words(&self) -> String {
        match self.item_id.or(self.given_item) {
            Some(id) => format!("item {id}"),
            None => "this item".into(),
        }
    }

    /// [`Facts::base`] with the reader the question names, as `user`.
    fn for_reader(&self) -> Args {
        let mut a = self.base();
        if let Some(name) = &self.persona {
            a.insert("user".into(), Value::String(name.clone()));
        }
        a
    }
}

// ---- conditions ---------------------------------------------------------------------

fn url_without_item(a: &Asked<'_, Facts>) -> bool {
    a.facts.url.is_some() && a.facts.item_id.is_none()
}

/// A url with no verdict or why about the item at it.
fn bare_url(a: &Asked<'_, Facts>) -> bool {
    url_without_item(a) && !a.facts.verdict.is_some() && a.q.any(EXPLAIN).is_none()
}

fn has_topic(a: &Asked<'_, Facts>) -> bool {
    a.facts.topic().is_some()
}

/// A topic; or the tool chosen without a phrase (by the model or the scores), whose
/// topic is then what is left of the question.
fn topic_or_chosen(a: &Asked<'_, Facts>) -> bool {
    has_topic(a) || a.phrase.is_none()
}

fn item_or_placement(a: &Asked<'_, Facts>) -> bool {
    a.facts.points_at_item || (a.q.any(PLACEMENT).is_some() && !a.q.has("my feed"))
}

fn question_about_item(a: &Asked<'_, Facts>) -> bool {
    a.facts.points_at_item && a.facts.interrogative && a.facts.verdict.is_some() && a.q.any(RATE_VERBS).is_none()
}

/// A verdict (or a hedge) on the item pointed at, not inside a request for something
/// else; or a rate verb ("mark item 19 …", "thumbs down on item 31").
fn verdict_on_item(a: &Asked<'_, Facts>) -> bool {
    (a.facts.points_at_item && a.facts.verdict.is_some() && !a.facts.request) || a.q.any(RATE_VERBS).is_some()
}

/// A short reply with an item (named or given) that no rule claimed and no other
/// surface owns.
fn unclear_reply_about_item(a: &Asked<'_, Facts>) -> bool {
    (a.facts.item_id.is_some() || a.facts.given_item.is_some())
        && a.q.words.len() <= verdict::SHORT
        && attest_core::route::elsewhere(&a.facts.frame, "feed").is_none()
}

fn points_at_item(a: &Asked<'_, Facts>) -> bool {
    a.facts.points_at_item
}

fn names_item(a: &Asked<'_, Facts>) -> bool {
    a.facts.item_id.is_some()
}

fn subject_or_track(a: &Asked<'_, Facts>) -> bool {
    a.facts.track || a.facts.subject.is_some()
}

/// A subject after a lead or a track instruction; or the tool chosen without a phrase
/// (by the learned model or the scores), whose arguments are then read from the rest.
fn subject_track_or_chosen(a: &Asked<'_, Facts>) -> bool {
    subject_or_track(a) || a.phrase.is_none()
}

/// An item id in the question, or an item given beside an empty question.
fn item_given(a: &Asked<'_, Facts>) -> bool {
    a.facts.item_id.is_some() || (a.q.is_empty() && a.facts.given_item.is_some())
}

fn tracks(a: &Asked<'_, Facts>) -> bool {
    a.facts.track
}

// ---- extractions --------------------------------------------------------------------

fn stated(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = a.facts.base();
    // "… but don't fetch it yet": subscribe now, fetch at the next ingest.
    if a.tool == "feed.source_add"
        && a.q
            .any(&["don't fetch", "do not fetch", "dont fetch", "without fetching", "no fetch", "not fetch"])
            .is_some()
    {
        args.insert("fetch".into(), Value::Bool(false));
    }
    Ok(args)
}

fn for_reader(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(with_item(a, a.facts.for_reader()))
}

/// For a tool about one item (`feed.rate`, `feed.explain`, `feed.read`) with no item id,
/// url or given item: the number the question names the item by ("thumbs down on 318",
/// "(id 2231)", "why is 4412 at the top?"), the last one said ("1903, no wait 1930").
fn with_item(a: &Asked<'_, Facts>, mut args: Args) -> Args {
    let about_item = matches!(a.tool, "feed.rate" | "feed.explain" | "feed.read");
    if about_item
        && a.facts.given_item.is_none()
        && !args.contains_key("item_id")
        && !args.contains_key("url")
        && let Some(n) = item_number(&a.facts.text)
    {
        args.insert("item_id".into(), Value::from(n));
    }
    args
}

/// The number an item is named by: after "id", "number", "no.", "#" if any is said,
/// else the last plain number that counts nothing ("5 days", "top 3" and "20%" count).
fn item_number(text: &str) -> Option<i64> {
    static NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:\b(?:id|number|no\.?|nr\.?)|#)\s*:?\s*(\d{1,12})\b").expect("named number")
    });
    let named = NAMED.captures_iter(text).filter_map(|c| c[1].parse::<i64>().ok()).last();
    if named.is_some() {
        return named.filter(|&n| n > 0);
    }
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| matches!(c, '(' | ')' | ',' | '.' | '?' | '!' | ':' | ';' | '"' | '\''))
                .to_lowercase()
        })
        .collect();
    const UNITS: &[&str] = &[
        "day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours", "minutes", "min",
        "results", "items", "papers", "of", "more", "per", "times", "%", "percent", "stars", "star",
    ];
    const COUNTING: &[&str] =
        &["top", "limit", "last", "past", "first", "next", "only", "max", "at", "page", "skip", "offset"];
    (0..words.len())
        .filter(|&i| {
            let w = &words[i];
            !w.is_empty()
                && w.chars().all(|c| c.is_ascii_digit())
                && w.len() <= 12
                && words.get(i + 1).is_none_or(|n| !UNITS.contains(&n.as_str()))
                && (i == 0 || !COUNTING.contains(&words[i - 1].as_str()))
        })
        .filter_map(|i| words[i].parse::<i64>().ok())
        .rfind(|&n| n > 0)
}

/// `args` with the count the question states, as `limit`.
fn with_limit(mut args: Args, counts: &Counts) -> Args {
    if let Some(n) = counts.limit {
        args.insert("limit".into(), Value::from(n));
    }
    args
}

/// The url and item the question states, and how many it asks for.
fn counted(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(with_limit(a.facts.base(), &a.facts.counts))
}

/// The reader, and how many the question asks for.
fn counted_for_reader(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(with_limit(a.facts.for_reader(), &a.facts.counts))
}

/// The reader, how many and over how many days ("top 5 for lukas, last 3 days").
fn reading_window(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = with_limit(a.facts.for_reader(), &a.facts.counts);
    if let Some(d) = a.facts.counts.days {
        args.insert("days".into(), Value::from(d));
    }
    Ok(args)
}

fn what_to_do_with_url(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut d = Decision::ask_back(
        "What should I do with that address: subscribe to it as a feed, or preview its recent entries first?",
        &["feed.source_add", "feed.source_preview"],
    );
    d.args = a.facts.base();
    Err(d)
}

/// The persona named, as `name` (the persona tools' own word for it).
fn persona_named(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = a.facts.base();
    if let Some(name) = &a.facts.persona {
        args.insert("name".into(), Value::String(name.clone()));
    }
    // A destructive tool goes ahead only when the question itself confirms it.
    if matches!(a.tool, "feed.persona_delete" | "feed.persona_reset") && confirms(a.q) {
        args.insert("confirm".into(), Value::Bool(true));
    }
    Ok(args)
}

/// The two names of a merge: `from` (merged away) and `into` (kept), in the order said.
fn two_names(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = a.facts.base();
    if let Some(c) = MERGE_NAMES.captures(&a.facts.text).or_else(|| SAME_NAMES.captures(&a.facts.text)) {
        let from = c.get(1).map(|m| m.as_str().trim_end_matches(['.', '-', '_']));
        let into = c.get(2).map(|m| m.as_str().trim_end_matches(['.', '-', '_']));
        for (key, v) in [("from", from), ("into", into)] {
            if let Some(v) = v.filter(|v| !v.is_empty() && !NOT_NAMES.contains(&v.to_lowercase().as_str())) {
                args.insert(key.into(), Value::String(v.to_string()));
            }
        }
    }
    if confirms(a.q) {
        args.insert("confirm".into(), Value::Bool(true));
    }
    Ok(args)
}

/// Whether a question confirms a destructive step in so many words ("confirm=true",
/// "confirmed", "yes, I confirm").
fn confirms(q: &Question) -> bool {
    q.any(&[
        "confirm true",
        "confirmed",
        "i confirm",
        "yes confirm",
        "confirm it",
        "confirm",
        "i'm sure",
        "im sure",
        "i am sure",
        "yes",
    ])
    .is_some()
        && q.any(&["don't confirm", "do not confirm", "without confirm*", "not confirmed", "unconfirmed"]).is_none()
}

/// The persona named, and the interests stated ("I work on …", "add X to my
/// interests": `append`).
fn persona_with_interests(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = persona_named(a)?;
    if let Some((interests, append)) = interests_text(&a.facts.text, a.q) {
        args.insert("interests".into(), Value::String(interests));
        if append {
            args.insert("append".into(), Value::Bool(true));
        }
    }
    Ok(args)
}

/// The feed named by its id: "feed 12", or a subscription's id however said
/// ("subscription #12", "sub #12", "the … subscription (id 7)", "the feed with id 3").
/// A number read as an item id from "#12" is the feed's here.
fn feed_named(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    static SUBSCRIPTION_ID: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:feed|source|subscription|sub|listing|blog)s?\b[^.?!;\d]{0,40}?(?:\bid\b|#|\bnumber\b|\bno\.?)\s*:?\s*(\d{1,12})\b|(?:\bid\b|#)\s*:?\s*(\d{1,12})\b")
            .expect("subscription id pattern")
    });
    let mut args = a.facts.base();
    let id = FEED_ID.captures(&a.facts.text).and_then(|c| c[1].parse::<i64>().ok()).or_else(|| {
        SUBSCRIPTION_ID
            .captures(&a.facts.text)
            .and_then(|c| c.get(1).or(c.get(2)))
            .and_then(|m| m.as_str().parse().ok())
    });
    if let Some(id) = id {
        if args.get("item_id").and_then(Value::as_i64) == Some(id) {
            args.remove("item_id");
        }
        args.insert("feed_id".into(), Value::from(id));
    }
    Ok(args)
}

/// The topic and the services named (arXiv and PubMed when none is).
fn literature(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = with_limit(a.facts.base(), &a.facts.counts);
    let whole = a.facts.topic().is_none().then(|| VENUE.replace_all(&a.facts.text, " ").to_string());
    if let Some(topic) = a.facts.topic().or(whole.as_ref()) {
        // "…, 8 results", "…, max 10": how many, not what.
        let (topic, _) = counts::without_count_clauses(topic);
        // What is left once the places ("beyond my feeds") and the asking go; nothing
        // left ("search online please"), what is left of the whole question.
        let mut left = subject::leftover(&tidy_subject(topic));
        if left.is_none() && !subject::refers(topic) {
            left = subject::leftover(&VENUE.replace_all(&a.facts.text, " "));
        }
        if let Some(topic) = left.map(|t| quoted_as_written(&tidy_subject(&t), &a.facts.text)).filter(|t| !t.is_empty())
        {
            args.insert("query".into(), Value::String(topic));
        }
    }
    let mut named: Vec<(usize, &str)> =
        RESEARCH_SOURCES.iter().filter_map(|s| a.q.find(s).map(|at| (at, *s))).collect();
    named.sort();
    let named: Vec<&str> = named.into_iter().map(|(_, s)| s).collect();
    let sources = if named.is_empty() { "arxiv,pubmed".to_string() } else { named.join(",") };
    args.insert("sources".into(), Value::String(sources));
    Ok(args)
}

/// `useful` from the verdict; a hedged, mixed or missing one is asked back.
fn verdict(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut args = with_item(a, a.facts.for_reader());
    match a.facts.verdict.useful() {
        Some(useful) => {
            args.insert("useful".into(), Value::Bool(useful));
            Ok(args)
        }
        None => {
            let mut d = Decision::ask_back(
                format!(
                    "Was {} useful to you or not? Say 'useful' or 'not useful' and I'll record it.",
                    a.facts.item_words()
                ),
                &["feed.rate", "feed.read", "feed.explain"],
            );
            d.args = args;
            Err(d)
        }
    }
}

/// The question back for a short reply about an item that says nothing clear.
fn what_about_item(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut d = Decision::ask_back(
        format!(
            "What about {}: was it useful to you, do you want it opened, or why it was shown?",
            a.facts.item_words()
        ),
        &["feed.rate", "feed.read", "feed.explain"],
    );
    d.args = a.facts.for_reader();
    Err(d)
}

/// The subject as `query`; an instruction to track it is asked how instead. Without a
/// subject placed by a search lead (the tool chosen by the model or the scores), the
/// subject is what is left of the question ([`subject::leftover`]) once the filters it
/// states are taken out.
fn search_query(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    if a.facts.track {
        return Err(track_ask_back(a.facts.subject.as_deref()));
    }
    let mut args = a.facts.for_reader();
    let source = search_source(a.q);
    let placed = a.facts.subject.is_some();
    let subject = match &a.facts.subject {
        Some(s) => Some(s.clone()),
        None => Some(a.q.raw.clone()),
    };
    if let Some(s) = &subject {
        let (mut query, filters) = search_filters(s);
        // The feed named and the hits skipped are filters, not subject.
        if let Some((_, phrase)) = &source {
            // A full stop left alone at the end by the cut goes too.
            let cut = remove_ci(&query, phrase);
            query = tidy_subject(cut.trim_end().strip_suffix(" .").unwrap_or(&cut));
        }
        if a.facts.counts.offset.is_some() && placed {
            query = tidy_subject(cut_before_any(&query, SKIP_WORDS));
        }
        let (rest, limit) = counts::without_count_clauses(&query);
        if let Some(n) = limit {
            query = tidy_subject(rest);
            args.insert("limit".into(), Value::from(n));
        }
        // "search for it", "anything on that?": a subject that only refers back is
        // what it refers to, said before it in the question (a phrase in quotes first,
        // else what is left of the words before the search); with nothing there and
        // nothing else to search by, it is asked for rather than invented.
        let refers_back = placed && subject::refers(s) && subject::tidy(&query).is_none();
        let before = a.facts.subject_at.map(|at| a.q.raw[..at].to_string()).unwrap_or_default();
        let antecedent = refers_back
            .then(|| subject::quoted(&before).or_else(|| subject::leftover(&search_filters(&before).0)))
            .flatten();
        if let Some(said) = antecedent {
            args.insert("query".into(), Value::String(tidy_subject(&said)));
        } else if refers_back && filters.is_empty() && source.is_none() {
            let mut d = Decision::ask_back(
                "Search your archive for what? Name the topic, an author, a tag or a feed.",
                &["feed.search", "feed.list"],
            );
            d.args = args;
            return Err(d);
        }
        let mut query = if args.contains_key("query") {
            None
        } else if placed {
            subject::tidy(&query)
        } else {
            subject::leftover(&query)
        };
        // A lead followed by nothing but asking ("search everything since …"): the
        // subject is what is left of the whole question, unless it refers back or the
        // filters already say what is searched for (an author, a tag, a kind, a feed).
        let what = ["author", "tag", "kind"].iter().any(|k| filters.contains_key(*k)) || source.is_some();
        if query.is_none() && placed && !what && !subject::refers(s) && !args.contains_key("query") {
            let (rest, _) = search_filters(&a.q.raw);
            query = subject::leftover(&rest);
        }
        if let Some(query) =
            query.map(|q| quoted_as_written(&tidy_subject(&q), &a.facts.text)).filter(|q| !q.is_empty())
        {
            args.insert("query".into(), Value::String(query));
        }
        for (k, v) in filters {
            args.entry(k).or_insert(v);
        }
    }
    // A kind or a tag said in the asking around the subject ("surveys on …", "cs.CL
    // stuff about …").
    if placed {
        let (_, around) = search_filters(&a.facts.frame.raw);
        for k in ["kind", "tag"] {
            if let Some(v) = around.get(k) {
                args.entry(k).or_insert(v.clone());
            }
        }
    }
    if let Some((name, _)) = source {
        args.entry("source").or_insert(Value::String(name));
    }
    if let Some(n) = a.facts.counts.offset {
        args.entry("offset").or_insert(Value::from(n));
    }
    if let Some(n) = a.facts.counts.limit {
        args.entry("limit").or_insert(Value::from(n));
    }
    Ok(args)
}

/// `query` with a phrase the question put in straight double quotes quoted again: a
/// phrase to match as written ("search \"flow matching\" preprints"). Curly quotes
/// are typography, not a phrase search.
fn quoted_as_written(query: &str, text: &str) -> String {
    let mut out = query.to_string();
    for (n, part) in text.split('"').enumerate() {
        let phrase = part.trim();
        if n % 2 == 1
            && !phrase.is_empty()
            && !out.contains(&format!("\"{phrase}\""))
            && let Some(at) = out.find(phrase)
        {
            out = format!("{}\"{phrase}\"{}", &out[..at], &out[at + phrase.len()..]);
        }
    }
    out.replace("\"\"", "\"")
}

/// Words that open a request to skip hits ("but skip the first 20").
const SKIP_WORDS: &[&str] = &["skip", "skipping", "offset"];

/// Words after which a feed's name follows ("from the bioRxiv feed", "only from
/// arxiv", "src arxiv").
const SOURCE_LEADS: &[&str] = &["from", "via", "through", "src", "source"];

/// Nouns that close a feed's name ("the pytorch blog", "the arxiv feeds").
const SOURCE_NOUNS: &[&str] = &["feed", "feeds", "blog", "source", "journal", "listing", "listings"];

/// Words that are never a feed's name where one may follow.
const NOT_SOURCES: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "this",
    "that",
    "these",
    "those",
    "its",
    "their",
    "his",
    "her",
    "last",
    "past",
    "previous",
    "next",
    "today",
    "yesterday",
    "now",
    "then",
    "here",
    "there",
    "i",
    "me",
    "it",
    "them",
    "all",
    "any",
    "each",
    "every",
    "only",
    "new",
    "other",
    "same",
    "one",
    "of",
    "to",
    "in",
    "on",
    "for",
    "and",
    "or",
    "before",
    "after",
    "since",
    "until",
    "is",
    "was",
    "web",
    "archive",
    "feed",
    "feeds",
    "source",
    "sources",
    "scratch",
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// The feed a search is limited to, and the words that say so: a name after
/// "from/via/through" (capitalised words, "Organic Letters", "bioRxiv"; or one word
/// before a noun of feeds, "from the pytorch blog"; or any one word after "only
/// from"), after "src/source", or before a noun of feeds after "the/only" ("in the
/// arxiv feeds", "only arxiv source").
fn search_source(q: &Question) -> Option<(String, String)> {
    let w = |i: usize| q.words.get(i).map(|w| w.text.as_str());
    // Two words are one name only with nothing but spaces between them.
    let joined = |a: usize, b: usize| q.raw[q.words[a].end..q.words[b].start].chars().all(char::is_whitespace);
    let named = |i: usize| {
        q.words.get(i).is_some_and(|x| {
            let raw = &q.raw[x.start..x.end];
            raw.chars().any(char::is_uppercase)
                && raw.chars().next().is_some_and(char::is_alphabetic)
                && !NOT_SOURCES.contains(&x.text.as_str())
        })
    };
    let usable = |i: usize| w(i).is_some_and(|t| !NOT_SOURCES.contains(&t) && !t.chars().all(|c| c.is_ascii_digit()));
    let said = |from: usize, to: usize| q.raw[q.words[from].start..q.words[to].end].to_string();
    for i in 0..q.words.len() {
        let lead = w(i).unwrap_or_default();
        let only = i > 0 && w(i - 1) == Some("only");
        let start = if only { i - 1 } else { i };
        if SOURCE_LEADS.contains(&lead) && i + 1 < q.words.len() {
            let mut j = i + 1;
            if w(j) == Some("the") && j + 1 < q.words.len() {
                j += 1;
            }
            // A run of capitalised words: the name as written.
            let mut end = j;
            while named(end) && end < j + 3 && (end == j || joined(end - 1, end)) {
                end += 1;
            }
            let noun_after = |k: usize| w(k).is_some_and(|t| SOURCE_NOUNS.contains(&t));
            let (first, last) = if end > j {
                (j, end - 1)
            } else if usable(j) && (noun_after(j + 1) || only || matches!(lead, "src" | "source")) {
                (j, j)
            } else {
                continue;
            };
            let mut close = last;
            while noun_after(close + 1) || w(close + 1) == Some("only") {
                close += 1;
            }
            let name = said(first, last);
            return Some((name, said(start, close)));
        }
        // "in the arxiv feeds", "only arxiv source": a word before a noun of feeds.
        if matches!(lead, "the" | "only")
            && usable(i + 1)
            && w(i + 2).is_some_and(|t| SOURCE_NOUNS.contains(&t))
            && (lead == "only" || i == 0 || matches!(w(i - 1), Some("in" | "on" | "from" | "only")))
        {
            let mut close = i + 2;
            while w(close + 1).is_some_and(|t| SOURCE_NOUNS.contains(&t) || t == "only") {
                close += 1;
            }
            let open = if lead == "the" && i > 0 { i - 1 } else { i };
            return Some((said(i + 1, i + 1), said(open, close)));
        }
    }
    None
}

/// `s` without the first occurrence of `part`, compared case-insensitively.
fn remove_ci(s: &str, part: &str) -> String {
    let (ls, lp) = (s.to_lowercase(), part.to_lowercase());
    match ls.find(&lp) {
        // Lower-casing kept every byte length (ASCII-only or same-width text): cut there.
        Some(at) if ls.len() == s.len() && s.is_char_boundary(at) && s.is_char_boundary(at + part.len()) => {
            format!("{} {}", &s[..at], &s[at + part.len()..])
        }
        _ => s.to_string(),
    }
}

/// `s` up to the first of `words` (on word boundaries), the rest dropped.
fn cut_before_any<'s>(s: &'s str, words: &[&str]) -> &'s str {
    let q = Question::new(s);
    match q.words.iter().find(|w| words.contains(&w.text.as_str())) {
        // `Question::new` trims and straightens quotes; offsets are into its `raw`.
        Some(w) if q.raw.len() == s.trim().len() => {
            let lead = s.len() - s.trim_start().len();
            &s[..lead + w.start]
        }
        _ => s,
    }
}

/// A date as the search tools take it: `YYYY-MM-DD`.
fn is_date(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 10 && b.iter().enumerate().all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() })
}

/// A year: four digits from 1900 to 2099.
fn is_year(t: &str) -> bool {
    t.len() == 4 && t.chars().all(|c| c.is_ascii_digit()) && (t.starts_with("19") || t.starts_with("20"))
}

/// An arXiv category ("cs.CL", "q-bio.GN", "cond-mat.str-el", "stat.ML").
fn is_category(t: &str) -> bool {
    static CATEGORY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:cs|math|stat|physics|q-bio|q-fin|eess|econ|astro-ph|cond-mat|hep-[a-z]{2}|nucl-[a-z]{2}|quant-ph|gr-qc|nlin|math-ph)\.[A-Za-z][A-Za-z-]*$")
            .expect("category pattern")
    });
    CATEGORY.is_match(t)
}

/// A range of years as the search tools take it: "2020-2023" (also with an en dash).
fn year_range(t: &str) -> Option<String> {
    let (a, b) = t.split_once(['-', '–'])?;
    (is_year(a) && is_year(b)).then(|| format!("{a}-{b}"))
}

/// "second" → 2, …, and "next" is none (it depends on where the agent is).
fn ordinal(t: &str) -> Option<u64> {
    let n = ["first", "second", "third", "fourth", "fifth"].iter().position(|o| *o == t)?;
    Some(n as u64 + 1)
}

/// The filters a search subject states, taken out of it: dates (`since`, `until`,
/// "between A and B"), `tag` ("tagged cs.CL"), `kind` (a kind word at either end:
/// "… preprints", "surveys on …"), `author` ("by Smith", a capitalised name), `year`
/// ("in 2023"), `limit` ("20 results") and `page` ("page 2"). What is left is the
/// query.
fn search_filters(subject: &str) -> (String, Args) {
    let words: Vec<&str> = subject.split_whitespace().collect();
    let norm = |i: usize| -> String {
        words.get(i).map_or(String::new(), |w| {
            w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.'))
                .trim_end_matches('.')
                .to_lowercase()
        })
    };
    let bare = |i: usize| -> String {
        words.get(i).map_or(String::new(), |w| {
            w.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '?' | '!' | '\'' | '"' | '(' | ')'))
                .trim_end_matches('.')
                .to_string()
        })
    };
    let mut keep = vec![true; words.len()];
    let mut args = Args::new();
    let put = |k: &str, v: Value, args: &mut Args| {
        args.entry(k.to_string()).or_insert(v);
    };
    let mut i = 0;
    while i < words.len() {
        let w = norm(i);
        let mut drop = 0;
        if w == "between" && is_date(&norm(i + 1)) && norm(i + 2) == "and" && is_date(&norm(i + 3)) {
            put("since", Value::String(norm(i + 1)), &mut args);
            put("until", Value::String(norm(i + 3)), &mut args);
            drop = 4;
        } else if matches!(w.as_str(), "since" | "after" | "from") && is_date(&norm(i + 1)) {
            put("since", Value::String(norm(i + 1)), &mut args);
            drop = 2;
        } else if w == "on" && norm(i + 1) == "or" && norm(i + 2) == "after" && is_date(&norm(i + 3)) {
            put("since", Value::String(norm(i + 3)), &mut args);
            drop = 4;
        } else if matches!(w.as_str(), "before" | "until" | "till") && is_date(&norm(i + 1)) {
            put("until", Value::String(norm(i + 1)), &mut args);
            drop = 2;
        } else if w == "tagged" && !norm(i + 1).is_empty() {
            let j = if norm(i + 1) == "with" || norm(i + 1) == "as" { i + 2 } else { i + 1 };
            // "tagged with it" names no tag.
            if !matches!(norm(j).as_str(), "it" | "that" | "this" | "them" | "") {
                put("tag", Value::String(bare(j)), &mut args);
            }
            drop = j + 1 - i;
        } else if is_category(&bare(i)) && !args.contains_key("tag") {
            // An arXiv category said as such ("cs.CL items", "search q-bio.NC for …").
            put("tag", Value::String(bare(i)), &mut args);
            drop = 1;
        } else if let Some(range) = year_range(&norm(i)) {
            put("year", Value::String(range), &mut args);
            drop = 1;
        } else if w == "between" && is_year(&norm(i + 1)) && norm(i + 2) == "and" && is_year(&norm(i + 3)) {
            put("year", Value::String(format!("{}-{}", norm(i + 1), norm(i + 3))), &mut args);
            drop = 4;
        } else if is_year(&w) && norm(i + 1) == "or" && matches!(norm(i + 2).as_str(), "later" | "after" | "newer") {
            put("year", Value::String(format!("{w}-")), &mut args);
            drop = 3;
        } else if matches!(w.as_str(), "before" | "until" | "till") && is_year(&norm(i + 1)) {
            put("until", Value::String(format!("{}-01-01", norm(i + 1))), &mut args);
            drop = 2;
        } else if let Some(n) = ordinal(&w)
            && norm(i + 1) == "page"
        {
            put("page", Value::from(n), &mut args);
            drop = 2;
        } else if w == "by"
            && words.get(i + 1).is_some_and(|n| n.chars().next().is_some_and(char::is_uppercase))
            && !matches!(norm(i + 1).as_str(), "the" | "a" | "an")
        {
            // A name of up to three capitalised words ("by Yann LeCun"), to a comma.
            let mut n = 1;
            while n < 3
                && !words[i + n].ends_with([',', ';', '.', '?', '!'])
                && words.get(i + n + 1).is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
            {
                n += 1;
            }
            let name: Vec<String> = (i + 1..=i + n).map(bare).collect();
            put("author", Value::String(name.join(" ")), &mut args);
            drop = n + 1;
        } else if matches!(w.as_str(), "in" | "from" | "during") && is_year(&norm(i + 1)) {
            put("year", Value::String(norm(i + 1)), &mut args);
            drop = 2;
        } else if w == "page" && norm(i + 1).parse::<u64>().is_ok() {
            put("page", Value::from(norm(i + 1).parse::<u64>().unwrap_or(1)), &mut args);
            drop = 2;
        } else if let Ok(n) = w.parse::<u64>()
            && matches!(norm(i + 1).as_str(), "hits" | "results" | "items")
            && (1..=1000).contains(&n)
        {
            put("limit", Value::from(n), &mut args);
            drop = 2;
        }
        if drop > 0 {
            let end = (i + drop).min(words.len());
            // A date or filter ends the clause: "published" before it goes too.
            if i > 0 && matches!(norm(i - 1).as_str(), "published" | "posted" | "dated" | "only" | "from") {
                keep[i - 1] = false;
            }
            keep[i..end].fill(false);
            i = end;
        } else {
            i += 1;
        }
    }
    // A kind word at either end of what is left: "flow matching preprints",
    // "surveys on protein folding".
    let kind = |w: &str| match w {
        "preprint" | "preprints" => Some("preprint"),
        "survey" | "surveys" | "review" | "reviews" => Some("survey"),
        "release" | "releases" => Some("release"),
        "post" | "posts" | "blogpost" | "blogposts" => Some("post"),
        _ => None,
    };
    // A kind word inside, said as a kind: plural or after "blog/software", before a word
    // that introduces the subject or next to "only" ("releases mentioning whisper",
    // "blog posts on RLHF", "but only preprints", "survey papers on …").
    let left: Vec<usize> = (0..words.len()).filter(|&i| keep[i]).collect();
    if !args.contains_key("kind") {
        for (n, &i) in left.iter().enumerate() {
            let Some(k) = kind(norm(i).as_str()) else { continue };
            let next = left.get(n + 1).map(|&j| norm(j)).unwrap_or_default();
            let prev = if n > 0 { norm(left[n - 1]) } else { String::new() };
            let plural = norm(i).ends_with('s');
            let as_kind = matches!(
                next.as_str(),
                "on" | "about" | "of" | "mentioning" | "regarding" | "re" | "only" | "notes" | "papers" | "by"
            ) || matches!(prev.as_str(), "only" | "blog" | "software" | "just")
                || (plural && (n + 1 == left.len() || words[i].ends_with(',')));
            if !as_kind {
                continue;
            }
            put("kind", Value::String(k.into()), &mut args);
            keep[i] = false;
            if matches!(prev.as_str(), "blog" | "software" | "only" | "just") {
                keep[left[n - 1]] = false;
            }
            if matches!(next.as_str(), "only" | "notes" | "papers") {
                keep[left[n + 1]] = false;
            }
            break;
        }
    }
    let left: Vec<usize> = (0..words.len()).filter(|&i| keep[i]).collect();
    if left.len() >= 2 {
        let (first, last) = (left[0], left[left.len() - 1]);
        if let Some(k) = kind(norm(last).as_str()) {
            put("kind", Value::String(k.into()), &mut args);
            keep[last] = false;
            if left.len() >= 3 && matches!(norm(left[left.len() - 2]).as_str(), "only" | "just") {
                keep[left[left.len() - 2]] = false;
            }
        } else if let Some(k) = kind(norm(first).as_str())
            && matches!(norm(left[1]).as_str(), "on" | "about" | "of" | "regarding" | "covering")
        {
            put("kind", Value::String(k.into()), &mut args);
            keep[first] = false;
            keep[left[1]] = false;
        }
    }
    // A dropped word's sentence punctuation stays: it ends the subject's clause
    // ("… between 2019 and 2021. Can you …").
    let query: Vec<&str> = (0..words.len())
        .filter_map(|i| {
            if keep[i] {
                Some(words[i])
            } else {
                words[i]
                    .char_indices()
                    .last()
                    .filter(|(_, c)| matches!(c, '.' | '?' | '!' | ';'))
                    .map(|(at, _)| &words[i][at..])
            }
        })
        .collect();
    let query = query.join(" ");
    let query = query.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | ' ')).to_string();
    (if args.is_empty() { subject.to_string() } else { tidy_subject(&query) }, args)
}

fn how_to_track(_: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(track_ask_back(None))
}

fn trim_url(u: &str) -> &str {
    u.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\''])
}

/// A persona named in the question, with the byte offset where its mention starts.
fn persona_name(text: &str) -> Option<(usize, String)> {
    for re in
        [&*KEYED_NAME, &*QUOTED_NAME, &*APPOSED_NAME, &*POSSESSIVE_NAME, &*PERSONA_NAME, &*SHOULD_NAME_READ, &*FOR_NAME]
    {
        for c in re.captures_iter(text) {
            let Some(m) = c.iter().skip(1).flatten().next() else { continue };
            let name = m.as_str().trim_end_matches(['.', '-', '_']).to_string();
            if !name.is_empty() && !NOT_NAMES.contains(&name.to_lowercase().as_str()) {
                return Some((c.get(0).map_or(0, |m| m.start()), name));
            }
        }
    }
    None
}

/// Whether the question points at one item ("this paper", "it", "the first one").
fn references_item(q: &Question) -> bool {
    REFERENCES.iter().any(|p| match q.find(p) {
        Some(i) if matches!(*p, "this" | "that") => {
            q.words.get(i + 1).is_none_or(|w| !NOT_ITEM_AFTER_DEMONSTRATIVE.contains(&w.text.as_str()))
        }
        Some(_) => true,
        None => false,
    })
}

/// The first word after politeness ("please", "can you", "could you").
fn opening_word(q: &Question) -> Option<&str> {
    q.words
        .iter()
        .map(|w| w.text.as_str())
        .find(|w| !matches!(*w, "please" | "pls" | "can" | "could" | "would" | "you" | "now" | "ok" | "okay" | "so"))
}

fn track_instruction(q: &Question) -> bool {
    let mut i = 0;
    let w = |i: usize| q.words.get(i).map(|w| w.text.as_str());
    while matches!(w(i), Some("please" | "can" | "could" | "would" | "you")) {
        i += 1;
    }
    let rest = q.words[i.min(q.words.len())..].iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
    TRACK.iter().any(|t| rest == *t || rest.starts_with(&format!("{t} ")))
}

fn track_ask_back(topic: Option<&str>) -> Decision {
    let what = topic.map_or("that topic".to_string(), |t| format!("'{t}'"));
    Decision::ask_back(
        format!(
            "To follow {what} over time, add it to your interests so the feed ranks it higher, search the \
             literature for it now, or look for a feed that covers it: which one?"
        ),
        &["feed.persona_update", "feed.research", "feed.source_suggest"],
    )
}

/// The subject of a search: the text after the earliest search lead, with asking
/// words removed at the front and time/place words at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Subject {
    text: String,
    start: usize,
    end: usize,
    /// Where the search lead starts.
    lead: usize,
}

fn search_subject(q: &Question, persona_at: Option<String>) -> Option<Subject> {
    let mut best: Option<(usize, usize)> = None; // (word index of lead start, lead length)
    for lead in SEARCH_LEADS {
        if let Some(i) = q.find(lead) {
            let len = lead.split_whitespace().count();
            if best.is_none_or(|(bi, bl)| i < bi || (i == bi && len > bl)) {
                best = Some((i, len));
            }
        }
    }
    let (i, len) = best?;
    let lead_end = q.words[i + len - 1].end;
    let start = q.words.get(i + len).map_or(q.raw.len(), |w| w.start);
    let mut rest = &q.raw[lead_end..];
    // A subject stops at the end of the sentence.
    if let Some(cut) = rest.find(['?', '!']).or_else(|| rest.find(". ")) {
        rest = &rest[..cut];
    }
    let end = lead_end + rest.len();
    let mut s = tidy_subject(rest);
    if let Some(name) = persona_at {
        for marker in ["for persona", "for reader", "for user", "as persona", "as reader"] {
            if let Some(keep) = strip_suffix_ci(&s, &format!(" {marker} {name}")).map(str::len) {
                s.truncate(keep);
            }
        }
        s = tidy_subject(&s);
    }
    let lead = q.words[i].start;
    if s.is_empty() { None } else { Some(Subject { text: s, start: start.min(end), end, lead }) }
}

/// Strip introducers from the front and fillers from the end, repeatedly.
fn tidy_subject(text: &str) -> String {
    let mut s = text.trim().trim_matches(|c: char| c.is_ascii_punctuation() && c != '-' && c != '.').trim().to_string();
    loop {
        let before = s.clone();
        for p in SUBJECT_INTRODUCERS {
            if strip_prefix_ci(&s, p) == Some("") {
                s.clear();
                break;
            }
            if let Some(rest) = strip_prefix_ci(&s, &format!("{p} ")) {
                s = rest.trim_start().to_string();
                break;
            }
        }
        for p in SUBJECT_FILLERS {
            if strip_prefix_ci(&s, p) == Some("") {
                s.clear();
                break;
            }
            if let Some(rest) = strip_suffix_ci(&s, &format!(" {p}")) {
                s = rest.trim_end().to_string();
                break;
            }
        }
        // Quotes around the subject go too, straight or curly ("search for ‘diffusion’
        // papers": the question reads it as 'diffusion', the filler leaves diffusion').
        s = s
            .trim_matches(|c: char| {
                matches!(c, ',' | ';' | ':' | '\'' | '"' | '`' | '\u{201c}' | '\u{201d}' | '\u{2018}' | '\u{2019}')
                    || c.is_whitespace()
            })
            .to_string();
        if s == before {
            return s.split_whitespace().collect::<Vec<_>>().join(" ");
        }
    }
}

/// `s` without `prefix`, compared case-insensitively character by character, so the
/// cut always falls on a character boundary of `s` (lower-casing the whole string can
/// change its byte length: `İ`, the Kelvin sign).
fn strip_prefix_ci<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let mut chars = s.char_indices();
    for p in prefix.chars() {
        let (_, c) = chars.next()?;
        if !c.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
    }
    Some(chars.next().map_or("", |(i, _)| &s[i..]))
}

/// `s` without `suffix`, compared case-insensitively character by character.
fn strip_suffix_ci<'s>(s: &'s str, suffix: &str) -> Option<&'s str> {
    let mut chars = s.char_indices().rev();
    let mut cut = s.len();
    for p in suffix.chars().rev() {
        let (i, c) = chars.next()?;
        if !c.to_lowercase().eq(p.to_lowercase()) {
            return None;
        }
        cut = i;
    }
    Some(&s[..cut])
}

/// The subject of a literature search: venue words removed, then the subject after
/// a search lead, or what is left once the asking is stripped.
fn research_topic(text: &str) -> Option<String> {
    let cleaned = VENUE.replace_all(text, " ").to_string();
    let q = Question::new(&cleaned);
    if let Some(s) = search_subject(&q, None) {
        return Some(s.text);
    }
    let s = tidy_subject(&q.raw.replace(['?', '!'], " "));
    let s = tidy_subject(&strip_leading_words(&s, &["look", "up", "search", "find", "check", "please", "can", "you"]));
    if s.is_empty() { None } else { Some(s) }
}

fn strip_leading_words(s: &str, words: &[&str]) -> String {
    let mut parts: Vec<&str> = s.split_whitespace().collect();
    while parts.first().is_some_and(|w| words.contains(&w.trim_end_matches([':', ',']).to_lowercase().as_str())) {
        parts.remove(0);
    }
    parts.join(" ")
}

/// An interests text stated in the question ("I work on X", "interested in X",
/// "add X to my interests", "new reader jonas: X"), and whether it adds to the
/// existing text. The text is cut where the question stops stating it: at the end of
/// its sentence, or at a clause about the old text or the request itself ("…, keep the
/// rest", "…, without removing the old ones", "… Please overwrite"); quotes around it
/// and the connectives before it ("with:", "to just", "by:") go.
fn interests_text(text: &str, q: &Question) -> Option<(String, bool)> {
    let keeps = q
        .any(&[
            "also",
            "append",
            "appended",
            "keep the rest",
            "keep the old",
            "keeping",
            "without removing",
            "without wiping",
            "additionally",
            "on top of",
            "extend",
            "extended",
            "as well",
        ])
        .is_some();
    if let Some(t) =
        ADD_TO_INTERESTS.captures(text).and_then(|c| c.get(1).or(c.get(2)).and_then(|m| interests_said(m.as_str())))
    {
        return Some((t, true));
    }
    const LEADS: &[&str] = &[
        "interested in",
        "interests are",
        "interests to",
        "interests should be",
        "with interests",
        "interests",
        "intrests",
        "topics",
        "i work on",
        "i now work on",
        "working on",
        "my research is on",
        "my research is about",
        "my field is",
        "who works on",
        "who follows",
        "who reads about",
        "reads about",
        "wants to read about",
        "who wants",
        "cares about",
        "care about",
        "focused on",
        "focusing on",
        "he likes",
        "she likes",
        "they like",
        "into",
    ];
    let mut best: Option<(usize, usize)> = None;
    for lead in LEADS {
        if let Some(i) = q.find(lead) {
            let len = lead.split_whitespace().count();
            if best.is_none_or(|(bi, bl)| i < bi || (i == bi && len > bl)) {
                best = Some((i, len));
            }
        }
    }
    let rest = match best {
        Some((i, len)) => q.rest_after(i + len - 1).to_string(),
        // "new reader jonas: X", "new persona robo_lab — X": after the naming.
        None => {
            let at = text.find([':', '—']).filter(|&at| {
                Question::new(&text[..at]).any(&["persona", "reader", "profile", "interests", "topics"]).is_some()
            })?;
            text[at..].chars().skip(1).collect::<String>()
        }
    };
    interests_said(&rest).map(|t| (t, keeps))
}

/// The interests as said: the connectives before them, the clause after them and the
/// quotes around them removed; `None` for nothing or a pronoun ("add it").
fn interests_said(rest: &str) -> Option<String> {
    static AFTER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:[.;!?](?:\s|$)|,?\s+(?:[—–-]\s+)?(?:keep|keeping|without|the old|please|pls|drop|don't|do not|not the|overwrite|replace|append|add|can you|could you|instead|now,|as well|additionally|too\b|on top of|thanks|cheers)\b)").expect("after pattern")
    });
    let rest = rest.trim().trim_start_matches([':', '-', '=', '>', ' ']).trim();
    let rest = strip_leading_words(
        rest,
        &[
            "in",
            "on",
            "of",
            "to",
            "are",
            "is",
            "now",
            "be",
            "with",
            "by",
            "just",
            "only",
            "entirely",
            "text",
            "w/",
            "overwrite",
            "focus",
            "->",
            "=",
            "-",
            "all",
            "about",
            "read",
        ],
    );
    let rest = rest.trim_start_matches([':', '-', '=', '>', ' ']);
    let cut = AFTER.find(rest).map_or(rest, |m| &rest[..m.start()]);
    let cut = cut.trim_end_matches(['?', '!', '.', ',', ' ']).trim();
    // Quotes around a phrase go; an apostrophe inside a word stays.
    let mut out = String::new();
    let chars: Vec<char> = cut.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let quote = matches!(c, '\'' | '"' | '‘' | '’' | '“' | '”');
        let inside = i > 0 && i + 1 < chars.len() && chars[i - 1].is_alphanumeric() && chars[i + 1].is_alphanumeric();
        if !quote || inside {
            out.push(c);
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let bare = out.to_lowercase();
    if out.is_empty() || matches!(bare.as_str(), "it" | "that" | "this" | "them" | "those" | "these") {
        None
    } else {
        Some(out)
    }
}

/// The evidence that decides what no rule claims (`attest_core::score`): weighted
/// words and phrases per tool, normalised (lemmas, synonyms) before matching.
pub static SCORING: Scoring = Scoring { cues: CUES, writes: WRITES, min: 3, margin: 2 };

/// Tools that write, and the verbs that must open a question asking for them.
const WRITES: &[Write] = &[
    Write { tool: "feed.rate", verbs: &["rate", "mark", "flag", "thumbs", "upvote", "downvote", "star", "score"] },
    Write {
        tool: "feed.persona_create",
        verbs: &["create", "make", "add", "set", "register", "new", "start", "build", "open"],
    },
    Write {
        tool: "feed.persona_update",
        verbs: &[
            "update", "change", "set", "replace", "edit", "add", "append", "tweak", "modify", "put", "include",
            "adjust",
        ],
    },
    Write { tool: "feed.persona_delete", verbs: &["delete", "remove", "drop", "get", "erase", "destroy", "kill"] },
    Write {
        tool: "feed.persona_reset",
        verbs: &["reset", "clear", "wipe", "erase", "forget", "start", "zero", "purge"],
    },
    Write { tool: "feed.persona_merge", verbs: &["merge", "combine", "join", "unify", "fold"] },
    Write {
        tool: "feed.source_add",
        verbs: &["subscribe", "add", "follow", "include", "import", "sub", "track", "start", "register"],
    },
    Write {
        tool: "feed.source_remove",
        verbs: &["unsubscribe", "remove", "drop", "delete", "unsub", "stop", "unfollow", "cancel", "get"],
    },
    Write {
        tool: "feed.harvest_engagement",
        verbs: &["harvest", "turn", "convert", "count", "use", "learn", "import", "treat", "make"],
    },
];

/// The cues, by tool.
static CUES: &[Cue] = &[
    cue(
        "feed.list",
        3,
        &[
            "read today",
            "reading list",
            "what to read",
            "worth read*",
            "worth my time",
            "unread",
            "what should i read",
            "top pick*",
        ],
    ),
    cue("feed.list", 2, &["queue", "recommend*", "new", "top", "latest", "for me", "pull up"]),
    cue("feed.list", 1, &["today", "morning", "feed"]),
    cue(
        "feed.search",
        3,
        &[
            "search",
            "archive",
            "did i see",
            "come through",
            "came through",
            "come across",
            "anything about",
            "anything on",
        ],
    ),
    cue("feed.search", 2, &["find", "look for", "mention*", "about"]),
    cue(
        "feed.read",
        3,
        &["full text", "in full", "full entry", "summarize", "abstract", "tldr", "gist", "what is it about"],
    ),
    cue("feed.read", 2, &["open", "item", "entry", "pull up", "show me"]),
    cue(
        "feed.rate",
        3,
        &["useful", "helpful", "irrelevant", "not relevant", "thumbs", "upvot*", "downvot*", "waste of time"],
    ),
    cue("feed.rate", 2, &["rate", "mark"]),
    cue("feed.explain", 3, &["why", "explain", "how come", "reason", "what match*", "end up"]),
    cue("feed.explain", 2, &["rank*", "shown", "show up", "first in", "top of"]),
    cue(
        "feed.digest",
        3,
        &["digest", "by topic", "roundup", "round up", "group*", "cluster*", "topic by topic", "week in review"],
    ),
    cue("feed.digest", 2, &["week", "summarize", "month", "fortnight", "catch up", "overview", "themes"]),
    cue("feed.persona_status", 3, &["profile", "persona", "my ratings", "how well", "know about me", "blend"]),
    cue("feed.persona_status", 2, &["interest", "learn*", "rating", "personaliz*"]),
    cue("feed.persona_create", 3, &["new persona", "new reader", "new profile", "create", "set up"]),
    cue("feed.persona_create", 2, &["persona", "reader", "profile"]),
    cue("feed.persona_update", 3, &["interest"]),
    cue("feed.persona_update", 2, &["change", "update", "replace", "append"]),
    cue("feed.persona_delete", 3, &["delete", "get rid", "remove the persona", "remove the reader"]),
    cue("feed.persona_delete", 2, &["persona", "reader", "profile"]),
    cue("feed.persona_reset", 3, &["reset", "start over", "from scratch", "wipe", "clear", "forget"]),
    cue("feed.persona_reset", 2, &["rating", "history"]),
    cue("feed.persona_merge", 3, &["merge", "combine", "same person", "one person"]),
    cue(
        "feed.persona_suggest_interests",
        3,
        &["suggest * interest*", "interest idea*", "ideas", "what should i put", "what to write"],
    ),
    cue("feed.persona_suggest_interests", 2, &["interest", "suggest", "propos*"]),
    cue("feed.source_add", 3, &["subscrib*"]),
    cue("feed.source_add", 2, &["rss", "add * feed", "new feed"]),
    cue("feed.source_remove", 3, &["unsubscrib*", "unsub", "unfollow", "stop follow*", "drop * feed", "remove * feed"]),
    cue("feed.source_remove", 2, &["feed", "source", "subscription"]),
    cue(
        "feed.source_preview",
        3,
        &["preview", "peek", "sample", "before i subscrib*", "before subscrib*", "before i commit"],
    ),
    cue(
        "feed.source_suggest",
        3,
        &[
            "suggest * feed",
            "recommend * feed",
            "journals",
            "ought to follow",
            "should i follow",
            "should i be follow*",
            "feeds should",
            "categories",
        ],
    ),
    cue("feed.source_suggest", 2, &["follow", "missing", "cover*", "suggest", "source"]),
    cue("feed.sources", 3, &["subscriptions", "subscribed", "my feeds", "my sources", "fetched", "feed health"]),
    cue(
        "feed.sources",
        2,
        &["last updated", "broken", "failing", "following", "how many items", "each feed", "per source"],
    ),
    cue("feed.harvest_engagement", 3, &["implicit", "engagement", "harvest", "weak positive*", "opened"]),
    cue("feed.harvest_engagement", 2, &["into rating*", "click*"]),
    cue(
        "feed.research",
        3,
        &[
            "arxiv",
            "pubmed",
            "crossref",
            "literature",
            "beyond my",
            "outside my",
            "not my archive",
            "not in my archive",
        ],
    ),
    cue("feed.research", 2, &["published", "web"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(q: &str) -> Option<String> {
        route(q).tool
    }

    #[test]
    fn the_daily_question_is_the_list() {
        assert_eq!(tool("what should I read today?").as_deref(), Some("feed.list"));
        assert_eq!(tool("What should I read today").as_deref(), Some("feed.list"));
    }

    #[test]
    fn subject_is_the_topic_without_the_asking() {
        let d = route("anything new on retrieval augmented generation?");
        assert_eq!(d.tool.as_deref(), Some("feed.search"));
        assert_eq!(d.args["query"], "retrieval augmented generation");
    }

    #[test]
    fn search_filters_are_taken_out_of_the_subject_wherever_said() {
        let (q, a) = search_filters("state space models, 2021-2023");
        assert_eq!((q.as_str(), a["year"].as_str()), ("state space models", Some("2021-2023")));
        let (q, a) = search_filters("ice cores between 2019 and 2021. Can you dig it out");
        assert_eq!(a["year"], "2019-2021");
        assert!(q.starts_with("ice cores ."), "{q}");
        let (q, a) = search_filters("releases mentioning whisper");
        assert_eq!((q.as_str(), a["kind"].as_str()), ("mentioning whisper", Some("release")));
        let (_, a) = search_filters("q-bio.NC items about grid cells");
        assert_eq!(a["tag"], "q-bio.NC");
        let (_, a) = search_filters("the second page of results for dune migration");
        assert_eq!(a["page"], 2);
        let (_, a) = search_filters("label smoothing before 2023");
        assert_eq!(a["until"], "2023-01-01");
        // A kind word that is part of the subject stays: "dopamine release in …".
        let (q, a) = search_filters("dopamine release in the striatum");
        assert!(!a.contains_key("kind"));
        assert_eq!(q, "dopamine release in the striatum");
        // "tagged with it" names no tag.
        assert!(!search_filters("cs.CL items tagged with it").1.get("tag").is_some_and(|t| t == "it"));
    }

    /// The arguments of `feed.search` chosen for `q` without a phrase (as the model or
    /// the scores choose it).
    fn chosen_search(q: &str) -> Args {
        let facts = <Facts as attest_core::ask::Facts>::read(q, &Args::new());
        let asked = Asked { facts: &facts, q: &facts.q, phrase: None, tool: "feed.search" };
        assert!(subject_track_or_chosen(&asked), "{q}");
        search_query(&asked).expect(q)
    }

    #[test]
    fn a_search_without_a_lead_takes_what_is_left() {
        for (q, want) in [
            ("did anything come thru on glacial isostatic adjustment", "glacial isostatic adjustment"),
            ("knowledge distillation papers from 2023", "knowledge distillation"),
            ("next page pls — offset 20, query peatland methane", "peatland methane"),
            ("search everything since 2026-11-20 on monsoon onset", "monsoon onset"),
        ] {
            let args = chosen_search(q);
            assert_eq!(args.get("query").and_then(Value::as_str), Some(want), "{q}");
        }
        // Nothing but asking or a pronoun: the tool, no invented query.
        for q in ["search please", "search the archive"] {
            let args = chosen_search(q);
            assert!(!args.contains_key("query"), "{q}: {args:?}");
        }
        // A subject that refers back is what it refers to, said before it.
        for (q, want) in [
            ("my colleague keeps on about 'moraine dating'; has anything on it come in?", "moraine dating"),
            ("there's one about glacial lake outbursts, search that", "glacial lake outbursts"),
        ] {
            assert_eq!(route(q).args.get("query").and_then(Value::as_str), Some(want), "{q}");
        }
        // With nothing said before it, it is asked for.
        for q in ["search for it", "anything on that?", "find papers about them"] {
            let d = route(q);
            assert_eq!(d.tool, None, "{q}: {:?}", d.args);
            assert!(d.options.iter().any(|o| o == "feed.search"), "{q}");
        }
    }

    #[test]
    fn a_phrase_in_straight_double_quotes_stays_quoted() {
        assert_eq!(quoted_as_written("flow matching", r#"search "flow matching" preprints"#), r#""flow matching""#);
        assert_eq!(quoted_as_written("flow matching", "search “flow matching” preprints"), "flow matching");
        assert_eq!(quoted_as_written("x", "no quotes here"), "x");
    }

    #[test]
    fn interests_lose_connectives_quotes_and_the_clause_about_the_old_text() {
        let read = |t: &str| interests_text(t, &Question::new(t));
        assert_eq!(read("replace ana's interests with: fjords, tides"), Some(("fjords, tides".into(), false)));
        assert_eq!(read("add 'sea ice' to my interests, keep the rest"), Some(("sea ice".into(), true)));
        assert_eq!(read("Add to my interests: 'moraines', keep the rest."), Some(("moraines".into(), true)));
        assert_eq!(read("change my interests to just 'karst, caves'"), Some(("karst, caves".into(), false)));
        assert_eq!(
            read("my interests are now peat and bogs. Please overwrite the old ones."),
            Some(("peat and bogs".into(), false))
        );
        assert_eq!(read("new reader li: dunes, loess"), Some(("dunes, loess".into(), false)));
        assert_eq!(read("tau's interests in Alzheimer's"), Some(("Alzheimer's".into(), false)));
        // A pronoun is no interests text.
        assert_eq!(read("add it to my interests"), None);
    }

    #[test]
    fn reader_names_as_said() {
        let name = |t: &str| persona_name(t).map(|(_, n)| n);
        assert_eq!(name("Get rid of the 'test_user' persona entirely").as_deref(), Some("test_user"));
        assert_eq!(name("new persona: name=dr_osei, interests=x").as_deref(), Some("dr_osei"));
        assert_eq!(name("new reader please, name is Lukas").as_deref(), Some("Lukas"));
        assert_eq!(name("how much of william's ranking comes from ratings").as_deref(), Some("william"));
        let merge = |t: &str| {
            let c = MERGE_NAMES.captures(t).or_else(|| SAME_NAMES.captures(t)).expect(t);
            (c[1].to_string(), c[2].to_string())
        };
        assert_eq!(merge("fold hana2 into hana pls"), ("hana2".into(), "hana".into()));
        assert_eq!(merge("merge 'Alice' into 'alice_w', confirm"), ("Alice".into(), "alice_w".into()));
        assert_eq!(merge("fold bobby's ratings into bob."), ("bobby".into(), "bob".into()));
        assert_eq!(merge("x and y are the same person, fold y into x"), ("y".into(), "x".into()));
    }

    #[test]
    fn no_catch_all() {
        for q in ["", "   ", "hmm", "banana", "ok thanks"] {
            let d = route(q);
            assert!(d.tool.is_none(), "{q}");
            assert!(d.options.len() >= 2, "{q}");
        }
    }

    #[test]
    fn other_surfaces_are_named() {
        let d = route("which arm of my sweep won?");
        assert_eq!(d.tool, None);
        assert_eq!(d.options, ["runs.compare", "feed.list", "feed.search", "feed.digest"]);
    }
}
