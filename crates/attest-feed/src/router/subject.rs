//! What a question is about once the asking is taken away: the subject of a search or
//! of a literature search, read as "what is left" of the sentence.
//!
//! The rules of the router place a subject after a search lead ("papers on …", "find
//! …"). A question the learned model routes without such a lead ("did anything come thru
//! on diffusion policies?", "knowledge distillation papers from 2023") still states
//! its subject: it is what is left once these are taken out, in this order:
//!
//! - **where**: the archive, the feeds, the subscriptions named as a place ("in my
//!   feeds", "through one of our subscriptions", "in what we already collect",
//!   "outside my feeds", "(not my archive)") and arrival verbs ("has come in",
//!   "turned up");
//! - **clauses**: the text is split at clause boundaries (`?`, `!`, `;`, `:`, a full
//!   stop, a comma, a dash); a clause whose asking ends in a word that introduces a
//!   subject ("about", "on", "regarding", "re", "mentioning") is preferred;
//! - **asking and function words** at either end of the clause ([`OPENING`],
//!   [`CLOSING`]: politeness, question words, search verbs, "papers", "items",
//!   "results", "please", "again"), repeatedly.
//!
//! The stated options (dates, years, tags, kinds, pages, counts) are taken out before,
//! by the caller. What is left must hold a word that is not a pronoun: "search for it",
//! "anything on that?" have no subject and get none.

use std::sync::LazyLock;

use regex::Regex;

/// Places that are the archive itself, not the subject ("in my feeds", "through one of
/// our subscriptions", "in what we already collect", "outside my feeds").
static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \(?\b(?:not|outside(?:\s+of)?|beyond|not\s+only|not\s+limited\s+to|that\s+(?:aren['’]t|are\s+not|isn['’]t|is\s+not)\s+(?:already\s+)?in)
            \s+(?:in\s+)?(?:my|our|the|their|your|what\s+(?:i|we|they)\s+subscribe\s+to)
            (?:\s+(?:own\s+)?(?:archive|archives|feeds?|subscriptions?|library|collection))?\b\)?
        | \b(?:in|from|through|thru|among|across|into|within|out\s+of|on)\s+
            (?:(?:one|any|some|all|each)\s+of\s+)?(?:my|our|the|their|your|his|her|\p{L}+['’]s)\s+
            (?:own\s+)?(?:archive|archives|feeds?|subscriptions?|library|collection|inbox|reading\s+list|reading)\b
        | \b(?:in|among|from|of)\s+(?:what|everything|all\s+that|the\s+things?)\s+(?:(?:i|we|they|you)\s*(?:['’]ve|\s+have|\s+had)?)\s*
            (?:already\s+)?(?:get|got|collect|collected|gathered|read|saved|stored|have|subscribe\s+to)\b
        | \b(?:has|have|had)?\s*(?:come|came|coming|turned|shown|showed|landed|arrived)\s+(?:in|into|through|thru|up)\b
            (?:\s+(?:(?:one|any|some|all|each)\s+of\s+)?(?:my|our|the|their|your)\s+(?:archive|archives|feeds?|subscriptions?|library|collection))?
        ",
    )
    .expect("place pattern")
});

/// Clause boundaries: a question or exclamation mark, a semicolon or colon, a full stop
/// or a comma before a space, a dash between spaces, an ellipsis.
static CLAUSE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[?!;:]|\.(?:\s|$)|,\s|\s[—–-]\s|—|…|\.\.\.").expect("clause pattern"));

/// Words after which the subject follows, inside a clause.
const INTRODUCERS: &[&str] = &["about", "on", "regarding", "concerning", "re", "mentioning", "covering"];

/// Words that open a clause without being its subject: politeness, question words,
/// verbs of searching and reading, nouns for what is searched, function words.
pub(crate) const OPENING: &[&str] = &[
    "please",
    "pls",
    "plz",
    "kindly",
    "could",
    "can",
    "would",
    "will",
    "you",
    "u",
    "mind",
    "i",
    "i'd",
    "i'm",
    "i've",
    "we",
    "we'd",
    "we're",
    "we've",
    "me",
    "my",
    "our",
    "us",
    "the",
    "a",
    "an",
    "any",
    "some",
    "anything",
    "something",
    "everything",
    "whatever",
    "all",
    "stuff",
    "things",
    "thing",
    "items",
    "item",
    "papers",
    "paper",
    "articles",
    "article",
    "work",
    "research",
    "new",
    "recent",
    "recently",
    "latest",
    "more",
    "is",
    "are",
    "was",
    "were",
    "there",
    "there's",
    "has",
    "have",
    "had",
    "been",
    "be",
    "did",
    "do",
    "does",
    "what",
    "what's",
    "whats",
    "which",
    "anybody",
    "anyone",
    "somebody",
    "someone",
    "tell",
    "show",
    "give",
    "find",
    "search",
    "searching",
    "searh",
    "serch",
    "look",
    "looking",
    "dig",
    "up",
    "out",
    "grep",
    "rummage",
    "through",
    "thru",
    "in",
    "on",
    "about",
    "regarding",
    "concerning",
    "re",
    "for",
    "of",
    "into",
    "around",
    "to",
    "from",
    "with",
    "mentioning",
    "come",
    "came",
    "turned",
    "collected",
    "feeds",
    "feed",
    "archive",
    "archives",
    "library",
    "subscriptions",
    "know",
    "wonder",
    "wondering",
    "whether",
    "if",
    "like",
    "want",
    "wants",
    "need",
    "needs",
    "hoping",
    "user",
    "asks",
    "asking",
    "query",
    "results",
    "result",
    "hits",
    "page",
    "next",
    "batch",
    "skip",
    "first",
    "and",
    "but",
    "also",
    "just",
    "only",
    "again",
    "now",
    "then",
    "get",
    "got",
    "see",
    "seen",
    "saw",
    "read",
    "ever",
    "remember",
    "bring",
    "brought",
    "ingest",
    "last",
    "write",
    "wrote",
    "written",
    "published",
    "literature",
    "web",
    "online",
    "internet",
    "go",
    "papers",
    "fetch",
    "pull",
    "list",
    "ok",
    "okay",
    "so",
    "hey",
    "hi",
    "um",
    "uh",
    "hmm",
    "sorry",
    "or",
    "let's",
    "lets",
    "that's",
    "it's",
    "here",
    "where",
    "whose",
    "directly",
    "wider",
    "their",
    "his",
    "her",
    "your",
    "that",
    "nothing",
    "handful",
    "few",
    "studies",
    "aren't",
    "isn't",
    "not",
    "way",
    "smth",
    "mention",
    "mentions",
    "carry",
    "carried",
    "archived",
    "offset",
    "limit",
    "have",
    "collect",
    "gathered",
    "bits",
    "one",
];

/// Words that close a clause without being its subject.
pub(crate) const CLOSING: &[&str] = &[
    "please",
    "pls",
    "plz",
    "now",
    "again",
    "lately",
    "recently",
    "today",
    "yet",
    "results",
    "result",
    "hits",
    "papers",
    "paper",
    "items",
    "stuff",
    "articles",
    "posts",
    "come",
    "came",
    "through",
    "thru",
    "in",
    "has",
    "have",
    "had",
    "been",
    "up",
    "turned",
    "arrived",
    "is",
    "are",
    "was",
    "were",
    "anywhere",
    "there",
    "here",
    "only",
    "first",
    "thanks",
    "cheers",
    "ago",
    "months",
    "weeks",
    "years",
    "back",
    "while",
    "a",
    "the",
    "i",
    "read",
    "saw",
    "too",
    "also",
    "then",
    "somewhere",
    "any",
    "at",
    "all",
    "online",
    "on",
    "of",
    "for",
    "to",
    "and",
    "or",
    "but",
    "with",
    "from",
    "by",
    "that",
    "which",
    "sometime",
    "anything",
    "something",
    "search",
    "find",
    "aren't",
    "isn't",
    "can",
    "you",
    "u",
    "dig",
    "it",
    "out",
    "up",
];

/// Month names, which make a clause a date.
const MONTHS: &[&str] = &[
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
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
];

/// Words that stand for a subject said elsewhere: alone they are none.
const PRONOUNS: &[&str] = &[
    "it",
    "that",
    "this",
    "them",
    "those",
    "these",
    "they",
    "one",
    "ones",
    "him",
    "her",
    "there",
    "here",
    "so",
    "what",
    "which",
    "stuff",
    "things",
    "something",
    "anything",
    "everything",
];

/// Whether `text` refers to a subject said elsewhere ("search for it", "more on that").
pub fn refers(text: &str) -> bool {
    text.split_whitespace().any(|w| REFERRING.contains(&norm(w).as_str()))
}

/// Pronouns that refer back, so what is left elsewhere in the sentence is not read.
const REFERRING: &[&str] = &["it", "that", "this", "them", "those", "these", "they", "one", "ones"];

/// The first phrase `text` puts in quotes (straight or curly, single or double), as
/// written; an apostrophe inside a word ("it's") opens none.
pub fn quoted(text: &str) -> Option<String> {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:^|[\s(])["“‘']([^"“”‘’']{2,120}?)["”’'](?:$|[\s,.;:?!)])"#).expect("quoted pattern")
    });
    QUOTED.captures(text).map(|c| c[1].trim().to_string()).filter(|s| trimmed(s).0.is_some())
}

/// `text` without the places that are the archive itself and the verbs of arrival.
pub fn without_places(text: &str) -> String {
    PLACE.replace_all(text, " ").into_owned()
}

/// The subject of `text` ("what is left"), or `None` when nothing but asking, places,
/// function words or a pronoun is left. A clause whose asking ends in a word that
/// introduces a subject ("… anything about X", "did anything come thru on X") is
/// preferred to the first clause that says something.
pub fn leftover(text: &str) -> Option<String> {
    let text = without_places(text);
    let clauses: Vec<(Option<String>, bool)> = CLAUSE.split(&text).map(trimmed).collect();
    let introduced = clauses.iter().find(|(s, i)| s.is_some() && *i);
    introduced.or_else(|| clauses.iter().find(|(s, _)| s.is_some())).and_then(|(s, _)| s.clone())
}

/// Tidy a subject already placed (after a search lead): places out, the first clause
/// that says something, asking words off either end. `None` when nothing is left.
pub fn tidy(subject: &str) -> Option<String> {
    let text = without_places(subject);
    CLAUSE.split(&text).find_map(|c| trimmed(c).0)
}

/// A word as compared: lower case, without surrounding punctuation.
fn norm(w: &str) -> String {
    w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-'))
        .trim_matches(['\'', '’', '-'])
        .replace('’', "'")
        .to_lowercase()
}

/// A clause with its asking words stripped from either end (`None` when nothing, or
/// only a pronoun, is left), and whether the asking ended in an introducer ("about").
fn trimmed(clause: &str) -> (Option<String>, bool) {
    let words: Vec<&str> = clause.split_whitespace().collect();
    let mut start = 0;
    let mut end = words.len();
    let mut introduced = false;
    while start < end && (OPENING.contains(&norm(words[start]).as_str()) || is_number(words[start])) {
        introduced = INTRODUCERS.contains(&norm(words[start]).as_str());
        start += 1;
    }
    while end > start && (CLOSING.contains(&norm(words[end - 1]).as_str()) || norm(words[end - 1]).is_empty()) {
        end -= 1;
    }
    let kept = &words[start..end];
    if kept.iter().all(|w| PRONOUNS.contains(&norm(w).as_str()) || norm(w).is_empty()) {
        return (None, false);
    }
    // A clause that only says when ("since the first of March 2025") is a filter.
    let when = kept
        .first()
        .is_some_and(|w| matches!(norm(w).as_str(), "since" | "before" | "after" | "until" | "till" | "between"))
        && kept
            .iter()
            .any(|w| MONTHS.contains(&norm(w).as_str()) || norm(w).chars().filter(char::is_ascii_digit).count() == 4);
    if when {
        return (None, false);
    }
    let s = kept.join(" ");
    let s = s.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '.' | '?' | '!' | '\'' | '"' | '`' | '‘' | '’'));
    let s = s.trim();
    ((!s.is_empty()).then(|| s.to_string()), introduced)
}

fn is_number(w: &str) -> bool {
    let w = w.trim_matches(|c: char| !c.is_alphanumeric());
    !w.is_empty() && w.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_is_what_is_left() {
        let cases = [
            (
                "did anything come thru on diffusion policies for robot manipulation",
                "diffusion policies for robot manipulation",
            ),
            ("knowledge distillation papers", "knowledge distillation"),
            ("what did the last ingest bring on monetary policy shocks? search everything", "monetary policy shocks"),
            ("I need papers outside what we subscribe to — anything or about sea ice albedo", "sea ice albedo"),
            ("next page pls — offset 20, query diffusion distillation", "diffusion distillation"),
            ("did anybody in my feeds write on causal forests? economics side", "causal forests"),
            ("has anything about ice sheet dynamics turned up in what we already collect?", "ice sheet dynamics"),
            ("the archive for contrastive learning", "contrastive learning"),
            ("bird migration has come into the archive", "bird migration"),
        ];
        for (q, want) in cases {
            assert_eq!(leftover(q).as_deref(), Some(want), "{q}");
        }
    }

    #[test]
    fn a_pronoun_or_nothing_is_no_subject() {
        for q in [
            "search for it",
            "anything on that?",
            "find them in my feeds",
            "search please",
            "what's new?",
            "look for those again",
        ] {
            assert_eq!(leftover(q), None, "{q}");
        }
    }

    #[test]
    fn a_quoted_phrase_is_read_as_written() {
        assert_eq!(
            quoted("my colleague keeps on about 'ice sheet dynamics' and I").as_deref(),
            Some("ice sheet dynamics")
        );
        assert_eq!(quoted("about “lake ice phenology”, anything?").as_deref(), Some("lake ice phenology"));
        assert_eq!(quoted("it's what I'd like"), None);
    }

    #[test]
    fn a_placed_subject_loses_its_places_and_asides() {
        assert_eq!(tidy("the archive for speculative decoding").as_deref(), Some("speculative decoding"));
        assert_eq!(tidy("grid cells in my feeds, newest first").as_deref(), Some("grid cells"));
        assert_eq!(tidy("protein design outside my subscriptions").as_deref(), Some("protein design"));
        assert_eq!(tidy("it").as_deref(), None);
    }
}
