//! Whole answers of the provenance tools on the example workspace, as an agent sees them:
//! one insta snapshot per call (every word of `answer` and `caveat`, every ref and the
//! whole `data`), so a reviewer sees exactly what changed. Paths under the workspace
//! become `[root]` and times `[time]`; nothing else is hidden.

use std::path::{Path, PathBuf};

use attest_core::{Catalogue, Config, ToolNames};
use serde_json::{Value, json};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace").canonicalize().unwrap()
}

async fn catalogue(db: &Path) -> Catalogue {
    let config = Config {
        db: db.join("attest.db"),
        root: Some(workspace()),
        tool_names: ToolNames::Dotted,
        expand: false,
        http_token: None,
        metric_directions: None,
    };
    attest_runs::tools::catalogue(&config, None).await.unwrap()
}

/// The answer as JSON, with the machine-specific parts replaced.
async fn call(c: &Catalogue, tool: &str, args: Value) -> Value {
    let answer = c.call(tool, args.as_object().cloned().unwrap_or_default()).await.expect("no internal fault");
    let text = serde_json::to_string(&answer).unwrap().replace(&workspace().display().to_string(), "[root]");
    let time = regex::Regex::new(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z?").unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

#[tokio::test]
async fn provenance_answers_on_the_example_workspace() {
    let db = tempfile::tempdir().unwrap();
    let c = catalogue(db.path()).await;
    let calls = [
        ("runs.scan", json!({})),
        ("runs.scan", json!({"confirm": true})),
        ("runs.list", json!({"limit": 3})),
        ("runs.list", json!({"limit": 99})),
        ("runs.list", json!({"family": "nope"})),
        ("runs.compare", json!({"family": "kdalpha"})),
        ("runs.compare", json!({})),
        ("runs.compare", json!({"family": "kdalpha", "metric": "judge_score"})),
        ("runs.detail", json!({"name": "kdalpha_75"})),
        ("runs.detail", json!({})),
        ("runs.detail", json!({"name": "kdalpha_99"})),
        ("runs.claims_check", json!({"path": "paper/draft.md"})),
        ("runs.claims_check", json!({"path": "/etc"})),
        ("runs.claims_coverage", json!({"path": "paper/draft.md"})),
        ("runs.record", json!({"family": "kdalpha"})),
        ("runs.ask", json!({"question": "which arm of the kdalpha sweep won?"})),
        ("runs.ask", json!({"question": "are the numbers in paper/draft.md right?"})),
        ("runs.ask", json!({"question": "what should I read today?"})),
        ("runs.ask", json!({"question": "hmm"})),
        ("runs.ask", json!({"question": "x", "tool": "runs.list", "args": {"limit": 2}})),
        ("runs.ask", json!({"question": "x", "tool": "feed.list"})),
    ];
    let mut all = Vec::new();
    for (tool, args) in calls {
        all.push(json!({ "call": tool, "args": args, "answer": call(&c, tool, args.clone()).await }));
    }
    insta::assert_json_snapshot!("provenance_answers", all);
}
