//! `record`: preview, new files only, direction declarations, then scan and compare.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

use attest_runs::direction::Direction;
use attest_runs::ledger::{Ledger, LedgerOptions, RecordRequest};
use attest_store::Store;

fn arms(list: &[(&str, &[(&str, f64)])]) -> Vec<(String, BTreeMap<String, f64>)> {
    list.iter().map(|(a, ms)| (a.to_string(), ms.iter().map(|(k, v)| (k.to_string(), *v)).collect())).collect()
}

fn req(root: &Path, family: &str, a: Vec<(String, BTreeMap<String, f64>)>, confirm: bool) -> RecordRequest {
    RecordRequest {
        family: family.into(),
        arms: a,
        corpus: Some("ls-test".into()),
        directions: BTreeMap::new(),
        project: "proj".into(),
        root: root.to_path_buf(),
        confirm,
    }
}

#[tokio::test]
async fn preview_write_and_never_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    let a = arms(&[("t2", &[("wer", 0.07), ("n_records", 100.0)]), ("t4", &[("wer", 0.06), ("n_records", 100.0)])]);
    let preview = l.record(req(root, "kd", a.clone(), false)).await.unwrap();
    assert!(!preview.written);
    assert_eq!(preview.files.len(), 2);
    assert!(preview.files[0].path.ends_with("proj/results/kd_t2.json"));
    assert!(!root.join("proj").exists(), "a preview writes nothing");

    let done = l.record(req(root, "kd", a.clone(), true)).await.unwrap();
    assert!(done.written);
    let c = done.comparison.unwrap();
    assert_eq!(c.winner.as_deref(), Some("kd_t4"));
    assert_eq!(c.corpus.as_deref(), Some("ls-test"));
    let text = std::fs::read_to_string(root.join("proj/results/kd_t4.json")).unwrap();
    assert!(text.contains("\"wer\": 0.06"), "{text}");

    let e = l.record(req(root, "kd", a, true)).await.unwrap_err().to_string();
    assert!(e.contains("refusing to overwrite") && e.contains("kd_t2.json"), "{e}");
    // Rescanning the written files gives the same runs (same ids).
    let id = l.detail("proj", "kd_t4").await.unwrap().id;
    l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap();
    assert_eq!(l.detail("proj", "kd_t4").await.unwrap().id, id);
}

#[tokio::test]
async fn undeclared_directions_are_refused_or_declared() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    let a = arms(&[("cot", &[("judge_score", 7.1)]), ("terse", &[("judge_score", 6.4)])]);
    let e = l.record(req(root, "prompt", a.clone(), true)).await.unwrap_err().to_string();
    assert!(e.contains("no known direction for judge_score") && e.contains("directions="), "{e}");
    assert!(!root.join("proj").exists());

    let mut r = req(root, "prompt", a, true);
    r.directions.insert("judge_score".into(), Direction::HigherIsBetter);
    let done = l.record(r).await.unwrap();
    assert_eq!(done.declared, [("judge_score".to_string(), Direction::HigherIsBetter)]);
    let file = root.join("metric_directions.toml");
    assert_eq!(done.directions_file.as_deref(), Some(file.to_str().unwrap()));
    assert!(std::fs::read_to_string(&file).unwrap().contains("judge_score = \"higher_is_better\""));
    assert_eq!(done.comparison.unwrap().winner.as_deref(), Some("prompt_cot"));
}

#[tokio::test]
async fn bad_requests_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    let cases: Vec<(RecordRequest, &str)> = vec![
        (req(root, "kd", arms(&[("t_4", &[("wer", 0.1)])]), true), "no '_'"),
        (req(root, "kd_sweep", arms(&[("t4", &[("wer", 0.1)])]), true), "use family 'kd-sweep'"),
        (req(root, "kd", arms(&[("t4", &[("wer", f64::NAN)])]), true), "not a finite number"),
        (req(root, "kd", arms(&[("t4", &[("seed", 3.0)])]), true), "not read as a metric"),
        (req(root, "kd", arms(&[("t4", &[])]), true), "no metric values"),
        (req(root, "kd", vec![], true), "nothing to record"),
        (
            RecordRequest { project: "../x".into(), ..req(root, "kd", arms(&[("t4", &[("wer", 0.1)])]), true) },
            "plain directory name",
        ),
    ];
    for (r, want) in cases {
        let e = l.record(r).await.unwrap_err().to_string();
        assert!(e.contains(want), "{want:?} not in {e:?}");
    }
    assert!(std::fs::read_dir(root).unwrap().next().is_none(), "nothing was written");
}
