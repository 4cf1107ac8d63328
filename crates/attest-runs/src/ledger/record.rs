//! Recording results that exist nowhere on disk yet.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Ledger, is_plain_name};
use crate::LedgerError;
use crate::compare::Comparison;
use crate::direction::{self, Direction, Directions};
use crate::discover;
use crate::family::family_of;

/// A request to record results that exist nowhere on disk yet.
#[derive(Debug, Clone, Default)]
pub struct RecordRequest {
    /// The family the arms belong to.
    pub family: String,
    /// Arms: name and metric values.
    pub arms: Vec<(String, BTreeMap<String, f64>)>,
    /// The corpus the arms were evaluated on.
    pub corpus: Option<String>,
    /// Directions to declare for metrics that have none yet.
    pub directions: BTreeMap<String, Direction>,
    /// The project to write into (a directory under the root; created if absent).
    pub project: String,
    /// The research root.
    pub root: PathBuf,
    /// Write (`true`) or only preview (`false`).
    pub confirm: bool,
}

/// A file `record` writes (or would write).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlannedFile {
    /// Absolute path.
    pub path: String,
    /// Its content.
    pub content: String,
}

/// What `record` did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordOutcome {
    /// Whether anything was written (`false` for a preview).
    pub written: bool,
    /// The result files.
    pub files: Vec<PlannedFile>,
    /// Directions declared (or to be declared), and in which file.
    pub declared: Vec<(String, Direction)>,
    /// The direction file written to, when directions were declared.
    pub directions_file: Option<String>,
    /// The family's comparison after the write (absent for a preview, or when it was
    /// refused; see `compare_refusal`).
    pub comparison: Option<Comparison>,
    /// Why the comparison was refused, if it was.
    pub compare_refusal: Option<String>,
}

impl Ledger {
    /// Record results that exist nowhere on disk yet as new files
    /// `<root>/<project>/results/<family>_<arm>.json` (never overwriting), declaring
    /// any missing metric directions, then scan that project and compare the family.
    /// Without `confirm`, only says what it would write.
    pub async fn record(&self, req: RecordRequest) -> Result<RecordOutcome, LedgerError> {
        let family = req.family.trim();
        if family.is_empty() || !family.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(LedgerError::refused(format!(
                "family '{family}' must be letters, digits, '-' or '_' (it becomes part of a file name)"
            )));
        }
        if !is_plain_name(&req.project) {
            return Err(LedgerError::refused(format!(
                "project '{}' must be a plain directory name under the research root (no '/' and not hidden)",
                req.project
            )));
        }
        if !req.root.is_dir() {
            return Err(LedgerError::refused(format!(
                "no such directory: {} -- pass the research root",
                req.root.display()
            )));
        }
        if req.arms.is_empty() {
            return Err(LedgerError::refused(
                "nothing to record: give at least one arm with metric values, e.g. arm t4 with wer=0.064",
            ));
        }
        let dirs = Directions::load(self.opts.metric_directions.as_deref(), Some(&req.root))?;
        // Where the files go, held inside the root with every link followed: a project
        // directory that is a link out of the root is refused, not written through.
        let results = attest_claims::confine::to_create(&req.root, &Path::new(&req.project).join("results"))
            .map_err(|r| LedgerError::refused(format!("cannot record into project '{}': {r}", req.project)))?;
        let mut files = Vec::new();
        let mut undeclared: Vec<String> = Vec::new();
        let mut declared: Vec<(String, Direction)> = Vec::new();
        for (arm, metrics) in &req.arms {
            let arm = arm.trim();
            if arm.is_empty() || !arm.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-') {
                return Err(LedgerError::refused(format!(
                    "arm '{arm}' must be letters, digits, '.' or '-' (no '_', which would split it from the family)"
                )));
            }
            let stem = format!("{family}_{arm}");
            let got = family_of(&stem);
            if got.as_deref() != Some(family) {
                return Err(LedgerError::refused(format!(
                    "the file {stem}.json would belong to family '{}', not '{family}'; families are hyphen-joined, so use family '{}' or a plainer arm name",
                    got.unwrap_or_default(),
                    family.replace('_', "-")
                )));
            }
            if metrics.is_empty() {
                return Err(LedgerError::refused(format!(
                    "arm '{arm}' has no metric values; give at least one, e.g. wer=0.064"
                )));
            }
            let mut obj = serde_json::Map::new();
            for (k, v) in metrics {
                let k = k.trim().to_ascii_lowercase();
                if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(LedgerError::refused(format!("metric name '{k}' must be letters, digits and '_'")));
                }
                if discover::payload::SKIP_KEYS.contains(&k.as_str()) || crate::corpus::is_corpus_key(&k) {
                    return Err(LedgerError::refused(format!(
                        "'{k}' is not read as a metric (it names a step, seed, id or the data); leave it out"
                    )));
                }
                if !v.is_finite() {
                    return Err(LedgerError::refused(format!(
                        "{k} = {v} for arm '{arm}' is not a finite number; record only real values"
                    )));
                }
                let exempt = k == "n_records" || k.ends_with("_std");
                if !exempt && dirs.get(&k).is_none() {
                    match req.directions.get(&k) {
                        Some(d) => {
                            if !declared.iter().any(|(n, _)| n == &k) {
                                declared.push((k.clone(), *d));
                            }
                        }
                        None => {
                            if !undeclared.contains(&k) {
                                undeclared.push(k.clone());
                            }
                        }
                    }
                }
                obj.insert(k, serde_json::Number::from_f64(*v).map(Value::Number).unwrap_or(Value::Null));
            }
            if let Some(c) = &req.corpus {
                obj.insert("corpus".into(), Value::String(c.clone()));
            }
            let path = results.join(format!("{stem}.json"));
            let content = serde_json::to_string_pretty(&Value::Object(obj)).unwrap_or_default() + "\n";
            files.push(PlannedFile { path: path.display().to_string(), content });
        }
        if !undeclared.is_empty() {
            let m = &undeclared[0];
            return Err(LedgerError::refused(format!(
                "no known direction for {}, so the result could not be ranked; pass directions={{\"{m}\": \"higher_is_better\"}} (or \"lower_is_better\") to declare {} in {}, or leave {} out",
                undeclared.join(", "),
                if undeclared.len() == 1 { "it" } else { "them" },
                dirs.where_to_declare(),
                if undeclared.len() == 1 { "it" } else { "them" }
            )));
        }
        let mut seen = std::collections::HashSet::new();
        for f in &files {
            if !seen.insert(f.path.clone()) {
                return Err(LedgerError::refused(format!(
                    "two arms would both write {}; give each arm a distinct name",
                    f.path
                )));
            }
            if Path::new(&f.path).exists() {
                // Exactly what this call would write: the same call made before and
                // stopped (killed) between its files and its scan's commit. Keep the file
                // and record it, so the retry completes.
                if std::fs::read_to_string(&f.path).is_ok_and(|text| text == f.content) {
                    continue;
                }
                return Err(LedgerError::refused(format!(
                    "refusing to overwrite {}: results already recorded stay as they are; use a new arm name",
                    f.path
                )));
            }
        }
        let directions_file =
            (!declared.is_empty()).then(|| dirs.declare_in().map(|p| p.display().to_string())).flatten();
        if !req.confirm {
            return Ok(RecordOutcome {
                written: false,
                files,
                declared,
                directions_file,
                comparison: None,
                compare_refusal: None,
            });
        }
        // Files and ledger rows are one unit: until the scan that records them has
        // committed, everything written here is undone on failure (the new files
        // removed, the directions file put back, directories this call made removed),
        // so the same call can simply be retried.
        let made_dirs: Vec<PathBuf> = {
            let mut v = Vec::new();
            let mut d = results.as_path();
            while !d.exists() {
                v.push(d.to_path_buf());
                match d.parent() {
                    Some(p) => d = p,
                    None => break,
                }
            }
            v
        };
        let directions_target = dirs.declare_in().map(Path::to_path_buf);
        let directions_before = directions_target.as_deref().and_then(|t| std::fs::read_to_string(t).ok());
        let mut written: Vec<PathBuf> = Vec::new();
        let mut wrote_directions = false;
        let undo = |written: &[PathBuf], wrote_directions: bool| {
            for w in written {
                let _ = std::fs::remove_file(w);
            }
            if wrote_directions && let Some(t) = &directions_target {
                let _ = match &directions_before {
                    Some(text) => std::fs::write(t, text),
                    None => std::fs::remove_file(t),
                };
            }
            for d in &made_dirs {
                let _ = std::fs::remove_dir(d);
            }
        };
        if let Err(source) = std::fs::create_dir_all(&results) {
            undo(&written, false);
            return Err(LedgerError::Io { path: results.clone(), source });
        }
        for f in &files {
            let p = PathBuf::from(&f.path);
            if p.exists() {
                // Left by an interrupted identical call (checked above): kept as it is,
                // and not this call's to undo.
                continue;
            }
            if let Err(source) = create_whole(&p, &f.content) {
                undo(&written, false);
                return Err(LedgerError::Io { path: p, source });
            }
            written.push(p);
        }
        if !declared.is_empty() {
            let Some(target) = directions_target.clone() else {
                undo(&written, false);
                return Err(LedgerError::refused(
                    "no file to declare directions in: set ATTEST_METRIC_DIRECTIONS or pass a research root",
                ));
            };
            let text = direction::with_declarations(directions_before.as_deref(), &declared);
            wrote_directions = true;
            if let Err(source) = replace_whole(&target, &text) {
                undo(&written, wrote_directions);
                return Err(LedgerError::Io { path: target, source });
            }
        }
        if let Err(e) = self.scan(&req.root, Some(&req.project), |_| ControlFlow::Continue(())).await {
            undo(&written, wrote_directions);
            return Err(e);
        }
        // The files and their rows are committed: a comparison that fails now is said,
        // never turned into a failure the caller would retry (and be refused).
        let (comparison, compare_refusal) = match self.compare(family, None, Some(&req.project)).await {
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(RecordOutcome { written: true, files, declared, directions_file, comparison, compare_refusal })
    }
}

/// The hidden name a file is written under before it takes its own (a hidden file is
/// never read by a scan; the next write of the same file reuses and removes it).
fn partial_name(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.with_file_name(format!(".{name}.partial"))
}

/// Create `path` holding `text`, never overwriting: the text is written and synced under
/// a hidden name first, then linked to `path` (which fails if `path` exists), so a
/// process killed at any point leaves `path` absent or whole, never empty or cut short
/// (a retry would take a cut-short file for someone else's result and refuse).
fn create_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let partial = partial_name(path);
    let done = write_synced(&partial, text).and_then(|()| std::fs::hard_link(&partial, path));
    let _ = std::fs::remove_file(&partial);
    done
}

fn write_synced(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)?;
    std::fs::File::open(path)?.sync_all()
}

/// Replace `path` with `text` whole (written under a hidden name, then renamed over it),
/// so a kill leaves the old file or the new one. A link is replaced where it leads.
fn replace_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let partial = partial_name(&path);
    let done = write_synced(&partial, text).and_then(|()| std::fs::rename(&partial, &path));
    if done.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    done
}
