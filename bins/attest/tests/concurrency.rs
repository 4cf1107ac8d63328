//! Concurrency on one database: four feed surface processes rating items (and listing
//! and searching between ratings), a provenance surface reading the ledger, `attest
//! ingest` and `attest runs scan` in a loop (the feed growing and results being added
//! meanwhile), and `attest web` serving pages, all for `ATTEST_CONCURRENCY_SECS`
//! (default 10; `scripts/concurrency.sh` runs 60). Once on a SQLite file, and once more
//! on PostgreSQL when `ATTEST_TEST_POSTGRES` names a test database (a fresh schema,
//! dropped after; the `postgres_` test returns at once without it). Then:
//!
//! - zero lost ratings: every rating answered `ok` is in the database with its verdict;
//! - zero "database is locked", deadlock or serialization text (or any raw driver text)
//!   reaching a user, in any answer, page or command output;
//! - every answer is `ok` or an honest busy refusal (`ok: false` saying the database is
//!   busy and to try again); never `isError`; every command exits 0 or says busy.
//!
//! The run's length is a bound on the work, not a measurement: nothing asserts a time.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod common;

use attest_testkit::Session;
use common::pg::Scratch;
use serde_json::{Value, json};
use sqlx::Row;

const READERS: usize = 4;
const ITEMS: u64 = 400;

fn secs() -> u64 {
    std::env::var("ATTEST_CONCURRENCY_SECS").ok().and_then(|v| v.parse().ok()).unwrap_or(10)
}

/// What users saw that they should not have.
#[derive(Default)]
struct Findings {
    problems: Vec<String>,
    busy: usize,
    answers: usize,
}

impl Findings {
    fn text(&mut self, who: &str, text: &str) {
        let lower = text.to_lowercase();
        // SQLite's and PostgreSQL's own words, and sqlx's, for trouble attest words itself.
        const DRIVER: [&str; 9] = [
            "database is locked",
            "(code: 5)",
            "error returned from database",
            "deadlock",
            "could not serialize",
            "canceling statement",
            "pool timed out",
            "too many clients",
            "sqlstate",
        ];
        if DRIVER.iter().any(|d| lower.contains(d)) {
            self.problems.push(format!("{who}: raw database text reached the user: {}", clip(text)));
        }
    }

    /// One tool answer: ok, or an honest busy refusal.
    fn answer(&mut self, who: &str, answer: &Value, is_error: bool) -> bool {
        self.answers += 1;
        let text = answer["answer"].as_str().unwrap_or("");
        self.text(who, &answer.to_string());
        if is_error {
            self.problems.push(format!("{who}: isError: {}", clip(text)));
            return false;
        }
        if answer["ok"] == true {
            return true;
        }
        if text.contains("busy") && text.contains("try") {
            self.busy += 1;
        } else {
            self.problems.push(format!("{who}: refused, and not because the database was busy: {}", clip(text)));
        }
        false
    }
}

fn clip(s: &str) -> String {
    s.chars().take(300).collect()
}

struct Place {
    dir: tempfile::TempDir,
    /// The PostgreSQL schema everything runs on; `None`: the SQLite file `db()`.
    pg: Option<Scratch>,
}

impl Place {
    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }
    fn db(&self) -> PathBuf {
        self.dir.path().join("attest.db")
    }
    /// `ATTEST_DB`: the file, or the schema's address.
    fn setting(&self) -> String {
        match &self.pg {
            Some(pg) => pg.url.clone(),
            None => self.db().display().to_string(),
        }
    }
    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("ATTEST_DB", self.setting()),
            ("RESEARCH_ROOT", self.root().display().to_string()),
            ("HOME", self.dir.path().display().to_string()),
            ("ATTEST_EXPAND", "1".into()),
        ]
    }
    fn attest(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
        c.args(args).env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
        for (k, v) in self.env() {
            c.env(k, v);
        }
        c
    }
    async fn surface(&self, name: &str) -> Session {
        let env = self.env();
        let pairs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut cmd = Session::command(env!("CARGO_BIN_EXE_attest"), &pairs);
        cmd.args(["serve", "--surface", name]);
        Session::spawn(cmd).await
    }
}

fn write_feed(path: &Path, name: &str, items: u64) {
    let mut s = String::from("<?xml version=\"1.0\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("<title>{name}</title><id>urn:{name}</id><updated>2026-11-30T00:00:00Z</updated>\n"));
    for i in 0..items {
        s.push_str(&format!(
            "<entry><id>urn:{name}:{i}</id><title>Speech recognition distillation note {i}</title>\
             <link href=\"https://example.org/{name}/{i}\"/><updated>2026-11-{:02}T00:00:00Z</updated>\
             <summary>Conformer teacher and student, beam search variant {i}.</summary></entry>\n",
            1 + i % 28
        ));
    }
    s.push_str("</feed>\n");
    std::fs::write(path, s).unwrap();
}

fn write_results(root: &Path, project: &str, from: u64, to: u64) {
    let dir = root.join(project).join("results");
    std::fs::create_dir_all(&dir).unwrap();
    for i in from..to {
        let body = json!({ "accuracy": (i % 89) as f64 / 100.0, "seed": i });
        std::fs::write(dir.join(format!("run_{i:05}.json")), body.to_string()).unwrap();
    }
}

/// A page from `attest web`: its status and body (HTTP/1.1, one request per connection).
fn get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(120)))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")?;
    let mut out = Vec::new();
    s.read_to_end(&mut out)?;
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    Ok((status, text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn surfaces_ingest_scan_and_web_share_one_database_without_losing_a_rating() {
    share_one_database(None).await;
}

/// The same on PostgreSQL, when `ATTEST_TEST_POSTGRES` names a test database.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_surfaces_ingest_scan_and_web_share_one_database_without_losing_a_rating() {
    let Some(pg) = tokio::task::spawn_blocking(Scratch::new).await.unwrap() else { return };
    share_one_database(Some(pg)).await;
}

async fn share_one_database(pg: Option<Scratch>) {
    let on = if pg.is_some() { "PostgreSQL" } else { "SQLite" };
    let place = Arc::new(Place { dir: tempfile::tempdir().unwrap(), pg });
    std::fs::create_dir_all(place.root()).unwrap();
    for k in 0..3 {
        write_results(&place.root(), &format!("p{k}"), 0, 60);
    }
    let feed = place.dir.path().join("feed.xml");
    write_feed(&feed, "f", ITEMS);
    let seeds = place.dir.path().join("feeds.toml");
    std::fs::write(&seeds, format!("[[feeds]]\nurl = {:?}\ntitle = \"f\"\n", feed.display().to_string())).unwrap();
    let run = |args: &[&str]| {
        let out = place.attest(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    run(&["ingest", "--feeds", seeds.to_str().unwrap()]);
    run(&["runs", "scan"]);
    for r in 0..READERS {
        run(&["feed", "personas", "create", &format!("r{r}"), "speech recognition, distillation"]);
    }

    let findings = Arc::new(Mutex::new(Findings::default()));
    let deadline = Instant::now() + Duration::from_secs(secs());
    let mut tasks = Vec::new();

    // Four feed surfaces, each rating its own items (re-rating them with the verdict
    // flipped on later rounds) and listing and searching between ratings.
    let rated: Arc<Mutex<BTreeMap<(usize, i64), bool>>> = Arc::default();
    for r in 0..READERS {
        let (place, findings, rated) = (place.clone(), findings.clone(), rated.clone());
        tasks.push(tokio::spawn(async move {
            let s = place.surface("feed").await;
            let user = format!("r{r}");
            let mut round = 0u64;
            while Instant::now() < deadline {
                for item in (1 + r as i64..=ITEMS as i64).step_by(READERS * 7) {
                    let useful = (item as u64 + round).is_multiple_of(2);
                    let (a, _, e) =
                        s.call("feed.rate", json!({ "user": user, "item_id": item, "useful": useful })).await;
                    let ok = findings.lock().unwrap().answer(&format!("feed.rate {user} {item}"), &a, e);
                    if ok {
                        rated.lock().unwrap().insert((r, item), useful);
                    }
                    let (a, _, e) = s.call("feed.list", json!({ "user": user })).await;
                    findings.lock().unwrap().answer("feed.list", &a, e);
                    if Instant::now() >= deadline {
                        break;
                    }
                }
                let (a, _, e) = s.call("feed.search", json!({ "user": user, "query": "distillation" })).await;
                findings.lock().unwrap().answer("feed.search", &a, e);
                round += 1;
            }
            s.close().await;
        }));
    }
    // A provenance surface reading the ledger while it is rescanned.
    {
        let (place, findings) = (place.clone(), findings.clone());
        tasks.push(tokio::spawn(async move {
            let s = place.surface("provenance").await;
            while Instant::now() < deadline {
                for (tool, args) in [("runs.list", json!({})), ("runs.list", json!({ "project": "p1" }))] {
                    let (a, _, e) = s.call(tool, args).await;
                    findings.lock().unwrap().answer(tool, &a, e);
                }
            }
            s.close().await;
        }));
    }
    // Ingest and scan in loops, with new items and new results appearing meanwhile.
    for job in ["ingest", "scan"] {
        let (place, findings, feed, seeds) = (place.clone(), findings.clone(), feed.clone(), seeds.clone());
        tasks.push(tokio::task::spawn_blocking(move || {
            let mut n = 0u64;
            while Instant::now() < deadline {
                n += 1;
                let args: Vec<String> = if job == "ingest" {
                    write_feed(&feed, "f", ITEMS + 10 * n);
                    vec!["ingest".into(), "--feeds".into(), seeds.display().to_string()]
                } else {
                    write_results(&place.root(), "p0", 60 + 5 * (n - 1), 60 + 5 * n);
                    vec!["runs".into(), "scan".into()]
                };
                let out = place
                    .attest(&args.iter().map(String::as_str).collect::<Vec<_>>())
                    .stdout(Stdio::piped())
                    .output()
                    .unwrap();
                let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                let mut f = findings.lock().unwrap();
                f.text(&format!("attest {job}"), &all);
                f.answers += 1;
                if !out.status.success() {
                    if all.contains("busy") {
                        f.busy += 1;
                    } else {
                        f.problems.push(format!("attest {job} failed: {}", clip(&all)));
                    }
                }
            }
        }));
    }
    // attest web, serving pages that read everything.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut web = place
        .attest(&["web", "--addr", &format!("127.0.0.1:{port}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        let findings = findings.clone();
        tasks.push(tokio::task::spawn_blocking(move || {
            let mut up = false;
            for _ in 0..2000 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    up = true;
                    break;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            assert!(up, "attest web did not start");
            while Instant::now() < deadline {
                for path in ["/feed/r0", "/ledger", "/graph", "/claims"] {
                    let (status, body) = get(port, path).expect("attest web answers");
                    let mut f = findings.lock().unwrap();
                    f.answers += 1;
                    f.text(&format!("web {path}"), &body);
                    match status {
                        200 => {}
                        503 if body.contains("busy") => f.busy += 1,
                        s => f.problems.push(format!("web {path}: status {s}: {}", clip(&body))),
                    }
                }
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let _ = web.kill();
    let _ = web.wait();

    // Every rating answered ok is stored, with the verdict last given.
    let ratings = "SELECT r.name, c.item_id, c.useful FROM clicks c JOIN readers r ON r.id = c.reader_id";
    let stored: BTreeMap<(usize, i64), bool> = match &place.pg {
        None => {
            let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(place.db());
            let pool = sqlx::SqlitePool::connect_with(opts).await.unwrap();
            let check: String = sqlx::query("PRAGMA integrity_check").fetch_one(&pool).await.unwrap().get(0);
            assert_eq!(check, "ok");
            let rows = sqlx::query(ratings).fetch_all(&pool).await.unwrap();
            rows.iter()
                .map(|row| {
                    let name: String = row.get(0);
                    ((name[1..].parse().unwrap(), row.get::<i64, _>(1)), row.get::<i64, _>(2) == 1)
                })
                .collect()
        }
        Some(pg) => {
            let rows = tokio::task::block_in_place(|| {
                pg.check();
                pg.rows(ratings).unwrap()
            });
            rows.iter()
                .map(|row| {
                    let name: String = row.get(0);
                    ((name[1..].parse().unwrap(), row.get::<i64, _>(1)), row.get::<i64, _>(2) == 1)
                })
                .collect()
        }
    };
    let rated = rated.lock().unwrap().clone();
    let lost: Vec<_> = rated.iter().filter(|(k, v)| stored.get(k) != Some(v)).collect();
    let f = findings.lock().unwrap();
    eprintln!(
        "{on}, {} s: {} answers, {} honest busy, {} ratings kept, {} lost, {} problems",
        secs(),
        f.answers,
        f.busy,
        rated.len(),
        lost.len(),
        f.problems.len()
    );
    assert!(!rated.is_empty(), "no rating went through");
    assert!(lost.is_empty(), "lost ratings (reader, item) -> verdict: {lost:?}");
    assert!(f.problems.is_empty(), "{}", f.problems.join("\n"));
}
