//! Text rendering of answers for people at a terminal.
//!
//! The answer line first, then every list of rows in the detail as aligned columns of
//! their scalar fields (the main list first; each under its name when there are
//! several; rows with a verdict grouped worst first, contradicted at the top), then
//! each caveat on its own line. `--json` prints everything.

use std::io::Write;

use attest_core::Answer;
use serde_json::Value;

const MAX_COL: usize = 48;

/// Columns a person reads whole or opens: never clipped.
const WHOLE: &[&str] = &["message", "problem", "reason", "diagnostic", "source_path", "path", "file", "caveat", "url"];

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => attest_core::text::fmt_g(f),
            _ => n.to_string(),
        }),
        Value::String(s) => Some(attest_core::text::clip(s, MAX_COL)),
        _ => None,
    }
}

/// Lists that are an answer's substance, shown before any other list.
const MAIN_LISTS: &[&str] = &["rows", "arms", "runs", "items", "claims", "hits", "families", "projects", "references"];

/// Verdicts a person must see first, in that order; others follow.
const VERDICT_ORDER: &[&str] =
    &["contradicted", "malformed", "stale", "ambiguous", "unsupported", "uncited", "refuted", "unknown"];

/// Every non-empty array of objects in the detail, with its key, the main ones first.
fn tables(data: &Value) -> Vec<(&str, &Vec<Value>)> {
    let mut t: Vec<(&str, &Vec<Value>)> = data
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| match v {
            Value::Array(rows) if rows.first().is_some_and(Value::is_object) => Some((k.as_str(), rows)),
            _ => None,
        })
        .collect();
    t.sort_by_key(|(k, _)| MAIN_LISTS.iter().position(|m| m == k).unwrap_or(MAIN_LISTS.len()));
    t
}

/// Rows with a `verdict`, worst first (stable: the tool's order within a verdict).
fn by_verdict(rows: &[Value]) -> Vec<Value> {
    let rank = |r: &Value| {
        let v = r.get("verdict").and_then(Value::as_str).unwrap_or("");
        VERDICT_ORDER.iter().position(|x| *x == v).unwrap_or(VERDICT_ORDER.len())
    };
    let mut out = rows.to_vec();
    out.sort_by_key(rank);
    out
}

fn table(out: &mut impl Write, rows: &[Value]) -> std::io::Result<()> {
    let mut cols: Vec<String> = Vec::new();
    for r in rows {
        for (k, v) in r.as_object().into_iter().flatten() {
            if scalar(v).is_some() && !cols.contains(k) {
                cols.push(k.clone());
            }
        }
    }
    let cell = |r: &Value, c: &str| match &r[c] {
        Value::String(s) if WHOLE.contains(&c) => s.clone(),
        v => scalar(v).unwrap_or_default(),
    };
    // The long, whole columns go last, so the short ones stay aligned at the left.
    cols.sort_by_key(|c| WHOLE.contains(&c.as_str()));
    let cells: Vec<Vec<String>> = rows.iter().map(|r| cols.iter().map(|c| cell(r, c)).collect()).collect();
    let widths: Vec<usize> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| cells.iter().map(|r| r[i].chars().count()).chain([c.len()]).max().unwrap_or(0))
        .collect();
    let line = |vals: Vec<&str>| {
        vals.iter().zip(&widths).map(|(v, w)| format!("{v:<w$}")).collect::<Vec<_>>().join("  ").trim_end().to_string()
    };
    writeln!(out, "  {}", line(cols.iter().map(String::as_str).collect()))?;
    for r in &cells {
        writeln!(out, "  {}", line(r.iter().map(String::as_str).collect()))?;
    }
    Ok(())
}

/// Print an answer for a person.
pub fn answer(out: &mut impl Write, a: &Answer<Value>) -> std::io::Result<()> {
    writeln!(out, "{}", a.answer)?;
    let lists = a.data.as_ref().map(tables).unwrap_or_default();
    let several = lists.len() > 1;
    for (key, rows) in lists {
        if several {
            writeln!(out, "{}:", key.replace('_', " "))?;
        }
        table(out, &by_verdict(rows))?;
    }
    let listed = a.data.as_ref().and_then(|d| d.get("caveats")).and_then(Value::as_array).filter(|c| !c.is_empty());
    match (listed, &a.caveat) {
        (Some(list), _) => {
            for c in list.iter().filter_map(Value::as_str) {
                writeln!(out, "caveat: {c}")?;
            }
        }
        (None, Some(c)) => writeln!(out, "caveat: {c}")?,
        (None, None) => {}
    }
    if !a.options.is_empty() {
        writeln!(out, "options: {}", a.options.join(", "))?;
    }
    Ok(())
}
