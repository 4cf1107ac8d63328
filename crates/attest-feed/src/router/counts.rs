//! How many and over how long: the `limit`, `days` and `offset` a question states, read
//! by general rules over its numbers rather than a list of phrasings.
//!
//! Number words become digits first (`text2num`: "ten", "twenty-five", "fifteen"), and
//! a few counting words that are not numbers ([`COUNTING_WORDS`]: "a dozen", "a couple
//! of"). Then every number is read by what stands next to it:
//!
//! - a **window** when a unit of time follows it ("3 days", "7d", "the past three
//!   weeks", "30-day"), or when it follows the name of the days argument
//!   ("--days 3", "days=3"); without a number, a named period ("this week",
//!   "fortnightly", "the past month", "since yesterday": [`PERIODS`]) is one. The first
//!   number with a unit wins over a named period ("the past three weeks rather than the
//!   usual fortnight");
//! - an **offset** after a word of skipping ("skip the first 20", "offset 20", "after
//!   the first 10");
//! - a **count** when a word of counting comes before it ("top 5", "at most 4", "only
//!   8", "limit=5", "suggest 8"), when a counted noun follows it within a few words
//!   ("ten items", "20 unread things", "3 new feeds", "5 of them"), or when it stands
//!   alone as a clause ("…, 10", "Three would do."). The last count said wins ("top
//!   five or so, actually make it three").
//!
//! A number followed by any other unit ("twenty minutes", "2h", "1am", "50%") or
//! naming something ("item 4043", "feed 12", "page 2", a year, a date) is none of these.

use std::sync::LazyLock;

use regex::Regex;
use text2num::{Language, replace_numbers_in_text};

/// What a question says about how many and over how long.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// How many to show.
    pub limit: Option<u64>,
    /// The window in days.
    pub days: Option<u64>,
    /// How many to skip.
    pub offset: Option<u64>,
}

/// Counting words that are not numbers, as the number they stand for.
const COUNTING_WORDS: &[(&str, &str)] = &[
    ("half a dozen", "6"),
    ("a dozen", "12"),
    ("a couple of", "2"),
    ("couple of", "2"),
    ("a couple", "2"),
    ("a pair of", "2"),
];

/// Units of time, as hours each (0: shorter than an hour). A window is whole days: a
/// number of a unit shorter than a day is never a count, and a window only from a day
/// on ("48 hours" is 2 days, "twenty minutes" none).
const TIME_UNITS: &[(&str, u64)] = &[
    ("d", 24),
    ("day", 24),
    ("days", 24),
    ("week", 168),
    ("weeks", 168),
    ("wk", 168),
    ("wks", 168),
    ("w", 168),
    ("fortnight", 336),
    ("fortnights", 336),
    ("month", 720),
    ("months", 720),
    ("mo", 720),
    ("year", 8760),
    ("years", 8760),
    ("h", 1),
    ("hr", 1),
    ("hrs", 1),
    ("hour", 1),
    ("hours", 1),
    ("min", 0),
    ("mins", 0),
    ("minute", 0),
    ("minutes", 0),
    ("s", 0),
    ("sec", 0),
    ("secs", 0),
    ("second", 0),
    ("seconds", 0),
];

/// Units that may be written glued to their number ("7d", "2h", "3wk"); a longer word
/// glued on is something else ("2day" is "today").
const GLUED_UNITS: &[&str] = &["d", "w", "wk", "wks", "h", "hr", "hrs", "min", "mins", "mo", "s"];

/// Words after a number that make it something other than a count: a time of day, a
/// share, an ordinal.
const NOT_COUNTS_AFTER: &[&str] =
    &["am", "pm", "percent", "st", "nd", "rd", "th", "x", "k", "m", "gb", "mb", "per", "each", "a", "an"];

/// Words before a number that make it a name, not a count ("item 4043", "page 2").
const NAMES_BEFORE: &[&str] = &["item", "items", "feed", "source", "id", "page", "no", "number", "version", "v"];

/// A named period, as days: the word, and the words one of which must come right
/// before it (empty: none needed).
const PERIODS: &[(&str, u64, &[&str])] = &[
    ("fortnight", 14, &[]),
    ("fortnightly", 14, &[]),
    ("fortnight's", 14, &[]),
    ("weekly", 7, &[]),
    ("week", 7, &["this", "past", "last", "previous", "the", "my", "a", "whole", "one", "that"]),
    ("week's", 7, &["this", "past", "last", "previous", "the", "my", "a", "that"]),
    ("monthly", 30, &[]),
    ("month", 30, &["this", "past", "last", "previous", "the", "my", "a", "whole", "one", "that"]),
    ("month's", 30, &["this", "past", "last", "previous", "the", "my", "a", "that"]),
    ("yesterday", 1, &["since"]),
];

/// The name of the window argument, followed by its value ("--days 3", "days=3").
const DAYS_NAMES: &[&str] = &["days", "day", "window"];

/// Words right before a number that make it a count ("top 5", "at most 4", "only 8").
const COUNT_LEADS: &[&str] = &[
    "top",
    "best",
    "first",
    "max",
    "maximum",
    "most",
    "than",
    "limit",
    "n",
    "k",
    "to",
    "only",
    "just",
    "show",
    "give",
    "gimme",
    "list",
    "say",
    "suggest",
    "recommend",
    "propose",
    "it",
    "me",
    "about",
    "around",
    "maybe",
    "perhaps",
    "roughly",
    "approximately",
    "some",
    "want",
    "need",
    "get",
    "pick",
    "return",
    "next",
];

/// Words right after a number that make it a count of what is shown ("the 3 most
/// relevant", "one more", "5 new").
const COUNT_AFTER: &[&str] = &["most", "best", "top", "latest", "newest", "more", "new", "unread", "fresh"];

/// Words before a count lead that take its number elsewhere: "skip the first 20" is an
/// offset, "the last 3 days" a window, "up to 2024" a year.
const SKIPS: &[&str] = &["skip", "skipping", "offset", "after", "past", "beyond", "from"];

/// Nouns a count counts ("ten items", "5 of them", "8 interest topics").
const COUNTED: &[&str] = &[
    "item",
    "items",
    "paper",
    "papers",
    "thing",
    "things",
    "topic",
    "topics",
    "group",
    "groups",
    "cluster",
    "clusters",
    "entry",
    "entries",
    "article",
    "articles",
    "post",
    "posts",
    "pick",
    "picks",
    "result",
    "results",
    "hit",
    "hits",
    "feed",
    "feeds",
    "source",
    "sources",
    "suggestion",
    "suggestions",
    "idea",
    "ideas",
    "recommendation",
    "recommendations",
    "listing",
    "listings",
    "interest",
    "interests",
    "theme",
    "themes",
    "category",
    "categories",
    "subject",
    "subjects",
    "ones",
    "reads",
    "preprints",
    "headlines",
    "titles",
    "subscription",
    "subscriptions",
];

/// How many words may stand between a count and the noun it counts ("20 unread
/// items", "8 interest topics", "3 more new feeds").
const COUNTED_REACH: usize = 3;

/// Largest count and window read (a larger number names something else).
const MAX_COUNT: u64 = 500;
const MAX_DAYS: u64 = 3650;

/// One piece of the question: a word, a number, or a clause boundary.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Word(String),
    Number(u64),
    /// A number glued to letters ("7d", "2h", "1am"): the number and the letters.
    Glued(u64, String),
    Boundary,
}

static PIECES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?P<glued>\d+)(?P<tail>[a-z]+)\b   # 7d, 2h, 1am, 3rd
        | (?P<num>\d+(?:\.\d+)?)           # 20, 0.5
        | (?P<word>[\p{L}][\p{L}'’]*)      # words
        | (?P<stop>[,;:!?()\[\]—–]|\.(?:\s|$)|\s-\s)   # clause boundaries
    ",
    )
    .expect("pieces pattern")
});

/// Dates, urls and identifiers with digits in them: never counts.
static NOT_NUMBERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b\d{4}-\d{2}(?:-\d{2})?\b|\b(?:https?|file)://\S+|#\d+|\b[\p{L}_]+[\d._-]*\d+[\p{L}\d._-]*")
        .expect("not-numbers pattern")
});

/// Read the counts a question states.
pub fn read(text: &str) -> Counts {
    let pieces = pieces(text);
    let mut counts = Counts::default();
    let mut used = vec![false; pieces.len()];
    // Windows: a number with a unit of time, or after the window's name.
    for (i, p) in pieces.iter().enumerate() {
        let (n, unit) = match p {
            Piece::Number(n) => (*n, word(&pieces, i + 1)),
            Piece::Glued(n, tail) if GLUED_UNITS.contains(&tail.as_str()) => (*n, Some(tail.as_str())),
            _ => continue,
        };
        let days = match unit.and_then(|u| TIME_UNITS.iter().find(|(w, _)| *w == u)) {
            Some((_, per)) if n * per < 24 => {
                used[i] = true;
                continue;
            }
            Some((_, per)) => Some((n * per).div_ceil(24)),
            None if word(&pieces, i.wrapping_sub(1)).is_some_and(|w| DAYS_NAMES.contains(&w)) => Some(n),
            None => None,
        };
        if let Some(d) = days {
            used[i] = true;
            if counts.days.is_none() && (1..=MAX_DAYS).contains(&d) {
                counts.days = Some(d);
            }
        }
    }
    if counts.days.is_none() {
        counts.days = pieces.iter().enumerate().find_map(|(i, p)| {
            let Piece::Word(w) = p else { return None };
            let (_, days, before) = PERIODS.iter().find(|(name, _, _)| name == w)?;
            (before.is_empty() || word(&pieces, i.wrapping_sub(1)).is_some_and(|b| before.contains(&b)))
                .then_some(*days)
        });
    }
    for (i, p) in pieces.iter().enumerate() {
        let n = match p {
            Piece::Number(n) if !used[i] => *n,
            Piece::Glued(..) => {
                used[i] = true;
                continue;
            }
            _ => continue,
        };
        let before = word(&pieces, i.wrapping_sub(1));
        let after = word(&pieces, i + 1);
        if before.is_some_and(|b| NAMES_BEFORE.contains(&b)) || after.is_some_and(|a| NOT_COUNTS_AFTER.contains(&a)) {
            continue;
        }
        // An offset: "skip the first 20", "offset=20", "after the first 10".
        let lead_words: Vec<&str> = (1..=3).map_while(|k| word(&pieces, i.wrapping_sub(k))).collect();
        if lead_words.first().is_some_and(|w| matches!(*w, "offset" | "skip" | "skipping"))
            || (lead_words.first() == Some(&"first") && lead_words.iter().skip(1).any(|w| SKIPS.contains(w)))
        {
            counts.offset = counts.offset.or(Some(n));
            continue;
        }
        let led = before.is_some_and(|b| COUNT_LEADS.contains(&b))
            && !lead_words.iter().skip(1).any(|w| SKIPS.contains(w))
            && !(before == Some("to") && lead_words.get(1) != Some(&"up"));
        // "ten items", "20 unread things", "5 of them".
        let counted = after.is_some_and(|a| a == "of" || COUNT_AFTER.contains(&a))
            || (1..=COUNTED_REACH + 1).map_while(|k| word(&pieces, i + k)).any(|w| COUNTED.contains(&w));
        let alone = matches!(pieces.get(i.wrapping_sub(1)), None | Some(Piece::Boundary))
            && matches!(pieces.get(i + 1), None | Some(Piece::Boundary | Piece::Word(_)));
        if (led || counted || alone) && (1..=MAX_COUNT).contains(&n) {
            counts.limit = Some(n);
        }
    }
    counts
}

/// Words a clause that only says how many may hold besides its number ("max 10",
/// "8 results", "just three please").
const COUNT_CLAUSE_WORDS: &[&str] =
    &["please", "pls", "only", "and", "or", "so", "at", "up", "no", "more", "less", "them", "these", "those"];

/// `text` without its trailing clauses that only say how many ("test-time compute
/// scaling, 8 results" → "test-time compute scaling"), and the count they said.
pub fn without_count_clauses(text: &str) -> (&str, Option<u64>) {
    let mut rest = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | '!' | '?'));
    let mut limit = None;
    while let Some(cut) = rest.rfind([',', ';', ':']) {
        let clause = &rest[cut + 1..];
        let pieces = pieces(clause);
        let only_counts = !pieces.is_empty()
            && pieces.iter().all(|p| match p {
                Piece::Number(_) | Piece::Boundary => true,
                Piece::Word(w) => {
                    COUNT_LEADS.contains(&w.as_str())
                        || COUNTED.contains(&w.as_str())
                        || COUNT_CLAUSE_WORDS.contains(&w.as_str())
                }
                Piece::Glued(..) => false,
            });
        if !only_counts {
            break;
        }
        limit = limit.or(read(clause).limit);
        rest = rest[..cut].trim_end();
    }
    (rest, limit)
}

/// The word at `i`, if that piece is a word.
fn word(pieces: &[Piece], i: usize) -> Option<&str> {
    match pieces.get(i) {
        Some(Piece::Word(w)) => Some(w.as_str()),
        _ => None,
    }
}

/// The question as pieces: number words as digits, dates and identifiers blanked.
fn pieces(text: &str) -> Vec<Piece> {
    static EN: LazyLock<Language> = LazyLock::new(Language::english);
    let mut lower = text.to_lowercase();
    for (words, n) in COUNTING_WORDS {
        let re = Regex::new(&format!(r"\b{words}\b")).expect("counting word");
        lower = re.replace_all(&lower, *n).into_owned();
    }
    let blanked = NOT_NUMBERS.replace_all(&lower, " _ ");
    let digits = replace_numbers_in_text(&blanked, &*EN, 0.0);
    PIECES
        .captures_iter(&digits)
        .filter_map(|c| {
            if let (Some(n), Some(t)) = (c.name("glued"), c.name("tail")) {
                // "first" comes back from the number words as "1st": a word again.
                if n.as_str() == "1" && t.as_str() == "st" {
                    return Some(Piece::Word("first".into()));
                }
                return n.as_str().parse().ok().map(|n| Piece::Glued(n, t.as_str().to_string()));
            }
            if let Some(n) = c.name("num") {
                // A decimal is a measure, never a count: kept as a boundary-free word.
                return Some(n.as_str().parse().map_or_else(|_| Piece::Word(n.as_str().into()), Piece::Number));
            }
            if let Some(w) = c.name("word") {
                return Some(Piece::Word(w.as_str().replace('’', "'")));
            }
            c.name("stop").map(|_| Piece::Boundary)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each form: the question, then `limit`, `days` and `offset` as read.
    type Case = (&'static str, Option<u64>, Option<u64>, Option<u64>);
    const CASES: &[Case] = &[
        ("top 5 for lukas, last 3 days only", Some(5), Some(3), None),
        ("the past three weeks rather than the usual fortnight", None, Some(21), None),
        ("digest 7d", None, Some(7), None),
        ("a 30-day window, 8 topics", Some(8), Some(30), None),
        ("what's new in the past 48 hours", None, Some(2), None),
        ("since yesterday, a dozen items", Some(12), Some(1), None),
        ("this week, no more than five topics", Some(5), Some(7), None),
        ("fortnightly roundup", None, Some(14), None),
        ("papers from the last couple of days", None, Some(2), None),
        ("feed list --user maya --days 3 --limit=4", Some(4), Some(3), None),
        ("top five or so, actually make it three", Some(3), None, None),
        ("Show the best unread papers from the last 30 days, ten of them.", Some(10), Some(30), None),
        ("feeds to add? 3", Some(3), None, None),
        ("Three would do.", Some(3), None, None),
        ("recommend me 3 more feeds", Some(3), None, None),
        ("the 3 most relevant", Some(3), None, None),
        ("Search for 'Kondo effect', 20 hits, skip the first 20.", Some(20), None, Some(20)),
        ("next results after the first 10 for rlhf", None, None, Some(10)),
        // Not counts: a duration under a day, a time of day, an item, a date, a year,
        // a rate, a word glued to a number.
        ("I have twenty minutes before group meeting", None, None, None),
        ("on a train for 2h at 9am", None, None, None),
        ("read item 4043 and feed 12", None, None, None),
        ("anything since 2025-03-01 or in 2024?", None, None, None),
        ("5 per topic", None, None, None),
        ("wat should i read 2day", None, None, None),
    ];

    #[test]
    fn every_form_reads_its_counts() {
        for (q, limit, days, offset) in CASES {
            assert_eq!(read(q), Counts { limit: *limit, days: *days, offset: *offset }, "{q}");
        }
    }

    #[test]
    fn count_clauses_leave_the_subject() {
        for (text, rest, limit) in [
            ("test-time compute scaling, 8 results", "test-time compute scaling", Some(8)),
            ("state space models, only, 10", "state space models", Some(10)),
            ("mixture-of-depths, max 10.", "mixture-of-depths", Some(10)),
            ("graph rewiring", "graph rewiring", None),
            ("proteins, folding and design", "proteins, folding and design", None),
        ] {
            assert_eq!(without_count_clauses(text), (rest, limit), "{text}");
        }
    }

    #[test]
    fn pieces_read_number_words_and_blank_names() {
        let p = pieces("top five, from 2025-03-01, item #12");
        assert_eq!(p[0], Piece::Word("top".into()));
        assert_eq!(p[1], Piece::Number(5));
        assert_eq!(p[2], Piece::Boundary);
        assert!(!p.contains(&Piece::Number(2025)) && !p.contains(&Piece::Number(12)), "{p:?}");
    }
}
