//! The feed commands: `attest ingest`, `attest feed …` and `attest eval`.
//!
//! `attest feed` runs the same catalogue tools the `attest-feed` MCP server serves, so
//! a person at a terminal and an agent see the same order, caveats and refusals. The
//! one difference: addresses typed here may be local files (a person chose them),
//! while the server reads only http(s) unless `ATTEST_FEED_LOCAL=1`.
//!
//! Mount (in cli.rs): `Ingest(feed::IngestArgs)`, `Feed { #[command(subcommand)]
//! command: feed::FeedCommand }`, `Eval(feed::EvalArgs)`, dispatched to
//! [`ingest`], [`run`] and [`eval`].

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use attest_core::catalogue::JsonObject;
use attest_core::text::plural;
use attest_core::{Answer, Catalogue, Config};
use attest_feed::fetch::{FetchOptions, Fetcher};
use attest_feed::tools::Context;
use attest_feed::{FeedStore, ingest as feed_ingest, opml};
use serde_json::{Value, json};

/// `attest ingest`: subscribe (a feeds file seeds only a new database; OPML adds to
/// any), then fetch every subscribed feed and store what is new.
#[derive(Debug, Clone, clap::Args)]
pub struct IngestArgs {
    /// A feeds file (TOML `[[feeds]] url = "…", title = "…"`). It seeds a new database
    /// only; afterwards the database lists the feeds.
    #[arg(long, value_name = "FILE")]
    pub feeds: Option<PathBuf>,
    /// An OPML file of subscriptions to add (any database).
    #[arg(long, value_name = "FILE")]
    pub opml: Option<PathBuf>,
}

/// `attest eval`: how well the served ranking predicts a reader's own ratings.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    /// The reader to evaluate.
    #[arg(long, env = "ATTEST_USER")]
    pub user: String,
}

/// `attest feed …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum FeedCommand {
    /// What should I read today: unrated items of the window, best first.
    List {
        /// The reader.
        #[arg(long, env = "ATTEST_USER")]
        user: String,
        /// How many, 1 to 16.
        #[arg(long)]
        limit: Option<i64>,
        /// The window in days (default 14).
        #[arg(long)]
        days: Option<i64>,
    },
    /// Search the whole archive, best for the reader first.
    Search {
        /// What to look for.
        query: String,
        /// The reader (default: $ATTEST_USER).
        #[arg(long, env = "ATTEST_USER")]
        user: String,
        /// Only items with this tag.
        #[arg(long)]
        tag: Option<String>,
        /// Only items published on or after this date (YYYY-MM-DD).
        #[arg(long)]
        since: Option<String>,
        /// How many to show, at most.
        #[arg(long)]
        limit: Option<i64>,
    },
    /// Show one item in full.
    Read {
        /// The item id, as `attest feed list` shows it.
        item_id: i64,
        /// The reader (default: $ATTEST_USER).
        #[arg(long, env = "ATTEST_USER")]
        user: String,
    },
    /// Mark an item useful (or, with --not, not useful).
    Rate {
        /// The item id, as `attest feed list` shows it.
        item_id: i64,
        /// The reader (default: $ATTEST_USER).
        #[arg(long, env = "ATTEST_USER")]
        user: String,
        /// Not useful.
        #[arg(long = "not")]
        not_useful: bool,
    },
    /// Why an item is ranked where it is.
    Explain {
        /// The item id, as `attest feed list` shows it.
        item_id: i64,
        /// The reader (default: $ATTEST_USER).
        #[arg(long, env = "ATTEST_USER")]
        user: String,
    },
    /// The week grouped by topic.
    Digest {
        /// The reader (default: $ATTEST_USER).
        #[arg(long, env = "ATTEST_USER")]
        user: String,
        /// The window in days (default 14).
        #[arg(long)]
        days: Option<i64>,
        /// How many to show, at most.
        #[arg(long)]
        limit: Option<i64>,
    },
    /// List subscriptions (failing ones first).
    Sources {
        /// How many to show, at most.
        #[arg(long, default_value_t = 16)]
        limit: i64,
    },
    /// Subscribe to a feed (an http(s) address or a local file), fetching it once.
    Add {
        /// The feed's address: http(s), or a local file.
        url: String,
        /// A title for it (default: the feed's own).
        #[arg(long)]
        title: Option<String>,
        /// Only register it; fetch at the next `attest ingest`.
        #[arg(long)]
        no_fetch: bool,
    },
    /// Unsubscribe (by feed id or address); items and ratings stay.
    Remove {
        /// A feed id from `attest feed sources`, or the feed's address.
        feed: String,
    },
    /// Look at a feed without subscribing.
    Preview {
        /// The feed's address: http(s), or a local file.
        url: String,
        /// How many to show, at most.
        #[arg(long)]
        limit: Option<i64>,
    },
    /// Print the subscriptions as OPML.
    Export,
    /// Readers (personas): list, create, update, status, reset, delete, suggest.
    Personas {
        /// What to do with the readers.
        #[command(subcommand)]
        command: PersonaCommand,
    },
}

/// `attest feed personas …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum PersonaCommand {
    /// List the readers.
    List,
    /// Create a reader.
    Create {
        /// The reader's name.
        name: String,
        /// Their interests, in plain words ("speech recognition, distillation").
        interests: String,
    },
    /// Replace (or with --append, extend) a reader's interests.
    Update {
        /// The reader's name.
        name: String,
        /// The interests, in plain words.
        interests: String,
        /// Add to the interests instead of replacing them.
        #[arg(long)]
        append: bool,
    },
    /// A reader's ratings, interests and how far to trust their ranking.
    Status {
        /// The reader's name.
        name: String,
    },
    /// Forget a reader's ratings (keeps the reader).
    Reset {
        /// The reader's name.
        name: String,
        /// Go ahead (without it, only says what would be erased).
        #[arg(long)]
        yes: bool,
    },
    /// Delete a reader and their ratings.
    Delete {
        /// The reader's name.
        name: String,
        /// Go ahead (without it, only says what would be erased).
        #[arg(long)]
        yes: bool,
    },
    /// Suggest interests from what the archive covers.
    Suggest {
        /// How many to show, at most.
        #[arg(long)]
        limit: Option<i64>,
    },
}

/// The fetcher for commands a person types: local files allowed.
fn person_fetcher() -> Fetcher {
    Fetcher::new(FetchOptions { allow_local: true, ..FetchOptions::default() })
}

async fn open(config: &Config) -> anyhow::Result<FeedStore> {
    let store = attest_store::Store::open(&config.db)
        .await
        .with_context(|| format!("cannot open the database {}", attest_store::shown(&config.db)))?;
    Ok(FeedStore::new(store))
}

/// The feed catalogue for the CLI.
pub async fn catalogue(config: &Config) -> anyhow::Result<Catalogue> {
    let store = open(config).await?;
    // The embedding server and feed.research come from the environment, as in the server.
    Ok(attest_feed::tools::tools(Arc::new(Context::with_fetcher(store, person_fetcher()).with_env_services()))
        .with_budget(attest_core::Budget::Whole))
}

fn print_answer(answer: &Answer<Value>, json: bool) -> anyhow::Result<()> {
    if json {
        writeln!(std::io::stdout().lock(), "{}", serde_json::to_string_pretty(answer)?)?;
    } else {
        let mut out = anstream::stdout().lock();
        crate::print::answer(&mut out, answer)?;
    }
    Ok(())
}

fn code(ok: bool) -> ExitCode {
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

/// Run `attest feed <command>`: exit 0 when the answer is `ok`, 1 otherwise.
pub async fn run(cmd: FeedCommand, config: &Config, json: bool, create: bool) -> anyhow::Result<ExitCode> {
    // A reader the tools would create on the spot: a typo must not make a new one.
    let reader = match &cmd {
        FeedCommand::List { user, .. }
        | FeedCommand::Search { user, .. }
        | FeedCommand::Read { user, .. }
        | FeedCommand::Rate { user, .. }
        | FeedCommand::Explain { user, .. }
        | FeedCommand::Digest { user, .. } => Some(user.clone()),
        _ => None,
    };
    if let Some(user) = reader
        && let Err(msg) = crate::suggest::reader(&open(config).await?, &user, create).await?
    {
        eprintln!("attest: {msg}");
        return Ok(ExitCode::from(2));
    }
    let (tool, args) = match cmd {
        FeedCommand::List { user, limit, days } => ("feed.list", json!({"user": user, "limit": limit, "days": days})),
        FeedCommand::Search { query, user, tag, since, limit } => {
            ("feed.search", json!({"user": user, "query": query, "tag": tag, "since": since, "limit": limit}))
        }
        FeedCommand::Read { item_id, user } => ("feed.read", json!({"user": user, "item_id": item_id})),
        FeedCommand::Rate { item_id, user, not_useful } => {
            ("feed.rate", json!({"user": user, "item_id": item_id, "useful": !not_useful, "source": "ui"}))
        }
        FeedCommand::Explain { item_id, user } => ("feed.explain", json!({"user": user, "item_id": item_id})),
        FeedCommand::Digest { user, days, limit } => {
            ("feed.digest", json!({"user": user, "days": days, "limit": limit}))
        }
        FeedCommand::Sources { limit } => ("feed.sources", json!({"limit": limit})),
        FeedCommand::Add { url, title, no_fetch } => {
            ("feed.source_add", json!({"url": url, "title": title, "fetch": !no_fetch}))
        }
        FeedCommand::Remove { feed } => match feed.trim().parse::<i64>() {
            Ok(id) => ("feed.source_remove", json!({"feed_id": id})),
            Err(_) => ("feed.source_remove", json!({"url": feed})),
        },
        FeedCommand::Preview { url, limit } => ("feed.source_preview", json!({"url": url, "limit": limit})),
        FeedCommand::Export => {
            let store = open(config).await?;
            print!("{}", opml::export(&store).await?);
            return Ok(ExitCode::SUCCESS);
        }
        FeedCommand::Personas { command } => match command {
            PersonaCommand::List => return personas(config, json).await,
            PersonaCommand::Create { name, interests } => {
                ("feed.persona_create", json!({"user": name, "interests": interests}))
            }
            PersonaCommand::Update { name, interests, append } => {
                ("feed.persona_update", json!({"user": name, "interests": interests, "append": append}))
            }
            PersonaCommand::Status { name } => ("feed.persona_status", json!({"user": name})),
            PersonaCommand::Reset { name, yes } => ("feed.persona_reset", json!({"user": name, "confirm": yes})),
            PersonaCommand::Delete { name, yes } => ("feed.persona_delete", json!({"user": name, "confirm": yes})),
            PersonaCommand::Suggest { limit } => ("feed.persona_suggest_interests", json!({"limit": limit})),
        },
    };
    let catalogue = catalogue(config).await?;
    let args: JsonObject = strip_nulls(args);
    let answer = catalogue.call(tool, args).await.map_err(|f| anyhow::anyhow!("{f}"))?;
    print_answer(&answer, json)?;
    Ok(code(answer.ok))
}

fn strip_nulls(v: Value) -> JsonObject {
    v.as_object()
        .map(|o| o.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

async fn personas(config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let store = open(config).await?;
    let readers = store.readers().await?;
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&readers)?)?;
    } else if readers.is_empty() {
        writeln!(out, "no readers yet: attest feed personas create NAME \"interests\"")?;
    } else {
        for r in &readers {
            let n = store.clicks(r.id).await?.len();
            writeln!(out, "{}  ({} ratings)  {}", r.name, n, attest_core::text::clip(&r.interests, 100))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Run `attest ingest`: exit 0 when at least one feed was read (failures are listed),
/// 1 when every feed failed, 2 when there is nothing to ingest.
pub async fn ingest(args: IngestArgs, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let store = open(config).await?;
    let mut notes: Vec<String> = Vec::new();
    if let Some(path) = &args.opml {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let r = opml::import(&store, &text).await?;
        notes.push(format!("OPML {}: {} subscribed, {} already", path.display(), r.subscribed, r.already));
        for f in &r.refused {
            notes.push(format!("refused {}: {}", f.url, f.error));
        }
    }
    if let Some(path) = &args.feeds {
        let seeds = feed_ingest::read_feeds_file(path)?;
        let s = feed_ingest::seed(&store, &seeds).await?;
        notes.push(match (s.seeded, s.reason) {
            (true, _) => format!("seeded {} from {}", plural(s.subscribed, "feed", "feeds"), path.display()),
            (false, Some(why)) => format!("{} not used: {why}", path.display()),
            (false, None) => format!("{} not used", path.display()),
        });
    }
    if store.counts().await?.feeds == 0 {
        for n in &notes {
            eprintln!("{n}");
        }
        eprintln!(
            "attest: no subscriptions to fetch: pass --feeds FILE (seeds a new database) or --opml FILE, or add one with attest feed add URL"
        );
        return Ok(ExitCode::from(2));
    }
    let n_feeds = store.counts().await?.feeds;
    let bar = (!json && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(n_feeds as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} feeds  {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b
    });
    // One line per feed as it finishes (above the bar), in the order they finish.
    let mut lines: Vec<(i64, String)> = Vec::new();
    // With EMBED_BASE_URL set, near-duplicate concepts are merged after tagging.
    let embed = attest_feed::embed::from_env(|k| std::env::var(k).ok());
    let fetcher = person_fetcher();
    let concurrency = feed_ingest::DEFAULT_CONCURRENCY;
    let report = feed_ingest::ingest_all_embedded(&store, &fetcher, concurrency, embed.as_ref(), |done| {
        let name = done.feed.title.clone().filter(|t| !t.trim().is_empty()).unwrap_or_else(|| done.feed.url.clone());
        let line = match &done.outcome {
            Ok(o) if o.not_modified => format!("  ok      {name}: not modified since the last fetch"),
            Ok(o) => format!("  ok      {name}: {} new, {} updated, {} already stored", o.added, o.updated, o.skipped),
            Err(e) => format!("  failed  {name}: {e}"),
        };
        match &bar {
            Some(b) => {
                b.inc(1);
                b.set_message(attest_core::text::clip(&name, 40));
                b.println(&line);
            }
            None => lines.push((done.feed.id, line)),
        }
    })
    .await?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json!({"notes": notes, "report": report}))?)?;
    } else {
        for n in &notes {
            writeln!(out, "{n}")?;
        }
        // Without a terminal, the per-feed lines in subscription order, so a log or a
        // test reads the same every time.
        lines.sort_by_key(|(id, _)| *id);
        for (_, l) in &lines {
            writeln!(out, "{l}")?;
        }
        writeln!(
            out,
            "{}: {} added, {} updated, {} skipped as duplicates, {} not modified, {} failed",
            plural(report.feeds, "feed", "feeds"),
            report.added,
            report.updated,
            report.skipped,
            report.not_modified,
            report.failed.len()
        )?;
        if let Some(c) = &report.concepts {
            match &c.caveat {
                Some(why) => writeln!(out, "concepts: {why}")?,
                None => writeln!(
                    out,
                    "concepts: {} compared by embeddings ({} names embedded now, {} stored), {} merged{}",
                    c.compared,
                    c.embedded,
                    c.cached,
                    c.merged.len(),
                    c.merged.iter().map(|m| format!("; {} → {}", m.alias, m.canonical)).collect::<String>()
                )?,
            }
        }
    }
    Ok(code(report.failed.len() < report.feeds))
}

/// Run `attest eval --user NAME`: exit 0 with the report, 1 when the reader is unknown
/// or has too few ratings (the sentence says what to do).
pub async fn eval(args: EvalArgs, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let store = open(config).await?;
    if let Err(msg) = crate::suggest::reader(&store, &args.user, false).await? {
        eprintln!("attest: {msg}");
        return Ok(ExitCode::from(2));
    }
    match attest_feed::eval::evaluate_reader(&store, &args.user).await {
        Ok(e) => {
            let mut out = std::io::stdout().lock();
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&e)?)?;
            } else {
                for l in attest_feed::eval::report_lines(&args.user, &e) {
                    writeln!(out, "{l}")?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(why) => {
            eprintln!("attest eval: {why}");
            Ok(ExitCode::FAILURE)
        }
    }
}
