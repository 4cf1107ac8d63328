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
//! - trackers, at any depth: an MLflow file store (`mlruns/`), an MLflow SQLite
//!   backend (`mlflow.db`) and W&B run directories (`wandb/*run-*/`);
//! - the layouts training frameworks write, at any depth ([`walk`]): Hugging Face
//!   Trainer output directories, Lightning CSVLogger versions, Sacred
//!   FileStorageObserver runs, Hydra jobs; Keras CSV logs under a results directory.
//!
//! The first reader to claim a run name keeps it; later claimants are noted.

pub mod config;
pub mod csvlog;
pub mod declared;
pub mod dvc;
pub mod formats;
pub mod generic;
pub mod hf;
pub mod hydra;
pub mod mlflow;
pub mod payload;
pub mod proto;
pub mod sacred;
pub mod tfevents;
pub mod walk;
pub mod wandb;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

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
/// Files a training framework writes (used to say so when none yielded a run).
pub const FRAMEWORK_FILES: &[&str] = &[
    "trainer_state.json",
    "all_results.json",
    "eval_results.json",
    "train_results.json",
    "metrics.csv",
    "hparams.yaml",
    "run.json",
    "multirun.yaml",
    "dvc.yaml",
];

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
    /// Hugging Face Trainer output directories.
    HfTrainer,
    /// PyTorch Lightning CSVLogger directories.
    Lightning,
    /// Sacred FileStorageObserver runs.
    Sacred,
    /// Hydra job directories.
    Hydra,
    /// TensorBoard event files.
    Tensorboard,
    /// DVC pipelines.
    Dvc,
}

impl Adapter {
    /// The stored spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Adapter::Generic => "generic",
            Adapter::Mlflow => "mlflow",
            Adapter::Wandb => "wandb",
            Adapter::HfTrainer => "hf_trainer",
            Adapter::Lightning => "lightning",
            Adapter::Sacred => "sacred",
            Adapter::Hydra => "hydra",
            Adapter::Tensorboard => "tensorboard",
            Adapter::Dvc => "dvc",
        }
    }

    /// Parse the stored spelling.
    pub fn parse(s: &str) -> Option<Adapter> {
        match s {
            "generic" => Some(Adapter::Generic),
            "mlflow" => Some(Adapter::Mlflow),
            "wandb" => Some(Adapter::Wandb),
            "hf_trainer" => Some(Adapter::HfTrainer),
            "lightning" => Some(Adapter::Lightning),
            "sacred" => Some(Adapter::Sacred),
            "hydra" => Some(Adapter::Hydra),
            "tensorboard" => Some(Adapter::Tensorboard),
            "dvc" => Some(Adapter::Dvc),
            _ => None,
        }
    }

    /// How this reader names families, for `runs.list`.
    pub fn family_source(self) -> &'static str {
        match self {
            Adapter::Generic => "by file-name prefix",
            Adapter::Mlflow => "by MLflow run name",
            Adapter::Wandb => "by W&B program",
            Adapter::HfTrainer => "by Trainer output directory name",
            Adapter::Lightning => "by Lightning logger name",
            Adapter::Sacred => "by Sacred experiment name",
            Adapter::Hydra => "by Hydra job name",
            Adapter::Tensorboard => "by TensorBoard log directory name",
            Adapter::Dvc => "by DVC stage name",
        }
    }

    /// What a reader of this adapter's numbers must know, if anything.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Adapter::Generic | Adapter::HfTrainer | Adapter::Hydra | Adapter::Dvc => None,
            Adapter::Tensorboard => Some(
                "values read from TensorBoard event files are each logged step's scalar; the ranked one is the best step of the most held-out split, which need not be the checkpoint that was kept",
            ),
            Adapter::Lightning => Some(
                "values read from a Lightning metrics.csv are each logged step's value; the ranked one is the best step of the most held-out split, which need not be the checkpoint that was kept",
            ),
            Adapter::Sacred => Some(
                "values read from Sacred are the scalars logged with log_scalar (the best step is ranked) and the run's returned result",
            ),
            Adapter::Mlflow => Some(
                "values read from MLflow are each metric's latest logged value (highest step, then latest time), not the best step and not the curve",
            ),
            Adapter::Wandb => Some(
                "values read from W&B are the run summary (wandb-summary.json, or for a run never synced the summary its transaction log records): each metric's last logged value, not the best step and not the curve",
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

/// Sorted entries of a directory (hidden ones skipped, and links to directories: a
/// scan follows no links, so it never reads outside the research root; a link to a
/// file stays listed, and reading it is refused with a reason,
/// [`formats::read_capped`]); empty when it cannot be read.
pub(crate) fn sorted_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| !(e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir()))
            .map(|e| e.path())
            .collect(),
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

/// The file-reading part of discovery: framework layouts, result files, configs, W&B
/// and the MLflow file store. With `deep` the whole project is walked for the
/// layouts frameworks and trackers write; without it (the research root read as a
/// fallback project) only its own results directories and top-level trackers are.
pub fn discover_files(project_dir: &Path, deep: bool) -> (Discovery, HashSet<String>, Vec<PathBuf>) {
    let mut d = Discovery::default();
    let mut seen = HashSet::new();
    let layouts = if deep {
        walk::find(project_dir)
    } else {
        let mut l = walk::Layouts::default();
        for (name, v) in [("mlruns", &mut l.mlruns), ("wandb", &mut l.wandb)] {
            if project_dir.join(name).is_dir() {
                v.push(project_dir.join(name));
            }
        }
        if project_dir.join("mlflow.db").is_file() {
            l.mlflow_dbs.push(project_dir.join("mlflow.db"));
        }
        l
    };
    hf::runs(project_dir, &layouts.hf, &mut d, &mut seen);
    csvlog::lightning(project_dir, &layouts.lightning, &mut d, &mut seen);
    sacred::runs(project_dir, &layouts.sacred, &mut d, &mut seen);
    hydra::runs(project_dir, &layouts.hydra, &layouts.hydra_orphans, &mut d, &mut seen);
    tfevents::runs(project_dir, &layouts.tensorboard, &mut d, &mut seen);
    let dvc_files = dvc::runs(project_dir, &layouts.dvc, &mut d, &mut seen);
    let mut claimed: Vec<&PathBuf> = layouts.claimed_dirs();
    claimed.extend(&dvc_files);
    generic::results(project_dir, &claimed, &mut d, &mut seen);
    config::specs(project_dir, &mut d, &mut seen);
    for w in &layouts.wandb {
        wandb::runs(project_dir, w, &mut d, &mut seen);
    }
    for m in &layouts.mlruns {
        mlflow::file_store(project_dir, m, &mut d, &mut seen);
    }
    (d, seen, layouts.mlflow_dbs)
}

/// Read one project directory, walking it whole (see [`discover_files`]). The file
/// reading runs on tokio's blocking pool, so a long scan does not stall other tasks.
pub async fn discover(project_dir: &Path) -> Discovery {
    discover_with(project_dir, true).await
}

/// [`discover`], choosing whether to walk the whole directory.
pub async fn discover_with(project_dir: &Path, deep: bool) -> Discovery {
    let dir = project_dir.to_path_buf();
    let (mut d, mut seen, dbs) = match tokio::task::spawn_blocking(move || discover_files(&dir, deep)).await {
        Ok(found) => found,
        Err(_) => discover_files(project_dir, deep),
    };
    for db in dbs {
        mlflow::sqlite(project_dir, &db, &mut d, &mut seen).await;
    }
    d
}

/// Say why a project directory yielded no run: what was looked for and where the
/// files actually are.
pub fn diagnose_empty(dir: &Path) -> String {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    let mut tracker: Vec<String> = Vec::new();
    let mut framework: Vec<String> = Vec::new();
    for e in walkdir::WalkDir::new(dir)
        .max_depth(walk::MAX_DEPTH)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
    {
        let fname = e.file_name().to_string_lossy();
        if e.depth() >= 1 && TRACKERS.contains(&fname.as_ref()) {
            let rel = e.path().strip_prefix(dir).unwrap_or(e.path()).display().to_string();
            if !tracker.iter().any(|t: &String| rel.starts_with(&format!("{t}/"))) {
                tracker.push(rel);
            }
        }
        if e.file_type().is_file() && FRAMEWORK_FILES.contains(&fname.as_ref()) {
            framework.push(e.path().strip_prefix(dir).unwrap_or(e.path()).display().to_string());
        }
        if e.file_type().is_file() {
            files.push(e.path().strip_prefix(dir).unwrap_or(e.path()).to_path_buf());
            if files.len() >= 20_000 {
                break;
            }
        }
    }
    if !tracker.is_empty() {
        tracker.truncate(4);
        return format!(
            "found {} but no run in it with a finite metric (deleted MLflow runs, and W&B runs whose summary or transaction log holds only bookkeeping keys, are skipped; the scan's skipped list gives each one's reason)",
            tracker.join(" and ")
        );
    }
    if !framework.is_empty() {
        let more = framework.len().saturating_sub(3);
        framework.truncate(3);
        return format!(
            "found files a training framework writes ({}{}) but none yielded a run; the scan's skipped list gives each file's reason",
            framework.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
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
        // `<project>/<sub>/logs/…`: a results directory one level too deep reads as a
        // project inside the project; say so rather than "move them into logs/".
        let nested: Vec<String> = readable
            .iter()
            .filter_map(|f| {
                let parts: Vec<String> = f.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                (parts.len() > 2 && RESULT_DIRS.contains(&parts[1].as_str())).then(|| parts[0].clone())
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        if let [sub, ..] = nested.as_slice() {
            return format!(
                "{} in readable formats, in a results directory one level too deep ({}); a results directory is read only at a project's top level: make {sub}/ a project of its own (a directory of the research root), or point the research root at this project so its subdirectories are the projects",
                attest_core::text::plural(readable.len(), "file", "files"),
                nested.iter().map(|s| format!("{s}/")).collect::<Vec<_>>().join(", ")
            );
        }
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
        "{} under a results directory, but none held a result: expected a JSON object of numbers like {{\"wer\": 0.05}}, a list of such objects, or a CSV with numeric columns and a column naming each row ({}); the scan's skipped list gives each file's reason",
        attest_core::text::plural(in_results.len(), "file", "files"),
        formats::LABEL_COLUMNS.join(", ")
    )
}
