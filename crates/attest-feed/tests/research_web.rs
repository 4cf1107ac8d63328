//! `feed.research`: the three services' recorded answers (`tests/fixtures/research/`)
//! parse into rows; served by a loopback server, a service that errors or never answers
//! is reported while the others still answer; off by default. Answers are checked by
//! snapshots of the whole `Answer` (the loopback address becomes `[server]`, times of
//! this run `[time]`), error messages by snapshots of the whole message.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use attest_core::{Answer, Fault};
use attest_feed::FeedStore;
use attest_feed::model::NewItem;
use attest_feed::research::{self, ResearchConfig, Service};
use attest_feed::tools::{Context, tools};
use attest_testkit::http::{self, Reply};
use serde_json::{Map, Value, json};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/research").join(name)).unwrap()
}

fn json_fixture(name: &str) -> Value {
    serde_json::from_slice(&fixture(name)).unwrap()
}

// ---- pure parsing ---------------------------------------------------------------------

#[test]
fn arxiv_atom_parses() {
    let f = research::parse_arxiv(&fixture("arxiv-query.atom")).unwrap();
    assert_eq!(f.total, Some(1287));
    assert_eq!(f.papers.len(), 5);
    let p = &f.papers[0];
    assert_eq!(p.source, Service::Arxiv);
    assert_eq!(p.title, "PagedKV: fragmentation-free key-value cache management for long-context serving");
    assert_eq!(p.authors, ["Lena Brandt", "Tomás Iglesias", "Wei Zhang"]);
    assert_eq!(p.n_authors, 4);
    assert_eq!(p.year, Some(2026));
    assert_eq!(p.venue.as_deref(), Some("arXiv cs.DC"));
    assert_eq!(p.arxiv_id.as_deref(), Some("2610.20202"));
    assert_eq!(p.url.as_deref(), Some("https://arxiv.org/abs/2610.20202"));
    assert_eq!(p.doi, None);
    assert_eq!(f.papers[2].doi.as_deref(), Some("10.1145/3712285.3759811"));
    assert_eq!(f.papers[3].title, "Prefix caching across tenants & the cost of isolation");
    assert_eq!(f.papers[4].year, Some(2025));
}

#[test]
fn arxiv_error_entries_and_non_feeds_are_errors() {
    let e = research::parse_arxiv(&fixture("arxiv-error.atom")).unwrap_err();
    insta::assert_snapshot!("arxiv_error_entry", e);
    insta::assert_snapshot!("arxiv_not_a_feed", research::parse_arxiv(b"<html>busy</html>").unwrap_err());
}

#[test]
fn pubmed_search_and_summary_parse() {
    let (ids, count) = research::parse_pubmed_search(&json_fixture("pubmed-esearch.json")).unwrap();
    assert_eq!(ids, ["41022871", "40877310", "40512094", "39988102"]);
    assert_eq!(count, Some(214));
    let papers = research::parse_pubmed_summary(&json_fixture("pubmed-esummary.json"), &ids).unwrap();
    assert_eq!(papers.len(), 4);
    let p = &papers[0];
    assert_eq!(
        p.title,
        "Long-context language models for summarising electronic health records: a multicentre evaluation"
    );
    assert_eq!(p.authors, ["Okonkwo C", "Hartmann L", "Nguyen T"]);
    assert_eq!(p.n_authors, 4, "the collective name is not an author");
    assert_eq!(p.year, Some(2026));
    assert_eq!(p.venue.as_deref(), Some("NPJ digital medicine"));
    assert_eq!(p.doi.as_deref(), Some("10.1038/s41746-026-01412-7"));
    assert_eq!(p.pmid.as_deref(), Some("41022871"));
    assert_eq!(p.url.as_deref(), Some("https://pubmed.ncbi.nlm.nih.gov/41022871/"));
    assert_eq!(papers[3].doi, None);
    assert_eq!(papers[3].year, Some(2025));
    let err = research::parse_pubmed_search(&json!({"error": "API rate limit exceeded"})).unwrap_err();
    insta::assert_snapshot!("pubmed_error", err);
}

#[test]
fn crossref_works_parse() {
    let f = research::parse_crossref(&json_fixture("crossref-works.json")).unwrap();
    assert_eq!(f.total, Some(48211));
    assert_eq!(f.papers.len(), 5);
    assert_eq!(f.papers[0].doi.as_deref(), Some("10.1145/3712285.3759811"));
    assert_eq!(f.papers[0].venue.as_deref().map(|v| v.starts_with("Proceedings of the 2026 ACM")), Some(true));
    assert_eq!(f.papers[1].arxiv_id.as_deref(), Some("2609.11873"));
    assert_eq!(f.papers[1].venue, None);
    assert_eq!(f.papers[2].title, "Elastic KV Cache Offloading for Long-Context LLM Serving");
    assert_eq!(f.papers[2].n_authors, 5);
    assert_eq!(f.papers[2].authors.len(), 3);
    assert_eq!(f.papers[3].n_authors, 0);
    assert_eq!(f.papers[4].authors, ["OpenServe Team"]);
    let err = research::parse_crossref(&json!({"status": "failed", "message": [{"message": "bad rows"}]})).unwrap_err();
    insta::assert_snapshot!("crossref_error", err);
}

// ---- over loopback --------------------------------------------------------------------

/// Serves the recorded answers by path prefix; `/slow/` never answers, `/broken/`
/// answers HTTP 500, `/garbled/` answers text that is not JSON.
fn serve() -> String {
    http::serve(|req| {
        let route = req.target.split('?').next().unwrap_or("");
        match route {
            p if p.starts_with("/slow/") => Reply::Raw(Box::new(|_| std::thread::sleep(Duration::from_secs(30)))),
            p if p.starts_with("/broken/") => {
                Reply::Full("500 Internal Server Error", "text/plain", b"upstream exploded".to_vec())
            }
            p if p.starts_with("/garbled/") => Reply::ok("text/html", "<html>maintenance</html>"),
            "/arxiv/api/query" => Reply::ok("application/atom+xml", fixture("arxiv-query.atom")),
            "/arxiv-error/api/query" => Reply::ok("application/atom+xml", fixture("arxiv-error.atom")),
            "/pubmed/esearch.fcgi" => Reply::ok("application/json", fixture("pubmed-esearch.json")),
            "/pubmed/esummary.fcgi" => Reply::ok("application/json", fixture("pubmed-esummary.json")),
            "/crossref/works" => Reply::ok("application/json", fixture("crossref-works.json")),
            _ => Reply::status("404 Not Found"),
        }
    })
    .url
}

fn config(base: &str, arxiv: &str, pubmed: &str, crossref: &str) -> ResearchConfig {
    ResearchConfig {
        enabled: true,
        arxiv: format!("{base}{arxiv}"),
        pubmed: format!("{base}{pubmed}"),
        crossref: format!("{base}{crossref}"),
        timeout: Duration::from_secs(2),
    }
}

async fn ctx(research: ResearchConfig) -> Arc<Context> {
    let s = FeedStore::in_memory().await.unwrap();
    // The archive already holds one of the arXiv papers.
    let feed = s.subscribe("https://example.org/feed.xml", Some("Example")).await.unwrap().feed;
    let held = NewItem::build(
        "oai:arXiv.org:2610.20202",
        "PagedKV",
        Some("https://arxiv.org/abs/2610.20202".into()),
        "Paging the KV cache.",
        Some("2026-10-14T00:00:00Z".into()),
        Vec::<String>::new(),
    );
    s.add_items(Some(feed.id), &[held], "2026-10-15T00:00:00Z").await.unwrap();
    Arc::new(Context::with_fetcher(s, Default::default()).with_research(research))
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// The whole answer as JSON, with this run's loopback address and times replaced.
fn whole(a: &Answer<Value>) -> Value {
    let text = serde_json::to_string(a).unwrap();
    let text = regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap().replace_all(&text, "[server]");
    let today = attest_feed::model::now_stamp();
    let time = regex::Regex::new(&format!(r"{}T\d\d:\d\d:\d\d(\.\d+)?Z", regex::escape(&today[..10]))).unwrap();
    serde_json::from_str(&time.replace_all(&text, "[time]")).unwrap()
}

/// A feed tool called through the catalogue, as an agent calls it.
async fn run_tool(ctx: &Arc<Context>, name: &str, args: Map<String, Value>) -> Result<Answer<Value>, Fault> {
    tools(Arc::clone(ctx)).call(name, args).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_by_default_with_how_to_enable() {
    let c = Arc::new(Context::with_fetcher(FeedStore::in_memory().await.unwrap(), Default::default()));
    let a = run_tool(&c, "feed.research", args(json!({"query": "long context serving"}))).await.unwrap();
    assert!(!a.ok);
    insta::assert_json_snapshot!("off_by_default", whole(&a));
    assert_eq!(a.options, ["feed.search", "feed.source_suggest"]);
    assert!(a.data.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_source_answers_interleaved_and_marked_when_archived() {
    let base = serve();
    let c = ctx(config(&base, "/arxiv/api/query", "/pubmed", "/crossref")).await;
    let a = run_tool(
        &c,
        "feed.research",
        args(json!({"query": "long context serving", "sources": "arxiv,pubmed,crossref", "limit": 16})),
    )
    .await
    .unwrap();
    assert!(a.ok, "{}", a.answer);
    let d = a.data.as_ref().unwrap();
    let papers = d["papers"].as_array().unwrap();
    // 5 + 4 + 5, less the two CrossRef papers arXiv already gave (same DOI / arXiv id).
    assert_eq!(papers.len(), 12, "{d:#}");
    let sources: Vec<&str> = papers.iter().take(3).map(|p| p["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["arxiv", "pubmed", "crossref"]);
    assert_eq!(papers[0]["in_archive"], 1);
    assert!(papers.iter().all(|p| p.get("url").is_none()), "urls travel in refs");
    assert_eq!(a.refs.len(), 12);
    assert_eq!(a.refs[0].id, "arxiv:2610.20202");
    assert_eq!(d["sources"][0]["found"], 1287);
    insta::assert_json_snapshot!("every_source_answers", whole(&a));
    assert!(serde_json::to_string(&a).unwrap().len() <= 7_000);

    // The limit cuts the interleaved list and says how many more came back.
    let a = run_tool(&c, "feed.research", args(json!({"query": "long context serving", "limit": 3}))).await.unwrap();
    assert!(a.ok);
    assert_eq!(a.data.as_ref().unwrap()["papers"].as_array().unwrap().len(), 3);
    // Each service is asked for `limit` papers: 3 + 3 came back.
    assert_eq!(a.data.as_ref().unwrap()["more"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_or_silent_source_is_reported_while_the_others_answer() {
    let base = serve();
    let mut answers = Vec::new();
    for (arxiv, pubmed, crossref, case) in [
        ("/arxiv/api/query", "/pubmed", "/slow/crossref", "CrossRef never answers"),
        ("/arxiv/api/query", "/pubmed", "/broken/crossref", "CrossRef answers HTTP 500"),
        ("/arxiv/api/query", "/pubmed", "/garbled/crossref", "CrossRef answers a web page"),
    ] {
        let c = ctx(config(&base, arxiv, pubmed, crossref)).await;
        let a = run_tool(&c, "feed.research", args(json!({"query": "kv cache", "sources": "arxiv,pubmed,crossref"})))
            .await
            .unwrap();
        assert!(a.ok, "{case}: {}", a.answer);
        let d = a.data.as_ref().unwrap();
        assert!(d["sources"][2]["error"].is_string(), "{case}: {d:#}");
        assert_eq!(d["sources"][0]["returned"], 5);
        answers.push(json!({ "case": case, "answer": whole(&a) }));
    }
    // arXiv refusing the query is its error, reported the same way.
    let c = ctx(config(&base, "/arxiv-error/api/query", "/pubmed", "/crossref")).await;
    let a = run_tool(&c, "feed.research", args(json!({"query": "kv cache"}))).await.unwrap();
    assert!(a.ok);
    answers.push(json!({ "case": "arXiv refuses the query", "answer": whole(&a) }));
    // Every source failing is a refusal naming each.
    let c = ctx(config(&base, "/broken/a", "/broken/p", "/broken/c")).await;
    let a = run_tool(&c, "feed.research", args(json!({"query": "kv cache", "sources": "arxiv,pubmed"}))).await.unwrap();
    assert!(!a.ok);
    answers.push(json!({ "case": "arXiv and PubMed both fail", "answer": whole(&a) }));
    insta::assert_json_snapshot!("failing_sources", answers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_refusals() {
    let base = serve();
    let c = ctx(config(&base, "/arxiv/api/query", "/pubmed", "/crossref")).await;
    let mut answers = Vec::new();
    for a in [
        json!({"query": "x"}),
        json!({"query": "kv cache", "limit": 17}),
        json!({"query": "kv cache", "sources": "scholar"}),
        json!({}),
    ] {
        let out = run_tool(&c, "feed.research", args(a.clone())).await.unwrap();
        assert!(!out.ok, "{a}: {}", out.answer);
        answers.push(json!({ "args": a, "answer": whole(&out) }));
    }
    insta::assert_json_snapshot!("bad_arguments", answers);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_routes_literature_questions_to_research() {
    let base = serve();
    let c = ctx(config(&base, "/arxiv/api/query", "/pubmed", "/crossref")).await;
    let catalogue = tools(c);
    let a =
        catalogue.call("feed.ask", args(json!({"question": "search arXiv for long context serving"}))).await.unwrap();
    assert!(a.ok, "{}", a.answer);
    assert_eq!(a.tool_used.as_deref(), Some("feed.research"));
    let d = a.data.unwrap();
    assert_eq!(d["query"], "long context serving");
    assert_eq!(d["sources"].as_array().unwrap().len(), 1, "only the service named");
}
