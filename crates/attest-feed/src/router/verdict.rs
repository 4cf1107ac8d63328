//! A reply's verdict on an item, read by a general rule rather than a list of replies:
//! words that carry a polarity ("useful", "off topic", "my area", "more like this"),
//! each flipped by a negation a few words before it ("not", "isn't", "hardly", "no
//! more …"). The reply is a verdict when the polar words it holds agree; a reply that
//! hedges ("not sure", "maybe") or mixes a positive and a negative ("good find but not
//! my area") has none, and is asked back.
//!
//! Strong terms count anywhere in a reply. Weak terms ("good", "great", "meh", "nah",
//! "pass") are verdicts only in a short reply (up to [`SHORT`] words) or right before a
//! word naming what is judged ("good find", "great paper"), and never in a question:
//! "what's a good summary of this?" is not a verdict. Verbs of liking count with their object ("love it", "I like
//! this") or in the past tense ("liked", "enjoyed"), never as a comparison ("papers like
//! this").

use attest_core::route::Question;

/// A reply of at most this many words may be a verdict by a weak word alone.
pub const SHORT: usize = 6;

/// How many words after a negation it still flips a polar term ("not really all that
/// useful").
const NEGATION_REACH: usize = 4;

/// What a reply says about an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// No polar word at all.
    None,
    /// Polar words that agree: useful (`true`) or not (`false`).
    Useful(bool),
    /// A hedge, or polar words that disagree.
    Unclear,
}

impl Verdict {
    /// The verdict, when the reply gives one.
    pub fn useful(self) -> Option<bool> {
        match self {
            Verdict::Useful(u) => Some(u),
            _ => None,
        }
    }

    /// Whether the reply holds any polar word (agreeing or not) or a hedge.
    pub fn is_some(self) -> bool {
        !matches!(self, Verdict::None)
    }
}

/// Positive words and phrases that count anywhere.
const STRONG_POSITIVE: &[&str] = &[
    "useful",
    "very useful",
    "helpful",
    "handy",
    "relevant",
    "on topic",
    "spot on",
    "on point",
    "thumbs up",
    "upvote",
    "upvoted",
    "worth reading",
    "worth a read",
    "worth it",
    "worthwhile",
    "must read",
    "a keeper",
    "keeper",
    "gem",
    "valuable",
    "insightful",
    "liked",
    "loved",
    "enjoyed",
    "appreciated",
    "interested",
    // The reader's own ground, negated by "not" ("not my area") or named as outside it.
    "my area",
    "my field",
    "my subfield",
    "my topic",
    "my thing",
    "my kind of thing",
    "my cup of tea",
    "my alley",
    "up my alley",
    "my wheelhouse",
];

/// Negative words and phrases that count anywhere.
const STRONG_NEGATIVE: &[&str] = &[
    "useless",
    "unhelpful",
    "irrelevant",
    "off topic",
    "off-topic",
    "thumbs down",
    "downvote",
    "downvoted",
    "disliked",
    "hated",
    "skip",
    "skipped",
    "boring",
    "old news",
    "already knew",
    "waste of time",
    "a waste",
    "not for me",
    "wrong field",
    "wrong area",
    "wrong subfield",
    "wrong topic",
    "outside my area",
    "outside my field",
    "outside my interests",
    "out of scope",
    "off my radar",
    "uninteresting",
    "spam",
    "noise",
    "clickbait",
];

/// Weak positive words: verdicts in a short reply or before a word naming what is judged.
const WEAK_POSITIVE: &[&str] = &[
    "good",
    "great",
    "nice",
    "excellent",
    "cool",
    "neat",
    "awesome",
    "interesting",
    "fascinating",
    "solid",
    "perfect",
    "brilliant",
    "love",
    "keep",
    "yes please",
];

/// Weak negative words (as [`WEAK_POSITIVE`]).
const WEAK_NEGATIVE: &[&str] =
    &["bad", "poor", "meh", "nah", "nope", "pass", "dull", "weak", "terrible", "no thanks", "hide"];

/// Words naming what is judged, which make a weak word before them a verdict.
const JUDGED: &[&str] = &[
    "find",
    "pick",
    "one",
    "paper",
    "papers",
    "read",
    "article",
    "post",
    "item",
    "stuff",
    "work",
    "catch",
    "suggestion",
    "recommendation",
    "match",
];

/// Verbs of liking, a verdict with their object after them ("love it", "like this one").
const LIKING: &[(&str, bool)] = &[("like", true), ("love", true), ("enjoy", true), ("dislike", false), ("hate", false)];

/// What a verb of liking is about.
const LIKED_OBJECT: &[&str] = &["it", "this", "that", "these", "those", "them"];

/// More or fewer items of this kind ("more like this", "fewer of these").
const MORE: &[(&str, bool)] = &[("more", true), ("less", false), ("fewer", false)];
const KIND: &[&str] = &["like", "of"];

/// Words that flip the polar term after them.
const NEGATORS: &[&str] = &[
    "not", "no", "never", "hardly", "barely", "isn't", "isnt", "wasn't", "wasnt", "aren't", "arent", "weren't",
    "don't", "dont", "doesn't", "doesnt", "didn't", "didnt", "won't", "wont", "ain't", "can't", "cant", "couldn't",
    "wouldn't", "without", "nothing", "neither", "nor",
];

/// Hedges: a reply that says it is unsure gives no verdict.
const HEDGES: &[&str] = &[
    "not sure",
    "unsure",
    "maybe",
    "perhaps",
    "kind of",
    "kinda",
    "sort of",
    "sorta",
    "somewhat",
    "don't know",
    "dont know",
    "dunno",
    "not certain",
    "hard to say",
    "mixed",
    "undecided",
];

/// Whether `phrase` (words separated by spaces) occurs at word `i`; its length in words.
fn at(q: &Question, i: usize, phrase: &str) -> Option<usize> {
    let pat: Vec<&str> = phrase.split_whitespace().collect();
    let ok = pat.iter().enumerate().all(|(j, p)| q.words.get(i + j).is_some_and(|w| w.text == *p));
    ok.then_some(pat.len())
}

/// The longest phrase of `list` at word `i`, with its length.
fn longest<'p>(q: &Question, i: usize, list: &[&'p str]) -> Option<(&'p str, usize)> {
    list.iter().filter_map(|p| at(q, i, p).map(|n| (*p, n))).max_by_key(|(_, n)| *n)
}

/// The polar term starting at word `i`: its polarity and length in words.
fn polar_at(q: &Question, i: usize, short: bool) -> Option<(bool, usize)> {
    let w = |k: usize| q.words.get(k).map(|w| w.text.as_str());
    // "more like this", "fewer of these".
    for (word, polarity) in MORE {
        if w(i) == Some(word)
            && w(i + 1).is_some_and(|k| KIND.contains(&k))
            && w(i + 2).is_some_and(|o| LIKED_OBJECT.contains(&o))
        {
            return Some((*polarity, 3));
        }
    }
    // "love it", "I like this": not "papers like this".
    for (verb, polarity) in LIKING {
        if w(i) == Some(verb)
            && w(i + 1).is_some_and(|o| LIKED_OBJECT.contains(&o))
            && (i == 0 || w(i - 1).is_some_and(|p| LIKER.contains(&p)))
        {
            return Some((*polarity, 2));
        }
    }
    let strong = [(longest(q, i, STRONG_POSITIVE), true), (longest(q, i, STRONG_NEGATIVE), false)];
    if let Some((n, polarity)) = strong.iter().filter_map(|(m, p)| m.map(|(_, n)| (n, *p))).max_by_key(|(n, _)| *n) {
        return Some((polarity, n));
    }
    for (list, polarity) in [(WEAK_POSITIVE, true), (WEAK_NEGATIVE, false)] {
        if let Some((_, n)) = longest(q, i, list)
            && (short || w(i + n).is_some_and(|j| JUDGED.contains(&j)))
        {
            return Some((polarity, n));
        }
    }
    None
}

/// Question words: a reply opening with one asks, it does not judge.
const ASKING: &[&str] = &[
    "what", "what's", "whats", "which", "who", "how", "where", "when", "why", "is", "are", "does", "do", "can",
    "could", "would", "should",
];

/// Words before a verb of liking that keep it a verdict ("I really like this").
const LIKER: &[&str] = &[
    "i",
    "we",
    "really",
    "do",
    "don't",
    "dont",
    "didn't",
    "didnt",
    "not",
    "quite",
    "actually",
    "definitely",
    "totally",
    "so",
    "would",
    "i'd",
    "i'll",
    "just",
    "also",
    "genuinely",
    "honestly",
    "absolutely",
];

/// The verdict a reply gives (see the module's documentation).
pub fn read(q: &Question) -> Verdict {
    // A short reply, not asked as a question ("what's a good summary of this?").
    let asked = q.raw.contains('?') || q.words.first().is_some_and(|w| ASKING.contains(&w.text.as_str()));
    let short = q.words.len() <= SHORT && !asked;
    let mut votes: Vec<bool> = Vec::new();
    let mut negated_until: Option<usize> = None;
    let mut i = 0;
    while i < q.words.len() {
        if longest(q, i, HEDGES).is_some() {
            return Verdict::Unclear;
        }
        // A polar phrase that starts with a negation ("not for me") wins over the
        // negation alone.
        if let Some((polarity, n)) = polar_at(q, i, short) {
            let flipped = negated_until.is_some_and(|end| i < end);
            votes.push(polarity != flipped);
            negated_until = None;
            i += n;
            continue;
        }
        if longest(q, i, NEGATORS).is_some() {
            negated_until = Some(i + 1 + NEGATION_REACH);
        }
        i += 1;
    }
    match (votes.iter().any(|v| *v), votes.iter().any(|v| !*v)) {
        (false, false) => Verdict::None,
        (true, false) => Verdict::Useful(true),
        (false, true) => Verdict::Useful(false),
        (true, true) => Verdict::Unclear,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Verdict {
        read(&Question::new(s))
    }

    #[test]
    fn negation_flips_the_term_after_it() {
        assert_eq!(v("not bad at all"), Verdict::Useful(true));
        assert_eq!(v("I don't think this is relevant"), Verdict::Useful(false));
        assert_eq!(v("no more of these please"), Verdict::Useful(false));
        assert_eq!(v("good find but not my area"), Verdict::Unclear);
        assert_eq!(v("papers like this one on batteries"), Verdict::None);
        assert_eq!(v("what's a good summary of this paper and its methods?"), Verdict::None);
    }
}
