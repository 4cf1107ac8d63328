//! The claim grammar: what the body of a claim says (`project/run key=value …`), the
//! same whatever the format it was written in. Pure: no file system.

use std::collections::BTreeMap;

use attest_core::text::clip;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tolerance of a claim that gives no `tol=`: effectively exact. The number written
/// must equal the number recorded; a draft that rounds says so with `tol=`.
pub const DEFAULT_TOL: f64 = 1e-9;

/// The keys a claim may carry.
pub const KEYS: &[&str] = &["metric", "value", "tol", "split", "step", "as_of", "cite"];

/// How a claim is written, for messages.
pub const EXAMPLE: &str = "<!-- claim: project/run metric=NAME value=NUMBER -->";

/// How a claim is written in LaTeX, for messages about LaTeX claims.
pub const LATEX_EXAMPLE: &str = "% claim: project/run metric=NAME value=NUMBER";

/// Where in a Jupyter notebook a claim is: the cell, counted from 1 over all cells (as
/// an editor's "cell 3 of 10"), and the line within that cell's source, from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    /// The cell, from 1, counting every cell (code, Markdown and raw).
    pub index: usize,
    /// The line within the cell's source, from 1.
    pub line: usize,
}

/// One well-formed claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Claim {
    /// The draft it is in, as shown (relative to the research root when inside it).
    pub file: String,
    /// The line of the source file its annotation opens on, from 1 (in a notebook: the
    /// line of the `.ipynb` file that holds that line of the cell).
    pub line: usize,
    /// In a notebook, the cell and the line within it; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
    /// The project part of `project/run`.
    pub project: String,
    /// The run part of `project/run`; a trailing `*` makes it a prefix.
    pub run: String,
    /// The metric name, lower-cased.
    pub metric: String,
    /// The number claimed.
    pub value: f64,
    /// The number exactly as written, e.g. `0.0690`.
    pub written: String,
    /// The absolute tolerance given with `tol=`, if any.
    pub tol: Option<f64>,
    /// The split given with `split=`, if any.
    pub split: Option<String>,
    /// The step given with `step=`, if any.
    pub step: Option<i64>,
    /// The date given with `as_of=` (`YYYY-MM-DD`), if any.
    pub as_of: Option<String>,
    /// The citation key given with `cite=`, if any.
    pub cite: Option<String>,
}

impl Claim {
    /// The tolerance the comparison uses: `tol=` or [`DEFAULT_TOL`].
    pub fn tolerance(&self) -> f64 {
        self.tol.unwrap_or(DEFAULT_TOL)
    }

    /// `project/run`, as written.
    pub fn selector(&self) -> String {
        format!("{}/{}", self.project, self.run)
    }

    /// Whether the run part ends in `*` and so selects by prefix.
    pub fn is_prefix(&self) -> bool {
        self.run.ends_with('*')
    }
}

/// A claim annotation that could not be read. Reported, never skipped; not counted as
/// a claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Malformed {
    /// The draft it is in.
    pub file: String,
    /// The line its annotation opens on.
    pub line: usize,
    /// In a notebook, the cell and the line within it; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
    /// What is wrong and how to fix it.
    pub problem: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: ", self.file, self.line)?;
        if let Some(c) = self.cell {
            write!(f, "(cell {}, line {}) ", c.index, c.line)?;
        }
        f.write_str(&self.problem)
    }
}

/// What a parse found in one text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The well-formed claims, in order.
    pub claims: Vec<Claim>,
    /// The claim annotations that could not be read, in order.
    pub malformed: Vec<Malformed>,
}

/// Parse a number as a claim writes it: plain decimal or exponent notation, a `-` or
/// U+2212 minus, finite. No thousands separators, no `nan` or `inf`.
pub fn parse_number(s: &str) -> Option<f64> {
    let s = s.replace('\u{2212}', "-");
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) {
        return None;
    }
    if !s.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The `cite=` value of a claim body, read leniently: quotes (`cite="smith 2020"`) are
/// removed, and the rest of the body need not be well-formed. `None` when the body
/// has no `cite=` field. This is what the citation lint reads, so a key is checked
/// even in a claim whose numbers are still being written.
pub fn cite_key(body: &str) -> Option<String> {
    let at = body.match_indices("cite=").find(|(i, _)| *i == 0 || body[..*i].ends_with(char::is_whitespace))?.0;
    let rest = &body[at + 5..];
    let key = match rest.chars().next() {
        Some(q @ ('"' | '\'')) => rest[1..].split(q).next().unwrap_or(""),
        _ => rest.split(char::is_whitespace).next().unwrap_or(""),
    };
    Some(key.trim().to_string())
}

/// Read the body of one claim (what follows `claim:`, without the closing `-->`).
/// `Err` holds every problem, joined by `; `.
pub fn claim_of(body: &str, file: &str, line: usize) -> Result<Claim, String> {
    let mut tokens = body.split_whitespace().peekable();
    let mut problems: Vec<String> = Vec::new();
    let mut project = String::new();
    let mut run = String::new();
    match tokens.peek() {
        None => return Err(format!("empty claim; write {EXAMPLE}")),
        Some(first) if !first.contains('=') => {
            let first = tokens.next().unwrap_or_default();
            match first.split_once('/') {
                Some((p, r)) if !p.is_empty() && !r.is_empty() => {
                    project = p.to_string();
                    run = r.to_string();
                }
                _ => problems.push(format!("expected project/run first, found '{}'; write {EXAMPLE}", clip(first, 60))),
            }
        }
        Some(_) => problems.push(format!("no project/run before the fields; write {EXAMPLE}")),
    }
    let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
    for tok in tokens {
        let Some((k, v)) = tok.split_once('=') else {
            problems.push(format!(
                "'{}' is not a key=value field (a claim holds only project/run and key=value fields)",
                clip(tok, 40)
            ));
            continue;
        };
        if !KEYS.contains(&k) {
            problems.push(format!("unknown key '{}' (the keys are {})", clip(k, 30), KEYS.join(", ")));
            continue;
        }
        if v.is_empty() {
            problems.push(format!("{k}= has no value"));
            continue;
        }
        if fields.insert(k, v).is_some() {
            problems.push(format!("{k}= is given more than once; keep one"));
        }
    }
    let metric = fields.get("metric").map(|m| m.to_lowercase());
    let value = fields.get("value");
    let mut missing = Vec::new();
    if metric.is_none() {
        missing.push("metric=NAME");
    }
    if value.is_none() {
        missing.push("value=NUMBER");
    }
    if !missing.is_empty() {
        problems.push(format!("missing {}", missing.join(" and ")));
    }
    let parsed_value = value.and_then(|v| {
        let p = parse_number(v);
        if p.is_none() {
            problems.push(format!(
                "value={} is not a number; write the number itself, e.g. value=0.0719 (no thousands separators or units)",
                clip(v, 30)
            ));
        }
        p
    });
    let tol = fields.get("tol").and_then(|t| {
        let p = parse_number(t).filter(|x| *x >= 0.0);
        if p.is_none() {
            problems.push(format!("tol={} is not a non-negative number, e.g. tol=0.0005", clip(t, 30)));
        }
        p
    });
    let step = fields.get("step").and_then(|s| {
        let p = s.parse::<i64>().ok();
        if p.is_none() {
            problems.push(format!("step={} is not a whole number, e.g. step=3000", clip(s, 30)));
        }
        p
    });
    let as_of = fields.get("as_of").and_then(|d| {
        let fmt = time::macros::format_description!("[year]-[month]-[day]");
        let ok = d.len() == 10 && time::Date::parse(d, &fmt).is_ok();
        if !ok {
            problems.push(format!("as_of={} is not a date; write it as YYYY-MM-DD", clip(d, 30)));
        }
        ok.then(|| d.to_string())
    });
    if !problems.is_empty() {
        return Err(problems.join("; "));
    }
    let (Some(metric), Some(value), Some(written)) = (metric, parsed_value, value) else {
        return Err(format!("write {EXAMPLE}"));
    };
    Ok(Claim {
        file: file.to_string(),
        line,
        cell: None,
        project,
        run,
        metric,
        value,
        written: written.to_string(),
        tol,
        split: fields.get("split").map(|s| s.to_string()),
        step,
        as_of,
        cite: fields.get("cite").map(|s| s.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain() {
        assert_eq!(parse_number("1e-3"), Some(0.001));
        assert_eq!(parse_number("+2"), Some(2.0));
        assert_eq!(parse_number("\u{2212}0.5"), Some(-0.5));
        for bad in ["", ".", "e", "1,000", "NaN", "infinity", "0x10", "5%", "1e999"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn cite_keys_are_read_leniently() {
        assert_eq!(cite_key(" p/r metric=m value=1 cite=doe2024 ").as_deref(), Some("doe2024"));
        assert_eq!(cite_key("p/r cite=\"smith 2020\" value=1").as_deref(), Some("smith 2020"));
        assert_eq!(cite_key("cite='a b'").as_deref(), Some("a b"));
        assert_eq!(cite_key("p/r precite=x"), None);
        assert_eq!(cite_key("p/r metric=m value=1"), None);
    }
}
