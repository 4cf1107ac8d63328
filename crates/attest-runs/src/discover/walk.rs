//! One walk over a project directory that finds the layouts frameworks and trackers
//! write, at any depth: Trainer output directories, Lightning logger versions, Sacred
//! runs, Hydra jobs, MLflow stores and W&B directories.

use std::path::{Path, PathBuf};

/// Deepest directory level looked at below the project.
pub const MAX_DEPTH: usize = 10;
/// Most directory entries one walk visits, so a huge tree cannot stall a scan.
pub const MAX_ENTRIES: usize = 200_000;

/// Files whose presence makes a directory a Hugging Face Trainer output directory.
pub const HF_FILES: &[&str] =
    &["trainer_state.json", "all_results.json", "eval_results.json", "train_results.json", "test_results.json"];

/// What the walk found.
#[derive(Debug, Default, Clone)]
pub struct Layouts {
    /// Trainer output directories (not their `checkpoint-N/` subdirectories).
    pub hf: Vec<PathBuf>,
    /// Directories holding a `metrics.csv` written by a Lightning CSVLogger.
    pub lightning: Vec<PathBuf>,
    /// Sacred FileStorageObserver run directories (`run.json` + `config.json`).
    pub sacred: Vec<PathBuf>,
    /// Hydra job directories (holding `.hydra/`).
    pub hydra: Vec<PathBuf>,
    /// Directories inside a Hydra multirun sweep that lack `.hydra/`.
    pub hydra_orphans: Vec<PathBuf>,
    /// Directories holding TensorBoard event files.
    pub tensorboard: Vec<PathBuf>,
    /// Directories holding a DVC pipeline (`dvc.yaml`).
    pub dvc: Vec<PathBuf>,
    /// MLflow file stores (`mlruns/`).
    pub mlruns: Vec<PathBuf>,
    /// MLflow SQLite backends (`mlflow.db`).
    pub mlflow_dbs: Vec<PathBuf>,
    /// W&B directories (`wandb/`).
    pub wandb: Vec<PathBuf>,
}

impl Layouts {
    /// Every directory a framework reader owns: the generic reader leaves their files
    /// alone.
    pub fn claimed_dirs(&self) -> Vec<&PathBuf> {
        self.hf
            .iter()
            .chain(&self.lightning)
            .chain(&self.sacred)
            .chain(&self.hydra)
            .chain(&self.hydra_orphans)
            .chain(&self.tensorboard)
            .collect()
    }
}

fn is_checkpoint(name: &str) -> bool {
    name.strip_prefix("checkpoint-")
        .or_else(|| name.strip_prefix("checkpoint_"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Directories never descended into: hidden ones, virtual environments, caches, and the
/// insides of tracker stores and framework runs (which their readers walk themselves).
fn skip_dir(name: &str) -> bool {
    name.starts_with('.')
        || matches!(name, "node_modules" | "__pycache__" | "venv" | "site-packages" | "_sources" | "artifacts")
        || is_checkpoint(name)
}

/// Whether a directory is a Trainer output directory: it holds `trainer_state.json` or
/// `all_results.json`, or a `*_results.json` and is not itself a project's results
/// directory (where a researcher may have named a file `eval_results.json`).
fn is_trainer_dir(dir: &Path, name: &str, depth: usize) -> bool {
    let has = |f: &str| dir.join(f).is_file();
    if has("trainer_state.json") || has("all_results.json") {
        return true;
    }
    let results_dir = depth == 1 && super::RESULT_DIRS.contains(&name);
    !results_dir && HF_FILES.iter().any(|f| has(f))
}

/// Whether a `run.json` is Sacred's (an object with `experiment` and `status`), so a
/// results directory that happens to hold a `run.json` and a `config.json` is not taken.
fn is_sacred_run(path: &Path) -> bool {
    let Ok(bytes) = super::formats::read_capped(path) else { return false };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(o)) => o.contains_key("experiment") && o.contains_key("status"),
        // A truncated run.json in a directory shaped like a Sacred run is still one (its
        // reader says why it is skipped).
        Err(_) => std::str::from_utf8(&bytes).is_ok_and(|t| t.contains("\"experiment\"")),
        Ok(_) => false,
    }
}

/// Walk `project` once and sort what it holds into layouts.
pub fn find(project: &Path) -> Layouts {
    let mut out = Layouts::default();
    let mut it =
        walkdir::WalkDir::new(project).max_depth(MAX_DEPTH).follow_links(false).sort_by_file_name().into_iter();
    let mut seen = 0usize;
    while let Some(entry) = it.next() {
        let Ok(e) = entry else { continue };
        seen += 1;
        if seen > MAX_ENTRIES {
            break;
        }
        if !e.file_type().is_dir() {
            if e.file_name() == "mlflow.db" && e.depth() > 0 {
                out.mlflow_dbs.push(e.path().to_path_buf());
            }
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        if e.depth() > 0 && skip_dir(&name) {
            it.skip_current_dir();
            continue;
        }
        let dir = e.path();
        match name.as_str() {
            "mlruns" if e.depth() > 0 => {
                out.mlruns.push(dir.to_path_buf());
                it.skip_current_dir();
                continue;
            }
            "wandb" if e.depth() > 0 => {
                out.wandb.push(dir.to_path_buf());
                it.skip_current_dir();
                continue;
            }
            _ => {}
        }
        let has = |f: &str| dir.join(f).is_file();
        if has("dvc.yaml") {
            out.dvc.push(dir.to_path_buf());
        }
        if e.depth() == 0 {
            continue;
        }
        if dir.join(".hydra").is_dir() {
            out.hydra.push(dir.to_path_buf());
            it.skip_current_dir();
        } else if dir.parent().is_some_and(|p| p.join("multirun.yaml").is_file()) {
            out.hydra_orphans.push(dir.to_path_buf());
            it.skip_current_dir();
        } else if is_trainer_dir(dir, &name, e.depth()) {
            out.hf.push(dir.to_path_buf());
            it.skip_current_dir();
        } else if has("run.json") && has("config.json") && is_sacred_run(&dir.join("run.json")) {
            out.sacred.push(dir.to_path_buf());
            it.skip_current_dir();
        } else if has("metrics.csv") && (name.starts_with("version_") || has("hparams.yaml")) {
            out.lightning.push(dir.to_path_buf());
            it.skip_current_dir();
        } else if super::tfevents::has_events(dir) {
            out.tensorboard.push(dir.to_path_buf());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints() {
        assert!(is_checkpoint("checkpoint-500"));
        assert!(!is_checkpoint("checkpoint-best"));
        assert!(!is_checkpoint("checkpoints"));
    }
}
