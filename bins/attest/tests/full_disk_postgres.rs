//! A full disk on a PostgreSQL server, for real, when `ATTEST_TEST_POSTGRES` names a
//! test database (CI: `postgres://root@127.0.0.1:5432/test`, the server on this host,
//! the test running as root). The ledger lives in a database of its own whose
//! tablespace is a small tmpfs; the real `attest` binary scans and ingests there, a
//! filler file fills the tmpfs, and then:
//!
//! - a scan and an ingest that run out of room midway (PostgreSQL: "could not extend
//!   file", SQLSTATE 53100) each exit non-zero in words naming the database and the fix
//!   (the server's disk is full: ask its administrator to free space), with no panic and
//!   no driver or server text;
//! - what was stored before is all there, unchanged, and every table reads in full;
//! - once the filler is deleted, the same scan and ingest complete.
//!
//! The server runs outside any namespace a test can make, so the tmpfs is a real mount
//! (`/mnt/attest_pgfull_<pid>`) and the database and tablespace are real
//! (`attest_full_<pid>`): a guard drops all of them and unmounts, and each run first
//! removes what an earlier run that died left behind. With `ATTEST_TEST_POSTGRES` set,
//! a tmpfs or tablespace that cannot be made fails the test with the reason; without
//! it, the test says it skipped and passes.

mod common;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{attest, example_workspace, text};
use sqlx::Connection as _;

/// The tmpfs's size (an empty PostgreSQL 15 database, a copy of `template1`, takes
/// about 7.5 MB of it), the room left for the failing commands, and the size of the
/// work that must not fit in that room but fits once the filler is gone.
const DISK: &str = "32m";
const HEADROOM: u64 = 96 * 1024;
const BULK_RUNS: u64 = 2000;
const FIRST_ITEMS: u64 = 20;
const MORE_ITEMS: u64 = 400;

/// Where the tmpfs is mounted, and the name of the tablespace and database, each
/// followed by the test process's id.
const MOUNT_PREFIX: &str = "/mnt/attest_pgfull_";
const NAME_PREFIX: &str = "attest_full_";

/// Run `f` on a current-thread runtime.
fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

/// Run each statement, one by one (`CREATE DATABASE` may not share a transaction), on
/// the database at `url`; the first failure in words.
fn exec(url: &str, statements: &[String]) -> Result<(), String> {
    block_on(async {
        let mut c = sqlx::PgConnection::connect(url).await.map_err(|e| format!("connect to {url}: {e}"))?;
        for s in statements {
            sqlx::raw_sql(s).execute(&mut c).await.map_err(|e| format!("{s}: {e}"))?;
        }
        c.close().await.map_err(|e| e.to_string())
    })
}

/// The first column of a query's rows, as text.
fn column(url: &str, sql: &str) -> Vec<String> {
    block_on(async {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap_or_else(|e| panic!("connect to {url}: {e}"));
        let all: Vec<String> = sqlx::query_scalar(sql).fetch_all(&mut c).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        c.close().await.unwrap();
        all
    })
}

/// The address of database `name` on the server of `base`.
fn database_url(base: &str, name: &str) -> String {
    let mut u = url::Url::parse(base).unwrap_or_else(|e| panic!("ATTEST_TEST_POSTGRES={base} is not an address: {e}"));
    u.set_path(&format!("/{name}"));
    u.set_query(None);
    u.to_string()
}

fn mounted(dir: &Path) -> bool {
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    let dir = dir.to_string_lossy();
    mounts.lines().any(|l| l.split_whitespace().nth(1) == Some(&*dir))
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Drop the database and tablespace of process `pid`, unmount its tmpfs and remove
/// the mount point; what could not be done, in words.
fn remove(base: &str, pid: u32) -> Vec<String> {
    let name = format!("{NAME_PREFIX}{pid}");
    let dir = PathBuf::from(format!("{MOUNT_PREFIX}{pid}"));
    let mut failed = Vec::new();
    if let Err(e) = exec(
        base,
        &[format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"), format!("DROP TABLESPACE IF EXISTS {name}")],
    ) {
        failed.push(e);
    }
    if mounted(&dir) {
        match Command::new("umount").arg(&dir).output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => failed.push(format!("umount {}: {}", dir.display(), text(&o))),
            Err(e) => failed.push(format!("umount {}: {e}", dir.display())),
        }
    }
    if dir.exists()
        && let Err(e) = std::fs::remove_dir(&dir)
    {
        failed.push(format!("rmdir {}: {e}", dir.display()));
    }
    failed
}

/// Remove what earlier runs that died left: tmpfs mounts, databases and tablespaces
/// whose process has ended.
fn remove_leftovers(base: &str) {
    let mut pids: Vec<u32> = Vec::new();
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
    for l in mounts.lines() {
        if let Some(p) = l.split_whitespace().nth(1).and_then(|d| d.strip_prefix(MOUNT_PREFIX)) {
            pids.extend(p.parse::<u32>().ok());
        }
    }
    for e in std::fs::read_dir("/mnt").into_iter().flatten().flatten() {
        let path = e.path().to_string_lossy().into_owned();
        pids.extend(path.strip_prefix(MOUNT_PREFIX).and_then(|p| p.parse::<u32>().ok()));
    }
    let names = column(
        base,
        "SELECT CAST(datname AS TEXT) FROM pg_database WHERE starts_with(datname, 'attest_full_') \
         UNION SELECT CAST(spcname AS TEXT) FROM pg_tablespace WHERE starts_with(spcname, 'attest_full_')",
    );
    pids.extend(names.iter().filter_map(|n| n.strip_prefix(NAME_PREFIX)?.parse::<u32>().ok()));
    pids.sort_unstable();
    pids.dedup();
    for pid in pids.into_iter().filter(|p| !alive(*p)) {
        let failed = remove(base, pid);
        assert!(failed.is_empty(), "cannot remove what a dead run {pid} left: {}", failed.join("; "));
    }
}

/// This run's tmpfs, tablespace and database; all removed on drop.
struct Disk {
    base: String,
    dir: PathBuf,
    /// `ATTEST_DB` for the database on the tmpfs.
    url: String,
}

impl Disk {
    /// Mount the tmpfs and make the tablespace and database on it; panics with the
    /// reason when that cannot be done.
    fn new(base: &str) -> Disk {
        let pid = std::process::id();
        let name = format!("{NAME_PREFIX}{pid}");
        let dir = PathBuf::from(format!("{MOUNT_PREFIX}{pid}"));
        // The guard first, so that whatever part is made is removed.
        let disk = Disk { base: base.to_string(), dir: dir.clone(), url: database_url(base, &name) };
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("cannot make the mount point {}: {e}", dir.display()));
        let run = |args: &[&str]| {
            let o = Command::new(args[0]).args(&args[1..]).output();
            match o {
                Ok(o) if o.status.success() => {}
                Ok(o) => panic!(
                    "{} failed (the test needs root on the database server's host): {}",
                    args.join(" "),
                    text(&o)
                ),
                Err(e) => panic!("cannot run {}: {e}", args.join(" ")),
            }
        };
        let d = dir.to_str().unwrap();
        run(&["mount", "-t", "tmpfs", "-o", &format!("size={DISK},mode=0700"), "tmpfs", d]);
        // The server writes there as its own user.
        run(&["chown", "postgres:postgres", d]);
        exec(
            base,
            &[format!("CREATE TABLESPACE {name} LOCATION '{d}'"), format!("CREATE DATABASE {name} TABLESPACE {name}")],
        )
        .unwrap_or_else(|e| panic!("cannot make a tablespace and database on the tmpfs {d}: {e}"));
        disk
    }

    /// The bytes free on the tmpfs.
    fn free(&self) -> u64 {
        let path = std::ffi::CString::new(self.dir.to_str().unwrap()).unwrap();
        let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: a NUL-terminated path and a statvfs to fill.
        let rc = unsafe { libc::statvfs(path.as_ptr(), &mut s) };
        assert_eq!(rc, 0, "statvfs {}", self.dir.display());
        s.f_bavail as u64 * s.f_frsize as u64
    }
}

impl Drop for Disk {
    fn drop(&mut self) {
        let failed = remove(&self.base, std::process::id());
        if !failed.is_empty() && !std::thread::panicking() {
            panic!("cannot clean up the full-disk database: {}", failed.join("; "));
        }
        for f in failed {
            eprintln!("cleanup: {f}");
        }
    }
}

/// Every row of every table of the ledger, as JSON text without the [`common::BOOKKEEPING`]
/// columns, sorted: each table read in full.
fn rows(url: &str) -> BTreeMap<String, Vec<String>> {
    let tables = column(url, "SELECT CAST(tablename AS TEXT) FROM pg_tables WHERE schemaname = 'public' ORDER BY 1");
    let mut out = BTreeMap::new();
    for t in tables {
        let skip: Vec<&str> = common::BOOKKEEPING.iter().filter(|(table, _)| *table == t).map(|(_, c)| *c).collect();
        let skip = skip.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ");
        let mut all =
            column(url, &format!("SELECT CAST(to_jsonb(t) - CAST(ARRAY[{skip}] AS TEXT[]) AS TEXT) FROM \"{t}\" t"));
        all.sort();
        out.insert(t, all);
    }
    out
}

/// Each run's project, name, source hash and metrics digest, sorted: what a rescan keeps
/// (it stamps `scanned_at` again).
fn identities(url: &str) -> Vec<String> {
    let mut all = column(
        url,
        "SELECT project || '/' || name || '|' || quote_nullable(source_hash) || '|' || \
         quote_nullable(metrics_digest) FROM runs",
    );
    all.sort();
    all
}

/// What PostgreSQL itself says when a write does not fit: its SQLSTATE and message.
fn server_says(url: &str) -> (String, String) {
    block_on(async {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        let e = sqlx::raw_sql(
            "CREATE TABLE attest_full_probe AS SELECT repeat('x', 500) AS x FROM generate_series(1, 40000)",
        )
        .execute(&mut c)
        .await
        .expect_err("a table of 20 MB fitted in the headroom");
        c.close().await.unwrap();
        match e {
            sqlx::Error::Database(d) => (d.code().unwrap_or_default().into_owned(), d.message().to_string()),
            other => (String::new(), other.to_string()),
        }
    })
}

#[test]
fn postgres_a_full_disk_is_refused_in_words_and_loses_nothing() {
    let Some(base) = attest_store::scratch::base() else {
        eprintln!("skipped: ATTEST_TEST_POSTGRES is not set (it names a PostgreSQL test database on this host)");
        return;
    };
    remove_leftovers(&base);
    let disk = Disk::new(&base);
    let db = disk.url.as_str();
    let shown = attest_store::shown(Path::new(db));

    let root = example_workspace();
    let dir = tempfile::tempdir().unwrap();
    // The bulk project, outside the research root until the disk is full.
    let bulk = dir.path().join("bulk");
    common::write_bulk_project(&bulk, BULK_RUNS);
    let feed = dir.path().join("feed.xml");
    common::write_feed(&feed, FIRST_ITEMS);
    let feeds = dir.path().join("feeds.toml");
    std::fs::write(&feeds, format!("[[feeds]]\nurl = {:?}\ntitle = \"full\"\n", feed.display().to_string())).unwrap();

    let o = attest(&["runs", "scan"], db, Some(root.path()));
    assert!(o.status.success(), "first scan: {}", text(&o));
    let o = attest(&["ingest", "--feeds", feeds.to_str().unwrap()], db, None);
    assert!(o.status.success(), "first ingest: {}", text(&o));
    let before = rows(db);
    assert!(
        before["runs"].len() > 1 && before["items"].len() as u64 == FIRST_ITEMS,
        "the first scan and ingest stored"
    );
    let runs_before = identities(db);

    // More work waiting: a project of many runs, and the feed grown.
    std::fs::rename(&bulk, root.path().join("bulk")).unwrap();
    common::write_feed(&feed, FIRST_ITEMS + MORE_ITEMS);

    // Fill the tmpfs (a root's file beside the server's PG_15_* directory) to the last
    // byte but the headroom, then free the headroom.
    let headroom = disk.dir.join("headroom");
    std::fs::write(&headroom, vec![0u8; HEADROOM as usize]).unwrap();
    {
        use std::io::Write as _;
        let mut filler = std::fs::File::create(disk.dir.join("filler")).unwrap();
        let block = vec![0u8; 64 * 1024];
        loop {
            match filler.write_all(&block) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => panic!("writing the filler: {e}"),
            }
        }
    }
    assert_eq!(disk.free(), 0, "the filler left no byte free");
    std::fs::remove_file(&headroom).unwrap();
    assert!(disk.free() <= HEADROOM, "only the headroom is free: {}", disk.free());

    // Each command on the full disk: refused, in words naming the database and the fix.
    // What is wrong is gathered and told at the end, after the rows are checked.
    let words = format!("the database at {shown} could not be written because the server's disk is full");
    let scan = attest(&["runs", "scan"], db, Some(root.path()));
    let ingest = attest(&["ingest"], db, None);
    let mut wrong: Vec<String> = Vec::new();
    for (step, o) in [("scan", &scan), ("ingest", &ingest)] {
        let s = text(o);
        if o.status.success() {
            wrong.push(format!("the {step} succeeded on a full disk: {s}"));
        }
        if s.contains("panicked") {
            wrong.push(format!("the {step} panicked: {s}"));
        }
        if ["error returned from database", "(code: ", "could not extend file", "No space left on device"]
            .iter()
            .any(|t| s.contains(t))
        {
            wrong.push(format!("the {step} shows driver or server text: {s}"));
        }
        if !s.contains(&words) || !s.contains("ask its administrator to free space, then try again") {
            wrong.push(format!(
                "the {step} does not say, naming {shown}, that the server's disk is full and to ask its \
                 administrator to free space: {s}"
            ));
        }
    }
    eprintln!("a full disk, in words:\n{}\n{}", text(&scan), text(&ingest));

    // What PostgreSQL said: out of room extending a file (53100, which the store maps to
    // a full disk), not some other failure.
    let (state, message) = server_says(db);
    eprintln!("PostgreSQL, full: SQLSTATE {state}: {message}");
    assert_eq!(state, "53100", "{message}");
    assert!(message.contains("could not extend file") && message.contains("No space left on device"), "{message}");

    // Nothing stored before was lost or changed, and every table reads in full.
    let after = rows(db);
    for (table, was) in &before {
        let now = &after[table];
        let lost: Vec<&String> = was.iter().filter(|r| now.binary_search(r).is_err()).collect();
        assert!(lost.is_empty(), "{table}: {} rows lost or changed on the full disk: {lost:?}", lost.len());
    }

    // With space again, the same commands complete and everything is there.
    std::fs::remove_file(disk.dir.join("filler")).unwrap();
    let o = attest(&["runs", "scan"], db, Some(root.path()));
    assert!(o.status.success(), "the scan with space again: {}", text(&o));
    let o = attest(&["ingest"], db, None);
    assert!(o.status.success(), "the ingest with space again: {}", text(&o));
    let again = rows(db);
    assert_eq!(again["runs"].len() as u64, before["runs"].len() as u64 + BULK_RUNS);
    assert_eq!(again["items"].len() as u64, FIRST_ITEMS + MORE_ITEMS);
    // A rescan stamps each run's scanned_at again; its name, source and numbers (digest) stay.
    let now = identities(db);
    let lost: Vec<&String> = runs_before.iter().filter(|r| now.binary_search(r).is_err()).collect();
    assert!(lost.is_empty(), "runs stored before the full disk are not all there after the rerun: {lost:?}");
    let lost = before["items"].iter().filter(|r| again["items"].binary_search(r).is_err()).count();
    assert_eq!(lost, 0, "items stored before the full disk changed after the rerun");
    drop(disk);
    assert!(wrong.is_empty(), "on the full disk:\n{}", wrong.join("\n"));
}
