//! The claim grammar: what a `<!-- claim: ... -->` comment says, read from a text.
//! Pure: no file system, no database.

use std::collections::BTreeMap;
use std::ops::Range;

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

/// One well-formed claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Claim {
    /// The draft it is in, as shown (relative to the research root when inside it).
    pub file: String,
    /// The line its `<!--` is on, from 1.
    pub line: usize,
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

/// A claim comment that could not be read. Reported, never skipped; not counted as a
/// claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Malformed {
    /// The draft it is in.
    pub file: String,
    /// The line its `<!--` is on.
    pub line: usize,
    /// What is wrong and how to fix it.
    pub problem: String,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.problem)
    }
}

/// What [`parse`] found in one text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Parsed {
    /// The well-formed claims, in order.
    pub claims: Vec<Claim>,
    /// The claim comments that could not be read, in order.
    pub malformed: Vec<Malformed>,
}

// ---------------------------------------------------------------------------------------
// Code and comment spans, shared with coverage.

/// Byte ranges of fenced code blocks (``` or ~~~, to the closing fence or the end) and
/// single-line inline code spans. Claims and numbers inside them are examples, not
/// prose.
pub(crate) fn code_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize, usize)> = None; // (char, length, start byte)
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        let run_of = |c: u8| body.bytes().take_while(|&b| b == c).count();
        let marker = [b'`', b'~'].into_iter().map(|c| (c, run_of(c))).find(|&(_, n)| n >= 3 && indent <= 3);
        match (fence, marker) {
            (None, Some((c, n))) => {
                // A backtick fence's info string may not contain backticks.
                if c == b'`' && body[n..].contains('`') {
                    out.extend(inline_code(line, start));
                } else {
                    fence = Some((c, n, start));
                }
            }
            (Some((c, n, s)), Some((c2, n2))) if c == c2 && n2 >= n && body[n2..].trim().is_empty() => {
                out.push(s..pos);
                fence = None;
            }
            (Some(_), _) => {}
            (None, None) => out.extend(inline_code(line, start)),
        }
    }
    if let Some((_, _, s)) = fence {
        out.push(s..text.len());
    }
    out
}

/// Inline code spans of one line: a run of n backticks up to the next run of exactly n.
fn inline_code(line: &str, offset: usize) -> Vec<Range<usize>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let open = i;
        while i < b.len() && b[i] == b'`' {
            i += 1;
        }
        let n = i - open;
        let mut j = i;
        let mut closed = None;
        while j < b.len() {
            if b[j] == b'`' {
                let s = j;
                while j < b.len() && b[j] == b'`' {
                    j += 1;
                }
                if j - s == n {
                    closed = Some(j);
                    break;
                }
            } else {
                j += 1;
            }
        }
        if let Some(end) = closed {
            out.push(offset + open..offset + end);
            i = end;
        }
    }
    out
}

fn inside(ranges: &[Range<usize>], pos: usize) -> bool {
    // Ranges are sorted by start and do not overlap.
    let i = ranges.partition_point(|r| r.start <= pos);
    i > 0 && ranges[i - 1].contains(&pos)
}

/// Byte ranges of HTML comments outside code, each to its first `-->` (or to the end of
/// the text when it never closes, as a renderer would hide it).
pub(crate) fn comment_ranges(text: &str, code: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("<!--").map(|i| i + from) {
        if inside(code, at) {
            from = at + 4;
            continue;
        }
        let end = text[at + 4..].find("-->").map_or(text.len(), |i| at + 4 + i + 3);
        out.push(at..end);
        from = end;
    }
    out
}

/// Counts lines incrementally, for many ascending offsets into one text.
pub(crate) struct Lines<'t> {
    text: &'t str,
    at: usize,
    line: usize,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Lines { text, at: 0, line: 1 }
    }

    /// The 1-based line of `pos`; positions must not decrease between calls.
    pub(crate) fn of(&mut self, pos: usize) -> usize {
        if pos < self.at {
            self.at = 0;
            self.line = 1;
        }
        self.line += self.text.as_bytes()[self.at..pos].iter().filter(|&&b| b == b'\n').count();
        self.at = pos;
        self.line
    }
}

// ---------------------------------------------------------------------------------------
// Parsing.

/// Read every claim comment of a Markdown text. `file` is how the text is named in
/// claims and problems.
///
/// A claim comment is `<!--`, optional space, `claim:` (any case), the body, `-->`; it
/// may span lines. Comments inside fenced or inline code are examples and are not
/// read. A claim comment with no `-->` before the next `<!--` or the end of the text
/// is reported as malformed at the line it opens on.
pub fn parse(text: &str, file: &str) -> Parsed {
    let code = code_ranges(text);
    let mut lines = Lines::new(text);
    let mut out = Parsed::default();
    let mut from = 0;
    while let Some(at) = text[from..].find("<!--").map(|i| i + from) {
        let after = at + 4;
        if inside(&code, at) {
            from = after;
            continue;
        }
        let rest = &text[after..];
        let head = rest.trim_start();
        let is_claim = head.len() >= 6 && head.is_char_boundary(6) && head[..6].eq_ignore_ascii_case("claim:");
        let close = rest.find("-->");
        let next_open = rest.find("<!--");
        let line = lines.of(at);
        match close {
            Some(c) if next_open.is_none_or(|n| n > c) => {
                from = after + c + 3;
                if is_claim {
                    let body = head[6..].trim_start();
                    let body = &body[..body.len() - (rest.len() - c)];
                    match claim_of(body.trim(), file, line) {
                        Ok(claim) => out.claims.push(claim),
                        Err(problem) => out.malformed.push(Malformed { file: file.into(), line, problem }),
                    }
                }
            }
            _ => {
                from = after;
                if is_claim {
                    let problem = match next_open {
                        Some(n) => format!(
                            "this claim comment is never closed: the next comment opens at line {} before any `-->`; end the claim with `-->`",
                            line + rest[..n].matches('\n').count()
                        ),
                        None => {
                            "this claim comment is never closed: there is no `-->` after it; end the claim with `-->`"
                                .to_string()
                        }
                    };
                    out.malformed.push(Malformed { file: file.into(), line, problem });
                }
            }
        }
    }
    out
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

fn claim_of(body: &str, file: &str, line: usize) -> Result<Claim, String> {
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

    fn one(text: &str) -> Result<Claim, String> {
        let p = parse(text, "d.md");
        match (p.claims.as_slice(), p.malformed.as_slice()) {
            ([c], []) => Ok(c.clone()),
            ([], [m]) => Err(m.problem.clone()),
            _ => panic!("expected one claim or one problem, got {p:?}"),
        }
    }

    #[test]
    fn reads_every_field() {
        let c = one("x\n<!-- claim: p/r/b8 metric=WER value=0.0690 tol=0.001 split=test step=30 as_of=2026-01-31 cite=doe2024 -->")
            .unwrap();
        assert_eq!(c.line, 2);
        assert_eq!((c.project.as_str(), c.run.as_str(), c.metric.as_str()), ("p", "r/b8", "wer"));
        assert_eq!((c.value, c.written.as_str(), c.tol, c.step), (0.069, "0.0690", Some(0.001), Some(30)));
        assert_eq!(c.split.as_deref(), Some("test"));
        assert_eq!(c.as_of.as_deref(), Some("2026-01-31"));
        assert_eq!(c.cite.as_deref(), Some("doe2024"));
    }

    #[test]
    fn spans_lines_and_counts_the_opening_line() {
        let c = one("a\nb\n<!--\n  Claim:  p/r\n  metric=wer\n  value=−1.5e-3\n-->").unwrap();
        assert_eq!(c.line, 3);
        assert_eq!(c.value, -0.0015);
    }

    #[test]
    fn malformed_claims_say_what_is_wrong() {
        assert!(one("<!-- claim: metric=wer value=1 -->").unwrap_err().contains("no project/run"));
        assert!(one("<!-- claim: kdalpha metric=wer value=1 -->").unwrap_err().contains("expected project/run"));
        assert!(one("<!-- claim: p/r value=1 -->").unwrap_err().contains("missing metric=NAME"));
        assert!(one("<!-- claim: p/r -->").unwrap_err().contains("missing metric=NAME and value=NUMBER"));
        assert!(one("<!-- claim: p/r metric=m value=high -->").unwrap_err().contains("value=high is not a number"));
        assert!(one("<!-- claim: p/r metric=m value=2,400 -->").unwrap_err().contains("not a number"));
        assert!(one("<!-- claim: p/r metric=m value=nan -->").unwrap_err().contains("not a number"));
        assert!(one("<!-- claim: p/r metric=m value=inf -->").unwrap_err().contains("not a number"));
        assert!(one("<!-- claim: p/r metric=m value=1 tol=-1 -->").unwrap_err().contains("tol=-1"));
        assert!(one("<!-- claim: p/r metric=m value=1 step=3e3 -->").unwrap_err().contains("whole number"));
        assert!(one("<!-- claim: p/r metric=m value=1 as_of=2026-02-30 -->").unwrap_err().contains("YYYY-MM-DD"));
        assert!(
            one("<!-- claim: p/r metric=m value=1 tolerance=0.1 -->").unwrap_err().contains("unknown key 'tolerance'")
        );
        assert!(one("<!-- claim: p/r metric=m value=1 value=2 -->").unwrap_err().contains("more than once"));
        assert!(one("<!-- claim: p/r metric=m value=1 (rounded) -->").unwrap_err().contains("not a key=value"));
        assert!(one("<!-- claim: -->").unwrap_err().contains("empty claim"));
    }

    #[test]
    fn an_unclosed_claim_is_reported_and_does_not_swallow_the_next() {
        let p = parse("<!-- claim: p/a metric=m value=1\ntext\n<!-- claim: p/b metric=m value=2 -->\n", "d.md");
        assert_eq!(p.malformed.len(), 1, "{p:?}");
        assert_eq!(p.malformed[0].line, 1);
        assert!(p.malformed[0].problem.contains("line 3"), "{}", p.malformed[0].problem);
        assert_eq!(p.claims.len(), 1);
        assert_eq!((p.claims[0].run.as_str(), p.claims[0].value, p.claims[0].line), ("b", 2.0, 3));
        let q = parse("x\n\n<!-- claim: p/a metric=m value=1", "d.md");
        assert_eq!(q.malformed[0].line, 3);
        assert!(q.malformed[0].problem.contains("no `-->`"));
    }

    #[test]
    fn claims_in_code_are_examples() {
        let text = "Write `<!-- claim: p/r metric=m value=1 -->` next to it.\n```md\n<!-- claim: p/s metric=m value=1 -->\n```\n<!-- claim: p/t metric=m value=1 -->\n~~~\n<!-- claim: p/u metric=m value=1\n";
        let p = parse(text, "d.md");
        assert_eq!(p.claims.iter().map(|c| c.run.as_str()).collect::<Vec<_>>(), ["t"]);
        assert!(p.malformed.is_empty(), "{:?}", p.malformed);
    }

    #[test]
    fn ordinary_comments_are_ignored() {
        let p = parse("<!-- a note -->\n<!-- TODO: value=3 -->\n<!-- claimed: p/r metric=m value=1 -->", "d.md");
        assert_eq!(p, Parsed::default());
    }

    #[test]
    fn numbers_are_plain() {
        assert_eq!(parse_number("1e-3"), Some(0.001));
        assert_eq!(parse_number("+2"), Some(2.0));
        assert_eq!(parse_number("\u{2212}0.5"), Some(-0.5));
        for bad in ["", ".", "e", "1,000", "NaN", "infinity", "0x10", "5%", "1e999"] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }
}
