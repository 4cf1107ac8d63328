//! Text rendering of answers for people at a terminal.
//!
//! The answer line first, then the rows of the first list in the detail as aligned
//! columns of their scalar fields, then each caveat on its own line. Nothing is
//! summarised away: `--json` prints everything.

use std::io::Write;

use attest_core::Answer;
use serde_json::Value;

const MAX_COL: usize = 48;

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

/// The first non-empty array of objects in the detail, with its key.
fn first_table(data: &Value) -> Option<(&str, &Vec<Value>)> {
    data.as_object()?.iter().find_map(|(k, v)| match v {
        Value::Array(rows) if rows.first().is_some_and(Value::is_object) => Some((k.as_str(), rows)),
        _ => None,
    })
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
    let cells: Vec<Vec<String>> =
        rows.iter().map(|r| cols.iter().map(|c| scalar(&r[c.as_str()]).unwrap_or_default()).collect()).collect();
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
    if let Some((_, rows)) = a.data.as_ref().and_then(first_table) {
        table(out, rows)?;
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
