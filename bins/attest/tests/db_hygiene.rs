//! Database hygiene through the real binary: `attest restore` checks what it restores
//! (a file that is not a database, a backup from a newer attest, a good backup), and a
//! read-only database is read, with writes refused in words naming the file and the fix.

mod common;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::{attest, text};

fn workspace() -> tempfile::TempDir {
    common::example_workspace()
}

fn run_count(db: &Path, root: &Path) -> usize {
    let o = attest(&["runs", "list", "--json", "--limit", "100000"], db, Some(root));
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["data"]["runs"].as_array().map(Vec::len).or_else(|| v["data"]["total"].as_u64().map(|n| n as usize)).unwrap_or(0)
}

#[test]
fn restore_checks_what_it_restores_and_saves_what_it_replaces() {
    let root = workspace();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    let o = attest(&["runs", "scan"], &db, Some(root.path()));
    assert!(o.status.success(), "{}", text(&o));
    let backup = dir.path().join("backup.db");
    let o = attest(&["backup", backup.to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    let at_backup = run_count(&db, root.path());
    assert!(at_backup > 0);
    // More runs after the backup.
    let res = root.path().join("asr-distill/results");
    std::fs::create_dir_all(&res).unwrap();
    std::fs::write(res.join("late_arm1.json"), r#"{"wer": 0.2}"#).unwrap();
    let o = attest(&["runs", "scan"], &db, Some(root.path()));
    assert!(o.status.success(), "{}", text(&o));
    let after = run_count(&db, root.path());
    assert!(after > at_backup, "{after} vs {at_backup}");

    // Not a database: refused, exit 1, nothing changed.
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, vec![b'x'; 8192]).unwrap();
    let o = attest(&["restore", junk.to_str().unwrap()], &db, None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("is not a SQLite database") && text(&o).contains("nothing was restored"), "{}", text(&o));
    // A backup from a newer attest: refused, exit 1, nothing changed.
    let newer = dir.path().join("newer.db");
    std::fs::copy(&backup, &newer).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let s = attest_store::Store::open(&newer).await.unwrap();
        sqlx::query("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99999, 'future', 1, x'00', 0)")
            .execute(s.pool())
            .await
            .unwrap();
        s.close().await;
    });
    let o = attest(&["restore", newer.to_str().unwrap()], &db, None);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("newer attest (schema version 99999"), "{}", text(&o));
    // A missing file is a usage error.
    let o = attest(&["restore", dir.path().join("nope.db").to_str().unwrap()], &db, None);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert_eq!(run_count(&db, root.path()), after, "a refused restore changed the database");

    // The good backup: checked, counted, the current database saved, then replaced.
    let o = attest(&["restore", "--json", backup.to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ok"], true);
    assert_eq!(v["tables"]["runs"].as_u64(), Some(at_backup as u64), "{v}");
    assert_eq!(v["schema_version"].as_i64(), Some(attest_store::known_version()));
    let saved = v["saved"].as_str().unwrap().to_string();
    assert_eq!(run_count(&db, root.path()), at_backup);
    assert_eq!(run_count(Path::new(&saved), root.path()), after, "the replaced database was not saved whole");
    // In words, with the row counts.
    let o = attest(&["restore", Path::new(&saved).to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(said.contains("integrity check is ok") && said.contains("runs") && said.contains("was saved to"), "{said}");
    assert_eq!(run_count(&db, root.path()), after);
}

/// A database in a read-only place is read; a write is refused naming the file and the
/// fix. Run as root (CI), the kernel would let attest write: the refusal comes from
/// attest reading the permission bits and opening with SQLite's `mode=ro`, which is
/// what this test checks (that a non-root user is stopped by the kernel is not).
#[test]
fn a_read_only_database_is_read_and_writes_are_refused_in_words() {
    let root = workspace();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    let o = attest(&["runs", "scan"], &db, Some(root.path()));
    assert!(o.status.success(), "{}", text(&o));
    let n = run_count(&db, root.path());
    // A clean copy (no write-ahead log) in a directory that is then made read-only.
    let ro = dir.path().join("shelf");
    std::fs::create_dir(&ro).unwrap();
    let copy = ro.join("attest.db");
    let o = attest(&["backup", copy.to_str().unwrap()], &db, None);
    assert!(o.status.success(), "{}", text(&o));
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();

    for (what, path) in [("read-only directory", &copy), ("read-only file", &db)] {
        assert_eq!(run_count(path, root.path()), n, "{what}: reads work");
        let o = attest(&["runs", "compare", "kdalpha", "--json"], path, Some(root.path()));
        assert!(!text(&o).contains("cannot be written"), "{what}: {}", text(&o));
        let o = attest(&["runs", "scan"], path, Some(root.path()));
        assert!(!o.status.success(), "{what}: a scan wrote to a read-only database: {}", text(&o));
        let said = text(&o);
        assert!(
            said.contains(&path.display().to_string()) && said.contains("read-only") && said.contains("writable"),
            "{what}: {said}"
        );
        assert!(!said.contains("error returned from database"), "{what}: driver text: {said}");
    }
    let names: Vec<_> = std::fs::read_dir(&ro).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 1, "nothing is created in the read-only directory: {names:?}");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}
