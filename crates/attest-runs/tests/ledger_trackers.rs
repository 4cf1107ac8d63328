//! The tracker readers against fixtures written by the real mlflow and wandb packages
//! (tests/fixtures/trackers, see specs/fixtures.md). Expected values come from each
//! fixture's `.expected.json`, which the generator writes. Caveats and refusals are
//! pinned whole in insta snapshots (the fixture directory shown as `[root]`, times as
//! `[time]`).

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_runs::hash;
use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_store::Store;
use serde_json::{Value, json};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/trackers").canonicalize().unwrap()
}

fn expected(kind: &str) -> Value {
    serde_json::from_slice(&std::fs::read(fixtures().join(format!("{kind}.expected.json"))).unwrap()).unwrap()
}

async fn scanned(kind: &str) -> Ledger {
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    let r = l.scan(&fixtures().join(kind), None, |_| ControlFlow::Continue(())).await.unwrap();
    let want = expected(kind)["runs"].as_array().unwrap().len();
    assert_eq!(r.total_runs, want, "{r:#?}");
    l
}

/// `v` as JSON with the fixture directory made `[root]` and times `[time]`.
fn shown<T: serde::Serialize>(v: &T) -> Value {
    let text = serde_json::to_string(v).unwrap().replace(&fixtures().display().to_string(), "[root]");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

fn value_of(m: &Value) -> (f64, Option<i64>) {
    match m {
        Value::Object(o) => (o["value"].as_f64().unwrap(), o.get("step").and_then(Value::as_i64)),
        v => (v.as_f64().unwrap(), None),
    }
}

async fn check_runs(l: &Ledger, kind: &str, adapter: &str) {
    let exp = expected(kind);
    let project = exp["project"].as_str().unwrap();
    let mut caveats = Vec::new();
    for run in exp["runs"].as_array().unwrap() {
        let name = run["name"].as_str().unwrap();
        let d = l.detail(project, name).await.unwrap_or_else(|e| panic!("{kind}: {name}: {e}"));
        assert_eq!(d.adapter, adapter);
        assert_eq!(d.family.as_deref(), run["family"].as_str(), "{name}");
        let want = run["metrics"].as_object().unwrap();
        assert_eq!(
            d.metrics.iter().map(|m| m.metric.clone()).collect::<std::collections::BTreeSet<_>>().len(),
            want.len(),
            "{name}: {:?}",
            d.metrics
        );
        for (metric, v) in want {
            let (value, step) = value_of(v);
            let got = d.metrics.iter().find(|m| &m.metric == metric).unwrap_or_else(|| panic!("{name} lacks {metric}"));
            assert_eq!(got.value, value, "{name} {metric}");
            if step.is_some() {
                assert_eq!(got.step, step, "{name} {metric}");
            }
        }
        for (metric, _) in run["dropped_metrics"].as_object().unwrap() {
            assert!(
                d.caveats.iter().any(|c| c.contains(&format!("`{metric}`"))),
                "{name}: no caveat for dropped {metric}: {:?}",
                d.caveats
            );
        }
        // Each run's caveats, whole in the snapshot, name its tracker (MLflow or W&B).
        caveats.push(json!({"run": name, "caveats": d.caveats}));
        assert_eq!(hash::evidence(&d.source_path).await, d.source_hash, "{name}: evidence re-hashes");
        assert!(d.source_hash.is_some());
    }
    for skipped in exp["skipped"].as_array().unwrap() {
        let name = skipped["would_be_name"].as_str().unwrap();
        assert!(l.detail(project, name).await.is_err(), "{name} must be skipped");
    }
    insta::assert_json_snapshot!(format!("{kind}_run_caveats"), shown(&caveats));
}

#[tokio::test]
async fn mlflow_file_store() {
    let l = scanned("mlflow-files").await;
    check_runs(&l, "mlflow-files", "mlflow").await;
    let exp = expected("mlflow-files");
    let d08 = exp["runs"].as_array().unwrap().iter().find(|r| r["arm"] == "d08").unwrap();
    let d = l.detail("cnn-dropout", d08["name"].as_str().unwrap()).await.unwrap();
    assert_eq!(d.notes.as_deref(), Some("MLflow status: FAILED"));
    assert_eq!(d.config.as_ref().unwrap()["dropout"], "0.8");
    assert_eq!(d.config.as_ref().unwrap()["tag.arm"], "d08");
    assert!(d.started.as_deref().unwrap().ends_with('Z'));
    compare_dropout(&l, "mlflow-files").await;
}

#[tokio::test]
async fn mlflow_sqlite_backend() {
    let db = fixtures().join("mlflow-sqlite/cnn-dropout/mlflow.db");
    let before = std::fs::read(&db).unwrap();
    let l = scanned("mlflow-sqlite").await;
    check_runs(&l, "mlflow-sqlite", "mlflow").await;
    compare_dropout(&l, "mlflow-sqlite").await;
    assert_eq!(std::fs::read(&db).unwrap(), before, "the tracker database is opened read-only");
    assert!(!db.with_extension("db-wal").exists() && !db.with_extension("db-journal").exists());
    let exp = expected("mlflow-sqlite");
    let first = exp["runs"][0]["name"].as_str().unwrap();
    let d = l.detail("cnn-dropout", first).await.unwrap();
    assert!(d.source_path.contains("mlflow.db#run="), "{}", d.source_path);
}

async fn compare_dropout(l: &Ledger, kind: &str) {
    let exp = expected(kind);
    let c = l.compare("dropout_sweep", None, None).await.unwrap();
    assert_eq!(c.metric, exp["compare"]["auto_metric"].as_str().unwrap());
    let arm_of = |name: &str| {
        exp["runs"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap()["arm"].as_str().unwrap().to_string()
    };
    let order: Vec<String> = c.arms.iter().map(|a| arm_of(&a.name)).collect();
    let want: Vec<String> =
        exp["compare"]["order"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    assert_eq!(order, want);
    // The caveats, whole: too close to call, single run, the latest logged value, and a
    // run whose status is FAILED.
    insta::assert_json_snapshot!(format!("{kind}_dropout_caveats"), shown(&c.caveats));
}

#[tokio::test]
async fn wandb_offline_runs() {
    let l = scanned("wandb").await;
    check_runs(&l, "wandb", "wandb").await;
    let exp = expected("wandb");
    for run in exp["runs"].as_array().unwrap() {
        let d = l.detail("tiny-lm", run["name"].as_str().unwrap()).await.unwrap();
        let cfg = d.config.unwrap();
        for (k, v) in run["config"].as_object().unwrap() {
            assert_eq!(&cfg[k], v, "{k}");
        }
        assert!(cfg.get("_wandb").is_none());
        assert_eq!(d.started.as_deref(), run["started"].as_str());
        assert_eq!(d.corpus.as_deref(), Some("tinystories-10k"));
    }
    // `latest-run` is a symlink to a run already read: no duplicate.
    assert_eq!(l.list(Some("tiny-lm"), None, 50).await.unwrap().total, 3);
    // Auto-pick prefers a held-out metric over train_loss on a tie (the original picked train_loss).
    let c = l.compare("train_tiny_lm", None, None).await.unwrap();
    assert_eq!(c.metric, "val_loss");
    let c = l.compare("train_tiny_lm", Some("val_ppl"), None).await.unwrap();
    let want: Vec<&str> =
        exp["compare"]["order_by_val_ppl"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let got: Vec<&str> = c.arms.iter().filter(|a| a.value.is_some()).map(|a| a.name.as_str()).collect();
    assert_eq!(got, want);
    assert_eq!(c.without_metric.len(), 1, "the NaN run has no val_ppl");
    let e = l.compare("train_tiny_lm", Some("tokens_seen"), None).await.unwrap_err().to_string();
    // The val_ppl caveats say `val_ppl` was NaN for one run; tokens_seen has no declared
    // direction.
    let said = json!({"val_ppl caveats": c.caveats, "tokens_seen refusal": e});
    insta::assert_json_snapshot!("wandb_val_ppl", shown(&said));
}
