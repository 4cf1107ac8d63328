//! The knowledge commands: `attest kg-report` (graph health, research areas and an SVG
//! picture of the largest component) and `attest tag` (keyphrase tags for items no
//! tagger has seen; with `--chat`, topic tags from a configured chat model).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use attest_core::Config;
use attest_feed::FeedStore;
use attest_feed::tagging;
use attest_kg::{Params, report, tools};

/// `attest kg-report` and `attest tag`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum KgCommand {
    /// Concept-graph health (concepts, edges, components, dropped singletons, alias
    /// merges), its research areas, and an SVG picture of its largest component.
    #[command(name = "kg-report")]
    KgReport {
        /// Leave out research areas with fewer concepts than this.
        #[arg(long, default_value_t = 3, value_name = "N")]
        min_size: usize,
        /// Where to write the picture (default: kg-report.svg in the current directory).
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
    },
    /// Tag items with keyphrases from their titles and abstracts, so they join the
    /// concept graph. Ingest already does this for new items; this catches up items
    /// stored before. With --chat, ask the chat model at LLM_BASE_URL (LLM_MODEL,
    /// optional LLM_API_KEY) for topic tags instead, replacing keyphrases; tags the
    /// feed itself carried are never touched.
    Tag {
        /// Most keyphrases per item.
        #[arg(long, default_value_t = attest_tags::DEFAULT_TAGS_PER_ITEM, value_name = "N")]
        max: usize,
        /// Use the configured chat model (off unless LLM_BASE_URL and LLM_MODEL are set).
        #[arg(long)]
        chat: bool,
        /// With --chat: most items to tag in this run, newest first.
        #[arg(long, default_value_t = 200, value_name = "N")]
        limit: usize,
    },
}

/// Run a knowledge command. Exit 1 when there is nothing to report (an empty graph).
pub async fn run(command: KgCommand, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let store = attest_store::Store::open(&config.db)
        .await
        .with_context(|| format!("opening the database {}", attest_store::shown(&config.db)))?;
    let feed = FeedStore::new(store);
    match command {
        KgCommand::KgReport { min_size, svg } => kg_report(&feed, min_size.max(1), svg, json).await,
        KgCommand::Tag { chat: true, limit, .. } => chat_tag(&feed, limit.max(1), json).await,
        KgCommand::Tag { max, .. } => tag(&feed, max.clamp(1, 20), json).await,
    }
}

async fn kg_report(feed: &FeedStore, min_size: usize, svg: Option<PathBuf>, json: bool) -> anyhow::Result<ExitCode> {
    let loaded = tools::load(feed, Params::default()).await.context("reading the archive's tags")?;
    if loaded.graph.is_empty() {
        eprintln!("{}", loaded.empty_message());
        return Ok(ExitCode::FAILURE);
    }
    let path = svg.unwrap_or_else(|| PathBuf::from("kg-report.svg"));
    std::fs::write(&path, report::svg(&loaded.graph)).with_context(|| format!("writing {}", path.display()))?;
    let shown = std::fs::canonicalize(&path).unwrap_or(path);
    if json {
        let v = serde_json::json!({
            "health": loaded.graph.health(),
            "clusters": loaded.graph.communities(min_size),
            "note": loaded.caveat(),
            "svg": shown,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", report::text(&loaded.graph, min_size));
    if let Some(c) = loaded.caveat() {
        println!("note: {c}");
    }
    println!("picture of the largest component: {}", shown.display());
    Ok(ExitCode::SUCCESS)
}

async fn tag(feed: &FeedStore, max: usize, json: bool) -> anyhow::Result<ExitCode> {
    let r = tagging::tag_with_keyphrases(feed, max).await.context("tagging items")?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else if r.candidates == 0 {
        println!("every item already has keyphrase or chat tags; nothing to do");
    } else {
        println!(
            "tagged {} of {} items with {} keyphrase tags{}",
            r.tagged,
            r.candidates,
            r.tags_written,
            if r.tagged < r.candidates { " (the rest had no usable words in title or abstract)" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `attest tag --chat`: exit 2 when no chat model is configured, 1 when the endpoint
/// could not be reached or no item could be tagged.
async fn chat_tag(feed: &FeedStore, limit: usize, json: bool) -> anyhow::Result<ExitCode> {
    let settings = match tagging::ChatSettings::from_env(|k| std::env::var(k).ok()) {
        Ok(Some(s)) => s,
        Ok(None) => {
            eprintln!(
                "attest: no chat model is configured: set LLM_BASE_URL (an OpenAI-compatible address such as http://localhost:11434/v1) and LLM_MODEL, or run `attest tag` without --chat for keyphrases"
            );
            return Ok(ExitCode::from(2));
        }
        Err(why) => {
            eprintln!("attest: {why}");
            return Ok(ExitCode::from(2));
        }
    };
    let model = std::sync::Arc::new(tagging::HttpChat::new(settings));
    let r = tagging::tag_with_chat(feed, model, limit).await.context("tagging items")?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("tagged {} of {} items with {}", r.tagged, r.candidates, r.model);
        for (id, why) in &r.failed {
            println!("item {id} keeps its keyphrases: {why}");
        }
    }
    if let Some(why) = &r.stopped {
        eprintln!("attest: stopped: {why} (items tagged so far are kept; run again to continue)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(if r.tagged == 0 && !r.failed.is_empty() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}
