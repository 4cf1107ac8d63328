//! Hugging Face Trainer output directories.
//!
//! A run is the output directory (`args.output_dir`): `all_results.json` (or, when
//! absent, `train_results.json`, `eval_results.json`, `test_results.json`,
//! `predict_results.json`) holds the final numbers, `trainer_state.json` the
//! `log_history` (curves) and the best checkpoint. `checkpoint-N/` directories are
//! checkpoints of the same run, never runs of their own. Metric names are kept as the
//! Trainer writes them (`eval_accuracy`); their prefix is the split (`eval_` → `eval`,
//! `train_` → `train`, `test_`/`predict_` → `test`); `eval_samples` and
//! `train_samples` are each split's n. The final `eval_` numbers are at the step
//! that was evaluated, which with `load_best_model_at_end` is the best checkpoint's,
//! not `global_step` (`restep_final_eval`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::formats;
use super::payload::{Extracted, Metric};
use super::{Adapter, Discovery, Record, abs, sorted_entries};
use crate::family::{family_of_dir, split_of_metric, variant_config};
use crate::hash;

/// Result files the Trainer writes with `save_metrics`, read when `all_results.json`
/// is absent.
pub const SPLIT_FILES: &[&str] =
    &["train_results.json", "eval_results.json", "test_results.json", "predict_results.json"];

/// `trainer_state.json` keys that are the run's settings (the Trainer's arguments it
/// keeps), recorded as config.
const STATE_ARGS: &[&str] =
    &["train_batch_size", "num_train_epochs", "max_steps", "logging_steps", "eval_steps", "save_steps"];

fn read_json(project: &Path, f: &Path, d: &mut Discovery) -> Option<(Vec<u8>, Map<String, Value>)> {
    let bytes = match formats::read_capped(f) {
        Ok(b) => b,
        Err(e) => {
            d.note(project, f, e.to_string());
            return None;
        }
    };
    match formats::parse_json(&String::from_utf8_lossy(&bytes)) {
        Ok(Value::Object(o)) => Some((bytes, o)),
        Ok(_) => {
            d.note(project, f, "skipped: not a JSON object, so not a file the Trainer wrote");
            None
        }
        Err(e) => {
            d.note(
                project,
                f,
                format!("skipped: not valid JSON ({e}); a file cut short when a job was killed looks like this"),
            );
            None
        }
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    v.as_f64().filter(|f| f.is_finite())
}

/// The metric rows of one flat object of Trainer numbers.
fn push_flat(obj: &Map<String, Value>, step: Option<i64>, default_split: Option<&str>, out: &mut Extracted) {
    for (k, v) in obj {
        let key = k.trim().to_ascii_lowercase();
        if matches!(key.as_str(), "epoch" | "step" | "global_step") {
            continue;
        }
        let split = split_of_metric(&key).or(default_split).map(str::to_string);
        match as_f64(v) {
            Some(x) => out.metrics.push(Metric { metric: key, value: x, step, split }),
            None => {
                if let Some(tok) = formats::non_finite_token(v) {
                    out.dropped.push(format!("{key} ({tok})"));
                }
            }
        }
    }
}

/// Timing numbers of an evaluation, which differ between two evaluations of the same
/// model and so cannot tell which evaluation a result file holds.
const EVAL_TIMINGS: &[&str] = &["eval_runtime", "eval_samples_per_second", "eval_steps_per_second", "eval_samples"];

/// The step the final evaluation was of. With `load_best_model_at_end` the Trainer
/// reloads the best checkpoint before the script's last `evaluate()`, so
/// `eval_results.json` holds the numbers of, say, step 32 while `global_step` is 96.
/// The evaluation rows of `log_history` tell: the row whose every eval metric equals
/// the final one's is the step evaluated (when several do, `best_global_step` if it
/// is one of them, else none is chosen and `global_step` stays).
fn restep_final_eval(metrics: &mut [Metric], state: &Map<String, Value>) {
    let finals: Vec<(&str, f64)> = metrics
        .iter()
        .filter(|m| m.split.as_deref() == Some("eval") && !EVAL_TIMINGS.contains(&m.metric.as_str()))
        .map(|m| (m.metric.as_str(), m.value))
        .collect();
    let Some(Value::Array(rows)) = state.get("log_history") else { return };
    if finals.is_empty() {
        return;
    }
    let mut steps: Vec<i64> = rows
        .iter()
        .filter_map(Value::as_object)
        .filter(|r| finals.iter().all(|(k, v)| r.get(*k).and_then(as_f64) == Some(*v)))
        .filter_map(|r| r.get("step").and_then(Value::as_i64))
        .collect();
    steps.dedup();
    let best = state.get("best_global_step").and_then(Value::as_i64);
    let step = match steps.as_slice() {
        [one] => *one,
        many => match best.filter(|b| many.contains(b)) {
            Some(b) => b,
            None => return,
        },
    };
    for m in metrics.iter_mut().filter(|m| m.split.as_deref() == Some("eval")) {
        m.step = Some(step);
    }
}

/// Read every Trainer output directory found by the walk.
pub fn runs(project: &Path, dirs: &[PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    for dir in dirs {
        read_run(project, dir, d, seen);
    }
}

fn read_run(project: &Path, dir: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    let dname = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let parent = dir.parent().and_then(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned());
    let state_path = dir.join("trainer_state.json");
    let state = if state_path.is_file() { read_json(project, &state_path, d) } else { None };
    let global_step = state.as_ref().and_then(|(_, s)| s.get("global_step")).and_then(Value::as_i64);

    let mut ex = Extracted::default();
    let mut primary: Option<(PathBuf, Vec<u8>)> = None;
    let all = dir.join("all_results.json");
    let result_files: Vec<PathBuf> = if all.is_file() {
        vec![all]
    } else {
        SPLIT_FILES.iter().map(|f| dir.join(f)).filter(|p| p.is_file()).collect()
    };
    for f in &result_files {
        if let Some((bytes, obj)) = read_json(project, f, d) {
            push_flat(&obj, global_step, None, &mut ex);
            if primary.is_none() {
                primary = Some((f.clone(), bytes));
            }
        }
    }
    if let Some((_, st)) = &state {
        restep_final_eval(&mut ex.metrics, st);
    }
    let finals: HashSet<String> = ex.metrics.iter().map(|m| m.metric.clone()).collect();
    let mut config = Map::new();
    let mut notes = Vec::new();
    if let Some((bytes, s)) = &state {
        // Curves: every metric the result files do not hold (all of them when the run
        // has no result file, e.g. one killed mid-training).
        if let Some(Value::Array(rows)) = s.get("log_history") {
            for row in rows.iter().filter_map(Value::as_object) {
                let step = row.get("step").and_then(Value::as_i64);
                let mut one = Extracted::default();
                push_flat(row, step, Some("train"), &mut one);
                ex.metrics.extend(one.metrics.into_iter().filter(|m| !finals.contains(&m.metric)));
                ex.dropped.extend(one.dropped);
            }
        }
        for k in STATE_ARGS {
            if let Some(v) = s.get(*k).filter(|v| v.is_number()) {
                config.insert((*k).to_string(), v.clone());
            }
        }
        if let Some(Value::Object(tp)) = s.get("trial_params") {
            for (k, v) in tp {
                config.insert(k.clone(), v.clone());
            }
        }
        if let Some(best) = s.get("best_model_checkpoint").and_then(Value::as_str) {
            let short = Path::new(best).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or(best.into());
            let metric =
                s.get("best_metric").and_then(as_f64).map(|m| format!(", best_metric {m}")).unwrap_or_default();
            notes.push(format!("best checkpoint: {short}{metric}"));
        }
        if primary.is_none() {
            primary = Some((state_path.clone(), bytes.clone()));
        }
    }
    let checkpoints: Vec<String> = sorted_entries(dir)
        .into_iter()
        .filter(|p| p.is_dir())
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .filter(|n| n.starts_with("checkpoint-"))
        .collect();
    if !checkpoints.is_empty() {
        notes.push(format!(
            "{} ({}) read as checkpoints of this run, not as runs",
            attest_core::text::plural(checkpoints.len(), "checkpoint", "checkpoints"),
            checkpoints.join(", ")
        ));
    }
    // Arguments a user saved as JSON (`training_args.bin` is a pickle and is not read).
    let args_path = dir.join("training_args.json");
    if args_path.is_file()
        && let Some((_, args)) = read_json(project, &args_path, d)
    {
        for (k, v) in args {
            config.entry(k).or_insert(v);
        }
    }
    for (k, v) in variant_config(&dname) {
        config.entry(k).or_insert(v);
    }
    let Some((source, _)) = primary else {
        d.note(
            project,
            dir,
            "skipped: a Trainer output directory with no readable all_results.json, *_results.json or trainer_state.json",
        );
        return;
    };
    ex.metrics = super::payload::dedup(std::mem::take(&mut ex.metrics));
    if ex.metrics.is_empty() {
        d.note(project, &source, "skipped: the Trainer files hold no finite metric");
        return;
    }
    let rel_parent = dir
        .parent()
        .and_then(|p| p.strip_prefix(project).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| !p.is_empty());
    let name = if seen.contains(&dname) {
        dir.strip_prefix(project).map(|p| p.to_string_lossy().into_owned()).unwrap_or(dname.clone())
    } else {
        dname.clone()
    };
    let family = family_of_dir(&dname, parent.as_deref().or(rel_parent.as_deref()));
    // The evidence is the output directory: every file the run was read from.
    let mut rec = Record::new(name, family, abs(dir));
    rec.adapter = Adapter::HfTrainer;
    rec.source_hash = hash::files(dir, &hash::run_dir_files(dir));
    rec.config = (!config.is_empty()).then_some(Value::Object(config));
    rec.notes = (!notes.is_empty()).then(|| notes.join("; "));
    rec.metrics = ex.metrics;
    rec.note_dropped(&ex.dropped);
    d.claim(seen, project, dir, rec);
}
