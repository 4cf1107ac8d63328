//! The ledger's read side: list, families, detail, directions and compare.

use std::collections::HashMap;
use std::path::PathBuf;

use attest_store::Db;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row;

use super::Ledger;
use crate::LedgerError;
use crate::compare::{self, ArmRun, Comparison};
use crate::direction::Directions;
use crate::discover::declared::Declared;
use crate::discover::{Adapter, RunCaveat};
use crate::family::family_of;

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
    /// How its runs were grouped (`by Lightning logger name, arms told apart by config
    /// (dropout varies)`, `declared in attest.toml`, `by file-name prefix`); empty for
    /// families past the first eight, which callers only count.
    pub grouped_by: String,
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

impl Ledger {
    /// Runs, newest scan's view: filtered by project and/or family, or (unfiltered)
    /// taken round-robin across projects so one big project does not hide the rest.
    pub async fn list(
        &self,
        project: Option<&str>,
        family: Option<&str>,
        limit: usize,
    ) -> Result<RunList, LedgerError> {
        let limit = i64::try_from(limit.max(1)).unwrap_or(i64::MAX);
        let filter = "($1 IS NULL OR project = $1) AND ($2 IS NULL OR family = $2)";
        let cols = "id, project, name, family, status, adapter, started, source_path";
        let sql = if project.is_none() && family.is_none() {
            format!(
                "SELECT {cols} FROM (SELECT {cols}, ROW_NUMBER() OVER (PARTITION BY project ORDER BY family, name) AS rn FROM runs WHERE {filter}) AS ranked \
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
        Ok(RunList { runs, total, families: fams.into_iter().take(attest_core::budget::rows(8)).collect(), n_families })
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
        let mut out = Vec::new();
        for r in rows {
            let (project, family): (String, String) = (r.get(0), r.get(1));
            // Described for the families a caller shows (the first eight); the rest
            // only need their counts.
            let described = out.len() < attest_core::budget::rows(8);
            let grouped_by = if described { self.grouping(&project, &family).await? } else { String::new() };
            out.push(FamilyCount { project, family, n: r.get(2), grouped_by });
        }
        Ok(out)
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
        let mut metrics: Vec<MetricRow> = Vec::new();
        for c in sqlx::query("SELECT run_id, metric, split, n, points FROM run_curves WHERE run_id = $1 ORDER BY rowid")
            .bind(id)
            .fetch_all(self.store.pool())
            .await?
        {
            let (_, rows) = super::curve::metrics_of(&c, 0)?;
            metrics.extend(rows.into_iter().map(|m| MetricRow {
                metric: m.metric,
                value: m.value,
                step: m.step,
                split: m.split,
            }));
        }
        // By metric, step (none first), split (none first), as the rows were listed
        // when each was a database row.
        metrics.sort_by(|a, b| (&a.metric, a.step, &a.split).cmp(&(&b.metric, b.step, &b.split)));
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
        // Names holding the one asked for (or held by it), or of its family.
        let close: Vec<String> = sqlx::query("SELECT name, family FROM runs WHERE project = $1 ORDER BY name")
            .bind(project)
            .fetch_all(self.store.pool())
            .await?
            .into_iter()
            .filter(|r| {
                let (n, f): (String, Option<String>) = (r.get(0), r.get(1));
                n.contains(name) || name.contains(n.as_str()) || (f.is_some() && f == fam)
            })
            .take(6)
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
            "SELECT r.id, r.project, r.name, r.status, r.adapter, r.source_path, r.corpus, c.contested, r.caveats, r.config_json \
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
                config: r.get::<Option<String>, _>(9).and_then(|s| serde_json::from_str(&s).ok()),
                metrics: Vec::new(),
            })
            .collect();
        let index: HashMap<i64, usize> = runs.iter().enumerate().map(|(i, r)| (r.id, i)).collect();
        let curves = sqlx::query(
            "SELECT c.run_id, c.metric, c.split, c.n, c.points FROM run_curves c JOIN runs r ON r.id = c.run_id \
             WHERE r.family = $1 AND ($2 IS NULL OR r.project = $2) ORDER BY c.rowid",
        )
        .bind(family)
        .bind(project)
        .fetch_all(self.store.pool())
        .await?;
        for c in curves {
            let (id, rows) = super::curve::metrics_of(&c, 0)?;
            if let Some(&i) = index.get(&id) {
                runs[i].metrics.extend(rows);
            }
        }
        let only_project = {
            let mut ps: Vec<&str> = runs.iter().map(|r| r.project.as_str()).collect();
            ps.dedup();
            (ps.len() == 1).then(|| ps[0].to_string())
        };
        let directions = self.directions(only_project.as_deref().or(project)).await?;
        let mut opts = compare::CompareOptions::default();
        if let Some(p) = &only_project
            && let Some(declared) = self.declared(p).await?
            && let Some(f) = declared.named(p, family)
        {
            opts.labels = f.arms.clone();
            opts.metric = f.metric.clone();
        }
        compare::compare_with(family, &runs, metric, &directions, &opts).map_err(LedgerError::Refused)
    }

    /// The research root a project was last scanned under.
    async fn root_of(&self, project: &str) -> Result<Option<PathBuf>, LedgerError> {
        let r: Option<String> = sqlx::query("SELECT root FROM projects WHERE name = $1")
            .bind(project)
            .fetch_optional(self.store.pool())
            .await?
            .map(|r| r.get(0));
        Ok(r.map(PathBuf::from).or_else(|| self.opts.root.clone()))
    }

    /// The grouping declared in the project's research root (`attest.toml`), if any.
    async fn declared(&self, project: &str) -> Result<Option<Declared>, LedgerError> {
        let Some(root) = self.root_of(project).await? else { return Ok(None) };
        Declared::load(&root).map(Some).map_err(LedgerError::refused)
    }

    /// How a family's arms were grouped, in words: declared in `attest.toml`, by the
    /// config keys that vary, or by how its reader names families.
    pub async fn grouping(&self, project: &str, family: &str) -> Result<String, LedgerError> {
        if let Some(d) = self.declared(project).await?
            && d.named(project, family).is_some()
        {
            return Ok("declared in attest.toml".into());
        }
        let rows =
            sqlx::query("SELECT name, adapter, config_json FROM runs WHERE project = $1 AND family = $2 ORDER BY name")
                .bind(project)
                .bind(family)
                .fetch_all(self.store.pool())
                .await?;
        let configs: Vec<Option<Value>> =
            rows.iter().map(|r| r.get::<Option<String>, _>(2).and_then(|s| serde_json::from_str(&s).ok())).collect();
        let refs: Vec<Option<&Value>> = configs.iter().map(Option::as_ref).collect();
        let adapter = rows.first().and_then(|r| Adapter::parse(&r.get::<String, _>(1))).unwrap_or(Adapter::Generic);
        Ok(match crate::family::varying_keys(&refs) {
            Some((keys, _)) => format!(
                "{}, arms told apart by config ({} {})",
                adapter.family_source(),
                keys.join(", "),
                if keys.len() == 1 { "varies" } else { "vary" }
            ),
            None => adapter.family_source().to_string(),
        })
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

    /// The projects holding a run of this name, at most `limit`, in order.
    pub async fn projects_of_run(&self, name: &str, limit: i64) -> Result<Vec<String>, LedgerError> {
        let rows: Vec<(String,)> =
            sqlx::query_as::<Db, (String,)>("SELECT project FROM runs WHERE name = $1 ORDER BY project LIMIT $2")
                .bind(name)
                .bind(limit)
                .fetch_all(self.store.pool())
                .await?;
        Ok(rows.into_iter().map(|(p,)| p).collect())
    }
}
