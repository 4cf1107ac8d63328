//! How well ranking predicts one reader's own verdicts (`attest eval --user NAME`).
//!
//! The reader's human clicks (ui and agent; never bootstrap, simulated or implicit)
//! are split into stratified folds by a fixed rule, so the same clicks always give the
//! same folds and the same numbers. For each fold the full ranker (interests,
//! classifier, preference, blended exactly as served) is fitted on every other
//! evidence click and ranks the whole corpus; each held-out item is scored by where it
//! landed. The out-of-fold scores are pooled into one area under the ROC curve and
//! one precision of the top five. The interests text alone, ranking the same corpus,
//! gives the baseline the clicks have to beat.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use crate::model::Click;
use crate::rank::{Corpus, Embeddings, RankOptions, ReaderModel};

/// Fewest human clicks an evaluation will use.
pub const MIN_EVAL_CLICKS: usize = 10;
/// Most folds.
pub const MAX_FOLDS: usize = 5;
/// The `k` of precision at `k`.
pub const PRECISION_K: usize = 5;

/// What the numbers measure, stated with them.
pub const MEASURES: &str = "the served ranking (interests, classifier and preference terms blended as in feed.list), \
     cross-validated on the reader's own ui/agent ratings; the interests-only figures rank the same held-out items \
     from the interests text alone";

/// The result of evaluating one reader.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Evaluation {
    /// ROC AUC of the pooled out-of-fold positions (0.5 is chance).
    pub auc: f64,
    /// Share of useful items among the [`PRECISION_K`] best-placed held-out items.
    pub precision_at_5: f64,
    /// The same, ranking from the interests text alone.
    pub interests_auc: f64,
    /// The same, ranking from the interests text alone.
    pub interests_precision_at_5: f64,
    /// Share of useful among the evaluated clicks (what random order would score
    /// at precision).
    pub base_rate: f64,
    /// Folds.
    pub folds: usize,
    /// Human clicks evaluated.
    pub n_clicks: usize,
    /// Of which useful.
    pub n_useful: usize,
    /// Clicks left out, by source (bootstrap, simulated, implicit) or because the item
    /// is not in the corpus ("unindexed").
    pub excluded: BTreeMap<String, usize>,
    /// What the numbers cover.
    pub measures: &'static str,
}

/// Why a reader cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotEnough {
    /// Human clicks on indexed items.
    pub have: usize,
    /// Useful among them.
    pub useful: usize,
    /// An actionable sentence.
    pub reason: String,
}

impl std::fmt::Display for NotEnough {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// Evaluate a reader. Deterministic: the same corpus and clicks give the same result.
pub fn evaluate(corpus: &Corpus, interests: &str, clicks: &[Click]) -> Result<Evaluation, NotEnough> {
    let mut excluded: BTreeMap<String, usize> = BTreeMap::new();
    let mut human: Vec<(i64, bool)> = Vec::new();
    let mut seen: HashSet<i64> = HashSet::new();
    // The last verdict on an item wins, as in ranking.
    for c in clicks.iter().rev() {
        if !c.source.is_human() {
            *excluded.entry(c.source.as_str().to_string()).or_default() += 1;
            continue;
        }
        if !seen.insert(c.item_id) {
            continue;
        }
        if corpus.position(c.item_id).is_none() {
            *excluded.entry("unindexed".into()).or_default() += 1;
            continue;
        }
        human.push((c.item_id, c.useful));
    }
    human.sort_unstable();
    let n_useful = human.iter().filter(|h| h.1).count();
    let minority = n_useful.min(human.len() - n_useful);
    let folds = minority.min(MAX_FOLDS);
    if human.len() < MIN_EVAL_CLICKS || folds < 2 {
        let reason = format!(
            "not enough human ratings to measure ranking: {}, {} useful and {} not; \
             evaluation needs {MIN_EVAL_CLICKS}+ ui/agent ratings with at least 2 of each verdict \
             (bootstrap, simulated and implicit labels are never used)",
            attest_core::text::plural(human.len(), "rated item", "rated items"),
            n_useful,
            human.len() - n_useful
        );
        return Err(NotEnough { have: human.len(), useful: n_useful, reason });
    }
    let assignment = stratified_folds(&human, folds);
    let all = RankOptions::default();
    // Each held-out item is scored by where it lands in a ranking of the whole corpus,
    // by a model that never saw its verdict. Positions in one corpus are comparable
    // across folds, so the out-of-fold scores are pooled.
    let mut pooled: Vec<(f64, i64, bool)> = Vec::with_capacity(human.len());
    for f in 0..folds {
        let test: HashSet<i64> = human.iter().zip(&assignment).filter(|(_, a)| **a == f).map(|(h, _)| h.0).collect();
        let train: Vec<Click> = clicks.iter().filter(|c| !test.contains(&c.item_id)).cloned().collect();
        let served = ReaderModel::fit(corpus, interests, &train).rank(corpus, &all, &Embeddings::Off);
        let pos: HashMap<i64, f64> = served.items.iter().map(|r| (r.id, r.score)).collect();
        pooled.extend(human.iter().filter(|h| test.contains(&h.0)).map(|h| (pos[&h.0], h.0, h.1)));
    }
    let base = ReaderModel::fit(corpus, interests, &[]).rank(corpus, &all, &Embeddings::Off);
    let pos: HashMap<i64, f64> = base.items.iter().map(|r| (r.id, r.score)).collect();
    let baseline: Vec<(f64, i64, bool)> = human.iter().map(|h| (pos[&h.0], h.0, h.1)).collect();
    let (auc, p5) = figures(pooled);
    let (interests_auc, interests_p5) = figures(baseline);
    Ok(Evaluation {
        auc,
        precision_at_5: p5,
        interests_auc,
        interests_precision_at_5: interests_p5,
        base_rate: n_useful as f64 / human.len() as f64,
        folds,
        n_clicks: human.len(),
        n_useful,
        excluded,
        measures: MEASURES,
    })
}

/// AUC (ties count half) and precision at [`PRECISION_K`] of (position, id, useful)
/// triples, where a lower position is better. Ties at the cut are broken by id.
fn figures(mut scored: Vec<(f64, i64, bool)>) -> (f64, f64) {
    let scores: Vec<f64> = scored.iter().map(|s| -s.0).collect();
    let labels: Vec<bool> = scored.iter().map(|s| s.2).collect();
    let auc = auc_of_scores(&scores, &labels);
    scored.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let order: Vec<bool> = scored.iter().map(|s| s.2).collect();
    (auc, precision_at(&order, PRECISION_K))
}

/// `attest eval --user NAME`: evaluate a reader over the whole archive. An unknown
/// reader or too few ratings is an `Err` with the sentence to print.
pub async fn evaluate_reader(store: &crate::FeedStore, name: &str) -> Result<Evaluation, String> {
    let Some(reader) = store.reader(name).await.map_err(|e| e.to_string())? else {
        let names: Vec<String> =
            store.readers().await.map_err(|e| e.to_string())?.into_iter().map(|r| r.name).collect();
        return Err(crate::persona::unknown_reader_message(name, &names));
    };
    let data = crate::rank::ReaderData::load(store, reader.id, None).await.map_err(|e| e.to_string())?;
    evaluate(&data.corpus, &reader.interests, &data.clicks).map_err(|e| e.reason)
}

/// The lines `attest eval` prints for a result.
pub fn report_lines(name: &str, e: &Evaluation) -> Vec<String> {
    let mut lines = vec![
        format!(
            "{name}: AUC {:.3}, precision@{PRECISION_K} {:.3} ({}-fold over {} human ratings, {} useful)",
            e.auc, e.precision_at_5, e.folds, e.n_clicks, e.n_useful
        ),
        format!(
            "interests text alone: AUC {:.3}, precision@{PRECISION_K} {:.3}; chance: AUC 0.500, precision {:.3}",
            e.interests_auc, e.interests_precision_at_5, e.base_rate
        ),
        format!("measures {}", e.measures),
    ];
    if !e.excluded.is_empty() {
        let parts: Vec<String> = e.excluded.iter().map(|(k, v)| format!("{v} {k}")).collect();
        lines.push(format!("left out: {}", parts.join(", ")));
    }
    if e.auc <= e.interests_auc {
        lines.push(
            "WARNING: the ratings do not improve on the interests text; check them before trusting the ranking".into(),
        );
    }
    lines
}

/// Assign each labelled item (sorted by id) a fold: useful and not-useful items are
/// dealt round-robin separately, so every fold gets its share of each class. The
/// not-useful deal starts where the useful one stopped, which evens fold sizes.
pub fn stratified_folds(labelled: &[(i64, bool)], folds: usize) -> Vec<usize> {
    let folds = folds.max(1);
    let mut out = vec![0; labelled.len()];
    let mut next = 0usize;
    for class in [true, false] {
        for (i, l) in labelled.iter().enumerate() {
            if l.1 == class {
                out[i] = next % folds;
                next += 1;
            }
        }
    }
    out
}

/// ROC AUC of a ranked list of labels (best first): the share of (useful, not useful)
/// pairs where the useful item is ranked higher. 0.5 when one class is absent.
pub fn auc_of_order(order: &[bool]) -> f64 {
    let pos = order.iter().filter(|&&y| y).count();
    let neg = order.len() - pos;
    if pos == 0 || neg == 0 {
        return 0.5;
    }
    let mut negatives_below = 0usize;
    let mut good = 0usize;
    for &y in order.iter().rev() {
        if y {
            good += negatives_below;
        } else {
            negatives_below += 1;
        }
    }
    good as f64 / (pos * neg) as f64
}

/// ROC AUC of scores (higher = more likely useful), ties counted as half.
pub fn auc_of_scores(scores: &[f64], labels: &[bool]) -> f64 {
    let (mut good, mut pairs) = (0.0, 0usize);
    for (i, &yi) in labels.iter().enumerate() {
        if !yi {
            continue;
        }
        for (j, &yj) in labels.iter().enumerate() {
            if yj {
                continue;
            }
            pairs += 1;
            good += if scores[i] > scores[j] {
                1.0
            } else if scores[i] == scores[j] {
                0.5
            } else {
                0.0
            };
        }
    }
    if pairs == 0 { 0.5 } else { good / pairs as f64 }
}

/// Share of useful items among the first `k` of a ranked list (fewer if shorter).
pub fn precision_at(order: &[bool], k: usize) -> f64 {
    let top = &order[..order.len().min(k)];
    if top.is_empty() { 0.0 } else { top.iter().filter(|&&y| y).count() as f64 / top.len() as f64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ClickSource;
    use crate::rank::RankItem;

    #[test]
    fn auc_and_precision() {
        assert_eq!(auc_of_order(&[true, true, false, false]), 1.0);
        assert_eq!(auc_of_order(&[false, false, true, true]), 0.0);
        assert_eq!(auc_of_order(&[true, false, true, false]), 0.75);
        assert_eq!(auc_of_scores(&[0.9, 0.1, 0.8, 0.2], &[true, false, true, false]), 1.0);
        assert_eq!(auc_of_scores(&[0.5, 0.5], &[true, false]), 0.5);
        assert_eq!(precision_at(&[true, false, true, true, false, true], 5), 0.6);
        assert_eq!(precision_at(&[true, false], 5), 0.5);
    }

    #[test]
    fn folds_are_stratified_and_fixed() {
        let l: Vec<(i64, bool)> = (0..10).map(|i| (i, i % 3 == 0)).collect();
        let f = stratified_folds(&l, 2);
        assert_eq!(f, stratified_folds(&l, 2));
        for fold in 0..2 {
            let pos = l.iter().zip(&f).filter(|(x, a)| x.1 && **a == fold).count();
            assert!(pos >= 1);
        }
    }

    fn topic_corpus() -> Corpus {
        let mut items = Vec::new();
        for i in 0..20 {
            let (title, summary) = if i % 2 == 0 {
                (format!("Protein folding study {i}"), "protein structure folding kinetics".to_string())
            } else {
                (format!("Market volatility note {i}"), "stock market volatility trading".to_string())
            };
            items.push(RankItem { id: i, title, summary, ..Default::default() });
        }
        Corpus::build(items)
    }

    fn clicks(source: ClickSource) -> Vec<Click> {
        (0..20).map(|i| Click { reader_id: 1, item_id: i, useful: i % 2 == 0, source, at: String::new() }).collect()
    }

    #[test]
    fn separable_reader_scores_high() {
        let c = topic_corpus();
        let e = evaluate(&c, "protein folding", &clicks(ClickSource::Ui)).unwrap();
        assert_eq!(e.folds, 5);
        assert_eq!(e.n_clicks, 20);
        assert!(e.auc > 0.99, "{e:?}");
        assert!(e.interests_auc > 0.99, "{e:?}");
        // Interests that say nothing leave the clicks to do the work.
        let e = evaluate(&c, "", &clicks(ClickSource::Agent)).unwrap();
        assert!(e.auc > 0.9 && e.precision_at_5 == 1.0, "{e:?}");
        assert_eq!(e.interests_auc, 0.5);
    }

    #[test]
    fn generated_labels_are_not_evaluated() {
        let c = topic_corpus();
        let err = evaluate(&c, "protein", &clicks(ClickSource::Bootstrap)).unwrap_err();
        assert_eq!(err.have, 0);
        assert!(err.reason.contains("bootstrap"));
        let err = evaluate(&c, "protein", &clicks(ClickSource::Simulated)).unwrap_err();
        assert_eq!(err.have, 0);
    }
}
