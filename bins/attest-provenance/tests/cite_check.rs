//! `cite.check` on the provenance surface: listed after `runs.tools`, and it flags a
//! `cite=` key no source has, with file:line.

use std::path::Path;

use attest_testkit::Session;
use serde_json::{Value, json};

#[tokio::test]
async fn cite_check_is_listed_and_flags_an_unknown_key() {
    let root = tempfile::tempdir().unwrap();
    let db = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("refs.bib"), "@article{known2020, title={Known}, author={Doe, J}, year={2020}}\n")
        .unwrap();
    std::fs::write(
        root.path().join("draft.md"),
        "a <!-- claim: p/r metric=wer value=0.1 cite=known2020 -->\nb <!-- claim: p/r metric=wer value=0.2 cite=nobody1999 -->\n",
    )
    .unwrap();
    let db_path = db.path().join("attest.db");
    let cmd = Session::command(
        env!("CARGO_BIN_EXE_attest-provenance"),
        &[
            ("ATTEST_DB", db_path.to_str().unwrap()),
            ("RESEARCH_ROOT", root.path().to_str().unwrap()),
            ("ATTEST_ZOTERO", "off"),
        ],
    );
    let s = Session::spawn(cmd).await;
    assert!(!s.names().await.contains(&"cite.check".to_string()));
    s.ok("runs.tools", json!({})).await;
    let listed = s.names().await;
    assert!(listed.contains(&"cite.check".to_string()), "{listed:?}");
    assert!(!listed.iter().any(|n| n.starts_with("cite.") && n != "cite.check"), "{listed:?}");
    let out = s.ok("cite.check", json!({"path": "draft.md"})).await;
    assert_eq!(out["data"]["n_uncited"], 1, "{out:#}");
    assert_eq!(out["data"]["uncited"][0]["key"], "nobody1999");
    assert_eq!(out["refs"][0]["id"], "draft.md:2");
    insta::assert_json_snapshot!("cite_check", redacted(&out, &[(root.path(), "[root]"), (db.path(), "[db]")]));
    s.refused("cite.check", json!({"path": "/etc"})).await;
    // The claims check lints the same keys against the same sources: `uncited` is a
    // verdict of its own, beside each claim's numeric one.
    let claims = s.call("runs.claims_check", json!({"path": "draft.md", "verdict": "uncited"})).await.0;
    assert_eq!(claims["data"]["counts"]["uncited"], 1, "{claims:#}");
    assert_eq!(claims["data"]["rows"][0]["cite"], "nobody1999", "{claims:#}");
    insta::assert_json_snapshot!(
        "claims_check_uncited",
        redacted(&claims, &[(root.path(), "[root]"), (db.path(), "[db]")])
    );
    s.close().await;
}

/// The whole answer as a reviewer should see it: the structured content with each
/// given directory replaced by its placeholder and timestamps by `[time]`.
fn redacted(v: &Value, dirs: &[(&Path, &str)]) -> Value {
    let dirs: Vec<(String, &str)> = dirs.iter().map(|(d, n)| (d.display().to_string(), *n)).collect();
    let pairs: Vec<(&str, &str)> = dirs.iter().map(|(d, n)| (d.as_str(), *n)).collect();
    attest_testkit::redact_json(v, &pairs)
}
