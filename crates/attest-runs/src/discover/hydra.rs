//! Hydra job directories: `multirun/<date>/<time>/<n>/` (a sweep) or
//! `outputs/<date>/<time>/` (a single run), each with `.hydra/config.yaml` (the
//! composed config), `.hydra/overrides.yaml` (the command-line overrides, `- lr=0.1`)
//! and `.hydra/hydra.yaml` (`hydra.job.name`, the family), plus whatever result files
//! the job wrote into its own directory (JSON, JSON Lines, labelled or training-log
//! CSV), read like files under `results/`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::formats;
use super::payload::{Metric, metrics_from_payload};
use super::{Adapter, Discovery, Record, abs, sorted_entries, suffix};
use crate::hash;

fn yaml(path: &Path) -> Option<Value> {
    let bytes = formats::read_capped(path).ok()?;
    let v: serde_norway::Value = serde_norway::from_slice(&bytes).ok()?;
    serde_json::to_value(v).ok()
}

/// `["lr=0.1", "+model=big", "~x"]` as a config: values parsed as YAML scalars.
pub fn parse_overrides(v: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for o in v.as_array().into_iter().flatten().filter_map(Value::as_str) {
        let Some((k, val)) = o.split_once('=') else { continue };
        let k = k.trim_start_matches(['+', '~']).trim();
        let parsed = serde_norway::from_str::<serde_norway::Value>(val)
            .ok()
            .and_then(|y| serde_json::to_value(y).ok())
            .filter(|j| !j.is_object() && !j.is_null())
            .unwrap_or_else(|| Value::String(val.to_string()));
        out.insert(k.to_string(), parsed);
    }
    out
}

/// Set `a.b.c` in a nested config.
fn set_path(cfg: &mut Map<String, Value>, key: &str, v: Value) {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().unwrap_or(key);
    let mut cur = cfg;
    for p in parts {
        let e = cur.entry(p.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if !e.is_object() {
            *e = Value::Object(Map::new());
        }
        let Value::Object(m) = e else { return };
        cur = m;
    }
    cur.insert(last.to_string(), v);
}

/// The name of a job: its path below the `multirun/` or `outputs/` directory holding it
/// (`2026-12-01/10-00-00/3`), else below the project.
fn job_name(project: &Path, dir: &Path) -> String {
    let rel = dir.strip_prefix(project).unwrap_or(dir);
    let comps: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    match comps.iter().position(|c| c == "multirun" || c == "outputs") {
        Some(i) if i + 1 < comps.len() => comps[i + 1..].join("/"),
        _ => comps.join("/"),
    }
}

/// Read every Hydra job directory found by the walk; note the multirun directories
/// that lost their `.hydra/`.
pub fn runs(project: &Path, dirs: &[PathBuf], orphans: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    for dir in orphans {
        let has_results = sorted_entries(dir).iter().any(|f| f.is_file());
        if has_results {
            d.note(
                project,
                dir,
                "skipped: a Hydra multirun job directory without .hydra/, so its config and overrides are unknown and its results cannot be told apart from its siblings'; rerun the job or restore .hydra/",
            );
        }
    }
    for dir in dirs {
        let hy = dir.join(".hydra");
        let Some(Value::Object(mut config)) = yaml(&hy.join("config.yaml")) else {
            d.note(
                project,
                &hy.join("config.yaml"),
                "skipped: the Hydra job's .hydra/config.yaml is missing or not a YAML mapping",
            );
            continue;
        };
        let overrides = yaml(&hy.join("overrides.yaml")).map(|v| parse_overrides(&v)).unwrap_or_default();
        for (k, v) in &overrides {
            set_path(&mut config, k, v.clone());
        }
        let job = yaml(&hy.join("hydra.yaml"))
            .and_then(|h| h.pointer("/hydra/job/name").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| "hydra".into());
        let mut metrics: Vec<Metric> = Vec::new();
        let mut dropped = Vec::new();
        let mut read_any = false;
        for f in sorted_entries(dir).into_iter().filter(|f| f.is_file()) {
            let sfx = suffix(&f);
            if !matches!(sfx.as_str(), "json" | "jsonl" | "csv") {
                continue;
            }
            let bytes = match formats::read_capped(&f) {
                Ok(b) => b,
                Err(e) => {
                    d.note(project, &f, e.to_string());
                    continue;
                }
            };
            let ex = if sfx == "csv" {
                match formats::parse_csv(&bytes) {
                    Ok(t) if super::csvlog::is_training_log(&t) => {
                        let (m, _) = super::csvlog::log_metrics(&t, None);
                        super::payload::Extracted { metrics: m, ..Default::default() }
                    }
                    _ => {
                        d.note(project, &f, "skipped: a CSV in a Hydra job directory is read only as a training log (a step or epoch column)");
                        continue;
                    }
                }
            } else {
                let text = String::from_utf8_lossy(&bytes);
                let payload = if sfx == "jsonl" {
                    Ok(Value::Array(formats::parse_jsonl(&text).0))
                } else {
                    formats::parse_json(&text)
                };
                match payload {
                    Ok(p) => metrics_from_payload(&p, None, None),
                    Err(e) => {
                        d.note(project, &f, format!("skipped: not valid JSON ({e})"));
                        continue;
                    }
                }
            };
            if let Some(why) = ex.refused {
                d.note(project, &f, format!("skipped: {why}"));
                continue;
            }
            metrics.extend(ex.metrics);
            dropped.extend(ex.dropped);
            read_any = true;
        }
        let metrics = super::payload::dedup(metrics);
        if !read_any || metrics.is_empty() {
            d.note(project, dir, "skipped: the Hydra job wrote no result file with a number in it (JSON, JSON Lines or a CSV log in its directory)");
            continue;
        }
        // The evidence is the job directory: .hydra/'s files and its own results.
        let mut rec = Record::new(job_name(project, dir), Some(job), abs(dir));
        rec.adapter = Adapter::Hydra;
        rec.source_hash = hash::files(dir, &hash::run_dir_files(dir));
        rec.config = Some(Value::Object(config));
        if !overrides.is_empty() {
            let o: Vec<String> = overrides
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())))
                .collect();
            rec.notes = Some(format!("Hydra overrides: {}", o.join(" ")));
        }
        rec.metrics = metrics;
        rec.note_dropped(&dropped);
        d.claim(seen, project, dir, rec);
    }
}
