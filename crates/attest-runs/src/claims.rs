//! The claim checker: numbers in a Markdown draft, tied to the ledger by an HTML comment.
//!
//! A claim is written next to the number it backs:
//!
//! ```text
//! <!-- claim: asr-distill/kdalpha_50 metric=wer value=0.0719 -->
//! ```
//!
//! [`parse`] reads every claim comment of a text (skipping fenced and inline code),
//! reporting the ones it cannot read as [`Malformed`] instead of dropping them.
//! [`check`] finds the drafts under a path inside the research root, looks each claim
//! up in the ledger with a handful of queries, and gives it one [`Verdict`]; a claim
//! whose `cite=` key no citation source knows gets an extra `uncited` row when a
//! [`CiteResolver`] is given. Nothing here edits a document.
//!
//! The verdict rules, the syntax and where this differs from the original tool are in
//! `specs/claims.md`.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use attest_core::text::{clip, fmt_g};
use attest_store::{Db, DbPool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::LedgerError;

/// The tolerance of a claim that gives no `tol=`: effectively exact. The number written
/// must equal the number recorded; a draft that rounds says so with `tol=`.
pub const DEFAULT_TOL: f64 = 1e-9;

/// Drafts larger than this are skipped (and listed as skipped), not read.
pub const MAX_DRAFT_BYTES: u64 = 16 * 1024 * 1024;

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

/// A file that was found but not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Skipped {
    /// The file.
    pub file: String,
    /// Why it was not read.
    pub reason: String,
}

/// The claims of every draft under a path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// Well-formed claims, by file then line.
    pub claims: Vec<Claim>,
    /// Unreadable claim comments, by file then line.
    pub malformed: Vec<Malformed>,
    /// How many drafts were read.
    pub files: usize,
    /// Drafts found but not read (too large, not UTF-8).
    pub skipped: Vec<Skipped>,
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

// ---------------------------------------------------------------------------------------
// Finding drafts.

/// Canonicalize the research root and a path (relative paths are read from the root;
/// none means the root itself), refusing a path that does not exist or lies outside
/// the root. Returns `(root, target)`, both canonical.
pub fn resolve_target(root: &Path, path: Option<&Path>) -> Result<(PathBuf, PathBuf), LedgerError> {
    let root_c = root.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "the research root {} does not exist; set RESEARCH_ROOT (or pass --root) to the directory that holds your projects and drafts",
            root.display()
        ))
    })?;
    let wanted = match path {
        None => root_c.clone(),
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => root_c.join(p),
    };
    let target = wanted.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "no such file or directory: {} (a relative path is read from the research root {})",
            wanted.display(),
            root_c.display()
        ))
    })?;
    if !target.starts_with(&root_c) {
        return Err(LedgerError::refused(format!(
            "{} is outside the research root {}; attest reads drafts only inside the root. Move the draft under it, or set RESEARCH_ROOT (or --root) to a directory that contains it",
            target.display(),
            root_c.display()
        )));
    }
    Ok((root_c, target))
}

/// How a file is named in claims and reports: relative to `base` when inside it.
pub fn label(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => path.display().to_string(),
    }
}

fn is_draft(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

/// The drafts at `target`: the file itself, or every `*.md` / `*.markdown` file under
/// the directory, sorted, skipping hidden files and directories and `node_modules`
/// below it (the target itself may sit under a hidden directory). Symlinked
/// directories are not followed.
pub fn drafts(target: &Path) -> Vec<PathBuf> {
    if !target.is_dir() {
        return vec![target.to_path_buf()];
    }
    let walk = walkdir::WalkDir::new(target).sort_by_file_name().into_iter().filter_entry(|e| {
        e.depth() == 0 || {
            let name = e.file_name().to_string_lossy();
            !name.starts_with('.') && name != "node_modules"
        }
    });
    walk.filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && is_draft(e.path()))
        .map(|e| e.into_path())
        .collect()
}

/// Read a draft, or say why it was skipped.
pub(crate) fn read_draft(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read it: {e}"))?;
    if meta.len() > MAX_DRAFT_BYTES {
        return Err(format!(
            "it is {} MB, over the {} MB limit for a draft; check a smaller file",
            meta.len() / (1024 * 1024),
            MAX_DRAFT_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// Parse the claims of every draft at `target` (see [`drafts`]), naming files relative
/// to `base`.
pub fn read_claims(target: &Path, base: &Path) -> Found {
    let mut found = Found::default();
    for path in drafts(target) {
        let name = label(&path, base);
        match read_draft(&path) {
            Ok(text) => {
                let p = parse(&text, &name);
                found.files += 1;
                found.claims.extend(p.claims);
                found.malformed.extend(p.malformed);
            }
            Err(reason) => found.skipped.push(Skipped { file: name, reason }),
        }
    }
    found
}

// ---------------------------------------------------------------------------------------
// Verdicts.

/// What the ledger says about a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// One run, one metric row, and the number agrees within the tolerance; the
    /// evidence is unchanged since the scan.
    Supported,
    /// One run, one metric row, and the number disagrees beyond the tolerance.
    Contradicted,
    /// No run matches, or the run records no such metric (with that split/step).
    Unsupported,
    /// Several runs match the selector, or several rows match the metric: the claim
    /// must say which (a claim never picks its own evidence).
    Ambiguous,
    /// The number agrees, but the evidence file is gone or its content changed since
    /// the scan.
    Stale,
    /// The claim's `cite=` key is known to no citation source. A lint, reported
    /// alongside the numeric verdict.
    Uncited,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 6] = [
        Verdict::Supported,
        Verdict::Contradicted,
        Verdict::Unsupported,
        Verdict::Ambiguous,
        Verdict::Stale,
        Verdict::Uncited,
    ];

    /// Its lower-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Contradicted => "contradicted",
            Verdict::Unsupported => "unsupported",
            Verdict::Ambiguous => "ambiguous",
            Verdict::Stale => "stale",
            Verdict::Uncited => "uncited",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Verdict {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Verdict::ALL.into_iter().find(|v| v.as_str().eq_ignore_ascii_case(s.trim())).ok_or_else(|| {
            format!(
                "unknown verdict '{s}'; use one of {}",
                Verdict::ALL.iter().map(|v| v.as_str()).collect::<Vec<_>>().join(", ")
            )
        })
    }
}

/// One verdict on one claim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Row {
    /// The verdict.
    pub verdict: Verdict,
    /// The draft.
    pub file: String,
    /// The line of the claim comment.
    pub line: usize,
    /// `project/run` as written in the claim.
    pub run: String,
    /// The metric claimed.
    pub metric: String,
    /// The number claimed.
    pub claimed: f64,
    /// The number the ledger records, when exactly one row was found.
    pub actual: Option<f64>,
    /// The claim's `cite=` key, if any.
    pub cite: Option<String>,
    /// Why, in one line, with what to do when it is not `supported`.
    pub message: String,
    /// The evidence file (or directory) of the run, when exactly one run matched.
    pub source_path: Option<String>,
}

/// The result of checking the claims under a path.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Report {
    /// How many well-formed claims were checked (malformed ones are not claims).
    pub claims: usize,
    /// Rows per verdict, by verdict name. With a citation resolver a claim can have
    /// two rows (a numeric verdict and `uncited`), so these may sum to more than
    /// `claims`.
    pub counts: BTreeMap<String, usize>,
    /// One row per verdict, by file and line.
    pub rows: Vec<Row>,
    /// Claim comments that could not be read.
    pub malformed: Vec<Malformed>,
    /// How many drafts were read.
    pub files: usize,
    /// Drafts found but not read, and why.
    pub skipped: Vec<Skipped>,
}

impl Report {
    /// `12 claims in 1 file: 2 ambiguous, 1 contradicted, 7 supported; 2 malformed`,
    /// or a line saying nothing was found.
    pub fn summary(&self) -> String {
        let files = attest_core::text::plural(self.files, "file", "files");
        let mut s = if self.claims == 0 {
            format!("no claims found in {files}")
        } else {
            let parts: Vec<String> = self.counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
            format!("{} in {files}: {}", attest_core::text::plural(self.claims, "claim", "claims"), parts.join(", "))
        };
        if !self.malformed.is_empty() {
            s.push_str(&format!("; {} malformed", self.malformed.len()));
        }
        s
    }

    /// Whether anything should fail a commit gate: a contradicted claim or a
    /// malformed annotation.
    pub fn failed(&self) -> bool {
        !self.malformed.is_empty() || self.rows.iter().any(|r| r.verdict == Verdict::Contradicted)
    }

    /// Keep only the rows of one verdict (counts and malformed stay whole).
    pub fn only(mut self, verdict: Verdict) -> Self {
        self.rows.retain(|r| r.verdict == verdict);
        self
    }
}

/// Whether a citation key resolves in some configured source (a BibTeX file, a Zotero
/// library, …). Any `Fn(&str) -> bool + Sync` is one.
pub trait CiteResolver: Sync {
    /// Whether some source knows `key`.
    fn resolves(&self, key: &str) -> bool;
    /// The sources consulted, for the `uncited` message.
    fn sources(&self) -> String {
        "the configured citation sources".to_string()
    }
}

impl<F: Fn(&str) -> bool + Sync> CiteResolver for F {
    fn resolves(&self, key: &str) -> bool {
        self(key)
    }
}

/// Check every claim in the drafts at `path` (relative to the research root; `None`
/// for the whole root) against the ledger.
///
/// A path that does not exist or lies outside the root is refused. With a `resolver`,
/// claims carrying `cite=` are also linted for an unknown key; without one that lint
/// is skipped.
pub async fn check(
    pool: &DbPool,
    root: &Path,
    path: Option<&Path>,
    resolver: Option<&dyn CiteResolver>,
) -> Result<Report, LedgerError> {
    let (root, target) = resolve_target(root, path)?;
    let found = read_claims(&target, &root);
    let rows = verdicts(pool, &found.claims, resolver).await?;
    let mut counts = BTreeMap::new();
    for r in &rows {
        *counts.entry(r.verdict.as_str().to_string()).or_insert(0) += 1;
    }
    Ok(Report {
        claims: found.claims.len(),
        counts,
        rows,
        malformed: found.malformed,
        files: found.files,
        skipped: found.skipped,
    })
}

type RunRow = (i64, String, String, String, Option<String>);
type MetricRow = (i64, String, f64, Option<i64>, String);

/// How many values one `IN (...)` list binds at most.
const CHUNK: usize = 400;

fn placeholders(from: usize, n: usize) -> String {
    (from..from + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ")
}

/// Give every claim its verdict (and an `uncited` row when a resolver is given and
/// does not know its `cite=` key). Rows come back in claim order.
///
/// The ledger is read in a few batched queries (the runs of the projects named, then
/// the rows of the metrics named for the runs that matched), not one per claim.
pub async fn verdicts(
    pool: &DbPool,
    claims: &[Claim],
    resolver: Option<&dyn CiteResolver>,
) -> Result<Vec<Row>, LedgerError> {
    // 1. Runs of every project named, sorted by name.
    let projects: Vec<&str> = claims.iter().map(|c| c.project.as_str()).collect::<HashSet<_>>().into_iter().collect();
    let mut runs: HashMap<String, Vec<RunRow>> = HashMap::new();
    for chunk in projects.chunks(CHUNK) {
        let sql = format!(
            "SELECT id, project, name, source_path, source_hash FROM runs WHERE project IN ({}) ORDER BY project, name",
            placeholders(1, chunk.len())
        );
        let mut q = sqlx::query_as::<Db, RunRow>(&sql);
        for p in chunk {
            q = q.bind(*p);
        }
        for row in q.fetch_all(pool).await? {
            runs.entry(row.1.clone()).or_default().push(row);
        }
    }

    // 2. Which runs each claim selects.
    let selected: Vec<Vec<&RunRow>> = claims
        .iter()
        .map(|c| {
            let all = runs.get(&c.project).map(Vec::as_slice).unwrap_or_default();
            match c.run.strip_suffix('*') {
                Some(prefix) => all.iter().filter(|r| r.2.starts_with(prefix)).collect(),
                None => all.iter().filter(|r| r.2 == c.run).collect(),
            }
        })
        .collect();

    // 3. Rows of the claimed metrics, for the runs selected alone.
    let ids: Vec<i64> =
        selected.iter().filter(|s| s.len() == 1).map(|s| s[0].0).collect::<HashSet<_>>().into_iter().collect();
    let metrics: Vec<&str> = claims.iter().map(|c| c.metric.as_str()).collect::<HashSet<_>>().into_iter().collect();
    let mut rows_of: HashMap<(i64, String), Vec<MetricRow>> = HashMap::new();
    let filter_metrics = metrics.len() <= CHUNK;
    for chunk in ids.chunks(CHUNK) {
        let mut sql = format!(
            "SELECT run_id, metric, value, step, split FROM run_metrics WHERE run_id IN ({})",
            placeholders(1, chunk.len())
        );
        if filter_metrics {
            sql.push_str(&format!(" AND lower(metric) IN ({})", placeholders(chunk.len() + 1, metrics.len())));
        }
        let mut q = sqlx::query_as::<Db, MetricRow>(&sql);
        for id in chunk {
            q = q.bind(*id);
        }
        if filter_metrics {
            for m in &metrics {
                q = q.bind(*m);
            }
        }
        for row in q.fetch_all(pool).await? {
            rows_of.entry((row.0, row.1.to_lowercase())).or_default().push(row);
        }
    }

    // 4. For runs that turn out to lack the metric, what they do record (one query).
    let lacking: Vec<i64> = claims
        .iter()
        .zip(&selected)
        .filter(|(c, s)| s.len() == 1 && !rows_of.contains_key(&(s[0].0, c.metric.clone())))
        .map(|(_, s)| s[0].0)
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut recorded: HashMap<i64, Vec<String>> = HashMap::new();
    for chunk in lacking.chunks(CHUNK) {
        let sql = format!(
            "SELECT DISTINCT run_id, metric FROM run_metrics WHERE run_id IN ({}) ORDER BY run_id, metric",
            placeholders(1, chunk.len())
        );
        let mut q = sqlx::query_as::<Db, (i64, String)>(&sql);
        for id in chunk {
            q = q.bind(*id);
        }
        for (id, m) in q.fetch_all(pool).await? {
            recorded.entry(id).or_default().push(m);
        }
    }

    // 5. Verdicts, hashing each evidence file at most once.
    let mut evidence: HashMap<String, Evidence> = HashMap::new();
    let mut out = Vec::with_capacity(claims.len());
    for (claim, sel) in claims.iter().zip(&selected) {
        let mut row = Row {
            verdict: Verdict::Unsupported,
            file: claim.file.clone(),
            line: claim.line,
            run: claim.selector(),
            metric: claim.metric.clone(),
            claimed: claim.value,
            actual: None,
            cite: claim.cite.clone(),
            message: String::new(),
            source_path: None,
        };
        judge(claim, sel, &runs, &rows_of, &recorded, &mut evidence, &mut row).await;
        out.push(row);
        if let (Some(res), Some(key)) = (resolver, claim.cite.as_deref())
            && !res.resolves(key)
        {
            let mut lint = out.last().cloned().expect("just pushed");
            lint.verdict = Verdict::Uncited;
            lint.message = format!(
                "cite={key} is known to none of {}; add the reference to a citation source or correct the key (this checks the key only, not what the work says)",
                res.sources()
            );
            out.push(lint);
        }
    }
    Ok(out)
}

/// What became of a run's evidence since the scan.
#[derive(Debug, Clone, PartialEq)]
enum Evidence {
    Same,
    Changed,
    Gone,
    /// No hash was recorded at scan time; only existence can be told.
    Unhashed,
}

async fn evidence_of(source_path: &str, stored: Option<&str>, cache: &mut HashMap<String, Evidence>) -> Evidence {
    if let Some(e) = cache.get(source_path) {
        return e.clone();
    }
    let e = match stored {
        Some(h) => match crate::hash::evidence(source_path).await {
            None => Evidence::Gone,
            Some(now) if now == h => Evidence::Same,
            Some(_) => Evidence::Changed,
        },
        None => {
            // `path#key=value` names one record inside a file; only the file can exist.
            let file = match source_path.rsplit_once('#') {
                Some((f, frag)) if frag.contains('=') => f,
                _ => source_path,
            };
            if Path::new(file).exists() { Evidence::Unhashed } else { Evidence::Gone }
        }
    };
    cache.insert(source_path.to_string(), e.clone());
    e
}

fn list_some(items: &[String], max: usize) -> String {
    if items.len() <= max {
        items.join(", ")
    } else {
        format!("{}, and {} more", items[..max].join(", "), items.len() - max)
    }
}

fn where_of(split: &str, step: Option<i64>) -> String {
    let mut w = String::new();
    if !split.is_empty() {
        w.push_str(&format!(" [split={split}]"));
    }
    if let Some(s) = step {
        w.push_str(&format!(" [step={s}]"));
    }
    w
}

/// Half a unit in the last decimal written (`0.0642` → `0.00005`), for numbers written
/// with a decimal point and no exponent.
fn rounding_of(written: &str) -> Option<(usize, f64)> {
    let w = written.replace('\u{2212}', "-");
    if w.contains(['e', 'E']) {
        return None;
    }
    let decimals = w.split_once('.')?.1.len();
    (decimals > 0).then(|| (decimals, 0.5 * 10f64.powi(-(decimals as i32))))
}

async fn judge(
    claim: &Claim,
    sel: &[&RunRow],
    runs: &HashMap<String, Vec<RunRow>>,
    rows_of: &HashMap<(i64, String), Vec<MetricRow>>,
    recorded: &HashMap<i64, Vec<String>>,
    evidence: &mut HashMap<String, Evidence>,
    row: &mut Row,
) {
    let sel_text = claim.selector();
    // No run.
    if sel.is_empty() {
        row.verdict = Verdict::Unsupported;
        row.message = match (runs.get(&claim.project), claim.run.strip_suffix('*')) {
            (None, _) => format!(
                "no project '{}' in the ledger, so nothing backs this number; check the project name, or scan the directory that holds its results",
                claim.project
            ),
            (Some(_), Some(prefix)) => format!(
                "no run in {} has a name starting with '{prefix}'; nothing in the ledger backs this number",
                claim.project
            ),
            (Some(_), None) => format!(
                "no run {sel_text} in the ledger; the number may be true, but nothing recorded backs it. Check the run name, or scan the results that hold it"
            ),
        };
        return;
    }
    // Several runs.
    if sel.len() > 1 {
        let names: Vec<String> = sel.iter().map(|r| r.2.clone()).collect();
        row.verdict = Verdict::Ambiguous;
        row.message = format!(
            "'{}' matches {} runs in {} ({}); name the one run the number comes from",
            claim.run,
            sel.len(),
            claim.project,
            list_some(&names, 8)
        );
        return;
    }
    let run = sel[0];
    let (id, _, name, source_path, stored_hash) = run;
    row.source_path = Some(source_path.clone());
    let all = rows_of.get(&(*id, claim.metric.clone())).map(Vec::as_slice).unwrap_or_default();
    let matching: Vec<&MetricRow> = all
        .iter()
        .filter(|r| claim.split.as_ref().is_none_or(|s| *s == r.4) && claim.step.is_none_or(|s| r.3 == Some(s)))
        .collect();
    let labels = |rows: &[&MetricRow]| -> Vec<String> {
        let mut sorted: Vec<&&MetricRow> = rows.iter().collect();
        sorted.sort_by(|a, b| (&a.4, a.3).cmp(&(&b.4, b.3)));
        let splits_differ = sorted.iter().any(|r| r.4 != sorted[0].4);
        let steps_differ = sorted.iter().any(|r| r.3 != sorted[0].3);
        sorted
            .iter()
            .map(|r| {
                let mut parts = Vec::new();
                if splits_differ || (!steps_differ && !r.4.is_empty()) {
                    parts.push(if r.4.is_empty() { "no split".to_string() } else { format!("split={}", r.4) });
                }
                if steps_differ || (!splits_differ && r.3.is_some()) {
                    parts.push(r.3.map_or("no step".to_string(), |s| format!("step={s}")));
                }
                if parts.is_empty() {
                    parts.push("no split or step".into());
                }
                parts.join(" ")
            })
            .collect()
    };
    // No such metric (with that split/step).
    if matching.is_empty() {
        row.verdict = Verdict::Unsupported;
        row.message = if all.is_empty() {
            match recorded.get(id) {
                Some(ms) if !ms.is_empty() => format!(
                    "run {name} records no metric '{}' (it records {}); correct metric= or scan the file that holds it",
                    claim.metric,
                    list_some(ms, 10)
                ),
                _ => format!(
                    "run {name} records no metrics at all (a spec or an empty result), so nothing backs this number"
                ),
            }
        } else {
            let mut wanted = Vec::new();
            if let Some(s) = &claim.split {
                wanted.push(format!("split={s}"));
            }
            if let Some(s) = claim.step {
                wanted.push(format!("step={s}"));
            }
            format!(
                "run {name} records '{}' but not with {} (it has {}); correct the split=/step=",
                claim.metric,
                wanted.join(" "),
                list_some(&labels(&all.iter().collect::<Vec<_>>()), 8)
            )
        };
        return;
    }
    // Several rows: the claim must say which.
    if matching.len() > 1 {
        let ls = labels(&matching);
        let distinct: HashSet<&String> = ls.iter().collect();
        row.verdict = Verdict::Ambiguous;
        row.message = if distinct.len() < ls.len() {
            format!(
                "run {name} holds {} '{}' rows that no split=/step= tells apart ({}); rescan the run, then check again",
                matching.len(),
                claim.metric,
                list_some(&ls, 8)
            )
        } else {
            format!(
                "run {name} records {} values of '{}' ({}); add split= or step= to say which one the draft means",
                matching.len(),
                claim.metric,
                list_some(&ls, 8)
            )
        };
        return;
    }
    let m = matching[0];
    let actual = m.2;
    row.actual = Some(actual);
    let wh = where_of(&m.4, m.3);
    let tol = claim.tolerance();
    let diff = (actual - claim.value).abs();
    let ev = evidence_of(source_path, stored_hash.as_deref(), evidence).await;
    let file = Path::new(source_path.split('#').next().unwrap_or(source_path))
        .file_name()
        .map_or(source_path.clone(), |f| f.to_string_lossy().into_owned());
    if diff > tol {
        row.verdict = Verdict::Contradicted;
        let mut msg = format!(
            "the draft says {} but run {name} records {}{wh} (off by {}; tolerance {})",
            claim.written,
            fmt_g(actual),
            fmt_g(diff),
            fmt_g(tol)
        );
        if let Some((d, half)) = rounding_of(&claim.written)
            && diff <= half * (1.0 + 1e-9)
            && claim.tol.is_none_or(|t| t < half)
        {
            msg.push_str(&format!(
                "; if {} is the recorded value rounded to {d} decimals, say so with tol={:.*}",
                claim.written,
                d + 1,
                half
            ));
        }
        match ev {
            Evidence::Changed => msg.push_str(&format!(
                "; note that {file} changed since the scan, so rescan before trusting either number"
            )),
            Evidence::Gone => msg.push_str(&format!("; note that the evidence {source_path} no longer exists")),
            _ => {}
        }
        row.message = msg;
        return;
    }
    match ev {
        Evidence::Gone => {
            row.verdict = Verdict::Stale;
            row.message = format!(
                "the number matches the ledger, but its evidence {source_path} no longer exists; restore it or re-verify the number and rescan"
            );
        }
        Evidence::Changed => {
            row.verdict = Verdict::Stale;
            row.message = format!(
                "the number matches the ledger, but {file} has changed content since it was scanned; rescan (runs.scan) and check again"
            );
        }
        Evidence::Same | Evidence::Unhashed => {
            row.verdict = Verdict::Supported;
            let mut msg = format!("{}={} in {name}{wh}", claim.metric, fmt_g(actual));
            if claim.tol.is_some() && diff > DEFAULT_TOL {
                msg.push_str(&format!(", within tol={} of the {} written", fmt_g(tol), claim.written));
            }
            if ev == Evidence::Unhashed {
                msg.push_str(" (no content hash was recorded at scan time, so a changed file would go unnoticed; rescan to record one)");
            }
            row.message = msg;
        }
    }
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

    #[test]
    fn rounding_hint_uses_the_written_decimals() {
        assert_eq!(rounding_of("0.0642").map(|x| x.0), Some(4));
        assert!((rounding_of("0.0642").unwrap().1 - 0.00005).abs() < 1e-15);
        assert_eq!(rounding_of("2400"), None);
        assert_eq!(rounding_of("1e-3"), None);
    }

    #[test]
    fn verdicts_parse_and_print() {
        for v in Verdict::ALL {
            assert_eq!(v.as_str().parse::<Verdict>().unwrap(), v);
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert!("wrong".parse::<Verdict>().unwrap_err().contains("supported, contradicted"));
    }
}
