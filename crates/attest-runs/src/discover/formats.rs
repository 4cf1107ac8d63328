//! Reading result files: JSON (lenient about the bare `NaN`/`Infinity` tokens Python
//! writes), JSON Lines and labelled CSV tables, each under a size cap.

use std::path::Path;

use serde_json::{Map, Value};

/// Files larger than this are refused unread, so one huge dump cannot stall a scan.
pub const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

/// Columns that name a CSV row's arm, in order of preference.
pub const LABEL_COLUMNS: &[&str] = &["config_name", "config", "name", "run", "variant", "arm", "label", "id"];

/// Marker a non-finite JSON token is replaced with, so it can be reported as dropped
/// rather than silently vanishing.
pub(crate) const NON_FINITE: &str = "\u{0}attest:non-finite:";

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadError {
    /// Over [`MAX_FILE_BYTES`].
    TooLarge(u64),
    /// The operating system refused.
    Io(String),
    /// A symbolic link, which a scan does not follow.
    Link,
    /// Not parseable in its format.
    Malformed(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::TooLarge(n) => write!(
                f,
                "not read: {:.1} MB is over the {} MB limit for a result file; write a summary JSON of the final numbers next to it",
                *n as f64 / 1_048_576.0,
                MAX_FILE_BYTES / 1_048_576
            ),
            ReadError::Io(e) => write!(f, "cannot be read: {e}"),
            ReadError::Link => f.write_str(
                "not read: a symbolic link; a scan follows no links, so it never reads outside the research root (copy the file in instead)",
            ),
            ReadError::Malformed(e) => write!(f, "not parseable: {e}"),
        }
    }
}

/// Read a whole file, refusing it unread when it is over the cap or a symbolic link.
pub fn read_capped(path: &Path) -> Result<Vec<u8>, ReadError> {
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(ReadError::Link);
    }
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(e.to_string()))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(ReadError::TooLarge(meta.len()));
    }
    std::fs::read(path).map_err(|e| ReadError::Io(e.to_string()))
}

/// Rewrite the bare tokens `NaN`, `Infinity`, `-Infinity` outside strings into marker
/// strings. Returns `None` when there were none.
fn mark_non_finite(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 32);
    let mut in_str = false;
    let mut esc = false;
    let mut last = 0;
    let mut changed = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
            i += 1;
            continue;
        }
        // Bytes, not `&text[i..]`: `i` may fall inside a multi-byte character.
        let rest = &b[i..];
        let tok = ["-Infinity", "Infinity", "NaN"].into_iter().find(|t| rest.starts_with(t.as_bytes()));
        if let Some(t) = tok {
            out.push_str(&text[last..i]);
            out.push('"');
            out.push_str("\\u0000attest:non-finite:");
            out.push_str(t);
            out.push('"');
            i += t.len();
            last = i;
            changed = true;
            continue;
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// Parse JSON text, accepting the non-finite tokens Python's `json` writes (they become
/// marker strings that the metric reader reports as dropped).
pub fn parse_json(text: &str) -> Result<Value, String> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => match mark_non_finite(text) {
            Some(marked) => serde_json::from_str(&marked).map_err(|_| first.to_string()),
            None => Err(first.to_string()),
        },
    }
}

/// If `v` is a marker for a non-finite number, the token it replaced.
pub fn non_finite_token(v: &Value) -> Option<&str> {
    v.as_str().and_then(|s| s.strip_prefix(NON_FINITE))
}

/// A JSON Lines file: the parsed objects and how many non-blank lines were unusable.
pub fn parse_jsonl(text: &str) -> (Vec<Value>, usize, usize) {
    let mut rows = Vec::new();
    let mut bad = 0;
    let mut total = 0;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        total += 1;
        match parse_json(line) {
            Ok(v) => rows.push(v),
            Err(_) => bad += 1,
        }
    }
    (rows, bad, total)
}

/// A CSV table read as header names and string rows.
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Trimmed header names.
    pub headers: Vec<String>,
    /// Rows, each as long as it was written.
    pub rows: Vec<Vec<String>>,
}

/// Parse CSV bytes (header row first; ragged rows allowed).
pub fn parse_csv(bytes: &[u8]) -> Result<Table, String> {
    let mut rdr = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(bytes);
    let headers = rdr.headers().map_err(|e| e.to_string())?.iter().map(|h| h.trim().to_string()).collect();
    let mut rows = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| e.to_string())?;
        if rec.iter().all(|f| f.trim().is_empty()) {
            continue;
        }
        rows.push(rec.iter().map(str::to_string).collect());
    }
    Ok(Table { headers, rows })
}

/// The index of the column naming each row's arm, if the table has one.
pub fn label_column(headers: &[String]) -> Option<usize> {
    LABEL_COLUMNS.iter().find_map(|want| headers.iter().position(|h| h.trim().eq_ignore_ascii_case(want)))
}

/// A CSV row as a JSON object: numbers where a cell parses as one, strings otherwise,
/// empty cells dropped. Non-finite numbers become markers.
pub fn row_object(headers: &[String], row: &[String]) -> Map<String, Value> {
    let mut obj = Map::new();
    for (h, cell) in headers.iter().zip(row) {
        let cell = cell.trim();
        if h.is_empty() || cell.is_empty() {
            continue;
        }
        let v = match cell.parse::<f64>() {
            Ok(f) if f.is_finite() => serde_json::Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null),
            Ok(_) => Value::String(format!("{NON_FINITE}{cell}")),
            Err(_) => Value::String(cell.to_string()),
        };
        obj.insert(h.clone(), v);
    }
    obj
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenient_json() {
        let v = parse_json(r#"{"a": NaN, "b": -Infinity, "c": "NaN inside", "d": 1}"#).unwrap();
        assert_eq!(non_finite_token(&v["a"]), Some("NaN"));
        assert_eq!(non_finite_token(&v["b"]), Some("-Infinity"));
        assert_eq!(v["c"], "NaN inside");
        assert_eq!(v["d"], 1);
        assert!(parse_json("{\"a\": 1").is_err());
        assert!(parse_json("{\"a\": Nope}").is_err());
    }

    #[test]
    fn jsonl_counts_bad_lines() {
        let (rows, bad, total) = parse_jsonl("{\"a\":1}\n\n{\"a\":2}\n{\"a\": 3");
        assert_eq!((rows.len(), bad, total), (2, 1, 3));
    }

    #[test]
    fn csv_rows() {
        let t = parse_csv(b"arm, wer ,note\nb1,0.1,x\n,,\nb2,nan,\n").unwrap();
        assert_eq!(t.headers, ["arm", "wer", "note"]);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(label_column(&t.headers), Some(0));
        let o = row_object(&t.headers, &t.rows[1]);
        assert_eq!(non_finite_token(&o["wer"]), Some("nan"));
        assert!(!o.contains_key("note"));
        assert_eq!(label_column(&["x".into(), "ID".into()]), Some(1));
        assert_eq!(label_column(&["x".into()]), None);
    }
}
