//! Sacred's FileStorageObserver: `<base>/<run id>/{run.json, config.json, metrics.json}`.
//!
//! `run.json` gives the experiment's name (the family), the status and the start
//! time, and the main function's return value (`result`: a number becomes the metric
//! `result`, an object its numeric items); `metrics.json` the scalars logged with
//! `_run.log_scalar` (`{name: {steps, values, timestamps}}`), one row per step;
//! `config.json` the config. Runs whose status is not COMPLETED carry a caveat.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::formats;
use super::payload::Metric;
use super::{Adapter, Discovery, Record, RunCaveat, abs};
use crate::family::split_of_metric;
use crate::hash;

fn read_obj(project: &Path, f: &Path, d: &mut Discovery) -> Result<(Vec<u8>, Map<String, Value>), ()> {
    let bytes = formats::read_capped(f).map_err(|e| d.note(project, f, e.to_string()))?;
    match formats::parse_json(&String::from_utf8_lossy(&bytes)) {
        Ok(Value::Object(o)) => Ok((bytes, o)),
        Ok(_) => {
            d.note(project, f, "skipped: not a JSON object, so not a file Sacred wrote");
            Err(())
        }
        Err(e) => {
            d.note(
                project,
                f,
                format!("skipped: not valid JSON ({e}); a file cut short when a job was killed looks like this"),
            );
            Err(())
        }
    }
}

fn push(out: &mut Vec<Metric>, metric: String, value: f64, step: Option<i64>) {
    let split = split_of_metric(&metric).map(str::to_string);
    if value.is_finite() {
        out.push(Metric { metric, value, step, split });
    }
}

/// Read every Sacred run directory found by the walk.
pub fn runs(project: &Path, dirs: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    for dir in dirs {
        let Ok((_, run)) = read_obj(project, &dir.join("run.json"), d) else {
            d.note(
                project,
                dir,
                "skipped: the Sacred run's run.json is unreadable, so its status and result are unknown",
            );
            continue;
        };
        let id = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let experiment = run
            .get("experiment")
            .and_then(|e| e.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| "sacred".into());
        let mut metrics = Vec::new();
        let mpath = dir.join("metrics.json");
        if mpath.is_file()
            && let Ok((_, m)) = read_obj(project, &mpath, d)
        {
            for (key, series) in &m {
                let steps = series.get("steps").and_then(Value::as_array);
                let Some(values) = series.get("values").and_then(Value::as_array) else { continue };
                for (i, v) in values.iter().enumerate() {
                    let step = steps.and_then(|s| s.get(i)).and_then(Value::as_i64);
                    if let Some(x) = v.as_f64() {
                        push(&mut metrics, key.to_ascii_lowercase(), x, step);
                    }
                }
            }
        }
        match run.get("result") {
            Some(Value::Number(n)) => {
                if let Some(x) = n.as_f64() {
                    push(&mut metrics, "result".into(), x, None);
                }
            }
            Some(Value::Object(o)) => {
                for (k, v) in o {
                    let key = k.to_ascii_lowercase();
                    if let Some(x) = v.as_f64().filter(|_| !super::payload::SKIP_KEYS.contains(&key.as_str())) {
                        push(&mut metrics, key, x, None);
                    }
                }
            }
            _ => {}
        }
        let metrics = super::payload::dedup(metrics);
        let status = run.get("status").and_then(Value::as_str).unwrap_or("UNKNOWN").to_string();
        if metrics.is_empty() {
            d.note(project, dir, format!("skipped: the Sacred run ({status}) logged no metric and returned no number"));
            continue;
        }
        let config = match read_obj(project, &dir.join("config.json"), d) {
            Ok((_, c)) => Some(Value::Object(c)),
            Err(()) => None,
        };
        // The evidence is the run directory: run.json, config.json, metrics.json.
        let mut rec = Record::new(format!("{experiment}/{id}"), Some(experiment), abs(dir));
        rec.adapter = Adapter::Sacred;
        rec.source_hash = hash::files(dir, &hash::run_dir_files(dir));
        rec.started = run.get("start_time").and_then(Value::as_str).map(str::to_string);
        rec.config = config;
        if status != "COMPLETED" {
            rec.notes = Some(format!("Sacred status: {status}"));
            rec.caveats.push(RunCaveat {
                metric: None,
                text: format!("{}: the Sacred run's status is {status}, not COMPLETED", rec.name),
            });
        }
        rec.metrics = metrics;
        d.claim(seen, project, dir, rec);
    }
}
