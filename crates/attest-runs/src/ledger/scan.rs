//! Scanning a research root into the ledger: read every project first, then write
//! all of it in one transaction.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_store::{Db, Dialect};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlx::Row;

use super::{Ledger, is_plain_name};
use crate::LedgerError;
use crate::corpus::{CorpusInfo, Manifest, Registry};
use crate::discover::{self, FileNote, Metric, Record};

/// Where a scan is, for progress displays. Return [`ControlFlow::Break`] from the
/// callback to cancel the scan; nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanProgress {
    /// The project about to be read.
    pub project: String,
    /// Its position (0-based) among the candidates.
    pub index: usize,
    /// How many candidates there are.
    pub total: usize,
    /// Runs found so far.
    pub runs_so_far: usize,
}

/// One project a scan recorded runs for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectScan {
    /// Project name.
    pub project: String,
    /// Runs recorded (results and specs).
    pub runs: usize,
    /// Of those, specs (configs with no result).
    pub specs: usize,
    /// Runs of an earlier scan that no longer exist on disk, deleted.
    pub removed: usize,
    /// Files refused or read in part, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<FileNote>,
}

/// A project directory that yielded no run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EmptyProject {
    /// Project name.
    pub project: String,
    /// What was looked for and where the files actually are.
    pub diagnostic: String,
    /// Files refused, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<FileNote>,
}

/// A file (or directory) a scan refused, skipped or read only in part, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    /// The project it is in.
    pub project: String,
    /// Its path, relative to the project directory.
    pub path: String,
    /// Why, and what to do about it.
    pub reason: String,
}

/// What a scan did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScanReport {
    /// The research root scanned.
    pub root: String,
    /// The scan's timestamp (UTC, RFC 3339), stored on every run it wrote.
    pub scanned_at: String,
    /// Runs recorded across all projects.
    pub total_runs: usize,
    /// Projects with runs.
    pub projects: Vec<ProjectScan>,
    /// Projects without, each with a diagnostic.
    pub empty: Vec<EmptyProject>,
    /// Every file the scan refused, skipped or read in part, across projects, with why
    /// (the per-project `notes`, flattened: what `attest runs scan --explain` lists).
    #[serde(default)]
    pub skipped: Vec<SkippedFile>,
    /// One line saying what happened.
    pub message: String,
}

impl ScanReport {
    /// Whether the scan found no run at all.
    pub fn found_nothing(&self) -> bool {
        self.total_runs == 0
    }
}

const RUN_BINDS: usize = 14;
/// Parameters per multi-row `INSERT`. Small on purpose: sqlx binds each `$N` by asking
/// SQLite for every parameter's name, and SQLite finds a name by walking a list, so a
/// statement of K parameters costs K² (at 30,000 a first scan of 2,000,000 metric rows,
/// then one row each, took minutes, all in `sqlite3_bind_parameter_name`); the
/// statement text of a full chunk repeats, so sqlx prepares it once. Curves are written
/// the same way, 20 to a statement ([`super::curve::insert`]).
const MAX_BINDS: usize = 100;

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

fn non_hidden_subdirs(root: &Path) -> Vec<PathBuf> {
    projects_of(root).0
}

/// The root's projects: its non-hidden subdirectories, and links to directories that
/// stay inside the root ([`attest_claims::confine`]); then, apart, the links to
/// directories that lead out of it, which a scan reports and never reads.
fn projects_of(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut inside, mut outside) = (Vec::new(), Vec::new());
    let Ok(rd) = std::fs::read_dir(root) else { return (inside, outside) };
    let root_c = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for e in rd.flatten() {
        if e.file_name().to_string_lossy().starts_with('.') || !e.path().is_dir() {
            continue;
        }
        let link = e.file_type().is_ok_and(|t| t.is_symlink());
        if !link || attest_claims::confine::inside(&root_c, &e.path()) {
            inside.push(e.path());
        } else {
            outside.push(e.path());
        }
    }
    inside.sort();
    outside.sort();
    (inside, outside)
}

/// Why a project that is a link out of the root was not read.
fn outside_diagnostic(dir: &Path) -> String {
    let to = dir.canonicalize().map(|p| p.display().to_string()).unwrap_or_else(|_| "nowhere".into());
    format!(
        "not read: it is a symbolic link to {to}, outside the research root, and a scan reads only inside the root; move or copy the project into the root, or scan with that directory as the root"
    )
}

impl Ledger {
    /// Read `root` (every non-hidden subdirectory is a project; the root itself too,
    /// when it holds results directly), or only `root/<project>`, and replace those
    /// projects' rows in one transaction.
    pub async fn scan<F>(&self, root: &Path, project: Option<&str>, mut progress: F) -> Result<ScanReport, LedgerError>
    where
        F: FnMut(&ScanProgress) -> ControlFlow<()>,
    {
        if !root.is_dir() {
            return Err(LedgerError::refused(format!(
                "no such directory: {} -- pass the directory that holds your projects as the root (or set RESEARCH_ROOT)",
                root.display()
            )));
        }
        let root = std::path::absolute(root).map_err(|source| LedgerError::Io { path: root.into(), source })?;
        let manifest = Manifest::load(&root)?;
        let declared = discover::declared::Declared::load(&root).map_err(LedgerError::refused)?;
        let root_name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".into());
        // (name, dir, is_fallback)
        let mut candidates: Vec<(String, PathBuf, bool)> = Vec::new();
        // Projects that are links out of the root: reported, never read or written.
        let mut outside: Vec<(String, EmptyProject)> = Vec::new();
        match project {
            Some(p) => {
                let dir = root.join(p);
                if is_plain_name(p) && dir.is_dir() && !projects_of(&root).0.contains(&dir) {
                    return Err(LedgerError::refused(format!("project '{p}' {}", outside_diagnostic(&dir))));
                }
                if !is_plain_name(p) || !dir.is_dir() {
                    let have: Vec<String> = non_hidden_subdirs(&root)
                        .iter()
                        .filter_map(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                        .collect();
                    return Err(LedgerError::refused(format!(
                        "no project directory '{p}' under {}; projects are its subdirectories: {}",
                        root.display(),
                        if have.is_empty() { "(none)".to_string() } else { have.join(", ") }
                    )));
                }
                candidates.push((p.to_string(), dir, false));
            }
            None => {
                candidates.push((root_name.clone(), root.clone(), true));
                let (projects, links_out) = projects_of(&root);
                for d in links_out {
                    let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    outside.push((
                        name.clone(),
                        EmptyProject { project: name, diagnostic: outside_diagnostic(&d), notes: Vec::new() },
                    ));
                }
                for d in projects {
                    let name = d.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    candidates.push((name, d, false));
                }
            }
        }

        let scanned_at = now_rfc3339();
        let total = candidates.len();
        let mut consumed: Vec<String> = Vec::new();
        let mut found: Vec<(String, PathBuf, discover::Discovery)> = Vec::new();
        let mut empty: Vec<(String, PathBuf, EmptyProject)> = Vec::new();
        let mut runs_so_far = 0;
        for (index, (name, dir, fallback)) in candidates.into_iter().enumerate() {
            let p = ScanProgress { project: name.clone(), index, total, runs_so_far };
            if progress(&p).is_break() {
                return Err(LedgerError::refused("scan cancelled; nothing was written"));
            }
            let mut d = discover::discover_with(&dir, !fallback).await;
            declared.apply(&name, &mut d.records);
            if d.records.is_empty() {
                if fallback || consumed.contains(&name) {
                    continue;
                }
                let diagnostic = discover::diagnose_empty(&dir);
                empty.push((name.clone(), dir, EmptyProject { project: name, diagnostic, notes: d.notes }));
                continue;
            }
            if fallback {
                for r in &d.records {
                    let (file, _) = crate::hash::split_fragment(&r.source_path);
                    if let Ok(rel) = Path::new(file).strip_prefix(&root)
                        && let Some(first) = rel.components().next()
                    {
                        consumed.push(first.as_os_str().to_string_lossy().into_owned());
                    }
                }
                // A subdirectory already listed as a candidate whose files the root
                // consumed is not also a project.
            }
            runs_so_far += d.records.len();
            found.push((name, dir, d));
        }
        empty.retain(|(name, _, _)| !consumed.contains(name));

        // Corpora: the manifest's definitions first, then what artifacts say.
        let mut registry = Registry::default();
        for info in manifest.corpora.values() {
            registry.add(info, "corpora.toml");
        }
        let mut linked: Vec<Vec<Option<String>>> = Vec::new();
        for (_, dir, d) in &found {
            let mut names = Vec::new();
            for r in &d.records {
                let origin = crate::hash::split_fragment(&r.source_path).0;
                let origin = Path::new(origin)
                    .strip_prefix(dir)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| origin.to_string());
                if let Some(c) = &r.corpus {
                    registry.add(c, &origin);
                }
                let name = manifest
                    .assigned(&r.name, r.family.as_deref())
                    .map(str::to_string)
                    .or_else(|| r.corpus.as_ref().map(|c| c.name.clone()));
                if let Some(n) = &name
                    && r.corpus.as_ref().is_none_or(|c| &c.name != n)
                {
                    registry.add(&CorpusInfo { name: n.clone(), ..Default::default() }, "corpora.toml");
                }
                names.push(name);
            }
            linked.push(names);
        }

        // Two scans of one ledger (two people scanning one project) write one after the
        // other, never interleaved.
        let mut tx = self.store.begin_write("ledger").await?;
        let dialect = self.store.dialect();
        let mut projects_out = Vec::new();
        let mut total_runs = 0;
        for ((name, dir, d), corpora) in found.into_iter().zip(linked) {
            let removed = write_project(&mut tx, dialect, &name, &d.records, &corpora, &scanned_at).await?;
            sqlx::query(
                "INSERT INTO projects (name, dir, root, n_runs, diagnostic, scanned_at) VALUES ($1, $2, $3, $4, NULL, $5) \
                 ON CONFLICT (name) DO UPDATE SET dir = excluded.dir, root = excluded.root, n_runs = excluded.n_runs, diagnostic = NULL, scanned_at = excluded.scanned_at",
            )
            .bind(&name)
            .bind(dir.to_string_lossy().into_owned())
            .bind(root.to_string_lossy().into_owned())
            .bind(d.records.len() as i64)
            .bind(&scanned_at)
            .execute(&mut *tx)
            .await?;
            total_runs += d.records.len();
            let specs = d.records.iter().filter(|r| r.status == discover::RunStatus::Spec).count();
            projects_out.push(ProjectScan { project: name, runs: d.records.len(), specs, removed, notes: d.notes });
        }
        let mut empty_out = Vec::new();
        for (name, dir, e) in empty {
            // The directory is there and holds no run now: its old rows are gone too.
            sqlx::query("DELETE FROM runs WHERE project = $1").bind(&name).execute(&mut *tx).await?;
            sqlx::query(
                "INSERT INTO projects (name, dir, root, n_runs, diagnostic, scanned_at) VALUES ($1, $2, $3, 0, $4, $5) \
                 ON CONFLICT (name) DO UPDATE SET dir = excluded.dir, root = excluded.root, n_runs = 0, diagnostic = excluded.diagnostic, scanned_at = excluded.scanned_at",
            )
            .bind(&name)
            .bind(dir.to_string_lossy().into_owned())
            .bind(root.to_string_lossy().into_owned())
            .bind(&e.diagnostic)
            .bind(&scanned_at)
            .execute(&mut *tx)
            .await?;
            empty_out.push(e);
        }
        // Links out of the root: said, and their ledger rows left as they were.
        empty_out.extend(outside.into_iter().map(|(_, e)| e));
        for (info, contested) in registry.into_entries() {
            sqlx::query(
                "INSERT INTO corpora (name, source, config, tokenizer, vocab_size, seq_len, contested) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (name) DO UPDATE SET source = excluded.source, config = excluded.config, tokenizer = excluded.tokenizer, \
                 vocab_size = excluded.vocab_size, seq_len = excluded.seq_len, contested = excluded.contested",
            )
            .bind(&info.name)
            .bind(&info.source)
            .bind(&info.config)
            .bind(&info.tokenizer)
            .bind(info.vocab_size)
            .bind(info.seq_len)
            .bind(contested)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        let skipped: Vec<SkippedFile> = projects_out
            .iter()
            .map(|p| (&p.project, &p.notes))
            .chain(empty_out.iter().map(|e| (&e.project, &e.notes)))
            .flat_map(|(project, notes)| {
                notes.iter().map(move |n| SkippedFile {
                    project: project.clone(),
                    path: n.path.clone(),
                    reason: n.note.clone(),
                })
            })
            .collect();

        let message = if total_runs == 0 {
            let why: Vec<String> = empty_out.iter().map(|e| format!("{}: {}", e.project, e.diagnostic)).collect();
            format!(
                "found no runs under {}{}",
                root.display(),
                if why.is_empty() {
                    " -- it has no project subdirectories and no results/ of its own; projects are subdirectories holding results/ (or logs/, outputs/, metrics/), configs/, mlruns/, mlflow.db, wandb/, or the directories training frameworks write (Trainer output directories, lightning_logs/, Sacred runs, Hydra multirun/)".to_string()
                } else {
                    format!(". {}", why.join(". "))
                }
            )
        } else {
            let mut m = format!(
                "{} across {}",
                attest_core::text::plural(total_runs, "run", "runs"),
                attest_core::text::plural(projects_out.len(), "project", "projects")
            );
            if !empty_out.is_empty() {
                let names: Vec<&str> = empty_out.iter().map(|e| e.project.as_str()).collect();
                m += &format!("; nothing recognised in {}", names.join(", "));
            }
            m
        };
        Ok(ScanReport {
            root: root.display().to_string(),
            scanned_at,
            total_runs,
            projects: projects_out,
            empty: empty_out,
            skipped,
            message,
        })
    }
}

/// The digest of a run's metric rows in order (name, value bits, step, split), stored
/// with the run so a rescan rewrites only runs whose rows changed.
fn metrics_digest(metrics: &[Metric]) -> String {
    let mut buf: Vec<u8> = Vec::with_capacity(metrics.len() * 40);
    for m in metrics {
        buf.extend_from_slice(m.metric.as_bytes());
        buf.push(0);
        buf.extend_from_slice(&m.value.to_bits().to_le_bytes());
        match m.step {
            Some(s) => {
                buf.push(1);
                buf.extend_from_slice(&s.to_le_bytes());
            }
            None => buf.push(0),
        }
        buf.extend_from_slice(m.split.as_deref().unwrap_or("").as_bytes());
        buf.push(0xff);
    }
    crate::hash::of_bytes(&buf)
}

/// One column of a project's runs by run name: `sql` selects the name and the column,
/// with the project as `$1`.
async fn by_name<T>(
    tx: &mut sqlx::Transaction<'_, Db>,
    project: &str,
    sql: &'static str,
) -> Result<HashMap<String, T>, sqlx::Error>
where
    T: for<'r> sqlx::Decode<'r, Db> + sqlx::Type<Db>,
{
    let rows = sqlx::query(sql).bind(project).fetch_all(&mut **tx).await?;
    Ok(rows.into_iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Replace one project's rows; returns how many runs vanished. A run's metric rows
/// are rewritten only when their digest differs from the stored one.
async fn write_project(
    tx: &mut sqlx::Transaction<'_, Db>,
    dialect: Dialect,
    project: &str,
    records: &[Record],
    corpora: &[Option<String>],
    scanned_at: &str,
) -> Result<usize, LedgerError> {
    let names: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
    let removed =
        sqlx::query(&format!("DELETE FROM runs WHERE project = $1 AND name NOT IN ({})", dialect.json_texts(2)))
            .bind(project)
            .bind(serde_json::to_string(&names).unwrap_or_default())
            .execute(&mut **tx)
            .await?
            .rows_affected() as usize;
    // What each run's metric rows were when last written: unchanged runs keep theirs.
    let before: HashMap<String, Option<String>> =
        by_name(tx, project, "SELECT name, metrics_digest FROM runs WHERE project = $1").await?;
    let digests: Vec<String> = records.iter().map(|r| metrics_digest(&r.metrics)).collect();
    let per = MAX_BINDS / RUN_BINDS;
    for ((chunk, corp), dig) in records.chunks(per).zip(corpora.chunks(per)).zip(digests.chunks(per)) {
        let sql = format!(
            "INSERT INTO runs (project, name, family, status, adapter, started, source_path, source_hash, config_json, notes, corpus, caveats, scanned_at, metrics_digest) \
             VALUES {} \
             ON CONFLICT (project, name) DO UPDATE SET family = excluded.family, status = excluded.status, adapter = excluded.adapter, \
             started = excluded.started, source_path = excluded.source_path, source_hash = excluded.source_hash, config_json = excluded.config_json, \
             notes = excluded.notes, corpus = excluded.corpus, caveats = excluded.caveats, scanned_at = excluded.scanned_at, \
             metrics_digest = excluded.metrics_digest",
            attest_store::values_list(chunk.len(), RUN_BINDS)
        );
        let mut q = sqlx::query(&sql);
        for ((r, c), d) in chunk.iter().zip(corp).zip(dig) {
            q = q
                .bind(project)
                .bind(r.name.as_str())
                .bind(r.family.as_deref())
                .bind(r.status.as_str())
                .bind(r.adapter.as_str())
                .bind(r.started.as_deref())
                .bind(r.source_path.as_str())
                .bind(r.source_hash.as_deref())
                .bind(r.config.as_ref().map(|c| c.to_string()))
                .bind(r.notes.as_deref())
                .bind(c.as_deref())
                .bind((!r.caveats.is_empty()).then(|| serde_json::to_string(&r.caveats).unwrap_or_default()))
                .bind(scanned_at)
                .bind(d.as_str());
        }
        q.execute(&mut **tx).await?;
    }
    let ids: HashMap<String, i64> = by_name(tx, project, "SELECT name, id FROM runs WHERE project = $1").await?;
    // Only runs whose rows changed (or are new) are rewritten.
    let changed: Vec<(i64, &Record)> = records
        .iter()
        .zip(&digests)
        .filter(|(r, d)| before.get(&r.name).is_none_or(|old| old.as_deref() != Some(d.as_str())))
        .filter_map(|(r, _)| ids.get(&r.name).map(|id| (*id, r)))
        .collect();
    if changed.is_empty() {
        return Ok(removed);
    }
    let changed_ids: Vec<i64> = changed.iter().map(|(id, _)| *id).collect();
    sqlx::query(&format!("DELETE FROM run_curves WHERE run_id IN ({})", dialect.json_ints(1)))
        .bind(serde_json::to_string(&changed_ids).unwrap_or_default())
        .execute(&mut **tx)
        .await?;
    let rows: Vec<(i64, &[Metric])> = changed.iter().map(|(id, r)| (*id, r.metrics.as_slice())).collect();
    super::curve::insert(tx, &rows).await?;
    Ok(removed)
}
