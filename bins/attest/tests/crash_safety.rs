//! Crash safety: `kill -9` at random points of `attest runs scan`, `attest ingest` and a
//! `runs.record` call, then: the database opens, `PRAGMA integrity_check` says ok, no
//! half-scan or half-ingest is visible (each project's runs and each feed's items are
//! all there or none), and running the same thing again completes.
//!
//! Bounded for CI: `ATTEST_CRASH_TRIALS` trials each (default 10) over
//! `ATTEST_CRASH_FILES` result files and as many feed items (default 2,000).
//! `scripts/crash-trials.sh` runs 50 trials over 20,000 of each (specs/reliability.md).
//! Kill points are spread over the time one uninterrupted run took (measured first, to
//! place them; nothing asserts a duration); the seed is printed and can be set with
//! `ATTEST_CRASH_SEED`.
//!
//! Each test has a `postgres_` twin that runs the same trials with `ATTEST_DB` set to a
//! fresh schema of the database `ATTEST_TEST_POSTGRES` names (dropped after; without the
//! variable it returns at once). It runs fewer, smaller trials by default (4 over 500;
//! the same two variables override both), and checks with PostgreSQL's counterpart of
//! the integrity check (`common::pg::Scratch::check`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

use attest_testkit::Session;
use common::pg::Scratch;
use serde_json::json;
use sqlx::Row;

fn env_or(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// How many trials: `ATTEST_CRASH_TRIALS`, else 10 on SQLite and 4 on PostgreSQL.
fn trials(p: &Place) -> u64 {
    env_or("ATTEST_CRASH_TRIALS", if p.pg.is_some() { 4 } else { 10 })
}

/// How many result files (and feed items): `ATTEST_CRASH_FILES`, else 2,000 on SQLite
/// and 500 on PostgreSQL.
fn files(p: &Place) -> u64 {
    env_or("ATTEST_CRASH_FILES", if p.pg.is_some() { 500 } else { 2_000 })
}

/// A small deterministic generator (xorshift64*), so a failing trial can be replayed.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let seed = env_or("ATTEST_CRASH_SEED", 0).max(1);
        let seed = if seed == 1 {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
        } else {
            seed
        };
        eprintln!("crash trials: ATTEST_CRASH_SEED={seed}");
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A point in `0..=span`.
    fn within(&mut self, span: Duration) -> Duration {
        let micros = span.as_micros().max(1) as u64;
        Duration::from_micros(self.next() % (micros + 1))
    }
}

struct Place {
    dir: tempfile::TempDir,
    /// The PostgreSQL schema the trials run on; `None`: the SQLite file `db()`.
    pg: Option<Scratch>,
}

impl Place {
    fn new(pg: Option<Scratch>) -> Place {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("root")).unwrap();
        Place { dir, pg }
    }
    /// A place on PostgreSQL, or `None` when tests are not to use it.
    fn postgres() -> Option<Place> {
        Scratch::new().map(|pg| Place::new(Some(pg)))
    }
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
    /// Start again from no database: the file and its log removed, or the schema emptied.
    fn fresh_db(&self) {
        match &self.pg {
            Some(pg) => pg.reset(),
            None => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", self.db().display()));
                }
            }
        }
    }
    /// Whether a database exists to check (a killed first run may not have made the file).
    fn has_db(&self) -> bool {
        self.pg.is_some() || self.db().exists()
    }
    /// Open the database the way a fresh process would, check its integrity, and run
    /// `sql` (a text and an integer column per row). A database killed before its
    /// schema was created has no tables yet: that reads as no rows.
    fn query(&self, sql: &str) -> Vec<(String, i64)> {
        let Some(pg) = &self.pg else { return query(&self.db(), sql) };
        pg.check();
        match pg.rows(sql) {
            Ok(rows) => rows.iter().map(|r| (r.get::<String, _>(0), r.get::<i64, _>(1))).collect(),
            Err(e) if e.to_string().contains("does not exist") => Vec::new(),
            Err(e) => panic!("{sql}: {e}"),
        }
    }
    /// The one count a `SELECT 'what', count(*)` query returns (0 before the schema exists).
    fn count(&self, sql: &str) -> i64 {
        self.query(sql).first().map_or(0, |r| r.1)
    }
    /// The table holding runs' metric values, by schema version (`run_curves` from
    /// migration 8 on, `run_metrics` before); `None` before the schema exists.
    fn metrics_table(&self) -> Option<String> {
        let sql = match self.pg {
            Some(_) => {
                "SELECT CAST(table_name AS TEXT), 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('run_curves', 'run_metrics') ORDER BY 1"
            }
            None => "SELECT name, 1 FROM sqlite_master WHERE name IN ('run_curves', 'run_metrics') ORDER BY 1",
        };
        self.query(sql).into_iter().next().map(|r| r.0)
    }
    fn attest(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("ATTEST_DB", self.setting())
            .env("RESEARCH_ROOT", self.root());
        c
    }
    /// Run to completion; the command must succeed.
    fn complete(&self, args: &[&str]) -> Duration {
        let t = Instant::now();
        let out = self.attest(args).stdout(Stdio::null()).output().unwrap();
        assert!(out.status.success(), "attest {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        t.elapsed()
    }
    /// Start, then `kill -9` after `after` (or let it finish, if it is quicker).
    fn kill_after(&self, args: &[&str], after: Duration) -> bool {
        let mut child = self.attest(args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let t = Instant::now();
        while t.elapsed() < after {
            if child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(1).min(after));
        }
        let killed = child.try_wait().unwrap().is_none();
        let _ = child.kill();
        let _ = child.wait();
        killed
    }
}

/// Open the database the way a fresh process would, check its integrity, and run `sql`
/// (a text and an integer column per row). A database killed before its schema was
/// created has no tables yet: that reads as no rows. Runs on a thread of its own, so
/// async tests may call it too.
fn query(db: &Path, sql: &str) -> Vec<(String, i64)> {
    let (db, sql) = (db.to_path_buf(), sql.to_string());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&db).busy_timeout(Duration::from_secs(30));
            let pool = sqlx::sqlite::SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(opts)
                .await
                .expect("the database opens");
            let check: String = sqlx::query("PRAGMA integrity_check").fetch_one(&pool).await.unwrap().get(0);
            assert_eq!(check, "ok", "integrity_check");
            let out = match sqlx::query(&sql).fetch_all(&pool).await {
                Ok(rows) => rows.iter().map(|r| (r.get::<String, _>(0), r.get::<i64, _>(1))).collect(),
                Err(e) if e.to_string().contains("no such table") => Vec::new(),
                Err(e) => panic!("{sql}: {e}"),
            };
            pool.close().await;
            out
        })
    })
    .join()
    .unwrap()
}

fn write_results(root: &Path, project: &str, from: u64, to: u64) {
    let dir = root.join(project).join("results");
    std::fs::create_dir_all(&dir).unwrap();
    for i in from..to {
        let body = json!({ "accuracy": (i % 97) as f64 / 100.0, "loss": 1.0 / (i + 1) as f64, "seed": i });
        std::fs::write(dir.join(format!("run_{i:06}.json")), body.to_string()).unwrap();
    }
}

const PROJECTS: u64 = 4;

#[test]
fn kill_9_during_runs_scan_leaves_all_or_nothing() {
    scan_trials(Place::new(None));
}

#[test]
fn postgres_kill_9_during_runs_scan_leaves_all_or_nothing() {
    let Some(p) = Place::postgres() else { return };
    scan_trials(p);
}

fn scan_trials(p: Place) {
    let trials = trials(&p);
    let files = files(&p).max(PROJECTS);
    let mut rng = Rng::seeded();
    let per = files / PROJECTS;
    let mut have = vec![per; PROJECTS as usize];
    for k in 0..PROJECTS {
        write_results(&p.root(), &format!("p{k}"), 0, per);
    }
    // One whole scan, to know where the kill points can fall.
    let span = p.complete(&["runs", "scan"]);
    let counts = "SELECT project, count(*) FROM runs GROUP BY project ORDER BY project";
    let mut stored = have.clone();
    let mut killed = 0;
    for trial in 0..trials {
        // Even trials start from an empty database; odd ones rescan a grown project.
        let grown = (trial % PROJECTS) as usize;
        if trial.is_multiple_of(2) {
            p.fresh_db();
            stored = vec![0; PROJECTS as usize];
        } else {
            write_results(&p.root(), &format!("p{grown}"), have[grown], have[grown] + 7);
            have[grown] += 7;
        }
        killed += p.kill_after(&["runs", "scan"], rng.within(span)) as usize;
        if p.has_db() {
            let rows = p.query(counts);
            for k in 0..PROJECTS as usize {
                let project = format!("p{k}");
                let n = rows.iter().find(|(p, _)| *p == project).map_or(0, |r| r.1);
                assert!(
                    n as u64 == stored[k] || n as u64 == have[k],
                    "trial {trial}: {project} shows {n} runs, neither the {} before nor the {} after: a half-scan",
                    stored[k],
                    have[k]
                );
            }
            if let Some(metrics) = p.metrics_table() {
                let orphans = p.count(&format!(
                    "SELECT 'runs without metrics', count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM {metrics} m WHERE m.run_id = r.id)"
                ));
                assert_eq!(orphans, 0, "trial {trial}: runs without their metrics");
            }
        }
        p.complete(&["runs", "scan"]);
        let rows = p.query(counts);
        let want: Vec<(String, i64)> = (0..PROJECTS).map(|k| (format!("p{k}"), have[k as usize] as i64)).collect();
        assert_eq!(rows, want, "trial {trial}: the rescan after the kill");
        stored = have.clone();
    }
    eprintln!("runs scan: {trials} trials, {killed} killed mid-run, {files} files, whole scan {span:?}");
}

/// A feed file of `items` entries (Atom), numbered from `from`.
fn write_feed(path: &Path, name: &str, items: u64) {
    let mut s =
        String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n");
    s.push_str(&format!("<title>{name}</title><id>urn:{name}</id><updated>2026-11-30T00:00:00Z</updated>\n"));
    for i in 0..items {
        s.push_str(&format!(
            "<entry><id>urn:{name}:{i}</id><title>Distillation of speech recognizers, study {i} of {name}</title>\
             <link href=\"https://example.org/{name}/{i}\"/><updated>2026-11-{:02}T00:00:00Z</updated>\
             <summary>Knowledge distillation for speech recognition with a conformer teacher, variant {i}; beam search and tokenizer effects.</summary></entry>\n",
            1 + i % 28
        ));
    }
    s.push_str("</feed>\n");
    std::fs::write(path, s).unwrap();
}

#[test]
fn kill_9_during_ingest_leaves_whole_feeds_or_none() {
    ingest_trials(Place::new(None));
}

#[test]
fn postgres_kill_9_during_ingest_leaves_whole_feeds_or_none() {
    let Some(p) = Place::postgres() else { return };
    ingest_trials(p);
}

fn ingest_trials(p: Place) {
    let trials = trials(&p);
    let items = files(&p).max(4);
    let feeds = 4;
    let per = items / feeds;
    let mut rng = Rng::seeded();
    let mut toml = String::new();
    for f in 0..feeds {
        let path = p.dir.path().join(format!("feed{f}.xml"));
        write_feed(&path, &format!("f{f}"), per);
        toml.push_str(&format!("[[feeds]]\nurl = {:?}\ntitle = \"f{f}\"\n\n", path.display().to_string()));
    }
    let seeds = p.dir.path().join("feeds.toml");
    std::fs::write(&seeds, toml).unwrap();
    let seeds = seeds.to_str().unwrap().to_string();
    let args = ["ingest", "--feeds", seeds.as_str()];
    let span = p.complete(&args);
    let counts = "SELECT coalesce(f.title, '(none)'), count(i.id) FROM feeds f LEFT JOIN items i ON i.feed_id = f.id GROUP BY f.id ORDER BY f.title";
    let mut killed = 0;
    for trial in 0..trials {
        p.fresh_db();
        killed += p.kill_after(&args, rng.within(span)) as usize;
        if p.has_db() {
            for (feed, n) in p.query(counts) {
                assert!(
                    n == 0 || n as u64 == per,
                    "trial {trial}: feed {feed} shows {n} of {per} items: a half-ingest"
                );
            }
            let untagged = p.count(
                "SELECT 'tags without items', count(*) FROM item_tags t WHERE NOT EXISTS (SELECT 1 FROM items i WHERE i.id = t.item_id)",
            );
            assert_eq!(untagged, 0, "trial {trial}");
        }
        p.complete(&args);
        let rows = p.query(counts);
        assert_eq!(rows.len() as u64, feeds, "trial {trial}: every feed subscribed after the rerun: {rows:?}");
        assert!(rows.iter().all(|(_, n)| *n as u64 == per), "trial {trial}: after the rerun: {rows:?}");
    }
    eprintln!("ingest: {trials} trials, {killed} killed mid-run, {feeds} feeds x {per} items, whole ingest {span:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_runs_record_then_the_same_call_completes() {
    record_trials(Place::new(None)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_kill_9_during_runs_record_then_the_same_call_completes() {
    let Some(p) = tokio::task::spawn_blocking(Place::postgres).await.unwrap() else { return };
    record_trials(p).await;
}

async fn record_trials(p: Place) {
    let trials = trials(&p);
    let mut rng = Rng::seeded();
    write_results(&p.root(), "proj", 0, 200);
    tokio::task::block_in_place(|| p.complete(&["runs", "scan"]));
    let setting = p.setting();
    let serve = || {
        let mut cmd = Session::command(
            env!("CARGO_BIN_EXE_attest"),
            &[
                ("ATTEST_DB", setting.as_str()),
                ("RESEARCH_ROOT", p.root().to_str().unwrap()),
                ("HOME", p.dir.path().to_str().unwrap()),
                ("ATTEST_EXPAND", "1"),
            ],
        );
        cmd.args(["serve", "--surface", "provenance"]);
        Session::spawn(cmd)
    };
    let record = |family: &str| {
        json!({
            "family": family,
            "project": "proj",
            "arms": { "a": { "accuracy": 0.5 }, "b": { "accuracy": 0.6 }, "c": { "accuracy": 0.7 } },
            "confirm": true,
        })
    };
    // One whole call, to know where the kill points can fall.
    let s = serve().await;
    let t = Instant::now();
    s.ok("runs.record", record("warmup")).await;
    let span = t.elapsed();
    s.close().await;
    let mut killed = 0;
    for trial in 0..trials {
        let family = format!("sweep{trial}");
        let s = serve().await;
        let pid = s.pid;
        let delay = rng.within(span);
        let args = record(&family);
        let call = tokio::spawn(async move {
            let r = s.client.call_tool(
                rmcp::model::CallToolRequestParams::new("runs.record")
                    .with_arguments(args.as_object().cloned().unwrap()),
            );
            r.await.is_ok()
        });
        tokio::time::sleep(delay).await;
        let answered = call.is_finished();
        // SAFETY: kill(2) on the pid of the server this test spawned.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        let _ = call.await;
        killed += !answered as usize;
        // The ledger holds the family's three runs or none of them.
        let recorded = format!("SELECT 'runs', count(*) FROM runs WHERE name LIKE '{family}%'");
        let n = tokio::task::block_in_place(|| p.count(&recorded));
        assert!(n == 0 || n == 3, "trial {trial}: {n} of 3 runs recorded");
        // The same call again completes, whatever the kill left on disk.
        let s = serve().await;
        let (answer, text, is_error) = s.call("runs.record", record(&family)).await;
        assert!(!is_error, "trial {trial}: {text}");
        assert_eq!(answer["ok"], true, "trial {trial}: the retried call did not complete: {answer:#}");
        s.close().await;
        assert_eq!(tokio::task::block_in_place(|| p.count(&recorded)), 3, "trial {trial}: after the retry");
    }
    eprintln!("runs.record: {trials} trials, {killed} killed before answering, whole call {span:?}");
}
