//! Comparisons through the ledger: the example workspace's families, direction
//! refusals and overrides, and a healthy comparison that carries no caveat. Caveats and
//! refusals are pinned whole in insta snapshots (temp directories shown as `[root]`).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_runs::compare::Comparison;
use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_store::Store;
use serde_json::{Value, json};

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

/// `v` as JSON with the temp directory `dir` (as given and canonical) made `[root]`.
fn shown<T: serde::Serialize>(v: &T, dir: &Path) -> Value {
    let mut text = serde_json::to_string(v).unwrap();
    for d in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
        text = text.replace(&d.display().to_string(), "[root]");
    }
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
    // The caveat, whole in the snapshot: each arm is a single run.
    insta::assert_json_snapshot!("compare_beam_search", portable(&c));
}

#[tokio::test]
async fn undirected_metrics_are_refused_until_declared() {
    let l = example(LedgerOptions::default()).await;
    // The refusals name the metrics found (judge_score, mean_words, n_records) and how to
    // declare one in metric_directions.toml (judge_score = "higher_is_better"); a metric
    // asked for has no declared direction, and the known ones are named (wer).
    let mut refusals = Vec::new();
    for (family, metric) in [("prompt", None), ("prompt", Some("judge_score")), ("kdalpha", Some("n_records"))] {
        let e = l.compare(family, metric, None).await.unwrap_err().to_string();
        refusals.push(json!({"family": family, "metric": metric, "error": e}));
    }
    insta::assert_json_snapshot!("undirected_refusals", shown(&refusals, &repo()));

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
    // Refusals, whole in the snapshot: one arm (trainlog_kdalpha50: 1.284 at step 3000),
    // no winner, with a pointer to attest.toml; an unknown family lists the families; a
    // project name says it is a project with 9 runs; the wrong project says where it is.
    let mut refusals = Vec::new();
    let asks = [
        ("trainlog", Some("val_loss"), None),
        ("kdsweep", None, None),
        ("asr-distill", None, None),
        ("kdalpha", None, Some("summarizer-prompts")),
    ];
    for (family, metric, project) in asks {
        let e = l.compare(family, metric, project).await.unwrap_err().to_string();
        refusals.push(json!({"family": family, "metric": metric, "project": project, "error": e}));
    }

    // A malformed directions file: the error names dirs.toml and the form to write
    // (judge_score = "higher_is_better").
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("dirs.toml");
    write(&bad, "[metric_direction]\njudge_score = \"up\"\n");
    let l = example(LedgerOptions { metric_directions: Some(bad), root: None }).await;
    let e = l.compare("kdalpha", None, None).await.unwrap_err().to_string();
    refusals.push(json!({"family": "kdalpha", "metric_directions": "[root]/dirs.toml", "error": e}));
    insta::assert_json_snapshot!("single_arm_and_missing_family", shown(&refusals, dir.path()));
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
    // The caveat: arms did not share a corpus.
    insta::assert_json_snapshot!("healthy_broken_corpus", shown(&c.caveats, dir.path()));
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
    let contested = l.compare("m", None, None).await.unwrap().caveats;
    // Resolve the dispute: the contested caveat goes on the next scan.
    write(&root.join("p/results/m_a.json"), r#"{"wer": 0.1, "corpus": "ls"}"#);
    l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap();
    let resolved = l.compare("m", None, None).await.unwrap().caveats;
    // A malformed manifest stops the scan rather than silently unlinking every run.
    write(&root.join("corpora.toml"), "[corpus.ls\n");
    let e = l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap_err().to_string();
    // Contested: ls defined differently by different sources (source 'openslr-12' vs
    // 'hf:ls' (results/m_a.json)); resolved: corpus only partly recorded (m_d does not
    // say which data it used); the malformed manifest: corpora.toml is not valid TOML.
    let all = json!({"contested caveats": contested, "resolved caveats": resolved, "malformed manifest": e});
    insta::assert_json_snapshot!("contested_corpora", shown(&all, root));
}
