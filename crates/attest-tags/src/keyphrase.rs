//! Tags without a model: arXiv categories mapped to concepts (a data table), and a
//! deterministic keyphrase extractor over a title and abstract.
//!
//! Candidates are runs of 1–3 content words between stopwords and punctuation,
//! lower-cased and hyphen-joined. Each is scored RAKE-style (the sum over its words of
//! degree / frequency within the text), doubled when it occurs in the title and
//! doubled again when it maps onto a concept already in the vocabulary (through
//! [`Canon`] and fold keys), so an archive converges on its own words.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::Vocabulary;
use crate::canon::Canon;

/// arXiv categories and the concepts they stand for.
pub const ARXIV: &[(&str, &[&str])] = &[
    ("cs.AI", &["artificial-intelligence"]),
    ("cs.CL", &["computation-and-language", "natural-language-processing"]),
    ("cs.CV", &["computer-vision"]),
    ("cs.LG", &["machine-learning"]),
    ("cs.IR", &["information-retrieval"]),
    ("cs.RO", &["robotics"]),
    ("cs.NE", &["neural-and-evolutionary-computing"]),
    ("cs.CR", &["security-and-cryptography"]),
    ("cs.DC", &["distributed-computing"]),
    ("cs.HC", &["human-computer-interaction"]),
    ("cs.MA", &["multi-agent-systems"]),
    ("cs.SD", &["sound"]),
    ("cs.SE", &["software-engineering"]),
    ("eess.AS", &["audio-and-speech-processing"]),
    ("eess.IV", &["image-and-video-processing"]),
    ("stat.ML", &["machine-learning", "statistics"]),
    ("q-bio.BM", &["biomolecules"]),
    ("q-bio.NC", &["neuroscience"]),
    ("q-bio.QM", &["quantitative-methods"]),
    ("q-bio.GN", &["genomics"]),
    ("physics.chem-ph", &["chemical-physics"]),
    ("cond-mat.mtrl-sci", &["materials-science"]),
    ("math.OC", &["optimization"]),
    ("quant-ph", &["quantum-computing"]),
];

/// The concepts for a list of arXiv categories (primary and cross-lists), in order,
/// without repeats. Unknown categories give nothing.
pub fn arxiv_tags<S: AsRef<str>>(categories: &[S]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in categories {
        if let Some((_, tags)) = ARXIV.iter().find(|(k, _)| k.eq_ignore_ascii_case(c.as_ref().trim())) {
            for t in *tags {
                if !out.iter().any(|o| o == t) {
                    out.push(t.to_string());
                }
            }
        }
    }
    out
}

/// Academic filler that never makes a keyphrase (on top of [`crate::words::FUNCTION_WORDS`]).
const OWN_STOPWORDS: &[&str] = &[
    "either",
    "less",
    "must",
    "per",
    "significantly",
    "state",
    "whose",
    "existing",
    "introduce",
    "achieve",
    "achieves",
    "art",
    "task",
    "tasks",
];

fn is_stopword(word: &str) -> bool {
    crate::words::is_function_word(word) || OWN_STOPWORDS.contains(&word)
}

/// Candidate phrases of a text: runs of 1–3 content words, lower-cased, hyphen-joined,
/// in order of appearance (with repeats).
pub fn candidates(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<String> = Vec::new();
    let flush = |run: &mut Vec<String>, out: &mut Vec<String>| {
        for n in 1..=3.min(run.len()) {
            for w in run.windows(n) {
                out.push(w.join("-"));
            }
        }
        run.clear();
    };
    for token in text.split_inclusive(|c: char| !(c.is_alphanumeric() || c == '-')) {
        let brk = token.ends_with(['.', ',', ';', ':', '(', ')', '?', '!', '"']);
        let word: String = token
            .trim_matches(|c: char| !(c.is_alphanumeric() || c == '-'))
            .to_lowercase()
            .trim_matches('-')
            .to_string();
        let content = word.chars().count() >= 3 && word.chars().any(char::is_alphabetic) && !is_stopword(&word);
        if !word.is_empty() {
            if content {
                run.push(word);
            } else {
                flush(&mut run, &mut out);
            }
        }
        if brk || run.len() > 6 {
            flush(&mut run, &mut out);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// Up to `max` tags for an item from its title and abstract, best first, mapped onto
/// `vocabulary` (canonical concept names already in use) where a phrase canonicalises
/// or folds onto one. Deterministic: ties break by name. The cost does not grow with
/// the vocabulary (its fold keys are computed once, in [`Vocabulary::new`]).
pub fn extract(title: &str, abstract_: &str, vocabulary: &Vocabulary, canon: &Canon, max: usize) -> Vec<String> {
    let in_title: BTreeSet<String> = candidates(title).into_iter().collect();
    let all: Vec<String> = candidates(&format!("{title}. {abstract_}"));
    // RAKE word scores over single-word candidates' co-occurrence inside phrases.
    let mut freq: HashMap<&str, f64> = HashMap::new();
    let mut degree: HashMap<&str, f64> = HashMap::new();
    for p in &all {
        let words: Vec<&str> = p.split('-').collect();
        for w in &words {
            *freq.entry(w).or_default() += 1.0;
            *degree.entry(w).or_default() += words.len() as f64;
        }
    }
    // A phrase's score depends only on the phrase: score each distinct one once, best
    // first. Canonicalising (the costly part) can at most double a score (a phrase the
    // vocabulary knows), so once the next phrase's doubled score falls below the last
    // tag chosen, no phrase left can change the answer: stop there. Exact, and on a
    // long abstract it canonicalises a few dozen phrases instead of hundreds.
    let distinct: BTreeSet<&String> = all.iter().collect();
    let mut raw: Vec<(&String, f64)> = distinct
        .into_iter()
        .map(|p| {
            let score: f64 = p.split('-').map(|w| degree[w] / freq[w]).sum();
            (p, if in_title.contains(p) { score * 2.0 } else { score })
        })
        .collect();
    raw.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut best: BTreeMap<String, f64> = BTreeMap::new();
    for (k, (p, score)) in raw.iter().enumerate() {
        if k % 16 == 0 && k > 0 {
            let (chosen, last) = choose(&best, max);
            if last.is_some_and(|last| score * 2.0 < last) {
                return chosen;
            }
        }
        let (tag, known) = vocabulary.spelling(canon.canonical(p));
        let score = if known { score * 2.0 } else { *score };
        let e = best.entry(tag).or_insert(0.0);
        *e = e.max(score);
    }
    choose(&best, max).0
}

/// The best `max` tags of `best` (by score, then name), skipping one whose words a
/// chosen phrase already holds; with the score of the last one when `max` were found.
fn choose(best: &BTreeMap<String, f64>, max: usize) -> (Vec<String>, Option<f64>) {
    let mut ranked: Vec<(&String, f64)> = best.iter().map(|(t, s)| (t, *s)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut out: Vec<String> = Vec::new();
    for (t, score) in ranked {
        // A word already inside a chosen phrase adds nothing.
        if out.iter().any(|o| o.split('-').any(|w| w == t) || t.split('-').all(|w| o.contains(w))) {
            continue;
        }
        out.push(t.clone());
        if out.len() == max {
            return (out, Some(score));
        }
    }
    (out, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_categories_map_to_concepts() {
        assert_eq!(
            arxiv_tags(&["cs.LG", "stat.ML", "cs.CL"]),
            ["machine-learning", "statistics", "computation-and-language", "natural-language-processing"]
        );
        assert_eq!(arxiv_tags(&["q-bio.BM", "xx.YY"]), ["biomolecules"]);
    }

    #[test]
    fn candidates_are_stopword_delimited_runs() {
        let c = candidates("Quantization of large language models, revisited.");
        assert!(c.contains(&"quantization".to_string()));
        assert!(c.contains(&"large-language-models".to_string()));
        assert!(!c.iter().any(|p| p.contains("of")));
        assert!(!c.iter().any(|p| p.contains("models-revisited") && p.contains("language-models-revisited-")));
    }

    #[test]
    fn extraction_prefers_the_vocabulary_and_is_deterministic() {
        let vocab: BTreeSet<String> =
            ["large-language-models", "quantization", "knowledge-distillation"].iter().map(|s| s.to_string()).collect();
        let vocab = Vocabulary::new(vocab);
        let title = "Post-training quantization for LLMs";
        let abs = "We study post-training quantization of large language models. Quantization reduces memory; \
                   knowledge distillation recovers accuracy after quantization.";
        let tags = extract(title, abs, &vocab, Canon::builtin(), 4);
        assert!(
            tags.contains(&"quantization".to_string()) || tags.iter().any(|t| t.contains("quantization")),
            "{tags:?}"
        );
        assert!(tags.contains(&"large-language-models".to_string()), "{tags:?}");
        assert!(tags.len() <= 4);
        assert_eq!(tags, extract(title, abs, &vocab, Canon::builtin(), 4));
    }

    #[test]
    fn stopping_early_changes_nothing() {
        // With max = 1000 nothing stops early; its first `max` tags must be the answer.
        let vocab = Vocabulary::new(["graph-neural-networks", "protein-folding", "retrieval"].map(String::from).into());
        let texts = [
            (
                "Graph neural networks for protein folding",
                "We fold proteins with message passing over residue graphs, and retrieval of templates helps; ablations show retrieval matters more than depth for long proteins with many contacts.",
            ),
            (
                "Dense retrieval at scale",
                "Dense retrieval with learned embeddings, hard negatives, distillation from cross-encoders, and efficient approximate nearest neighbour search over billions of passages for open-domain question answering and fact checking.",
            ),
            ("A short note", "Nothing much."),
        ];
        for (title, abs) in texts {
            let all = extract(title, abs, &vocab, Canon::builtin(), 1000);
            for max in 1..=6 {
                let got = extract(title, abs, &vocab, Canon::builtin(), max);
                assert_eq!(got, all.iter().take(max).cloned().collect::<Vec<_>>(), "{title} max={max}");
            }
        }
    }
}
