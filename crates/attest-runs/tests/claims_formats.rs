//! Claims where papers are written: the LaTeX, Quarto, R Markdown and Jupyter drafts of
//! `tests/fixtures/claims/` against a small ledger seeded row by row. Between them the
//! drafts earn all six verdicts and a malformed claim; the gate (`failed`, the CLI's
//! exit code) holds per format as for Markdown; coverage reads LaTeX and notebooks.
//! Whole answers of `runs.claims_check` and `runs.claims_coverage` are snapshots.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use attest_core::{Catalogue, Config, ToolNames};
use attest_runs::claims::{self, CiteResolver, KeyCheck, Verdict};
use attest_runs::coverage;
use attest_runs::discover::Metric;
use attest_runs::ledger::curve;
use attest_store::Store;
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claims").canonicalize().unwrap()
}

/// A run of `tiny-lm` and its metrics as (name, value, split).
type Seed = (&'static str, Vec<(&'static str, f64, &'static str)>);

/// The ledger the drafts are checked against; `old`'s evidence "changed" since the scan.
fn seeds() -> Vec<Seed> {
    vec![
        ("base", vec![("accuracy", 0.812, "test"), ("accuracy", 0.803, "dev"), ("val_loss", 2.314, "")]),
        ("distill", vec![("accuracy", 0.798, "test"), ("val_loss", 2.207, "")]),
        ("wide_1", vec![("val_loss", 2.31, "")]),
        ("wide_2", vec![("val_loss", 2.29, "")]),
        ("old", vec![("accuracy", 0.75, "")]),
    ]
}

async fn seed(store: &Store) {
    for (run, metrics) in seeds() {
        let source = fixtures().join(format!("tiny-lm/results/{run}.json")).display().to_string();
        let hash = if run == "old" {
            Some("a hash of what the file held at scan time".to_string())
        } else {
            attest_runs::hash::evidence(&source).await
        };
        assert!(hash.is_some(), "no evidence for {source}");
        let id = common::insert_run(store, "tiny-lm", run, &source, hash).await;
        let rows: Vec<Metric> = metrics
            .into_iter()
            .map(|(m, v, split)| Metric { metric: m.into(), value: v, step: None, split: Some(split.to_string()) })
            .collect();
        let mut conn = store.pool().acquire().await.unwrap();
        curve::insert(&mut conn, &[(id, rows.as_slice())]).await.unwrap();
    }
}

fn known_keys() -> KeyCheck<fn(&str) -> bool> {
    KeyCheck { sources: "refs.bib".into(), resolves: |k: &str| k == "kingma2015adam" }
}

async fn ledger() -> Store {
    let store = Store::open_in_memory().await.unwrap();
    seed(&store).await;
    store
}

#[tokio::test]
async fn each_format_gets_its_verdicts_and_the_gate() {
    let store = ledger().await;
    let keys = known_keys();
    use Verdict::*;
    // (draft, (line, verdict) per row, malformed lines, whether the gate fails)
    type Expected = (&'static str, Vec<(usize, Verdict)>, Vec<usize>, bool);
    let expected: [Expected; 4] = [
        ("paper.tex", vec![(15, Supported), (16, Supported), (17, Contradicted), (20, Supported)], vec![22], true),
        ("analysis.qmd", vec![(14, Ambiguous), (16, Unsupported)], vec![], false),
        ("report.Rmd", vec![(10, Stale)], vec![], false),
        ("notebook.ipynb", vec![(34, Supported), (34, Uncited), (36, Contradicted)], vec![], true),
    ];
    for (draft, rows, malformed, fails) in expected {
        let r = claims::check(store.pool(), &fixtures(), Some(Path::new(draft)), Some(&keys as &dyn CiteResolver))
            .await
            .unwrap();
        let got: Vec<(usize, Verdict)> = r.rows.iter().map(|r| (r.line, r.verdict)).collect();
        assert_eq!(got, rows, "{draft}: {:#?}", r.rows);
        assert_eq!(r.malformed.iter().map(|m| m.line).collect::<Vec<_>>(), malformed, "{draft}");
        assert_eq!(r.failed(), fails, "{draft}");
        assert_eq!((r.files, r.skipped.len()), (1, 0), "{draft}");
    }
}

#[tokio::test]
async fn the_directory_reads_every_format_and_rows_say_where() {
    let store = ledger().await;
    let keys = known_keys();
    let r = claims::check(store.pool(), &fixtures(), None, Some(&keys as &dyn CiteResolver)).await.unwrap();
    assert_eq!(r.files, 4, "README.txt is not a draft");
    assert_eq!(r.claims, 9);
    for v in Verdict::ALL {
        assert!(r.counts.contains_key(v.as_str()), "no {v} row: {:?}", r.counts);
    }
    let contradicted = r.clone().only(Verdict::Contradicted);
    let tex = contradicted.rows.iter().find(|r| r.file == "paper.tex").unwrap();
    assert!(tex.message.contains("tol=0.005"), "the rounding hint: {}", tex.message);
    let nb = contradicted.rows.iter().find(|r| r.file == "notebook.ipynb").unwrap();
    assert_eq!(nb.cell, Some(claims::Cell { index: 3, line: 4 }));
    let mut shown = r;
    for row in &mut shown.rows {
        row.source_path = row.source_path.take().map(|s| s.replace(&fixtures().display().to_string(), "[fixtures]"));
    }
    insta::assert_yaml_snapshot!("formats_report", shown);
}

#[test]
fn coverage_reads_latex_and_notebooks() {
    let cov = coverage::coverage(&fixtures(), Some(Path::new("paper.tex"))).unwrap();
    let un: Vec<(usize, &str)> = cov.uncovered.iter().map(|u| (u.line, u.written.as_str())).collect();
    // Covered: the claimed 0.812, 2.314, 2.21 and 0.798 wherever they appear (the table
    // too). Not prose: the preamble, comments, verbatim, the equation, $\beta_1 = 0.9$,
    // Section~3.2, [p.~4.1], \vspace{0.5em}, \\[2pt].
    assert_eq!(un, [(19, "0.004"), (21, "0.0003"), (35, "2.207"), (42, "12.5")]);
    assert_eq!((cov.numbers, cov.covered), (11, 7));
    let nb = coverage::coverage(&fixtures(), Some(Path::new("notebook.ipynb"))).unwrap();
    let un: Vec<(usize, &str)> = nb.uncovered.iter().map(|u| (u.line, u.written.as_str())).collect();
    assert_eq!(un, [(37, "0.0003")], "code cells and their outputs are not read");
    assert_eq!(nb.uncovered[0].cell, Some(claims::Cell { index: 3, line: 5 }));
    let all = coverage::coverage(&fixtures(), None).unwrap();
    assert_eq!(all.files, 4);
    insta::assert_yaml_snapshot!("formats_coverage", all);
}

async fn catalogue(db: &Path) -> Catalogue {
    let store = Store::open(&db.join("attest.db")).await.unwrap();
    seed(&store).await;
    drop(store);
    let config = Config {
        db: db.join("attest.db"),
        root: Some(fixtures()),
        tool_names: ToolNames::Dotted,
        expand: false,
        http_token: None,
        metric_directions: None,
    };
    let citations = || async { Arc::new(known_keys()) as Arc<dyn CiteResolver + Send> };
    attest_runs::tools::catalogue(&config, Some(Arc::new(citations))).await.unwrap()
}

#[tokio::test]
async fn whole_answers_for_each_format() {
    let db = tempfile::tempdir().unwrap();
    let c = catalogue(db.path()).await;
    let calls = [
        ("runs.claims_check", json!({"path": "paper.tex"})),
        ("runs.claims_check", json!({"path": "analysis.qmd"})),
        ("runs.claims_check", json!({"path": "report.Rmd"})),
        ("runs.claims_check", json!({"path": "notebook.ipynb"})),
        ("runs.claims_coverage", json!({"path": "paper.tex"})),
        ("runs.claims_coverage", json!({"path": "notebook.ipynb"})),
    ];
    let mut all = Vec::new();
    for (tool, args) in calls {
        let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
        let text = serde_json::to_string(&answer).unwrap().replace(&fixtures().display().to_string(), "[fixtures]");
        all.push(json!({ "call": tool, "args": args, "answer": serde_json::from_str::<Value>(&text).unwrap() }));
    }
    insta::assert_json_snapshot!("formats_answers", all);
}
