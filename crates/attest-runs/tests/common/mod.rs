//! Set-up shared by the tests that drive the provenance tools in-process.
// Each test file uses the part it needs.
#![allow(dead_code)]

use std::path::Path;

use attest_core::{Catalogue, Config, ToolNames};
use attest_store::Store;

/// The provenance catalogue over the database file `db` and the research root
/// `root`, with dotted tool names and no citation resolver.
pub async fn catalogue(db: &Path, root: &Path) -> Catalogue {
    let config = Config {
        db: db.to_path_buf(),
        root: Some(root.to_path_buf()),
        tool_names: ToolNames::Dotted,
        expand: false,
        http_token: None,
        metric_directions: None,
    };
    attest_runs::tools::catalogue(&config, None).await.unwrap()
}

/// A recorded run written straight into the ledger (no scan): its row's id.
pub async fn insert_run(store: &Store, project: &str, run: &str, source: &str, hash: Option<String>) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO runs (project, name, status, source_path, source_hash, scanned_at) VALUES ($1, $2, 'recorded', $3, $4, 'now') RETURNING id",
    )
    .bind(project)
    .bind(run)
    .bind(source)
    .bind(hash)
    .fetch_one(store.pool())
    .await
    .unwrap()
}
