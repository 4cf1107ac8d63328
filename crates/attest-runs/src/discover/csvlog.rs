//! Training logs written as CSV, one row per logging call: PyTorch Lightning's
//! CSVLogger (`<save_dir>/<name>/version_N/metrics.csv` + `hparams.yaml`) and Keras's
//! `CSVLogger` (one row per epoch).
//!
//! Lightning writes every row with every column it has seen, so a row holds a few
//! values and empty cells elsewhere (the NaN padding pandas shows): an empty or `nan`
//! cell is padding, not a value. A metric's split is its name's prefix (`val_acc` →
//! `val`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::formats::{self, Table};
use super::payload::Metric;
use super::{Adapter, Discovery, Record, abs};
use crate::family::split_of_metric;
use crate::hash;

/// Columns that give a log row's step, in order of preference.
pub const STEP_COLUMNS: &[&str] = &["step", "global_step", "epoch"];

/// Whether a table looks like a training log: a step or epoch column and no column
/// naming arms.
pub fn is_training_log(t: &Table) -> bool {
    formats::label_column(&t.headers).is_none()
        && t.headers.iter().any(|h| STEP_COLUMNS.iter().any(|s| h.eq_ignore_ascii_case(s)))
}

/// The metric rows of a CSV training log. `unprefixed` is the split of metrics whose
/// name has no split prefix (Keras's `loss`/`accuracy` are training values).
pub fn log_metrics(t: &Table, unprefixed: Option<&str>) -> (Vec<Metric>, usize) {
    let step_col = STEP_COLUMNS.iter().find_map(|s| t.headers.iter().position(|h| h.eq_ignore_ascii_case(s)));
    let mut out: Vec<Metric> = Vec::new();
    let mut padded = 0;
    for row in &t.rows {
        let step =
            step_col.and_then(|c| row.get(c)).and_then(|c| c.trim().parse::<f64>().ok()).map(|f| f.trunc() as i64);
        for (i, h) in t.headers.iter().enumerate() {
            let key = h.trim().to_ascii_lowercase();
            if key.is_empty() || STEP_COLUMNS.contains(&key.as_str()) {
                continue;
            }
            let cell = row.get(i).map(|c| c.trim()).unwrap_or("");
            let Ok(x) = cell.parse::<f64>() else {
                padded += usize::from(cell.is_empty());
                continue;
            };
            if !x.is_finite() {
                padded += 1;
                continue;
            }
            let split = split_of_metric(&key).or(unprefixed).map(str::to_string);
            out.push(Metric { metric: key, value: x, step, split });
        }
    }
    (super::payload::dedup(out), padded)
}

fn yaml_config(path: &Path) -> Option<Value> {
    let bytes = formats::read_capped(path).ok()?;
    let v: serde_norway::Value = serde_norway::from_slice(&bytes).ok()?;
    serde_json::to_value(v).ok().filter(Value::is_object)
}

/// Read every Lightning CSVLogger version directory found by the walk.
pub fn lightning(project: &Path, dirs: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    for dir in dirs {
        let f = dir.join("metrics.csv");
        let bytes = match formats::read_capped(&f) {
            Ok(b) => b,
            Err(e) => {
                d.note(project, &f, e.to_string());
                continue;
            }
        };
        let table = match formats::parse_csv(&bytes) {
            Ok(t) => t,
            Err(e) => {
                d.note(project, &f, format!("skipped: not readable as CSV ({e})"));
                continue;
            }
        };
        if !table.headers.iter().any(|h| h.eq_ignore_ascii_case("step")) {
            d.note(
                project,
                &f,
                format!(
                    "skipped: its header ({}) has no `step` column, so it is not a Lightning CSVLogger metrics.csv",
                    formats_header(&table)
                ),
            );
            continue;
        }
        let (metrics, _) = log_metrics(&table, None);
        if metrics.is_empty() {
            d.note(project, &f, "skipped: no logged value in it (only the header, or only empty cells)");
            continue;
        }
        let version = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let logger = dir
            .parent()
            .filter(|p| *p != project)
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .filter(|n| !n.is_empty());
        let name = match &logger {
            Some(l) => format!("{l}/{version}"),
            None => version.clone(),
        };
        let hparams = dir.join("hparams.yaml");
        let config = if hparams.is_file() {
            let c = yaml_config(&hparams);
            if c.is_none() {
                d.note(project, &hparams, "not read: not a YAML mapping, so this run has no config");
            }
            c
        } else {
            None
        };
        // The evidence is the version directory: metrics.csv and hparams.yaml.
        let mut rec = Record::new(name, logger.or(Some(version)), abs(dir));
        rec.adapter = Adapter::Lightning;
        rec.source_hash = hash::files(dir, &hash::run_dir_files(dir));
        rec.config = config;
        rec.metrics = metrics;
        d.claim(seen, project, dir, rec);
    }
}

fn formats_header(t: &Table) -> String {
    let h = t.headers.join(",");
    if h.chars().count() > 60 { format!("{}…", h.chars().take(60).collect::<String>()) } else { h }
}

/// A Keras-style CSV training log under a results directory, as one run.
pub fn keras_log(
    project: &Path,
    f: &Path,
    bytes: &[u8],
    table: &Table,
    (name, family): (String, Option<String>),
    d: &mut Discovery,
    seen: &mut HashSet<String>,
) {
    let (metrics, _) = log_metrics(table, Some("train"));
    if metrics.is_empty() {
        d.note(project, f, "skipped: a training log with no numeric value in it");
        return;
    }
    let mut rec = Record::new(name, family, abs(f));
    rec.source_hash = Some(hash::of_bytes(bytes));
    let cfg: Map<String, Value> = crate::family::variant_config(&super::stem(f));
    rec.config = (!cfg.is_empty()).then_some(Value::Object(cfg));
    rec.metrics = metrics;
    d.claim(seen, project, f, rec);
}
