//! The scored step of the `<ns>.ask` pipeline: weighted evidence over normalised words.
//!
//! A surface's precise rules ([`crate::ask::Rule`]) claim the questions they were
//! written for. What they leave, an ordinary paraphrase ("pull the fresh outputs into
//! my ledger", "what sits beside transformers"), is scored here: every [`Cue`] of the
//! surface whose terms occur adds its weight to its tool, and the best tool wins only
//! when it reaches the surface's minimum and beats the runner-up by its margin. Below
//! that, the question is asked back offering the tools that had evidence.
//!
//! Words are normalised once ([`Lemmas`]): lower-cased, British spellings and
//! synonyms mapped to one word ([`SYNONYMS`], data), then stemmed (Snowball English),
//! so "summarise", "summarized" and "summary" are one term, and "neighbours",
//! "neighbouring" and "neighbors" another. Cue terms are normalised the same way, so a
//! table is written in plain words.
//!
//! A tool that writes (records, scans, subscribes, deletes, resets, saves) is never
//! chosen by score alone: [`Write`] lists, per write tool, the imperative verbs that
//! must open the question (after a polite "please", "can you", …).
//!
//! Pure and deterministic: no model, no clock, no database; ties are broken by asking
//! back, never by table order.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::route::Question;

/// One piece of evidence: any of `terms` (a word or consecutive words, normalised like
/// the question) occurring adds `weight` to `tool`. A term ending in `*` matches any
/// lemma it begins. A negative weight is evidence against.
#[derive(Debug, Clone, Copy)]
pub struct Cue {
    /// The tool the evidence is for.
    pub tool: &'static str,
    /// How much it counts.
    pub weight: i32,
    /// The words or phrases, any of which is the evidence (counted once per cue).
    pub terms: &'static [&'static str],
}

/// Shorthand for a [`Cue`] in a table.
pub const fn cue(tool: &'static str, weight: i32, terms: &'static [&'static str]) -> Cue {
    Cue { tool, weight, terms }
}

/// A tool that writes, and the imperative verbs (plain words) one of which must open
/// the question for the score to choose it.
#[derive(Debug, Clone, Copy)]
pub struct Write {
    /// The writing tool.
    pub tool: &'static str,
    /// Verbs that ask for the write.
    pub verbs: &'static [&'static str],
}

/// A surface's scoring data.
#[derive(Debug, Clone, Copy)]
pub struct Scoring {
    /// The evidence.
    pub cues: &'static [Cue],
    /// The tools that write, and how a question must ask for them.
    pub writes: &'static [Write],
    /// The least score that may route.
    pub min: i32,
    /// How far the best must be ahead of the runner-up.
    pub margin: i32,
}

impl Scoring {
    /// No scoring at all: the rules alone decide.
    pub const NONE: Scoring = Scoring { cues: &[], writes: &[], min: i32::MAX, margin: 0 };
}

/// What scoring found: each tool's score and the evidence, best first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scored {
    /// `(tool, score, the terms that counted)`, best first, ties in table order.
    pub ranked: Vec<(&'static str, i32, Vec<&'static str>)>,
}

impl Scored {
    /// The winner, when it reaches `min` and leads the runner-up by `margin`.
    pub fn winner(&self, min: i32, margin: i32) -> Option<&(&'static str, i32, Vec<&'static str>)> {
        let best = self.ranked.first().filter(|b| b.1 >= min)?;
        let second = self.ranked.get(1).map_or(0, |s| s.1.max(0));
        (best.1 - second >= margin).then_some(best)
    }

    /// Tools with positive evidence, best first.
    pub fn candidates(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.ranked.iter().filter(|r| r.1 > 0).map(|r| r.0)
    }
}

/// Words mapped to one word before stemming: British spellings, synonyms and
/// inflections the stemmer does not join. Written once, for every surface.
pub const SYNONYMS: &[(&str, &str)] = &[
    // British and American spellings.
    ("summarise", "summarize"),
    ("summarised", "summarize"),
    ("summarising", "summarize"),
    ("summary", "summarize"),
    ("summaries", "summarize"),
    ("neighbour", "neighbor"),
    ("neighbours", "neighbor"),
    ("neighbouring", "neighbor"),
    ("neighbourhood", "neighbor"),
    ("neighborhood", "neighbor"),
    ("neighboring", "neighbor"),
    ("factorise", "factor"),
    ("factorize", "factor"),
    ("factorised", "factor"),
    ("factorized", "factor"),
    ("factorisation", "factor"),
    ("factorization", "factor"),
    ("synchronise", "sync"),
    ("synchronize", "sync"),
    ("synchronised", "sync"),
    ("synchronized", "sync"),
    ("personalised", "personalize"),
    ("personalized", "personalize"),
    ("optimise", "optimize"),
    ("maximise", "maximize"),
    ("minimise", "minimize"),
    ("maximises", "maximize"),
    ("minimises", "minimize"),
    ("analyse", "analyze"),
    ("favourite", "favorite"),
    ("favourites", "favorite"),
    ("catalogue", "catalog"),
    ("organise", "organize"),
    ("recognise", "recognize"),
    ("normalise", "normalize"),
    // Irregular forms.
    ("won", "win"),
    ("winner", "win"),
    ("winning", "win"),
    ("best", "best"),
    ("better", "best"),
    ("ran", "run"),
    ("wrote", "write"),
    ("written", "write"),
    ("read", "read"),
    ("saw", "see"),
    ("seen", "see"),
    ("came", "come"),
    ("fed", "feed"),
    ("beaten", "beat"),
    ("children", "child"),
    // One word for one meaning.
    ("papers", "paper"),
    ("articles", "paper"),
    ("article", "paper"),
    ("preprints", "paper"),
    ("preprint", "paper"),
    ("publications", "paper"),
    ("publication", "paper"),
    ("feeds", "feed"),
    ("subscriptions", "subscription"),
    ("favorite", "like"),
    ("loved", "like"),
    ("love", "like"),
    ("liked", "like"),
    ("topics", "topic"),
    ("themes", "topic"),
    ("theme", "topic"),
    ("subjects", "topic"),
    ("subject", "topic"),
    ("refs", "reference"),
    ("ref", "reference"),
    ("bib", "bibtex"),
    ("manuscript", "draft"),
    ("manuscripts", "draft"),
    ("writeup", "draft"),
    ("hyperparameters", "config"),
    ("hyperparameter", "config"),
    ("hparams", "config"),
    ("configuration", "config"),
    ("configs", "config"),
    ("settings", "config"),
    ("experiments", "run"),
    ("experiment", "run"),
    ("neighbors", "neighbor"),
    ("antiderivative", "integral"),
    ("antiderivatives", "integral"),
    ("integrate", "integral"),
    ("integrating", "integral"),
    ("integration", "integral"),
    ("derivatives", "derivative"),
    ("differentiate", "derivative"),
    ("differentiating", "derivative"),
    ("differentiation", "derivative"),
    ("simplification", "simplify"),
    ("simpler", "simplify"),
];

static STEMMER: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// One word, normalised: lower case, possessive dropped, synonyms mapped, stemmed.
pub fn lemma(word: &str) -> String {
    let w = word.to_lowercase();
    let w = w.strip_suffix("'s").unwrap_or(&w).to_string();
    let w = SYNONYMS.iter().find(|(from, _)| *from == w).map_or(w, |(_, to)| (*to).to_string());
    STEMMER.stem(&w).into_owned()
}

/// A question's words as lemmas, in order.
#[derive(Debug, Clone)]
pub struct Lemmas(pub Vec<String>);

impl Lemmas {
    /// Normalise a question's words.
    pub fn of(q: &Question) -> Lemmas {
        Lemmas(q.words.iter().map(|w| lemma(&w.text)).collect())
    }

    /// Whether a term (plain words, normalised here) occurs on lemma boundaries.
    pub fn has(&self, term: &str) -> bool {
        let pat: Vec<(String, bool)> = term
            .split_whitespace()
            .map(|p| match p.strip_suffix('*') {
                Some(prefix) => (prefix.to_lowercase(), true),
                None => (lemma(p), false),
            })
            .collect();
        if pat.is_empty() || pat.len() > self.0.len() {
            return false;
        }
        (0..=self.0.len() - pat.len()).any(|i| {
            pat.iter()
                .enumerate()
                .all(|(j, (p, prefix))| if *prefix { self.0[i + j].starts_with(p) } else { self.0[i + j] == *p })
        })
    }
}

/// Score a question against a surface's cues.
pub fn score(q: &Question, scoring: &Scoring) -> Scored {
    let lemmas = Lemmas::of(q);
    let mut order: Vec<&'static str> = Vec::new();
    let mut totals: BTreeMap<&'static str, (i32, Vec<&'static str>)> = BTreeMap::new();
    for c in scoring.cues {
        if !order.contains(&c.tool) {
            order.push(c.tool);
        }
        if let Some(t) = c.terms.iter().find(|t| lemmas.has(t)) {
            let e = totals.entry(c.tool).or_default();
            e.0 += c.weight;
            e.1.push(t);
        }
    }
    let mut ranked: Vec<(&'static str, i32, Vec<&'static str>)> = order
        .iter()
        .filter_map(|t| totals.remove(t).map(|(s, why)| (*t, s, why)))
        .filter(|(t, s, _)| *s > 0 && writes_allowed(q, t, scoring))
        .collect();
    ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
    Scored { ranked }
}

/// Polite openings skipped before the verb of a request.
pub const POLITE: &[&str] = &[
    "please", "pls", "plz", "can", "could", "would", "will", "you", "now", "go", "ahead", "and", "i", "want", "to",
    "i'd", "id", "like", "kindly", "then", "ok", "okay", "so", "hey", "hi", "just", "also", "need", "we", "let's",
    "lets", "let", "us", "me", "quickly", "yes",
];

/// Whether the question opens (after a polite opening) with one of `verbs`.
pub fn opens_with(q: &Question, verbs: &[&str]) -> bool {
    let Some(first) = q.words.iter().map(|w| w.text.as_str()).find(|w| !POLITE.contains(w)) else { return false };
    let first = lemma(first);
    verbs.iter().any(|v| lemma(v) == first)
}

/// Whether the question opens with a question word ("which", "did", "what", …) rather
/// than a request ("can you", "please"): a question about a write never asks for one.
pub fn asks_question(q: &Question) -> bool {
    const ASKING: &[&str] = &[
        "which", "what", "what's", "whats", "when", "did", "has", "have", "how", "why", "where", "who", "is", "are",
        "was", "were", "does", "do", "had",
    ];
    q.words.first().is_some_and(|w| ASKING.contains(&w.text.as_str()))
}

/// Whether a sentence or clause of the question opens (after a polite opening) with one
/// of `verbs`: the question itself, or the words after `.`, `;`, `:`, `!`, `?`, `,` or a
/// dash ("I have these only in my notebook: … Write them please", "…, please record
/// them"). A request is still an imperative; "what would be written if I recorded …"
/// and "what did the last scan pick up?" open with no verb of the write.
pub fn asks_for(q: &Question, verbs: &[&str]) -> bool {
    let w = &q.words;
    let opens = |i: usize| {
        i == 0
            || q.raw.get(w[i - 1].end..w[i].start).is_some_and(|gap| {
                gap.contains(['.', ';', ':', '!', '?', ',', '\u{2014}', '\u{2013}', '\n']) || gap.contains(" - ")
            })
    };
    (0..w.len()).filter(|&i| opens(i)).any(|i| {
        w[i..].iter().map(|x| x.text.as_str()).find(|x| !POLITE.contains(x)).is_some_and(|first| {
            let first = lemma(first);
            verbs.iter().any(|v| lemma(v) == first)
        })
    })
}

/// A tool that writes may be chosen only when the question asks for the write: one of
/// its imperative verbs opens the question or one of its sentences or clauses
/// ([`asks_for`]).
pub fn writes_allowed(q: &Question, tool: &str, scoring: &Scoring) -> bool {
    scoring.writes.iter().find(|w| w.tool == tool).is_none_or(|w| asks_for(q, w.verbs))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUES: &[Cue] = &[
        cue("t.read", 2, &["summarise", "what is it about"]),
        cue("t.near", 2, &["neighbour", "next to"]),
        cue("t.near", 1, &["around"]),
        cue("t.save", 3, &["save"]),
    ];
    const S: Scoring =
        Scoring { cues: CUES, writes: &[Write { tool: "t.save", verbs: &["save", "keep"] }], min: 2, margin: 1 };

    #[test]
    fn spellings_and_inflections_meet() {
        assert_eq!(lemma("summarised"), lemma("Summarize"));
        assert_eq!(lemma("neighbours"), lemma("neighbor"));
        assert!(Lemmas::of(&Question::new("what's neighbouring X")).has("neighbour"));
        assert!(!Lemmas::of(&Question::new("the kdsweep")).has("sweep"));
    }

    #[test]
    fn the_best_wins_by_a_margin_or_nothing_does() {
        let s = score(&Question::new("can you summarize item 4"), &S);
        assert_eq!(s.winner(2, 1).map(|w| w.0), Some("t.read"));
        let tie = score(&Question::new("summarize what is next to it"), &S);
        assert_eq!(tie.winner(2, 1), None);
        assert_eq!(tie.candidates().collect::<Vec<_>>(), ["t.read", "t.near"]);
    }

    #[test]
    fn a_write_needs_its_verb_first() {
        assert_eq!(score(&Question::new("please save it"), &S).winner(2, 1).map(|w| w.0), Some("t.save"));
        assert_eq!(score(&Question::new("what did I save"), &S).winner(2, 1), None);
        // A later sentence or clause may ask for it; a question about it never does.
        for q in ["I only have it on paper. Save it please", "it is good, please save it", "nice; save it"] {
            assert_eq!(score(&Question::new(q), &S).winner(2, 1).map(|w| w.0), Some("t.save"), "{q}");
        }
        for q in ["what would be saved if I saved it? not yet", "did you save the 2.5 version"] {
            assert_eq!(score(&Question::new(q), &S).winner(2, 1), None, "{q}");
        }
    }
}
