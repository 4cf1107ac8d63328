//! The CLI and the servers against PostgreSQL, when `ATTEST_TEST_POSTGRES` names a test
//! database (CI: `postgres://root@127.0.0.1:5432/test`): the real binaries with
//! `ATTEST_DB=postgres://…`, each test in a fresh schema that is dropped after.
//! Without the variable these tests pass without doing anything.

mod common;
use common::{attest, repo, text};

/// A fresh schema of the test database, and a guard that drops it.
struct Schema {
    base: String,
    url: String,
}

impl Schema {
    fn new() -> Option<Schema> {
        let base = attest_store::scratch::base()?;
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let url = rt.block_on(attest_store::scratch::fresh(&base)).unwrap();
        Some(Schema { base, url })
    }
}

impl Drop for Schema {
    fn drop(&mut self) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let _ = rt.block_on(attest_store::scratch::drop_schema(&self.base, &self.url));
    }
}

/// Scan, compare, subscribe, ingest, list and search with the ledger and the archive
/// on PostgreSQL; a scan run twice stays one set of rows.
#[test]
fn the_cli_keeps_its_ledger_and_archive_on_postgres() {
    let Some(pg) = Schema::new() else { return };
    let ws = repo().join("examples/workspace");
    let o = attest(&["runs", "scan"], &pg.url, Some(&ws));
    assert!(o.status.success(), "{}", text(&o));
    let first = text(&o);
    let o = attest(&["runs", "scan"], &pg.url, Some(&ws));
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(text(&o).lines().next(), first.lines().next(), "a rescan finds the same runs");
    let o = attest(&["runs", "compare", "kdalpha"], &pg.url, Some(&ws));
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("kdalpha"), "{}", text(&o));

    let feed = attest_testkit::feeds::path("synthesis-letters.rss");
    let o = attest(&["feed", "add", &feed], &pg.url, None);
    assert!(o.status.success(), "{}", text(&o));
    let o = attest(&["ingest"], &pg.url, None);
    assert!(o.status.success(), "{}", text(&o));
    let o = attest(&["feed", "personas", "create", "ana", "catalysis"], &pg.url, None);
    assert!(o.status.success(), "{}", text(&o));
    let o = attest(&["feed", "search", "catalysis", "--user", "ana", "--json"], &pg.url, None);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("\"ok\":true") || text(&o).contains("\"ok\": true"), "{}", text(&o));
    // The password never appears, and backup says to use pg_dump.
    let o = attest(&["backup", "/nonexistent/copy.db"], &pg.url, None);
    assert!(!o.status.success());
    assert!(text(&o).contains("pg_dump"), "{}", text(&o));
}

/// `attest migrate --to postgres://…` copies a SQLite ledger, verifies the counts,
/// refuses a target holding data, and replaces it when asked; the copy answers as
/// the file did.
#[test]
fn migrate_copies_a_sqlite_ledger_to_postgres() {
    let Some(pg) = Schema::new() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("a.db");
    let db = db.to_str().unwrap();
    let ws = repo().join("examples/workspace");
    assert!(attest(&["runs", "scan"], db, Some(&ws)).status.success());
    let feed = attest_testkit::feeds::path("arxiv-cs.rss");
    assert!(attest(&["feed", "add", &feed], db, None).status.success());
    assert!(attest(&["ingest"], db, None).status.success());
    let o = attest(&["migrate", "--to", &pg.url, "--json"], db, None);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert!(v["tables"]["runs"].as_u64().unwrap() > 0 && v["tables"]["items"].as_u64().unwrap() > 0, "{v}");
    assert!(!v["to"].as_str().unwrap().contains("search_path"), "{v}");
    // A second copy into the same target is refused; --replace copies again.
    let o = attest(&["migrate", "--to", &pg.url], db, None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("already holds data"), "{}", text(&o));
    let o = attest(&["migrate", "--to", &pg.url, "--replace"], db, None);
    assert!(o.status.success(), "{}", text(&o));
    // The copy answers as the file does.
    let from_file = attest(&["runs", "compare", "kdalpha", "--json"], db, Some(&ws));
    let from_pg = attest(&["runs", "compare", "kdalpha", "--json"], &pg.url, Some(&ws));
    assert!(from_pg.status.success(), "{}", text(&from_pg));
    assert_eq!(String::from_utf8_lossy(&from_file.stdout), String::from_utf8_lossy(&from_pg.stdout));
}

/// Each surface binary serves from PostgreSQL: the provenance server lists its runs.
#[test]
fn a_surface_binary_serves_from_postgres() {
    let Some(pg) = Schema::new() else { return };
    let ws = repo().join("examples/workspace");
    assert!(attest(&["runs", "scan"], &pg.url, Some(&ws)).status.success());
    let o = attest(&["doctor"], &pg.url, Some(&ws));
    assert!(text(&o).contains("PostgreSQL, schema"), "{}", text(&o));
    assert!(!text(&o).contains("search_path"), "{}", text(&o));
}
