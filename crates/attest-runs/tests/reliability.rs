//! What the provenance tools answer when the database is busy, and where they refuse
//! to read or write (issue 15): whole answers, as an agent sees them, pinned in insta
//! snapshots (the temp directory shown as `[tmp]`, times as `[time]`).
//!
//! - A busy database (another process holding the write lock past the busy timeout)
//!   is `ok: false` with a retry hint for `runs.scan` and `runs.record`, never an
//!   internal fault; `runs.record` then leaves no file behind, so the same call,
//!   retried, succeeds.
//! - Links leading out of the research root are never read or written through: a
//!   project that is such a link is reported and not read, a result file that is one
//!   is skipped with its reason, and `runs.scan`, `runs.record` and
//!   `runs.claims_check` refuse a path or project name that resolves outside.

use std::path::{Path, PathBuf};

mod common;

use attest_core::Catalogue;
use common::catalogue;
use serde_json::{Value, json};
use sqlx::ConnectOptions;

/// The answer as JSON, with the temp directory (as given and canonical) `[tmp]` and
/// times `[time]`.
async fn call(c: &Catalogue, tool: &str, args: Value, tmp: &Path) -> Value {
    let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
    let mut text = serde_json::to_string(&answer).unwrap();
    for d in [tmp.canonicalize().unwrap(), tmp.to_path_buf()] {
        text = text.replace(&d.display().to_string(), "[tmp]");
    }
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap().to_path_buf())
        .collect()
}

#[tokio::test]
async fn a_busy_database_is_a_refusal_to_retry_and_record_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    write(&root.join("asr/results/kd_t2.json"), r#"{"wer": 0.07, "n_records": 100}"#);
    let db = tmp.path().join("attest.db");
    let c = catalogue(&db, &root).await;

    // Another process takes the write lock and keeps it past the busy timeout.
    let mut other =
        sqlx::sqlite::SqliteConnectOptions::new().filename(&db).connect().await.expect("a second connection");
    sqlx::query("BEGIN IMMEDIATE").execute(&mut other).await.unwrap();

    let scan = call(&c, "runs.scan", json!({"confirm": true}), tmp.path()).await;
    let record_args =
        json!({"family": "kd", "project": "asr", "arms": {"t4": {"wer": 0.06, "n_records": 100}}, "confirm": true});
    let record = call(&c, "runs.record", record_args.clone(), tmp.path()).await;
    let left = files_under(&root);

    // The lock is released; the very same call now succeeds.
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    let retried = call(&c, "runs.record", record_args, tmp.path()).await;
    assert_eq!(retried["ok"], json!(true), "{retried}");
    assert!(root.join("asr/results/kd_t4.json").is_file());

    insta::assert_json_snapshot!(json!({
        "runs.scan while busy": scan,
        "runs.record while busy": record,
        "files left on disk by the busy record": left,
        "runs.record retried": retried,
    }));
}

#[cfg(unix)]
#[tokio::test]
async fn links_out_of_the_root_are_never_read_or_written_through() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let away = tmp.path().join("away");
    write(&root.join("asr/results/kd_t2.json"), r#"{"wer": 0.07, "n_records": 100}"#);
    write(&away.join("results/kd_t9.json"), r#"{"wer": 0.01, "n_records": 100}"#);
    write(&away.join("secret.json"), r#"{"wer": 0.001}"#);
    write(&away.join("draft.md"), "WER 0.01 <!-- claim: asr/kd_t9 metric=wer value=0.01 -->\n");
    // A project that is a link out of the root, and a result file that is one.
    std::os::unix::fs::symlink(&away, root.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(away.join("secret.json"), root.join("asr/results/kd_t3.json")).unwrap();
    // A results subdirectory that is a link out of the root is not entered.
    std::os::unix::fs::symlink(away.join("results"), root.join("asr/results/more")).unwrap();
    let away_before = files_under(&away);

    let c = catalogue(&tmp.path().join("attest.db"), &root).await;
    let calls = [
        ("runs.scan", json!({"confirm": true})),
        ("runs.scan", json!({"confirm": true, "project": "elsewhere"})),
        ("runs.scan", json!({"confirm": true, "root": "elsewhere"})),
        ("runs.scan", json!({"confirm": true, "root": root.join("elsewhere/results").display().to_string()})),
        ("runs.list", json!({})),
        (
            "runs.record",
            json!({"family": "kd", "project": "elsewhere", "arms": {"t5": {"wer": 0.05}}, "confirm": true}),
        ),
        ("runs.claims_check", json!({"path": "elsewhere/draft.md"})),
        ("runs.claims_coverage", json!({"path": "elsewhere"})),
    ];
    let mut all = Vec::new();
    for (tool, args) in calls {
        all.push(json!({ "call": tool, "args": args, "answer": call(&c, tool, args.clone(), tmp.path()).await }));
    }
    assert_eq!(files_under(&away), away_before, "nothing was written outside the root");
    // The arguments name the temp directory too.
    let mut text = serde_json::to_string(&all).unwrap();
    for d in [tmp.path().canonicalize().unwrap(), tmp.path().to_path_buf()] {
        text = text.replace(&d.display().to_string(), "[tmp]");
    }
    insta::assert_json_snapshot!(serde_json::from_str::<Value>(&text).unwrap());
}
