//! The knowledge commands: `attest kg-report` (graph health, research areas and an SVG
//! picture of the largest component) and `attest tag` (keyphrase tags for items that
//! carry none).
//!
//! Mount (in cli.rs): a variant `#[command(flatten)] Kg(kg::KgCommand)` of the command
//! enum, dispatched to [`run`] with the resolved configuration. Needs `attest-kg` and
//! `attest-feed` (and `attest-store`) in bins/attest/Cargo.toml.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use attest_core::Config;
use attest_feed::FeedStore;
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
    /// Tag the archive's untagged items with keyphrases from their titles and
    /// abstracts, so they join the concept graph. Items with tags are left alone.
    Tag {
        /// Most keyphrases per item.
        #[arg(long, default_value_t = tools::DEFAULT_TAGS_PER_ITEM, value_name = "N")]
        max: usize,
    },
}

/// Run a knowledge command. Exit 1 when there is nothing to report (an empty graph).
pub async fn run(command: KgCommand, config: &Config) -> anyhow::Result<ExitCode> {
    let store = attest_store::Store::open(&config.db)
        .await
        .with_context(|| format!("opening the database {}", config.db.display()))?;
    let feed = FeedStore::new(store);
    match command {
        KgCommand::KgReport { min_size, svg } => kg_report(&feed, min_size.max(1), svg).await,
        KgCommand::Tag { max } => tag(&feed, max.clamp(1, 20)).await,
    }
}

async fn kg_report(feed: &FeedStore, min_size: usize, svg: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let loaded = tools::load(feed, Params::default()).await.context("reading the archive's tags")?;
    if loaded.graph.is_empty() {
        eprintln!("{}", loaded.empty_message());
        return Ok(ExitCode::FAILURE);
    }
    print!("{}", report::text(&loaded.graph, min_size));
    if let Some(c) = loaded.caveat() {
        println!("note: {c}");
    }
    let path = svg.unwrap_or_else(|| PathBuf::from("kg-report.svg"));
    std::fs::write(&path, report::svg(&loaded.graph)).with_context(|| format!("writing {}", path.display()))?;
    let shown = std::fs::canonicalize(&path).unwrap_or(path);
    println!("picture of the largest component: {}", shown.display());
    Ok(ExitCode::SUCCESS)
}

async fn tag(feed: &FeedStore, max: usize) -> anyhow::Result<ExitCode> {
    let r = tools::tag_untagged(feed, max).await.context("tagging items")?;
    if r.untagged == 0 {
        println!("every item already has tags; nothing to do");
    } else {
        println!(
            "tagged {} of {} untagged items with {} keyphrase tags{}",
            r.tagged,
            r.untagged,
            r.tags_written,
            if r.tagged < r.untagged { " (the rest had no usable words in title or abstract)" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
