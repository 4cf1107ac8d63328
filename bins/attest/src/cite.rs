//! The reference library from the terminal: `attest cite export [--out FILE] [--tag T]`
//! writes the library (or the entries tagged with a concept) as BibTeX, and `attest cite
//! sync [--import]` refreshes it from the `.bib` files and Zotero the environment
//! configures (CrossRef too with `ATTEST_CITATION_WEB=1`). Saving works one by one is
//! the agents' `cite.save`; see specs/cite.md.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use attest_cite::library::{self, Library};
use attest_cite::library_tools::{self, Shelf, SyncArgs};
use attest_core::Config;
use attest_core::text::plural;

/// `attest cite …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum CiteCommand {
    /// Write the reference library as BibTeX: to FILE with --out, else to stdout.
    Export {
        /// The file to write (replaced if it exists).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
        /// Only the entries tagged with this concept (any spelling).
        #[arg(long, value_name = "CONCEPT")]
        tag: Option<String>,
    },
    /// Refresh the library from your .bib files and Zotero; --import also adds every
    /// record the library lacks.
    Sync {
        /// Add every record of your sources the library does not have yet.
        #[arg(long)]
        import: bool,
    },
}

/// Run a `cite` command. Exit 1 when there is nothing to write or the sync refused.
pub async fn run(command: CiteCommand, config: &Config, json: bool) -> anyhow::Result<ExitCode> {
    let store = attest_store::Store::open(&config.db)
        .await
        .with_context(|| format!("opening the database {}", attest_store::shown(&config.db)))?;
    match command {
        CiteCommand::Export { out, tag } => export(&Library::new(store), out, tag.as_deref(), json).await,
        CiteCommand::Sync { import } => {
            let shelf = Shelf::new(store, crate::cli::citation_sources(config));
            let answer = match library_tools::sync(&shelf, SyncArgs { import }).await {
                Ok(a) => a.into_value(),
                Err(stop) => match stop.refusal() {
                    Some(a) => a.clone(),
                    None => anyhow::bail!("the sync failed: {stop:?}"),
                },
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                // The refusals name the agent's tool; worded here as the command to run.
                println!("{}", crate::audience::line(&answer));
                if let Some(c) = &answer.caveat {
                    eprintln!("note: {c}");
                }
            }
            Ok(if answer.ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}

async fn export(lib: &Library, out: Option<PathBuf>, tag: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    let entries = lib.entries().await.context("reading the library")?;
    let (chosen, _) = library_tools::select(&entries, &[], tag);
    if chosen.is_empty() {
        let why = match tag {
            Some(t) if !entries.is_empty() => {
                let near = library::nearest_tags(t, &entries, 5);
                format!("no library entry is tagged '{t}'; tags nearest to it: {}", near.join(", "))
            }
            _ => "your library is empty: `attest cite sync --import` adds the records of your .bib files and Zotero (an agent saves papers and feed items with cite.save)".to_string(),
        };
        eprintln!("attest: {why}");
        return Ok(ExitCode::FAILURE);
    }
    let owned: Vec<library::Entry> = chosen.into_iter().cloned().collect();
    let text = library::to_bibtex(&owned);
    match out {
        None => print!("{text}"),
        Some(path) => {
            std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
            let shown = std::path::absolute(&path).unwrap_or(path);
            if json {
                let v = serde_json::json!({"file": shown, "entries": owned.len()});
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                println!("wrote {} to {}", plural(owned.len(), "entry", "entries"), shown.display());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
