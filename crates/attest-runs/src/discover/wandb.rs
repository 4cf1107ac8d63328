//! Weights & Biases run directories: `<project>/wandb/*run-*/files/`.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};

use super::formats;
use super::payload::metrics_from_payload;
use super::{Adapter, Discovery, Record, abs, sorted_entries};
use crate::corpus;
use crate::hash;

/// W&B's `config.yaml` as plain values: `key: {value: x}` unwrapped, bookkeeping keys
/// (`_wandb`, `wandb_version`, anything starting `_`) dropped.
pub fn unwrap_config(v: &Value) -> Option<Map<String, Value>> {
    let obj = v.as_object()?;
    let mut out = Map::new();
    for (k, v) in obj {
        if k.starts_with('_') || k == "wandb_version" {
            continue;
        }
        let inner = match v {
            Value::Object(o) if o.contains_key("value") => o["value"].clone(),
            other => other.clone(),
        };
        out.insert(k.clone(), inner);
    }
    Some(out)
}

/// Read every W&B run under `<project>/wandb/`.
pub fn runs(project: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    let base = project.join("wandb");
    if !base.is_dir() {
        return;
    }
    for dir in sorted_entries(&base) {
        let dname = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // `latest-run` is a symlink to a run already listed.
        let is_link = std::fs::symlink_metadata(&dir).map(|m| m.file_type().is_symlink()).unwrap_or(true);
        if is_link || !dir.is_dir() || !dname.contains("run-") {
            continue;
        }
        let summary_path = dir.join("files/wandb-summary.json");
        let summary = match formats::read_capped(&summary_path) {
            Ok(b) => b,
            Err(formats::ReadError::Io(_)) => {
                d.note(project, &dir, "not recorded: no files/wandb-summary.json (an offline run gets one only when it is synced with `wandb sync`)");
                continue;
            }
            Err(e) => {
                d.note(project, &summary_path, e.to_string());
                continue;
            }
        };
        let payload = match formats::parse_json(&String::from_utf8_lossy(&summary)) {
            Ok(Value::Object(o)) => Value::Object(o.into_iter().filter(|(k, _)| !k.starts_with('_')).collect()),
            Ok(_) => {
                d.note(project, &summary_path, "not recorded: the summary is not a JSON object");
                continue;
            }
            Err(e) => {
                d.note(project, &summary_path, format!("not recorded: not valid JSON ({e})"));
                continue;
            }
        };
        let ex = metrics_from_payload(&payload, None, None);
        if ex.metrics.is_empty() {
            let why = if ex.dropped.is_empty() {
                "not recorded: the summary holds only W&B bookkeeping keys, no metric (the run probably crashed before logging)".to_string()
            } else {
                format!("not recorded: every metric in the summary is non-finite ({})", ex.dropped.join(", "))
            };
            d.note(project, &dir, why);
            continue;
        }
        let meta: Option<Map<String, Value>> = std::fs::read(dir.join("files/wandb-metadata.json"))
            .ok()
            .and_then(|b| formats::parse_json(&String::from_utf8_lossy(&b)).ok())
            .and_then(|v| v.as_object().cloned());
        let program = meta
            .as_ref()
            .and_then(|m| m.get("program").or_else(|| m.get("codePath")))
            .and_then(Value::as_str)
            .and_then(|p| Path::new(p).file_stem().map(|s| s.to_string_lossy().into_owned()))
            .filter(|s| !s.is_empty() && !s.starts_with('<'));
        let short = dname.rsplit('-').next().unwrap_or(&dname).to_string();
        let name = match &program {
            Some(p) => format!("{p}/{short}"),
            None => dname.clone(),
        };
        let config = std::fs::read(dir.join("files/config.yaml"))
            .ok()
            .and_then(|b| serde_norway::from_slice::<serde_norway::Value>(&b).ok())
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| unwrap_config(&v));
        let mut rec = Record::new(name, program.clone(), abs(&dir));
        rec.adapter = Adapter::Wandb;
        rec.started = meta.as_ref().and_then(|m| m.get("startedAt")).and_then(Value::as_str).map(str::to_string);
        rec.source_hash = hash::files(&dir, &hash::wandb_run_files(&dir));
        rec.corpus = config.as_ref().and_then(corpus::from_payload);
        rec.config = config.map(Value::Object);
        rec.metrics = ex.metrics;
        rec.note_dropped(&ex.dropped);
        d.claim(seen, project, &dir, rec);
    }
}
