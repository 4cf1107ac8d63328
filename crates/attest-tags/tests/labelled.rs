//! Tag quality on a labelled set (`tests/data/labelled.jsonl`): 64 items from five
//! areas (machine learning, chemistry, physics, biology, systems), each with the
//! concepts a careful reader would tag it with. A gold concept may list accepted
//! variants (`a|b`); a tag matches a gold concept when their stem keys agree after
//! canonicalisation. The whole set is one batch, as one ingest of a few feeds is.
//!
//! Precision = matching tags / tags; recall = gold concepts matched / gold concepts.

use std::collections::BTreeMap;

use attest_tags::keyphrase::{self, Candidate};
use attest_tags::{Canon, Vocabulary};
use serde::Deserialize;

#[derive(Deserialize)]
struct Labelled {
    id: u32,
    area: String,
    title: String,
    #[serde(rename = "abstract")]
    abstract_: String,
    concepts: Vec<String>,
}

fn set() -> Vec<Labelled> {
    include_str!("data/labelled.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn key(tag: &str) -> String {
    keyphrase::stem_key(&Canon::builtin().canonical(tag))
}

#[derive(Default, Debug)]
struct Tally {
    tags: usize,
    right: usize,
    gold: usize,
    found: usize,
}

impl Tally {
    fn precision(&self) -> f64 {
        self.right as f64 / self.tags.max(1) as f64
    }
    fn recall(&self) -> f64 {
        self.found as f64 / self.gold.max(1) as f64
    }
}

/// Tags for the whole set, with or without the built-in vocabulary, and the tallies
/// overall and per area; every item's tags and misses are printed for a reader.
fn measure(builtin: bool, policy: &keyphrase::Policy) -> (Tally, BTreeMap<String, Tally>, Vec<Vec<String>>) {
    let items = set();
    let canon = Canon::builtin();
    let archive = Vocabulary::default();
    let b = builtin.then(keyphrase::known);
    let cands: Vec<Vec<Candidate>> =
        items.iter().map(|i| keyphrase::candidates_in(&i.title, &i.abstract_, &archive, b, canon)).collect();
    let tags = keyphrase::select_with(&cands, attest_tags::DEFAULT_TAGS_PER_ITEM, policy);
    let mut all = Tally::default();
    let mut by_area: BTreeMap<String, Tally> = BTreeMap::new();
    for (item, tags) in items.iter().zip(&tags) {
        let gold: Vec<Vec<String>> = item.concepts.iter().map(|g| g.split('|').map(key).collect()).collect();
        let right = tags.iter().filter(|t| gold.iter().any(|g| g.contains(&key(t)))).count();
        let found = gold.iter().filter(|g| tags.iter().any(|t| g.contains(&key(t)))).count();
        for t in [&mut all, by_area.entry(item.area.clone()).or_default()] {
            t.tags += tags.len();
            t.right += right;
            t.gold += gold.len();
            t.found += found;
        }
        let wrong: Vec<&String> = tags.iter().filter(|t| !gold.iter().any(|g| g.contains(&key(t)))).collect();
        println!("{:>2} {:?}\n   wrong {:?}", item.id, tags, wrong);
    }
    (all, by_area, tags)
}

#[test]
fn precision_and_recall_on_the_labelled_set() {
    let (all, by_area, tags) = measure(true, &keyphrase::Policy::default());
    for (area, t) in &by_area {
        println!("{area:<6} precision {:.3} recall {:.3} ({} tags)", t.precision(), t.recall(), t.tags);
    }
    println!(
        "all    precision {:.3} recall {:.3} ({} tags, {} gold)",
        all.precision(),
        all.recall(),
        all.tags,
        all.gold
    );
    assert!(all.precision() >= 0.7, "precision {:.3}", all.precision());
    assert!(all.recall() >= 0.6, "recall {:.3}", all.recall());
    // No tag ends in (or is) a function word, and none is an arXiv code.
    for t in tags.iter().flatten() {
        let last = t.rsplit('-').next().unwrap();
        assert!(!attest_tags::words::is_function_word(last), "{t}");
        assert!(!t.contains('.'), "{t}");
    }
}

#[test]
fn without_the_built_in_vocabulary() {
    // The archive's words alone, with no list of known concepts. Reported in
    // specs/feed.md; held to a lower floor.
    let (all, _, _) = measure(false, &keyphrase::Policy::default());
    println!("no built-in vocabulary: precision {:.3} recall {:.3} ({} tags)", all.precision(), all.recall(), all.tags);
    assert!(all.precision() >= 0.55, "precision {:.3}", all.precision());
    assert!(all.recall() >= 0.5, "recall {:.3}", all.recall());
}

#[test]
fn concepts_only_are_precise() {
    // Known or recurring in the batch, no phrase of one item: what the concept graph
    // is made of. Fewer tags, higher precision.
    let (all, _, _) = measure(true, &keyphrase::Policy::concepts_only());
    println!("concepts only: precision {:.3} recall {:.3} ({} tags)", all.precision(), all.recall(), all.tags);
    assert!(all.precision() >= 0.8, "precision {:.3}", all.precision());
}
