//! The ranking-quality note: how far to trust an order, riding on every ranked answer.
//!
//! It counts the reader's clicks by verdict and by who recorded them, says which
//! ranking terms took part, and turns that into one terse `caveat` (the reason not
//! to trust the order, or `None` when there is nothing to warn about). When an
//! evaluation was run, its cross-validated figures join the note.

use std::collections::BTreeMap;

use attest_core::text::fmt_sig;
use serde::Serialize;

use crate::eval::Evaluation;
use crate::model::{Click, ClickSource};
use crate::rank::{ActiveTerms, EmbeddingStatus};

/// Evidence clicks below which the classifier counts as weakly trained.
pub const FEW_CLICKS: usize = 20;
/// Minority-class clicks below which the classifier has little to contrast.
pub const FEW_MINORITY: usize = 5;

/// The held-out figures carried by the note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Measured {
    /// Cross-validated ROC AUC of the served ranking.
    pub auc: f64,
    /// Cross-validated precision at 5.
    pub precision_at_5: f64,
    /// Folds.
    pub folds: usize,
    /// Human clicks evaluated.
    pub n_clicks: usize,
}

/// How far to trust a ranking, attached to every ranked answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankingQuality {
    /// Every click of the reader (any source).
    pub clicks: usize,
    /// Useful clicks (any source).
    pub useful: usize,
    /// Not-useful clicks (any source).
    pub not_useful: usize,
    /// Clicks by source name, only sources that occur.
    pub by_source: BTreeMap<String, usize>,
    /// Clicks a person made (ui, agent).
    pub human_clicks: usize,
    /// Clicks ranking learns from (all but bootstrap).
    pub evidence_clicks: usize,
    /// The click classifier ran.
    pub classifier_active: bool,
    /// The preference term ran.
    pub preference_active: bool,
    /// Weight of the click terms against the interests term, two decimals.
    pub blend_weight: f64,
    /// Whether embeddings took part.
    pub embeddings: EmbeddingStatus,
    /// Cross-validated figures, when an evaluation was possible.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub measured: Option<Measured>,
    /// Why not to trust the order; relay whole.
    pub caveat: Option<String>,
}

/// Build the note from the reader's clicks, the terms that ranked, and an evaluation
/// if one was run (pass `None` when there were too few human clicks).
pub fn assess(clicks: &[Click], terms: &ActiveTerms, eval: Option<&Evaluation>) -> RankingQuality {
    let mut by_source: BTreeMap<String, usize> = BTreeMap::new();
    let (mut useful, mut human, mut evidence) = (0, 0, 0);
    let (mut ev_useful, mut ev_not) = (0usize, 0usize);
    for c in clicks {
        *by_source.entry(c.source.as_str().to_string()).or_default() += 1;
        useful += c.useful as usize;
        human += c.source.is_human() as usize;
        if c.source.counts_as_evidence() {
            evidence += 1;
            if c.useful {
                ev_useful += 1;
            } else {
                ev_not += 1;
            }
        }
    }
    let total = clicks.len();
    let mut parts: Vec<String> = Vec::new();

    // What trained the order.
    let minority = ev_useful.min(ev_not);
    if evidence == 0 {
        if total == 0 {
            parts.push("no ratings yet: ordered by the interests text alone".into());
        } else {
            parts.push(format!("none of the {total} ratings count as evidence: ordered by the interests text alone"));
        }
    } else if !terms.classifier {
        let (verdict, other) = if ev_not == 0 { ("useful", "not useful") } else { ("not useful", "useful") };
        let extra = if terms.preference { " plus disliked tags and sources" } else { "" };
        let all = if evidence == 1 { "the one rating says".to_string() } else { format!("all {evidence} ratings say") };
        parts.push(format!(
            "click classifier off: {all} {verdict}, so the interests text{extra} ranks this; \
             mark an item {other} to train it"
        ));
    } else if evidence < FEW_CLICKS {
        parts.push(format!("only {evidence} ratings: the click classifier is on but weakly trained"));
    } else if minority < FEW_MINORITY {
        let label = if ev_useful < ev_not { "useful" } else { "not-useful" };
        let of = if minority == 1 { "rating" } else { "ratings" };
        parts.push(format!("only {minority} {label} {of} of {evidence}: the classifier has little to contrast"));
    }

    // Who the ratings came from.
    if total > 0 && human < total {
        let mut generated: Vec<(ClickSource, usize)> = ClickSource::ALL
            .into_iter()
            .filter(|s| !s.is_human())
            .map(|s| (s, by_source.get(s.as_str()).copied().unwrap_or(0)))
            .filter(|e| e.1 > 0)
            .collect();
        generated.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let named = generated.iter().map(|(s, n)| format!("{n} {}", s.as_str())).collect::<Vec<_>>().join(", ");
        if human == 0 {
            parts.push(format!(
                "no rating is a person's: all {total} are generated ({named}), so treat the order as untrained"
            ));
        } else {
            let verb = if total - human == 1 { "is" } else { "are" };
            parts.push(format!("only {human} of {total} ratings are a person's ({named} {verb} not)"));
        }
        if by_source.contains_key(ClickSource::Bootstrap.as_str()) {
            parts.push("bootstrap labels are ignored by ranking and evaluation".into());
        }
    }

    // What matched the interests.
    if !terms.interests {
        parts.push("no interest word occurs in the archive, so the interests term is flat (newest first)".into());
    }
    match &terms.embeddings {
        EmbeddingStatus::Off | EmbeddingStatus::Used => {}
        EmbeddingStatus::Unavailable(why) => {
            parts.push(format!("embedding server unavailable ({why}): ranked by words only"));
        }
        EmbeddingStatus::NoVectors => parts.push("no item has a stored embedding yet: ranked by words only".into()),
    }

    let measured = eval.map(|e| Measured {
        auc: round(e.auc, 3),
        precision_at_5: round(e.precision_at_5, 3),
        folds: e.folds,
        n_clicks: e.n_clicks,
    });
    if let Some(m) = &measured {
        parts.push(format!(
            "held out, this ranking scores AUC {} and precision@5 {} on {} human ratings ({}-fold)",
            fmt_sig(m.auc, 3),
            fmt_sig(m.precision_at_5, 3),
            m.n_clicks,
            m.folds
        ));
    }

    RankingQuality {
        clicks: total,
        useful,
        not_useful: total - useful,
        by_source,
        human_clicks: human,
        evidence_clicks: evidence,
        classifier_active: terms.classifier,
        preference_active: terms.preference,
        blend_weight: round(terms.blend_weight, 2),
        embeddings: terms.embeddings.clone(),
        measured,
        caveat: if parts.is_empty() { None } else { Some(parts.join("; ")) },
    }
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(classifier: bool, preference: bool, w: f64) -> ActiveTerms {
        ActiveTerms { interests: true, embeddings: EmbeddingStatus::Off, classifier, preference, blend_weight: w }
    }

    fn clicks(spec: &[(bool, ClickSource, usize)]) -> Vec<Click> {
        let mut out = Vec::new();
        for &(useful, source, n) in spec {
            for _ in 0..n {
                let item_id = out.len() as i64;
                out.push(Click { reader_id: 1, item_id, useful, source, at: String::new() });
            }
        }
        out
    }

    #[test]
    fn no_clicks() {
        let q = assess(&[], &terms(false, false, 0.0), None);
        assert_eq!(q.caveat.as_deref(), Some("no ratings yet: ordered by the interests text alone"));
    }

    #[test]
    fn one_class() {
        let q = assess(&clicks(&[(true, ClickSource::Ui, 3)]), &terms(false, false, 0.0), None);
        let c = q.caveat.unwrap();
        assert!(c.starts_with("click classifier off: all 3 ratings say useful"), "{c}");
        assert!(c.contains("mark an item not useful"));
    }

    #[test]
    fn few_and_few_minority() {
        let few = clicks(&[(true, ClickSource::Ui, 6), (false, ClickSource::Ui, 6)]);
        assert!(assess(&few, &terms(true, true, 0.7), None).caveat.unwrap().contains("only 12 ratings"));
        let skewed = clicks(&[(true, ClickSource::Agent, 30), (false, ClickSource::Ui, 2)]);
        let c = assess(&skewed, &terms(true, true, 0.86), None).caveat.unwrap();
        assert!(c.contains("only 2 not-useful ratings of 32"), "{c}");
        let fine = clicks(&[(true, ClickSource::Ui, 15), (false, ClickSource::Ui, 10)]);
        assert_eq!(assess(&fine, &terms(true, true, 0.83), None).caveat, None);
    }

    #[test]
    fn provenance_is_named() {
        let generated = clicks(&[(true, ClickSource::Bootstrap, 15), (false, ClickSource::Bootstrap, 15)]);
        let c = assess(&generated, &terms(false, false, 0.0), None).caveat.unwrap();
        assert!(c.contains("none of the 30 ratings count as evidence"), "{c}");
        assert!(c.contains("all 30 are generated (30 bootstrap)"), "{c}");
        assert!(c.contains("bootstrap labels are ignored"), "{c}");
        let mixed = clicks(&[
            (true, ClickSource::Ui, 12),
            (false, ClickSource::Ui, 10),
            (true, ClickSource::Simulated, 5),
            (true, ClickSource::Implicit, 2),
        ]);
        let q = assess(&mixed, &terms(true, true, 0.85), None);
        assert_eq!(q.human_clicks, 22);
        assert_eq!(q.caveat.as_deref(), Some("only 22 of 29 ratings are a person's (5 simulated, 2 implicit are not)"));
    }

    #[test]
    fn embeddings_and_measurements_are_reported() {
        let mut t = terms(false, false, 0.0);
        t.embeddings = EmbeddingStatus::Unavailable("connection refused".into());
        let c = assess(&[], &t, None).caveat.unwrap();
        assert!(c.contains("embedding server unavailable (connection refused)"), "{c}");
        let e = Evaluation {
            auc: 0.91234,
            precision_at_5: 0.8,
            interests_auc: 0.7,
            interests_precision_at_5: 0.6,
            base_rate: 0.5,
            folds: 5,
            n_clicks: 40,
            n_useful: 20,
            excluded: BTreeMap::new(),
            measures: "",
        };
        let fine = clicks(&[(true, ClickSource::Ui, 20), (false, ClickSource::Ui, 20)]);
        let q = assess(&fine, &terms(true, true, 0.89), Some(&e));
        assert_eq!(
            q.caveat.as_deref(),
            Some("held out, this ranking scores AUC 0.912 and precision@5 0.8 on 40 human ratings (5-fold)")
        );
    }
}
