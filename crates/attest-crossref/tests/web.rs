//! The CrossRef reader, handed to an attest-cite resolver, against a loopback server
//! answering with a CrossRef-shaped record. Nothing here reaches the network.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use attest_cite::{Resolver, ResolverConfig, Source, tools};
use attest_crossref::Crossref;

/// Serve `body` for `/works/10.18653/v1/N19-1423`, 404 otherwise; record every path asked.
fn serve() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let body =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/crossref-works.json")).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().unwrap());
            let mut first = String::new();
            reader.read_line(&mut first).unwrap();
            loop {
                let mut l = String::new();
                if reader.read_line(&mut l).unwrap_or(0) == 0 || l == "\r\n" {
                    break;
                }
            }
            let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
            log.lock().unwrap().push(path.clone());
            let (status, text) = if path == "/works/10.18653/v1/N19-1423" {
                ("200 OK", body.as_str())
            } else {
                ("404 Not Found", "Resource not found.")
            };
            let _ = write!(
                s,
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
        }
    });
    (base, seen)
}

async fn resolver(base: String, cache: &std::path::Path, bib: Option<&std::path::Path>) -> Resolver {
    let config = ResolverConfig {
        web: true,
        web_lookup: Some(Arc::new(Crossref::new(Some(base), Some(cache.to_path_buf())))),
        find_zotero: false,
        bib_paths: bib.into_iter().map(|p| p.to_path_buf()).collect(),
        ..ResolverConfig::default()
    };
    Resolver::build(&config).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_doi_is_fetched_once_then_served_from_the_cache() {
    let (base, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let r = resolver(base.clone(), &cache, None).await;
    assert!(r.online());
    assert!(r.sources().iter().any(|s| s.network && s.kind == Source::Web));

    let got = tokio::task::spawn_blocking({
        let r = Arc::new(r);
        move || (r.lookup("https://doi.org/10.18653/v1/N19-1423"), r)
    })
    .await
    .unwrap();
    let (found, r) = got;
    let found = found.expect("served by the loopback CrossRef");
    assert_eq!(found.title, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding");
    assert_eq!(found.authors[0], "Devlin, Jacob");
    assert_eq!(found.year, Some(2019));
    assert_eq!(found.source, Source::Web);
    assert!(found.fetched_at.as_deref().is_some_and(|d| d.len() == 10));
    assert_eq!(seen.lock().unwrap().len(), 1);

    // A citation key is never sent; a DOI CrossRef lacks is a miss.
    let r2 = Arc::clone(&r);
    let (k, miss) =
        tokio::task::spawn_blocking(move || (r2.lookup("devlin2019bert"), r2.lookup("10.9999/nothing"))).await.unwrap();
    assert!(k.is_none() && miss.is_none());
    assert_eq!(seen.lock().unwrap().as_slice(), ["/works/10.18653/v1/N19-1423", "/works/10.9999/nothing"]);

    // A new resolver over the same cache answers without asking the server.
    let again = resolver(base, &cache, None).await;
    let cached = tokio::task::spawn_blocking(move || again.lookup("10.18653/V1/N19-1423")).await.unwrap().unwrap();
    assert_eq!(cached.fetched_at, found.fetched_at, "the original fetch date is kept");
    assert_eq!(seen.lock().unwrap().len(), 2);

    // The lookup tool says it may go online.
    let cat = tools::tools(attest_cite::Sources::ready(Arc::clone(&r)));
    assert!(cat.get("cite.lookup").unwrap().spec.hints.open_world);
    assert!(!cat.get("cite.search").unwrap().spec.hints.open_world);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn local_sources_answer_first_and_search_never_goes_online() {
    let (base, seen) = serve();
    let dir = tempfile::tempdir().unwrap();
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, "@article{devlin2019bert, title={BERT from disk}, doi={10.18653/v1/N19-1423}}\n").unwrap();
    let r = Arc::new(resolver(base, &dir.path().join("cache"), Some(&bib)).await);
    let r2 = Arc::clone(&r);
    let hit = tokio::task::spawn_blocking(move || r2.lookup("10.18653/v1/N19-1423")).await.unwrap().unwrap();
    assert_eq!(hit.source, Source::Bibtex);
    assert_eq!(r.search("10.9999/nothing bert", 5).references.len(), 1);
    assert!(seen.lock().unwrap().is_empty(), "nothing reached the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_service_is_a_miss_not_an_error() {
    // Bind and drop, so the port refuses connections.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let r = resolver(format!("http://127.0.0.1:{port}"), dir.path(), None).await;
    let miss = tokio::task::spawn_blocking(move || r.lookup("10.1000/xyz")).await.unwrap();
    assert!(miss.is_none());
}

/// `enable` attaches CrossRef only to a config that asked for the web.
#[test]
fn enable_attaches_crossref_only_when_the_web_is_asked_for() {
    let off = attest_crossref::enable(ResolverConfig::default());
    assert!(off.web_lookup.is_none());
    let on = attest_crossref::enable(ResolverConfig { web: true, ..ResolverConfig::default() });
    let info = on.web_lookup.as_ref().expect("attached").info();
    assert!(info.network && info.kind == Source::Web && info.name == "crossref");
    assert!(info.problems[0].contains("no cache directory"), "{info:?}");
    let env = |k: &str| (k == "ATTEST_CITATION_WEB").then(|| "1".to_string());
    let from_env = attest_crossref::enable(attest_cite::scan::resolver_config(env, None));
    assert!(from_env.web && from_env.web_lookup.is_some());
}
