//! The `feed.ask` router: a question in the reader's words to one feed tool.
//!
//! Pure and deterministic: no model, no database, no clock. Rules are data (the
//! ordered [`RULES`] table and the phrase lists beside it), matched on whole words
//! through [`attest_core::route::Question`], never on substrings. There is no
//! catch-all: a question no rule claims gets a question back with the tools to choose
//! from, and a question that belongs to another surface is declined by name.
//!
//! Arguments are read from the question: the subject of a search ("anything new on
//! retrieval augmented generation?" gives `query: "retrieval augmented generation"`),
//! an item id ("item 4043", "#4043"), a feed id ("feed 12"), a url, a persona name
//! ("persona alice", "called alice", "alice's ratings"), an interests text ("I work on
//! …"), a verdict (`useful: false` for "not relevant"), and the literature sources
//! named for `feed.research`. The full contract is in `specs/feed-routing.md`.

use std::sync::LazyLock;

use attest_core::Decision;
use attest_core::route::{Question, Rule, elsewhere};
use regex::Regex;
use serde_json::{Map, Value};

/// Every tool the router can choose.
pub const TOOLS: &[&str] = &[
    "feed.list",
    "feed.search",
    "feed.read",
    "feed.rate",
    "feed.explain",
    "feed.digest",
    "feed.persona_create",
    "feed.persona_update",
    "feed.persona_status",
    "feed.persona_reset",
    "feed.persona_delete",
    "feed.persona_suggest_interests",
    "feed.source_add",
    "feed.source_remove",
    "feed.source_preview",
    "feed.source_suggest",
    "feed.sources",
    "feed.harvest_engagement",
    "feed.research",
];

/// The ordered rules; the first whose phrase occurs, and whose condition holds, wins.
/// Conditions (in [`route`]): `feed.research` and `feed.search` need a subject;
/// `feed.explain`, `feed.rate` and `feed.read` need the question to point at an item
/// (an id, a url, or words like "this paper"); `feed.rate` also refuses a question
/// ("is it useful?") unless it says "mark" or "rate".
pub const RULES: &[Rule] = &[
    Rule {
        tool: "feed.harvest_engagement",
        phrases: &[
            "harvest",
            "engagement",
            "learn from what i read",
            "learn from what i've read",
            "learn from what i opened",
            "learn from my reading",
            "count what i read",
            "count my reading",
            "use my reading history",
        ],
    },
    Rule {
        tool: "feed.persona_delete",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.persona_reset",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.persona_create",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.persona_update",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.persona_suggest_interests",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.source_suggest",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.source_remove",
        phrases: &[
            "unsubscribe",
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
        ],
    },
    Rule {
        tool: "feed.source_preview",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.source_add",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.sources",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.research",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.explain",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.rate",
        phrases: &[
            "not useful",
            "useful",
            "not relevant",
            "relevant",
            "irrelevant",
            "not interested",
            "not for me",
            "not my area",
            "not my field",
            "isn't my field",
            "isn't my area",
            "not my thing",
            "skip it",
            "off topic",
            "wrong field",
            "wrong subfield",
            "good find",
            "great find",
            "nice find",
            "helpful",
            "useless",
            "loved it",
            "liked it",
            "liked",
            "loved",
            "enjoyed",
            "disliked",
            "love this",
            "like this",
            "more like this",
            "less like this",
            "fewer like this",
            "more of this",
            "less of this",
            "thumbs up",
            "thumbs down",
            "upvote",
            "downvote",
            "mark",
            "rate",
            "boring",
            "old news",
            "already knew",
            "spot on",
            "waste of time",
            "skip this",
        ],
    },
    Rule {
        tool: "feed.read",
        phrases: &[
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
        ],
    },
    Rule { tool: "feed.search", phrases: SEARCH_LEADS },
    Rule {
        tool: "feed.digest",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.persona_status",
        phrases: &[
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
        ],
    },
    Rule {
        tool: "feed.list",
        phrases: &[
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
        ],
    },
];

/// Phrases after which the subject of a search follows ("papers on …", "find …").
/// The earliest in the question wins, the longest at the same place.
pub const SEARCH_LEADS: &[&str] = &[
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

/// Verdict words that make a rating negative.
const NEGATIVE: &[&str] = &[
    "disliked",
    "not",
    "isn't",
    "wasn't",
    "aren't",
    "don't",
    "didn't",
    "doesn't",
    "no",
    "never",
    "irrelevant",
    "useless",
    "off topic",
    "wrong",
    "less like",
    "fewer like",
    "less of",
    "thumbs down",
    "downvote",
    "boring",
    "old news",
    "already knew",
    "waste",
    "skip",
];

/// Words that make a rating explicit even in question form ("can you mark it…").
const RATE_VERBS: &[&str] = &["mark", "rate", "thumbs up", "thumbs down", "upvote", "downvote", "more like this"];

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
        r#"(?i)(?:\b(?:persona|reader|profile|user)\s+(?:(?:called|named)\s+)?|\b(?:called|named)\s+)["“']?([\p{L}\p{N}][\p{L}\p{N}_.-]*)"#,
    )
    .expect("name pattern")
});
static POSSESSIVE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b([\p{L}\p{N}][\p{L}\p{N}_.-]*)['’]s\s+(?:persona|profile|ratings|clicks|interests|reading|feed)\b",
    )
    .expect("possessive pattern")
});
static SHOULD_NAME_READ: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:should|would|could|does|will)\s+([\p{L}][\p{L}\p{N}_.-]*)\s+(?:read|see|like|want)\b")
        .expect("reader pattern")
});
static ADD_TO_INTERESTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\badd\s+(.+?)\s+to\s+(?:my|the|\S+['’]s)\s+interests\b").expect("add pattern"));
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
];

/// Route a `feed.ask` question to a tool, with the arguments it names.
pub fn route(question: &str) -> Decision {
    let raw = question.trim();
    let url = URL.find(raw).map(|m| trim_url(m.as_str()).to_string());
    let text = URL.replace_all(raw, " ").to_string();
    let q = Question::new(&text);
    if q.is_empty() && url.is_none() {
        return Decision::ask_back(
            "What would you like from your feed: today's reading, a search of the archive, or the week by topic?",
            DEFAULT_OPTIONS,
        );
    }

    let mut args = Map::new();
    if let Some(u) = &url {
        args.insert("url".into(), Value::String(u.clone()));
    }
    let item_id = ITEM_ID.captures(&text).and_then(|c| c[1].parse::<i64>().ok()).filter(|&n| n > 0);
    if let Some(id) = item_id {
        args.insert("item_id".into(), Value::from(id));
    }
    let persona = persona_name(&text);
    let subject = search_subject(&q, persona.as_ref().map(|p| p.1.clone()));

    // Another surface's question is declined by name, unless its marker sits inside
    // the subject of a search ("papers on knowledge graph embeddings" stays here).
    let frame = match &subject {
        Some(s) => format!("{} {}", &text[..s.start], &text[s.end..]),
        None => text.clone(),
    };
    if let Some(mut d) = elsewhere(&Question::new(&frame), "feed") {
        d.options.push("feed.search".into());
        return d;
    }

    // A url decides most questions by itself: a feed to add, preview or drop.
    if url.is_some()
        && item_id.is_none()
        && let Some(d) = route_url(&q, &args)
    {
        return d;
    }

    let points_at_item = item_id.is_some() || url.is_some() || references_item(&q);
    let interrogative = q.words.first().is_some_and(|w| INTERROGATIVES.contains(&w.text.as_str()));

    for rule in RULES {
        let Some(phrase) = q.any(rule.phrases) else { continue };
        let why = format!("'{phrase}'");
        match rule.tool {
            "feed.persona_delete" | "feed.persona_reset" | "feed.persona_create" | "feed.persona_update" => {
                let mut a = args.clone();
                if let Some((_, name)) = &persona {
                    a.insert("name".into(), Value::String(name.clone()));
                }
                if matches!(rule.tool, "feed.persona_create" | "feed.persona_update")
                    && let Some((interests, append)) = interests_text(&text, &q)
                {
                    a.insert("interests".into(), Value::String(interests));
                    if append {
                        a.insert("append".into(), Value::Bool(true));
                    }
                }
                return Decision::to(rule.tool, a, why);
            }
            "feed.source_remove" => {
                let mut a = args.clone();
                if let Some(id) = FEED_ID.captures(&text).and_then(|c| c[1].parse::<i64>().ok()) {
                    a.insert("feed_id".into(), Value::from(id));
                }
                return Decision::to(rule.tool, a, why);
            }
            "feed.research" => {
                let Some(topic) = research_topic(&text) else { continue };
                let mut a = args.clone();
                a.insert("query".into(), Value::String(topic));
                let named: Vec<&str> = RESEARCH_SOURCES.iter().copied().filter(|s| q.has(s)).collect();
                let sources = if named.is_empty() { "arxiv,pubmed".to_string() } else { named.join(",") };
                a.insert("sources".into(), Value::String(sources));
                return Decision::to(rule.tool, a, why);
            }
            "feed.explain" => {
                // "why does my feed keep …" is about the persona, not one item.
                if points_at_item || (q.any(PLACEMENT).is_some() && !q.has("my feed")) {
                    return Decision::to(rule.tool, with_user(&args, &persona), why);
                }
            }
            "feed.rate" => {
                if !points_at_item && q.any(RATE_VERBS).is_none() {
                    continue;
                }
                if interrogative && q.any(RATE_VERBS).is_none() {
                    // "is this relevant to me?" asks for a reason, not a verdict.
                    return Decision::to("feed.explain", with_user(&args, &persona), format!("{why} as a question"));
                }
                let mut a = with_user(&args, &persona);
                a.insert("useful".into(), Value::Bool(q.any(NEGATIVE).is_none()));
                return Decision::to(rule.tool, a, why);
            }
            "feed.read" => {
                if points_at_item {
                    return Decision::to(rule.tool, with_user(&args, &persona), why);
                }
            }
            "feed.search" => {
                if item_id.is_some() {
                    return Decision::to("feed.read", with_user(&args, &persona), "an item id");
                }
                if track_instruction(&q) {
                    return track_ask_back(subject.as_ref().map(|s| s.text.as_str()));
                }
                if let Some(s) = &subject {
                    let mut a = with_user(&args, &persona);
                    a.insert("query".into(), Value::String(s.text.clone()));
                    if q.any(&["surveys", "survey", "reviews", "review"]).is_some() {
                        a.insert("content_type".into(), Value::String("survey".into()));
                    }
                    return Decision::to(rule.tool, a, format!("{why} with a subject"));
                }
            }
            _ => {
                if item_id.is_some() && matches!(rule.tool, "feed.digest" | "feed.list") {
                    return Decision::to("feed.read", with_user(&args, &persona), "an item id");
                }
                let a = match rule.tool {
                    "feed.persona_status"
                    | "feed.list"
                    | "feed.digest"
                    | "feed.source_suggest"
                    | "feed.harvest_engagement" => with_user(&args, &persona),
                    _ => args.clone(),
                };
                return Decision::to(rule.tool, a, why);
            }
        }
    }
    if item_id.is_some() {
        return Decision::to("feed.read", with_user(&args, &persona), "an item id");
    }
    if track_instruction(&q) {
        return track_ask_back(None);
    }
    Decision::ask_back(
        "Did you mean today's ranked reading, a search of the whole archive, or the week grouped by topic?",
        DEFAULT_OPTIONS,
    )
}

/// Which tool a url-bearing question wants; `None` lets the ordinary rules decide
/// (a verdict or an explanation about the item at that url).
fn route_url(q: &Question, args: &Map<String, Value>) -> Option<Decision> {
    const PREVIEW: &[&str] = &[
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
    const REMOVE: &[&str] = &["unsubscribe", "remove", "drop", "stop following", "delete"];
    const ADD: &[&str] = &["add", "subscribe", "follow", "track", "include", "import", "watch"];
    const READ: &[&str] = &["read", "summarize", "summarise", "open", "what is this", "what's this", "tell me about"];
    for (tool, phrases) in [
        ("feed.source_preview", PREVIEW),
        ("feed.source_remove", REMOVE),
        ("feed.source_add", ADD),
        ("feed.read", READ),
    ] {
        if let Some(p) = q.any(phrases) {
            return Some(Decision::to(tool, args.clone(), format!("'{p}' with a url")));
        }
    }
    let verdict_or_why =
        RULES.iter().any(|r| matches!(r.tool, "feed.rate" | "feed.explain") && q.any(r.phrases).is_some());
    if verdict_or_why {
        return None;
    }
    let mut d = Decision::ask_back(
        "What should I do with that address: subscribe to it as a feed, or preview its recent entries first?",
        &["feed.source_add", "feed.source_preview"],
    );
    d.args = args.clone();
    Some(d)
}

fn with_user(args: &Map<String, Value>, persona: &Option<(usize, String)>) -> Map<String, Value> {
    let mut a = args.clone();
    if let Some((_, name)) = persona {
        a.insert("user".into(), Value::String(name.clone()));
    }
    a
}

fn trim_url(u: &str) -> &str {
    u.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}', '"', '\''])
}

/// A persona named in the question, with the byte offset where its mention starts.
fn persona_name(text: &str) -> Option<(usize, String)> {
    for re in [&*PERSONA_NAME, &*POSSESSIVE_NAME, &*SHOULD_NAME_READ] {
        for c in re.captures_iter(text) {
            let name = c[1].trim_end_matches(['.', '-', '_']).to_string();
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
            let tail = format!(" {marker} {}", name.to_lowercase());
            if s.to_lowercase().ends_with(&tail) {
                s.truncate(s.len() - tail.len());
            }
        }
        s = tidy_subject(&s);
    }
    if s.is_empty() { None } else { Some(Subject { text: s, start: start.min(end), end }) }
}

/// Strip introducers from the front and fillers from the end, repeatedly.
fn tidy_subject(text: &str) -> String {
    let mut s = text.trim().trim_matches(|c: char| c.is_ascii_punctuation() && c != '-' && c != '.').trim().to_string();
    loop {
        let before = s.clone();
        let lower = s.to_lowercase();
        for p in SUBJECT_INTRODUCERS {
            if lower == *p {
                s.clear();
                break;
            }
            if lower.starts_with(&format!("{p} ")) {
                s = s[p.len()..].trim_start().to_string();
                break;
            }
        }
        let lower = s.to_lowercase();
        for p in SUBJECT_FILLERS {
            if lower == *p {
                s.clear();
                break;
            }
            if lower.ends_with(&format!(" {p}")) {
                s = s[..s.len() - p.len()].trim_end().to_string();
                break;
            }
        }
        s = s.trim_matches(|c: char| c == ',' || c == ';' || c == ':' || c.is_whitespace()).to_string();
        if s == before {
            return s.split_whitespace().collect::<Vec<_>>().join(" ");
        }
    }
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
/// "add X to my interests"), and whether it adds to the existing text.
fn interests_text(text: &str, q: &Question) -> Option<(String, bool)> {
    if let Some(c) = ADD_TO_INTERESTS.captures(text) {
        let t = c[1].trim().to_string();
        if !t.is_empty() {
            return Some((t, true));
        }
    }
    const LEADS: &[&str] = &[
        "interested in",
        "interests are",
        "interests to",
        "interests should be",
        "with interests",
        "interests",
        "i work on",
        "i now work on",
        "working on",
        "my research is on",
        "my research is about",
        "my field is",
        "who works on",
        "who follows",
        "who reads about",
        "focused on",
        "focusing on",
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
    let (i, len) = best?;
    let rest = q.rest_after(i + len - 1);
    let rest = rest.trim().trim_start_matches([':', '-', '=']).trim();
    let rest = strip_leading_words(rest, &["in", "on", "of", "to", "are", "is", "now", "be"]);
    let rest = rest.trim_start_matches([':', '-', '=', ' ']).trim_end_matches(['?', '!', '.', ' ']).trim();
    if rest.is_empty() { None } else { Some((rest.to_string(), q.has("also"))) }
}

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
        assert_eq!(d.options, ["runs.compare", "feed.search"]);
    }
}
