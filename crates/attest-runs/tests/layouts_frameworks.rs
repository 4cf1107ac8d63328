//! The layouts training frameworks write (tests/fixtures/frameworks/, made by
//! scripts/gen_framework_fixtures.py with the frameworks' own code; see
//! specs/fixtures.md §9), scanned, listed and compared through the
//! provenance tools as an agent sees them: one insta snapshot of whole answers per
//! layout. Paths under the fixture root become `[root]`, times `[time]`, digests
//! `[hash]`.

use std::path::{Path, PathBuf};

mod common;

use attest_core::Catalogue;
use common::catalogue;
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures").canonicalize().unwrap()
}

async fn call(c: &Catalogue, root: &Path, tool: &str, args: &Value) -> Value {
    let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
    let text = serde_json::to_string(&answer).unwrap().replace(&root.display().to_string(), "[root]");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    // Event files and Sacred's metrics.json hold wall-clock times, so their digests
    // change with every regeneration; evidence hashing is tested in hash.rs.
    let hash = regex::Regex::new(r"\b[0-9a-f]{64}\b|blake3 [0-9a-f]{12}").unwrap();
    let text = time.replace_all(&text, "[time]");
    serde_json::from_str(&hash.replace_all(&text, "[hash]")).unwrap()
}

/// Scan `root`, then make each call; the whole transcript as one value.
async fn transcript(root: &Path, calls: &[(&str, Value)]) -> Value {
    let db = tempfile::tempdir().unwrap();
    let c = catalogue(&db.path().join("attest.db"), root).await;
    let mut all =
        vec![json!({"call": "runs.scan", "answer": call(&c, root, "runs.scan", &json!({"confirm": true})).await})];
    for (tool, args) in calls {
        all.push(json!({"call": tool, "args": args, "answer": call(&c, root, tool, args).await}));
    }
    Value::Array(all)
}

fn copy_tree(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).follow_links(false) {
        let e = e.unwrap();
        let dest = to.join(e.path().strip_prefix(from).unwrap());
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Each framework layout: its research root, and the calls after the scan.
#[tokio::test]
async fn framework_layouts_scan_list_and_compare() {
    let cases: Vec<(&str, Vec<(&str, Value)>)> = vec![
        (
            "hf-trainer",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "outputs"})),
                ("runs.compare", json!({"family": "outputs", "metric": "eval_loss"})),
                ("runs.detail", json!({"name": "lr1e-3"})),
            ],
        ),
        (
            "lightning",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "lightning_logs"})),
                ("runs.compare", json!({"family": "lightning_logs", "metric": "val_loss"})),
                ("runs.detail", json!({"name": "lightning_logs/version_1"})),
            ],
        ),
        (
            "lightning-tensorboard",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "lightning_logs"})),
                ("runs.detail", json!({"name": "lightning_logs/version_1"})),
            ],
        ),
        ("keras", vec![("runs.list", json!({})), ("runs.compare", json!({"family": "cnn"}))]),
        ("sacred", vec![("runs.list", json!({})), ("runs.compare", json!({"family": "mnist_mlp"}))]),
        ("hydra", vec![("runs.list", json!({})), ("runs.compare", json!({"family": "train"}))]),
        (
            "tensorboard",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "runs"})),
                ("runs.detail", json!({"name": "runs/lr1.0"})),
            ],
        ),
        (
            "torch-tensorboard",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "runs"})),
                ("runs.detail", json!({"name": "runs/Dec01_10-00-01_fixture_lr0.1"})),
            ],
        ),
        ("dvc", vec![("runs.list", json!({})), ("runs.compare", json!({"family": "train"}))]),
        (
            "keras-tensorboard",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "fit"})),
                ("runs.compare", json!({"family": "fit", "metric": "val_loss"})),
                ("runs.detail", json!({"name": "logs/fit/dropout0.5"})),
            ],
        ),
        (
            "wandb-offline",
            vec![
                ("runs.list", json!({})),
                ("runs.compare", json!({"family": "train_char_rnn"})),
                ("runs.compare", json!({"family": "train_char_rnn", "metric": "val_loss"})),
                ("runs.detail", json!({"name": "train_char_rnn/hidden-512"})),
                ("runs.detail", json!({"name": "train_char_rnn/hidden-256"})),
            ],
        ),
    ];
    for (layout, calls) in cases {
        let root = fixtures().join("frameworks").join(layout);
        let t = transcript(&root, &calls).await;
        insta::assert_json_snapshot!(format!("layout_{layout}"), t);
    }
}

/// MLflow and W&B one or two levels deeper than a project's top level are read the
/// same as at the top, and W&B's `latest-run` link is still read once.
#[tokio::test]
async fn trackers_at_any_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let trackers = fixtures().join("trackers");
    copy_tree(&trackers.join("mlflow-files/cnn-dropout/mlruns"), &root.join("vision/experiments/cnn/mlruns"));
    copy_tree(&trackers.join("wandb/tiny-lm/wandb"), &root.join("lm/training/wandb"));
    let t = transcript(
        &root,
        &[
            ("runs.list", json!({"limit": 25})),
            ("runs.compare", json!({"family": "dropout_sweep"})),
            ("runs.compare", json!({"family": "train_tiny_lm", "metric": "val_ppl"})),
        ],
    )
    .await;
    insta::assert_json_snapshot!("layout_trackers_at_depth", t);
}

/// A grouping declared in `<root>/attest.toml` overrides the one read off names:
/// its family, arm labels and metric.
#[tokio::test]
async fn declared_grouping_overrides() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    copy_tree(&fixtures().join("frameworks/hf-trainer"), &root);
    std::fs::write(
        root.join("attest.toml"),
        "[[family]]\nname = \"bert-lr\"\nruns = [\"lr?e-?\"]\nmetric = \"eval_loss\"\n[family.arms]\n\"lr1e-3\" = \"1e-3 (paper default)\"\n\"lr3e-3\" = \"3e-3\"\n\"lr1e-2\" = \"1e-2\"\n",
    )
    .unwrap();
    let t = transcript(&root, &[("runs.list", json!({})), ("runs.compare", json!({"family": "bert-lr"}))]).await;
    insta::assert_json_snapshot!("layout_declared", t);

    std::fs::write(root.join("attest.toml"), "[[families]]\nname = \"x\"\n").unwrap();
    let t = transcript(&root, &[]).await;
    let answer = &t[0]["answer"];
    assert_eq!(answer["ok"], false, "{answer}");
    assert!(answer["answer"].as_str().unwrap().contains("is not a valid attest.toml"), "{answer}");
}

/// A project that yields nothing is told what was found, in the terms of its layout:
/// never "move MLflow into results/", and the reasons are in the scan's skipped list.
#[tokio::test]
async fn empty_projects_get_advice_that_fits_the_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let exp = root.join("deep/experiments/cnn/mlruns/1");
    std::fs::create_dir_all(&exp).unwrap();
    std::fs::write(exp.join("meta.yaml"), "experiment_id: '1'\nlifecycle_stage: deleted\nname: cnn\n").unwrap();
    let hf = root.join("killed/outputs/lr1e-5");
    std::fs::create_dir_all(&hf).unwrap();
    std::fs::write(hf.join("trainer_state.json"), "{\"log_history\": [{\"loss\": 1.2, \"st").unwrap();
    let plain = root.join("loose/analysis");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::write(plain.join("scores.json"), "{\"wer\": 0.1}").unwrap();
    let nested = root.join("nested/fashion/logs");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::write(nested.join("cnn.csv"), "epoch,accuracy,val_accuracy\n0,0.8,0.79\n").unwrap();
    let t = transcript(&root, &[]).await;
    let text = t[0]["answer"]["answer"].as_str().unwrap().to_string();
    let cases = [
        ("deep: found experiments/cnn/mlruns but no run in it", "results/"),
        ("killed: found files a training framework writes (outputs/lr1e-5/trainer_state.json)", "results/"),
        ("loose: 1 file in readable formats, none under a results directory (they are in analysis/)", "per-file"),
        (
            "nested: 1 file in readable formats, in a results directory one level too deep (fashion/); a results directory is read only at a project's top level: make fashion/ a project of its own",
            "per-file",
        ),
    ];
    for (want, never) in cases {
        let line = text.split(". ").find(|l| l.starts_with(&want[..5])).unwrap_or_else(|| panic!("{want} in {text}"));
        assert!(line.starts_with(want), "{line}");
        assert!(!line.contains(never), "{line}");
    }
    assert_eq!(t[0]["answer"]["ok"], false, "nothing found is a refusal");
    assert!(
        text.contains("Skipped: deep/experiments/cnn/mlruns/1: skipped: the MLflow experiment is deleted; killed/outputs/lr1e-5/trainer_state.json: skipped: not valid JSON"),
        "the refusal lists what the diagnostics point to: {text}"
    );
}

/// Files that merely share a framework's file names inside a project's results
/// directory stay plain result files: the directory is not taken for a Trainer output
/// directory or a Sacred run.
#[tokio::test]
async fn framework_file_names_in_results_stay_results() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let res = root.join("p/results");
    std::fs::create_dir_all(&res).unwrap();
    for (f, text) in [
        ("eval_results.json", "{\"wer\": 0.12}"),
        ("run.json", "{\"wer\": 0.2}"),
        ("config.json", "{\"wer\": 0.3}"),
        ("sweep_a.json", "{\"wer\": 0.1}"),
    ] {
        std::fs::write(res.join(f), text).unwrap();
    }
    let t = transcript(&root, &[("runs.list", json!({}))]).await;
    let mut names: Vec<&str> =
        t[1]["answer"]["data"]["runs"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["config", "eval_results", "run", "sweep_a"], "{t}");
}

/// The issue's bad input, all in one root (a truncated event file, a corrupt
/// `trainer_state.json`, a `metrics.csv` with a wrong header, a Hydra job without
/// `.hydra/`, and a killed W&B run whose log ends mid-record): each is listed with its
/// reason, every other run lands, and the scan is still one transaction: when writing
/// one run fails, nothing of that scan is written.
#[tokio::test]
async fn bad_input_is_skipped_and_a_scan_is_one_transaction() {
    use attest_runs::ledger::{Ledger, LedgerOptions};
    use std::ops::ControlFlow;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let fw = fixtures().join("frameworks");
    for (layout, project) in [
        ("tensorboard/cifar-tb", "tb"),
        ("hf-trainer/tiny-bert", "hf"),
        ("lightning/blobs", "pl"),
        ("hydra/cifar-hydra", "hydra"),
        ("wandb-offline/char-rnn", "wandb"),
    ] {
        copy_tree(&fw.join(layout), &root.join(project));
    }
    let store = attest_store::Store::open(&tmp.path().join("attest.db")).await.unwrap();
    let l = Ledger::new(store, LedgerOptions::default());
    let r = l.scan(&root, None, |_| ControlFlow::Continue(())).await.unwrap();
    let notes: Vec<(String, String)> = r
        .projects
        .iter()
        .flat_map(|p| p.notes.iter().map(|n| (format!("{}/{}", p.project, n.path), n.note.clone())))
        .collect();
    let expect = [
        ("tb/runs/lr1.0/events.out.tfevents.1796000000.fixture", "read in part: cut short"),
        ("hf/outputs/lr3e-2/trainer_state.json", "not valid JSON"),
        ("pl/lightning_logs/version_3/metrics.csv", "step"),
        ("hydra/multirun/2026-12-01/10-00-00/4", ".hydra/"),
        ("run-hs512d4t.wandb", "read in part: cut short inside a record"),
    ];
    for (path, why) in expect {
        assert!(notes.iter().any(|(p, n)| p.contains(path) && n.contains(why)), "{path}: {why} in {notes:#?}");
    }
    // 3 event-file runs, 3 Trainer runs, 3 Lightning versions, 4 Hydra jobs, 4 W&B runs.
    assert_eq!(r.total_runs, 17, "{}", r.message);
    let runs = |l: &Ledger| {
        let pool = l.store().pool().clone();
        async move { sqlx::query_scalar::<_, i64>("SELECT count(*) FROM runs").fetch_one(&pool).await.unwrap() }
    };
    let before = runs(&l).await;

    // A rescan that fails writing one new run (in `tb`, the fourth project of five)
    // writes nothing at all: not the new Trainer run of the first project either.
    copy_tree(&fw.join("tensorboard/cifar-tb/runs/lr0.1"), &root.join("tb/runs/lr0.3"));
    copy_tree(&fw.join("hf-trainer/tiny-bert/outputs/lr3e-3"), &root.join("hf/outputs/lr5e-3"));
    sqlx::query(
        "CREATE TRIGGER boom BEFORE INSERT ON runs WHEN NEW.name = 'runs/lr0.3' BEGIN SELECT RAISE(ABORT, 'boom'); END",
    )
    .execute(l.store().pool())
    .await
    .unwrap();
    assert!(l.scan(&root, None, |_| ControlFlow::Continue(())).await.is_err());
    assert_eq!(runs(&l).await, before, "the failed scan wrote nothing");
    sqlx::query("DROP TRIGGER boom").execute(l.store().pool()).await.unwrap();
    let r = l.scan(&root, None, |_| ControlFlow::Continue(())).await.unwrap();
    assert_eq!(r.total_runs, 19, "{}", r.message);
}
