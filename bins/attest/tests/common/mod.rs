//! What the integration tests that drive real binaries and third-party clients share:
//! the repository root, sibling binaries built on demand, and the Python venvs.
#![allow(dead_code)] // each test target uses its own part

pub mod pg;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// A sibling binary of `attest` in the same target directory, built if missing
/// (`cargo test -p attest` alone does not build other packages' binaries).
pub fn sibling(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_attest")).parent().unwrap().join(name);
    if !path.exists() {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--bin", name])
            .current_dir(repo())
            .status()
            .expect("cargo build");
        assert!(status.success(), "could not build {name}");
    }
    path
}

/// The python of a venv under `target/py`, which `scripts/py-venvs.sh` builds if needed.
pub fn python(venv: &str) -> PathBuf {
    let status = Command::new("bash").arg(repo().join("scripts/py-venvs.sh")).status().expect("run py-venvs.sh");
    assert!(status.success(), "scripts/py-venvs.sh failed: the Python clients could not be installed");
    repo().join("target/py").join(venv).join("bin/python")
}

/// `attest ARGS` with `ATTEST_DB` set to `db` (a file or an address), and the research
/// root given or unset, as a user runs it.
pub fn attest(args: &[&str], db: &(impl AsRef<std::ffi::OsStr> + ?Sized), root: Option<&Path>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
    c.args(args).env("ATTEST_DB", db).env_remove("RESEARCH_ROOT").env_remove("ATTEST_METRIC_DIRECTIONS");
    if let Some(r) = root {
        c.env("RESEARCH_ROOT", r);
    }
    c.output().unwrap()
}

/// Standard output then standard error, as one text.
pub fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A fresh copy of `examples/workspace` in a temporary directory.
pub fn example_workspace() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let status =
        Command::new("cp").arg("-r").arg(repo().join("examples/workspace/.")).arg(root.path()).status().unwrap();
    assert!(status.success(), "copying examples/workspace failed");
    root
}

/// A tool's input schema as JSON, its properties and the names it requires: what the
/// tests that build arguments from a tool's schema start from.
pub fn input_schema(
    tool: &rmcp::model::Tool,
) -> (serde_json::Value, serde_json::Map<String, serde_json::Value>, Vec<String>) {
    let schema = serde_json::Value::Object((*tool.input_schema).clone());
    let props = schema.get("properties").and_then(serde_json::Value::as_object).cloned().unwrap_or_default();
    let required = schema
        .get("required")
        .and_then(serde_json::Value::as_array)
        .map(|r| r.iter().filter_map(|v| v.as_str().map(String::from)).collect())
        .unwrap_or_default();
    (schema, props, required)
}

/// Columns a failing command writes on purpose, left out when comparing the rows stored
/// before with those after: an ingest records each feed's failure on its subscription.
pub const BOOKKEEPING: &[(&str, &str)] = &[("feeds", "last_error")];

/// A feed file of `items` Atom entries (the full-disk tests' feed: one title, many
/// entries, so an ingest's size is set by `items` alone).
pub fn write_feed(path: &Path, items: u64) {
    let mut s = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n\
         <title>full</title><id>urn:full</id><updated>2026-11-30T00:00:00Z</updated>\n",
    );
    for i in 0..items {
        s.push_str(&format!(
            "<entry><id>urn:full:{i}</id><title>Distillation of speech recognizers, study {i}</title>\
             <link href=\"https://example.org/full/{i}\"/><updated>2026-11-{:02}T00:00:00Z</updated>\
             <summary>Knowledge distillation for speech recognition with a conformer teacher, variant {i}; beam search and tokenizer effects.</summary></entry>\n",
            1 + i % 28
        ));
    }
    s.push_str("</feed>\n");
    std::fs::write(path, s).unwrap();
}

/// A project of `runs` one-file runs (`results/run_NNNNN.json`, accuracy, loss, seed) at
/// `dir`: the full-disk tests' scan that must not fit.
pub fn write_bulk_project(dir: &Path, runs: u64) {
    std::fs::create_dir_all(dir.join("results")).unwrap();
    for i in 0..runs {
        let body =
            format!(r#"{{"accuracy": {}, "loss": {}, "seed": {i}}}"#, (i % 97) as f64 / 100.0, 1.0 / (i + 1) as f64);
        std::fs::write(dir.join(format!("results/run_{i:05}.json")), body).unwrap();
    }
}
