//! A full disk, for real: the database lives on a small tmpfs mounted in a private mount
//! namespace (`unshare --mount`, plus `--user --map-root-user` when not root), so the
//! mount is seen by nothing outside the test and vanishes with it. The real `attest`
//! binary scans and ingests there, a filler file fills the disk, and then:
//!
//! - opening the database on a disk with no byte left, and a scan and an ingest that run
//!   out of room midway, each exit non-zero in words naming the database file and the fix
//!   (free space, or move the file and point `ATTEST_DB` at it), with no panic and no
//!   driver text;
//! - what was stored before is all there, and the file passes `PRAGMA integrity_check`;
//! - once the filler is deleted, the same scan and ingest complete.
//!
//! Everything on the tmpfs happens in one `sh` script inside the namespace; it copies
//! the database (with its log) out at three points, and leaves each command's output,
//! exit code and the disk's free space in files, which the test then reads and checks.
//! Where a mount namespace cannot be made or the tmpfs cannot be mounted, the test
//! fails and says why (CI runs as root, where both work).

mod common;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::{example_workspace, text};
use sqlx::Row as _;

/// The tmpfs's size, the room left for the failing commands, and the size of the
/// work that must not fit in that room but fits once the filler is gone.
const DISK: &str = "4m";
const HEADROOM: u64 = 96 * 1024;
const BULK_RUNS: u64 = 2000;
const FIRST_ITEMS: u64 = 20;
const MORE_ITEMS: u64 = 400;

/// The scenario, run by `sh` inside the private mount namespace.
const SCRIPT: &str = r#"
set -u
mount -t tmpfs -o size="$SIZE" tmpfs "$DISK" || { echo "cannot mount a tmpfs on $DISK (mount -t tmpfs failed inside the private mount namespace)" >&2; exit 97; }
export ATTEST_DB="$DISK/attest.db"
step() { name=$1; shift; "$@" >"$OUT/$name.out" 2>"$OUT/$name.err"; echo $? >"$OUT/$name.rc"; }
keep() { cp "$ATTEST_DB" "$OUT/$1.db"; if [ -e "$ATTEST_DB-wal" ]; then cp "$ATTEST_DB-wal" "$OUT/$1.db-wal"; fi; }
free() { stat -f -c '%a %S' "$DISK" >"$OUT/$1.free"; }

step first_scan "$ATTEST" runs scan
step first_ingest "$ATTEST" ingest --feeds "$FEEDS"
keep before

# More work waiting: a project of many runs, and the feed grown.
mv "$BULK" "$RESEARCH_ROOT/bulk"
mv "$FEED.more" "$FEED"

# No byte left: the filler takes all the disk but the headroom file.
head -c "$HEADROOM" /dev/zero >"$DISK/headroom" || exit 98
dd if=/dev/zero of="$DISK/filler" bs=4096 2>/dev/null # stops at "No space left", as meant
free open_full
step open_full "$ATTEST" runs scan

# The headroom freed: room to open the database, not to store the new work.
rm "$DISK/headroom"
free full
step full_scan "$ATTEST" runs scan
step full_ingest "$ATTEST" ingest
keep after_failure

# Space freed: the same commands again.
rm "$DISK/filler"
step again_scan "$ATTEST" runs scan
step again_ingest "$ATTEST" ingest
keep again
"#;

/// `unshare` with the options that give this process a private mount namespace in
/// which it may mount: as root, a mount namespace; otherwise a user namespace too.
fn unshare() -> Command {
    let uid = Command::new("id").arg("-u").output().expect("run id -u");
    let root = String::from_utf8_lossy(&uid.stdout).trim() == "0";
    let mut c = Command::new("unshare");
    if !root {
        c.args(["--user", "--map-root-user"]);
    }
    c.args(["--mount", "--propagation", "private"]);
    c
}

/// The first column of a query's rows, sorted.
fn texts(db: &Path, sql: &str) -> Vec<String> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(db);
        let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(opts).await.unwrap();
        let mut all: Vec<String> = sqlx::query_scalar(sql).fetch_all(&pool).await.unwrap();
        pool.close().await;
        all.sort();
        all
    })
}

/// Every row of every ordinary table, as text (`quote()` of each column but the
/// [`common::BOOKKEEPING`] ones), sorted; after checking the file's integrity.
fn rows(db: &Path) -> BTreeMap<String, Vec<String>> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(db);
        let pool = sqlx::sqlite::SqlitePoolOptions::new().max_connections(1).connect_with(opts).await.unwrap();
        let check: String = sqlx::query("PRAGMA integrity_check").fetch_one(&pool).await.unwrap().get(0);
        assert_eq!(check, "ok", "integrity_check of {}", db.display());
        let tables: Vec<String> = sqlx::query_scalar(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
             AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        let mut out = BTreeMap::new();
        for t in tables {
            let cols: Vec<String> =
                sqlx::query_scalar("SELECT name FROM pragma_table_info(?)").bind(&t).fetch_all(&pool).await.unwrap();
            let cols = cols.into_iter().filter(|c| !common::BOOKKEEPING.contains(&(t.as_str(), c.as_str())));
            let row = cols.map(|c| format!("quote(\"{c}\")")).collect::<Vec<_>>().join(" || '|' || ");
            let mut all: Vec<String> =
                sqlx::query_scalar(&format!("SELECT {row} FROM \"{t}\"")).fetch_all(&pool).await.unwrap();
            all.sort();
            out.insert(t, all);
        }
        pool.close().await;
        out
    })
}

#[test]
fn a_full_disk_is_refused_in_words_and_loses_nothing() {
    let root = example_workspace();
    let dir = tempfile::tempdir().unwrap();
    let (disk, out) = (dir.path().join("disk"), dir.path().join("out"));
    std::fs::create_dir(&disk).unwrap();
    std::fs::create_dir(&out).unwrap();
    // The bulk project, outside the research root until the disk is full.
    let bulk = dir.path().join("bulk");
    common::write_bulk_project(&bulk, BULK_RUNS);
    let feed = dir.path().join("feed.xml");
    common::write_feed(&feed, FIRST_ITEMS);
    common::write_feed(&dir.path().join("feed.xml.more"), FIRST_ITEMS + MORE_ITEMS);
    let feeds = dir.path().join("feeds.toml");
    std::fs::write(&feeds, format!("[[feeds]]\nurl = {:?}\ntitle = \"full\"\n", feed.display().to_string())).unwrap();

    let o = unshare()
        .args(["sh", "-c", SCRIPT])
        .env("ATTEST", env!("CARGO_BIN_EXE_attest"))
        .env("SIZE", DISK)
        .env("HEADROOM", HEADROOM.to_string())
        .env("DISK", &disk)
        .env("OUT", &out)
        .env("BULK", &bulk)
        .env("FEED", &feed)
        .env("FEEDS", &feeds)
        .env("RESEARCH_ROOT", root.path())
        .env_remove("ATTEST_METRIC_DIRECTIONS")
        .output()
        .unwrap_or_else(|e| panic!("cannot run unshare (util-linux) for a private mount namespace: {e}"));
    assert!(
        o.status.success(),
        "the full-disk scenario could not run: a private mount namespace with a tmpfs is needed \
         (run as root, or where unprivileged user namespaces are allowed); unshare/sh said: {}",
        text(&o)
    );
    let read = |name: &str| std::fs::read_to_string(out.join(name)).unwrap_or_default();
    let said = |step: &str| format!("{}{}", read(&format!("{step}.out")), read(&format!("{step}.err")));
    let code = |step: &str| read(&format!("{step}.rc")).trim().parse::<i32>().unwrap_or(-1);
    let free_bytes = |when: &str| {
        let f: Vec<u64> = read(&format!("{when}.free")).split_whitespace().map(|n| n.parse().unwrap()).collect();
        f[0] * f[1]
    };

    for step in ["first_scan", "first_ingest"] {
        assert_eq!(code(step), 0, "{step}: {}", said(step));
    }
    assert_eq!(free_bytes("open_full"), 0, "the filler left no byte free");
    assert!(free_bytes("full") <= HEADROOM, "only the headroom is free: {}", free_bytes("full"));

    // Each command on the full disk: refused, in words naming the file and the fix.
    let db = disk.join("attest.db");
    let words = format!("the database at {} could not be written because the disk is full", db.display());
    for step in ["open_full", "full_scan", "full_ingest"] {
        let s = said(step);
        assert_ne!(code(step), 0, "{step} succeeded on a full disk: {s}");
        assert!(!s.contains("panicked"), "{step} panicked: {s}");
        assert!(!s.contains("error returned from database") && !s.contains("(code: "), "{step}: driver text: {s}");
        // The ingest's lines come from the feed crate, which does not know the file.
        let whose = if step == "full_ingest" { "disk is full" } else { words.as_str() };
        assert!(s.contains(whose), "{step}: {s}");
        assert!(s.contains("free some space") && s.contains("point ATTEST_DB (or --db) at it"), "{step}: {s}");
    }
    let full_scan = said("full_scan");
    eprintln!("a full disk, in words:\n{full_scan}\n{}", said("full_ingest"));

    // Nothing stored before was lost, and the file is whole.
    let before = rows(&out.join("before.db"));
    let after = rows(&out.join("after_failure.db"));
    assert!(
        before["runs"].len() > 1 && before["items"].len() as u64 == FIRST_ITEMS,
        "the first scan and ingest stored"
    );
    for (table, was) in &before {
        let now = &after[table];
        let lost: Vec<&String> = was.iter().filter(|r| now.binary_search(r).is_err()).collect();
        assert!(lost.is_empty(), "{table}: {} rows lost or changed on the full disk: {lost:?}", lost.len());
    }

    // With space again, the same commands complete and everything is there.
    for step in ["again_scan", "again_ingest"] {
        assert_eq!(code(step), 0, "{step}: {}", said(step));
    }
    let again = rows(&out.join("again.db"));
    assert_eq!(again["runs"].len() as u64, before["runs"].len() as u64 + BULK_RUNS);
    assert_eq!(again["items"].len() as u64, FIRST_ITEMS + MORE_ITEMS);
    // A rescan stamps each run's scanned_at again; its name, source and numbers (digest) stay.
    let runs = "SELECT project || '/' || name || '|' || quote(source_hash) || '|' || quote(metrics_digest) FROM runs";
    let (was, now) = (texts(&out.join("before.db"), runs), texts(&out.join("again.db"), runs));
    let lost: Vec<&String> = was.iter().filter(|r| now.binary_search(r).is_err()).collect();
    assert!(lost.is_empty(), "runs stored before the full disk are not all there after the rerun: {lost:?}");
    let lost = before["items"].iter().filter(|r| again["items"].binary_search(r).is_err()).count();
    assert_eq!(lost, 0, "items stored before the full disk changed after the rerun");
}
