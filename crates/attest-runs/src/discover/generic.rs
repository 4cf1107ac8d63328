//! The generic reader: result files under the results-directory conventions.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::formats::{self, ReadError};
use super::payload::metrics_from_payload;
use super::{Discovery, RESULT_DIRS, Record, abs, sorted_entries, stem, suffix};
use crate::corpus;
use crate::family::{family_of, step_from, variant_config};
use crate::hash;

/// Files with one of `suffixes` directly in `dir` and one level down, sorted by path.
fn files_in(dir: &Path, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in sorted_entries(dir) {
        if e.is_dir() {
            out.extend(
                sorted_entries(&e).into_iter().filter(|f| f.is_file() && suffixes.contains(&suffix(f).as_str())),
            );
        } else if e.is_file() && suffixes.contains(&suffix(&e).as_str()) {
            out.push(e);
        }
    }
    out.sort();
    out
}

/// Read every result directory of a project, leaving alone the files of directories a
/// framework reader owns (`claimed`: Trainer output directories, Lightning versions…).
pub fn results(project: &Path, claimed: &[&PathBuf], d: &mut Discovery, seen: &mut HashSet<String>) {
    let free = |f: &PathBuf| !claimed.iter().any(|c| f.starts_with(c));
    for rd in RESULT_DIRS {
        let dir = project.join(rd);
        if !dir.is_dir() {
            continue;
        }
        for f in files_in(&dir, &["csv"]).into_iter().filter(free) {
            csv_table(project, &dir, &f, d, seen);
        }
        // Keras's CSVLogger is often given a `.log` name (`training.log`): read one
        // when its first line is a CSV header starting with `epoch`.
        for f in files_in(&dir, &["log"]).into_iter().filter(free).filter(|f| keras_log_header(f)) {
            csv_table(project, &dir, &f, d, seen);
        }
        for f in files_in(&dir, &["json", "jsonl"]).into_iter().filter(free) {
            json_file(project, rd, &dir, &f, d, seen);
        }
    }
}

fn keras_log_header(f: &Path) -> bool {
    use std::io::{BufRead, Read};
    let Ok(file) = std::fs::File::open(f) else { return false };
    let mut first = String::new();
    std::io::BufReader::new(file).take(4096).read_line(&mut first).is_ok()
        && first.trim_start().to_ascii_lowercase().starts_with("epoch,")
}

fn read_or_note(project: &Path, f: &Path, d: &mut Discovery) -> Option<Vec<u8>> {
    match formats::read_capped(f) {
        Ok(b) => Some(b),
        Err(e @ (ReadError::TooLarge(_) | ReadError::Io(_) | ReadError::Malformed(_) | ReadError::Link)) => {
            d.note(project, f, e.to_string());
            None
        }
    }
}

fn csv_table(project: &Path, dir: &Path, f: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    let Some(bytes) = read_or_note(project, f, d) else { return };
    let table = match formats::parse_csv(&bytes) {
        Ok(t) => t,
        Err(e) => {
            d.note(project, f, format!("not parseable as CSV: {e}"));
            return;
        }
    };
    if super::csvlog::is_training_log(&table) {
        let s = stem(f);
        let parent = f.parent().unwrap_or(dir);
        let named = if parent != dir {
            let sub = parent.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            (format!("{sub}/{s}"), Some(sub))
        } else {
            (s.clone(), family_of(&s))
        };
        super::csvlog::keras_log(project, f, &bytes, &table, named, d, seen);
        return;
    }
    let Some(col) = formats::label_column(&table.headers) else {
        let numeric = table.rows.iter().any(|r| r.iter().any(|c| c.trim().parse::<f64>().is_ok()));
        if numeric {
            d.note(
                project,
                f,
                format!(
                    "not recorded: {} with numbers but no column naming each row's arm, so its runs cannot be named; add a column called one of {} (or, for a training log, a step or epoch column)",
                    attest_core::text::plural(table.rows.len(), "row", "rows"),
                    formats::LABEL_COLUMNS.join(", ")
                ),
            );
        }
        return;
    };
    let table_stem = stem(f);
    let source = abs(f);
    let mut labelled = 0;
    for row in &table.rows {
        let Some(label) = row.get(col).map(|c| c.trim()).filter(|c| !c.is_empty()) else { continue };
        labelled += 1;
        let obj = formats::row_object(&table.headers, row);
        let mut metric_obj = obj.clone();
        metric_obj.retain(|k, _| k != &table.headers[col]);
        let ex = metrics_from_payload(&Value::Object(metric_obj.clone()), None, None);
        let name = format!("{table_stem}/{label}");
        if ex.metrics.is_empty() {
            seen.insert(name);
            continue;
        }
        let config: Map<String, Value> = obj
            .iter()
            .filter(|(k, v)| {
                *k != &table.headers[col]
                    && (v.is_string() || ex.metrics.iter().all(|m| m.metric != k.to_ascii_lowercase()))
            })
            .filter(|(_, v)| formats::non_finite_token(v).is_none())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut rec = Record::new(name, Some(table_stem.clone()), format!("{source}{}{label}", hash::ROW_FRAGMENT));
        rec.source_hash = Some(hash::csv_row(&table.headers, row));
        rec.config = (!config.is_empty()).then_some(Value::Object(config));
        rec.corpus = corpus::from_payload(&obj);
        rec.metrics = ex.metrics;
        rec.note_dropped(&ex.dropped);
        d.claim(seen, project, f, rec);
    }
    if labelled == 0 && !table.rows.is_empty() {
        d.note(project, f, format!("not recorded: the label column '{}' is empty in every row", table.headers[col]));
    }
}

fn json_file(project: &Path, result_dir: &str, dir: &Path, f: &Path, d: &mut Discovery, seen: &mut HashSet<String>) {
    let Some(bytes) = read_or_note(project, f, d) else { return };
    let text = String::from_utf8_lossy(&bytes);
    let s = stem(f);
    let jsonl = suffix(f) == "jsonl";
    let (payload, bad_lines) = if jsonl {
        let (rows, bad, total) = formats::parse_jsonl(&text);
        if rows.is_empty() {
            d.note(project, f, format!("not recorded: none of its {total} lines is valid JSON"));
            return;
        }
        if bad > 0 {
            d.note(
                project,
                f,
                format!(
                    "{} of {total} skipped as malformed JSON (a truncated last line is usual when a job was killed)",
                    attest_core::text::plural(bad, "line", "lines")
                ),
            );
        }
        (Value::Array(rows), bad)
    } else {
        match formats::parse_json(&text) {
            Ok(v) => (v, 0),
            Err(e) => {
                d.note(project, f, format!("not recorded: not valid JSON ({e})"));
                return;
            }
        }
    };
    let ex = metrics_from_payload(&payload, step_from(&s), None);
    if let Some(why) = &ex.refused {
        d.note(project, f, format!("not recorded: {why}"));
        return;
    }
    if ex.metrics.is_empty() {
        let why = if ex.dropped.is_empty() {
            "not recorded: it holds no numeric result (expected numbers like {\"wer\": 0.05}; strings, booleans and keys such as seed, step or corpus are not metrics)".to_string()
        } else {
            format!("not recorded: every numeric value was non-finite ({})", ex.dropped.join(", "))
        };
        d.note(project, f, why);
        return;
    }
    let parent = f.parent().unwrap_or(dir);
    let nested = parent != dir;
    let sub = parent.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = if nested {
        format!("{sub}/{s}")
    } else if seen.contains(&s) {
        format!("{result_dir}/{s}")
    } else {
        s.clone()
    };
    let family = if nested { Some(sub) } else { family_of(&s) };
    let first = match &payload {
        Value::Array(items) => items.iter().find_map(Value::as_object),
        Value::Object(o) => Some(o),
        _ => None,
    };
    let mut rec = Record::new(name, family, abs(f));
    rec.source_hash = Some(hash::of_bytes(&bytes));
    // The file name's variant tokens (`lr1e-4`, `seed3`) are the run's config: they
    // name what was swept, and comparisons label arms by them.
    let mut config = variant_config(&s);
    if let Some(Value::Object(o)) = Some(&payload)
        && let Some(seed) = o.get("seed").filter(|v| v.is_number() || v.is_string())
    {
        let seed = seed.as_str().map(str::to_string).unwrap_or_else(|| seed.to_string());
        config.insert("seed".into(), Value::String(seed));
    }
    rec.config = (!config.is_empty()).then_some(Value::Object(config));
    rec.corpus = first.and_then(corpus::from_payload);
    rec.metrics = ex.metrics;
    rec.note_dropped(&ex.dropped);
    if bad_lines > 0 {
        rec.caveats.push(super::RunCaveat {
            metric: None,
            text: format!(
                "{}: {} of its log could not be parsed and {} skipped, so the log may end early",
                rec.name,
                attest_core::text::plural(bad_lines, "line", "lines"),
                if bad_lines == 1 { "was" } else { "were" }
            ),
        });
    }
    d.claim(seen, project, f, rec);
}
