//! The run ledger: scan, list, detail, compare and record, over an
//! [`attest_store::Store`].
//!
//! A scan reads every project directory first (no database work), then writes all
//! of it in one transaction: nothing is half-written when a scan fails or is
//! cancelled. Run ids survive rescans: a run is upserted by `(project, name)`, runs
//! that vanished from a rescanned project are deleted, and metric rows are replaced.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_store::{Db, Store};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{QueryBuilder, Row};

use crate::LedgerError;
use crate::compare::{self, ArmRun, Comparison};
use crate::corpus::{CorpusInfo, Manifest, Registry};
use crate::direction::{self, Direction, Directions};
use crate::discover::{self, Adapter, FileNote, Metric, Record, RunCaveat};
use crate::family::family_of;

/// How a ledger finds what it needs beyond the database.
#[derive(Debug, Clone, Default)]
pub struct LedgerOptions {
    /// An explicit metric-direction file (`ATTEST_METRIC_DIRECTIONS`); it replaces the
    /// research root's `metric_directions.toml`.
    pub metric_directions: Option<PathBuf>,
    /// The research root, used for the directions file when a project's own root is
    /// not known from a scan.
    pub root: Option<PathBuf>,
}

/// The run ledger.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: Store,
    opts: LedgerOptions,
}

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
    /// One line saying what happened.
    pub message: String,
}

impl ScanReport {
    /// Whether the scan found no run at all.
    pub fn found_nothing(&self) -> bool {
        self.total_runs == 0
    }
}

/// A run as listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunSummary {
    /// Ledger id (stable across rescans).
    pub id: i64,
    /// Project.
    pub project: String,
    /// Run name.
    pub name: String,
    /// Family, if any.
    pub family: Option<String>,
    /// `recorded` or `spec`.
    pub status: String,
    /// Reader.
    pub adapter: String,
    /// Tracker start time.
    pub started: Option<String>,
    /// Evidence path.
    pub source_path: String,
}

/// How many runs a family has in a project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FamilyCount {
    /// Project.
    pub project: String,
    /// Family.
    pub family: String,
    /// Runs in it.
    pub n: i64,
}

/// A page of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunList {
    /// The runs shown.
    pub runs: Vec<RunSummary>,
    /// How many runs match in all.
    pub total: i64,
    /// Up to eight families (largest first) among the matching runs.
    pub families: Vec<FamilyCount>,
    /// How many families match in all.
    pub n_families: i64,
}

/// One metric row of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetricRow {
    /// Metric name.
    pub metric: String,
    /// Value.
    pub value: f64,
    /// Step.
    pub step: Option<i64>,
    /// Split (`None` when unlabelled).
    pub split: Option<String>,
}

/// Everything recorded about one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunDetail {
    /// Ledger id.
    pub id: i64,
    /// Project.
    pub project: String,
    /// Run name.
    pub name: String,
    /// Family.
    pub family: Option<String>,
    /// `recorded` or `spec`.
    pub status: String,
    /// Reader.
    pub adapter: String,
    /// Tracker start time.
    pub started: Option<String>,
    /// Evidence path (with `#row=`/`#run=` for a record inside a file).
    pub source_path: String,
    /// blake3 of the evidence at scan time.
    pub source_hash: Option<String>,
    /// Configuration.
    pub config: Option<Value>,
    /// Notes (a spec's header comment, a tracker status).
    pub notes: Option<String>,
    /// Corpus.
    pub corpus: Option<String>,
    /// When it was scanned.
    pub scanned_at: String,
    /// Metric rows, ordered by metric, step.
    pub metrics: Vec<MetricRow>,
    /// What to know about its numbers: the reader's caveat and the run's own.
    pub caveats: Vec<String>,
}

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

const RUN_BINDS: usize = 13;
const METRIC_BINDS: usize = 5;
const MAX_BINDS: usize = 30_000;

fn is_plain_name(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && !s.contains(['/', '\\']) && s != ".."
}

fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .replace_nanosecond(0)
        .ok()
        .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_default()
}

fn non_hidden_subdirs(root: &Path) -> Vec<PathBuf> {
    discover::sorted_entries(root).into_iter().filter(|p| p.is_dir()).collect()
}

fn opt_split(s: String) -> Option<String> {
    (!s.is_empty()).then_some(s)
}

impl Ledger {
    /// A ledger over an open store.
    pub fn new(store: Store, opts: LedgerOptions) -> Ledger {
        Ledger { store, opts }
    }

    /// The store underneath.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The options in effect.
    pub fn options(&self) -> &LedgerOptions {
        &self.opts
    }

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
        let root_name = root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "root".into());
        // (name, dir, is_fallback)
        let mut candidates: Vec<(String, PathBuf, bool)> = Vec::new();
        match project {
            Some(p) => {
                let dir = root.join(p);
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
                for d in non_hidden_subdirs(&root) {
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
            let d = discover::discover(&dir).await;
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

        let mut tx = self.store.pool().begin().await?;
        let mut projects_out = Vec::new();
        let mut total_runs = 0;
        for ((name, dir, d), corpora) in found.into_iter().zip(linked) {
            let removed = write_project(&mut tx, &name, &d.records, &corpora, &scanned_at).await?;
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

        let message = if total_runs == 0 {
            let why: Vec<String> = empty_out.iter().map(|e| format!("{}: {}", e.project, e.diagnostic)).collect();
            format!(
                "found no runs under {}{}",
                root.display(),
                if why.is_empty() {
                    " -- it has no project subdirectories and no results/ of its own; projects are subdirectories holding results/ (or logs/, outputs/, metrics/), configs/, mlruns/, mlflow.db or wandb/".to_string()
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
            message,
        })
    }

    /// Runs, newest scan's view: filtered by project and/or family, or (unfiltered)
    /// taken round-robin across projects so one big project does not hide the rest.
    pub async fn list(
        &self,
        project: Option<&str>,
        family: Option<&str>,
        limit: usize,
    ) -> Result<RunList, LedgerError> {
        let limit = limit.clamp(1, 1000) as i64;
        let filter = "($1 IS NULL OR project = $1) AND ($2 IS NULL OR family = $2)";
        let cols = "id, project, name, family, status, adapter, started, source_path";
        let sql = if project.is_none() && family.is_none() {
            format!(
                "SELECT {cols} FROM (SELECT {cols}, ROW_NUMBER() OVER (PARTITION BY project ORDER BY family, name) AS rn FROM runs WHERE {filter}) \
                 ORDER BY rn, project LIMIT $3"
            )
        } else {
            format!("SELECT {cols} FROM runs WHERE {filter} ORDER BY project, family, name LIMIT $3")
        };
        let rows = sqlx::query(&sql).bind(project).bind(family).bind(limit).fetch_all(self.store.pool()).await?;
        let runs = rows
            .into_iter()
            .map(|r| RunSummary {
                id: r.get(0),
                project: r.get(1),
                name: r.get(2),
                family: r.get(3),
                status: r.get(4),
                adapter: r.get(5),
                started: r.get(6),
                source_path: r.get(7),
            })
            .collect();
        let total: i64 = sqlx::query(&format!("SELECT count(*) FROM runs WHERE {filter}"))
            .bind(project)
            .bind(family)
            .fetch_one(self.store.pool())
            .await?
            .get(0);
        let fams = self.family_counts(project, family).await?;
        let n_families = fams.len() as i64;
        Ok(RunList { runs, total, families: fams.into_iter().take(8).collect(), n_families })
    }

    async fn family_counts(
        &self,
        project: Option<&str>,
        family: Option<&str>,
    ) -> Result<Vec<FamilyCount>, LedgerError> {
        let rows = sqlx::query(
            "SELECT project, family, count(*) AS n FROM runs WHERE family IS NOT NULL AND ($1 IS NULL OR project = $1) \
             AND ($2 IS NULL OR family = $2) GROUP BY project, family ORDER BY n DESC, family, project",
        )
        .bind(project)
        .bind(family)
        .fetch_all(self.store.pool())
        .await?;
        Ok(rows.into_iter().map(|r| FamilyCount { project: r.get(0), family: r.get(1), n: r.get(2) }).collect())
    }

    /// Families with their run counts, largest first.
    pub async fn families(&self, project: Option<&str>) -> Result<Vec<FamilyCount>, LedgerError> {
        self.family_counts(project, None).await
    }

    /// Everything recorded about one run; a refusal naming close matches when absent.
    pub async fn detail(&self, project: &str, name: &str) -> Result<RunDetail, LedgerError> {
        let row = sqlx::query(
            "SELECT id, project, name, family, status, adapter, started, source_path, source_hash, config_json, notes, corpus, scanned_at, caveats \
             FROM runs WHERE project = $1 AND name = $2",
        )
        .bind(project)
        .bind(name)
        .fetch_optional(self.store.pool())
        .await?;
        let Some(r) = row else {
            return Err(LedgerError::refused(self.not_found(project, name).await?));
        };
        let id: i64 = r.get(0);
        let metrics = sqlx::query(
            "SELECT metric, value, step, split FROM run_metrics WHERE run_id = $1 ORDER BY metric, step, split",
        )
        .bind(id)
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .map(|m| MetricRow { metric: m.get(0), value: m.get(1), step: m.get(2), split: opt_split(m.get(3)) })
        .collect();
        let adapter: String = r.get(5);
        let mut caveats: Vec<String> =
            Adapter::parse(&adapter).and_then(Adapter::caveat).map(str::to_string).into_iter().collect();
        let run_cav: Vec<RunCaveat> =
            r.get::<Option<String>, _>(13).and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default();
        caveats.extend(run_cav.into_iter().map(|c| c.text));
        Ok(RunDetail {
            id,
            project: r.get(1),
            name: r.get(2),
            family: r.get(3),
            status: r.get(4),
            adapter,
            started: r.get(6),
            source_path: r.get(7),
            source_hash: r.get(8),
            config: r.get::<Option<String>, _>(9).and_then(|s| serde_json::from_str(&s).ok()),
            notes: r.get(10),
            corpus: r.get(11),
            scanned_at: r.get(12),
            metrics,
            caveats,
        })
    }

    async fn not_found(&self, project: &str, name: &str) -> Result<String, LedgerError> {
        let in_project: i64 = sqlx::query("SELECT count(*) FROM runs WHERE project = $1")
            .bind(project)
            .fetch_one(self.store.pool())
            .await?
            .get(0);
        if in_project == 0 {
            let projects: Vec<String> = sqlx::query("SELECT DISTINCT project FROM runs ORDER BY project LIMIT 10")
                .fetch_all(self.store.pool())
                .await?
                .into_iter()
                .map(|r| r.get(0))
                .collect();
            return Ok(if projects.is_empty() {
                "the ledger is empty: scan the research root first (runs.scan), then ask again".to_string()
            } else {
                format!("no project '{project}' in the ledger; projects: {}", projects.join(", "))
            });
        }
        let fam = family_of(name.rsplit('/').next().unwrap_or(name));
        let close: Vec<String> = sqlx::query(
            "SELECT name FROM runs WHERE project = $1 AND (instr(name, $2) > 0 OR instr($2, name) > 0 OR family = $3) ORDER BY name LIMIT 6",
        )
        .bind(project)
        .bind(name)
        .bind(fam)
        .fetch_all(self.store.pool())
        .await?
        .into_iter()
        .map(|r| r.get(0))
        .collect();
        Ok(format!(
            "no run '{name}' in project '{project}'{}",
            if close.is_empty() {
                "; runs.list shows what it holds".to_string()
            } else {
                format!("; close matches: {}", close.join(", "))
            }
        ))
    }

    /// The directions that apply to a project: the explicit file, else its research
    /// root's `metric_directions.toml`.
    pub async fn directions(&self, project: Option<&str>) -> Result<Directions, LedgerError> {
        let mut root = self.opts.root.clone();
        if let Some(p) = project {
            let r: Option<String> = sqlx::query("SELECT root FROM projects WHERE name = $1")
                .bind(p)
                .fetch_optional(self.store.pool())
                .await?
                .map(|r| r.get(0));
            if let Some(r) = r {
                root = Some(PathBuf::from(r));
            }
        }
        Directions::load(self.opts.metric_directions.as_deref(), root.as_deref())
    }

    /// Rank a family's arms by `metric` (or the picked one), with every caveat.
    pub async fn compare(
        &self,
        family: &str,
        metric: Option<&str>,
        project: Option<&str>,
    ) -> Result<Comparison, LedgerError> {
        let rows = sqlx::query(
            "SELECT r.id, r.project, r.name, r.status, r.adapter, r.source_path, r.corpus, c.contested, r.caveats \
             FROM runs r LEFT JOIN corpora c ON c.name = r.corpus WHERE r.family = $1 AND ($2 IS NULL OR r.project = $2) ORDER BY r.name",
        )
        .bind(family)
        .bind(project)
        .fetch_all(self.store.pool())
        .await?;
        if rows.is_empty() {
            return Err(LedgerError::refused(self.no_family(family, project).await?));
        }
        let mut runs: Vec<ArmRun> = rows
            .into_iter()
            .map(|r| ArmRun {
                id: r.get(0),
                project: r.get(1),
                name: r.get(2),
                status: r.get(3),
                adapter: Adapter::parse(&r.get::<String, _>(4)).unwrap_or(Adapter::Generic),
                source_path: r.get(5),
                corpus: r.get(6),
                corpus_contested: r.get(7),
                caveats: r.get::<Option<String>, _>(8).and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default(),
                metrics: Vec::new(),
            })
            .collect();
        let index: HashMap<i64, usize> = runs.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        let metric_rows = sqlx::query(
            "SELECT m.run_id, m.metric, m.value, m.step, m.split FROM run_metrics m JOIN runs r ON r.id = m.run_id \
             WHERE r.family = $1 AND ($2 IS NULL OR r.project = $2) ORDER BY m.rowid",
        )
        .bind(family)
        .bind(project)
        .fetch_all(self.store.pool())
        .await?;
        for m in metric_rows {
            if let Some(&i) = index.get(&m.get::<i64, _>(0)) {
                runs[i].metrics.push(Metric {
                    metric: m.get(1),
                    value: m.get(2),
                    step: m.get(3),
                    split: opt_split(m.get(4)),
                });
            }
        }
        let only_project = {
            let mut ps: Vec<&str> = runs.iter().map(|r| r.project.as_str()).collect();
            ps.dedup();
            (ps.len() == 1).then(|| ps[0].to_string())
        };
        let directions = self.directions(only_project.as_deref().or(project)).await?;
        compare::compare(family, &runs, metric, &directions).map_err(LedgerError::Refused)
    }

    async fn no_family(&self, family: &str, project: Option<&str>) -> Result<String, LedgerError> {
        let pool = self.store.pool();
        let total: i64 = sqlx::query("SELECT count(*) FROM runs").fetch_one(pool).await?.get(0);
        if total == 0 {
            return Ok("the ledger is empty: no runs have been read yet. Scan the research root (runs.scan) to read the artifacts already on disk, then list the families it found (runs.list)".into());
        }
        let families: Vec<String> =
            sqlx::query("SELECT DISTINCT family FROM runs WHERE family IS NOT NULL ORDER BY family")
                .fetch_all(pool)
                .await?
                .into_iter()
                .map(|r| r.get(0))
                .collect();
        let as_project: i64 =
            sqlx::query("SELECT count(*) FROM runs WHERE project = $1").bind(family).fetch_one(pool).await?.get(0);
        let mut msg = if as_project > 0 {
            format!(
                "no family '{family}', but it is a project with {}; families group arms by a shared file-name prefix, not by project",
                attest_core::text::plural(as_project as usize, "run", "runs")
            )
        } else if let Some(p) = project {
            let elsewhere: Vec<String> =
                sqlx::query("SELECT DISTINCT project FROM runs WHERE family = $1 ORDER BY project")
                    .bind(family)
                    .fetch_all(pool)
                    .await?
                    .into_iter()
                    .map(|r| r.get(0))
                    .collect();
            if elsewhere.is_empty() {
                format!("no family '{family}' in project '{p}'")
            } else {
                format!("family '{family}' exists, but not in project '{p}'; it is in: {}", elsewhere.join(", "))
            }
        } else if families.is_empty() {
            format!(
                "no family '{family}', and no run has one: families come from a shared file-name prefix, so name arms like asr_baseline and asr_biglm to compare them as a unit"
            )
        } else {
            format!("no family '{family}'")
        };
        if !families.is_empty() {
            let more = families.len().saturating_sub(20);
            msg += &format!(
                ". Families: {}{}",
                families.iter().take(20).cloned().collect::<Vec<_>>().join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            );
        }
        Ok(msg)
    }

    /// The one family named as a whole word in `text` (no letter, digit, `_` or `-`
    /// touching it), if exactly one is.
    pub async fn family_named_in(&self, text: &str) -> Result<Option<String>, LedgerError> {
        let lower = text.to_lowercase();
        let fams: Vec<String> = sqlx::query("SELECT DISTINCT family FROM runs WHERE family IS NOT NULL")
            .fetch_all(self.store.pool())
            .await?
            .into_iter()
            .map(|r| r.get(0))
            .collect();
        let hits: Vec<String> =
            fams.into_iter().filter(|f| direction::contains_word(&lower, &f.to_lowercase())).collect();
        Ok(if hits.len() == 1 { hits.into_iter().next() } else { None })
    }

    /// The one run named in `text` — a token containing `_`, `-` or `/` that is
    /// exactly some run's name — as `(project, name)`, if exactly one run matches.
    pub async fn run_named_in(&self, text: &str) -> Result<Option<(String, String)>, LedgerError> {
        let mut tokens: Vec<String> = text
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
            .map(|t| t.trim_end_matches(['.', '/', '-']).to_string())
            .filter(|t| t.contains(['_', '-', '/']) && t.chars().next().is_some_and(char::is_alphanumeric))
            .collect();
        tokens.sort();
        tokens.dedup();
        if tokens.is_empty() {
            return Ok(None);
        }
        let json = serde_json::to_string(&tokens).unwrap_or_default();
        let rows =
            sqlx::query("SELECT project, name FROM runs WHERE name IN (SELECT value FROM json_each($1)) LIMIT 2")
                .bind(json)
                .fetch_all(self.store.pool())
                .await?;
        Ok(if rows.len() == 1 { Some((rows[0].get(0), rows[0].get(1))) } else { None })
    }

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
        let results = req.root.join(&req.project).join("results");
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
        std::fs::create_dir_all(&results).map_err(|source| LedgerError::Io { path: results.clone(), source })?;
        let mut written: Vec<PathBuf> = Vec::new();
        let undo = |written: &[PathBuf]| {
            for w in written {
                let _ = std::fs::remove_file(w);
            }
        };
        for f in &files {
            let p = PathBuf::from(&f.path);
            let res = std::fs::OpenOptions::new().write(true).create_new(true).open(&p).and_then(|mut h| {
                use std::io::Write;
                h.write_all(f.content.as_bytes())
            });
            if let Err(source) = res {
                undo(&written);
                return Err(LedgerError::Io { path: p, source });
            }
            written.push(p);
        }
        if !declared.is_empty() {
            let Some(target) = dirs.declare_in().map(Path::to_path_buf) else {
                undo(&written);
                return Err(LedgerError::refused(
                    "no file to declare directions in: set ATTEST_METRIC_DIRECTIONS or pass a research root",
                ));
            };
            let existing = std::fs::read_to_string(&target).ok();
            let text = direction::with_declarations(existing.as_deref(), &declared);
            if let Err(source) = std::fs::write(&target, text) {
                undo(&written);
                return Err(LedgerError::Io { path: target, source });
            }
        }
        self.scan(&req.root, Some(&req.project), |_| ControlFlow::Continue(())).await?;
        let (comparison, compare_refusal) = match self.compare(family, None, Some(&req.project)).await {
            Ok(c) => (Some(c), None),
            Err(LedgerError::Refused(m)) => (None, Some(m)),
            Err(e) => return Err(e),
        };
        Ok(RecordOutcome { written: true, files, declared, directions_file, comparison, compare_refusal })
    }
}

/// Replace one project's rows; returns how many runs vanished.
async fn write_project(
    tx: &mut sqlx::Transaction<'_, Db>,
    project: &str,
    records: &[Record],
    corpora: &[Option<String>],
    scanned_at: &str,
) -> Result<usize, LedgerError> {
    let names: Vec<&str> = records.iter().map(|r| r.name.as_str()).collect();
    let removed = sqlx::query("DELETE FROM runs WHERE project = $1 AND name NOT IN (SELECT value FROM json_each($2))")
        .bind(project)
        .bind(serde_json::to_string(&names).unwrap_or_default())
        .execute(&mut **tx)
        .await?
        .rows_affected() as usize;
    let per = MAX_BINDS / RUN_BINDS;
    for (chunk, corp) in records.chunks(per).zip(corpora.chunks(per)) {
        let mut qb = QueryBuilder::<Db>::new(
            "INSERT INTO runs (project, name, family, status, adapter, started, source_path, source_hash, config_json, notes, corpus, caveats, scanned_at) ",
        );
        qb.push_values(chunk.iter().zip(corp), |mut b, (r, c)| {
            b.push_bind(project)
                .push_bind(r.name.clone())
                .push_bind(r.family.clone())
                .push_bind(r.status.as_str())
                .push_bind(r.adapter.as_str())
                .push_bind(r.started.clone())
                .push_bind(r.source_path.clone())
                .push_bind(r.source_hash.clone())
                .push_bind(r.config.as_ref().map(|c| c.to_string()))
                .push_bind(r.notes.clone())
                .push_bind(c.clone())
                .push_bind((!r.caveats.is_empty()).then(|| serde_json::to_string(&r.caveats).unwrap_or_default()))
                .push_bind(scanned_at.to_string());
        });
        qb.push(
            " ON CONFLICT (project, name) DO UPDATE SET family = excluded.family, status = excluded.status, adapter = excluded.adapter, \
             started = excluded.started, source_path = excluded.source_path, source_hash = excluded.source_hash, config_json = excluded.config_json, \
             notes = excluded.notes, corpus = excluded.corpus, caveats = excluded.caveats, scanned_at = excluded.scanned_at",
        );
        qb.build().execute(&mut **tx).await?;
    }
    let ids: HashMap<String, i64> = sqlx::query("SELECT name, id FROM runs WHERE project = $1")
        .bind(project)
        .fetch_all(&mut **tx)
        .await?
        .into_iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    sqlx::query("DELETE FROM run_metrics WHERE run_id IN (SELECT id FROM runs WHERE project = $1)")
        .bind(project)
        .execute(&mut **tx)
        .await?;
    let rows: Vec<(i64, &Metric)> = records
        .iter()
        .filter_map(|r| ids.get(&r.name).map(|id| (*id, r)))
        .flat_map(|(id, r)| r.metrics.iter().map(move |m| (id, m)))
        .collect();
    for chunk in rows.chunks(MAX_BINDS / METRIC_BINDS) {
        let mut qb = QueryBuilder::<Db>::new("INSERT INTO run_metrics (run_id, metric, value, step, split) ");
        qb.push_values(chunk, |mut b, (id, m)| {
            b.push_bind(*id)
                .push_bind(m.metric.clone())
                .push_bind(m.value)
                .push_bind(m.step)
                .push_bind(m.split.clone().unwrap_or_default());
        });
        qb.build().execute(&mut **tx).await?;
    }
    Ok(removed)
}
