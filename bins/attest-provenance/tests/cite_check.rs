//! `cite.check` on the provenance surface: listed after `runs.tools`, and it flags a
//! `cite=` key no source has, with file:line.

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tokio::process::Command;

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
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-provenance"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ATTEST_DB", db.path().join("attest.db"))
        .env("RESEARCH_ROOT", root.path())
        .env("ATTEST_ZOTERO", "off");
    let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().unwrap();
    let client = ().serve(transport).await.expect("handshake");
    let call = |name: &str, args: Value| {
        CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().unwrap().clone())
    };
    let names = |tools: Vec<rmcp::model::Tool>| tools.into_iter().map(|t| t.name.to_string()).collect::<Vec<_>>();
    assert!(!names(client.list_all_tools().await.unwrap()).contains(&"cite.check".to_string()));
    client.call_tool(call("runs.tools", json!({}))).await.unwrap();
    let listed = names(client.list_all_tools().await.unwrap());
    assert!(listed.contains(&"cite.check".to_string()), "{listed:?}");
    assert!(!listed.iter().any(|n| n.starts_with("cite.") && n != "cite.check"), "{listed:?}");
    let r = client.call_tool(call("cite.check", json!({"path": "draft.md"}))).await.unwrap();
    assert_ne!(r.is_error, Some(true));
    let out = r.structured_content.unwrap();
    assert_eq!(out["ok"], true, "{out:#}");
    assert_eq!(out["data"]["n_uncited"], 1, "{out:#}");
    assert_eq!(out["data"]["uncited"][0]["key"], "nobody1999");
    assert_eq!(out["refs"][0]["id"], "draft.md:2");
    let r = client.call_tool(call("cite.check", json!({"path": "/etc"}))).await.unwrap();
    assert_eq!(r.structured_content.unwrap()["ok"], false);
    client.cancel().await.unwrap();
}
