//! Checking claims against the ledger: one verdict per claim.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use attest_core::text::fmt_g;
use attest_store::{Db, DbPool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use attest_claims::{Cell, Claim, DEFAULT_TOL, Malformed, Skipped, read_claims};

use super::drafts::resolve_target;
use crate::LedgerError;

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
    /// The line of the claim annotation in the source file (in a notebook, the line of
    /// the `.ipynb` file).
    pub line: usize,
    /// In a notebook, the cell and the line within it; absent elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell: Option<Cell>,
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
    /// Claim annotations that could not be read.
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

/// A resolver from a function, naming the sources it consults.
#[derive(Debug, Clone)]
pub struct KeyCheck<F> {
    /// The sources, for the `uncited` message ("refs.bib, Zotero").
    pub sources: String,
    /// Whether some source knows a key.
    pub resolves: F,
}

impl<F: Fn(&str) -> bool + Sync> CiteResolver for KeyCheck<F> {
    fn resolves(&self, key: &str) -> bool {
        (self.resolves)(key)
    }
    fn sources(&self) -> String {
        self.sources.clone()
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
            "SELECT run_id, metric, split, n, points FROM run_curves WHERE run_id IN ({})",
            placeholders(1, chunk.len())
        );
        if filter_metrics {
            sql.push_str(&format!(" AND lower(metric) IN ({})", placeholders(chunk.len() + 1, metrics.len())));
        }
        sql.push_str(" ORDER BY rowid");
        let mut q = sqlx::query::<Db>(&sql);
        for id in chunk {
            q = q.bind(*id);
        }
        if filter_metrics {
            for m in &metrics {
                q = q.bind(*m);
            }
        }
        for curve in q.fetch_all(pool).await? {
            let (id, rows) = crate::ledger::curve::metrics_of(&curve, 0)?;
            for m in rows {
                let row: MetricRow = (id, m.metric, m.value, m.step, m.split.unwrap_or_default());
                rows_of.entry((row.0, row.1.to_lowercase())).or_default().push(row);
            }
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
            "SELECT DISTINCT run_id, metric FROM run_curves WHERE run_id IN ({}) ORDER BY run_id, metric",
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
            cell: claim.cell,
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
                "cite={key} was not found (checked: {}); add the reference to a citation source or correct the key (this checks the key only, not what the work says)",
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
        // The tolerance is worth stating only when the claim set one (tol=); without
        // it the claim asks for the recorded value itself.
        let allowed = match claim.tol {
            Some(_) => format!("; tolerance {}", fmt_g(tol)),
            None => String::new(),
        };
        let mut msg = format!(
            "the draft says {} but run {name} records {}{wh} (off by {}{allowed})",
            claim.written,
            fmt_g(actual),
            fmt_g(diff),
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
