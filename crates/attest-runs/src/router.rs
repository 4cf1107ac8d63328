//! The runs router: which provenance tool a plain-language question is for.
//!
//! [`route`] is a pure function (no model, no database, no clock): the same question
//! always gets the same [`Decision`]. The rules are data ([`RULES`], first match wins),
//! matched on whole words and phrases, never on substrings ("kdsweep" does not contain
//! the word "sweep"). There is no catch-all: a question no rule claims is asked back
//! with options, and a question that belongs to another surface is declined naming it.
//!
//! What the question states is extracted into `args` for the chosen tool: a family
//! named explicitly (`the kdsweep family`, `compare kdsweep`), a metric (`wer`), a
//! draft path (`paper/draft.md`) and a run name (`kdsweep_t4`). Without a database
//! these are only what the words say; the tools confirm them against the ledger.
//! `specs/routing.md` explains the table.

use attest_core::Decision;
use attest_core::ask::{Args, Asked, Router, Rule};
use attest_core::route::Question;
use attest_core::score::{Cue, Scoring, Write, cue};
use serde_json::Value;

/// Tools offered when a question is asked back.
pub const OPTIONS: &[&str] = &["runs.compare", "runs.list", "runs.claims_check"];

/// The question back for an empty question.
pub const EMPTY: &str = "What would you like to know about your runs or drafts? For example: which arm of a family won, what runs are recorded, or whether the numbers in paper/draft.md hold.";

/// The question back for a question no rule claims.
pub const UNCLEAR: &str = "I can't tell which of these you mean: compare the arms of a family, list what the ledger holds, or check the numbers in a draft. Which one? Naming a family, a run or a draft path helps.";

/// The routing table, in order; the first rule with a phrase in the question wins.
/// Phrases are matched on word boundaries; a word ending in `*` matches words it
/// begins. Runs and draft paths named in the question are taken out before matching,
/// so `sweep_a` never reads as the word "sweep".
pub static RULES: &[Rule<Facts>] = &[
    // An explicit request to write results: an imperative write verb opening the
    // question, about results (a number, or results/metrics/an arm named).
    Rule::new("runs.record", &[]).when(asks_to_write).args(stated).because("a request to record results"),
    Rule::new(
        "runs.record",
        &[
            "record these",
            "record this",
            "record the",
            "record my",
            "record a",
            "record new",
            "record results",
            "record metrics",
            "record it",
            "record them",
            "write the results",
            "write these results",
            "write results",
            "write the metrics",
            "save these",
            "save the results",
            "save my results",
            "save the metrics",
            "save metrics",
            "log these",
            "log the results",
            "log this",
            "log my results",
            "add these results",
            "add this result",
            "add a result",
            "add these metrics",
            "enter these",
            "put these in the ledger",
            "put this in the ledger",
            "leave files for the ledger",
        ],
    )
    .args(stated),
    Rule::new(
        "runs.claims_coverage",
        &[
            "forget to cite",
            "forgot to cite",
            "forgotten to cite",
            "not cite",
            "didn't cite",
            "didnt cite",
            "not cited",
            "never cited",
            "uncovered",
            "no claim",
            "no claims",
            "without a claim",
            "without claims",
            "without any claim",
            "lack a claim",
            "lacks a claim",
            "missing a claim",
            "missing claims",
            "not backed",
            "unbacked",
            "backed by a claim",
            "backed by claims",
            "coverage",
            "covered",
            "unannotated",
            "not annotated",
            "no annotation",
            "without annotation*",
            "unclaimed",
            "numbers have no",
            "every number",
        ],
    )
    .args(stated),
    Rule::new("cite.check", attest_core::route::CITE_CHECK_PHRASES).args(stated),
    Rule::new(
        "runs.claims_check",
        &[
            "draft",
            "drafts",
            "draft's",
            "claim",
            "claims",
            "manuscript*",
            "preprint",
            "thesis",
            "writeup",
            "write up",
            "paper right",
            "paper correct",
            "numbers right",
            "numbers correct",
            "numbers still",
            "check the numbers",
            "check my numbers",
            "check the figures",
            "numbers in my",
            "numbers i wrote",
            "numbers i quote",
            "verify",
            "fact check",
            "factcheck",
            "still true",
            "still hold",
            "still correct",
            "contradict*",
            "stale",
            "annotations",
            "my paper",
            "the paper",
            "in my paper",
            "up to date",
            "out of date",
            "still match",
            "still agree",
            "ledger says",
            "the ledger say",
        ],
    )
    .args(stated),
    Rule::new(
        "runs.compare",
        &[
            "won",
            "win",
            "wins",
            "winner",
            "winning",
            "beat",
            "beats",
            "outperform*",
            "compare",
            "comparison",
            "compared",
            "versus",
            "vs",
            "better",
            "best",
            "worse",
            "worst",
            "rank",
            "ranking",
            "ranked",
            "leaderboard",
            "which arm",
            "which setting",
            "which config",
            "which variant",
            "strongest",
            "weakest",
            "lowest",
            "highest",
            "came out ahead",
            "head to head",
        ],
    )
    .when(has_object)
    .args(stated),
    Rule::new(
        "runs.scan",
        &[
            "scan",
            "rescan",
            "re scan",
            "re read",
            "reread",
            "reload",
            "refresh",
            "pick up",
            "ingest",
            "import",
            "sync",
            "update the ledger",
            "update my ledger",
            "into the ledger",
            "into my ledger",
            "just added",
            "just wrote",
            "just finished",
            "just ran",
            "just saved",
            "new results",
            "new files",
            "fresh results",
        ],
    )
    .when(not_a_question)
    .args(stated),
    Rule::new(
        "runs.detail",
        &[
            "detail",
            "details",
            "config",
            "configs",
            "configuration",
            "hyperparam*",
            "settings",
            "one run",
            "show run",
            "show me run",
            "about run",
            "run called",
            "run named",
            "provenance",
            "come from",
            "came from",
            "comes from",
            "source file",
            "which file",
            "hash",
            "seed",
            "inspect",
        ],
    )
    .when(about_one_run)
    .args(stated),
    Rule::new(
        "runs.list",
        &[
            "recorded",
            "what runs",
            "which runs",
            "list",
            "runs do i have",
            "my runs",
            "all runs",
            "all the runs",
            "families",
            "family",
            "ledger",
            "projects",
            "experiments",
            "inventory",
            "how many runs",
            "what have i run",
            "what did i run",
            "overview",
            "show runs",
            "show me the runs",
            "runs are there",
        ],
    )
    .when(no_draft)
    .args(stated),
    // Nouns of a comparison, weaker than the verbs above: "scan my sweep" is a scan.
    Rule::new("runs.compare", &["sweep", "sweeps", "arm", "arms", "ablation", "ablations", "variants", "baseline"])
        .args(stated),
    // No phrase at all, but a draft path or exactly one run name is enough.
    Rule::new("runs.claims_check", &[]).when(names_draft).args(stated).because("the question names a draft"),
    Rule::new("runs.detail", &[]).when(names_run).args(stated).because("the question names a run"),
    Rule::new("runs.list", &[]).when(names_project).args(stated).because("the question names a project"),
];

/// The provenance surface's router.
pub static ROUTER: Router<Facts> = Router {
    surface: "provenance",
    rules: RULES,
    empty: EMPTY,
    unclear: UNCLEAR,
    options: OPTIONS,
    decline_note: " If you meant your runs or drafts, say which: compare a family, list the runs, or check a draft.",
    scoring: SCORING,
    learned: attest_core::ask::Learned::new(include_str!("route-model.tsv"), attest_core::learn::Policy::CHOSEN),
};

/// Words that mark a question as being about runs or drafts. When another surface's
/// marker is also present ("compare the papers in my feed"), one of these keeps the
/// question here; without one it is declined to that surface.
pub const DOMAIN: &[&str] = &[
    "run",
    "runs",
    "ledger",
    "sweep",
    "sweeps",
    "arm",
    "arms",
    "draft",
    "drafts",
    "claim",
    "claims",
    "metric",
    "metrics",
    "family",
    "families",
    "result",
    "results",
    "experiment",
    "experiments",
    "ablation",
    "ablations",
    "manuscript",
    "baseline",
    "checkpoint",
    "checkpoints",
    "numbers",
];

/// Which stated facts each tool takes, under the tool's own parameter names.
pub const ARGS: &[(&str, &[&str])] = &[
    ("runs.compare", &["family", "metric", "project"]),
    ("runs.list", &["family", "project", "limit"]),
    ("runs.detail", &["name", "project"]),
    ("runs.claims_check", &["path", "verdict"]),
    ("runs.claims_coverage", &["path"]),
    ("runs.record", &["family", "project", "arms", "confirm"]),
    ("cite.check", &["path"]),
    ("runs.scan", &["confirm", "project", "root"]),
];

/// Route a question to a provenance tool, or ask back, or decline it to the surface
/// that owns it.
pub fn route(question: &str) -> Decision {
    ROUTER.decide(question, &Args::new())
}

/// Whether the question opens with a request to write results ("record …", "log the
/// new results …", "please write down these results …"): the verb first (after a
/// polite opening), and a number or results, metrics or an arm in it. A question that
/// only mentions recording ("which runs were recorded?") is never one.
fn asks_to_write(a: &Asked<'_, Facts>) -> bool {
    const POLITE: &[&str] = &[
        "please", "pls", "can", "could", "would", "you", "now", "go", "ahead", "and", "i", "want", "to", "i'd", "like",
        "kindly", "then",
    ];
    const VERBS: &[&str] = &["record", "log", "write", "save", "store", "enter"];
    const OBJECTS: &[&str] = &["result", "results", "metric", "metrics", "arm", "arms", "score", "scores", "numbers"];
    let words: Vec<&str> = a.q.words.iter().map(|w| w.text.as_str()).collect();
    let Some(first) = words.iter().find(|w| !POLITE.contains(w)) else { return false };
    VERBS.contains(first)
        && (words.iter().any(|w| OBJECTS.contains(w))
            || a.q.raw.chars().any(|c| c.is_ascii_digit()) && a.q.raw.contains('='))
}

/// A comparison needs something to compare: a family, metric or run named, or words
/// about runs ("better or worse?" alone is asked back).
fn has_object(a: &Asked<'_, Facts>) -> bool {
    a.facts.family.is_some()
        || a.facts.metric.is_some()
        || a.facts.run.is_some()
        || a.facts.project.is_some()
        || a.q.raw.chars().any(|c| c.is_ascii_digit())
        || DOMAIN.iter().any(|d| a.q.has(d))
        || a.q.any(&["which", "who", "what", "compare", "comparison", "rank", "ranking", "leaderboard"]).is_some()
}

/// A detail is about one run: not when the question is about arms or a sweep and names
/// no run ("is the gap between the arms just seed noise?").
fn about_one_run(a: &Asked<'_, Facts>) -> bool {
    a.facts.run.is_some()
        || a.q.any(&["arms", "sweep", "sweeps", "ablation", "variants", "family", "between", "gap"]).is_none()
}

/// A scan writes the ledger: it is asked for, never the answer to a question about
/// one ("which families did last night's scan pick up?").
fn not_a_question(a: &Asked<'_, Facts>) -> bool {
    !attest_core::score::asks_question(a.q)
}

fn no_draft(a: &Asked<'_, Facts>) -> bool {
    a.facts.path.is_none()
}

fn names_project(a: &Asked<'_, Facts>) -> bool {
    a.facts.project.is_some()
}

fn names_draft(a: &Asked<'_, Facts>) -> bool {
    a.facts.path.is_some()
}

fn names_run(a: &Asked<'_, Facts>) -> bool {
    a.facts.run.is_some()
}

/// The arguments a rule's tool takes, from what the question states.
fn stated(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(a.facts.args_for(a.tool))
}

/// What a question states, read from its tokens.
#[derive(Debug, Clone)]
pub struct Facts {
    family: Option<String>,
    metric: Option<String>,
    path: Option<String>,
    /// A directory path (`paper/`), for the claims tools only.
    dir: Option<String>,
    run: Option<String>,
    /// A project named as one ("project distil-asr", "in project mt").
    project: Option<String>,
    /// A claim verdict asked for ("only the contradicted claims").
    verdict: Option<&'static str>,
    /// A directory to scan, written as an absolute or home path (`~/research/mt`).
    root: Option<String>,
    /// The question confirms a write in so many words ("confirm", "confirmed").
    confirm: bool,
    /// How many rows a listing asks for ("up to 50", "last 20", "just 10").
    limit: Option<u64>,
    /// The one identifier (a token with `_`, or `-` with a digit) the question names,
    /// read as the family of a comparison when no family is named as one
    /// ("which temperature in kd_temp came out on top?").
    ident: Option<String>,
    /// Results stated for recording: arm → metric → value ("w500 bleu 26.2").
    arms: Vec<(String, String, f64)>,
    /// The question with run names and paths blanked out, for rule matching.
    masked: Question,
}

impl attest_core::ask::Facts for Facts {
    fn read(question: &str, _given: &Args) -> Facts {
        Facts::of(question, &Question::new(question))
    }

    fn words(&self) -> &Question {
        &self.masked
    }

    /// A bare run name or draft path is something to route.
    fn is_empty(&self) -> bool {
        self.masked.is_empty() && self.path.is_none() && self.run.is_none()
    }

    /// Another surface's markers are looked for in the masked words as they are.
    fn frame(&self, _own: Option<&Decision>) -> Question {
        self.masked.clone()
    }

    /// A question that carries another surface's marker stays here when a rule of
    /// this surface claimed it and it is plainly about runs or drafts.
    fn keeps(&self, own: Option<&Decision>) -> bool {
        own.is_some() && self.about_runs(&self.masked)
    }
}

/// A token of the raw question: letters, digits and `_ - . / ~`, with its span.
struct Tok<'q> {
    raw: &'q str,
    lower: String,
    start: usize,
    end: usize,
    /// The token ended with `/` before trimming.
    slash: bool,
}

fn tokens(q: &str) -> Vec<Tok<'_>> {
    let is_tok = |c: char| c.is_alphanumeric() || "_-./~".contains(c);
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in q.char_indices().chain(std::iter::once((q.len(), ' '))) {
        match (is_tok(c) && i < q.len(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                start = None;
                let piece = &q[s..i];
                let slash = piece.ends_with('/');
                let trimmed = piece.trim_end_matches(['.', '-', '/']);
                let mut lead = 0;
                while trimmed[lead..].starts_with("./") {
                    lead += 2;
                }
                lead += trimmed[lead..].len() - trimmed[lead..].trim_start_matches('-').len();
                let raw = &trimmed[lead..];
                if raw.chars().any(char::is_alphanumeric) {
                    out.push(Tok { raw, lower: raw.to_lowercase(), start: s + lead, end: s + lead + raw.len(), slash });
                }
            }
            _ => {}
        }
    }
    out
}

const STOP: &[&str] = &[
    "the",
    "a",
    "an",
    "my",
    "our",
    "your",
    "their",
    "this",
    "that",
    "these",
    "those",
    "all",
    "both",
    "each",
    "every",
    "any",
    "some",
    "new",
    "latest",
    "last",
    "recent",
    "best",
    "top",
    "two",
    "three",
    "which",
    "what",
    "of",
    "in",
    "on",
    "by",
    "and",
    "or",
    "with",
    "vs",
    "versus",
    "to",
    "against",
    "sweep",
    "sweeps",
    "run",
    "runs",
    "arm",
    "arms",
    "family",
    "families",
    "ablation",
    "ablations",
    "experiment",
    "experiments",
    "results",
    "result",
    "variants",
    "variant",
    "it",
    "them",
    "called",
    "named",
    "ledger",
    "baseline",
    "i",
    "me",
    "we",
    "you",
    "do",
    "did",
    "is",
    "are",
    "was",
    "were",
    "how",
    "many",
    "much",
    "for",
    "from",
    "across",
    "between",
    "numbers",
    "metric",
    "metrics",
];

/// Claim verdicts a check can be narrowed to (`runs.claims_check`'s `verdict`).
const VERDICTS: &[&str] = &["supported", "contradicted", "unsupported", "ambiguous", "stale", "uncited"];

/// Words that introduce a name in "the kdsweep arms".
const DETERMINERS: &[&str] = &["the", "my", "our", "which", "these", "those", "all", "each", "every", "this"];

/// Multi-word names of metrics.
const ALIASES: &[(&str, &str)] =
    &[("word error rate", "wer"), ("character error rate", "cer"), ("equal error rate", "eer"), ("f1 score", "f1")];

/// Metric names that are also ordinary words, and the words before them that make
/// them ordinary ("do you recall", "an error").
const GUARDS: &[(&str, &[&str])] = &[
    ("recall", &["i", "you", "we", "they", "do", "don't", "can't", "to"]),
    ("map", &["to", "i", "you", "we", "a", "the"]),
    ("error", &["an", "any", "no", "the", "this", "that"]),
];

fn known_metric(word: &str) -> bool {
    crate::direction::BUILTIN.iter().any(|(name, _)| *name == word)
}

fn is_path(t: &Tok<'_>) -> bool {
    [".md", ".markdown", ".qmd", ".rmd", ".tex", ".ipynb"]
        .iter()
        .any(|e| t.lower.ends_with(e) && t.lower.len() > e.len())
}

fn run_like(t: &Tok<'_>) -> bool {
    t.raw.chars().next().is_some_and(char::is_alphabetic)
        && (t.raw.contains('_') || (t.raw.contains('-') && t.raw.chars().any(|c| c.is_ascii_digit())))
        && !is_path(t)
        && !known_metric(&t.lower)
}

fn family_like(word: &str) -> bool {
    word.len() >= 2
        && !STOP.contains(&word)
        && !known_metric(word)
        && word.chars().next().is_some_and(char::is_alphanumeric)
        && word.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '-')
        && !word.chars().all(|c| c.is_ascii_digit())
}

impl Facts {
    fn of(question: &str, whole: &Question) -> Facts {
        let toks = tokens(question);
        let w = |i: usize| toks.get(i).map_or("", |t| t.lower.as_str());

        let path = toks.iter().find(|t| is_path(t)).map(|t| t.raw.to_string());
        let dir = toks
            .iter()
            .find(|t| t.slash && !is_path(t) && t.raw.chars().any(char::is_alphabetic))
            .map(|t| format!("{}/", t.raw));

        // A metric: stated explicitly ("by judge_score", "metric bleu"), else the first
        // known metric name, else a multi-word alias.
        // A value stated under its key ("metric=bpb", "metric: bpb", "--metric wer",
        // "metric is f1") comes first; then "metric wer", "by judge_score", "wer metric".
        let keyed_metric = keyed(&toks, question, &["metric"]);
        let explicit = keyed_metric.or_else(|| {
            (0..toks.len()).find_map(|i| {
                let x = match w(i) {
                    "metric" => Some(i + 1),
                    "by" | "on" | "using" => Some(i + 1).filter(|&j| known_metric(w(j)) || w(j).contains('_')),
                    // "wer metric": the name right before the word, not a value of
                    // another key ("family = x, metric = y").
                    _ if w(i + 1) == "metric" && adjacent(question, &toks, i) && !is_key(w(i.wrapping_sub(1))) => {
                        Some(i)
                    }
                    _ => None,
                }?;
                Some(x)
            })
        });
        let explicit = explicit.and_then(|x| {
            let word = w(x);
            (word.len() >= 2
                && !STOP.contains(&word)
                && word.chars().next().is_some_and(char::is_alphabetic)
                && word.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '/' || c == '-' || c == '@'))
            .then_some(x)
        });
        // A metric named by a phrase after "on/by/for" or a superlative, ending in a
        // measure's noun ("on mean return", "the highest exact match", "on val acc").
        let phrase = (0..toks.len()).find_map(|i| {
            let terms_of = w(i) == "of" && w(i.wrapping_sub(1)) == "terms";
            if !(METRIC_LEADS.contains(&w(i)) || SUPERLATIVES.contains(&w(i)) || terms_of) {
                return None;
            }
            let mut j = i + 1;
            while matches!(w(j), "the" | "a" | "its" | "their" | "my") {
                j += 1;
            }
            // Consecutive tokens with only spaces between them, at most three.
            let mut end = j;
            while end < toks.len()
                && end < j + 3
                && (end == j || question[toks[end - 1].end..toks[end].start].trim().is_empty())
            {
                end += 1;
            }
            (j + 1..=end).rev().find_map(|k| {
                let words: Vec<&str> = (j..k).map(w).collect();
                let last = *words.last()?;
                let ok = words.iter().all(|x| !STOP.contains(x) && x.chars().next().is_some_and(char::is_alphabetic))
                    && (MEASURES.contains(&last) || (known_metric(last) && words.len() > 1))
                    && !ALIASES.iter().any(|(a, _)| a.starts_with(words.join(" ").as_str()));
                ok.then(|| (j, (j..k).map(|x| toks[x].raw).collect::<Vec<_>>().join(" ")))
            })
        });
        // A metric-like token after a superlative: "the lowest ct_value", "best dev_f1".
        let after_superlative = (1..toks.len()).find(|&i| {
            SUPERLATIVES.contains(&w(i - 1))
                && !STOP.contains(&w(i))
                && toks[i].raw.chars().next().is_some_and(char::is_alphabetic)
                && (toks[i].raw.contains('_') || toks[i].raw.chars().any(|c| c.is_ascii_digit()))
                && !is_path(&toks[i])
        });
        let known = (0..toks.len()).find(|&i| {
            let word = w(i);
            known_metric(word) && !GUARDS.iter().any(|(m, before)| *m == word && i > 0 && before.contains(&w(i - 1)))
        });
        let alias = ALIASES.iter().find(|(phrase, _)| whole.has(phrase)).map(|(_, m)| m.to_string());
        let explicit = explicit.or(after_superlative);
        // Else one word that closes a clause after "on/by", "in terms of" or a
        // superlative ("on ece?", "ranked by plddt", "the best dice", "which maximised
        // OD600."): what the ranking is by, whatever its name.
        let closing = (explicit.is_none() && phrase.is_none() && alias.is_none() && known.is_none())
            .then(|| clause_metric(&toks, question))
            .flatten();
        let explicit = explicit.or(closing);
        let metric_at = explicit.or(phrase.as_ref().map(|(j, _)| *j)).or(if alias.is_some() { None } else { known });
        let metric = match (explicit, &phrase, alias) {
            (Some(i), _, _) => Some(toks[i].lower.clone()),
            (None, Some((_, p)), _) => Some(p.clone()),
            (None, None, Some(a)) => Some(a),
            _ => metric_at.map(|i| toks[i].lower.clone()),
        };

        // A family, only when named as one.
        let generic_after = [
            "arm",
            "arms",
            "runs",
            "variants",
            "sweep",
            "sweeps",
            "ablation",
            "ablations",
            "family",
            "config",
            "configs",
            "experiment",
            "experiments",
        ];
        // Words before "<name> sweep" that introduce the name as a determiner does
        // ("in kdalpha arms", "rank wd sweep").
        let introduces = |x: &str| {
            DETERMINERS.contains(&x)
                || ["in", "of", "for", "from", "on", "across", "whole", "entire", "rank", "compare"].contains(&x)
        };
        // Named under its key ("family=x", "--family x", "family: x", "family is x"),
        // then the key's other forms below; a name quoted or bracketed alone ("the
        // dropout ablation ('dropabl')", "in 'kernelbw'") before the positional forms.
        let keyed_family = keyed(&toks, question, &["family"])
            .filter(|&j| Some(j) != metric_at && !is_path(&toks[j]) && family_like(w(j)));
        let positional = |i: usize| -> Vec<usize> {
            match w(i) {
                "family" => {
                    let mut c = vec![];
                    // "notebook: family x" names x, not notebook.
                    if i > 0 && !question[toks[i - 1].end..toks[i].start].contains([':', ',', '(', ';']) {
                        c.push(i - 1);
                    }
                    if matches!(w(i + 1), "called" | "named" | "is") {
                        c.push(i + 2);
                    } else {
                        c.push(i + 1);
                    }
                    c
                }
                "compare" | "rank" => {
                    let stop_after = ["and", "with", "vs", "versus", "to", "against"];
                    if stop_after.contains(&w(i + 2)) { vec![] } else { vec![i + 1] }
                }
                // "the kdsweep arms", "which lr ablation": a determiner, the name, the noun.
                word if generic_after.contains(&word) && i > 1 && introduces(w(i - 2)) => vec![i - 1],
                // "the ablation called nocurriculum", "a sweep named lr_fine".
                word if generic_after.contains(&word) && matches!(w(i + 1), "called" | "named") => vec![i + 2],
                // "in the dropout_v2 sweep": an identifier before the noun, whatever precedes it.
                word if generic_after.contains(&word)
                    && i > 0
                    && toks[i - 1].raw.contains(['_', '-'])
                    && question[toks[i - 1].end..toks[i].start].trim().is_empty() =>
                {
                    vec![i - 1]
                }
                // "kdalpha arms ranked by wer": the name opens the question.
                "arms" | "sweep" | "ablation" | "variants"
                    if i == 1
                        && !["record", "log", "save", "compare", "rank", "scan", "list", "show"].contains(&w(0)) =>
                {
                    vec![0]
                }
                // "winner of kdalpha", "best of the kdalpha arms".
                "of" if matches!(w(i.wrapping_sub(1)), "winner" | "best" | "winners") => vec![i + 1],
                "of" | "in" | "for" if matches!(w(i.wrapping_sub(1)), "arm" | "arms" | "variant" | "variants") => {
                    vec![i + 1]
                }
                // ", wd sweep": a name opening a clause before the noun.
                "arms" | "sweep" | "ablation" | "variants"
                    if i > 1 && adjacent(question, &toks, i - 1) && clause_start(question, &toks, i - 1) =>
                {
                    vec![i - 1]
                }
                _ => vec![],
            }
        };
        let fits = |j: usize| {
            Some(j) != metric_at
                && toks.get(j).is_some_and(|t| !is_path(t) && !t.slash)
                && family_like(w(j))
                && !matches!(w(j.wrapping_sub(1)), "project" | "proj" | "corpus" | "metric")
                && !(matches!(w(j + 1), "project" | "proj" | "corpus") && adjacent(question, &toks, j))
                && !matches!(w(j), "confirm" | "confirmed" | "yes" | "no" | "please")
        };
        let quoted_family = (0..toks.len()).find(|&j| {
            enclosed(question, &toks[j]) && fits(j) && !matches!(w(j.wrapping_sub(1)), "arm" | "run" | "on" | "by")
        });
        let quoted_only =
            keyed_family.is_none() && !(0..toks.len()).any(|i| w(i) == "family" && positional(i).into_iter().any(fits));
        let family_at = keyed_family
            .or_else(|| {
                (0..toks.len()).filter(|&i| w(i) == "family").find_map(|i| positional(i).into_iter().find(|&j| fits(j)))
            })
            .or(quoted_family)
            .or_else(|| (0..toks.len()).find_map(|i| positional(i).into_iter().find(|&j| fits(j))));
        let family = family_at.map(|i| toks[i].raw.to_string());
        let limit = (0..toks.len()).find_map(|i| {
            let n = |j: usize| w(j).parse::<u64>().ok().filter(|n| (1..=10_000).contains(n));
            match w(i) {
                "max" | "maximum" | "last" | "first" | "top" | "latest" | "newest" | "just" | "only" | "limit" => {
                    n(i + 1)
                }
                "up" if w(i + 1) == "to" => n(i + 2),
                "at" if w(i + 1) == "most" => n(i + 2),
                _ => None,
            }
        });
        let arms = stated_results(&toks, question);

        // A project, only when named as one: after the word under its key or quoted
        // ("project=x", "project 'x'"), before it ("the retrosynthesis project"), or
        // right after it when no name stands before it and no punctuation between
        // ("project mt, …" but not "the materials project, go ahead"); else a
        // hyphenated name after a preposition ("in protein-stability", "into
        // galaxy-morph"), which families and metrics are not written as.
        let project_at = (0..toks.len())
            .filter(|&i| matches!(w(i), "project" | "proj" | "projekt" | "projet"))
            .find_map(|i| {
                let ok = |j: usize| {
                    toks.get(j).is_some_and(|t| family_like(&t.lower) && !is_path(t) && !t.slash)
                        && Some(j) != family_at
                };
                let j = if matches!(w(i + 1), "called" | "named" | "is") { i + 2 } else { i + 1 };
                let gap = toks.get(j).map_or("", |t| &question[toks[j - 1].end..t.start]);
                let plain_gap = gap.chars().all(|c| c.is_whitespace() || "='\"‘’“”:`(".contains(c));
                let explicit = ok(j)
                    && plain_gap
                    && (gap.contains(['=', ':', '\'', '"', '‘', '“', '`'])
                        || enclosed(question, &toks[j])
                        || toks[j].raw.contains(['_', '-'])
                        || toks[j].raw.chars().any(|c| c.is_ascii_digit()));
                let before =
                    (i >= 2 && introduces(w(i - 2)) && w(i - 2) != "which" && adjacent(question, &toks, i - 1))
                        .then_some(i - 1)
                        .filter(|&b| ok(b));
                let after = (ok(j) && plain_gap).then_some(j);
                if explicit { Some(j) } else { before.or(after) }
            })
            .or_else(|| {
                (1..toks.len()).find(|&j| {
                    let t = &toks[j];
                    matches!(w(j - 1), "in" | "for" | "into" | "from" | "of" | "under" | "only")
                        && Some(j) != family_at
                        && Some(j) != metric_at
                        && hyphenated_name(t)
                        && !generic_after.contains(&w(j + 1))
                        && !matches!(w(j + 1), "project" | "proj")
                })
            });
        let project = project_at.map(|i| toks[i].raw.to_string());

        // A run: the one run-like token that is not the family or the metric.
        let runs: Vec<usize> = (0..toks.len())
            .filter(|&i| {
                // A quoted name may be a family or a run ("the full record for
                // 'tempsweep_350K'"): it stays a run too.
                (Some(i) != family_at || (quoted_only && family_at == quoted_family))
                    && Some(i) != metric_at
                    && Some(i) != project_at
                    && run_like(&toks[i])
            })
            .collect();
        let mut names: Vec<&str> = Vec::new();
        for &i in &runs {
            if !names.contains(&toks[i].raw) {
                names.push(toks[i].raw);
            }
        }
        let run = if names.len() == 1 { Some(names[0].to_string()) } else { None };
        // The same one identifier, for a comparison that names no family as one; not a
        // run of the form family_arm when that family is named.
        let ident = run.clone().filter(|r| !r.contains('/') && family.is_none());

        // Blank out run names and paths so their parts are not read as words.
        // Character by character (a token's span is in bytes of `question`): a blanked
        // character becomes one space, whatever its width.
        let blank: Vec<(usize, usize)> = toks
            .iter()
            .enumerate()
            .filter(|(i, t)| runs.contains(i) || Some(*i) == project_at || is_path(t))
            .map(|(_, t)| (t.start, t.end))
            .collect();
        let masked: String = question
            .char_indices()
            .map(|(at, c)| if blank.iter().any(|&(s, e)| (s..e).contains(&at)) { ' ' } else { c })
            .collect();
        let masked = if masked == question { whole.clone() } else { Question::new(&masked) };
        // A verdict: before "claims/ones/numbers", else the one verdict the question
        // names as a word anywhere ("which claims are stale?", "go stale",
        // "contradict the runs", "claims the ledger doesn't support"); "supported" alone
        // ("still supported?") asks about all of them, and two verdicts name none.
        let verdict = (0..toks.len())
            .find_map(|i| {
                let v = VERDICTS.iter().find(|v| w(i) == **v)?;
                matches!(w(i + 1), "claim" | "claims" | "ones" | "numbers" | "verdicts").then_some(*v)
            })
            .or_else(|| {
                let mut named: Vec<&'static str> = (0..toks.len())
                    .filter_map(|i| match w(i) {
                        "contradicted" | "contradict" | "contradicts" => Some("contradicted"),
                        "unsupported" => Some("unsupported"),
                        "support" | "supports"
                            if w(i.wrapping_sub(1)) == "not"
                                || (w(i.wrapping_sub(1)) == "t"
                                    && matches!(w(i.wrapping_sub(2)), "doesn" | "don" | "didn")) =>
                        {
                            Some("unsupported")
                        }
                        "ambiguous" => Some("ambiguous"),
                        "stale" => Some("stale"),
                        "uncited" => Some("uncited"),
                        _ => None,
                    })
                    .collect();
                named.sort_unstable();
                named.dedup();
                (named.len() == 1).then(|| named[0])
            });
        let root = toks
            .iter()
            .find(|t| (t.raw.starts_with("~/") || t.raw.starts_with('/')) && !is_path(t))
            .map(|t| t.raw.to_string());
        let confirm = whole.any(&["confirm", "confirmed", "i confirm", "confirm true"]).is_some()
            && whole.any(&["don't confirm", "do not confirm", "not confirmed", "without confirm*"]).is_none();
        Facts { family, metric, path, dir, run, project, verdict, root, confirm, limit, ident, arms, masked }
    }

    fn about_runs(&self, q: &Question) -> bool {
        self.run.is_some() || self.path.is_some() || self.metric.is_some() || DOMAIN.iter().any(|d| q.has(d))
    }

    fn args_for(&self, tool: &str) -> Args {
        let keys = ARGS.iter().find(|(t, _)| *t == tool).map_or(&[][..], |(_, k)| *k);
        let mut args = Args::new();
        let path = if tool.starts_with("runs.claims") || tool == "cite.check" {
            self.path.clone().or_else(|| self.dir.clone())
        } else {
            None
        };
        for key in keys {
            let v = match *key {
                "family" if tool == "runs.compare" => {
                    self.family.clone().or_else(|| self.ident.clone()).map(Value::String)
                }
                "family" => self.family.clone().map(Value::String),
                "limit" => self.limit.map(Value::from),
                "arms" if !self.arms.is_empty() => {
                    let mut arms = Args::new();
                    for (arm, metric, v) in &self.arms {
                        let entry = arms.entry(arm.clone()).or_insert_with(|| Value::Object(Args::new()));
                        if let Some(m) = entry.as_object_mut() {
                            m.insert(metric.clone(), Value::from(*v));
                        }
                    }
                    Some(Value::Object(arms))
                }
                "metric" => self.metric.clone().map(Value::String),
                "path" => path.clone().map(Value::String),
                "name" => self.run.clone().map(Value::String),
                "project" => self.project.clone().map(Value::String),
                "verdict" => self.verdict.map(|v| Value::String(v.to_string())),
                "root" => self.root.clone().map(Value::String),
                // Asking to scan is the go-ahead a scan needs; a record is confirmed
                // only in so many words.
                "confirm" if tool == "runs.scan" => Some(Value::Bool(true)),
                "confirm" => self.confirm.then_some(Value::Bool(true)),
                _ => None,
            };
            if let Some(v) = v {
                args.insert(key.to_string(), v);
            }
        }
        args
    }
}

/// Keys a value can be stated under ("family=x", "metric: y").
fn is_key(word: &str) -> bool {
    matches!(word, "family" | "metric" | "project" | "proj" | "corpus" | "limit" | "name" | "run" | "verdict")
}

/// Only spaces (or quotes) between token `i` and the next.
fn adjacent(question: &str, toks: &[Tok<'_>], i: usize) -> bool {
    toks.get(i + 1)
        .is_some_and(|n| question[toks[i].end..n.start].chars().all(|c| c.is_whitespace() || "'\"‘’“”`".contains(c)))
}

/// Token `i` opens the question or a clause (after `,` `;` `:` `—` `-` `(`).
fn clause_start(question: &str, toks: &[Tok<'_>], i: usize) -> bool {
    i == 0
        || question[toks[i - 1].end..toks[i].start].contains([',', ';', ':', '—', '–', '(', '?', '!'])
        || question[toks[i - 1].end..toks[i].start].trim() == "-"
}

/// The token is quoted or bracketed alone: `'kernelbw'`, `"distill"`, `(dropabl)`.
fn enclosed(question: &str, t: &Tok<'_>) -> bool {
    let before = question[..t.start].chars().next_back();
    let after = question[t.end..].chars().next();
    matches!(
        (before, after),
        (Some('\''), Some('\''))
            | (Some('"'), Some('"'))
            | (Some('‘'), Some('’'))
            | (Some('“'), Some('”'))
            | (Some('`'), Some('`'))
            | (Some('('), Some(')'))
    )
}

/// The token after a key that states a value: `key=v`, `key = v`, `key: v`, `--key v`,
/// `key is v` (the value's index).
fn keyed(toks: &[Tok<'_>], question: &str, keys: &[&str]) -> Option<usize> {
    (0..toks.len()).filter(|&i| keys.contains(&toks[i].lower.as_str())).find_map(|i| {
        let next = toks.get(i + 1)?;
        let gap = &question[toks[i].end..next.start];
        let dashes = question[..toks[i].start].ends_with("--");
        if gap.contains(['=', ':']) || dashes && gap.trim().is_empty() {
            Some(i + 1)
        } else if next.lower == "is" && toks.get(i + 2).is_some() {
            Some(i + 2)
        } else {
            None
        }
    })
}

/// A name written with a hyphen between letters and no digit, as projects are
/// ("protein-stability", "rl-locomotion"); not a path, a run name or a metric.
fn hyphenated_name(t: &Tok<'_>) -> bool {
    t.raw.contains('-')
        && t.raw.split('-').all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric()))
        && t.raw.chars().next().is_some_and(char::is_alphabetic)
        && !t.raw.chars().any(|c| c.is_ascii_digit())
        && !is_path(t)
        && !t.slash
        && !known_metric(&t.lower)
        && !["out-of-sample", "held-out", "side-by-side", "head-to-head", "best-performing", "top-1", "top-5"]
            .contains(&t.lower.as_str())
}

/// Words that introduce a metric named by a phrase ("on mean return", "by val acc").
const METRIC_LEADS: &[&str] = &["on", "by", "for", "using", "wrt"];

/// Words that close a clause after "on/by" or a superlative but never name a metric.
const NOT_METRICS: &[&str] = &[
    "top", "average", "paper", "one", "ones", "setting", "settings", "value", "values", "option", "choice", "disk",
    "seed", "seeds", "noise", "default", "far", "margin", "hand", "purpose", "itself", "yet", "now", "please", "pls",
    "overall", "here", "there", "so", "then", "model", "models", "config", "configs", "job", "jobs",
];

/// The one word that closes a clause after a word ranking by it: "on ece?", "by
/// plddt", "ranked on r2", "in terms of nse", "the best dice", "maximised OD600.".
fn clause_metric(toks: &[Tok<'_>], question: &str) -> Option<usize> {
    let w = |i: usize| toks.get(i).map_or("", |t| t.lower.as_str());
    const ENDS: &[&str] = &["please", "pls", "and", "or", "in", "for", "across", "among", "only", "then", "pls"];
    (1..toks.len()).find(|&i| {
        let mut lead = i - 1;
        while lead > 0 && matches!(w(lead), "the" | "a" | "its" | "their") {
            lead -= 1;
        }
        let leads = matches!(w(lead), "on" | "by")
            || (w(lead) == "of" && w(lead.wrapping_sub(1)) == "terms")
            || (SUPERLATIVES.contains(&w(lead))
                || matches!(w(lead), "most" | "maximised" | "minimised" | "maximized" | "minimized"));
        let t = &toks[i];
        let closes = toks.get(i + 1).is_none_or(|n| {
            question[t.end..n.start].contains([',', '?', '.', '!', ';', '—', '–', '(', ':'])
                || ENDS.contains(&n.lower.as_str())
        });
        leads
            && closes
            && adjacent(question, toks, i - 1)
            && t.raw.chars().next().is_some_and(char::is_alphabetic)
            && !STOP.contains(&t.lower.as_str())
            && !NOT_METRICS.contains(&t.lower.as_str())
            && !is_key(&t.lower)
            && !is_path(t)
            && !t.slash
            && !matches!(t.lower.as_str(), "project" | "proj" | "corpus" | "sweep" | "ablation" | "arm" | "arms")
    })
}

/// Words before a metric that ask for its best value.
const SUPERLATIVES: &[&str] = &[
    "highest",
    "lowest",
    "best",
    "worst",
    "smallest",
    "largest",
    "biggest",
    "maximises",
    "maximizes",
    "minimises",
    "minimizes",
    "maximise",
    "maximize",
    "minimise",
    "minimize",
    "max",
    "min",
    "top",
];

/// The nouns a metric's name ends in ("mean return", "exact match", "episode reward").
const MEASURES: &[&str] = &[
    "acc",
    "accuracy",
    "loss",
    "error",
    "rate",
    "score",
    "scores",
    "reward",
    "return",
    "match",
    "f1",
    "bleu",
    "rouge",
    "auc",
    "auroc",
    "ppl",
    "perplexity",
    "precision",
    "recall",
    "latency",
    "throughput",
    "yield",
    "efficiency",
];

/// Results stated for recording: a number, the metric word before it, and the arm
/// before that ("w500 bleu 26.2", "arm P1 efficiency 0.97"), or the arm the question
/// names with "arm X" when the word before the metric is not a name ("arm kd0.9 …
/// with wer 0.0691").
fn stated_results(toks: &[Tok<'_>], question: &str) -> Vec<(String, String, f64)> {
    const NOT_ARMS: &[&str] = &[
        "with", "has", "had", "got", "scored", "gets", "and", "at", "of", "is", "was", "a", "an", "the", "to", "for",
        "in", "on", "arm", "arms", "family", "project", "metric", "results", "result", "these", "record", "log",
    ];
    let w = |i: usize| toks.get(i).map_or("", |t| t.lower.as_str());
    let mut named_arm: Option<String> = None;
    let mut out: Vec<(String, String, f64)> = Vec::new();
    for i in 0..toks.len() {
        if w(i) == "arm" {
            named_arm = toks.get(i + 1).map(|t| t.raw.to_string());
        }
        let Ok(v) = toks[i].raw.parse::<f64>() else { continue };
        if i == 0 || !v.is_finite() {
            continue;
        }
        let m = &toks[i - 1];
        let metric_ok = m.raw.chars().next().is_some_and(char::is_alphabetic)
            && !NOT_ARMS.contains(&m.lower.as_str())
            && !STOP.contains(&m.lower.as_str())
            && !question[m.end..toks[i].start].contains([',', ';', '('])
            && !is_path(m);
        if !metric_ok {
            continue;
        }
        let arm = (i >= 2)
            .then(|| &toks[i - 2])
            .filter(|a| {
                !NOT_ARMS.contains(&a.lower.as_str())
                    && !STOP.contains(&a.lower.as_str())
                    && !question[a.end..m.start].contains([',', ';', '('])
                    && a.raw.parse::<f64>().is_err()
            })
            .map(|a| a.raw.to_string())
            .or_else(|| named_arm.clone());
        if let Some(arm) = arm {
            out.push((arm, m.raw.to_string(), v));
        }
    }
    out
}

/// The evidence that decides what no rule claims (`attest_core::score`): weighted
/// words and phrases per tool, normalised (lemmas, synonyms) before matching.
pub static SCORING: Scoring = Scoring { cues: CUES, writes: WRITES, min: 3, margin: 2 };

/// Tools that write, and the verbs that must open a question asking for them.
const WRITES: &[Write] = &[
    Write { tool: "runs.record", verbs: &["record", "log", "save", "store", "write", "enter", "add", "put"] },
    Write {
        tool: "runs.scan",
        verbs: &[
            "scan", "rescan", "ingest", "import", "refresh", "reload", "read", "pick", "pull", "sync", "update",
            "load", "index",
        ],
    },
];

/// The cues, by tool.
static CUES: &[Cue] = &[
    cue(
        "runs.compare",
        3,
        &["which arm", "best arm", "top arm", "who win", "which * win", "come out on top", "come out ahead"],
    ),
    cue(
        "runs.compare",
        2,
        &[
            "win",
            "best",
            "beat",
            "compar*",
            "rank*",
            "outperform*",
            "lowest",
            "highest",
            "smallest",
            "largest",
            "maxim*",
            "minim*",
            "worst",
            "top",
        ],
    ),
    cue("runs.compare", 1, &["arm", "sweep", "ablation", "variant", "baselin*"]),
    cue(
        "runs.list",
        2,
        &[
            "list",
            "inventory",
            "overview",
            "what run",
            "which run",
            "how many run",
            "project",
            "famili",
            "what * in the ledger",
            "what have i",
        ],
    ),
    cue("runs.list", 1, &["ledger", "run", "record"]),
    cue(
        "runs.detail",
        2,
        &[
            "detail",
            "config",
            "provenance",
            "where * come from",
            "which file",
            "hash",
            "seed",
            "one run",
            "that run",
            "this run",
        ],
    ),
    cue(
        "runs.claims_check",
        2,
        &[
            "draft",
            "claim",
            "paper",
            "verify",
            "validat*",
            "check",
            "hold up",
            "up to date",
            "contradict*",
            "match the ledger",
            "what the ledger say",
            "number",
            "figure",
        ],
    ),
    cue("runs.claims_check", 1, &["still", "correct", "right", "accurat*"]),
    cue(
        "runs.claims_coverage",
        3,
        &[
            "coverag*",
            "cover",
            "uncov*",
            "without a claim",
            "no claim",
            "unclaim*",
            "unannot*",
            "missing a claim",
            "lack a claim",
        ],
    ),
    cue("runs.claims_coverage", 1, &["annotat*", "every number", "which number"]),
    cue(
        "runs.scan",
        3,
        &[
            "scan",
            "rescan",
            "ingest",
            "reload",
            "pick up",
            "into the ledger",
            "new file",
            "new result",
            "fresh result",
            "just finish*",
        ],
    ),
    cue("runs.scan", 2, &["refresh", "import", "sync", "update", "new output"]),
    cue("runs.record", 3, &["record", "log", "write down", "store"]),
    cue("runs.record", 2, &["result", "metric", "score"]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_tool_takes_known_args() {
        for r in RULES {
            assert!(ARGS.iter().any(|(t, _)| *t == r.tool), "{} has no ARGS entry", r.tool);
        }
    }

    #[test]
    fn tokens_keep_paths_and_run_names_whole() {
        let t: Vec<String> = tokens("check ./paper/draft.md, then kdsweep_t4. And /abs/x.tex?")
            .iter()
            .map(|t| t.raw.to_string())
            .collect();
        assert_eq!(t, ["check", "paper/draft.md", "then", "kdsweep_t4", "And", "/abs/x.tex"]);
    }

    fn facts(q: &str) -> Facts {
        Facts::of(q, &Question::new(q))
    }

    #[test]
    fn values_under_their_keys_are_read() {
        let f = facts("rank arms: family=kernel_size metric=psnr project=denoise");
        assert_eq!((f.family.as_deref(), f.metric.as_deref()), (Some("kernel_size"), Some("psnr")));
        assert_eq!(f.project.as_deref(), Some("denoise"));
        let f = facts("compare arms, family = tok_vocab, metric = bpb");
        assert_eq!((f.family.as_deref(), f.metric.as_deref()), (Some("tok_vocab"), Some("bpb")));
        let f = facts("runs.compare --family spec_aug --metric wer");
        assert_eq!((f.family.as_deref(), f.metric.as_deref()), (Some("spec_aug"), Some("wer")));
        let f = facts("which one won? family is lysis");
        assert_eq!(f.family.as_deref(), Some("lysis"));
        let f = facts("ls family=dropout limit=50");
        assert_eq!(f.family.as_deref(), Some("dropout"));
    }

    #[test]
    fn a_quoted_name_is_the_family_but_stays_a_run() {
        let f = facts("which bandwidth in 'kernelbw' minimises the loss?");
        assert_eq!(f.family.as_deref(), Some("kernelbw"));
        let f = facts("for the dropout ablation ('dropabl'), which setting is best?");
        assert_eq!(f.family.as_deref(), Some("dropabl"));
        // Quoted after the key, it is the project's; a run name quoted is still a run.
        let f = facts("what is in project 'yeastscreen'?");
        assert_eq!((f.project.as_deref(), f.family.as_deref()), (Some("yeastscreen"), None));
        let f = facts("the full record for 'tempsweep_350K', please");
        assert_eq!(f.run.as_deref(), Some("tempsweep_350K"));
        // "(confirm)" is not a name.
        let f = facts("write them (confirm): family lensing, project weak-lensing, arms a chi2 1.1");
        assert_eq!(f.family.as_deref(), Some("lensing"));
    }

    #[test]
    fn a_metric_closing_a_clause_is_read() {
        for (q, m) in [
            ("compare the arms of tempscale on ece", "ece"),
            ("in project glacier, compare the ddf arms by nse.", "nse"),
            ("which unet_depth arm has the best dice", "dice"),
            ("which arm maximised OD600?", "od600"),
            ("which n_mels wins on pesq", "pesq"),
        ] {
            assert_eq!(facts(q).metric.as_deref(), Some(m), "{q}");
        }
        // Words that close a clause but name no metric, and a family after "in".
        assert_eq!(facts("which arm came out on top?").metric, None);
        assert_eq!(facts("is the gap real or just noise?").metric, None);
        assert_eq!(facts("best arm in tempscale by ece").family.as_deref(), Some("tempscale"));
    }

    #[test]
    fn projects_are_named_not_guessed() {
        assert_eq!(facts("open run kl_coef_0.05 in rl-locomotion").project.as_deref(), Some("rl-locomotion"));
        assert_eq!(facts("open run kl_coef_0.05 in rl-locomotion").run.as_deref(), Some("kl_coef_0.05"));
        assert_eq!(
            facts("pick up the logs from the materials project, go ahead").project.as_deref(),
            Some("materials")
        );
        assert_eq!(facts("the speech project, please read it in").project.as_deref(), Some("speech"));
        // A hyphenated word that is not after a preposition, or names a family, is none.
        assert_eq!(facts("is the growth-media family done?").project, None);
        assert_eq!(facts("compare on out-of-sample mse").project, None);
    }

    #[test]
    fn one_verdict_named_anywhere_narrows_a_check() {
        assert_eq!(facts("which claims are stale in paper/a.md").verdict, Some("stale"));
        assert_eq!(facts("anything contradicted?").verdict, Some("contradicted"));
        assert_eq!(facts("claims the ledger doesn't support").verdict, Some("unsupported"));
        assert_eq!(facts("are the numbers still supported?").verdict, None);
        assert_eq!(facts("which numbers are contradicted or stale").verdict, None);
    }

    #[test]
    fn run_names_do_not_trigger_words() {
        let d = route("what did sweep_a score?");
        assert_eq!(d.tool.as_deref(), Some("runs.detail"), "{d:?}");
        assert_eq!(d.args["name"], "sweep_a");
    }
}
