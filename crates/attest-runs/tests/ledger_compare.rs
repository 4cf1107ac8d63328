//! Comparisons through the ledger: the example workspace's families, direction
//! refusals and overrides, and a healthy comparison that carries no caveat.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_runs::compare::Comparison;
use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_store::Store;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

async fn example(opts: LedgerOptions) -> Ledger {
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), opts);
    l.scan(&repo().join("examples/workspace"), None, |_| ControlFlow::Continue(())).await.unwrap();
    l
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The comparison as JSON with machine-specific paths made relative to the repo.
fn portable(c: &Comparison) -> serde_json::Value {
    let root = format!("{}/", repo().display());
    let text = serde_json::to_string(c).unwrap().replace(&root, "");
    serde_json::from_str(&text).unwrap()
}

#[tokio::test]
async fn kdalpha_has_the_documented_caveats() {
    let l = example(LedgerOptions::default()).await;
    let c = l.compare("kdalpha", None, None).await.unwrap();
    assert_eq!(c.metric, "wer");
    assert_eq!(c.winner.as_deref(), Some("kdalpha_75"));
    let order: Vec<&str> = c.arms.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(order, ["kdalpha_75", "kdalpha_50", "kdalpha_25", "kdalpha_0"]);
    assert_eq!(c.caveats.len(), 4, "{:#?}", c.caveats);
    insta::assert_json_snapshot!("compare_kdalpha", portable(&c));
}

#[tokio::test]
async fn beam_search_has_only_the_replication_caveat() {
    let l = example(LedgerOptions::default()).await;
    let c = l.compare("beam_search", None, None).await.unwrap();
    assert_eq!(c.metric, "wer");
    assert_eq!(c.winner.as_deref(), Some("beam_search/b8"));
    assert_eq!(c.corpus.as_deref(), Some("cv-en-heldout"));
    assert_eq!(c.caveats.len(), 1, "{:#?}", c.caveats);
    assert!(c.caveats[0].starts_with("each arm is a single run"));
    insta::assert_json_snapshot!("compare_beam_search", portable(&c));
}

#[tokio::test]
async fn undirected_metrics_are_refused_until_declared() {
    let l = example(LedgerOptions::default()).await;
    let e = l.compare("prompt", None, None).await.unwrap_err().to_string();
    assert!(e.contains("found judge_score, mean_words, n_records"), "{e}");
    assert!(e.contains("metric_directions.toml") && e.contains("judge_score = \"higher_is_better\""), "{e}");
    let e = l.compare("prompt", Some("judge_score"), None).await.unwrap_err().to_string();
    assert!(e.contains("'judge_score' has no declared direction"), "{e}");
    let e = l.compare("kdalpha", Some("n_records"), None).await.unwrap_err().to_string();
    assert!(e.contains("'n_records' has no declared direction") && e.contains("known direction: wer"), "{e}");

    let opts = LedgerOptions { metric_directions: Some(repo().join("examples/metric_directions.toml")), root: None };
    let l = example(opts).await;
    let c = l.compare("prompt", None, None).await.unwrap();
    assert_eq!(c.metric, "judge_score");
    assert_eq!(c.winner.as_deref(), Some("prompt_fewshot"));
    assert_eq!(
        c.caveats,
        [
            "each arm is a single run: with no seed replication, this ranking cannot separate the configuration from run-to-run variance"
        ]
    );
}

#[tokio::test]
async fn single_arm_missing_family_and_malformed_directions() {
    let l = example(LedgerOptions::default()).await;
    // One arm: nothing compared, so a refusal (no winner), naming the arm's best step.
    let e = l.compare("trainlog", Some("val_loss"), None).await.unwrap_err().to_string();
    assert!(
        e.starts_with("only one arm of family 'trainlog' has a val_loss (trainlog_kdalpha50: 1.284 at step 3000)"),
        "{e}"
    );
    assert!(e.contains("no winner") && e.contains("attest.toml"), "{e}");
    let e = l.compare("kdsweep", None, None).await.unwrap_err().to_string();
    assert!(e.starts_with("no family 'kdsweep'. Families: beam_search, kdalpha, planned, prompt, trainlog"), "{e}");
    let e = l.compare("asr-distill", None, None).await.unwrap_err().to_string();
    assert!(e.contains("it is a project with 9 runs"), "{e}");
    let e = l.compare("kdalpha", None, Some("summarizer-prompts")).await.unwrap_err().to_string();
    assert!(e.contains("not in project 'summarizer-prompts'; it is in: asr-distill"), "{e}");

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("dirs.toml");
    write(&bad, "[metric_direction]\njudge_score = \"up\"\n");
    let l = example(LedgerOptions { metric_directions: Some(bad), root: None }).await;
    let e = l.compare("kdalpha", None, None).await.unwrap_err().to_string();
    assert!(e.contains("judge_score = \"higher_is_better\"") && e.contains("dirs.toml"), "{e}");
}

#[tokio::test]
async fn a_healthy_comparison_carries_no_caveat() {
    let dir = tempfile::tempdir().unwrap();
    let res = dir.path().join("proj/results");
    for (arm, vals) in [("small", [0.121, 0.118, 0.124]), ("large", [0.081, 0.079, 0.083])] {
        for (seed, v) in vals.iter().enumerate() {
            write(
                &res.join(format!("asr_{arm}_seed{seed}.json")),
                &format!(r#"{{"wer": {v}, "n_records": 2620, "corpus": "ls-test"}}"#),
            );
        }
    }
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    l.scan(dir.path(), None, |_| ControlFlow::Continue(())).await.unwrap();
    let c = l.compare("asr", None, None).await.unwrap();
    assert_eq!(c.caveats, Vec::<String>::new(), "{c:#?}");
    assert_eq!(c.winner.as_deref(), Some("asr_large"));
    assert_eq!(c.arms[0].n_seeds, 3);
    assert_eq!(c.arms[0].seeds.len(), 3);
    assert!((c.arms[0].value.unwrap() - 0.081).abs() < 1e-12);
    assert_eq!(c.corpus.as_deref(), Some("ls-test"));

    // Break it one way at a time: each breakage yields its caveat.
    write(&res.join("asr_large_seed1.json"), r#"{"wer": 0.079, "n_records": 2620, "corpus": "ls-dev"}"#);
    l.scan(dir.path(), None, |_| ControlFlow::Continue(())).await.unwrap();
    let c = l.compare("asr", None, None).await.unwrap();
    assert_eq!(c.caveats.len(), 1, "{:#?}", c.caveats);
    assert!(c.caveats[0].starts_with("arms did not share a corpus"));
}

#[tokio::test]
async fn contested_and_partly_recorded_corpora() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("corpora.toml"), "[corpus.ls]\nsource = \"openslr-12\"\n\n[assign.run]\nm_c = \"ls\"\n");
    write(&root.join("p/results/m_a.json"), r#"{"wer": 0.1, "corpus": "ls", "dataset_source": "hf:ls"}"#);
    write(&root.join("p/results/m_b.json"), r#"{"wer": 0.2, "corpus": "ls"}"#);
    write(&root.join("p/results/m_c.json"), r#"{"wer": 0.3}"#);
    write(&root.join("p/results/m_d.json"), r#"{"wer": 0.4}"#);
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap();
    let c = l.compare("m", None, None).await.unwrap();
    let t = c.caveats.join("\n");
    assert!(
        t.contains("defined differently by different sources (ls: source 'openslr-12' vs 'hf:ls' (results/m_a.json))"),
        "{t}"
    );
    // Resolve the dispute: the caveat goes on the next scan.
    write(&root.join("p/results/m_a.json"), r#"{"wer": 0.1, "corpus": "ls"}"#);
    l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap();
    let c = l.compare("m", None, None).await.unwrap();
    let t = c.caveats.join("\n");
    assert!(
        t.contains(
            "corpus only partly recorded: m_d does not say which data it used, so agreement with ls is unverified"
        ),
        "{t}"
    );
    // A malformed manifest stops the scan rather than silently unlinking every run.
    write(&root.join("corpora.toml"), "[corpus.ls\n");
    let e = l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap_err().to_string();
    assert!(e.contains("corpora.toml is not valid TOML"), "{e}");
}
