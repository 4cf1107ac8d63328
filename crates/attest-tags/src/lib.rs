//! Tags without a model.
//!
//! Concepts in attest are tags, and tags come from two places: what feeds already
//! carry (RSS/Atom categories, arXiv primary and cross-list categories, mapped to
//! concepts by [`keyphrase::arxiv_tags`]) and a deterministic concept extractor over
//! titles and abstracts ([`keyphrase::extract`]). [`canon`] decides the one spelling a
//! concept goes by (an alias table plus fold keys, so `machine-learning` and
//! `machinelearning` are one concept); [`words`] is the list of function words every
//! term extractor in attest drops.
//!
//! The feed's ingest tags new items with this crate, `attest tag` tags older ones, and
//! the knowledge surface builds its graph from the result. Everything here is pure:
//! plain inputs, plain values back, no I/O.
#![warn(missing_docs)]

use std::collections::{BTreeSet, HashMap};

pub mod canon;
pub mod chat;
pub mod keyphrase;
pub mod merge;
pub mod words;

pub use canon::{Canon, fold_key, normalize};

/// Tags that name a venue, a format, a kind of post or a feed rather than a topic:
/// never suggested as interests, never accepted from the chat tagger.
pub const NON_TOPIC_TAGS: &[&str] = &[
    "announcement",
    "article",
    "arxiv",
    "blog",
    "conference",
    "editorial",
    "general",
    "journal",
    "misc",
    "nature",
    "news",
    "newsletter",
    "other",
    "paper",
    "podcast",
    "preprint",
    "press-release",
    "release",
    "report",
    "research",
    "retraction",
    "review",
    "science",
    "science-feed",
    "uncategorized",
    "update",
];

/// Concept tags the extractor writes per item unless told otherwise.
pub const DEFAULT_TAGS_PER_ITEM: usize = 6;

/// A stored tag as concepts: an arXiv category becomes the concepts it stands for
/// (`cs.LG` → `machine-learning`), anything else is itself.
pub fn concept_tags(tag: &str) -> Vec<String> {
    let mapped = keyphrase::arxiv_tags(&[tag]);
    if mapped.is_empty() { vec![tag.to_string()] } else { mapped }
}

/// The canonical concept names an archive already uses, with the fold key of each
/// computed once: what [`keyphrase::extract`] and the chat tagger map new tags onto,
/// so an archive converges on its own words.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    names: BTreeSet<String>,
    /// fold key → the spelling it stands for (the last by name, when several fold alike).
    folded: HashMap<String, String>,
    /// stem key ([`keyphrase::stem_key`]) → the spelling it stands for (the first by name).
    stems: HashMap<String, String>,
}

impl Vocabulary {
    /// A vocabulary of these canonical names.
    pub fn new(names: BTreeSet<String>) -> Vocabulary {
        let folded = names.iter().map(|n| (fold_key(n), n.clone())).collect();
        let mut stems = HashMap::new();
        for n in &names {
            stems.entry(keyphrase::stem_key(n)).or_insert_with(|| n.clone());
        }
        Vocabulary { names, folded, stems }
    }

    /// Whether `name` is in it, spelled exactly so.
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The spelling `canonical` takes here, and whether the vocabulary knew it: itself
    /// when present, else the known spelling that folds alike, else itself (unknown).
    pub fn spelling(&self, canonical: String) -> (String, bool) {
        if self.names.contains(&canonical) {
            return (canonical, true);
        }
        match self.folded.get(&fold_key(&canonical)) {
            Some(known) => (known.clone(), true),
            None => (canonical, false),
        }
    }

    /// The spelling here of a canonical name whose stem key is `key`: the name itself,
    /// the one that folds alike, or the one with the same stem key; `None` when unknown.
    pub fn lookup(&self, canonical: &str, key: &str) -> Option<String> {
        self.lookup_folded(canonical, &fold_key(canonical), key)
    }

    /// [`Vocabulary::lookup`] with the fold key already computed.
    pub fn lookup_folded(&self, canonical: &str, fold: &str, key: &str) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        if self.names.contains(canonical) {
            return Some(canonical.to_string());
        }
        self.folded.get(fold).or_else(|| self.stems.get(key)).cloned()
    }

    /// Add a name (a tag just written).
    pub fn insert(&mut self, name: String) {
        self.stems.entry(keyphrase::stem_key(&name)).or_insert_with(|| name.clone());
        self.folded.insert(fold_key(&name), name.clone());
        self.names.insert(name);
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The vocabulary of an archive from its stored tags (arXiv categories become their
/// concepts; every tag is canonicalised).
pub fn vocabulary<I, S>(stored: I, canon: &Canon) -> Vocabulary
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    Vocabulary::new(stored.into_iter().flat_map(|t| concept_tags(t.as_ref())).map(|t| canon.canonical(&t)).collect())
}

/// Concept tags for one item: [`keyphrase::extract`] over its title and summary,
/// mapped onto `known` (the archive's [`vocabulary`]), leaving out what the item's own
/// (feed) tags already say. Alone, an item keeps only concepts a vocabulary knows;
/// [`batch_concepts`] also keeps phrases that recur across the batch.
pub fn item_keyphrases(title: &str, summary: &str, own_tags: &[String], known: &Vocabulary, max: usize) -> Vec<String> {
    batch_concepts(&[(title, summary, own_tags)], known, max).pop().unwrap_or_default()
}

/// Concept tags for a batch of items `(title, summary, own tags)`: each item's
/// [`keyphrase::candidates`], kept by [`keyphrase::select`] when known to `known` (the
/// archive's [`vocabulary`]) or the built-in vocabulary, or when they recur across the
/// batch; at most `max` per item, leaving out what an item's own tags already say.
pub fn batch_concepts(items: &[(&str, &str, &[String])], known: &Vocabulary, max: usize) -> Vec<Vec<String>> {
    let canon = Canon::builtin();
    let cands: Vec<Vec<keyphrase::Candidate>> =
        items.iter().map(|(t, s, _)| keyphrase::candidates(t, s, known, canon)).collect();
    select_without_own(&cands, items.iter().map(|i| i.2), max)
}

/// [`keyphrase::select`], then leave out of each item what its own tags already say
/// (the tag itself or the concept it stands for).
pub fn select_without_own<'a>(
    cands: &[Vec<keyphrase::Candidate>],
    own: impl Iterator<Item = &'a [String]>,
    max: usize,
) -> Vec<Vec<String>> {
    let canon = Canon::builtin();
    keyphrase::select(cands, max + 2)
        .into_iter()
        .zip(own)
        .map(|(tags, own_tags)| {
            let own = vocabulary(own_tags, canon);
            let mut kept: Vec<String> =
                tags.into_iter().filter(|k| !own.contains(k) && !own_tags.contains(k)).collect();
            kept.truncate(max);
            kept
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arxiv_categories_become_concepts_and_others_stay() {
        assert_eq!(concept_tags("cs.LG"), ["machine-learning"]);
        assert_eq!(concept_tags("protein-folding"), ["protein-folding"]);
        let v = vocabulary(["cs.LG", "LLM", "protein-folding"], Canon::builtin());
        assert!(v.contains("machine-learning"), "{v:?}");
        assert!(v.contains("large-language-models"), "{v:?}");
        assert!(v.contains("protein-folding"), "{v:?}");
    }
}
