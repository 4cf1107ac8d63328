//! Canonical concept names.
//!
//! A tag reaches the graph under one spelling. Two mechanisms decide it:
//!
//! - the alias table (`aliases.toml`, data): abbreviations and variant spellings of the
//!   same concept (`llm` → `large-language-models`). Never hierarchy.
//! - the fold key: a tag lower-cased, with `_`, spaces and hyphens ignored and one light
//!   plural removed, so `machine-learning`, `machinelearning`, `Machine_Learning` and
//!   `machine learning` share the key `machinelearning`. Folding only *merges* onto a
//!   spelling that is already known (the table's preferred spellings, or a spelling the
//!   archive itself uses); it never invents one.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The alias table shipped with attest.
pub const ALIASES_TOML: &str = include_str!("aliases.toml");

#[derive(Deserialize)]
struct TableFile {
    #[serde(default)]
    aliases: HashMap<String, String>,
    #[serde(default)]
    preferred: Preferred,
}

#[derive(Deserialize, Default)]
struct Preferred {
    #[serde(default)]
    spellings: Vec<String>,
}

/// An alias table and the fold table derived from it.
#[derive(Debug, Clone, Default)]
pub struct Canon {
    aliases: HashMap<String, String>,
    /// fold key → the spelling it merges onto.
    fold: HashMap<String, String>,
}

impl Canon {
    /// The table shipped with attest (`aliases.toml`), parsed once.
    pub fn builtin() -> &'static Canon {
        static BUILTIN: OnceLock<Canon> = OnceLock::new();
        BUILTIN.get_or_init(|| Canon::from_toml(ALIASES_TOML).expect("the shipped aliases.toml parses"))
    }

    /// Parse a table in the format of `aliases.toml`.
    pub fn from_toml(text: &str) -> Result<Canon, toml::de::Error> {
        let file: TableFile = toml::from_str(text)?;
        let mut canon = Canon::default();
        let mut keys: Vec<(String, String)> = file.aliases.into_iter().collect();
        keys.sort();
        for (from, to) in keys {
            let (from, to) = (normalize(&from), normalize(&to));
            if from.is_empty() || to.is_empty() {
                continue;
            }
            canon.fold.entry(fold_key(&to)).or_insert_with(|| to.clone());
            canon.aliases.insert(from, to);
        }
        for s in file.preferred.spellings {
            let s = normalize(&s);
            if !s.is_empty() {
                canon.fold.entry(fold_key(&s)).or_insert(s);
            }
        }
        Ok(canon)
    }

    /// The canonical spelling of a tag: normalised, aliased, then merged onto a known
    /// spelling with the same fold key. An unknown tag comes back normalised and
    /// otherwise unchanged. Empty for a tag with no letters or digits.
    pub fn canonical(&self, tag: &str) -> String {
        let n = normalize(tag);
        if n.is_empty() {
            return n;
        }
        if let Some(to) = self.aliases.get(&n) {
            return to.clone();
        }
        match self.fold.get(&fold_key(&n)) {
            Some(s) => self.aliases.get(s).cloned().unwrap_or_else(|| s.clone()),
            None => n,
        }
    }

    /// [`Canon::canonical`] with the [`fold_key`] of the result, computing the fold
    /// key once when the tag is its own canonical spelling (the usual case).
    pub fn canonical_folded(&self, tag: &str) -> (String, String) {
        let n = normalize(tag);
        if n.is_empty() {
            let fold = fold_key(&n);
            return (n, fold);
        }
        let named = |s: &String| {
            let fold = fold_key(s);
            (s.clone(), fold)
        };
        if let Some(to) = self.aliases.get(&n) {
            return named(to);
        }
        let fold = fold_key(&n);
        match self.fold.get(&fold) {
            Some(s) => named(self.aliases.get(s).unwrap_or(s)),
            None => (n, fold),
        }
    }

    /// Whether the table itself names this spelling (an alias target or a preferred
    /// spelling), as opposed to one only the archive uses.
    pub fn is_known(&self, spelling: &str) -> bool {
        self.fold.get(&fold_key(spelling)).is_some_and(|s| s == spelling)
    }

    /// Every name the table prefers (alias targets and preferred spellings), sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.fold.values().cloned().collect();
        v.sort();
        v.dedup();
        v
    }

    /// How many aliases the table holds.
    pub fn alias_count(&self) -> usize {
        self.aliases.len()
    }
}

/// Lower-case a tag and join its words with single hyphens: anything that is not a
/// letter, a digit, `+`, `#` or `.` separates words (`"Machine_Learning"` and
/// `"machine learning"` both give `machine-learning`).
pub fn normalize(tag: &str) -> String {
    let mut out = String::with_capacity(tag.len());
    for c in tag.trim().chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() || matches!(c, '+' | '#' | '.') {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with(['-', '.']) {
        out.pop();
    }
    while out.starts_with('.') {
        out.remove(0);
    }
    out
}

/// Words whose trailing `s` is not a plural.
const NOT_PLURAL: &[&str] = &["news", "series", "species", "lens", "bayes", "chaos", "mechanics", "ethics"];

/// The fold key of a tag: normalised, hyphens removed, one light plural folded
/// (`-ies` → `-y` on long words; a final `s` unless the word ends in `ss`, `us`, `is`,
/// `as`, `os`, `ys`, `ics` or is a known non-plural).
pub fn fold_key(tag: &str) -> String {
    let n = normalize(tag);
    let mut k: String = n.chars().filter(|&c| c != '-').collect();
    let last_word = n.rsplit('-').next().unwrap_or_default();
    if NOT_PLURAL.contains(&last_word) {
        return k;
    }
    if k.len() > 5 && k.ends_with("ies") {
        k.truncate(k.len() - 3);
        k.push('y');
    } else if k.len() >= 4
        && k.ends_with('s')
        && !["ss", "us", "is", "as", "os", "ys", "ics"].iter().any(|e| k.ends_with(e))
    {
        k.pop();
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spelling_variants_share_one_key() {
        let keys: Vec<String> =
            ["machine-learning", "machinelearning", "Machine_Learning", "machine learning", "Machine-Learnings"]
                .iter()
                .map(|t| fold_key(t))
                .collect();
        assert!(keys.iter().all(|k| k == "machinelearning"), "{keys:?}");
        assert_eq!(fold_key("ontologies"), "ontology");
        assert_eq!(fold_key("robotics"), "robotics");
        assert_eq!(fold_key("news"), "news");
        assert_eq!(fold_key("analysis"), "analysis");
    }

    #[test]
    fn aliases_and_folding() {
        let c = Canon::builtin();
        assert_eq!(c.canonical("LLMs"), "large-language-models");
        assert_eq!(c.canonical("llm"), "large-language-models");
        assert_eq!(c.canonical("NLP"), "natural-language-processing");
        assert_eq!(c.canonical("Machine_Learning"), "machine-learning");
        assert_eq!(c.canonical("machinelearning"), "machine-learning");
        assert_eq!(c.canonical("finetuning"), "fine-tuning");
        assert_eq!(c.canonical("embedding"), "embeddings");
        assert_eq!(c.canonical("Large Language Model"), "large-language-models");
        // Unknown tags are normalised, never renamed.
        assert_eq!(c.canonical("Graph Rewriting"), "graph-rewriting");
        assert_eq!(c.canonical("  --  "), "");
        assert!(c.is_known("machine-learning"));
        assert!(!c.is_known("graph-rewriting"));
        for t in ["LLMs", "Machine_Learning", "machinelearning", "Graph Rewriting", "  --  ", ".-a", "embedding"] {
            assert_eq!(c.canonical_folded(t), (c.canonical(t), fold_key(&c.canonical(t))), "{t}");
        }
    }
}
