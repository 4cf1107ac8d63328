//! Set-up shared by the tests that drive the provenance tools in-process.

use std::path::Path;

use attest_core::{Catalogue, Config, ToolNames};

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
