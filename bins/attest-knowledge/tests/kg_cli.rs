//! `attest kg-report` and `attest tag` (the CLI module `bins/attest/src/kg.rs`, compiled
//! here against the same fixture archive as the MCP tests).

#[path = "../../attest/src/kg.rs"]
#[allow(dead_code)]
mod kg;

use std::path::Path;
use std::process::ExitCode;

use attest_core::{Config, ToolNames};
use attest_feed::FeedStore;

const FIXTURE: &str = include_str!("fixtures/planted.atom");

fn config(db: &Path) -> Config {
    Config {
        db: db.to_path_buf(),
        root: None,
        tool_names: ToolNames::Dotted,
        expand: false,
        http_token: None,
        metric_directions: None,
    }
}

async fn planted(db: &Path) {
    let store = attest_store::Store::open(db).await.unwrap();
    let feed = FeedStore::new(store.clone());
    let parsed = attest_feed::ingest::parse_feed(FIXTURE.as_bytes(), time::OffsetDateTime::now_utc()).unwrap();
    feed.add_items(None, &parsed.items, &attest_feed::model::now_stamp()).await.unwrap();
    store.close().await;
}

#[tokio::test]
async fn kg_report_writes_a_picture_and_tag_fills_untagged_items() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    planted(&db).await;
    let svg = dir.path().join("graph.svg");
    let code = kg::run(kg::KgCommand::KgReport { min_size: 3, svg: Some(svg.clone()) }, &config(&db)).await.unwrap();
    assert_eq!(code, ExitCode::SUCCESS);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") || picture.starts_with("<?xml"), "{}", &picture[..80.min(picture.len())]);
    assert!(picture.contains("tool-use"), "the bridge is labelled or titled");
    assert_eq!(kg::run(kg::KgCommand::Tag { max: 5 }, &config(&db)).await.unwrap(), ExitCode::SUCCESS);
    let store = attest_store::Store::open(&db).await.unwrap();
    let loaded = attest_kg::tools::load(&FeedStore::new(store.clone()), attest_kg::Params::default()).await.unwrap();
    assert_eq!(loaded.untagged, 0);
    store.close().await;
}

#[tokio::test]
async fn kg_report_on_an_empty_archive_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.db");
    attest_store::Store::open(&db).await.unwrap().close().await;
    let svg = dir.path().join("none.svg");
    let code = kg::run(kg::KgCommand::KgReport { min_size: 3, svg: Some(svg.clone()) }, &config(&db)).await.unwrap();
    assert_eq!(code, ExitCode::FAILURE);
    assert!(!svg.exists(), "no picture of nothing");
}
