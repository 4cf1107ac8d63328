//! Argument parsing and dispatch.

use std::io::{BufRead, IsTerminal, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use attest_core::catalogue::JsonObject;
use attest_core::{Answer, Budget, Catalogue, Config, Decision, Surface};
use attest_mcp::{CommonArgs, Served, Transport};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use serde_json::{Value, json};

use crate::{cite, demo, doctor, emit, feed, kg, print, setup, suggest, sym};

#[derive(Parser)]
#[command(
    name = "attest",
    version,
    about = "Auditable research provenance, fully local.",
    long_about = "Auditable research provenance, fully local: which arm of a sweep won, whether the numbers in a draft match the runs that produced them, whether a derivation holds, what to read today, with every number traced to the file it came from.",
    after_help = "Exit codes: 0 done; 1 refused, contradicted or failed (the message says why); 2 a usage error (a mistyped flag, reader, family, metric or database); 3 unknown (attest sym). See specs/cli.md.",
    propagate_version = true
)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    /// Print the whole answer as JSON instead of text (every row: nothing is cut).
    #[arg(long, global = true)]
    json: bool,
    /// Create what is missing instead of refusing: a new database at --db, a new
    /// reader for --user (with interests seeded from the archive).
    #[arg(long, global = true)]
    create: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// The run ledger: scan artifacts, list, compare and show runs, record results.
    Runs {
        /// What to do with the ledger.
        #[command(subcommand)]
        command: RunsCommand,
    },
    /// Check the numbers in drafts (Markdown, Quarto, R Markdown, LaTeX, Jupyter)
    /// against the ledger (exit 1 when any is contradicted or malformed).
    Claims {
        /// A draft, or a directory of drafts (default: the research root).
        path: Option<PathBuf>,
        /// List the decimals no claim covers instead.
        #[arg(long)]
        coverage: bool,
        /// Show only claims with this verdict (supported, contradicted, unsupported,
        /// ambiguous, stale or uncited).
        #[arg(long)]
        verdict: Option<String>,
    },
    /// Fetch every subscribed feed into the archive (seeding a new database from a
    /// feeds file or OPML).
    Ingest(feed::IngestArgs),
    /// Your reading feed: list, search, read, rate, explain, sources, personas.
    Feed {
        /// What to do with the feed.
        #[command(subcommand)]
        command: feed::FeedCommand,
    },
    /// Measure: `eval routing FILE` scores the routers on labelled questions; `eval agents`
    /// the three arms (routed, flat, swarm) against a live model; `eval feed
    /// --user NAME` (or `eval --user NAME`) how well the ranking predicts a reader's own
    /// ratings (cross-validated AUC and precision at 5).
    Eval {
        /// What to evaluate.
        #[command(subcommand)]
        what: Option<EvalWhat>,
        /// The reader, for the ranking evaluation (`attest eval --user NAME`, as before).
        #[arg(long, env = "ATTEST_USER")]
        user: Option<String>,
    },
    /// Exact algebra and calculus: verify, check, simplify, solve, diff, integrate, eval.
    Sym {
        /// What to compute.
        #[command(subcommand)]
        command: sym::SymCommand,
    },
    #[command(flatten)]
    Kg(kg::KgCommand),
    /// The reference library: `cite export [--out FILE] [--tag CONCEPT]` writes it as
    /// BibTeX, `cite sync [--import]` refreshes it from your .bib files and Zotero.
    Cite {
        /// What to do with the library.
        #[command(subcommand)]
        command: cite::CiteCommand,
    },
    /// Show which tool a question would go to, as JSON. With no question, read one
    /// per line from stdin and print one JSON line each.
    Route {
        /// The namespace: feed, runs, kg or sym.
        surface: String,
        /// The question.
        question: Option<String>,
    },
    /// Serve MCP: one surface, or with no --surface every tool linked into attest.
    Serve {
        /// feed, provenance, knowledge or symbolic.
        #[arg(long)]
        surface: Option<String>,
        /// Serve Streamable HTTP on this address instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
    },
    /// Write a consistent copy of the database to a new file.
    Backup {
        /// Where to write it; must not exist.
        dest: PathBuf,
    },
    /// Put a backup back as the database (--db / ATTEST_DB): the file is checked first
    /// (SQLite's integrity check, attest's schema, not newer than this attest), its
    /// rows counted, the current database saved beside it, then replaced in one step.
    Restore {
        /// The backup to restore (written by `attest backup`).
        file: PathBuf,
    },
    /// Copy this database (--db / ATTEST_DB) into another, such as a team's
    /// PostgreSQL database, table by table, and verify the row counts.
    Migrate {
        /// The database to fill: a postgres:// address (or a SQLite file path).
        #[arg(long, value_name = "DATABASE")]
        to: PathBuf,
        /// Delete what the target already holds first (otherwise a target holding
        /// any row is refused).
        #[arg(long)]
        replace: bool,
    },
    /// Add or update attest's servers in an agent's configuration file, keeping
    /// everything else (a backup is written first; --check only compares).
    Setup {
        /// hermes (~/.hermes/config.yaml) or claude (.mcp.json here).
        #[arg(value_enum)]
        agent: EmitTarget,
        /// The configuration file (default: the agent's own).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Write nothing; exit 1 when the file differs from what setup would write.
        #[arg(long)]
        check: bool,
        /// Where the surface binaries are (default: beside this executable).
        #[arg(long)]
        bin_dir: Option<PathBuf>,
    },
    /// Check this machine: the surface binaries, the database, the research root, the
    /// agents' configurations and the optional services, each with the fix (exit 1 when
    /// something will not work).
    Doctor {
        /// Where the surface binaries are (default: beside this executable).
        #[arg(long)]
        bin_dir: Option<PathBuf>,
    },
    /// Print agent configuration for the installed surface binaries.
    Emit {
        /// hermes (the mcp_servers YAML) or claude (.mcp.json).
        #[arg(value_enum)]
        target: EmitTarget,
        /// Where the surface binaries are (default: beside this executable).
        #[arg(long, value_name = "DIR")]
        bin_dir: Option<PathBuf>,
    },
    /// Print a completion script for your shell (e.g. `attest completions bash >
    /// ~/.local/share/bash-completion/completions/attest`).
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) on stdout, e.g. `attest man | man -l -`.
    Man,
    /// Show each part of attest doing its job on the bundled example workspace, in a
    /// throwaway database: a sweep's winner with its caveats, a contradicted claim, a
    /// proof and a counterexample, today's reading, a path through the concept graph.
    Demo {
        /// The workspace to use (default: examples/workspace).
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
    },
    /// Read your feed, the ledger, your drafts' claims and the concept graph in the
    /// browser, served on loopback (a non-loopback address needs ATTEST_HTTP_TOKEN).
    Web {
        /// The address to serve on (port 0: any free port).
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8899")]
        addr: SocketAddr,
    },
}

#[derive(Subcommand)]
enum RunsCommand {
    /// Read the artifacts under the research root into the ledger.
    Scan {
        /// Only this project (a directory under the root).
        #[arg(long)]
        project: Option<String>,
        /// Also list every file the scan skipped or refused, with the reason.
        #[arg(long)]
        explain: bool,
    },
    /// List recorded runs under their project and family, saying how each family was
    /// grouped.
    List {
        /// Only runs of this project.
        #[arg(long)]
        project: Option<String>,
        /// Only runs of this family.
        #[arg(long)]
        family: Option<String>,
        /// How many runs to list, at most (any number).
        #[arg(long, default_value_t = 200, value_name = "N")]
        limit: u32,
    },
    /// Rank the arms of a family on a metric, with every caveat.
    Compare {
        /// The family, e.g. kdalpha (see `attest runs list`).
        family: String,
        /// The metric to rank by (default: the most-reported one with a known direction).
        #[arg(long)]
        metric: Option<String>,
        /// The project, when the family name exists in several.
        #[arg(long)]
        project: Option<String>,
    },
    /// Show one run: its metrics, config, notes, source file and content hash.
    Show {
        /// The run's name, e.g. kdalpha_75 (or project/name).
        name: String,
        /// Its project, when the name exists in several.
        #[arg(long)]
        project: Option<String>,
    },
    /// Write new result files for a family's arms, then scan and compare them.
    Record {
        /// The family the arms belong to; files are named FAMILY_ARM.json.
        family: String,
        /// The project directory to write into.
        #[arg(long)]
        project: String,
        /// An arm and its metrics: `NAME:metric=value,metric=value`. Repeat per arm.
        #[arg(long = "arm", value_name = "ARM", required = true)]
        arms: Vec<String>,
        /// The corpus the arms were evaluated on.
        #[arg(long)]
        corpus: Option<String>,
        /// Declare a metric's direction: `metric=lower_is_better|higher_is_better`.
        #[arg(long = "direction", value_name = "METRIC=DIR")]
        directions: Vec<String>,
        /// Write the files (without it, only preview).
        #[arg(long)]
        yes: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum EmitTarget {
    Hermes,
    Claude,
}

/// What `attest eval` measures.
#[derive(Debug, Clone, Subcommand)]
pub enum EvalWhat {
    /// Score the routers on a labelled file (one JSON object a line: `{"s": "feed|runs|kg|sym",
    /// "q": "question", "t": "tool or null for ask-back", "args": {...}}`): right, routed to a
    /// wrong tool, declined, stated arguments, and each miss. Exit 1 when any question
    /// went to a wrong tool.
    Routing {
        /// The labelled file (`-` for stdin).
        file: PathBuf,
    },
    /// How well the ranking predicts a reader's own ratings.
    Feed(feed::EvalArgs),
    /// Ask a live model (any OpenAI-compatible chat endpoint with tool calling) each
    /// labelled turn three ways: routed (the surface's `<ns>.ask`, run by the real surface
    /// binary), flat (every tool of `attest serve`), swarm (a supervisor picks the
    /// surface, then its tools). Per arm: right, wrong tool, nothing called, p50/p95
    /// latency, tools shown. See specs/agents-eval.md.
    Agents(crate::eval_agents::Args),
}

/// Parse, run, and map the outcome to an exit code (2 for usage errors).
pub fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`attest kg-report | head`),
    // as other command-line tools do, instead of failing a write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE, before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let config = match Config::resolve(&attest_mcp::inputs_from_env(&cli.common)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("attest: {e}");
            return ExitCode::from(2);
        }
    };
    if cli.json
        && let Some(why) = no_json(&cli.command)
    {
        eprintln!("attest: --json does not apply here: {why}");
        return ExitCode::from(2);
    }
    if let Err(msg) = suggest::database(&config.db, database_use(&cli.command), cli.create) {
        eprintln!("attest: {msg}");
        return ExitCode::from(2);
    }
    let rt = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("attest: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(cli.command, config, cli.json, cli.create)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("attest: {}", said_once(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes, each said once: a cause whose words are already there is
/// left out, and so is a database driver's own text (attest's errors carry the database
/// trouble in words naming the file and the fix, `attest_store::words`).
fn said_once(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        if cause.downcast_ref::<sqlx::Error>().is_some() {
            continue;
        }
        let text = cause.to_string();
        if !text.is_empty() && !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
    }
    out
}

/// Why `--json` means nothing for a command (it prints no answer, or prints a format of
/// its own); `None` when the command prints JSON with it.
fn no_json(command: &Command) -> Option<&'static str> {
    match command {
        Command::Serve { .. } => Some("`attest serve` speaks MCP (JSON-RPC) itself"),
        Command::Emit { .. } => {
            Some("`attest emit` prints the agent's own configuration format (`emit claude` is JSON)")
        }
        Command::Setup { .. } => {
            Some("`attest setup` writes a configuration file; `attest setup --check` says what differs")
        }
        Command::Completions { .. } | Command::Man => Some("it prints a script or a manual page"),
        Command::Demo { .. } => Some("the demo is a walkthrough for a person; each command it shows takes --json"),
        Command::Web { .. } => Some("`attest web` serves pages to a browser"),
        Command::Feed { command: feed::FeedCommand::Export } => {
            Some("`attest feed export` prints OPML; `attest feed sources --json` lists the subscriptions as JSON")
        }
        _ => None,
    }
}

/// What a command does with the database: nothing, read it (so it must exist), or
/// fill it (so it may create it).
fn database_use(command: &Command) -> suggest::DbUse {
    use suggest::DbUse;
    match command {
        Command::Runs { command: RunsCommand::Scan { .. } | RunsCommand::Record { .. } }
        | Command::Ingest(_)
        | Command::Feed { command: feed::FeedCommand::Add { .. } }
        | Command::Cite { command: cite::CiteCommand::Sync { .. } }
        | Command::Serve { .. }
        | Command::Web { .. } => DbUse::Fills,
        Command::Feed { command: feed::FeedCommand::Personas { command: feed::PersonaCommand::Create { .. } } } => {
            DbUse::Fills
        }
        Command::Route { .. }
        | Command::Eval { what: Some(EvalWhat::Routing { .. } | EvalWhat::Agents(_)), .. }
        | Command::Sym { .. }
        | Command::Emit { .. }
        | Command::Setup { .. }
        | Command::Doctor { .. }
        | Command::Completions { .. }
        | Command::Man
        | Command::Restore { .. }
        | Command::Demo { .. } => DbUse::None,
        _ => DbUse::Reads,
    }
}

/// `attest migrate --to DATABASE`: copy every table, verify the counts, say so.
async fn migrate(config: &Config, to: &std::path::Path, replace: bool, json: bool) -> anyhow::Result<ExitCode> {
    let (from_shown, to_shown) = (attest_store::shown(&config.db), attest_store::shown(to));
    if from_shown == to_shown {
        return usage(format!("--to names the database being copied ({from_shown}); name another one"));
    }
    let from = attest_store::Store::open(&config.db).await?;
    let target = attest_store::Store::open(to).await?;
    let copied = match attest_store::copy::copy(&from, &target, replace).await {
        Ok(c) => c,
        Err(e @ attest_store::copy::CopyError::NotEmpty { .. }) => return usage(e),
        Err(attest_store::copy::CopyError::Sql(e)) => anyhow::bail!("{}", attest_store::words(&e, target.path())),
        Err(e) => anyhow::bail!("{e}"),
    };
    if json {
        let tables: serde_json::Map<String, serde_json::Value> =
            copied.tables.iter().map(|(t, n)| (t.clone(), json!(n))).collect();
        println!(
            "{}",
            json!({ "ok": true, "from": from_shown, "to": to_shown, "rows": copied.total(), "tables": tables })
        );
    } else {
        println!(
            "copied {} from {from_shown} to {to_shown}; every table's row count matches:",
            attest_core::text::plural(copied.total() as usize, "row", "rows")
        );
        for (t, n) in &copied.tables {
            println!("  {t:<14} {n}");
        }
        println!("point ATTEST_DB (or --db) at {to_shown} to use it");
    }
    Ok(ExitCode::SUCCESS)
}

/// `attest restore FILE`: check the backup, save the current database, replace it.
async fn restore(config: &Config, file: &std::path::Path, json: bool) -> anyhow::Result<ExitCode> {
    use attest_store::restore::RestoreError;
    let shown = attest_store::shown(&config.db);
    let restored = match attest_store::restore::restore(&config.db, file).await {
        Ok(r) => r,
        Err(e @ (RestoreError::Missing(_) | RestoreError::Same(_))) => return usage(e),
        Err(e) => {
            eprintln!("attest: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let checked = &restored.checked;
    if json {
        let tables: serde_json::Map<String, Value> =
            checked.tables.iter().map(|(t, n)| (t.clone(), json!(n))).collect();
        println!(
            "{}",
            json!({
                "ok": true,
                "database": shown,
                "restored": file,
                "schema_version": checked.version,
                "rows": checked.total(),
                "tables": tables,
                "saved": restored.saved,
                "saved_raw": restored.saved_raw,
            })
        );
    } else {
        println!(
            "checked {}: SQLite's integrity check is ok, schema version {} (this attest: {}), {}:",
            file.display(),
            checked.version,
            attest_store::known_version(),
            attest_core::text::plural(checked.total() as usize, "row", "rows")
        );
        for (t, n) in &checked.tables {
            println!("  {t:<14} {n}");
        }
        match &restored.saved {
            Some(saved) if restored.saved_raw => println!(
                "the database it replaced could not be read by SQLite; its bytes were saved as they were to {}",
                saved.display()
            ),
            Some(saved) => println!("the database it replaced was saved to {}", saved.display()),
            None => println!("there was no database at {shown} before"),
        }
        println!("restored {} as {shown}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Usage error: message to stderr, exit 2.
fn usage(msg: impl std::fmt::Display) -> anyhow::Result<ExitCode> {
    eprintln!("attest: {msg}");
    Ok(ExitCode::from(2))
}

async fn run(command: Command, config: Config, json: bool, create: bool) -> anyhow::Result<ExitCode> {
    match command {
        Command::Runs { command } => runs(command, &config, json).await,
        Command::Claims { path, coverage, verdict } => claims(path, coverage, verdict, &config, json).await,
        Command::Ingest(args) => feed::ingest(args, &config, json).await,
        Command::Feed { command } => feed::run(command, &config, json, create).await,
        Command::Eval { what: Some(EvalWhat::Routing { file }), .. } => eval_routing(&file, json),
        Command::Eval { what: Some(EvalWhat::Feed(args)), .. } => feed::eval(args, &config, json).await,
        Command::Eval { what: Some(EvalWhat::Agents(args)), .. } => crate::eval_agents::main(args, json).await,
        Command::Eval { what: None, user: Some(user) } => feed::eval(feed::EvalArgs { user }, &config, json).await,
        Command::Eval { what: None, user: None } => {
            usage("say what to evaluate: `attest eval routing FILE` or `attest eval feed --user NAME`")
        }
        Command::Sym { command } => sym::run(command, json).await,
        Command::Kg(command) => kg::run(command, &config, json).await,
        Command::Cite { command } => cite::run(command, &config, json).await,
        Command::Route { surface, question } => route(&surface, question),
        Command::Serve { surface, http } => serve(surface, http, &config).await,
        Command::Backup { dest } => {
            let store = attest_store::Store::open(&config.db).await?;
            store.backup(&dest).await?;
            let shown = attest_store::shown(&config.db);
            if json {
                println!("{}", json!({ "ok": true, "database": shown, "copy": dest }));
            } else {
                println!("wrote a copy of {shown} to {}", dest.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Migrate { to, replace } => migrate(&config, &to, replace, json).await,
        Command::Restore { file } => restore(&config, &file, json).await,
        Command::Emit { target, bin_dir } => {
            let Some(found) = surfaces_for_agents(bin_dir, &config)? else {
                return Ok(ExitCode::from(2));
            };
            print!(
                "{}",
                match target {
                    EmitTarget::Hermes => emit::hermes(&found, &config),
                    EmitTarget::Claude => emit::claude(&found, &config),
                }
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Doctor { bin_dir } => {
            let dir = match bin_dir {
                Some(d) => std::path::absolute(&d).unwrap_or(d),
                None => std::env::current_exe()?.parent().context("executable has no directory")?.to_path_buf(),
            };
            let (found, _) = emit::find_binaries(&dir);
            doctor::run(&config, &dir, &found, json).await
        }
        Command::Setup { agent, config: file, check, bin_dir } => {
            let Some(found) = surfaces_for_agents(bin_dir, &config)? else {
                return Ok(ExitCode::from(2));
            };
            let agent = match agent {
                EmitTarget::Hermes => setup::Agent::Hermes,
                EmitTarget::Claude => setup::Agent::Claude,
            };
            let path = match file {
                Some(f) => f,
                None => setup::default_path(agent)?,
            };
            match setup::run(agent, &path, check, &found, &config) {
                Ok(code) => Ok(code),
                Err(e) => usage(format!("{e:#}")),
            }
        }
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "attest", &mut std::io::stdout().lock());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man => {
            clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Demo { workspace } => demo::run(workspace).await,
        Command::Web { addr } => crate::web::run(addr, &config).await,
    }
}

/// The surface binaries in `bin_dir` (default: beside this executable), with a note for
/// each missing one and for an unset research root; `None` (after saying why) when
/// there are none.
fn surfaces_for_agents(bin_dir: Option<PathBuf>, config: &Config) -> anyhow::Result<Option<Vec<emit::Found>>> {
    let dir = match bin_dir {
        Some(d) => std::path::absolute(&d).unwrap_or(d),
        None => std::env::current_exe()?.parent().context("executable has no directory")?.to_path_buf(),
    };
    let (found, missing) = emit::find_binaries(&dir);
    for s in &missing {
        eprintln!("note: {} is not installed in {}; its surface is left out", s.binary, dir.display());
    }
    if found.is_empty() {
        eprintln!(
            "attest: no surface binaries in {}: install them first (see README), or pass --bin-dir",
            dir.display()
        );
        return Ok(None);
    }
    if config.root.is_none() {
        eprintln!(
            "note: RESEARCH_ROOT is not set, so the provenance and knowledge servers get no research root; set it (or pass --root) and run this again"
        );
    }
    Ok(Some(found))
}

/// Every tool linked into this binary, optionally cut to one surface.
pub async fn catalogue(config: &Config) -> anyhow::Result<Catalogue> {
    let mut c = Catalogue::new();
    let sources = citation_sources(config);
    c.extend(attest_runs::tools::catalogue(config, Some(claim_citations(&sources))).await?);
    c.extend(feed::catalogue(config).await?);
    c.merge(attest_kg::tools::catalogue(config, attest_feed::embed::from_env(|k| std::env::var(k).ok())).await?);
    c.merge(attest_cite::library_tools::catalogue(config, std::sync::Arc::clone(&sources)).await?);
    c.merge(Catalogue::from(vec![attest_cite::tools::check_tool(sources, config.root.clone())]));
    c.merge(attest_sym::tools::catalogue(std::sync::Arc::new(sym_sandbox()?)));
    Ok(c)
}

/// The citation sources the environment configures (CrossRef too when asked for).
pub(crate) fn citation_sources(config: &Config) -> std::sync::Arc<attest_cite::Sources> {
    let sources = attest_cite::scan::resolver_config(|k| std::env::var(k).ok(), config.root.as_deref());
    attest_cite::Sources::lazy(attest_crossref::enable(sources))
}

/// The claims check's view of those sources: `cite=` keys no source knows are `uncited`.
pub(crate) fn claim_citations(
    sources: &std::sync::Arc<attest_cite::Sources>,
) -> std::sync::Arc<dyn attest_runs::tools::Citations> {
    use attest_runs::claims::{CiteResolver, KeyCheck};
    let sources = std::sync::Arc::clone(sources);
    std::sync::Arc::new(move || {
        let sources = std::sync::Arc::clone(&sources);
        async move {
            let r = sources.get().await;
            std::sync::Arc::new(KeyCheck { sources: r.source_names(), resolves: move |k: &str| r.resolves(k) })
                as std::sync::Arc<dyn CiteResolver + Send>
        }
    })
}

/// The symbolic tools' executor for `attest serve`: this binary's `worker` mode in the
/// sandbox's processes, with its default limits (a wall-clock timeout and a memory cap),
/// exactly as `attest-symbolic` runs them.
fn sym_sandbox() -> anyhow::Result<impl Fn(Value) -> attest_sym::tools::Pending + Send + Sync> {
    let program = std::env::current_exe().context("cannot find this executable to start symbolic workers")?;
    let mut spec = attest_sandbox::Spec::new(program);
    spec.args = vec!["worker".into()];
    spec.workers = 2;
    let pool = attest_sandbox::Pool::new(spec);
    Ok(move |request: Value| -> attest_sym::tools::Pending {
        let pool = pool.clone();
        // One lane per MCP session: free workers go to the sessions in turn.
        let lane = attest_mcp::current_session().unwrap_or(0);
        Box::pin(async move { pool.call_in(lane, &request).await.map_err(|e| e.to_string()) })
    })
}

/// Call a tool and print its answer; returns the answer for exit-code decisions.
async fn call(config: &Config, tool: &str, args: Value, json: bool) -> anyhow::Result<Answer<Value>> {
    let catalogue = attest_runs::tools::catalogue(config, Some(claim_citations(&citation_sources(config))))
        .await?
        .with_budget(Budget::Whole);
    let args: JsonObject = args.as_object().cloned().unwrap_or_default();
    let answer = catalogue.call(tool, args).await.map_err(|f| anyhow::anyhow!("{f}"))?;
    if json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&answer)?)?;
    } else {
        print::answer(&mut anstream::stdout().lock(), &answer)?;
    }
    Ok(answer)
}

fn code(answer: &Answer<Value>) -> ExitCode {
    if answer.ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

async fn runs(command: RunsCommand, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let (tool, args) = match command {
        RunsCommand::Scan { project, explain } => return scan(project, explain, config, json).await,
        RunsCommand::List { project, family, limit } => {
            ("runs.list", json!({ "project": project, "family": family, "limit": limit }))
        }
        RunsCommand::Compare { family, metric, project } => {
            if let Err(msg) = suggest::family_and_metric(config, &family, metric.as_deref(), project.as_deref()).await?
            {
                return usage(msg);
            }
            ("runs.compare", json!({ "family": family, "metric": metric, "project": project }))
        }
        RunsCommand::Show { name, project } => ("runs.detail", json!({ "name": name, "project": project })),
        RunsCommand::Record { family, project, arms, corpus, directions, yes } => {
            let arms = match parse_arms(&arms) {
                Ok(a) => a,
                Err(e) => return usage(e),
            };
            let directions = match parse_pairs(&directions) {
                Ok(d) => d,
                Err(e) => return usage(e),
            };
            (
                "runs.record",
                json!({ "family": family, "project": project, "arms": arms, "corpus": corpus,
                        "directions": directions, "confirm": yes }),
            )
        }
    };
    let answer = call(config, tool, args, json).await?;
    Ok(code(&answer))
}

/// `attest runs scan`: the same scan and answer as `runs.scan`, with a progress bar
/// when stderr is a terminal.
async fn scan(project: Option<String>, explain: bool, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let Some(root) = config.root.clone() else {
        return usage("no research root: pass --root DIR or set RESEARCH_ROOT to the directory holding your projects");
    };
    let store = attest_store::Store::open(&config.db).await?;
    let opts = attest_runs::ledger::LedgerOptions {
        metric_directions: config.metric_directions.clone(),
        root: Some(root.clone()),
    };
    let ledger = attest_runs::ledger::Ledger::new(store, opts);
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(0);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} projects  {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    let report = ledger
        .scan(&root, project.as_deref(), |p| {
            if let Some(b) = &bar {
                b.set_length(p.total as u64);
                b.set_position(p.index as u64);
                b.set_message(format!("{} ({} runs so far)", p.project, p.runs_so_far));
            }
            std::ops::ControlFlow::Continue(())
        })
        .await;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let (answer, skipped) = match report {
        Ok(r) => {
            let skipped = r.skipped.clone();
            (attest_runs::tools::scan_answer(r).into_value().used("runs.scan"), skipped)
        }
        Err(attest_runs::LedgerError::Refused(msg)) => (Answer::refuse(msg), Vec::new()),
        Err(attest_runs::LedgerError::Store(e)) => {
            let shown = attest_store::shown(&config.db);
            anyhow::bail!("{}", attest_store::words(&e, Some(std::path::Path::new(&shown))))
        }
        Err(e) => return Err(e.into()),
    };
    if json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(&answer)?)?;
    } else {
        let mut out = anstream::stdout().lock();
        print::answer(&mut out, &answer)?;
        if explain {
            if skipped.is_empty() {
                writeln!(out, "\nno file was skipped")?;
            } else {
                writeln!(out, "\n{} skipped:", skipped.len())?;
                for f in &skipped {
                    writeln!(out, "  {}/{}: {}", f.project, f.path, f.reason)?;
                }
            }
        }
    }
    Ok(code(&answer))
}

fn parse_arms(specs: &[String]) -> anyhow::Result<Value> {
    let mut arms = serde_json::Map::new();
    for spec in specs {
        let Some((arm, metrics)) = spec.split_once(':') else {
            bail!("--arm '{spec}' should look like NAME:metric=value,metric=value");
        };
        let mut m = serde_json::Map::new();
        for pair in metrics.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((k, v)) = pair.split_once('=') else { bail!("--arm '{spec}': '{pair}' is not metric=value") };
            let v: f64 = v.trim().parse().with_context(|| format!("--arm '{spec}': '{v}' is not a number"))?;
            m.insert(k.trim().to_string(), json!(v));
        }
        arms.insert(arm.trim().to_string(), Value::Object(m));
    }
    Ok(Value::Object(arms))
}

fn parse_pairs(specs: &[String]) -> anyhow::Result<Value> {
    let mut out = serde_json::Map::new();
    for spec in specs {
        let Some((k, v)) = spec.split_once('=') else { bail!("--direction '{spec}' should be metric=lower_is_better") };
        out.insert(k.trim().to_string(), json!(v.trim()));
    }
    Ok(Value::Object(out))
}

async fn claims(
    path: Option<PathBuf>,
    coverage: bool,
    verdict: Option<String>,
    config: &Config,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let path = match path.or_else(|| config.root.clone()) {
        Some(p) => p,
        None => return usage("pass a draft or directory, or set RESEARCH_ROOT"),
    };
    // A relative path is read from the current directory when it exists there, else
    // from the research root (as the MCP tools read it).
    let path = if path.is_relative() && !path.exists() && config.root.is_some() {
        path
    } else {
        std::path::absolute(&path).unwrap_or(path)
    };
    // With no research root configured, the draft's own directory stands in for it.
    let mut config = config.clone();
    if config.root.is_none() {
        config.root =
            Some(if path.is_dir() { path.clone() } else { path.parent().map(PathBuf::from).unwrap_or_default() });
    }
    let config = &config;
    if let Some(v) = &verdict
        && let Err(e) = v.parse::<attest_runs::claims::Verdict>()
    {
        return usage(e);
    }
    if coverage {
        let a = call(config, "runs.claims_coverage", json!({ "path": path }), json).await?;
        return Ok(code(&a));
    }
    let a = call(config, "runs.claims_check", json!({ "path": path, "verdict": verdict }), json).await?;
    if !a.ok {
        return Ok(ExitCode::FAILURE);
    }
    // Gate a commit: anything contradicted or malformed fails.
    let data = a.data.unwrap_or(Value::Null);
    let contradicted = data["counts"]["contradicted"].as_u64().unwrap_or(0);
    let malformed = data["malformed"].as_array().map_or(0, Vec::len) as u64;
    Ok(if contradicted + malformed > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn router(namespace: &str) -> Option<fn(&str) -> Decision> {
    match namespace {
        "runs" | "provenance" => Some(attest_runs::router::route),
        "sym" | "symbolic" => Some(|q| attest_sym::route(q, "")),
        "feed" => Some(attest_feed::router::route),
        "kg" | "knowledge" => Some(attest_kg::router::route),
        _ => None,
    }
}

/// The router of a surface, deciding a question with the ask's other arguments
/// (`attest eval routing` reads them from a line's `given`).
fn router_given(namespace: &str) -> Option<fn(&str, &attest_core::ask::Args) -> Decision> {
    match namespace {
        "runs" | "provenance" => Some(|q, g| attest_runs::router::ROUTER.decide(q, g)),
        "sym" | "symbolic" => Some(|q, g| attest_sym::router::ROUTER.decide(q, g)),
        "feed" => Some(|q, g| attest_feed::router::ROUTER.decide(q, g)),
        "kg" | "knowledge" => Some(|q, g| attest_kg::router::ROUTER.decide(q, g)),
        _ => None,
    }
}

fn decision_json(d: &Decision) -> Value {
    json!({ "tool": d.tool, "args": d.args, "options": d.options, "answer": d.answer })
}

/// `attest eval routing FILE`.
fn eval_routing(file: &std::path::Path, json: bool) -> anyhow::Result<ExitCode> {
    use attest_core::routing_eval;
    let text = if file.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())?
    } else {
        match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => return usage(format!("cannot read {}: {e}", file.display())),
        }
    };
    let (cases, given): (Vec<_>, Vec<_>) = match routing_eval::parse_given(&text) {
        Ok(c) => c.into_iter().unzip(),
        Err(e) => return usage(format!("{}: {e}", file.display())),
    };
    let report = routing_eval::score_given(&cases, &given, |s, q, g| match router_given(s) {
        Some(route) => route(q, g),
        None => Decision::ask_back(format!("no router for '{s}'"), &[]),
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", routing_eval::render(&report));
    }
    Ok(if report.overall.wrong > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn route(surface: &str, question: Option<String>) -> anyhow::Result<ExitCode> {
    let Some(route) = router(surface) else {
        let known = ["runs", "sym", "feed", "kg"];
        return usage(format!("unknown surface '{surface}': use one of {}", known.join(", ")));
    };
    let mut out = std::io::stdout().lock();
    match question {
        Some(q) => writeln!(out, "{}", decision_json(&route(&q)))?,
        None => {
            for line in std::io::stdin().lock().lines() {
                writeln!(out, "{}", decision_json(&route(&line?)))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn serve(surface: Option<String>, http: Option<SocketAddr>, config: &Config) -> anyhow::Result<ExitCode> {
    let catalogue = catalogue(config).await?;
    let served = match surface.as_deref() {
        None => Served::flat(catalogue, config.tool_names),
        Some(name) => match Surface::find(name) {
            Some(s) if catalogue.tools().iter().any(|t| s.allows(t.name())) => {
                Served::surface(catalogue, s, config.tool_names, config.expand)
            }
            Some(s) => return usage(format!("the {} surface is not built into this attest yet", s.name)),
            None => {
                let names: Vec<&str> = attest_core::SURFACES.iter().map(|s| s.name).collect();
                return usage(format!("unknown surface '{name}': use one of {}", names.join(", ")));
            }
        },
    };
    let transport = http.map_or(Transport::Stdio, Transport::Http);
    attest_mcp::serve(served, transport, config.http_token.as_deref()).await?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every flag or argument says what it is for in `--help`.
    #[test]
    fn every_command_and_flag_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let here = format!("{path} {}", cmd.get_name()).trim().to_string();
            if cmd.get_about().is_none() && cmd.get_long_about().is_none() {
                missing.push(here.clone());
            }
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if ["help", "version"].contains(&id) {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{here} {id}"));
                }
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, &here, missing);
            }
        }
        let mut missing = Vec::new();
        let mut cmd = Cli::command();
        cmd.build();
        walk(&cmd, "", &mut missing);
        assert!(missing.is_empty(), "commands or flags without help text: {missing:#?}");
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }
}
