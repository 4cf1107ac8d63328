//! The provenance tools as catalogue entries: plain async functions from typed
//! arguments to an [`Answer`], with no MCP in them. The binaries serve this catalogue;
//! the CLI calls the same functions.
//!
//! Every routine failure (nothing recorded, an undeclared direction, a path outside the
//! research root, bad arguments) is an `ok: false` answer whose line says what to do.
//! Only a database fault is a [`Fault`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use attest_core::budget::rows as cap;
use attest_core::text::{clip, fmt_g, plural};
use attest_core::{Answer, Catalogue, Config, Fault, Hints, Next, Outcome, Ref, RowLimit, Stop, Tool, ToolSpec};
use attest_store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::LedgerError;
use crate::claims::{self, CiteResolver, Malformed, Row, Skipped, Verdict};
use crate::compare::Comparison;
use crate::coverage::{self, Uncovered};
use crate::direction::Direction;
use crate::ledger::{
    FamilyCount, Ledger, LedgerOptions, MetricRow, RecordOutcome, RecordRequest, RunDetail, ScanReport,
};
use crate::router;

/// How many runs `runs.list` returns: 1 to 25 for an agent (any number on the command
/// line), 10 by default.
pub type ListLimit = RowLimit<25, 10>;
/// Most arms a comparison shows (best first).
pub const MAX_ARMS: usize = 20;
/// Most metric rows `runs.detail` shows.
pub const MAX_METRIC_ROWS: usize = 40;
/// Most claim rows `runs.claims_check` shows (problems first).
pub const MAX_CLAIM_ROWS: usize = 15;
/// Most malformed annotations shown.
pub const MAX_MALFORMED: usize = 8;
/// Most skipped files a scan's answer lists in its text (all are in its data).
pub const MAX_SKIPPED_SHOWN: usize = 8;
/// Most uncovered numbers `runs.claims_coverage` shows.
pub const MAX_UNCOVERED: usize = 25;

/// What the provenance tools share: the ledger and the research root.
#[derive(Clone)]
pub struct Context {
    /// The run ledger.
    pub ledger: Ledger,
    /// The research root, when configured.
    pub root: Option<PathBuf>,
    /// The citation sources the claims check lints `cite=` keys against (`uncited`);
    /// without them that lint is off and the answer says so.
    pub citations: Option<Arc<dyn Citations>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("root", &self.root).field("citations", &self.citations.is_some()).finish()
    }
}

/// Citation sources, loaded when first needed (the binary wires attest-cite's in; this
/// crate knows nothing of BibTeX or Zotero).
pub trait Citations: Send + Sync {
    /// The resolver the claims check asks.
    fn resolver(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn CiteResolver + Send>> + Send + '_>>;
}

/// Any `Fn() -> impl Future<Output = Arc<dyn CiteResolver + Send>>` is a source of
/// citations: how a binary wires in a resolver it loads lazily.
impl<F, Fut> Citations for F
where
    F: Fn() -> Fut + Send + Sync,
    Fut: std::future::Future<Output = Arc<dyn CiteResolver + Send>> + Send + 'static,
{
    fn resolver(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn CiteResolver + Send>> + Send + '_>> {
        Box::pin(self())
    }
}

/// Open the database named by `config` and build the provenance catalogue over it,
/// linting `cite=` keys against `citations` when given.
pub async fn catalogue(
    config: &Config,
    citations: Option<Arc<dyn Citations>>,
) -> Result<Catalogue, attest_store::StoreError> {
    let store = Store::open(&config.db).await?;
    let opts = LedgerOptions { metric_directions: config.metric_directions.clone(), root: config.root.clone() };
    Ok(tools(Arc::new(Context { ledger: Ledger::new(store, opts), root: config.root.clone(), citations })))
}

fn fault(e: LedgerError) -> Result<Answer<Value>, Fault> {
    match e {
        LedgerError::Refused(msg) => Ok(Answer::refuse(msg)),
        // A file the user named or keeps (a directions file, a draft) that cannot be
        // read is theirs to fix, not an internal fault.
        io @ LedgerError::Io { .. } => Ok(Answer::refuse(format!("{io}; check the file's permissions and encoding"))),
        other => Err(Fault::new("ledger", other)),
    }
}

impl From<LedgerError> for Stop {
    /// A ledger refusal, or a file the user keeps that cannot be read, is theirs to act
    /// on; so is a busy, read-only, full or damaged database (`attest_store::stop`, the
    /// one mapping every domain uses); anything else is an internal fault.
    fn from(e: LedgerError) -> Stop {
        match e {
            LedgerError::Store(e) => attest_store::stop(e, None, "ledger database"),
            e => match fault(e) {
                Ok(refusal) => Stop::from(refusal),
                Err(f) => Stop::Fault(f),
            },
        }
    }
}

impl Context {
    /// A ledger error as this tool's stop, naming the database file when the database
    /// is what failed.
    fn stop(&self, e: LedgerError) -> Stop {
        match e {
            LedgerError::Store(e) => attest_store::stop(e, self.ledger.store().path(), "ledger database"),
            e => Stop::from(e),
        }
    }
}

/// Turn a domain result into an answer: refusals become `ok: false`.
fn answer<T: Serialize>(r: Result<Answer<T>, LedgerError>) -> Outcome {
    Ok(r?.into_value())
}

fn file_ref(id: String, source_path: &str) -> Ref {
    let file = source_path.split('#').next().unwrap_or(source_path);
    Ref::file(id, Path::new(file))
}

// ---------------------------------------------------------------------------------------
// Arguments. Their doc comments become the parameter descriptions agents read.

/// Arguments of `runs.scan`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScanArgs {
    /// The research root to read (default: the configured RESEARCH_ROOT). Must lie
    /// inside the configured root when one is set.
    #[serde(default)]
    pub root: Option<String>,
    /// Read only this project (a directory under the root).
    #[serde(default)]
    pub project: Option<String>,
    /// Must be true: a scan replaces the ledger's rows for each project it reads.
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `runs.list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Only runs of this project.
    #[serde(default)]
    pub project: Option<String>,
    /// Only runs of this family.
    #[serde(default)]
    pub family: Option<String>,
    /// How many runs to show.
    #[serde(default)]
    pub limit: ListLimit,
}

/// Arguments of `runs.compare`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// The family whose arms to rank (e.g. `kdalpha` for kdalpha_0 … kdalpha_75);
    /// without it, the ledger's only family, or a question back listing them.
    #[serde(default)]
    pub family: Option<String>,
    /// The metric to rank by (default: the most-reported metric with a known direction).
    #[serde(default)]
    pub metric: Option<String>,
    /// The project, when the family name exists in several.
    #[serde(default)]
    pub project: Option<String>,
}

/// Arguments of `runs.detail`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DetailArgs {
    /// The run's name, e.g. `kdalpha_75` (or `project/name`).
    #[serde(default)]
    pub name: String,
    /// Its project, when the name exists in several.
    #[serde(default)]
    pub project: Option<String>,
}

/// Arguments of `runs.record`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecordArgs {
    /// The family the arms belong to; files are named `<family>_<arm>.json`.
    pub family: String,
    /// The project directory (under the research root) to write into.
    pub project: String,
    /// Each arm's metrics, e.g. `{"t4": {"wer": 0.064}, "t8": {"wer": 0.061}}`.
    pub arms: BTreeMap<String, BTreeMap<String, f64>>,
    /// The corpus the arms were evaluated on.
    #[serde(default)]
    pub corpus: Option<String>,
    /// Directions for metrics that have none yet, e.g. `{"judge_score": "higher_is_better"}`.
    #[serde(default)]
    pub directions: BTreeMap<String, Direction>,
    /// Must be true to write; without it, the answer says what would be written.
    #[serde(default)]
    pub confirm: bool,
}

/// Arguments of `runs.claims_check`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClaimsArgs {
    /// A Markdown draft or a directory of drafts, relative to the research root or
    /// absolute inside it (default: the whole root).
    #[serde(default)]
    pub path: Option<String>,
    /// Show only claims with this verdict.
    #[serde(default)]
    pub verdict: Option<Verdict>,
}

/// Arguments of `runs.claims_coverage`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CoverageArgs {
    /// A Markdown draft or a directory of drafts, relative to the research root or
    /// absolute inside it (default: the whole root).
    #[serde(default)]
    pub path: Option<String>,
}

/// What `runs.ask` takes besides the question: facts the agent already knows, passed to
/// whichever tool the question reaches when it takes them.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct AskContext {
    /// The family, if you know it (otherwise taken from the question).
    #[serde(default)]
    pub family: Option<String>,
    /// The metric to rank by, if you know it.
    #[serde(default)]
    pub metric: Option<String>,
    /// A draft path, for questions about a draft.
    #[serde(default)]
    pub path: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Details returned in `data`.

/// A run as `runs.list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ListedRun {
    /// Ledger id.
    pub id: i64,
    /// Project.
    pub project: String,
    /// Run name.
    pub name: String,
    /// Family, if any.
    pub family: Option<String>,
    /// `recorded` or `spec`.
    pub status: String,
}

/// What `runs.list` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Listed {
    /// The runs shown.
    pub runs: Vec<ListedRun>,
    /// How many match in all.
    pub total: i64,
    /// Up to eight families, largest first.
    pub families: Vec<FamilyCount>,
    /// How many families match in all.
    pub n_families: i64,
}

/// What `runs.compare` returns: the comparison, cut to the best arms.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Compared {
    /// The comparison (arms cut to the best [`MAX_ARMS`]).
    #[serde(flatten)]
    pub comparison: Comparison,
    /// How many arms there are in all.
    pub n_arms: usize,
}

/// What `runs.detail` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Detailed {
    /// The run (metric rows cut to [`MAX_METRIC_ROWS`]).
    #[serde(flatten)]
    pub run: RunDetail,
    /// How many metric rows it has in all.
    pub n_metric_rows: usize,
}

/// What `runs.claims_check` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Checked {
    /// Well-formed claims checked.
    pub claims: usize,
    /// Rows per verdict.
    pub counts: BTreeMap<String, usize>,
    /// Verdict rows, problems first, cut to [`MAX_CLAIM_ROWS`].
    pub rows: Vec<Row>,
    /// How many rows there are in all (after any verdict filter).
    pub n_rows: usize,
    /// Claim comments that could not be read (cut to [`MAX_MALFORMED`]).
    pub malformed: Vec<Malformed>,
    /// How many there are in all.
    pub n_malformed: usize,
    /// Drafts read.
    pub files: usize,
    /// Drafts found but not read, and why.
    pub skipped: Vec<Skipped>,
}

/// What `runs.claims_coverage` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Covered {
    /// Decimals found in the prose.
    pub numbers: usize,
    /// How many a claim covers.
    pub covered: usize,
    /// Uncovered numbers, cut to [`MAX_UNCOVERED`].
    pub uncovered: Vec<Uncovered>,
    /// How many are uncovered in all.
    pub n_uncovered: usize,
    /// Drafts read.
    pub files: usize,
}

// ---------------------------------------------------------------------------------------
// The tools.

/// The provenance catalogue over a context.
pub fn tools(ctx: Arc<Context>) -> Catalogue {
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($($t:tt)*) => { attest_core::tool_over!(c, ctx, $($t)*) };
    }
    c.push(Tool::ask::<AskContext>(
        ToolSpec::new(
            "runs.ask",
            "Ask about runs or a draft",
            "Ask about your experiment runs or the numbers in your draft, in plain words: which arm won, what is recorded, are my numbers right.\n\nRoutes the question to one provenance tool by fixed rules (no guessing: an unclear question is asked back with options). Pass family, metric or path when you know them. To run a specific tool directly, pass tool=<name> and args={...}. Show refs' urls as links, and relay the caveat whole.",
            Hints { read_only: false, destructive: false, idempotent: false, open_world: false },
        ),
        &router::ROUTER,
        &["family", "metric", "path"],
    ));
    tool!(
        ToolSpec::new(
            "runs.scan",
            "Read artifacts into the ledger",
            "Read the result files, configs and tracker runs under your research root into the ledger.\n\nReplaces the ledger's rows for each project it reads (they are re-read from disk), so it needs confirm=true. A scan that finds nothing says what it looked for and where the files are.",
            Hints::DESTRUCTIVE,
        ),
        scan,
        ScanArgs
    );
    tool!(
        ToolSpec::new(
            "runs.list",
            "List recorded runs",
            "List the runs and families recorded in the ledger.",
            Hints::READ
        ),
        list,
        ListArgs
    );
    tool!(
        ToolSpec::new(
            "runs.compare",
            "Which arm won?",
            "Rank the arms of one family (a sweep or an ablation) on a metric, with every caveat about how far to trust the ranking.\n\nRefuses to rank a metric whose direction (lower or higher is better) nobody declared. Relay the caveats whole.",
            Hints::READ,
        ),
        compare,
        CompareArgs
    );
    tool!(
        ToolSpec::new(
            "runs.detail",
            "Show one run",
            "Show one run in full: its metrics, config, source file and content hash.",
            Hints::READ
        ),
        detail,
        DetailArgs
    );
    tool!(
        ToolSpec::new(
            "runs.record",
            "Record new results",
            "Write new result files for a family's arms (results that exist only in a notebook or your head), then scan and compare them.\n\nNever overwrites a file. Needs confirm=true; without it, says what it would write.",
            Hints { read_only: false, destructive: true, idempotent: false, open_world: false },
        ),
        record,
        RecordArgs
    );
    tool!(
        ToolSpec::new(
            "runs.claims_check",
            "Are the numbers in my draft right?",
            "Check the numbers claimed in a Markdown draft against the ledger: supported, contradicted, unsupported, ambiguous or stale.\n\nClaims are HTML comments like <!-- claim: project/run metric=wer value=0.0704 -->. Read-only: never edits the draft.",
            Hints::READ,
        ),
        claims_check,
        ClaimsArgs
    );
    tool!(
        ToolSpec::new(
            "runs.claims_coverage",
            "Which numbers have no claim?",
            "Find the decimal numbers in a draft that no claim backs.",
            Hints::READ
        ),
        claims_coverage,
        CoverageArgs
    );
    c
}

fn root_of(ctx: &Context) -> Result<&Path, LedgerError> {
    ctx.root.as_deref().ok_or_else(|| {
        LedgerError::refused(
            "no research root is configured: set RESEARCH_ROOT (or pass --root) to the directory that holds your projects and drafts",
        )
    })
}

async fn scan(ctx: &Context, a: ScanArgs) -> Outcome {
    if !a.confirm {
        let next = Next::again("runs.scan").with("confirm", true);
        return Ok(Answer::refuse(format!(
            "runs.scan replaces the ledger's rows for each project it reads (re-read from the files on disk, so nothing the files hold is lost). Call {} to go ahead.",
            next.for_agent()
        ))
        .with_next(next));
    }
    let root = match (&a.root, &ctx.root) {
        (Some(r), Some(configured)) => {
            // The one confinement check (links followed), shared with every tool.
            use attest_claims::confine::{Refusal, existing};
            match existing(configured, Some(Path::new(r))) {
                Ok((_, g)) => g,
                Err(Refusal::Outside { .. }) => {
                    return Ok(Answer::refuse(format!(
                        "{r} is outside the research root {}; scan inside it, or set RESEARCH_ROOT to the directory that holds your projects",
                        configured.display()
                    )));
                }
                Err(_) => {
                    return Ok(Answer::refuse(format!(
                        "no such directory: {r} -- pass a directory inside the research root {}, or leave root out to scan the whole root",
                        configured.display()
                    )));
                }
            }
        }
        (Some(r), None) => PathBuf::from(r),
        (None, Some(c)) => c.clone(),
        (None, None) => return Err(root_of(ctx).unwrap_err().into()),
    };
    let report = ctx.ledger.scan(&root, a.project.as_deref(), |_| std::ops::ControlFlow::Continue(())).await;
    Ok(scan_answer(report.map_err(|e| ctx.stop(e))?).into_value())
}

/// The answer for a finished scan (shared with the CLI, which scans with a progress bar).
pub fn scan_answer(report: ScanReport) -> Answer<ScanReport> {
    if report.found_nothing() {
        let why: Vec<String> = report.empty.iter().map(|e| format!("{}: {}", e.project, e.diagnostic)).collect();
        let mut msg = report.message.clone();
        if !why.is_empty() {
            msg = format!("{msg} {}", clip(&why.join("; "), 1500));
        }
        // A refusal carries no data, so the skipped list is in its text.
        if !report.skipped.is_empty() {
            let list: Vec<String> =
                report.skipped.iter().map(|f| format!("{}/{}: {}", f.project, f.path, clip(&f.reason, 200))).collect();
            msg = format!("{msg} Skipped: {}", clip(&list.join("; "), 1500));
        }
        return Answer::refuse(msg);
    }
    let mut caveats: Vec<String> = report
        .empty
        .iter()
        .take(5)
        .map(|e| format!("{} yielded no run: {}", e.project, clip(&e.diagnostic, 300)))
        .collect();
    let mut line = report.message.clone();
    if !report.skipped.is_empty() {
        line.push_str(&format!(
            "; {} skipped or read in part, each listed with its reason under skipped",
            plural(report.skipped.len(), "file", "files")
        ));
        caveats.extend(
            report
                .skipped
                .iter()
                .take(MAX_SKIPPED_SHOWN)
                .map(|f| format!("{}/{}: {}", f.project, f.path, clip(&f.reason, 200))),
        );
        if report.skipped.len() > MAX_SKIPPED_SHOWN {
            caveats.push(format!(
                "… and {} more skipped files (see skipped in the data)",
                report.skipped.len() - MAX_SKIPPED_SHOWN
            ));
        }
    }
    Answer::ok(line, report).with_caveats(caveats)
}

async fn list(ctx: &Context, a: ListArgs) -> Outcome {
    let limit = a.limit.get();
    let got = ctx.ledger.list(a.project.as_deref(), a.family.as_deref(), a.limit.count()).await?;
    if got.total == 0 {
        let all = ctx.ledger.list(None, None, 1).await?;
        if all.total == 0 {
            let next = Next::call("runs.scan").with("confirm", true);
            return Ok(Answer::refuse(format!(
                "the ledger is empty: no runs have been read yet. Call {} to read the artifacts under your research root.",
                next.for_agent()
            ))
            .with_next(next));
        }
        let fams: Vec<String> = all.families.iter().map(|f| format!("{} ({})", f.family, f.project)).collect();
        return Ok(Answer::refuse(format!(
            "no runs match{}{}, though the ledger holds {}. Families include: {}.",
            a.project.as_deref().map(|p| format!(" project '{p}'")).unwrap_or_default(),
            a.family.as_deref().map(|f| format!(" family '{f}'")).unwrap_or_default(),
            plural(all.total as usize, "run", "runs"),
            if fams.is_empty() { "(none)".to_string() } else { fams.join(", ") }
        )));
    }
    let shown = got.runs.len() as i64;
    let mut line = format!("{} of {}", shown, plural(got.total as usize, "run", "runs"));
    if got.total > shown {
        line.push_str(if limit < ListLimit::MAX {
            " (more available: raise limit, or pass project= or family=)"
        } else {
            " (more available: pass project= or family= to narrow)"
        });
    }
    let fams: Vec<String> = got
        .families
        .iter()
        .map(|f| {
            let how = if f.grouped_by.is_empty() { String::new() } else { format!(", {}", f.grouped_by) };
            format!("{} ({}{how})", f.family, plural(f.n as usize, "run", "runs"))
        })
        .collect();
    if !fams.is_empty() {
        line.push_str(&format!("; families: {}", fams.join("; ")));
        if got.n_families > got.families.len() as i64 {
            line.push_str(&format!(" and {} more", got.n_families - got.families.len() as i64));
        }
    }
    let data = Listed {
        runs: got
            .runs
            .into_iter()
            .map(|r| ListedRun { id: r.id, project: r.project, name: r.name, family: r.family, status: r.status })
            .collect(),
        total: got.total,
        families: got.families,
        n_families: got.n_families,
    };
    Ok(Answer::ok(line, data).into_value())
}

fn compare_answer(mut c: Comparison) -> Answer<Compared> {
    let n_arms = c.arms.len();
    c.arms.truncate(cap(MAX_ARMS));
    let better = match c.direction {
        Direction::LowerIsBetter => "lower is better",
        Direction::HigherIsBetter => "higher is better",
    };
    let shown = |a: &crate::compare::Arm| a.label.clone().unwrap_or_else(|| a.name.clone());
    let ranked: Vec<String> = c
        .arms
        .iter()
        .filter_map(|a| {
            let n = a.n.map(|n| format!(" (n={n})")).unwrap_or_default();
            a.value.map(|v| format!("{} {}{n}", shown(a), fmt_g(v)))
        })
        .take(5)
        .collect();
    let on = c.corpus.as_deref().map(|k| format!(", on {k}")).unwrap_or_default();
    let split = c
        .arms
        .first()
        .and_then(|a| a.split.as_deref())
        .filter(|s| c.arms.iter().filter(|a| a.value.is_some()).all(|a| a.split.as_deref() == Some(*s)))
        .map(|s| format!(" [{s}]"))
        .unwrap_or_default();
    let how = match c.grouped_by.as_str() {
        "config" => format!("; arms differ in {}", c.varying.join(", ")),
        "declared" => "; arms as declared in attest.toml".to_string(),
        _ => String::new(),
    };
    let mut line = match &c.winner {
        Some(w) => {
            let winner = c.arms.iter().find(|a| &a.name == w);
            let w = match winner.and_then(|a| a.label.as_ref()) {
                Some(l) if l != w => format!("{l} ({w})"),
                _ => w.clone(),
            };
            // "winner" only when nothing casts doubt on the order; otherwise the top
            // arm is named as ranking first and the caveats say why it is not settled.
            let head = if c.caveats.is_empty() {
                format!("winner: {w} by {}{split} ({better}{on})", c.metric)
            } else {
                let which = match c.caveats.len() {
                    1 => "the caveat".to_string(),
                    n => format!("the {n} caveats"),
                };
                format!(
                    "{w} ranks first by {}{split} ({better}{on}), but no winner is declared: see {which} below",
                    c.metric
                )
            };
            format!("{head}; {}: {}{how}", plural(n_arms, "arm", "arms"), ranked.join(", "))
        }
        None => format!("no arm of {} reports {}, so nothing was ranked", c.family, c.metric),
    };
    if n_arms > cap(MAX_ARMS) {
        line.push_str(&format!(" (showing the best {MAX_ARMS})"));
    }
    let refs = c
        .arms
        .iter()
        .filter(|a| Some(&a.name) == c.winner.as_ref())
        .map(|a| file_ref(format!("run:{}/{}", c.project, a.name), &a.source_path))
        .collect();
    let caveats = c.caveats.clone();
    let ok = c.winner.is_some();
    let mut out = Answer::ok(line, Compared { comparison: c, n_arms }).with_refs(refs).with_caveats(caveats);
    if !ok {
        out.ok = false;
        out.data = None;
    }
    out
}

async fn compare(ctx: &Context, a: CompareArgs) -> Outcome {
    let family = match a.family.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(f) => f.to_string(),
        None => only_family(ctx).await?,
    };
    let r = ctx.ledger.compare(&family, a.metric.as_deref(), a.project.as_deref()).await;
    answer(r.map(compare_answer))
}

/// The family a comparison without one means: the ledger's only family; otherwise a
/// question back naming them.
async fn only_family(ctx: &Context) -> Result<String, Stop> {
    let fams = ctx.ledger.families(None).await.map_err(|e| ctx.stop(e))?;
    match fams.as_slice() {
        [] => {
            let next = Next::call("runs.scan").with("confirm", true);
            Err(Stop::refuse(format!(
                "no families in the ledger to compare: call {} to read your results, then ask again.",
                next.for_agent()
            ))
            .with_next(next))
        }
        [one] => Ok(one.family.clone()),
        _ => {
            let names: Vec<String> = fams.iter().take(8).map(|f| format!("{} ({} arms)", f.family, f.n)).collect();
            Err(Stop::ask_back(
                format!(
                    "Which family? The ledger has {}: {}{}.",
                    fams.len(),
                    names.join(", "),
                    if fams.len() > 8 { ", …" } else { "" }
                ),
                ["runs.compare", "runs.list"],
            ))
        }
    }
}

async fn find_run(ctx: &Context, name: &str, project: Option<&str>) -> Result<(String, String), Stop> {
    if let Some(p) = project {
        return Ok((p.to_string(), name.to_string()));
    }
    let projects = ctx.ledger.projects_of_run(name, 6).await?;
    match projects.as_slice() {
        [] => Err(Stop::refuse(format!(
            "no run named '{}' in the ledger; call {} to see the runs recorded (names look like kdalpha_75 or beam_search/b8)",
            clip(name, 80),
            Next::call("runs.list").for_agent()
        ))
        .with_next(Next::call("runs.list"))),
        [one] => Ok((one.clone(), name.to_string())),
        several => Err(Stop::refuse(format!(
            "'{}' is a run in several projects ({}); pass project= to say which",
            clip(name, 80),
            several.join(", ")
        ))),
    }
}

fn cut_metrics(rows: Vec<MetricRow>) -> (Vec<MetricRow>, bool) {
    if rows.len() <= cap(MAX_METRIC_ROWS) {
        return (rows, false);
    }
    // Keep the last row (highest step) of each metric and split.
    let mut last: BTreeMap<(String, Option<String>), MetricRow> = BTreeMap::new();
    for r in rows {
        last.insert((r.metric.clone(), r.split.clone()), r);
    }
    (last.into_values().take(MAX_METRIC_ROWS).collect(), true)
}

async fn detail(ctx: &Context, a: DetailArgs) -> Outcome {
    if a.name.trim().is_empty() {
        return Err(Stop::ask_back(
            "Which run? Name it as the ledger does (e.g. kdalpha_75), or call runs.list to see them.",
            ["runs.detail", "runs.list"],
        ));
    }
    let (project, name) = find_run(ctx, a.name.trim(), a.project.as_deref()).await?;
    let mut run = ctx.ledger.detail(&project, &name).await?;
    let n_metric_rows = run.metrics.len();
    let (metrics, collapsed) = cut_metrics(std::mem::take(&mut run.metrics));
    run.metrics = metrics;
    let shown: Vec<String> = run
        .metrics
        .iter()
        .take(8)
        .map(|m| {
            let at = m.step.map(|s| format!("@{s}")).unwrap_or_default();
            let split = m.split.as_deref().map(|s| format!("[{s}]")).unwrap_or_default();
            format!("{}{split}{at}={}", m.metric, fmt_g(m.value))
        })
        .collect();
    let what = if run.status == "spec" {
        "a spec with no results".to_string()
    } else if shown.is_empty() {
        "no metrics".to_string()
    } else {
        shown.join(", ")
    };
    let hash = run.source_hash.as_deref().map(|h| format!(", blake3 {}", &h[..h.len().min(12)])).unwrap_or_default();
    let mut line = format!("{} ({}): {what}; read from {}{hash}", run.name, run.project, run.source_path);
    if collapsed {
        line.push_str(&format!(
            " (showing the last value of each metric: {n_metric_rows} rows in all; runs.compare ranks a series)"
        ));
    }
    let refs = vec![file_ref(format!("run:{}/{}", run.project, run.name), &run.source_path)];
    let caveats = run.caveats.clone();
    Ok(Answer::ok(line, Detailed { run, n_metric_rows }).with_refs(refs).with_caveats(caveats).into_value())
}

fn record_answer(o: RecordOutcome) -> Answer<Value> {
    let paths: Vec<&str> = o.files.iter().map(|f| f.path.as_str()).collect();
    if !o.written {
        let mut msg =
            format!("would write {}: {}", plural(paths.len(), "new file", "new files"), clip(&paths.join(", "), 800));
        if !o.declared.is_empty() {
            let d: Vec<String> = o.declared.iter().map(|(m, d)| format!("{m} = {}", d.as_str())).collect();
            msg.push_str(&format!(", and declare {}", d.join(", ")));
        }
        let next = Next::again("runs.record").with("confirm", true);
        msg.push_str(&format!(". Call {} to write them.", next.for_agent()));
        return Answer::refuse(msg).with_options(vec!["runs.record".into()]).with_next(next);
    }
    let mut line = format!("wrote {}", plural(paths.len(), "file", "files"));
    if let Some(c) = &o.comparison
        && let Some(w) = &c.winner
    {
        if c.caveats.is_empty() {
            line.push_str(&format!("; winner: {w} by {}", c.metric));
        } else {
            line.push_str(&format!("; {w} ranks first by {}, but no winner is declared (see the caveats)", c.metric));
        }
    }
    let caveats: Vec<String> = o
        .comparison
        .as_ref()
        .map(|c| c.caveats.clone())
        .unwrap_or_default()
        .into_iter()
        .chain(o.compare_refusal.clone())
        .collect();
    let refs = o.files.iter().map(|f| Ref::file(format!("file:{}", f.path), Path::new(&f.path))).collect();
    Answer::ok(line, o).with_refs(refs).with_caveats(caveats).into_value()
}

async fn record(ctx: &Context, a: RecordArgs) -> Outcome {
    let root = root_of(ctx)?.to_path_buf();
    if a.arms.is_empty() {
        return Ok(Answer::refuse("runs.record needs at least one arm, e.g. arms={\"t4\": {\"wer\": 0.064}}."));
    }
    let req = RecordRequest {
        family: a.family,
        arms: a.arms.into_iter().collect(),
        corpus: a.corpus,
        directions: a.directions,
        project: a.project,
        root,
        confirm: a.confirm,
    };
    Ok(record_answer(ctx.ledger.record(req).await.map_err(|e| ctx.stop(e))?))
}

fn severity(v: Verdict) -> u8 {
    match v {
        Verdict::Contradicted => 0,
        Verdict::Stale => 1,
        Verdict::Ambiguous => 2,
        Verdict::Unsupported => 3,
        Verdict::Uncited => 4,
        Verdict::Supported => 5,
    }
}

async fn claims_check(ctx: &Context, a: ClaimsArgs) -> Outcome {
    let root = root_of(ctx)?.to_path_buf();
    let path = a.path.as_deref().map(Path::new);
    let resolver = match &ctx.citations {
        Some(c) => Some(c.resolver().await),
        None => None,
    };
    let lint = resolver.as_deref().map(|r| r as &dyn CiteResolver);
    let report = claims::check(ctx.ledger.store().pool(), &root, path, lint).await?;
    let summary = report.summary();
    let report = match a.verdict {
        Some(v) => report.only(v),
        None => report,
    };
    let mut rows = report.rows;
    rows.sort_by_key(|r| (severity(r.verdict), r.file.clone(), r.line));
    let n_rows = rows.len();
    let problems: Vec<String> = rows
        .iter()
        .filter(|r| r.verdict != Verdict::Supported)
        .take(3)
        .map(|r| format!("{} {}:{}", r.verdict.as_str(), r.file, r.line))
        .collect();
    let mut line = summary;
    if !problems.is_empty() {
        line.push_str(&format!(" -- {}", problems.join("; ")));
    }
    if n_rows > cap(MAX_CLAIM_ROWS) {
        line.push_str(&format!(" ({} rows shown of {n_rows}; pass verdict= to see the rest)", MAX_CLAIM_ROWS));
    }
    let refs: Vec<Ref> = rows
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Contradicted | Verdict::Stale))
        .filter_map(|r| r.source_path.as_deref().map(|s| file_ref(format!("claim:{}:{}", r.file, r.line), s)))
        .take(5)
        .collect();
    rows.truncate(cap(MAX_CLAIM_ROWS));
    let n_malformed = report.malformed.len();
    let mut malformed = report.malformed;
    malformed.truncate(cap(MAX_MALFORMED));
    let data = Checked {
        claims: report.claims,
        counts: report.counts,
        rows,
        n_rows,
        malformed,
        n_malformed,
        files: report.files,
        skipped: report.skipped,
    };
    Ok(Answer::ok(line, data).with_refs(refs).into_value())
}

async fn claims_coverage(ctx: &Context, a: CoverageArgs) -> Outcome {
    let root = root_of(ctx)?.to_path_buf();
    let cov = coverage::coverage(&root, a.path.as_deref().map(Path::new))?;
    let mut line = cov.summary();
    let first: Vec<String> =
        cov.uncovered.iter().take(3).map(|u| format!("{}:{} {}", u.file, u.line, u.written)).collect();
    if !first.is_empty() {
        line.push_str(&format!("; uncovered: {}", first.join(", ")));
    }
    let n_uncovered = cov.uncovered.len();
    if n_uncovered > cap(MAX_UNCOVERED) {
        line.push_str(&format!(" ({MAX_UNCOVERED} shown of {n_uncovered})"));
    }
    let mut uncovered = cov.uncovered;
    uncovered.truncate(cap(MAX_UNCOVERED));
    let data = Covered { numbers: cov.numbers, covered: cov.covered, uncovered, n_uncovered, files: cov.files };
    Ok(Answer::ok(line, data).into_value())
}
