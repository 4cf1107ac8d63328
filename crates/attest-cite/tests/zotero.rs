//! The Zotero reader against a small library built in the test. What could not be read
//! is checked by snapshots of the whole message, the temporary directory written `[root]`.

mod common;

use attest_cite::Source;
use attest_cite::zotero;

#[tokio::test]
async fn reads_items_with_keys_authors_and_ids_and_leaves_out_trash_and_attachments() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("zotero.sqlite");
    common::make_zotero(&db).await;
    let lib = zotero::read(&db, "zotero.sqlite").await;
    assert_eq!(lib.problems, Vec::<String>::new());
    let keys: Vec<&str> = lib.references.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["hinton2015distilling", "hu2021lora", "EEEE5555"]);

    let h = &lib.references[0];
    assert_eq!(h.title, "Distilling the Knowledge in a Neural Network");
    assert_eq!(h.authors, ["Hinton, Geoffrey", "Vinyals, Oriol", "Dean, Jeff"], "in orderIndex order");
    assert_eq!(h.year, Some(2015));
    assert_eq!(h.doi.as_deref(), Some("10.48550/arXiv.1503.02531"));
    assert_eq!(h.source, Source::Zotero);

    let l = &lib.references[1];
    assert_eq!(l.key, "hu2021lora", "key pinned in Extra");
    assert_eq!(l.arxiv_id.as_deref(), Some("2106.09685"));
    assert_eq!(l.authors, ["Hu, Edward J.", "OpenAI"], "single-field names stay whole");

    let s = &lib.references[2];
    assert_eq!(s.year, Some(2014), "a year stored as a number");
    assert!(s.authors.is_empty());
}

#[tokio::test]
async fn the_library_is_not_modified_by_reading() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("zotero.sqlite");
    common::make_zotero(&db).await;
    let before = std::fs::read(&db).unwrap();
    let _ = zotero::read(&db, "zotero.sqlite").await;
    assert_eq!(std::fs::read(&db).unwrap(), before);
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["zotero.sqlite"], "no journal or WAL file left behind");
}

#[tokio::test]
async fn an_unreadable_library_gives_no_records_and_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    // Not a database at all.
    let junk = dir.path().join("junk.sqlite");
    std::fs::write(&junk, b"this is not sqlite").unwrap();
    let lib = zotero::read(&junk, "junk.sqlite").await;
    let root = dir.path().display().to_string();
    let problems =
        |lib: &zotero::Library| -> Vec<String> { lib.problems.iter().map(|p| p.replace(&root, "[root]")).collect() };
    assert!(lib.references.is_empty());
    insta::assert_json_snapshot!("not_a_database", problems(&lib));

    // A database of some other program.
    let other = dir.path().join("other.sqlite");
    {
        use sqlx::Connection;
        let opts = sqlx::sqlite::SqliteConnectOptions::new().filename(&other).create_if_missing(true);
        let mut c = sqlx::SqliteConnection::connect_with(&opts).await.unwrap();
        sqlx::query("CREATE TABLE items (id INTEGER)").execute(&mut c).await.unwrap();
        c.close().await.unwrap();
    }
    let lib = zotero::read(&other, "other.sqlite").await;
    assert!(lib.references.is_empty());
    insta::assert_json_snapshot!("another_programs_database", problems(&lib));

    // Missing file.
    let lib = zotero::read(&dir.path().join("nope.sqlite"), "nope.sqlite").await;
    assert!(lib.references.is_empty());
    insta::assert_json_snapshot!("missing_file", problems(&lib));
}
