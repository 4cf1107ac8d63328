//! Scanning: counts, refusals, diagnostics, id stability, atomicity, hashes. Reports,
//! notes, caveats and errors are pinned whole in insta snapshots (directories shown as
//! `[root]`-style placeholders, times as `[time]`), so a reviewer sees every word.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use attest_runs::LedgerError;
use attest_runs::hash;
use attest_runs::ledger::{Ledger, LedgerOptions, ScanReport};
use attest_store::Store;
use serde_json::{Value, json};
use sqlx::Row;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

async fn ledger() -> Ledger {
    Ledger::new(Store::open_in_memory().await.unwrap(), LedgerOptions::default())
}

async fn scan(l: &Ledger, root: &Path) -> ScanReport {
    l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `v` as JSON with each directory (as given and canonical) made its placeholder and
/// times made `[time]`.
fn shown<T: serde::Serialize>(v: &T, dirs: &[(&Path, &str)]) -> Value {
    let mut text = serde_json::to_string(v).unwrap();
    for (dir, name) in dirs {
        for d in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
            text = text.replace(&d.display().to_string(), name);
        }
    }
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

async fn count(l: &Ledger, sql: &str) -> i64 {
    sqlx::query(sql).fetch_one(l.store().pool()).await.unwrap().get(0)
}

#[tokio::test]
async fn example_workspace_scans_as_documented() {
    let l = ledger().await;
    let r = scan(&l, &repo().join("examples/workspace")).await;
    assert_eq!(r.total_runs, 12, "{r:#?}");
    let per: Vec<(&str, usize, usize)> = r.projects.iter().map(|p| (p.project.as_str(), p.runs, p.specs)).collect();
    assert_eq!(per, [("asr-distill", 9, 1), ("summarizer-prompts", 3, 0)]);
    assert_eq!(r.message, "12 runs across 2 projects; nothing recognised in paper");
    assert_eq!(r.empty.len(), 1);
    // The whole report: paper's diagnostic (1 file but none in a format the ledger reads,
    // found .md), and asr-distill's notes (results/tokenizer_vocab.json not recorded, a
    // lookup table; logs/trainlog_kdalpha50.jsonl, 1 line of 7 skipped).
    let workspace = repo().join("examples/workspace");
    insta::assert_json_snapshot!("example_workspace_scan", shown(&r, &[(&workspace, "[root]")]));

    let list = l.list(Some("asr-distill"), None, 100).await.unwrap();
    let names: Vec<&str> = list.runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "beam_search/b1",
            "beam_search/b4",
            "beam_search/b8",
            "kdalpha_0",
            "kdalpha_25",
            "kdalpha_50",
            "kdalpha_75",
            "planned_alpha90",
            "trainlog_kdalpha50"
        ]
    );
    let spec = l.detail("asr-distill", "planned_alpha90").await.unwrap();
    assert_eq!(spec.status, "spec");
    assert!(spec.metrics.is_empty());
    assert_eq!(spec.notes.as_deref().unwrap().lines().count(), 3);
    assert_eq!(spec.config.as_ref().unwrap()["distill"]["alpha"], 0.9);
    assert_eq!(spec.family.as_deref(), Some("planned"));

    let k = l.detail("asr-distill", "kdalpha_25").await.unwrap();
    assert_eq!(k.config, Some(serde_json::json!({"seed": "17"})));
    assert_eq!(k.corpus.as_deref(), Some("cv-en-heldout"));
    let m: Vec<(String, f64)> = k.metrics.iter().map(|m| (m.metric.clone(), m.value)).collect();
    assert_eq!(m, [("n_records".to_string(), 2400.0), ("wer".to_string(), 0.0756)]);

    let log = l.detail("asr-distill", "trainlog_kdalpha50").await.unwrap();
    assert_eq!(log.metrics.len(), 18);
    let last = log.metrics.iter().filter(|m| m.metric == "val_loss").max_by_key(|m| m.step).unwrap();
    assert_eq!((last.value, last.step), (1.284, Some(3000)));
    // Its caveats say 1 line of its log could not be parsed.
    insta::assert_json_snapshot!("trainlog_caveats", shown(&log.caveats, &[(&workspace, "[root]")]));

    let b8 = l.detail("asr-distill", "beam_search/b8").await.unwrap();
    assert!(b8.source_path.ends_with("results/beam_search.csv#row=b8"), "{}", b8.source_path);
    assert_eq!(b8.family.as_deref(), Some("beam_search"));
    let m: Vec<(String, f64)> = b8.metrics.iter().map(|m| (m.metric.clone(), m.value)).collect();
    assert_eq!(m, [("beam".into(), 8.0), ("n_records".into(), 2400.0), ("rtf".into(), 0.34), ("wer".into(), 0.0655)]);
    assert_eq!(b8.corpus.as_deref(), Some("cv-en-heldout"));

    // every source_hash can be recomputed from its source_path
    let rows = sqlx::query("SELECT source_path, source_hash FROM runs").fetch_all(l.store().pool()).await.unwrap();
    assert_eq!(rows.len(), 12);
    for r in rows {
        let (p, h): (String, Option<String>) = (r.get(0), r.get(1));
        assert!(Path::new(hash::split_fragment(&p).0).is_absolute(), "{p}");
        assert_eq!(hash::evidence(&p).await, h, "{p}");
    }
}

#[tokio::test]
async fn ids_survive_rescans_and_vanished_runs_go() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("p/results/sw_a.json"), r#"{"wer": 0.1}"#);
    write(&root.join("p/results/sw_b.json"), r#"{"wer": 0.2}"#);
    write(&root.join("p/results/sw_c.json"), r#"{"wer": 0.3}"#);
    let l = ledger().await;
    scan(&l, root).await;
    let a1 = l.detail("p", "sw_a").await.unwrap();
    let b1 = l.detail("p", "sw_b").await.unwrap();
    std::fs::remove_file(root.join("p/results/sw_c.json")).unwrap();
    write(&root.join("p/results/sw_b.json"), r#"{"wer": 0.25, "cer": 0.1}"#);
    write(&root.join("p/results/sw_d.json"), r#"{"wer": 0.4}"#);
    let r = scan(&l, root).await;
    assert_eq!(r.projects[0].removed, 1);
    let a2 = l.detail("p", "sw_a").await.unwrap();
    let b2 = l.detail("p", "sw_b").await.unwrap();
    assert_eq!((a2.id, b2.id), (a1.id, b1.id), "ids are stable");
    assert_eq!(a2.source_hash, a1.source_hash, "unchanged content, unchanged hash");
    assert_ne!(b2.source_hash, b1.source_hash);
    assert_eq!(b2.metrics.len(), 2, "metric rows replaced, not appended");
    assert!(l.detail("p", "sw_c").await.is_err());
    assert_eq!(count(&l, "SELECT CAST(sum(n) AS BIGINT) FROM run_curves").await, 4);
    // a rescan of one project leaves the others alone
    write(&root.join("q/results/x_a.json"), r#"{"wer": 0.1}"#);
    scan(&l, root).await;
    std::fs::remove_file(root.join("q/results/x_a.json")).unwrap();
    write(&root.join("q/results/x_b.json"), r#"{"wer": 0.1}"#);
    l.scan(root, Some("p"), |_| ControlFlow::Continue(())).await.unwrap();
    assert!(l.detail("q", "x_a").await.is_ok(), "q was not rescanned");
    // touching a file without changing it keeps the hash
    let before = l.detail("p", "sw_a").await.unwrap().source_hash;
    write(&root.join("p/results/sw_a.json"), r#"{"wer": 0.1}"#);
    assert_eq!(hash::evidence(&a1.source_path).await, before);
}

/// A rescan rewrites only the metric rows of runs whose rows changed (by the digest
/// stored with each run); a run with no digest (written before it existed) or with
/// rows that no longer match is rewritten.
#[tokio::test]
async fn rescans_rewrite_only_changed_curves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("p/results/sw_a.json"), r#"[{"step": 1, "wer": 0.3}, {"step": 2, "wer": 0.2}]"#);
    write(&root.join("p/results/sw_b.json"), r#"{"wer": 0.2}"#);
    let l = ledger().await;
    scan(&l, root).await;
    let rowids = |run: &'static str| {
        let l = l.clone();
        async move {
            let sql = format!(
                "SELECT c.rowid FROM run_curves c JOIN runs r ON r.id = c.run_id WHERE r.name = '{run}' ORDER BY c.rowid"
            );
            let rows = sqlx::query(&sql).fetch_all(l.store().pool()).await.unwrap();
            rows.iter().map(|r| r.get::<i64, _>(0)).collect::<Vec<i64>>()
        }
    };
    let a1 = rowids("sw_a").await;
    write(&root.join("p/results/sw_b.json"), r#"{"wer": 0.25}"#);
    scan(&l, root).await;
    assert_eq!(rowids("sw_a").await, a1, "an unchanged curve is not rewritten");
    assert_eq!(l.detail("p", "sw_b").await.unwrap().metrics[0].value, 0.25, "a changed run is");
    // A run whose stored digest is unknown, or whose rows were changed behind the
    // ledger's back, is rewritten from the files.
    sqlx::query("UPDATE runs SET metrics_digest = NULL WHERE name = 'sw_a'").execute(l.store().pool()).await.unwrap();
    sqlx::query("DELETE FROM run_curves WHERE run_id = (SELECT id FROM runs WHERE name = 'sw_a')")
        .execute(l.store().pool())
        .await
        .unwrap();
    scan(&l, root).await;
    assert_eq!(l.detail("p", "sw_a").await.unwrap().metrics.len(), 2);
}

#[tokio::test]
async fn a_failed_scan_leaves_the_previous_rows_intact() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("a/results/m_x.json"), r#"{"wer": 0.1}"#);
    write(&root.join("b/results/m_y.json"), r#"{"wer": 0.2}"#);
    let l = ledger().await;
    scan(&l, root).await;
    let before = count(&l, "SELECT count(*) FROM runs").await;
    // The second project's write fails half-way through the scan.
    let postgres = l.store().dialect() == attest_store::Dialect::Postgres;
    let boom: &[&str] = if postgres {
        &[
            "CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.name = 'm_boom' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$",
            "CREATE TRIGGER boom BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION boom()",
        ]
    } else {
        &["CREATE TRIGGER boom BEFORE INSERT ON runs WHEN NEW.name = 'm_boom' BEGIN SELECT RAISE(ABORT, 'boom'); END"]
    };
    for sql in boom {
        sqlx::query(sql).execute(l.store().pool()).await.unwrap();
    }
    std::fs::remove_file(root.join("a/results/m_x.json")).unwrap();
    write(&root.join("a/results/m_z.json"), r#"{"wer": 0.3}"#);
    write(&root.join("b/results/m_boom.json"), r#"{"wer": 0.4}"#);
    let err = l.scan(root, None, |_| ControlFlow::Continue(())).await.unwrap_err();
    assert!(matches!(err, LedgerError::Store(_)), "{err}");
    assert_eq!(count(&l, "SELECT count(*) FROM runs").await, before);
    assert!(l.detail("a", "m_x").await.is_ok(), "project a's earlier rows survived");
    assert!(l.detail("a", "m_z").await.is_err(), "nothing of the failed scan was written");
    // A cancelled scan writes nothing either.
    sqlx::query(if postgres { "DROP TRIGGER boom ON runs" } else { "DROP TRIGGER boom" })
        .execute(l.store().pool())
        .await
        .unwrap();
    let err = l
        .scan(root, None, |p| if p.index == 2 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
        .await
        .unwrap_err();
    let said = shown(&err.to_string(), &[(root, "[root]")]);
    insta::assert_snapshot!("cancelled_scan", said.as_str().unwrap());
    assert!(l.detail("a", "m_x").await.is_ok());
    let r = scan(&l, root).await;
    assert_eq!(r.total_runs, 3);
}

#[tokio::test]
async fn refusals_are_noted_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let res = root.join("p/results");
    write(&res.join("ok_a.json"), r#"{"wer": NaN, "cer": 0.2, "ok": true}"#);
    write(&res.join("broken.json"), r#"{"wer": 0.1"#);
    write(&res.join("strings.json"), r#"{"model": "x"}"#);
    write(&res.join("table.csv"), "beam,wer\n1,0.1\n4,0.2\n");
    write(&res.join("labelled.csv"), "Arm,wer,seed\nb1,0.1,3\nb2,inf,3\n");
    let big = res.join("huge.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(50 * 1024 * 1024).unwrap();
    let l = ledger().await;
    // The size check comes before any read: the note below says so, with no clock.
    let r = scan(&l, root).await;
    // The whole report; its notes say: results/huge.json, 50.0 MB is over the 20 MB limit;
    // results/broken.json, not valid JSON; results/strings.json, no numeric result;
    // results/table.csv, add a column called one of config_name, config, name, run.
    insta::assert_json_snapshot!("refusals_scan", shown(&r, &[(root, "[root]")]));
    let names: Vec<String> = l.list(Some("p"), None, 50).await.unwrap().runs.into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["labelled/b1", "ok_a"], "b2's only metric was infinite");
    let ok = l.detail("p", "ok_a").await.unwrap();
    assert_eq!(ok.metrics.len(), 1);
    // Its caveat says `wer` was NaN and was dropped.
    insta::assert_json_snapshot!("refusals_nan_caveats", shown(&ok.caveats, &[(root, "[root]")]));
    let b1 = l.detail("p", "labelled/b1").await.unwrap();
    assert_eq!(b1.config, Some(serde_json::json!({"seed": 3.0})));
}

#[tokio::test]
async fn a_scan_that_finds_nothing_says_where_the_files_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("notes/readme.md"), "hi");
    write(&root.join("loose/scores.json"), r#"{"wer": 0.1}"#);
    write(&root.join("plans/configs/next.yaml"), "a: 1\n");
    std::fs::create_dir_all(root.join("void")).unwrap();
    write(&root.join("deep/analysis/out/r.csv"), "arm,wer\na,0.1\n");
    let l = ledger().await;
    let r = scan(&l, root).await;
    assert_eq!(r.total_runs, 1, "the planned config is a spec: {r:#?}");
    assert_eq!(r.projects[0].project, "plans");
    let projects: Vec<&str> = r.empty.iter().map(|e| e.project.as_str()).collect();
    assert_eq!(projects, ["deep", "loose", "notes", "void"]);
    // The diagnostics: notes, none in a format the ledger reads (found .md); loose, none
    // under a results directory (they are in the project's top level); deep, they are in
    // analysis/out/; void, empty.
    insta::assert_json_snapshot!("nothing_found_scan", shown(&r, &[(root, "[root]")]));

    let empty = tempfile::tempdir().unwrap();
    let r = scan(&l, empty.path()).await;
    assert!(r.found_nothing());
    let mut said = vec![json!({"scan": "an empty root", "message": r.message})];
    let e = l.scan(&empty.path().join("nope"), None, |_| ControlFlow::Continue(())).await.unwrap_err();
    said.push(json!({"scan": "a missing root", "error": e.to_string()}));
    let e = l.scan(root, Some("missing"), |_| ControlFlow::Continue(())).await.unwrap_err();
    said.push(json!({"scan": "project 'missing'", "error": e.to_string()}));
    // The empty root's message says it found no runs and that projects are
    // subdirectories; the missing root, no such directory; the missing project lists
    // deep, loose, notes, plans, void.
    insta::assert_json_snapshot!(
        "nothing_found_messages",
        shown(&said, &[(root, "[root]"), (empty.path(), "[empty]")])
    );
}

#[tokio::test]
async fn the_root_itself_is_a_fallback_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("myproj");
    write(&root.join("results/a_1.json"), r#"{"acc": 0.9}"#);
    write(&root.join("results/a_2.json"), r#"{"acc": 0.8}"#);
    let l = ledger().await;
    let r = scan(&l, &root).await;
    assert_eq!(r.projects.len(), 1);
    assert_eq!(r.projects[0].project, "myproj");
    assert!(r.empty.is_empty(), "results/ was consumed by the root, not an empty project: {r:#?}");
}

#[tokio::test]
async fn list_detail_and_run_lookup() {
    let l = ledger().await;
    scan(&l, &repo().join("examples/workspace")).await;
    let all = l.list(None, None, 4).await.unwrap();
    assert_eq!(all.total, 12);
    let projects: Vec<&str> = all.runs.iter().map(|r| r.project.as_str()).collect();
    assert_eq!(projects, ["asr-distill", "summarizer-prompts", "asr-distill", "summarizer-prompts"], "round-robin");
    assert_eq!(all.n_families, 5);
    assert_eq!(all.families[0].family, "kdalpha");
    let fams = l.families(Some("summarizer-prompts")).await.unwrap();
    assert_eq!((fams[0].family.as_str(), fams[0].n), ("prompt", 3));
    // An unknown run names close matches (kdalpha_0, kdalpha_25); an unknown project,
    // no project 'nope'.
    let errors = [
        l.detail("asr-distill", "kdalpha_100").await.unwrap_err().to_string(),
        l.detail("nope", "x").await.unwrap_err().to_string(),
    ];
    insta::assert_json_snapshot!("detail_errors", errors);
    assert_eq!(l.projects_of_run("kdalpha_50", 6).await.unwrap(), ["asr-distill"]);
    assert!(l.projects_of_run("nope_1", 6).await.unwrap().is_empty());
}
