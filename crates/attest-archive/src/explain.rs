//! Why an item was placed where it is: deterministic, instant, no model.
//!
//! The explanation names the evidence the ranker actually used: the interest words the
//! item matched (strongest first), the tags, content type and source the reader rated
//! up or down, and the words the click classifier weighs most in this item. It never
//! invents a reason: when nothing matched, it says so.

use serde::Serialize;

use crate::rank::{Corpus, KeyCounts, ReaderModel};

/// How many words or keys each part names at most.
const NAMED: usize = 4;

/// A key the reader rated, with the counts behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatedKey {
    /// The key as shown ("tag protein-design", "type survey", "source arXiv q-bio").
    pub label: String,
    /// Useful clicks on items carrying it.
    pub useful: u32,
    /// Not-useful clicks on items carrying it.
    pub not_useful: u32,
}

/// Why an item is where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The item.
    pub item_id: i64,
    /// One or two sentences naming the evidence; show verbatim.
    pub text: String,
    /// Interest words the item matched, strongest first.
    pub interest_words: Vec<String>,
    /// Keys of the item the reader rated useful more often than not.
    pub liked: Vec<RatedKey>,
    /// Keys of the item the reader rated not useful more often than not.
    pub disliked: Vec<RatedKey>,
    /// Words of the item the click classifier weighs towards "useful" (only when
    /// the classifier is active).
    pub learned_words: Vec<String>,
    /// The item's source.
    pub source: String,
}

/// Explain one item for a reader. `None` when the item is not in the corpus.
pub fn explain(corpus: &Corpus, model: &ReaderModel, item_id: i64) -> Option<Explanation> {
    let d = corpus.position(item_id)?;
    let item = corpus.item(d);
    let mut words: Vec<(&str, f32)> = model.query.contributions(corpus, d).collect();
    words.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let interest_words: Vec<String> = words.iter().take(NAMED).map(|w| w.0.to_string()).collect();

    let mut liked = Vec::new();
    let mut disliked = Vec::new();
    for key in corpus.keys_of(d) {
        let Some(c) = model.preferences.get(key) else { continue };
        let rated = RatedKey { label: key_label(key, &item.source), useful: c.useful, not_useful: c.not_useful };
        let s = KeyCounts::score(c);
        if s > 0.5 {
            liked.push((s, rated));
        } else if s < 0.5 {
            disliked.push((s, rated));
        }
    }
    liked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.label.cmp(&b.1.label)));
    disliked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.label.cmp(&b.1.label)));
    let liked: Vec<RatedKey> = liked.into_iter().take(NAMED).map(|e| e.1).collect();
    let disliked: Vec<RatedKey> = disliked.into_iter().take(NAMED).map(|e| e.1).collect();

    let learned_words: Vec<String> = match &model.classifier {
        Some(clf) => clf.top_terms(corpus, d, NAMED).into_iter().map(|(t, _)| t.to_string()).collect(),
        None => Vec::new(),
    };

    let mut sentences: Vec<String> = Vec::new();
    if interest_words.is_empty() {
        sentences.push("None of your interest words occur in it".into());
    } else {
        sentences.push(format!("It matches your interests in {}", interest_words.join(", ")));
    }
    if !liked.is_empty() && model.preference_active {
        sentences.push(format!("you rated {} useful before", rated_list(&liked)));
    } else if !liked.is_empty() {
        sentences.push(format!(
            "you rated {} useful before (not yet used: tag and source preferences wait for a first not-useful rating)",
            rated_list(&liked)
        ));
    }
    if !disliked.is_empty() {
        sentences.push(format!("you rated {} not useful, which pulls it down", rated_list(&disliked)));
    }
    if !learned_words.is_empty() {
        sentences.push(format!("items you found useful share the words {}", learned_words.join(", ")));
    }
    let mut text = sentences.join("; ");
    if !item.source.is_empty() {
        text.push_str(&format!(". Source: {}.", item.source));
    } else {
        text.push('.');
    }
    if interest_words.is_empty() && liked.is_empty() && learned_words.is_empty() {
        text.push_str(" It is listed for recency, not topic.");
    }
    Some(Explanation { item_id, text, interest_words, liked, disliked, learned_words, source: item.source.clone() })
}

fn key_label(key: &str, source: &str) -> String {
    match key.split_once(':') {
        Some(("source", _)) if !source.is_empty() => format!("source {source}"),
        Some((kind, value)) => format!("{kind} {value}"),
        None => key.to_string(),
    }
}

fn rated_list(keys: &[RatedKey]) -> String {
    keys.iter()
        .map(|k| format!("{} ({} of {})", k.label, k.useful.max(k.not_useful), k.useful + k.not_useful))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Click, ClickSource};
    use crate::rank::RankItem;

    fn item(id: i64, title: &str, tags: &[&str], source_id: i64) -> RankItem {
        RankItem {
            id,
            title: title.into(),
            summary: String::new(),
            source: format!("Feed {source_id}"),
            source_id: Some(source_id),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    fn click(item_id: i64, useful: bool) -> Click {
        Click { reader_id: 1, item_id, useful, source: ClickSource::Ui, at: String::new() }
    }

    #[test]
    fn names_interest_words_tags_and_source() {
        let c = Corpus::build(vec![
            item(1, "Protein design with diffusion", &["protein-design"], 1),
            item(2, "Protein design benchmarks", &["protein-design"], 1),
            item(3, "Crypto market crash", &["finance"], 2),
            item(4, "Protein folding kinetics", &["protein-design"], 1),
        ]);
        let model = ReaderModel::fit(&c, "protein design, diffusion models", &[click(2, true), click(3, false)]);
        let e = explain(&c, &model, 1).unwrap();
        assert_eq!(e.interest_words, ["diffusion", "design", "protein"]);
        assert!(e.liked.iter().any(|k| k.label == "tag protein-design"), "{e:?}");
        assert!(e.text.starts_with("It matches your interests in diffusion, design, protein"), "{}", e.text);
        assert!(e.text.ends_with("Source: Feed 1."), "{}", e.text);
        assert_eq!(explain(&c, &model, 1), Some(e));
        let e3 = explain(&c, &model, 3).unwrap();
        assert!(e3.text.contains("not useful, which pulls it down"), "{}", e3.text);
        assert!(explain(&c, &model, 99).is_none());
    }

    #[test]
    fn says_when_nothing_matched() {
        let c = Corpus::build(vec![item(1, "Gardening tips", &[], 1), item(2, "Protein", &[], 1)]);
        let model = ReaderModel::fit(&c, "protein", &[]);
        let e = explain(&c, &model, 1).unwrap();
        assert_eq!(
            e.text,
            "None of your interest words occur in it. Source: Feed 1. It is listed for recency, not topic."
        );
    }
}
