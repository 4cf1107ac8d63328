//! DVC pipelines: `dvc.yaml` (stages and the metrics files they declare), `dvc.lock`
//! (what `dvc repro` last ran: each stage's params and its outputs' md5),
//! `params.yaml`, and the metrics files themselves.
//!
//! A run is one stage's metrics file (`train` or, for a `foreach` stage, `train@0`;
//! `<stage>/<file stem>` when a stage has several). The family is the stage's name
//! before `@`, so the members of a `foreach` sweep are arms, told apart by the params
//! `dvc.lock` records for each. A metrics file whose md5 no longer matches `dvc.lock`
//! was changed after the pipeline ran: it is read, noted as stale, and its run carries
//! a caveat. Without `dvc.lock` the stages of `dvc.yaml` are read with a caveat that
//! nothing says they were run.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::declared::glob_match;
use super::payload::metrics_from_payload;
use super::{Adapter, Discovery, Record, RunCaveat, abs, formats, suffix};
use crate::hash;

/// MD5 as lower-case hex, the digest DVC records for each output.
pub fn md5_hex(data: &[u8]) -> String {
    use md5::{Digest as _, Md5};
    Md5::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

fn yaml(path: &Path) -> Option<Value> {
    let bytes = formats::read_capped(path).ok()?;
    let v: serde_norway::Value = serde_norway::from_slice(&bytes).ok()?;
    serde_json::to_value(v).ok()
}

/// The metrics paths a `dvc.yaml` stage declares (`- metrics.json` or
/// `- metrics.json: {cache: false}`), `${…}` templates as `*`.
fn declared_metrics(stage: &Value) -> Vec<String> {
    let body = stage.get("do").unwrap_or(stage);
    let templ = regex::Regex::new(r"\$\{[^}]*\}").expect("a valid regex");
    body.get("metrics")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| match m {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o.keys().next().cloned(),
            _ => None,
        })
        .map(|p| templ.replace_all(&p, "*").into_owned())
        .collect()
}

/// Read every DVC pipeline found by the walk; returns the metrics files read, which
/// the generic reader then leaves alone.
pub fn runs(project: &Path, roots: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) -> Vec<PathBuf> {
    let mut read = Vec::new();
    for root in roots {
        let Some(Value::Object(pipeline)) = yaml(&root.join("dvc.yaml")) else {
            d.note(project, &root.join("dvc.yaml"), "skipped: not a YAML mapping, so no DVC stage could be read");
            continue;
        };
        let stages = pipeline.get("stages").and_then(Value::as_object).cloned().unwrap_or_default();
        let lock_path = root.join("dvc.lock");
        let lock = if lock_path.is_file() {
            let l = yaml(&lock_path);
            if l.is_none() {
                d.note(project, &lock_path, "not read: not valid YAML, so no stage's outputs can be checked");
            }
            l
        } else {
            None
        };
        let locked: Map<String, Value> =
            lock.as_ref().and_then(|l| l.get("stages")).and_then(Value::as_object).cloned().unwrap_or_default();
        let params_file = yaml(&root.join("params.yaml"));
        // (stage name, metrics path, md5 from dvc.lock, params)
        let mut todo: Vec<(String, String, Option<String>, Option<Value>)> = Vec::new();
        if locked.is_empty() {
            for (name, st) in &stages {
                for m in declared_metrics(st).into_iter().filter(|m| !m.contains('*')) {
                    todo.push((name.clone(), m, None, params_file.clone()));
                }
            }
        } else {
            for (name, st) in &locked {
                let base = name.split('@').next().unwrap_or(name);
                let globs = stages.get(base).map(declared_metrics).unwrap_or_default();
                let mut params = Map::new();
                for file in st.get("params").and_then(Value::as_object).into_iter().flat_map(|m| m.values()) {
                    if let Some(o) = file.as_object() {
                        params.extend(o.clone());
                    }
                }
                for out in st.get("outs").and_then(Value::as_array).into_iter().flatten() {
                    let Some(path) = out.get("path").and_then(Value::as_str) else { continue };
                    if !globs.iter().any(|g| glob_match(g, path)) {
                        continue;
                    }
                    let md5 = out.get("md5").and_then(Value::as_str).map(str::to_string);
                    let p = (!params.is_empty()).then(|| Value::Object(params.clone()));
                    todo.push((name.clone(), path.to_string(), md5, p));
                }
            }
        }
        let per_stage = |stage: &str| todo.iter().filter(|t| t.0 == stage).count();
        let counts: Vec<usize> = todo.iter().map(|t| per_stage(&t.0)).collect();
        for ((stage, path, md5, params), n) in todo.iter().zip(counts) {
            let f = root.join(path);
            let bytes = match formats::read_capped(&f) {
                Ok(b) => b,
                Err(e) => {
                    d.note(project, &f, format!("DVC stage {stage} declares it as metrics, but it {e}"));
                    continue;
                }
            };
            read.push(f.clone());
            let text = String::from_utf8_lossy(&bytes);
            let payload = match suffix(&f).as_str() {
                "json" => formats::parse_json(&text).ok(),
                "yaml" | "yml" => {
                    serde_norway::from_str::<serde_norway::Value>(&text).ok().and_then(|v| serde_json::to_value(v).ok())
                }
                "toml" => text.parse::<toml::Table>().ok().and_then(|t| serde_json::to_value(t).ok()),
                _ => None,
            };
            let Some(payload) = payload else {
                d.note(
                    project,
                    &f,
                    format!(
                        "skipped: DVC stage {stage}'s metrics file is not JSON, YAML or TOML this reader can parse"
                    ),
                );
                continue;
            };
            let ex = metrics_from_payload(&payload, None, None);
            if ex.metrics.is_empty() {
                d.note(project, &f, format!("skipped: DVC stage {stage}'s metrics file holds no number"));
                continue;
            }
            let stem = super::stem(&f);
            let name = if n > 1 { format!("{stage}/{stem}") } else { stage.clone() };
            let family = stage.split('@').next().unwrap_or(stage).to_string();
            let mut rec = Record::new(name, Some(family), abs(&f));
            rec.adapter = Adapter::Dvc;
            let digest = md5_hex(&bytes);
            rec.source_hash = Some(hash::of_bytes(&bytes));
            // The params dvc.lock recorded, and a foreach key's variant tokens
            // (`train@lr0.01` → `lr: "0.01"`).
            let mut config = params.as_ref().and_then(Value::as_object).cloned().unwrap_or_default();
            if let Some((_, key)) = stage.split_once('@') {
                for (k, v) in crate::family::variant_config(key) {
                    config.entry(k).or_insert(v);
                }
            }
            rec.config = (!config.is_empty()).then_some(Value::Object(config));
            match md5 {
                Some(m) if *m != digest => {
                    d.note(project, &f, format!("stale: its md5 ({digest}) no longer matches dvc.lock ({m}); it changed after `dvc repro` last ran stage {stage}"));
                    rec.caveats.push(RunCaveat {
                        metric: None,
                        text: format!("{}: {path} changed after DVC last ran the stage (its md5 no longer matches dvc.lock), so these numbers may not come from the recorded params; run `dvc repro`", rec.name),
                    });
                }
                None if locked.is_empty() => rec.caveats.push(RunCaveat {
                    metric: None,
                    text: format!("{}: there is no dvc.lock, so nothing records that stage {stage} produced {path} or with which params", rec.name),
                }),
                _ => {}
            }
            rec.metrics = ex.metrics;
            rec.note_dropped(&ex.dropped);
            d.claim(seen, project, &f, rec);
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_vectors() {
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6");
        assert_eq!(md5_hex(&[b'a'; 64]), "014842d480b571495a4a0363793f7367");
    }
}
