//! The feed surface through a real MCP client: the rmcp client spawns the real
//! `attest-feed` binary over stdio, on a database the committed corpus was ingested
//! into (served by a loopback server, as `attest ingest` would fetch it).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use attest_feed::FeedStore;
use attest_feed::fetch::Fetcher;
use attest_feed::ingest;
use attest_testkit::http::{self, Reply};
use attest_testkit::{Session, validate};
use serde_json::{Value, json};
use tokio::process::Command;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/feeds")
}

// ---- a loopback feed server --------------------------------------------------------------

/// Serves the corpus on 127.0.0.1, plus `huge.xml` (20 MB), `slow.xml` (never finishes)
/// and `page.html` (not a feed).
fn serve_corpus() -> String {
    let server = http::serve(|req| {
        let path = req.target.trim_start_matches('/').to_string();
        match path.as_str() {
            "huge.xml" => Reply::Raw(Box::new(|out| {
                let total = 20 * 1024 * 1024;
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n");
                let _ = out.write_all(head.as_bytes());
                let chunk = vec![b' '; 64 * 1024];
                for _ in 0..total / chunk.len() {
                    if out.write_all(&chunk).is_err() {
                        return;
                    }
                }
            })),
            "huge-chunked.xml" => Reply::Raw(Box::new(|out| {
                let _ = out.write_all(
                    b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n<rss version=\"2.0\"><channel><title>big</title>",
                );
                let chunk = format!("<item><title>x</title><description>{}</description></item>", "y".repeat(4000));
                for _ in 0..(20 * 1024 * 1024 / chunk.len()) {
                    if out.write_all(chunk.as_bytes()).is_err() {
                        return;
                    }
                }
            })),
            "slow.xml" => Reply::Raw(Box::new(|out| {
                let _ = out.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n<rss version=\"2.0\">",
                );
                for _ in 0..300 {
                    std::thread::sleep(Duration::from_millis(100));
                    if out.write_all(b" ").and_then(|_| out.flush()).is_err() {
                        return;
                    }
                }
            })),
            "page.html" => Reply::ok("text/html", std::fs::read(corpus_dir().join("not-a-feed.html")).unwrap()),
            p => match std::fs::read(corpus_dir().join(p)).ok().filter(|_| !p.contains("..") && !p.is_empty()) {
                Some(b) => Reply::ok("application/xml", b),
                None => Reply::status("404 Not Found"),
            },
        }
    });
    format!("{}/", server.url)
}

/// A temporary database holding the committed corpus, ingested over loopback.
async fn corpus_db(base: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = attest_store::Store::open(&dir.path().join("attest.db")).await.unwrap();
    let feeds = FeedStore::new(store);
    let text = std::fs::read_to_string(corpus_dir().join("feeds.toml")).unwrap().replace("http://feeds.example/", base);
    let seeds = ingest::parse_feeds_toml(&text).unwrap();
    assert!(ingest::seed(&feeds, &seeds).await.unwrap().seeded);
    let report = ingest::ingest_all(&feeds, &Fetcher::default()).await.unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert!(report.added > 70, "{report:?}");
    dir
}

// ---- the server under test ---------------------------------------------------------------

struct Server {
    s: Session,
    base: String,
    _db: tempfile::TempDir,
}

impl std::ops::Deref for Server {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.s
    }
}

async fn start(env: &[(&str, &str)]) -> Server {
    let base = serve_corpus();
    let db = corpus_db(&base).await;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-feed"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ATTEST_DB", db.path().join("attest.db"))
        .env("ATTEST_FEED_TIMEOUT", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    Server { s: Session::spawn(cmd).await, base, _db: db }
}

impl Server {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

const ALL_FEED_TOOLS: &[&str] = &[
    "feed.ask",
    "feed.digest",
    "feed.explain",
    "feed.harvest_engagement",
    "feed.list",
    "feed.persona_create",
    "feed.persona_delete",
    "feed.persona_merge",
    "feed.persona_reset",
    "feed.persona_status",
    "feed.persona_suggest_interests",
    "feed.persona_update",
    "feed.rate",
    "feed.read",
    "feed.research",
    "feed.search",
    "feed.source_add",
    "feed.source_preview",
    "feed.source_remove",
    "feed.source_suggest",
    "feed.sources",
    "feed.tools",
];

#[tokio::test]
async fn starts_with_only_the_two_entry_tools() {
    let s = start(&[]).await;
    assert_eq!(s.names().await, ["feed.ask", "feed.tools"]);
    s.s.close().await;
}

#[tokio::test]
async fn feed_tools_lists_everything_and_notifies() {
    let s = start(&[]).await;
    let (out, text, is_error) = s.call("feed.tools", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], true);
    insta::assert_json_snapshot!("feed_tools", json!({"structured": out, "text": text}));
    for _ in 0..50 {
        if s.list_changed() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(s.list_changed(), 1, "tools/list_changed was not received");
    assert_eq!(s.names().await, ALL_FEED_TOOLS);
    s.s.close().await;
}

#[tokio::test]
async fn expand_never_widens_beyond_the_surface() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let names = s.names().await;
    assert_eq!(names, ALL_FEED_TOOLS);
    assert!(names.iter().all(|n| n.starts_with("feed.")), "{names:?}");
    let (out, _, is_error) = s.call("runs.list", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], false);
    s.s.close().await;
}

#[tokio::test]
async fn every_tool_declares_annotations_and_an_output_schema() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    for t in s.tools().await {
        attest_testkit::standard_formats_only(&t);
        let schema = t.output_schema.as_ref().unwrap_or_else(|| panic!("{} has no outputSchema", t.name));
        assert_eq!(schema.get("type"), Some(&json!("object")), "{}", t.name);
        let a = t.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", t.name));
        assert!(a.read_only_hint.is_some(), "{} lacks readOnlyHint", t.name);
        let props = t.input_schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        if a.destructive_hint == Some(true) {
            assert!(props.contains_key("confirm"), "{} is destructive but takes no confirm", t.name);
        }
        // feed.persona_merge names two readers (`from`, `into`), not one `user`.
        if t.name != "feed.tools" && t.name != "feed.persona_merge" {
            assert!(props.contains_key("user"), "{} takes no user", t.name);
        }
        let first = t.description.as_deref().unwrap_or("").lines().next().unwrap_or("").to_string();
        assert!(first.ends_with('.') || first.ends_with('?'), "{}: {first}", t.name);
    }
    s.s.close().await;
}

#[tokio::test]
async fn asking_reaches_the_right_tool_in_one_call() {
    let s = start(&[]).await;
    // An item question before any item was shown asks which.
    let (out, text, _) = s.call("feed.ask", json!({"question": "why is this ranked so high?", "user": "alice"})).await;
    assert_eq!(out["ok"], false);
    insta::assert_json_snapshot!(
        "ask_which_item",
        redacted(&json!({"structured": out, "text": text}), &[(s.base.as_str(), "[feeds]/")])
    );
    assert!(!out["options"].as_array().unwrap().is_empty(), "{out:#}");
    // "What should I read today?" is feed.list, with the ranking-quality note.
    let (out, text, _) = s.call("feed.ask", json!({"question": "what should I read today?", "user": "alice"})).await;
    assert_eq!(out["ok"], true, "{out:#}");
    assert_eq!(out["tool_used"], "feed.list");
    insta::assert_json_snapshot!(
        "ask_what_to_read",
        redacted(&json!({"structured": out, "text": text}), &[(s.base.as_str(), "[feeds]/")])
    );
    let items = out["data"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert!(out["refs"].as_array().unwrap().iter().all(|r| r["id"].as_str().unwrap().starts_with("item:")));
    let first = items[0]["item_id"].as_i64().unwrap();

    // The reader's name in the question; tool + args dispatch directly.
    let (out, _, _) = s.call("feed.ask", json!({"question": "x", "tool": "feed_persona_create", "args": {"user": "Chem", "interests": "asymmetric catalysis, C-H activation, total synthesis"}})).await;
    assert_eq!(out["ok"], true, "{out:#}");
    assert_eq!(out["tool_used"], "feed.persona_create");
    let (out, _, _) =
        s.call("feed.ask", json!({"question": "anything new on asymmetric hydrogenation?", "user": "chem"})).await;
    assert_eq!(out["tool_used"], "feed.search", "{out:#}");
    assert_eq!(out["ok"], true, "{out:#}");

    // item_id completes rate / explain / read in one call.
    let (out, _, _) =
        s.call("feed.ask", json!({"question": "mark this as useful", "user": "chem", "item_id": first})).await;
    assert_eq!((out["ok"].clone(), out["tool_used"].clone()), (json!(true), json!("feed.rate")), "{out:#}");
    assert_eq!(out["data"]["useful"], true);
    let (out, _, _) = s
        .call(
            "feed.ask",
            json!({"question": "this is off topic for me, not useful", "user": "chem", "item_id": items[1]["item_id"]}),
        )
        .await;
    assert_eq!(out["tool_used"], "feed.rate", "{out:#}");
    assert_eq!(out["data"]["useful"], false, "{out:#}");
    let (out, _, _) =
        s.call("feed.ask", json!({"question": "why is this ranked here?", "user": "chem", "item_id": first})).await;
    assert_eq!(out["tool_used"], "feed.explain", "{out:#}");
    assert_eq!(out["ok"], true, "{out:#}");
    let (out, _, _) = s.call("feed.ask", json!({"question": format!("show me item {first}"), "user": "chem"})).await;
    assert_eq!(out["tool_used"], "feed.read", "{out:#}");
    // A url completes preview.
    let (out, _, _) = s.call("feed.ask", json!({"question": "preview this feed", "url": s.url("arxiv-cs.rss")})).await;
    assert_eq!(out["tool_used"], "feed.source_preview", "{out:#}");
    assert_eq!(out["ok"], true, "{out:#}");
    // An item question with no item is about the item the session was just shown.
    let (out, _, _) = s.call("feed.ask", json!({"question": "why is this ranked so high?", "user": "chem"})).await;
    assert_eq!(out["tool_used"], "feed.explain", "{out:#}");
    assert_eq!(out["ok"], true, "{out:#}");
    assert!(out.to_string().contains(&format!("item:{first}")), "{out:#}");
    // A question for another surface names it.
    let (out, text, _) = s.call("feed.ask", json!({"question": "which arm of my sweep won?", "user": "chem"})).await;
    assert_eq!(out["ok"], false);
    insta::assert_json_snapshot!(
        "ask_elsewhere",
        redacted(&json!({"structured": out, "text": text}), &[(s.base.as_str(), "[feeds]/")])
    );
    // A decline is a question back with options.
    let (out, _, _) = s.call("feed.ask", json!({"question": "hmm", "user": "chem"})).await;
    assert_eq!(out["ok"], false);
    assert!(out["options"].as_array().unwrap().len() >= 2, "{out:#}");
    s.s.close().await;
}

/// Good and bad calls on every tool; each result, success or failure, validates against
/// the tool's own output schema, no routine failure is an MCP error, and the server
/// keeps answering.
#[tokio::test]
async fn every_result_validates_and_bad_input_is_a_refusal() {
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let schemas: HashMap<String, Value> = s
        .tools()
        .await
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
        .collect();
    let (out, _, _) = s.call("feed.list", json!({"user": "bob"})).await;
    let item = out["data"]["items"][0]["item_id"].as_i64().unwrap();
    let calls: Vec<(&str, Value, Option<bool>)> = vec![
        ("feed.persona_create", json!({"user": "Chem", "interests": "catalysis and cross-coupling"}), Some(true)),
        ("feed.persona_create", json!({"user": "chem", "interests": "again"}), Some(false)),
        ("feed.persona_create", json!({"user": "", "interests": "x"}), Some(false)),
        ("feed.persona_create", json!({"user": "y".repeat(100), "interests": "x"}), Some(false)),
        ("feed.persona_create", json!({"user": "z"}), Some(false)),
        ("feed.persona_create", json!({}), Some(false)),
        ("feed.list", json!({"user": "chem"}), Some(true)),
        ("feed.list", json!({"user": "chem", "limit": 16}), Some(true)),
        ("feed.list", json!({"user": "chem", "limit": 100000}), Some(false)),
        ("feed.list", json!({"user": "chem", "limit": 0}), Some(false)),
        ("feed.list", json!({"user": "chem", "limit": -3}), Some(false)),
        ("feed.list", json!({"user": "chem", "days": 999999}), Some(false)),
        ("feed.list", json!({"user": "chem", "limit": "many"}), Some(false)),
        ("feed.list", json!({}), Some(false)),
        ("feed.search", json!({"user": "chem", "query": "hydrogenation"}), Some(true)),
        ("feed.search", json!({"user": "chem", "query": "zzzqqq unfindable"}), Some(false)),
        ("feed.search", json!({"user": "chem"}), Some(false)),
        ("feed.search", json!({"user": "chem", "query": "catalysis", "since": "last tuesday"}), Some(false)),
        ("feed.search", json!({"user": "chem", "query": "\"unbalanced OR (NEAR *"}), None),
        ("feed.search", json!({"user": "chem", "query": "x".repeat(5000)}), Some(false)),
        ("feed.search", json!({"user": "chem", "query": "catalysis", "limit": 17}), Some(false)),
        ("feed.read", json!({"user": "chem", "item_id": item}), Some(true)),
        ("feed.read", json!({"user": "chem", "item_id": 999999}), Some(false)),
        // No id: the item the session was shown last (feed.list above).
        ("feed.read", json!({"user": "chem"}), Some(true)),
        ("feed.rate", json!({"user": "chem", "item_id": item, "useful": true}), Some(true)),
        ("feed.rate", json!({"user": "chme", "item_id": item, "useful": true}), Some(false)),
        ("feed.rate", json!({"user": "chem", "item_id": 999999, "useful": true}), Some(false)),
        ("feed.rate", json!({"user": "chem", "item_id": item, "useful": true, "source": "robot"}), Some(false)),
        // `useful` defaults to true (as a routed "mark it" always did).
        ("feed.rate", json!({"user": "chem", "item_id": item}), Some(true)),
        // No id: the item the session was shown last (feed.list above).
        ("feed.rate", json!({"user": "chem"}), Some(true)),
        ("feed.explain", json!({"user": "chem", "item_id": item}), Some(true)),
        ("feed.explain", json!({"user": "chem", "item_id": -1}), Some(false)),
        ("feed.digest", json!({"user": "chem"}), Some(true)),
        ("feed.digest", json!({"user": "chem", "limit": 99}), Some(false)),
        ("feed.persona_update", json!({"user": "chem", "interests": "flow chemistry", "append": true}), Some(true)),
        ("feed.persona_update", json!({"user": "nobody", "interests": "x"}), Some(false)),
        ("feed.persona_update", json!({"user": "chem", "interests": ""}), Some(false)),
        ("feed.persona_status", json!({"user": "chem"}), Some(true)),
        ("feed.persona_status", json!({"user": "nobody"}), Some(false)),
        ("feed.persona_suggest_interests", json!({"user": "chem"}), Some(true)),
        ("feed.persona_suggest_interests", json!({"limit": 50}), Some(false)),
        ("feed.harvest_engagement", json!({"user": "chem"}), Some(true)),
        ("feed.harvest_engagement", json!({"user": "nobody"}), Some(false)),
        ("feed.persona_reset", json!({"user": "chem"}), Some(false)),
        ("feed.persona_reset", json!({"user": "nobody", "confirm": true}), Some(false)),
        ("feed.persona_reset", json!({"user": "chem", "confirm": true}), Some(true)),
        ("feed.persona_delete", json!({"user": "bob"}), Some(false)),
        ("feed.persona_delete", json!({"user": "bob", "confirm": true}), Some(true)),
        ("feed.persona_delete", json!({"user": "bob", "confirm": true}), Some(false)),
        ("feed.sources", json!({}), Some(true)),
        ("feed.sources", json!({"limit": 1000}), Some(false)),
        ("feed.source_preview", json!({"url": s.url("systems-notes.atom")}), Some(true)),
        ("feed.source_preview", json!({"url": s.url("page.html")}), Some(false)),
        ("feed.source_preview", json!({"url": s.url("malformed.xml")}), Some(false)),
        ("feed.source_preview", json!({"url": s.url("huge.xml")}), Some(false)),
        ("feed.source_preview", json!({"url": s.url("slow.xml")}), Some(false)),
        ("feed.source_preview", json!({"url": "ftp://example.org/feed.xml"}), Some(false)),
        ("feed.source_preview", json!({"url": "/etc/passwd"}), Some(false)),
        ("feed.source_preview", json!({"url": ""}), Some(false)),
        ("feed.source_add", json!({"url": s.url("page.html")}), Some(false)),
        ("feed.source_add", json!({"url": s.url("huge-chunked.xml")}), Some(false)),
        ("feed.source_add", json!({"url": s.url("slow.xml")}), Some(false)),
        ("feed.source_add", json!({"url": s.url("missing.xml")}), Some(false)),
        ("feed.source_add", json!({"url": "file:///etc/hostname"}), Some(false)),
        ("feed.source_add", json!({"url": s.url("bulletin-v2.rss")}), Some(true)),
        ("feed.source_add", json!({"url": s.url("bulletin-v2.rss")}), Some(true)),
        ("feed.source_remove", json!({"url": s.url("bulletin-v2.rss")}), Some(true)),
        ("feed.source_remove", json!({"feed_id": 999}), Some(false)),
        ("feed.source_remove", json!({}), Some(false)),
        ("feed.source_suggest", json!({"user": "chem"}), None),
        ("feed.source_suggest", json!({"limit": 0}), Some(false)),
        ("feed.ask", json!({"question": "what should I read today?", "user": "chem"}), Some(true)),
        ("feed.ask", json!({"question": "what should I read today?"}), None),
        ("feed.ask", json!({"question": "mark it useful", "user": "ghost", "item_id": item}), Some(false)),
        ("feed.ask", json!({"question": "read this", "user": "chem", "url": "https://nowhere.invalid/x"}), Some(false)),
        ("feed.ask", json!({"question": "x", "tool": "feed.list", "args": {"user": "chem", "limit": 3}}), Some(true)),
        ("feed.ask", json!({"question": "x", "tool": "runs.list"}), Some(false)),
        ("feed.ask", json!({"question": "x", "tool": "feed.list", "args": {"limit": 300}}), Some(false)),
        ("feed.ask", json!({}), Some(false)),
        ("feed.tools", json!({}), Some(true)),
    ];
    for (tool, args, expect_ok) in calls {
        let (out, text, is_error) = s.call(tool, args.clone()).await;
        let shown = clip(&args.to_string());
        assert!(!is_error, "{tool} {shown}: routine outcome reported as an MCP error: {text}");
        validate(&schemas[tool], &out, &format!("{tool} {shown}"));
        if let Some(want) = expect_ok {
            assert_eq!(out["ok"], want, "{tool} {shown}: {out:#}");
        }
        if out["ok"] == false {
            let answer = out["answer"].as_str().unwrap();
            assert!(answer.len() > 20, "{tool} {shown}: refusal too terse to act on: {answer}");
        }
        let size = serde_json::to_string(&out).unwrap().chars().count();
        assert!(size <= 7000, "{tool} {shown}: {size} characters, over budget");
    }
    // Still answering after all that.
    let (out, _, _) = s.call("feed.list", json!({"user": "chem", "limit": 16})).await;
    assert_eq!(out["ok"], true);
    assert!(out["data"].is_object(), "the largest list keeps its detail within budget: {out:#}");
    s.s.close().await;
}

/// The whole answer as a reviewer should see it: the structured content with each
/// given text (a loopback address) replaced by its placeholder and timestamps by `[time]`.
fn redacted(v: &Value, texts: &[(&str, &str)]) -> Value {
    attest_testkit::redact_json(v, texts)
}

fn clip(s: &str) -> String {
    if s.len() > 120 { format!("{}…", &s[..120]) } else { s.to_string() }
}

// ---- feed.research against recorded answers ----------------------------------------------

fn research_fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/research").join(name)).unwrap()
}

/// Serves the recorded arXiv, PubMed and CrossRef answers on 127.0.0.1; `/down/`
/// answers HTTP 503.
fn serve_research() -> String {
    http::serve(|req| match req.target.split('?').next().unwrap_or("") {
        "/arxiv" => Reply::ok("application/atom+xml", research_fixture("arxiv-query.atom")),
        "/pubmed/esearch.fcgi" => Reply::ok("application/json", research_fixture("pubmed-esearch.json")),
        "/pubmed/esummary.fcgi" => Reply::ok("application/json", research_fixture("pubmed-esummary.json")),
        "/crossref/works" => Reply::ok("application/json", research_fixture("crossref-works.json")),
        p if p.starts_with("/down/") => Reply::status("503 Service Unavailable"),
        _ => Reply::status("404 Not Found"),
    })
    .url
}

#[tokio::test]
async fn research_is_off_by_default_and_searches_the_recorded_services_when_on() {
    // Off: a refusal saying how to turn it on, offering the archive.
    let s = start(&[("ATTEST_EXPAND", "1")]).await;
    let (out, text, is_error) = s.call("feed.research", json!({"query": "long context serving"})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], false, "{out:#}");
    insta::assert_json_snapshot!(
        "research_off",
        redacted(&json!({"structured": out, "text": text}), &[(s.base.as_str(), "[feeds]/")])
    );
    assert_eq!(out["options"], json!(["feed.search", "feed.source_suggest"]));
    s.s.close().await;

    // On, against loopback: three services, one of them down.
    let web = serve_research();
    let (arxiv, pubmed, crossref) = (format!("{web}/arxiv"), format!("{web}/pubmed"), format!("{web}/down/crossref"));
    let s = start(&[
        ("ATTEST_EXPAND", "1"),
        ("ATTEST_RESEARCH_WEB", "1"),
        ("ATTEST_RESEARCH_TIMEOUT", "2"),
        ("ATTEST_ARXIV_URL", &arxiv),
        ("ATTEST_PUBMED_URL", &pubmed),
        ("ATTEST_CROSSREF_URL", &crossref),
    ])
    .await;
    let schema = s
        .tools()
        .await
        .into_iter()
        .find(|t| t.name == "feed.research")
        .map(|t| Value::Object((*t.output_schema.unwrap()).clone()))
        .unwrap();
    let (out, text, is_error) = s
        .call(
            "feed.research",
            json!({"query": "long context serving", "sources": "arxiv,pubmed,crossref", "limit": 16}),
        )
        .await;
    assert!(!is_error);
    assert_eq!(out["ok"], true, "{out:#}");
    validate(&schema, &out, "feed.research");
    let papers = out["data"]["papers"].as_array().unwrap();
    assert_eq!(papers.len(), 9, "5 from arXiv and 4 from PubMed: {out:#}");
    // The committed corpus holds the PagedKV preprint: the row points at its item.
    assert!(papers[0]["in_archive"].as_i64().is_some(), "{out:#}");
    assert!(serde_json::to_string(&out).unwrap().len() <= 7_000);
    insta::assert_json_snapshot!(
        "research_on",
        redacted(&json!({"structured": out, "text": text}), &[(web.as_str(), "[web]"), (s.base.as_str(), "[feeds]/")])
    );

    // feed.ask routes a literature question there.
    let (out, _, _) = s.call("feed.ask", json!({"question": "look up long context serving on pubmed"})).await;
    assert_eq!(out["tool_used"], "feed.research", "{out:#}");
    assert_eq!(out["ok"], true, "{out:#}");
    assert_eq!(out["data"]["papers"][0]["source"], "pubmed", "{out:#}");
    s.s.close().await;
}
