//! MLflow: the file store (`<project>/mlruns/`) and the SQLite backend
//! (`<project>/mlflow.db`, MLflow's default since 3.7), read-only.
//!
//! Each metric's value is MLflow's own "latest": the highest step, then the latest
//! timestamp (then the later line / larger value). When that final value is not finite
//! (NaN, ±inf, or the ±f64::MAX MLflow clamps infinities to) the metric is dropped and
//! the run carries a caveat: an earlier value is never substituted. Deleted runs and
//! runs of deleted experiments are skipped.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};
use sqlx::Row;

use super::payload::Metric;
use super::{Adapter, Discovery, Record, RunCaveat, abs, sorted_entries};
use crate::hash::{self, MetricRow};

/// MLflow's RunStatus enum as written in a file store's `meta.yaml`.
pub fn status_name(code: &str) -> String {
    match code.trim() {
        "1" => "RUNNING".into(),
        "2" => "SCHEDULED".into(),
        "3" => "FINISHED".into(),
        "4" => "FAILED".into(),
        "5" => "KILLED".into(),
        other => other.to_ascii_uppercase(),
    }
}

fn finite(v: f64, is_nan: bool) -> bool {
    !is_nan && v.is_finite() && v.abs() < f64::MAX
}

/// Milliseconds since the epoch as RFC 3339 UTC.
pub fn ms_to_rfc3339(ms: i64) -> Option<String> {
    let t = time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000).ok()?;
    t.format(&time::format_description::well_known::Rfc3339).ok()
}

/// The latest row per metric key: `(key, value, step, finite)`.
pub fn latest(rows: &[MetricRow]) -> BTreeMap<String, (f64, i64, bool)> {
    let mut best: BTreeMap<String, &MetricRow> = BTreeMap::new();
    for r in rows {
        match best.get(&r.key) {
            Some(b) if (b.step, b.timestamp) > (r.step, r.timestamp) => {}
            _ => {
                best.insert(r.key.clone(), r);
            }
        }
    }
    best.into_iter().map(|(k, r)| (k, (r.value, r.step, finite(r.value, r.is_nan)))).collect()
}

struct RunInfo {
    id: String,
    run_name: Option<String>,
    status: String,
    started: Option<String>,
    params: Map<String, Value>,
    tags: Map<String, Value>,
}

fn build(
    info: RunInfo,
    rows: &[MetricRow],
    source_path: String,
    source_hash: Option<String>,
) -> Result<Record, Vec<String>> {
    let short: String = info.id.chars().take(8).collect();
    let name = match &info.run_name {
        Some(n) => format!("{n}/{short}"),
        None => info.id.clone(),
    };
    let mut metrics = Vec::new();
    let mut dropped = Vec::new();
    for (key, (value, step, ok)) in latest(rows) {
        if ok {
            metrics.push(Metric { metric: key, value, step: Some(step), split: None });
        } else {
            dropped.push(key);
        }
    }
    if metrics.is_empty() {
        return Err(dropped);
    }
    let mut rec = Record::new(name, info.run_name.clone(), source_path);
    rec.adapter = Adapter::Mlflow;
    rec.source_hash = source_hash;
    rec.started = info.started;
    let mut config = info.params;
    for (k, v) in info.tags {
        if !k.starts_with("mlflow.") {
            config.insert(format!("tag.{k}"), v);
        }
    }
    rec.config = (!config.is_empty()).then_some(Value::Object(config));
    rec.metrics = metrics;
    for key in dropped {
        rec.caveats.push(RunCaveat {
            metric: Some(key.clone()),
            text: format!("{}: the final logged `{key}` is not a finite number, so it was dropped, not replaced by an earlier step", rec.name),
        });
    }
    if info.status != "FINISHED" {
        rec.notes = Some(format!("MLflow status: {}", info.status));
        rec.caveats.push(RunCaveat {
            metric: None,
            text: format!("{}: the MLflow run's status is {}, not FINISHED", rec.name, info.status),
        });
    }
    Ok(rec)
}

fn yaml_map(path: &Path) -> Option<Map<String, Value>> {
    let bytes = std::fs::read(path).ok()?;
    let v: serde_norway::Value = serde_norway::from_slice(&bytes).ok()?;
    serde_json::to_value(v).ok()?.as_object().cloned()
}

fn scalar(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn read_kv_dir(dir: &Path) -> Map<String, Value> {
    let mut out = Map::new();
    if !dir.is_dir() {
        return out;
    }
    for e in walkdir::WalkDir::new(dir).sort_by_file_name().into_iter().flatten().filter(|e| e.file_type().is_file()) {
        let key = e.path().strip_prefix(dir).unwrap_or(e.path()).to_string_lossy().into_owned();
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            out.insert(key, Value::String(text.trim().to_string()));
        }
    }
    out
}

/// Parse a file-store metric file's lines `<timestamp> <value> [<step>]`.
pub fn metric_file_rows(key: &str, text: &str) -> Vec<MetricRow> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let timestamp = it.next()?.parse().ok()?;
            let value: f64 = it.next()?.parse().ok()?;
            let step = it.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            Some(MetricRow { key: key.to_string(), value, timestamp, step, is_nan: value.is_nan() })
        })
        .collect()
}

/// Read an MLflow file store (`base`, a `mlruns/` directory anywhere in the project).
pub fn file_store(project: &Path, base: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    if !base.is_dir() {
        return;
    }
    for exp in sorted_entries(base).into_iter().filter(|p| p.is_dir()) {
        let Some(exp_meta) = yaml_map(&exp.join("meta.yaml")) else { continue };
        if scalar(exp_meta.get("lifecycle_stage")).is_some_and(|s| s != "active") {
            d.note(project, &exp, "skipped: the MLflow experiment is deleted");
            continue;
        }
        for run in sorted_entries(&exp).into_iter().filter(|p| p.join("meta.yaml").is_file()) {
            let Some(meta) = yaml_map(&run.join("meta.yaml")) else {
                d.note(project, &run, "not recorded: meta.yaml is not readable YAML");
                continue;
            };
            if scalar(meta.get("lifecycle_stage")).is_some_and(|s| s != "active") {
                d.note(project, &run, "skipped: the MLflow run is deleted (lifecycle_stage is not active)");
                continue;
            }
            let id = scalar(meta.get("run_id").or_else(|| meta.get("run_uuid")))
                .unwrap_or_else(|| run.file_name().unwrap_or_default().to_string_lossy().into_owned());
            let mut rows = Vec::new();
            let mdir = run.join("metrics");
            for e in walkdir::WalkDir::new(&mdir)
                .sort_by_file_name()
                .into_iter()
                .flatten()
                .filter(|e| e.file_type().is_file())
            {
                let key = e.path().strip_prefix(&mdir).unwrap_or(e.path()).to_string_lossy().into_owned();
                if let Ok(text) = std::fs::read_to_string(e.path()) {
                    rows.extend(metric_file_rows(&key, &text));
                }
            }
            let tags = read_kv_dir(&run.join("tags"));
            let run_name = scalar(meta.get("run_name"))
                .filter(|s| !s.is_empty())
                .or_else(|| tags.get("mlflow.runName").and_then(Value::as_str).map(str::to_string));
            let info = RunInfo {
                id,
                run_name,
                status: scalar(meta.get("status")).map(|s| status_name(&s)).unwrap_or_else(|| "UNKNOWN".into()),
                started: meta.get("start_time").and_then(Value::as_i64).and_then(ms_to_rfc3339),
                params: read_kv_dir(&run.join("params")),
                tags,
            };
            let hash = hash::files(&run, &hash::mlflow_run_files(&run));
            match build(info, &rows, abs(&run), hash) {
                Ok(rec) => {
                    d.claim(seen, project, &run, rec);
                }
                Err(dropped) => d.note(project, &run, no_metrics(&dropped)),
            }
        }
    }
}

fn no_metrics(dropped: &[String]) -> String {
    if dropped.is_empty() {
        "not recorded: the MLflow run logged no metric".into()
    } else {
        format!("not recorded: every metric's final value is non-finite ({})", dropped.join(", "))
    }
}

/// Read an MLflow SQLite backend (`db`, a `mlflow.db` anywhere in the project),
/// opened read-only.
pub async fn sqlite(project: &Path, db: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    if !db.is_file() {
        return;
    }
    if let Err(e) = read_db(project, db, d, seen).await {
        d.note(project, db, format!("not read as an MLflow database: {e}"));
    }
}

async fn read_db(project: &Path, db: &Path, d: &mut Discovery, seen: &mut HashSet<String>) -> Result<(), sqlx::Error> {
    let mut conn = hash::open_tracker_db(db).await?;
    let source = abs(db);
    let deleted = sqlx::query(
        "SELECT r.run_uuid FROM runs r LEFT JOIN experiments e ON e.experiment_id = r.experiment_id \
         WHERE r.lifecycle_stage <> 'active' OR e.lifecycle_stage <> 'active' ORDER BY r.run_uuid",
    )
    .fetch_all(&mut conn)
    .await?;
    for r in deleted {
        let id: String = r.get(0);
        d.note(project, db, format!("skipped run {id}: deleted in MLflow (lifecycle_stage is not active)"));
    }
    let runs = sqlx::query(
        "SELECT r.run_uuid, r.name, r.status, r.start_time FROM runs r JOIN experiments e ON e.experiment_id = r.experiment_id \
         WHERE r.lifecycle_stage = 'active' AND e.lifecycle_stage = 'active' ORDER BY r.start_time, r.run_uuid",
    )
    .fetch_all(&mut conn)
    .await?;
    for r in runs {
        let id: String = r.get(0);
        let rows = hash::mlflow_db_rows(&mut conn, &id).await?;
        let kv =
            |table: &'static str| format!(r#"SELECT "key", value FROM {table} WHERE run_uuid = $1 ORDER BY "key""#);
        let mut params = Map::new();
        for p in sqlx::query(&kv("params")).bind(&id).fetch_all(&mut conn).await? {
            params.insert(p.get::<String, _>(0), Value::String(p.get::<Option<String>, _>(1).unwrap_or_default()));
        }
        let mut tags = Map::new();
        for t in sqlx::query(&kv("tags")).bind(&id).fetch_all(&mut conn).await? {
            tags.insert(t.get::<String, _>(0), Value::String(t.get::<Option<String>, _>(1).unwrap_or_default()));
        }
        let run_name = r
            .get::<Option<String>, _>(1)
            .filter(|s| !s.is_empty())
            .or_else(|| tags.get("mlflow.runName").and_then(Value::as_str).map(str::to_string));
        let info = RunInfo {
            id: id.clone(),
            run_name,
            status: r.get::<Option<String>, _>(2).unwrap_or_else(|| "UNKNOWN".into()),
            started: r.get::<Option<i64>, _>(3).and_then(ms_to_rfc3339),
            params,
            tags,
        };
        let hash = (!rows.is_empty()).then(|| hash::metric_rows(&rows));
        match build(info, &rows, format!("{source}{}{id}", hash::RUN_FRAGMENT), hash) {
            Ok(rec) => {
                d.claim(seen, project, db, rec);
            }
            Err(dropped) => d.note(project, db, format!("run {id} {}", no_metrics(&dropped))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latest_is_highest_step_then_time() {
        let rows = metric_file_rows("loss", "1 1.5 0\n3 0.9 2\n2 0.7 2\nbad line\n4 nan 1\n");
        let l = latest(&rows);
        assert_eq!(l["loss"], (0.9, 2, true));
        let nan = metric_file_rows("x", "1 1.0 0\n2 nan 1\n");
        assert!(!latest(&nan)["x"].2);
        assert!(!finite(f64::MAX, false) && !finite(0.0, true) && finite(1.0, false));
        assert_eq!(status_name("4"), "FAILED");
        assert_eq!(ms_to_rfc3339(0).as_deref(), Some("1970-01-01T00:00:00Z"));
    }
}
