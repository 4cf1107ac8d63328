//! `attest demo`: the main job on the bundled example workspace, in a temporary
//! database, printed the way an agent would see it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use attest_core::{Config, ToolNames};
use serde_json::{Value, json};

fn find_workspace(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    if let Some(p) = given {
        return Ok(p);
    }
    let candidates =
        [PathBuf::from("examples/workspace"), Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace")];
    for c in candidates {
        if c.is_dir() {
            return Ok(std::path::absolute(&c)?);
        }
    }
    bail!("cannot find examples/workspace: run the demo from the attest checkout, or pass --workspace DIR")
}

/// The demo's steps: (what a person asked, tool, arguments).
fn steps(ws: &Path) -> Vec<(&'static str, &'static str, Value)> {
    let draft = ws.join("paper/draft.md");
    vec![
        ("read the artifacts on disk into the ledger", "runs.scan", json!({ "confirm": true })),
        ("which arm of my kdalpha sweep won?", "runs.ask", json!({ "question": "which arm of my kdalpha sweep won?" })),
        ("compare the prompt family", "runs.compare", json!({ "family": "prompt" })),
        (
            "are the numbers in my draft right?",
            "runs.ask",
            json!({ "question": "are the numbers in my draft right?", "path": draft }),
        ),
        ("which numbers in the draft does no claim back?", "runs.claims_coverage", json!({ "path": draft })),
        ("what should I read today?", "runs.ask", json!({ "question": "what should I read today?" })),
        (
            "is (a+b)^2 the same as a^2 + 2ab + b^2?",
            "sym.ask",
            json!({ "question": "is (a+b)^2 equal to a^2 + 2ab + b^2?" }),
        ),
        ("is sqrt(x^2) = x an identity?", "sym.ask", json!({ "question": "verify sqrt(x^2) = x" })),
        ("hello", "runs.ask", json!({ "question": "hello" })),
    ]
}

/// Run the demo.
pub async fn run(workspace: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let ws = find_workspace(workspace)?;
    let tmp = tempfile::tempdir().context("cannot create a temporary directory")?;
    let config = Config {
        db: tmp.path().join("demo.db"),
        root: Some(ws.clone()),
        tool_names: ToolNames::Dotted,
        expand: true,
        http_token: None,
        metric_directions: None,
    };
    println!("attest demo: workspace {}, throwaway database {}\n", ws.display(), config.db.display());
    let catalogue = crate::cli::catalogue(&config).await?;
    for (asked, tool, args) in steps(&ws) {
        let answer = catalogue
            .call(tool, args.as_object().cloned().unwrap_or_default())
            .await
            .map_err(|f| anyhow::anyhow!("{f}"))?;
        println!("> {asked}");
        println!("  [{tool} -> {}]", answer.tool_used.as_deref().unwrap_or("no tool: asked back"));
        for line in answer.render_text().lines() {
            println!("  {line}");
        }
        if !answer.options.is_empty() {
            println!("  options: {}", answer.options.join(", "));
        }
        println!();
    }
    Ok(ExitCode::SUCCESS)
}
