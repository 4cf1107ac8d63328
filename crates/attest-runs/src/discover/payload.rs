//! Turning a parsed artifact into metric rows, refusing what is not a result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::formats::non_finite_token;
use crate::corpus::is_corpus_key;

/// Keys that count or index things and are never metrics.
pub const SKIP_KEYS: &[&str] = &["step", "epoch", "iteration", "iter", "global_step", "seed", "index", "id"];

/// Keys a training-log row may give its step in, in order of preference.
pub const STEP_KEYS: &[&str] = &["step", "global_step", "iteration", "iter", "epoch"];

/// A map with more numeric entries than this, all numeric, is a table, not a result.
pub const MAX_METRIC_KEYS: usize = 60;

/// From this many numeric keys on, a map whose key words share nothing with
/// [`METRIC_WORDS`] is a table (a vocabulary, an id map), not a result.
pub const MIN_KEYS_FOR_ENTITY_CHECK: usize = 6;

/// Words that appear in metric names.
pub const METRIC_WORDS: &[&str] = &[
    "acc",
    "accuracy",
    "auc",
    "best",
    "cer",
    "coef",
    "correlation",
    "count",
    "dim",
    "epochs",
    "err",
    "error",
    "eval",
    "f1",
    "final",
    "iters",
    "latency",
    "loss",
    "mae",
    "max",
    "mean",
    "median",
    "min",
    "mse",
    "n",
    "nll",
    "num",
    "params",
    "perplexity",
    "ppl",
    "prec",
    "precision",
    "r2",
    "rate",
    "recall",
    "rmse",
    "score",
    "sd",
    "seed",
    "size",
    "std",
    "steps",
    "test",
    "throughput",
    "time",
    "train",
    "val",
    "valid",
    "validation",
    "var",
    "wer",
];

/// Deepest nesting read for split metrics (`{"test": {"clean": {"wer": …}}}`).
pub const MAX_DEPTH: usize = 4;

/// One recorded value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Metric {
    /// Lower-cased metric name.
    pub metric: String,
    /// The value; always finite.
    pub value: f64,
    /// The training step it was measured at, when known.
    pub step: Option<i64>,
    /// The split or variant it belongs to (`test`, `dev.clean`, `seed3`), when known.
    pub split: Option<String>,
}

/// What [`metrics_from_payload`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extracted {
    /// The metric rows, duplicates of `(metric, step, split)` removed (first kept).
    pub metrics: Vec<Metric>,
    /// Metrics dropped for a non-finite value, as `name (token)`.
    pub dropped: Vec<String>,
    /// Why the whole payload was refused, when it was.
    pub refused: Option<String>,
    /// Whether the rows are a training log (one row per step).
    pub training_log: bool,
}

impl Extracted {
    fn push(&mut self, m: Metric) {
        self.metrics.push(m);
    }
}

/// `rows` without repeated `(metric, step, split)`: the first is kept, order kept. A
/// hash set, so a log of 10,000 steps costs 10,000 look-ups, not 50 million.
pub fn dedup(rows: Vec<Metric>) -> Vec<Metric> {
    let mut seen: std::collections::HashSet<(String, Option<i64>, Option<String>)> =
        std::collections::HashSet::with_capacity(rows.len());
    rows.into_iter().filter(|m| seen.insert((m.metric.clone(), m.step, m.split.clone()))).collect()
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().filter(|f| f.is_finite()),
        _ => None,
    }
}

fn skipped(key: &str) -> bool {
    SKIP_KEYS.contains(&key) || is_corpus_key(key)
}

/// The numeric, non-skipped items of an object: `(lower-cased key, value)`. Non-finite
/// values are reported in `dropped`.
fn numeric_items(obj: &Map<String, Value>, dropped: &mut Vec<String>, prefix: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for (k, v) in obj {
        let key = k.trim().to_ascii_lowercase();
        if skipped(&key) {
            continue;
        }
        if let Some(x) = as_number(v) {
            out.push((key, x));
        } else if let Some(tok) = non_finite_token(v) {
            let d = format!("{prefix}{key} ({tok})");
            if !dropped.contains(&d) {
                dropped.push(d);
            }
        }
    }
    out
}

fn words(key: &str) -> impl Iterator<Item = String> + '_ {
    key.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase)
}

/// Whether a map is a lookup table (a vocabulary, an id map, a per-entity table)
/// rather than a set of metrics.
pub fn is_lookup_table(obj: &Map<String, Value>) -> bool {
    if obj.is_empty() {
        return false;
    }
    let numeric: Vec<&String> =
        obj.iter().filter(|(_, v)| matches!(v, Value::Number(_) | Value::Bool(_))).map(|(k, _)| k).collect();
    if obj.len() > MAX_METRIC_KEYS && numeric.len() == obj.len() {
        return true;
    }
    numeric.len() >= MIN_KEYS_FOR_ENTITY_CHECK
        && !numeric.iter().flat_map(|k| words(k)).any(|w| METRIC_WORDS.contains(&w.as_str()))
}

/// The step a log row states.
fn row_step(obj: &Map<String, Value>) -> Option<i64> {
    STEP_KEYS.iter().find_map(|k| {
        obj.iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .and_then(|(_, v)| as_number(v))
            .map(|f| f.trunc() as i64)
    })
}

/// The metric rows an artifact holds.
///
/// - An object: its numeric top-level items (a top-level `step` applies to them when
///   the file name gave none), then the numeric items of nested objects down to
///   [`MAX_DEPTH`], each with the key path as its split (`test.clean`).
/// - A list of objects where every row has a step and there is more than one distinct
///   step: a training log, one row per step.
/// - Any other list of objects: an aggregate, each numeric field's mean plus a
///   `<field>_std` (population) and `n_records` (the row count).
///
/// Lookup tables (see [`is_lookup_table`]) are refused whole at the top, skipped when
/// nested; skip keys (`step`, `seed`, `id`, …) and corpus keys are never metrics;
/// booleans and strings are ignored; non-finite values are dropped and reported.
pub fn metrics_from_payload(payload: &Value, step: Option<i64>, split: Option<&str>) -> Extracted {
    let mut out = extract(payload, step, split);
    out.metrics = dedup(std::mem::take(&mut out.metrics));
    out
}

fn extract(payload: &Value, step: Option<i64>, split: Option<&str>) -> Extracted {
    let mut out = Extracted::default();
    match payload {
        Value::Object(obj) => {
            if is_lookup_table(obj) {
                out.refused = Some(
                    "every value is a number and no key looks like a metric name, so this is a lookup table (a vocabulary or id map), not a result"
                        .into(),
                );
                return out;
            }
            let step = step.or_else(|| obj.get("step").and_then(as_number).map(|f| f.trunc() as i64));
            for (k, v) in numeric_items(obj, &mut out.dropped, "") {
                out.push(Metric { metric: k, value: v, step, split: split.map(str::to_string) });
            }
            descend(obj, "", 0, step, &mut out);
        }
        Value::Array(items) => {
            let rows: Vec<&Map<String, Value>> = items.iter().filter_map(Value::as_object).collect();
            if rows.is_empty() {
                return out;
            }
            let steps: Vec<Option<i64>> = rows.iter().map(|r| row_step(r)).collect();
            let distinct: std::collections::BTreeSet<i64> = steps.iter().flatten().copied().collect();
            if steps.iter().all(Option::is_some) && distinct.len() > 1 {
                out.training_log = true;
                for (row, s) in rows.iter().zip(steps) {
                    for (k, v) in numeric_items(row, &mut out.dropped, "") {
                        out.push(Metric { metric: k, value: v, step: s, split: split.map(str::to_string) });
                    }
                }
                return out;
            }
            let mut fields: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for row in &rows {
                for (k, v) in numeric_items(row, &mut out.dropped, "") {
                    fields.entry(k).or_default().push(v);
                }
            }
            let sp = split.map(str::to_string);
            for (k, vals) in &fields {
                let n = vals.len() as f64;
                let mean = vals.iter().sum::<f64>() / n;
                let var = vals.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
                out.push(Metric { metric: k.clone(), value: mean, step, split: sp.clone() });
                out.push(Metric { metric: format!("{k}_std"), value: var.sqrt(), step, split: sp.clone() });
            }
            if !fields.is_empty() {
                out.push(Metric { metric: "n_records".into(), value: rows.len() as f64, step, split: sp });
            }
        }
        _ => {}
    }
    out
}

fn descend(obj: &Map<String, Value>, path: &str, depth: usize, step: Option<i64>, out: &mut Extracted) {
    if depth >= MAX_DEPTH {
        return;
    }
    for (k, v) in obj {
        let Value::Object(child) = v else { continue };
        // W&B media and table summaries carry a `_type`; they are not metrics.
        if k.starts_with('_') || child.contains_key("_type") || is_lookup_table(child) {
            continue;
        }
        let key = k.trim().to_ascii_lowercase();
        let p = if path.is_empty() { key } else { format!("{path}.{key}") };
        let prefix = format!("{p}.");
        for (m, x) in numeric_items(child, &mut out.dropped, &prefix) {
            out.push(Metric { metric: m, value: x, step, split: Some(p.clone()) });
        }
        descend(child, &p, depth + 1, step, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(e: &Extracted) -> Vec<String> {
        e.metrics
            .iter()
            .map(|m| {
                let mut s = format!("{}={}", m.metric, m.value);
                if let Some(st) = m.step {
                    s += &format!("@{st}");
                }
                if let Some(sp) = &m.split {
                    s += &format!("[{sp}]");
                }
                s
            })
            .collect()
    }

    #[test]
    fn shapes() {
        type Case<'a> = (Value, Option<i64>, Option<&'a str>, Vec<&'a str>);
        let cases: Vec<Case> = vec![
            (
                json!({"wer": 0.1, "seed": 3, "corpus": "x", "ok": true, "tag": "a", "ID": 4}),
                None,
                None,
                vec!["wer=0.1"],
            ),
            (json!({"wer": 0.1, "step": 200}), None, None, vec!["wer=0.1@200"]),
            (json!({"wer": 0.1, "step": 200}), Some(5), Some("seed3"), vec!["wer=0.1@5[seed3]"]),
            (
                json!({"test": {"wer": 0.2, "clean": {"wer": 0.1}}, "dev": {"wer": 0.3}}),
                None,
                None,
                vec!["wer=0.2[test]", "wer=0.1[test.clean]", "wer=0.3[dev]"],
            ),
            (json!({"a": {"b": {"c": {"d": {"e": {"wer": 1}}, "wer": 2}}}}), None, None, vec!["wer=2[a.b.c]"]),
            (json!([{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.0}]), None, None, vec!["loss=2@1", "loss=1@2"]),
            (
                json!([{"acc": 1.0}, {"acc": 0.0}, {"x": "s"}]),
                None,
                None,
                vec!["acc=0.5", "acc_std=0.5", "n_records=3"],
            ),
            (
                json!([{"step": 1, "acc": 1.0}, {"step": 1, "acc": 0.0}]),
                None,
                None,
                vec!["acc=0.5", "acc_std=0.5", "n_records=2"],
            ),
            (json!([1, 2]), None, None, vec![]),
            (json!("x"), None, None, vec![]),
            (json!({"only": "strings"}), None, None, vec![]),
        ];
        for (payload, step, split, want) in cases {
            let mut got = names(&metrics_from_payload(&payload, step, split));
            let mut want: Vec<String> = want.into_iter().map(String::from).collect();
            got.sort();
            want.sort();
            assert_eq!(got, want, "{payload}");
        }
    }

    #[test]
    fn refusals() {
        let vocab = json!({"<blank>": 0, "<unk>": 1, "the": 2, "a": 3, "ing": 4, "to": 5, "and": 6});
        let e = metrics_from_payload(&vocab, None, None);
        assert!(e.metrics.is_empty() && e.refused.as_deref().unwrap().contains("lookup table"));
        let big: Map<String, Value> = (0..61).map(|i| (format!("acc_{i}"), json!(0.5))).collect();
        assert!(is_lookup_table(&big));
        let results = json!({"wer": 0.1, "cer": 0.05, "loss": 1, "ppl": 2, "n_records": 5, "rtf": 0.1});
        assert!(!is_lookup_table(results.as_object().unwrap()));
        let nested = json!({"wer": 0.1, "vocab": {"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6}});
        assert_eq!(names(&metrics_from_payload(&nested, None, None)), ["wer=0.1"]);
        let nan = crate::discover::formats::parse_json(r#"{"wer": NaN, "cer": 0.1, "t": {"x": Infinity}}"#).unwrap();
        let e = metrics_from_payload(&nan, None, None);
        assert_eq!(names(&e), ["cer=0.1"]);
        let mut dropped = e.dropped.clone();
        dropped.sort();
        assert_eq!(dropped, ["t.x (Infinity)", "wer (NaN)"]);
        let media = json!({"acc": 1, "img": {"_type": "image-file", "width": 3}});
        assert_eq!(names(&metrics_from_payload(&media, None, None)), ["acc=1"]);
    }
}
