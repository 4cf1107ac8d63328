//! Tagging and `attest kg-report` as a user runs them: ingest a local feed (which tags
//! new items with keyphrases), draw the graph, catch up with `attest tag`, and the
//! optional chat tagger against a loopback stand-in for an OpenAI-compatible server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use attest_testkit::http::{self, Reply};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn attest(args: &[&str], db: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
    c.args(args).env("ATTEST_DB", db);
    for k in ["RESEARCH_ROOT", "LLM_BASE_URL", "LLM_MODEL", "LLM_API_KEY", "EMBED_BASE_URL"] {
        c.env_remove(k);
    }
    c.envs(env.iter().copied());
    c.output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// The whole output as a user sees it, with the machine-specific parts replaced: the
/// temporary directory becomes `[root]`, the repository `[repo]`, each given URL (its
/// port differs per run) `[url]`, and durations `[duration]`, and OS error numbers `[n]`.
fn shown(o: &Output, dir: &Path, urls: &[&str]) -> String {
    let mut s = text(o).replace(&dir.display().to_string(), "[root]").replace(&repo().display().to_string(), "[repo]");
    for url in urls {
        s = s.replace(url, "[url]");
    }
    redact_durations(&redact_os_error(&s))
}

/// `(os error 111)` → `(os error [n])`: the number differs between systems.
fn redact_os_error(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("(os error ") {
        let end = at + "(os error ".len();
        out.push_str(&rest[..end]);
        rest = rest[end..].trim_start_matches(|c: char| c.is_ascii_digit());
        out.push_str("[n]");
    }
    out.push_str(rest);
    out
}

/// Replaces each number followed by a time unit (`0.42s`, `12ms`, `3 s`) with
/// `[duration]`.
fn redact_durations(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find(|c: char| c.is_ascii_digit()) {
        let before = &rest[..start];
        let boundary = before.chars().last().is_none_or(|c| !c.is_alphanumeric() && c != '.' && c != '_');
        let digits = rest[start..].find(|c: char| !c.is_ascii_digit() && c != '.').map_or(rest.len(), |n| start + n);
        let after = &rest[digits..];
        let unit = ["ms", "µs", "s"].into_iter().find(|u| {
            let a = after.strip_prefix(' ').unwrap_or(after);
            a.starts_with(u) && !a[u.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
        out.push_str(before);
        match unit {
            Some(u) if boundary => {
                let skip = if after.starts_with(' ') { 1 } else { 0 } + u.len();
                out.push_str("[duration]");
                rest = &after[skip..];
            }
            _ => {
                out.push_str(&rest[start..digits]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A database holding the planted archive, ingested through `attest ingest` from a
/// feeds file naming the local fixture.
fn ingested(dir: &Path) -> PathBuf {
    let db = dir.join("attest.db");
    let feed = repo().join("tests/fixtures/kg/planted.atom");
    let feeds = dir.join("feeds.toml");
    std::fs::write(&feeds, format!("[[feeds]]\nurl = {:?}\ntitle = \"planted\"\n", feed.display().to_string()))
        .unwrap();
    let o = attest(&["ingest", "--feeds", feeds.to_str().unwrap()], &db, &[]);
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("ingest_planted", shown(&o, dir, &[]));
    db
}

fn tags_by_origin(db: &Path, origin: &str) -> Vec<(i64, String)> {
    let db = db.to_path_buf();
    let origin = origin.to_string();
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async move {
        let store = attest_store::Store::open(&db).await.unwrap();
        let rows: Vec<(i64, String)> =
            sqlx::query_as("SELECT item_id, tag FROM item_tags WHERE origin = $1 ORDER BY item_id, tag")
                .bind(origin)
                .fetch_all(store.pool())
                .await
                .unwrap();
        store.close().await;
        rows
    })
}

#[test]
fn ingest_tags_new_items_and_kg_report_draws_the_graph() {
    let dir = tempfile::tempdir().unwrap();
    let db = ingested(dir.path());
    let keyphrases = tags_by_origin(&db, "keyphrase");
    let tagged: std::collections::BTreeSet<i64> = keyphrases.iter().map(|(i, _)| *i).collect();
    assert_eq!(tagged.len(), 9, "every ingested item got keyphrases: {keyphrases:?}");
    assert!(!tags_by_origin(&db, "feed").is_empty(), "the feed's own categories are kept");

    let svg = dir.path().join("graph.svg");
    let o = attest(&["kg-report", "--svg", svg.to_str().unwrap()], &db, &[]);
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("kg_report", shown(&o, dir.path(), &[]));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.starts_with("<svg") || picture.starts_with("<?xml"), "{}", &picture[..80.min(picture.len())]);
    assert!(picture.contains("tool-use"), "the bridge is labelled or titled");

    // Ingest already tagged everything, so `attest tag` has nothing left to do.
    let o = attest(&["tag"], &db, &[]);
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("tag_nothing_to_do", shown(&o, dir.path(), &[]));
}

#[test]
fn kg_report_on_an_empty_archive_exits_1_and_draws_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.db");
    let svg = dir.path().join("none.svg");
    // A database that does not exist is refused as a likely typo (exit 2)...
    let o = attest(&["kg-report", "--svg", svg.to_str().unwrap()], &db, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!db.exists(), "a typo creates no database");
    // ...and a new, empty one has nothing to draw (exit 1).
    let o = attest(&["kg-report", "--create", "--svg", svg.to_str().unwrap()], &db, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(!svg.exists(), "no picture of nothing");
}

#[test]
fn the_chat_tagger_is_off_unless_configured() {
    let dir = tempfile::tempdir().unwrap();
    let db = ingested(dir.path());
    let o = attest(&["tag", "--chat"], &db, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    insta::assert_snapshot!("chat_without_base_url", shown(&o, dir.path(), &[]));
    let o = attest(&["tag", "--chat"], &db, &[("LLM_BASE_URL", "http://127.0.0.1:9/v1")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    insta::assert_snapshot!("chat_without_model", shown(&o, dir.path(), &[]));
    assert!(tags_by_origin(&db, "chat").is_empty());
}

#[test]
fn an_unreachable_chat_model_stops_the_run_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = ingested(dir.path());
    let base = http::closed_port_url();
    let url = format!("{base}/v1");
    let before = tags_by_origin(&db, "keyphrase");
    let o = attest(&["tag", "--chat"], &db, &[("LLM_BASE_URL", &url), ("LLM_MODEL", "m")]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    insta::assert_snapshot!("chat_model_unreachable", shown(&o, dir.path(), &[&url, &base]));
    assert_eq!(tags_by_origin(&db, "keyphrase"), before);
    assert!(tags_by_origin(&db, "chat").is_empty());
}

/// A stand-in for an OpenAI-compatible `/chat/completions` endpoint: answers each
/// request with the next canned assistant text, in a cycle.
fn chat_server(replies: Vec<String>) -> (String, http::Server) {
    let next = Mutex::new(replies.into_iter().cycle());
    let server = http::serve(move |_| {
        let content = next.lock().unwrap().next().unwrap();
        Reply::json(&serde_json::json!({"choices": [{"message": {"role": "assistant", "content": content}}]}))
    });
    (format!("{}/v1", server.url), server)
}

#[test]
fn chat_tags_replace_keyphrases_and_bad_replies_keep_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = ingested(dir.path());
    // Every third reply is unusable twice in a row, so one item in three keeps its
    // keyphrases; the others get the model's (checked, canonicalised) tags.
    let replies = vec![
        "{\"tags\": [\"Speculative Decoding\", \"LLM\", \"preprint\"]}".to_string(),
        "```json\n{\"tags\": [\"agent-benchmarks\"]}\n```".to_string(),
        "I would tag this as retrieval.".to_string(),
        "not json either".to_string(),
    ];
    let (url, server) = chat_server(replies);
    let o = attest(&["tag", "--chat", "--limit", "3"], &db, &[("LLM_BASE_URL", &url), ("LLM_MODEL", "stand-in")]);
    assert!(o.status.success(), "{}", text(&o));
    insta::assert_snapshot!("chat_tags_two_of_three", shown(&o, dir.path(), &[&url]));
    let chat = tags_by_origin(&db, "chat");
    let tags: std::collections::BTreeSet<&str> = chat.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        tags,
        ["agent-benchmarks", "large-language-models", "speculative-decoding"].into_iter().collect(),
        "{chat:?}"
    );
    let chat_items: std::collections::BTreeSet<i64> = chat.iter().map(|(i, _)| *i).collect();
    let keyphrase_items: std::collections::BTreeSet<i64> =
        tags_by_origin(&db, "keyphrase").iter().map(|(i, _)| *i).collect();
    assert!(chat_items.is_disjoint(&keyphrase_items), "chat tags replace keyphrases");
    assert_eq!(keyphrase_items.len(), 7, "the other seven items keep theirs");
    let request = server.requests()[0].json();
    assert_eq!(server.requests()[0].target, "/v1/chat/completions");
    assert_eq!(request["model"], "stand-in");
    assert!(request["messages"][1]["content"].as_str().unwrap().starts_with("Existing vocabulary: "), "{request:#}");
    // Items with chat tags are not asked again.
    let o = attest(&["tag", "--chat", "--limit", "2"], &db, &[("LLM_BASE_URL", &url), ("LLM_MODEL", "stand-in")]);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(server.requests().len(), 4 + 2, "one request per item this time");
}
