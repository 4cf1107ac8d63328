//! Content hashes of evidence, so a claim can tell a changed file from a touched one.
//!
//! `source_path` of a run is a file, or a directory (a tracker run), optionally with a
//! `#fragment` naming one record inside it (`results.csv#row=arm_b`,
//! `mlflow.db#run=<id>`). [`evidence`] hashes exactly what the scan read for that run,
//! so rescanning and re-hashing agree, and a byte-identical copy with a new mtime is
//! not stale.
//!
//! | evidence | what is hashed |
//! |---|---|
//! | a result or config file | its bytes |
//! | `table.csv#row=<label>` | the header and that row's cells (other rows may change freely) |
//! | an MLflow run directory | `meta.yaml`, every file under `metrics/` and `params/`, each with its relative path |
//! | a framework run directory (Trainer, Lightning, Sacred, Hydra, TensorBoard) | every file its reader may read there ([`run_dir_files`]), each with its relative path |
//! | a W&B run directory | `files/wandb-summary.json`, `files/config.yaml`, `files/wandb-metadata.json` that exist, each with its name; a run never synced (no summary file): its transaction log `run-<id>.wandb` first |
//! | `mlflow.db#run=<id>` | that run's rows of the `metrics` table, in a fixed order |
//!
//! Digests are blake3, lower-case hex.

use std::path::{Path, PathBuf};

use sqlx::Row;
use sqlx::sqlite::SqliteConnectOptions;

use crate::discover::formats::{label_column, parse_csv};

/// The fragment marking one CSV row.
pub const ROW_FRAGMENT: &str = "#row=";
/// The fragment marking one run inside a tracker database.
pub const RUN_FRAGMENT: &str = "#run=";

/// The blake3 hex digest of some bytes.
pub fn of_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The digest of one CSV row as the ledger reads it: the header cells, then the row's
/// cells, each trimmed, separated by unit/record separators.
pub fn csv_row(headers: &[String], row: &[String]) -> String {
    let mut h = blake3::Hasher::new();
    for c in headers {
        h.update(c.trim().as_bytes());
        h.update(b"\x1f");
    }
    h.update(b"\x1e");
    for c in row {
        h.update(c.trim().as_bytes());
        h.update(b"\x1f");
    }
    h.finalize().to_hex().to_string()
}

/// The digest of a set of files under `base`, each contributing its relative path,
/// its length and its bytes. `None` when one cannot be read.
pub fn files(base: &Path, rels: &[PathBuf]) -> Option<String> {
    let mut h = blake3::Hasher::new();
    for rel in rels {
        let bytes = std::fs::read(base.join(rel)).ok()?;
        h.update(rel.to_string_lossy().as_bytes());
        h.update(b"\0");
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Some(h.finalize().to_hex().to_string())
}

fn walk_files(base: &Path, sub: &str, out: &mut Vec<PathBuf>) {
    let dir = base.join(sub);
    if !dir.is_dir() {
        return;
    }
    for e in walkdir::WalkDir::new(&dir).follow_links(false).sort_by_file_name().into_iter().flatten() {
        if e.file_type().is_file()
            && let Ok(rel) = e.path().strip_prefix(base)
        {
            out.push(rel.to_path_buf());
        }
    }
}

/// The files of an MLflow file-store run directory that the ledger reads, in hashing
/// order.
pub fn mlflow_run_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![PathBuf::from("meta.yaml")];
    walk_files(dir, "metrics", &mut out);
    walk_files(dir, "params", &mut out);
    out
}

/// The files of a W&B run directory that the ledger reads, in hashing order.
pub fn wandb_run_files(dir: &Path) -> Vec<PathBuf> {
    let synced: Vec<PathBuf> = ["files/wandb-summary.json", "files/config.yaml", "files/wandb-metadata.json"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| dir.join(p).is_file())
        .collect();
    if dir.join("files/wandb-summary.json").is_file() {
        return synced;
    }
    // Never synced: the run was read from its transaction log.
    crate::discover::wandb::transaction_log(dir)
        .and_then(|l| l.file_name().map(PathBuf::from))
        .into_iter()
        .chain(synced)
        .collect()
}

/// The files a framework reader may read in a run directory, besides event files:
/// the Trainer's result files, `trainer_state.json` and `training_args.json`;
/// Lightning's `metrics.csv` and `hparams.yaml` (also TensorBoard's); Sacred's
/// `run.json`, `config.json` and `metrics.json`.
pub const RUN_DIR_FILES: &[&str] = &[
    "all_results.json",
    "train_results.json",
    "eval_results.json",
    "test_results.json",
    "predict_results.json",
    "trainer_state.json",
    "training_args.json",
    "metrics.csv",
    "hparams.yaml",
    "run.json",
    "config.json",
    "metrics.json",
];

/// Every file a framework run held in one directory (a Trainer output directory, a
/// Lightning version, a Sacred run, a Hydra job, a TensorBoard run) may have been read
/// from, relative to it, in hashing order: the [`RUN_DIR_FILES`] it holds; for a Hydra
/// job, `.hydra/config.yaml`, `overrides.yaml`, `hydra.yaml` and its own JSON, JSON
/// Lines and CSV files; and its TensorBoard event files, Keras's `train/` and
/// `validation/` included. A run's evidence hash covers all of them, so a change to
/// any file it was read from makes a claim on it stale.
pub fn run_dir_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = RUN_DIR_FILES.iter().map(PathBuf::from).filter(|p| dir.join(p).is_file()).collect();
    if dir.join(".hydra").is_dir() {
        for f in [".hydra/config.yaml", ".hydra/overrides.yaml", ".hydra/hydra.yaml"] {
            if dir.join(f).is_file() {
                out.push(PathBuf::from(f));
            }
        }
        for f in crate::discover::sorted_entries(dir) {
            let own = f.is_file() && matches!(crate::discover::suffix(&f).as_str(), "json" | "jsonl" | "csv");
            if let (true, Some(name)) = (own, f.file_name())
                && !out.iter().any(|o| o.as_os_str() == name)
            {
                out.push(PathBuf::from(name));
            }
        }
    }
    out.extend(crate::discover::tfevents::event_files(dir));
    out
}

/// One row of MLflow's `metrics` table, as hashed.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRow {
    /// Metric key.
    pub key: String,
    /// Value as stored.
    pub value: f64,
    /// Millisecond timestamp.
    pub timestamp: i64,
    /// Step.
    pub step: i64,
    /// MLflow's NaN flag.
    pub is_nan: bool,
}

/// The digest of a DB-backed run's metric rows (sorted by key, step, timestamp, value
/// bits, so the database's row order does not matter).
pub fn metric_rows(rows: &[MetricRow]) -> String {
    let mut sorted: Vec<&MetricRow> = rows.iter().collect();
    sorted.sort_by(|a, b| {
        (a.key.as_str(), a.step, a.timestamp, a.value.to_bits(), a.is_nan).cmp(&(
            b.key.as_str(),
            b.step,
            b.timestamp,
            b.value.to_bits(),
            b.is_nan,
        ))
    });
    let mut h = blake3::Hasher::new();
    for r in sorted {
        h.update(
            format!("{}\t{}\t{}\t{:016x}\t{}\n", r.key, r.step, r.timestamp, r.value.to_bits(), r.is_nan as u8)
                .as_bytes(),
        );
    }
    h.finalize().to_hex().to_string()
}

/// Open an MLflow SQLite database without ever writing to it.
pub async fn open_tracker_db(path: &Path) -> Result<sqlx::SqliteConnection, sqlx::Error> {
    use sqlx::ConnectOptions;
    let opts = SqliteConnectOptions::new().filename(path).read_only(true).create_if_missing(false);
    match opts.connect().await {
        Ok(c) => Ok(c),
        // A read-only directory cannot hold the lock files; the file is then read as
        // immutable.
        Err(_) => SqliteConnectOptions::new().filename(path).read_only(true).immutable(true).connect().await,
    }
}

/// Every metric row of one run in an MLflow database.
pub async fn mlflow_db_rows(conn: &mut sqlx::SqliteConnection, run: &str) -> Result<Vec<MetricRow>, sqlx::Error> {
    let rows = sqlx::query(r#"SELECT "key", value, timestamp, step, is_nan FROM metrics WHERE run_uuid = $1"#)
        .bind(run)
        .fetch_all(conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|r| MetricRow {
            key: r.get::<String, _>(0),
            value: r.get::<f64, _>(1),
            timestamp: r.get::<Option<i64>, _>(2).unwrap_or(0),
            step: r.get::<Option<i64>, _>(3).unwrap_or(0),
            is_nan: r.get::<Option<bool>, _>(4).unwrap_or(false),
        })
        .collect())
}

/// Split a `source_path` into the file and its fragment kind/value.
pub fn split_fragment(source_path: &str) -> (&str, Option<(&'static str, &str)>) {
    for frag in [ROW_FRAGMENT, RUN_FRAGMENT] {
        if let Some(i) = source_path.rfind(frag) {
            return (&source_path[..i], Some((frag, &source_path[i + frag.len()..])));
        }
    }
    (source_path, None)
}

/// The blake3 hex digest of the evidence behind a run's `source_path`, or `None` when
/// it no longer exists (or the record it names is gone).
pub async fn evidence(source_path: &str) -> Option<String> {
    let (file, frag) = split_fragment(source_path);
    let path = Path::new(file);
    match frag {
        None if path.is_dir() => {
            if path.join("meta.yaml").is_file() {
                return files(path, &mlflow_run_files(path));
            }
            let wandb = wandb_run_files(path);
            let rels = if wandb.is_empty() { run_dir_files(path) } else { wandb };
            if rels.is_empty() { None } else { files(path, &rels) }
        }
        None => std::fs::read(path).ok().map(|b| of_bytes(&b)),
        Some((ROW_FRAGMENT, label)) => {
            let table = parse_csv(&std::fs::read(path).ok()?).ok()?;
            let col = label_column(&table.headers)?;
            let row = table.rows.iter().find(|r| r.get(col).map(|c| c.trim()) == Some(label))?;
            Some(csv_row(&table.headers, row))
        }
        Some((_, run)) => {
            if !path.is_file() {
                return None;
            }
            let mut conn = open_tracker_db(path).await.ok()?;
            let rows = mlflow_db_rows(&mut conn, run).await.ok()?;
            if rows.is_empty() {
                return None;
            }
            Some(metric_rows(&rows))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_and_rows_rehash_identically() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.json");
        std::fs::write(&f, b"{\"wer\": 0.1}").unwrap();
        let p = f.to_str().unwrap();
        assert_eq!(evidence(p).await, Some(of_bytes(b"{\"wer\": 0.1}")));
        let csv = dir.path().join("t.csv");
        std::fs::write(&csv, "arm,wer\nb1,0.1\nb2,0.2\n").unwrap();
        let row = format!("{}#row=b2", csv.display());
        let before = evidence(&row).await.unwrap();
        std::fs::write(&csv, "arm,wer\nb1,0.15\nb2,0.2\n").unwrap();
        assert_eq!(evidence(&row).await.unwrap(), before, "another row changed, not this one");
        std::fs::write(&csv, "arm,wer\nb1,0.15\nb2,0.25\n").unwrap();
        assert_ne!(evidence(&row).await.unwrap(), before);
        assert_eq!(evidence(&format!("{}#row=b9", csv.display())).await, None);
        assert_eq!(evidence("/no/such/file").await, None);
        assert_eq!(split_fragment("/a#b/x.db#run=abc"), ("/a#b/x.db", Some((RUN_FRAGMENT, "abc"))));
    }

    /// A framework run's evidence covers every file it was read from: a change to the
    /// config beside the metrics, or to Keras's validation events, makes it differ; a
    /// file no reader reads (a checkpoint) does not.
    #[tokio::test]
    async fn run_directories_hash_every_file_read() {
        let dir = tempfile::tempdir().unwrap();
        // (layout, its files and their text, the file changed, its new text)
        type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str, &'a str);
        let cases: &[Case] = &[
            (
                "lightning",
                &[("metrics.csv", "step,val_loss\n1,0.5\n"), ("hparams.yaml", "lr: 0.1\n")],
                "hparams.yaml",
                "lr: 0.2\n",
            ),
            (
                "hf",
                &[("eval_results.json", "{}"), ("trainer_state.json", "{}"), ("training_args.json", "{}")],
                "training_args.json",
                "{\"lr\": 1}",
            ),
            (
                "sacred",
                &[("run.json", "{}"), ("config.json", "{}"), ("metrics.json", "{}")],
                "config.json",
                "{\"lr\": 1}",
            ),
            (
                "hydra",
                &[(".hydra/config.yaml", "lr: 1\n"), (".hydra/overrides.yaml", "[]\n"), ("result.json", "{}")],
                ".hydra/overrides.yaml",
                "- lr=2\n",
            ),
            (
                "keras",
                &[("train/events.out.tfevents.1.a", "x"), ("validation/events.out.tfevents.1.b", "y")],
                "validation/events.out.tfevents.1.b",
                "z",
            ),
        ];
        for (name, files_in, changed, new) in cases {
            let run = dir.path().join(name);
            for (f, text) in *files_in {
                std::fs::create_dir_all(run.join(f).parent().unwrap()).unwrap();
                std::fs::write(run.join(f), text).unwrap();
            }
            let listed: Vec<String> = run_dir_files(&run).iter().map(|p| p.display().to_string()).collect();
            let mut want: Vec<&str> = files_in.iter().map(|(f, _)| *f).collect();
            want.sort();
            let mut got: Vec<&str> = listed.iter().map(String::as_str).collect();
            got.sort();
            assert_eq!(got, want, "{name}");
            let p = run.to_str().unwrap();
            let before = evidence(p).await.unwrap();
            std::fs::create_dir_all(run.join("checkpoint-10")).unwrap();
            std::fs::write(run.join("checkpoint-10/model.safetensors"), "weights").unwrap();
            assert_eq!(evidence(p).await.unwrap(), before, "{name}: a file no reader reads");
            std::fs::write(run.join(changed), new).unwrap();
            assert_ne!(evidence(p).await.unwrap(), before, "{name}: {changed} changed");
        }
    }

    #[test]
    fn metric_rows_ignore_order() {
        let a = MetricRow { key: "a".into(), value: 1.0, timestamp: 1, step: 0, is_nan: false };
        let b = MetricRow { key: "b".into(), value: 2.0, timestamp: 1, step: 0, is_nan: false };
        assert_eq!(metric_rows(&[a.clone(), b.clone()]), metric_rows(&[b.clone(), a.clone()]));
        let c = MetricRow { value: 2.5, ..b };
        assert_ne!(metric_rows(&[a.clone(), c]), metric_rows(&[a]));
    }
}
