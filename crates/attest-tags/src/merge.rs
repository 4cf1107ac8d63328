//! Near-duplicate concepts found by embeddings (used only when an embedding server is
//! configured; the caller embeds each concept name once and stores the vectors).
//!
//! Pure: concept names with their item counts, one unit vector per name (or none), and
//! the pairs of concepts some item carries together, in; merges `alias → canonical`
//! out. Two concepts merge only when **both** hold:
//!
//! - their name vectors are at cosine ≥ [`MERGE_COSINE`], and
//! - they are lexically related ([`relation`]: one is the acronym of the other, or one
//!   is the other plus generic nouns only, `graph-neural-networks-model` →
//!   `graph-neural-networks`) or some item carries both.
//!
//! Two names of the built-in vocabulary ([`crate::keyphrase::known`]) never merge: that
//! list was written to hold distinct concepts. The canonical side is the built-in name
//! when one of the two is, else the concept on more items (then the one of more words,
//! then the first by name). Each concept takes part in at most one merge, as alias or as
//! canonical, so merges never chain (`a ≈ b ≈ c` does not join `a` and `c`). Pairs are
//! taken by cosine, highest first (ties by name), so the same vectors give the same
//! merges in any input order.
//!
//! Bounded: the caller passes at most [`MERGE_MAX_CONCEPTS`] concepts (the most used),
//! and only pairs that share a content word, an acronym key or an item are scored.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::keyphrase;
use crate::words::is_function_word;

/// Cosine at or above which two lexically related (or co-occurring) concept names are
/// one concept. Written once, here.
///
/// Why 0.95: short phrases of one field sit high in any embedding model, and siblings
/// (`supervised-learning` / `unsupervised-learning`, `neural-networks` /
/// `graph-neural-networks`) reach 0.85–0.95 in common models (specs/kg.md). A merge
/// is automatic and silently joins two of a reader's areas, so the bar sits at the top
/// of that band, above the 0.93 once proposed for *advisory* pairs; the lexical (or
/// shared-item) condition and the rule that two built-in names never merge carry the
/// rest of the safety. Not tuned on a real model (none is run in the tests).
pub const MERGE_COSINE: f32 = 0.95;

/// Most concepts compared in one pass (the most used first): bounds the vectors asked
/// for and the pairs scored, whatever the archive's size (at most n²/2 = 2 M pairs).
pub const MERGE_MAX_CONCEPTS: usize = 2_000;

/// A concept and how many items carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConceptUse {
    /// The canonical name (`graph-neural-networks`).
    pub name: String,
    /// Items carrying it.
    pub items: usize,
}

/// Why two names may be one concept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// One is the initials of the other (`snn`, `spiking-neural-networks`).
    Acronym,
    /// One is the other plus generic nouns (`graph-neural-networks-model`).
    Reworded,
    /// Some item carries both.
    SharedItems,
}

impl Relation {
    /// A short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Relation::Acronym => "acronym",
            Relation::Reworded => "reworded",
            Relation::SharedItems => "shared items",
        }
    }
}

/// One merge: every use of `alias` becomes `canonical`.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// The name that goes.
    pub alias: String,
    /// The name that stays.
    pub canonical: String,
    /// Cosine of the two name vectors.
    pub cosine: f32,
    /// Why the pair was considered.
    pub relation: Relation,
}

fn words(name: &str) -> Vec<&str> {
    name.split(['-', ' ', '_']).filter(|w| !w.is_empty()).collect()
}

fn generic(word: &str) -> bool {
    keyphrase::is_generic_noun(word) || word.strip_suffix('s').is_some_and(keyphrase::is_generic_noun)
}

/// Acronym keys of a name: its initials (all words, and content words only) for a name
/// of two words or more; the word itself (and without a plural `s`) for one word.
fn acronym_keys(name: &str) -> Vec<String> {
    let ws = words(name);
    let mut keys = Vec::new();
    match ws.as_slice() {
        [] => {}
        [one] => {
            if (2..=8).contains(&one.len()) && one.chars().all(|c| c.is_ascii_alphanumeric()) {
                keys.push(one.to_string());
                if let Some(s) = one.strip_suffix('s').filter(|s| s.len() >= 2) {
                    keys.push(s.to_string());
                }
            }
        }
        many => {
            let initials = |f: &dyn Fn(&&str) -> bool| -> String {
                many.iter().filter(|w| f(w)).filter_map(|w| w.chars().next()).collect()
            };
            keys.push(initials(&|_| true));
            let content = initials(&|w| !is_function_word(w));
            if content != keys[0] {
                keys.push(content);
            }
        }
    }
    keys
}

/// How two concept names are related by their words, if they are: an acronym and its
/// expansion, or a name and the same name plus generic nouns only.
pub fn relation(a: &str, b: &str) -> Option<Relation> {
    let (wa, wb) = (words(a), words(b));
    if (wa.len() == 1) != (wb.len() == 1) {
        let (one, many) = if wa.len() == 1 { (a, b) } else { (b, a) };
        let short = acronym_keys(one);
        if acronym_keys(many).iter().any(|k| k.len() >= 2 && short.contains(k)) {
            return Some(Relation::Acronym);
        }
    }
    let (short, long) = if wa.len() <= wb.len() { (&wa, &wb) } else { (&wb, &wa) };
    if short.len() == long.len() {
        return None;
    }
    let key = |w: &str| keyphrase::stem_key(w);
    let short_keys: BTreeSet<String> = short.iter().map(|w| key(w)).collect();
    if short.iter().all(|w| generic(w) || is_function_word(w)) {
        return None;
    }
    let mut extra = 0;
    let mut long_keys = BTreeSet::new();
    for w in long.iter() {
        let k = key(w);
        if !short_keys.contains(&k) {
            if !(generic(w) || is_function_word(w)) {
                return None;
            }
            extra += 1;
        }
        long_keys.insert(k);
    }
    (extra > 0 && short_keys.is_subset(&long_keys)).then_some(Relation::Reworded)
}

/// Cosine of two unit vectors (0 when their lengths differ), summed in index order.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The pairs worth scoring: those sharing a content word or an acronym key, and those
/// in `shared` (indices into `concepts`, smaller first).
fn candidate_pairs(concepts: &[ConceptUse], shared: &BTreeSet<(usize, usize)>) -> BTreeSet<(usize, usize)> {
    let mut by_word: HashMap<String, Vec<usize>> = HashMap::new();
    let mut by_acronym: HashMap<String, (Vec<usize>, Vec<usize>)> = HashMap::new();
    for (i, c) in concepts.iter().enumerate() {
        let ws = words(&c.name);
        let mut seen = BTreeSet::new();
        for w in &ws {
            if !is_function_word(w) && !generic(w) && seen.insert(keyphrase::stem_key(w)) {
                by_word.entry(keyphrase::stem_key(w)).or_default().push(i);
            }
        }
        for k in acronym_keys(&c.name) {
            let e = by_acronym.entry(k).or_default();
            if ws.len() == 1 { e.0.push(i) } else { e.1.push(i) }
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = shared.iter().copied().filter(|(a, b)| a != b).collect();
    let mut add = |a: usize, b: usize| {
        if a != b {
            pairs.insert((a.min(b), a.max(b)));
        }
    };
    for members in by_word.values() {
        for (x, &a) in members.iter().enumerate() {
            for &b in &members[x + 1..] {
                add(a, b);
            }
        }
    }
    for (ones, manys) in by_acronym.values() {
        for &a in ones {
            for &b in manys {
                add(a, b);
            }
        }
    }
    pairs
}

/// The merges among `concepts` (at most [`MERGE_MAX_CONCEPTS`] are looked at, in the
/// order given), with `vectors[i]` the unit vector of `concepts[i]`'s name (`None`:
/// not embedded, never merged) and `shared` the pairs `(i, j)`, `i < j`, some item
/// carries together. Sorted by alias.
pub fn near_duplicates(
    concepts: &[ConceptUse],
    vectors: &[Option<&[f32]>],
    shared: &BTreeSet<(usize, usize)>,
) -> Vec<Merge> {
    let n = concepts.len().min(vectors.len()).min(MERGE_MAX_CONCEPTS);
    let concepts = &concepts[..n];
    let shared: BTreeSet<(usize, usize)> = shared.iter().copied().filter(|&(a, b)| a < n && b < n).collect();
    let known = keyphrase::known();
    let mut scored: Vec<(f32, usize, usize, Relation)> = Vec::new();
    for (a, b) in candidate_pairs(concepts, &shared) {
        let (Some(va), Some(vb)) = (vectors[a], vectors[b]) else { continue };
        let (na, nb) = (&concepts[a].name, &concepts[b].name);
        let (ka, kb) = (known.contains(na), known.contains(nb));
        if ka && kb {
            continue;
        }
        // The cosine first: it is cheaper than the words' stems and rules out most pairs.
        let cos = cosine(va, vb);
        if cos < MERGE_COSINE {
            continue;
        }
        let Some(rel) = relation(na, nb).or_else(|| shared.contains(&(a, b)).then_some(Relation::SharedItems)) else {
            continue;
        };
        // The canonical side first.
        let a_stays = match (ka, kb) {
            (true, false) => true,
            (false, true) => false,
            _ => (concepts[a].items, words(na).len(), std::cmp::Reverse(na))
                .cmp(&(concepts[b].items, words(nb).len(), std::cmp::Reverse(nb)))
                .is_ge(),
        };
        let (stay, go) = if a_stays { (a, b) } else { (b, a) };
        scored.push((cos, go, stay, rel));
    }
    scored.sort_by(|x, y| {
        y.0.total_cmp(&x.0)
            .then_with(|| concepts[x.1].name.cmp(&concepts[y.1].name))
            .then_with(|| concepts[x.2].name.cmp(&concepts[y.2].name))
    });
    let mut taken: BTreeMap<usize, ()> = BTreeMap::new();
    let mut out = Vec::new();
    for (cos, go, stay, relation) in scored {
        if taken.contains_key(&go) || taken.contains_key(&stay) {
            continue;
        }
        taken.insert(go, ());
        taken.insert(stay, ());
        out.push(Merge {
            alias: concepts[go].name.clone(),
            canonical: concepts[stay].name.clone(),
            cosine: cos,
            relation,
        });
    }
    out.sort_by(|x, y| x.alias.cmp(&y.alias));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_relate_names_by_acronym_or_generic_nouns_only() {
        let cases: &[(&str, &str, Option<Relation>)] = &[
            ("graph-neural-networks", "graph-neural-networks-model", Some(Relation::Reworded)),
            ("snn", "spiking-neural-networks", Some(Relation::Acronym)),
            ("snns", "spiking-neural-networks", Some(Relation::Acronym)),
            ("mpc", "model-predictive-control", Some(Relation::Acronym)),
            ("neural-networks", "graph-neural-networks", None),
            ("supervised-learning", "unsupervised-learning", None),
            ("n-type", "p-type", None),
            ("protein", "stock-markets", None),
            ("models", "model-results", None),
            ("diffusion-models", "latent-diffusion-models", None),
            ("diffusion-models", "diffusion-models-approach", Some(Relation::Reworded)),
        ];
        for (a, b, want) in cases {
            assert_eq!(relation(a, b), *want, "{a} / {b}");
            assert_eq!(relation(b, a), *want, "{b} / {a}");
        }
    }

    fn c(name: &str, items: usize) -> ConceptUse {
        ConceptUse { name: name.into(), items }
    }

    #[test]
    fn close_related_pairs_merge_onto_the_more_used_and_never_chain() {
        let concepts =
            [c("gnn-x", 1), c("spiking-neural-networks-x", 3), c("snnx", 1), c("neural-networks-x", 4), c("x-y", 2)];
        // Vectors: the first three near one direction, the fourth a little apart.
        let near = [1.0_f32, 0.0];
        let also = [0.99_f32, 0.141];
        let apart = [0.9_f32, 0.436];
        let vs: Vec<Option<&[f32]>> = vec![Some(&near), Some(&near), Some(&also), Some(&apart), None];
        let merges = near_duplicates(&concepts, &vs, &BTreeSet::new());
        assert_eq!(merges.len(), 1, "{merges:?}");
        assert_eq!((merges[0].alias.as_str(), merges[0].canonical.as_str()), ("snnx", "spiking-neural-networks-x"));
        assert_eq!(merges[0].relation, Relation::Acronym);
        // Shared items make an unrelated pair a candidate.
        let shared = BTreeSet::from([(0, 1)]);
        let merges = near_duplicates(&concepts, &vs, &shared);
        assert_eq!(merges.iter().map(|m| m.alias.as_str()).collect::<Vec<_>>(), ["gnn-x"], "{merges:?}");
        // The same input reversed gives the same merges.
        let mut rev = concepts.to_vec();
        rev.reverse();
        let mut rvs = vs.clone();
        rvs.reverse();
        let rshared = BTreeSet::from([(3, 4)]);
        assert_eq!(near_duplicates(&rev, &rvs, &rshared), merges);
    }

    #[test]
    fn two_built_in_names_never_merge() {
        let known = keyphrase::known();
        assert!(known.contains("graph-neural-networks") && known.contains("neural-networks"));
        let concepts = [c("graph-neural-networks", 2), c("neural-networks", 2)];
        let v = [1.0_f32, 0.0];
        let merges = near_duplicates(&concepts, &[Some(&v), Some(&v)], &BTreeSet::from([(0, 1)]));
        assert!(merges.is_empty(), "{merges:?}");
    }
}
