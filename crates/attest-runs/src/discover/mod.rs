//! Discovery: turning a project directory into run records.
//!
//! Nothing here touches the database. [`discover`] reads one project directory and
//! returns what it recognised ([`Record`]s) and what it refused, with why
//! ([`FileNote`]s); the ledger writes the records.
//!
//! Conventions (see `specs/runs.md`):
//! - result files live under one of [`RESULT_DIRS`] (directly or one level down):
//!   `.json`, `.jsonl` and labelled `.csv`;
//! - configs under one of [`CONFIG_DIRS`] (`.yaml .yml .toml .ini .cfg`, and `.json`
//!   objects) are recorded as specs: runs with no metrics;
//! - trackers: an MLflow file store (`mlruns/`), an MLflow SQLite backend
//!   (`mlflow.db`) and W&B run directories (`wandb/*run-*/`).
//!
//! The first reader to claim a run name keeps it; later claimants are noted.

pub mod config;
pub mod formats;
pub mod generic;
pub mod mlflow;
pub mod payload;
pub mod wandb;

use std::collections::HashSet;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use payload::{Metric, metrics_from_payload};

use crate::corpus::CorpusInfo;

/// Directories whose files are results.
pub const RESULT_DIRS: &[&str] = &["results", "logs", "outputs", "metrics", "eval", "evals", "benchmarks", "reports"];
/// Directories whose files are configs (recorded as specs).
pub const CONFIG_DIRS: &[&str] = &["configs", "config", "examples", "experiments", "conf"];
/// Suffixes of config files.
pub const CONFIG_SUFFIXES: &[&str] = &["yaml", "yml", "toml", "json", "ini", "cfg"];
/// Every suffix the ledger reads.
pub const READABLE_SUFFIXES: &[&str] = &["yaml", "yml", "toml", "json", "ini", "cfg", "jsonl", "csv"];
/// Tracker directories and files.
pub const TRACKERS: &[&str] = &["mlruns", "mlflow.db", "wandb"];

/// Whether a run holds results or only a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// An artifact with results.
    Recorded,
    /// A config with no result attached: a plan, recorded without numbers.
    Spec,
}

impl RunStatus {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Recorded => "recorded",
            RunStatus::Spec => "spec",
        }
    }
}

/// Which reader produced a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Adapter {
    /// Result and config files under the directory conventions.
    Generic,
    /// MLflow (file store or SQLite backend).
    Mlflow,
    /// Weights & Biases run directories.
    Wandb,
}

impl Adapter {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Adapter::Generic => "generic",
            Adapter::Mlflow => "mlflow",
            Adapter::Wandb => "wandb",
        }
    }

    /// Parse the stored spelling.
    pub fn parse(s: &str) -> Option<Adapter> {
        match s {
            "generic" => Some(Adapter::Generic),
            "mlflow" => Some(Adapter::Mlflow),
            "wandb" => Some(Adapter::Wandb),
            _ => None,
        }
    }

    /// What a reader of this adapter's numbers must know, if anything.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Adapter::Generic => None,
            Adapter::Mlflow => Some(
                "values read from MLflow are each metric's latest logged value (highest step, then latest time), not the best step and not the curve",
            ),
            Adapter::Wandb => Some(
                "values read from W&B come from wandb-summary.json: each metric's last logged value, not the best step and not the curve (offline runs only have that file once synced or materialised)",
            ),
        }
    }
}

/// Something to know about one run's numbers, recorded at scan time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunCaveat {
    /// The metric it concerns; `None` when it concerns the whole run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
    /// What to know.
    pub text: String,
}

/// One recognised run, ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Unique within the project; the identity that survives rescans.
    pub name: String,
    /// The family it is an arm of.
    pub family: Option<String>,
    /// Results or plan.
    pub status: RunStatus,
    /// The reader.
    pub adapter: Adapter,
    /// When the run started (trackers only), as written by the tracker.
    pub started: Option<String>,
    /// Absolute path of what was read, with `#row=`/`#run=` for a record inside a file.
    pub source_path: String,
    /// blake3 of what was read (see [`crate::hash`]).
    pub source_hash: Option<String>,
    /// Configuration (params, a config file's content, a seed).
    pub config: Option<Value>,
    /// Free text kept with the run (a config's header comment, a tracker status).
    pub notes: Option<String>,
    /// The data it was evaluated on.
    pub corpus: Option<CorpusInfo>,
    /// Its metric rows.
    pub metrics: Vec<Metric>,
    /// What to know about its numbers.
    pub caveats: Vec<RunCaveat>,
}

impl Record {
    /// A recorded run from the generic reader with no metrics yet.
    pub fn new(name: String, family: Option<String>, source_path: String) -> Record {
        Record {
            name,
            family,
            status: RunStatus::Recorded,
            adapter: Adapter::Generic,
            started: None,
            source_path,
            source_hash: None,
            config: None,
            notes: None,
            corpus: None,
            metrics: Vec::new(),
            caveats: Vec::new(),
        }
    }

    /// Record dropped non-finite metrics (`"name (token)"` entries) as caveats.
    pub(crate) fn note_dropped(&mut self, dropped: &[String]) {
        for d in dropped {
            let (path, tok) =
                d.split_once(" (").map(|(p, t)| (p, t.trim_end_matches(')'))).unwrap_or((d.as_str(), "not finite"));
            let metric = path.rsplit('.').next().unwrap_or(path).to_string();
            self.caveats.push(RunCaveat {
                metric: Some(metric),
                text: format!("{}: `{path}` was {tok} and was dropped, not replaced by an earlier value", self.name),
            });
        }
    }
}

/// A file (or directory) the scan looked at and did not turn into a run, or read only
/// in part, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileNote {
    /// Path relative to the project directory.
    pub path: String,
    /// What happened and what to do about it.
    pub note: String,
}

/// What one project directory yielded.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// The runs, in discovery order.
    pub records: Vec<Record>,
    /// Files refused or read in part.
    pub notes: Vec<FileNote>,
}

impl Discovery {
    pub(crate) fn note(&mut self, project: &Path, path: &Path, note: impl Into<String>) {
        let rel = path.strip_prefix(project).unwrap_or(path).to_string_lossy().into_owned();
        self.notes.push(FileNote { path: rel, note: note.into() });
    }

    /// Add a record unless its name is taken; returns whether it was added.
    pub(crate) fn claim(&mut self, seen: &mut HashSet<String>, project: &Path, path: &Path, rec: Record) -> bool {
        if !seen.insert(rec.name.clone()) {
            let name = rec.name.clone();
            self.note(project, path, format!("not recorded: the run name '{name}' is already taken by another artifact in this project; rename one of them"));
            return false;
        }
        self.records.push(rec);
        true
    }
}

/// Sorted entries of a directory (hidden ones skipped); empty when it cannot be read.
pub(crate) fn sorted_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => {
            rd.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).map(|e| e.path()).collect()
        }
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

pub(crate) fn suffix(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

pub(crate) fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
}

pub(crate) fn abs(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).to_string_lossy().into_owned()
}

/// The file-reading part of discovery: result files, configs, W&B and the MLflow
/// file store.
pub fn discover_files(project_dir: &Path) -> (Discovery, HashSet<String>) {
    let mut d = Discovery::default();
    let mut seen = HashSet::new();
    generic::results(project_dir, &mut d, &mut seen);
    config::specs(project_dir, &mut d, &mut seen);
    wandb::runs(project_dir, &mut d, &mut seen);
    mlflow::file_store(project_dir, &mut d, &mut seen);
    (d, seen)
}

/// Read one project directory: result files, configs, then trackers. The file reading
/// runs on tokio's blocking pool, so a long scan does not stall other tasks.
pub async fn discover(project_dir: &Path) -> Discovery {
    let dir = project_dir.to_path_buf();
    let (mut d, mut seen) = match tokio::task::spawn_blocking(move || discover_files(&dir)).await {
        Ok(found) => found,
        Err(_) => discover_files(project_dir),
    };
    mlflow::sqlite(project_dir, &mut d, &mut seen).await;
    d
}

/// Say why a project directory yielded no run: what was looked for and where the
/// files actually are.
pub fn diagnose_empty(dir: &Path) -> String {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut tracker = Vec::new();
    for e in walkdir::WalkDir::new(dir)
        .max_depth(6)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
    {
        if e.depth() == 1 && TRACKERS.contains(&e.file_name().to_string_lossy().as_ref()) {
            tracker.push(e.file_name().to_string_lossy().into_owned());
        }
        if e.file_type().is_file() {
            files.push(e.path().strip_prefix(dir).unwrap_or(e.path()).to_path_buf());
            if files.len() >= 20_000 {
                break;
            }
        }
    }
    if !tracker.is_empty() {
        return format!(
            "found {} but no run in it with a finite metric (deleted MLflow runs, and W&B runs whose wandb-summary.json holds only bookkeeping keys, are skipped)",
            tracker.join(" and ")
        );
    }
    if files.is_empty() {
        return "empty: no files here (hidden files are not read)".into();
    }
    let readable: Vec<&std::path::PathBuf> =
        files.iter().filter(|f| READABLE_SUFFIXES.contains(&suffix(f).as_str())).collect();
    if readable.is_empty() {
        let mut sfx: Vec<String> = files
            .iter()
            .map(|f| match suffix(f) {
                s if s.is_empty() => "(no extension)".to_string(),
                s => format!(".{s}"),
            })
            .collect();
        sfx.sort();
        sfx.dedup();
        sfx.truncate(5);
        return format!(
            "{} but none in a format the ledger reads (found {}); results must be .json, .jsonl or .csv under results/ (or logs/, outputs/, metrics/, eval/, evals/, benchmarks/, reports/), configs .yaml, .yml, .toml, .ini or .cfg under configs/",
            attest_core::text::plural(files.len(), "file", "files"),
            sfx.join(", ")
        );
    }
    let first = |f: &std::path::PathBuf| {
        f.components().next().map(|c| c.as_os_str().to_string_lossy().into_owned()).unwrap_or_default()
    };
    let in_results: Vec<&&std::path::PathBuf> =
        readable.iter().filter(|f| f.components().count() > 1 && RESULT_DIRS.contains(&first(f).as_str())).collect();
    if in_results.is_empty() {
        if readable.iter().all(|f| f.components().count() > 1 && CONFIG_DIRS.contains(&first(f).as_str())) {
            return format!(
                "{} but no results: each config would be recorded as a spec with no metrics, so put evaluation output under results/ (or logs/, outputs/, metrics/) to give it numbers",
                attest_core::text::plural(readable.len(), "config file", "config files")
            );
        }
        let mut parents: Vec<String> = readable
            .iter()
            .map(|f| match f.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(p) => format!("{}/", p.display()),
                None => "the project's top level".to_string(),
            })
            .collect();
        parents.sort();
        parents.dedup();
        let more = parents.len().saturating_sub(3);
        parents.truncate(3);
        return format!(
            "{} in readable formats, none under a results directory (they are in {}{}); move result files into results/ (or logs/, outputs/, metrics/, eval/, evals/, benchmarks/, reports/)",
            attest_core::text::plural(readable.len(), "file", "files"),
            parents.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        );
    }
    format!(
        "{} under a results directory, but none held a result: expected a JSON object of numbers like {{\"wer\": 0.05}}, a list of such objects, or a CSV with numeric columns and a column naming each row ({}); see the per-file notes for why each was refused",
        attest_core::text::plural(in_results.len(), "file", "files"),
        formats::LABEL_COLUMNS.join(", ")
    )
}
