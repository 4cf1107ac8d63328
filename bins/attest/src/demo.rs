//! `attest demo`: each part of attest doing its job for a person, on the bundled
//! example workspace and a small reading feed, in a throwaway database. Each step shows
//! the command a person would type and what it prints; the demo ends with how to point
//! attest at your own data and write a claim.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use attest_core::{Answer, Budget, Catalogue, Config, ToolNames};
use serde_json::{Value, json};

use crate::print;

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

/// The demo's reading feed: (title, summary, the feed's own categories). Each pair of
/// neighbouring topics shares two items, so the concept graph links speech recognition
/// to summarization through them.
const READING: &[(&str, &str, &[&str])] = &[
    (
        "Distilling a large speech recognizer into a small one",
        "A teacher-student recipe that keeps most of the word error rate of a large recognizer at a tenth of its size.",
        &["speech-recognition", "knowledge-distillation"],
    ),
    (
        "Teacher-student training for low-resource speech recognition",
        "Distillation from a multilingual teacher lowers the error rate on languages with little transcribed audio.",
        &["speech-recognition", "knowledge-distillation", "low-resource"],
    ),
    (
        "Self-supervised speech features for low-resource languages",
        "Pretrained speech representations need only an hour of labelled audio per language.",
        &["speech-recognition", "low-resource"],
    ),
    (
        "How much of a model survives distillation?",
        "Model compression by distillation, measured across sizes and tasks.",
        &["knowledge-distillation", "model-compression"],
    ),
    (
        "Distillation and pruning for on-device models",
        "Combining distillation with structured pruning to fit a phone's memory.",
        &["knowledge-distillation", "model-compression", "on-device"],
    ),
    (
        "Quantization-aware training on device",
        "Eight-bit weights with almost no loss when the model is trained for them.",
        &["model-compression", "quantization", "on-device"],
    ),
    (
        "A survey of model compression: pruning, quantization, distillation",
        "What each family of methods costs and saves.",
        &["model-compression", "quantization"],
    ),
    (
        "Four-bit language models without retraining",
        "Post-training quantization of large language models with outlier handling.",
        &["quantization", "language-models"],
    ),
    (
        "Quantized language models as summarizers",
        "Low-bit language models keep their summary quality as judged by people.",
        &["quantization", "language-models", "summarization"],
    ),
    (
        "Language models as judges of summaries",
        "When a language model's score of a summary agrees with human judges, and when it does not.",
        &["language-models", "summarization"],
    ),
];

/// The feed as an Atom document, its items dated over the last days so that today's
/// reading has them.
fn reading_feed() -> String {
    let now = time::OffsetDateTime::now_utc();
    let date = |days_ago: i64| {
        let at = (now - time::Duration::days(days_ago)).replace_time(time::macros::time!(08:00));
        at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default()
    };
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n  <title>Demo reading</title>\n  <id>urn:attest:demo</id>\n",
    );
    xml.push_str(&format!("  <updated>{}</updated>\n", date(0)));
    for (i, (title, summary, tags)) in READING.iter().enumerate() {
        xml.push_str(&format!(
            "  <entry>\n    <id>urn:attest:demo:{i}</id>\n    <title>{title}</title>\n    <link href=\"https://example.org/demo/{i}\"/>\n    <updated>{}</updated>\n    <summary>{summary}</summary>\n",
            date(i as i64 / 2 + 1)
        ));
        for t in *tags {
            xml.push_str(&format!("    <category term=\"{t}\"/>\n"));
        }
        xml.push_str("  </entry>\n");
    }
    xml.push_str("</feed>\n");
    xml
}

/// Call a tool, failing the demo on an internal fault.
async fn call(c: &Catalogue, tool: &str, args: Value) -> anyhow::Result<Answer<Value>> {
    c.call(tool, args.as_object().cloned().unwrap_or_default()).await.map_err(|f| anyhow::anyhow!("{tool}: {f}"))
}

/// One step: what a person asks, the command, and what it prints, indented.
fn step(out: &mut impl Write, asked: &str, command: &str, answers: &[&Answer<Value>]) -> anyhow::Result<()> {
    writeln!(out, "{}", print::paint(asked, anstyle::Style::new().bold()))?;
    writeln!(out, "{command}")?;
    for a in answers {
        let mut buf = Vec::new();
        print::answer(&mut buf, a)?;
        for line in String::from_utf8_lossy(&buf).lines() {
            if line.is_empty() { writeln!(out)? } else { writeln!(out, "  {line}")? }
        }
    }
    writeln!(out)?;
    Ok(())
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
    let feed = tmp.path().join("reading.atom");
    std::fs::write(&feed, reading_feed()).context("cannot write the demo feed")?;
    let c = crate::cli::catalogue(&config).await?.with_budget(Budget::Whole);
    let mut out = anstream::stdout().lock();
    writeln!(
        out,
        "attest demo: the example workspace {} and a small reading feed, read into a throwaway database.\n",
        ws.display()
    )?;

    let scan = call(&c, "runs.scan", json!({ "confirm": true })).await?;
    if !scan.ok {
        bail!("the demo's scan failed: {}", scan.answer);
    }
    let compare = call(&c, "runs.compare", json!({ "family": "kdalpha" })).await?;
    step(
        &mut out,
        "Which arm of my sweep won, and how far can I trust it?",
        "$ attest runs compare kdalpha",
        &[&compare],
    )?;

    let draft = ws.join("paper/draft.md");
    let claims = call(&c, "runs.claims_check", json!({ "path": draft, "verdict": "contradicted" })).await?;
    step(
        &mut out,
        "Are the numbers in my draft right? (the contradicted ones; without --verdict, every claim)",
        "$ attest claims paper/draft.md --verdict contradicted",
        &[&claims],
    )?;

    let proved = call(&c, "sym.verify", json!({ "lhs": "(a+b)^2", "rhs": "a^2 + 2ab + b^2" })).await?;
    step(
        &mut out,
        "Is this step of my derivation right?",
        "$ attest sym verify \"(a+b)^2\" \"a^2 + 2ab + b^2\"",
        &[&proved],
    )?;
    let refuted = call(&c, "sym.verify", json!({ "equation": "sqrt(x^2) = x" })).await?;
    step(&mut out, "And this one?", "$ attest sym verify \"sqrt(x^2) = x\"", &[&refuted])?;

    let added = call(&c, "feed.source_add", json!({ "url": feed, "title": "Demo reading" })).await?;
    if !added.ok {
        bail!("the demo's feed could not be read: {}", added.answer);
    }
    let created = call(
        &c,
        "feed.persona_create",
        json!({ "user": "ana", "interests": "speech recognition, knowledge distillation, low-resource languages" }),
    )
    .await?;
    if !created.ok {
        bail!("the demo's reader could not be created: {}", created.answer);
    }
    let today = call(&c, "feed.list", json!({ "user": "ana", "limit": 5 })).await?;
    step(&mut out, "What should I read today?", "$ attest feed list --user ana --limit 5", &[&today])?;

    let asked = "how does speech recognition connect to summarization?";
    let path = call(&c, "kg.ask", json!({ "question": asked })).await?;
    step(
        &mut out,
        "How does speech recognition connect to summarization in what I read?",
        &format!("ask your agent (attest-knowledge): {asked}"),
        &[&path],
    )?;

    writeln!(out, "{}", print::paint("Now with your own data", anstyle::Style::new().bold()))?;
    writeln!(
        out,
        "  export RESEARCH_ROOT=~/research   # one directory per project; results under results/, logs/, eval/ …"
    )?;
    writeln!(out, "  attest runs scan                  # read them into the ledger (created on first scan)")?;
    writeln!(out, "  attest runs list                  # every run, by project and family")?;
    writeln!(out, "  attest runs compare FAMILY        # the winner, with every caveat")?;
    writeln!(out)?;
    writeln!(out, "  Write a claim next to a number in your draft (Markdown; `% claim: …` in LaTeX):")?;
    writeln!(out, "    Distillation cut the word error rate to 7.04 %.")?;
    writeln!(out, "    <!-- claim: asr-distill/kdalpha_75 metric=wer value=0.0704 -->")?;
    writeln!(out, "  then check it:  attest claims paper/draft.md   (exit 1 when a number is contradicted)")?;
    writeln!(out)?;
    writeln!(out, "  Your reading: attest ingest --feeds feeds.toml, then attest feed list --user NAME --create")?;
    Ok(ExitCode::SUCCESS)
}
