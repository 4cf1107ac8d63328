//! `record`: preview, new files only, direction declarations, then scan and compare.
//! Outcomes and refusals are pinned whole in insta snapshots (the temp root shown as
//! `[root]`, times as `[time]`).

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

use attest_runs::direction::Direction;
use attest_runs::ledger::{Ledger, LedgerOptions, RecordRequest};
use attest_store::Store;
use serde_json::{Value, json};

fn arms(list: &[(&str, &[(&str, f64)])]) -> Vec<(String, BTreeMap<String, f64>)> {
    list.iter().map(|(a, ms)| (a.to_string(), ms.iter().map(|(k, v)| (k.to_string(), *v)).collect())).collect()
}

/// `v` as JSON with the temp root (as given and canonical) made `[root]` and times `[time]`.
fn shown<T: serde::Serialize>(v: &T, root: &Path) -> Value {
    let mut text = serde_json::to_string(v).unwrap();
    for d in [root.canonicalize().unwrap(), root.to_path_buf()] {
        text = text.replace(&d.display().to_string(), "[root]");
    }
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
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
    // The whole preview, with each file's content (kd_t4.json holds "wer": 0.06).
    insta::assert_json_snapshot!("preview", shown(&preview, root));

    let done = l.record(req(root, "kd", a.clone(), true)).await.unwrap();
    assert!(done.written);
    let c = done.comparison.unwrap();
    assert_eq!(c.winner.as_deref(), Some("kd_t4"));
    assert_eq!(c.corpus.as_deref(), Some("ls-test"));
    // What was written is what the preview showed.
    let text = std::fs::read_to_string(root.join("proj/results/kd_t4.json")).unwrap();
    let previewed = preview.files.iter().find(|f| f.path.ends_with("proj/results/kd_t4.json")).unwrap();
    assert_eq!(text, previewed.content);
    assert_eq!(done.files, preview.files);

    // The identical call again (a retry after a crash between the files and the scan's
    // commit, say) completes and writes nothing new.
    let again = l.record(req(root, "kd", a, true)).await.unwrap();
    assert!(again.written);
    assert_eq!(std::fs::read_to_string(root.join("proj/results/kd_t4.json")).unwrap(), text);
    // Different numbers under the same names: refusing to overwrite, naming kd_t2.json.
    let changed =
        arms(&[("t2", &[("wer", 0.08), ("n_records", 100.0)]), ("t4", &[("wer", 0.06), ("n_records", 100.0)])]);
    let e = l.record(req(root, "kd", changed, true)).await.unwrap_err().to_string();
    insta::assert_json_snapshot!("overwrite_refusal", shown(&e, root));
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
    assert!(!root.join("proj").exists());

    let mut r = req(root, "prompt", a, true);
    r.directions.insert("judge_score".into(), Direction::HigherIsBetter);
    let done = l.record(r).await.unwrap();
    assert_eq!(done.declared, [("judge_score".to_string(), Direction::HigherIsBetter)]);
    let file = root.join("metric_directions.toml");
    assert_eq!(done.directions_file.as_deref(), Some(file.to_str().unwrap()));
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(done.comparison.as_ref().unwrap().winner.as_deref(), Some("prompt_cot"));
    // The refusal says there is no known direction for judge_score and to pass
    // directions=; the file written declares judge_score = "higher_is_better".
    let all = json!({"refusal": e, "metric_directions.toml": written, "outcome": done});
    insta::assert_json_snapshot!("declared_directions", shown(&all, root));
}

#[tokio::test]
async fn bad_requests_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let l = Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default());
    // Each refusal, whole in the snapshot, says what to do: an arm with no '_', family
    // 'kd-sweep' instead of 'kd_sweep', a value that is not a finite number, a name not
    // read as a metric, an arm with no metric values, nothing to record, a project that
    // must be a plain directory name.
    let cases: Vec<(&str, RecordRequest)> = vec![
        ("arm t_4", req(root, "kd", arms(&[("t_4", &[("wer", 0.1)])]), true)),
        ("family kd_sweep", req(root, "kd_sweep", arms(&[("t4", &[("wer", 0.1)])]), true)),
        ("wer NaN", req(root, "kd", arms(&[("t4", &[("wer", f64::NAN)])]), true)),
        ("only seed", req(root, "kd", arms(&[("t4", &[("seed", 3.0)])]), true)),
        ("no metrics", req(root, "kd", arms(&[("t4", &[])]), true)),
        ("no arms", req(root, "kd", vec![], true)),
        (
            "project ../x",
            RecordRequest { project: "../x".into(), ..req(root, "kd", arms(&[("t4", &[("wer", 0.1)])]), true) },
        ),
    ];
    let mut refusals = Vec::new();
    for (case, r) in cases {
        let e = l.record(r).await.unwrap_err().to_string();
        refusals.push(json!({"case": case, "error": e}));
    }
    insta::assert_json_snapshot!("bad_requests", shown(&refusals, root));
    assert!(std::fs::read_dir(root).unwrap().next().is_none(), "nothing was written");
}
