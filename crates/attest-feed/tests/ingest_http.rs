//! Fetching and ingesting over loopback HTTP: the corpus served by a tiny in-test
//! server on 127.0.0.1 (never any other address), conditional requests and 304, a
//! 20 MB body, a server that never finishes sending, redirect loops, error statuses.
//! Error messages are checked by snapshots of the whole message, the server's address
//! written `[server]`.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use attest_feed::fetch::{FetchError, FetchOptions, Fetched, Fetcher, Validators};
use attest_feed::{FeedError, FeedStore, ingest, opml};

use attest_testkit::feeds::FILES as CORPUS;

fn corpus_bytes(name: &str) -> Vec<u8> {
    std::fs::read(attest_testkit::feeds::dir().join(name)).unwrap()
}

/// A loopback server. Files are served with an ETag and honour If-None-Match; special
/// paths misbehave on purpose. Each connection is handled on its own thread.
struct Server {
    base: String,
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
    requests: Arc<AtomicUsize>,
    not_modified: Arc<AtomicUsize>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/", listener.local_addr().unwrap());
        let files: Arc<Mutex<HashMap<String, Vec<u8>>>> = Arc::default();
        for f in CORPUS.iter().chain(["malformed.xml", "not-a-feed.html", "feeds.opml"].iter()) {
            files.lock().unwrap().insert(f.to_string(), corpus_bytes(f));
        }
        let (requests, not_modified) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (f2, r2, n2) = (files.clone(), requests.clone(), not_modified.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (f, r, n) = (f2.clone(), r2.clone(), n2.clone());
                std::thread::spawn(move || handle(stream, &f, &r, &n));
            }
        });
        Server { base, files, requests, not_modified }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn put(&self, path: &str, bytes: Vec<u8>) {
        self.files.lock().unwrap().insert(path.to_string(), bytes);
    }
}

fn handle(stream: TcpStream, files: &Mutex<HashMap<String, Vec<u8>>>, requests: &AtomicUsize, nm: &AtomicUsize) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    requests.fetch_add(1, Ordering::SeqCst);
    let mut out = stream;
    let send = |out: &mut TcpStream, status: &str, extra: &str, body: &[u8]| {
        let head = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n", body.len());
        let _ = out.write_all(head.as_bytes());
        let _ = out.write_all(body);
    };
    if path == "huge.xml" {
        // 20 MB, declared honestly.
        let total = 20 * 1024 * 1024;
        let _ = out
            .write_all(format!("HTTP/1.1 200 OK\r\nContent-Length: {total}\r\nConnection: close\r\n\r\n").as_bytes());
        let chunk = vec![b' '; 64 * 1024];
        for _ in 0..total / chunk.len() {
            if out.write_all(&chunk).is_err() {
                return;
            }
        }
    } else if path == "huge-chunked.xml" {
        // 20 MB with no length given: the cap must stop the read itself.
        let _ = out
            .write_all(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n<rss version=\"2.0\"><channel><title>big</title>");
        let chunk = format!("<item><title>x</title><description>{}</description></item>", "y".repeat(4000));
        for _ in 0..(20 * 1024 * 1024 / chunk.len()) {
            if out.write_all(chunk.as_bytes()).is_err() {
                return;
            }
        }
    } else if path == "slow.xml" {
        // Headers and the start of a body, then a byte now and then, never the end.
        let _ = out
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n<rss version=\"2.0\">");
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(200));
            if out.write_all(b" ").and_then(|_| out.flush()).is_err() {
                return;
            }
        }
    } else if let Some(n) = path.strip_prefix("loop/") {
        let next: u32 = n.parse::<u32>().unwrap_or(0) + 1;
        send(&mut out, "302 Found", &format!("Location: /loop/{next}\r\n"), b"");
    } else if path == "moved" {
        send(&mut out, "301 Moved Permanently", "Location: /arxiv-cs.rss\r\n", b"");
    } else if path == "error" {
        send(&mut out, "500 Internal Server Error", "", b"oops");
    } else {
        let body = files.lock().unwrap().get(&path).cloned();
        match body {
            Some(b) => {
                let etag = format!("\"{}\"", &blake3::hash(&b).to_hex()[..16]);
                if headers.get("if-none-match") == Some(&etag) {
                    nm.fetch_add(1, Ordering::SeqCst);
                    let _ = out.write_all(
                        format!("HTTP/1.1 304 Not Modified\r\nETag: {etag}\r\nConnection: close\r\n\r\n").as_bytes(),
                    );
                } else {
                    send(&mut out, "200 OK", &format!("ETag: {etag}\r\nContent-Type: application/xml\r\n"), &b);
                }
            }
            None => send(&mut out, "404 Not Found", "", b"no such feed"),
        }
    }
}

/// A message with this run's loopback address replaced.
fn redact(text: &str) -> String {
    regex::Regex::new(r"127\.0\.0\.1:\d+").unwrap().replace_all(text, "[server]").into_owned()
}

fn quick() -> Fetcher {
    Fetcher::new(FetchOptions { timeout: Duration::from_secs(2), ..FetchOptions::default() })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ingests_the_corpus_over_http_and_then_asks_whether_it_changed() {
    let srv = Server::start();
    let s = FeedStore::in_memory().await.unwrap();
    let opml_text = String::from_utf8(corpus_bytes("feeds.opml")).unwrap().replace("http://feeds.example/", &srv.base);
    let imported = opml::import(&s, &opml_text).await.unwrap();
    assert_eq!(imported.subscribed, 6);
    let fetcher = quick();
    let r = ingest::ingest_all(&s, &fetcher).await.unwrap();
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    assert_eq!((r.added, r.skipped), (79, 4));
    assert!(s.feeds().await.unwrap().iter().all(|f| f.etag.is_some() && f.last_fetched.is_some()));

    let before = srv.requests.load(Ordering::SeqCst);
    let again = ingest::ingest_all(&s, &fetcher).await.unwrap();
    assert_eq!((again.added, again.not_modified), (0, 6), "{again:?}");
    assert_eq!(srv.not_modified.load(Ordering::SeqCst), 6);
    assert_eq!(srv.requests.load(Ordering::SeqCst) - before, 6);

    // The bulletin changes: a new ETag, a full answer, only the new entry is added.
    srv.put("bulletin-v1.rss", corpus_bytes("bulletin-v2.rss"));
    let third = ingest::ingest_all(&s, &fetcher).await.unwrap();
    assert_eq!((third.added, third.updated, third.not_modified), (1, 1, 5), "{third:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_twenty_megabyte_feed_is_refused_and_the_rest_continue() {
    let srv = Server::start();
    let s = FeedStore::in_memory().await.unwrap();
    s.subscribe(&srv.url("huge.xml"), Some("huge")).await.unwrap();
    s.subscribe(&srv.url("huge-chunked.xml"), Some("huge, no length")).await.unwrap();
    s.subscribe(&srv.url("arxiv-cs.rss"), None).await.unwrap();
    let r = ingest::ingest_all(&s, &quick()).await.unwrap();
    assert_eq!(r.added, 18);
    assert_eq!(r.failed.len(), 2, "{:?}", r.failed);
    let mut failed: Vec<String> = r.failed.iter().map(|f| redact(&format!("{}: {}", f.url, f.error))).collect();
    failed.sort();
    insta::assert_snapshot!("too_large", failed.join("\n"));
    assert_eq!(s.counts().await.unwrap().items, 18);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_finishes_hits_the_timeout() {
    let srv = Server::start();
    let fetcher = Fetcher::new(FetchOptions { timeout: Duration::from_secs(1), ..FetchOptions::default() });
    let err = fetcher.fetch(&srv.url("slow.xml"), &Validators::default()).await.unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    insta::assert_snapshot!("timeout", redact(&err.to_string()));
    // Through ingest, the feed is reported and its error kept.
    let s = FeedStore::in_memory().await.unwrap();
    let feed = s.subscribe(&srv.url("slow.xml"), None).await.unwrap().feed;
    let r = ingest::ingest_all(&s, &fetcher).await.unwrap();
    assert_eq!(r.failed.len(), 1);
    insta::assert_snapshot!("timeout_kept", redact(&s.feed(feed.id).await.unwrap().unwrap().last_error.unwrap()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_followed_up_to_the_limit() {
    let srv = Server::start();
    let f = quick();
    let Fetched::Body(b) = f.fetch(&srv.url("moved"), &Validators::default()).await.unwrap() else {
        panic!("expected a body")
    };
    assert_eq!(b.bytes, corpus_bytes("arxiv-cs.rss"));
    let err = f.fetch(&srv.url("loop/0"), &Validators::default()).await.unwrap_err();
    assert!(matches!(err, FetchError::TooManyRedirects { limit: 5, .. }), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn statuses_non_feeds_and_bad_addresses_are_reported() {
    let srv = Server::start();
    let f = quick();
    let err = f.fetch(&srv.url("error"), &Validators::default()).await.unwrap_err();
    assert!(matches!(err, FetchError::Status { status: 500, .. }), "{err}");
    let err = f.fetch(&srv.url("missing.xml"), &Validators::default()).await.unwrap_err();
    insta::assert_snapshot!("status_404", redact(&err.to_string()));
    // A web page is not a feed; preview says so and stores nothing.
    let err = ingest::preview(&f, &srv.url("not-a-feed.html"), 5).await.unwrap_err();
    assert!(matches!(err, FeedError::NotAFeed(_)), "{err}");
    let err = ingest::preview(&f, &srv.url("malformed.xml"), 5).await.unwrap_err();
    assert!(matches!(err, FeedError::NotAFeed(_)), "{err}");
    let ok = ingest::preview(&f, &srv.url("systems-notes.atom"), 2).await.unwrap();
    assert_eq!((ok.title.as_deref(), ok.total, ok.entries.len()), (Some("Systems Notes"), 11, 2));
    // Nothing listens on a closed loopback port.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let err = f.fetch(&format!("http://127.0.0.1:{port}/feed.xml"), &Validators::default()).await.unwrap_err();
    assert!(matches!(err, FetchError::Transport { .. }), "{err}");
    // Only http(s) and local files.
    let s = FeedStore::in_memory().await.unwrap();
    let err = s.subscribe("gopher://example.org/feed", None).await.unwrap_err();
    insta::assert_snapshot!("scheme_refused", err.to_string());
    let local_off = Fetcher::new(FetchOptions { allow_local: false, ..FetchOptions::default() });
    let err = local_off.fetch("/etc/hostname", &Validators::default()).await.unwrap_err();
    assert!(matches!(err, FetchError::LocalNotAllowed(_)), "{err}");
}
