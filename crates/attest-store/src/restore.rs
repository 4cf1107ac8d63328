//! `attest restore FILE`: put a backup back in place of the database, only after
//! checking it.
//!
//! The file is opened read-only and checked first: it must be a SQLite database
//! (`PRAGMA integrity_check` is `ok`), hold attest's schema, and be no newer than this
//! attest. A clean copy of it (`VACUUM INTO`, which also reads a write-ahead log beside
//! it) is made next to the database, brought up to this attest's schema, and its rows
//! counted. Only then is the current database saved (a consistent copy when it opens,
//! its bytes when it is too damaged to) and replaced by the checked copy in one
//! `rename`, so a crash leaves either the old database or the restored one, never a
//! mixture. Any refusal leaves the database as it was.

use std::path::{Path, PathBuf};

use sqlx::Row;
use sqlx::any::{AnyConnectOptions, AnyPoolOptions};

use crate::{Dialect, Store, StoreError, TABLES, Target, known_version};

/// What a checked backup holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// Its schema version, as found (before it is brought up to this attest's).
    pub version: i64,
    /// Rows per table (in [`TABLES`] order), once brought up to this attest's schema.
    pub tables: Vec<(String, i64)>,
}

impl Checked {
    /// Rows in all.
    pub fn total(&self) -> i64 {
        self.tables.iter().map(|(_, n)| n).sum()
    }
}

/// What a restore did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restored {
    /// What the restored file holds.
    pub checked: Checked,
    /// Where the database it replaced was saved (`None` when there was none).
    pub saved: Option<PathBuf>,
    /// Whether the replaced database was too damaged to copy consistently, so its bytes
    /// were saved as they were.
    pub saved_raw: bool,
}

/// Why nothing was restored. Every message names the file and says what to do; the
/// database was left as it was.
#[derive(Debug, thiserror::Error)]
pub enum RestoreError {
    /// No such file.
    #[error("there is no file at {}; nothing was restored. Name a backup written by attest backup", .0.display())]
    Missing(PathBuf),
    /// The file to restore is the database itself.
    #[error("{} is the database itself; nothing was restored. Name a backup, a copy written by attest backup", .0.display())]
    Same(PathBuf),
    /// The database is a server.
    #[error(
        "the database at {} is a PostgreSQL server, which attest does not restore itself: use pg_restore (e.g. pg_restore --clean --dbname=DATABASE attest.dump) on a dump written by pg_dump; nothing was changed", .0.display()
    )]
    Server(PathBuf),
    /// Not a SQLite database at all, or unreadable.
    #[error("{} is not a SQLite database attest can read ({why}); nothing was restored. Name a backup written by attest backup", file.display())]
    NotDatabase {
        /// The file.
        file: PathBuf,
        /// What SQLite said, in words.
        why: String,
    },
    /// SQLite's integrity check failed.
    #[error("{} is damaged: SQLite's integrity check reports {first}; nothing was restored. Restore another backup", file.display())]
    Damaged {
        /// The file.
        file: PathBuf,
        /// The first problem reported.
        first: String,
    },
    /// A SQLite database without attest's schema.
    #[error("{} is a SQLite database but not an attest one (it holds no attest schema); nothing was restored. Name a backup written by attest backup", .0.display())]
    NotAttest(PathBuf),
    /// Written by a newer attest.
    #[error(
        "{} was written by a newer attest (schema version {found}; this attest knows up to {known}); nothing was restored. Upgrade attest, then restore it", file.display()
    )]
    TooNew {
        /// The file.
        file: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this attest knows.
        known: i64,
    },
    /// Another process has the database open.
    #[error(
        "the database at {} is open in another process (an attest server, attest web, a scan or an ingest): stop it, then run attest restore again; nothing was restored (replacing a database under a running process would mix its write-ahead log {} into the restored file)", db.display(), wal.display()
    )]
    InUse {
        /// The database.
        db: PathBuf,
        /// Its write-ahead log.
        wal: PathBuf,
    },
    /// A file operation failed.
    #[error("cannot {what} {}: {cause}; the database was left as it was", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// On which file.
        path: PathBuf,
        /// Why.
        cause: std::io::Error,
    },
    /// Opening or copying failed in a way the store words.
    #[error("{0}")]
    Store(#[from] StoreError),
}

fn io(what: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> RestoreError {
    let path = path.to_path_buf();
    move |cause| RestoreError::Io { what, path, cause }
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", path.display()))
}

/// Remove a SQLite file and what SQLite keeps beside it.
fn remove_db(path: &Path) {
    for p in [path.to_path_buf(), sibling(path, "-wal"), sibling(path, "-shm"), sibling(path, "-journal")] {
        let _ = std::fs::remove_file(p);
    }
}

/// A refusal in words for a SQLite error met while reading the file to restore.
fn unreadable(file: &Path, e: &sqlx::Error) -> RestoreError {
    let why = match crate::Trouble::of(e) {
        Some(crate::Trouble::Damaged) => "SQLite says it is not a database, or is damaged".to_string(),
        Some(crate::Trouble::CannotOpen) => "it cannot be opened".to_string(),
        Some(crate::Trouble::Busy) => "another process holds it locked".to_string(),
        _ => "SQLite could not read it".to_string(),
    };
    RestoreError::NotDatabase { file: file.to_path_buf(), why }
}

/// Check `file` as a backup of an attest database, writing a checked copy, brought up to
/// this attest's schema, to `copy` (which must not exist). The file itself is only read.
pub async fn check_into(file: &Path, copy: &Path) -> Result<Checked, RestoreError> {
    sqlx::any::install_default_drivers();
    if !file.is_file() {
        return Err(RestoreError::Missing(file.to_path_buf()));
    }
    let opts: AnyConnectOptions =
        crate::read_only_url(file)?.parse().map_err(|cause| StoreError::Open { path: file.to_path_buf(), cause })?;
    let pool = AnyPoolOptions::new().max_connections(1).connect_with(opts).await.map_err(|e| unreadable(file, &e))?;
    let checked = async {
        let rows = sqlx::query("PRAGMA integrity_check").fetch_all(&pool).await.map_err(|e| unreadable(file, &e))?;
        let first: String = rows.first().map(|r| r.get(0)).unwrap_or_else(|| "nothing".into());
        if first != "ok" {
            return Err(RestoreError::Damaged { file: file.to_path_buf(), first });
        }
        let version = crate::applied_version(&pool, Dialect::Sqlite).await.map_err(|e| match e {
            StoreError::Sql(e) => unreadable(file, &e),
            other => other.into(),
        })?;
        if version == 0 {
            return Err(RestoreError::NotAttest(file.to_path_buf()));
        }
        let known = known_version();
        if version > known {
            return Err(RestoreError::TooNew { file: file.to_path_buf(), found: version, known });
        }
        sqlx::query("VACUUM INTO $1")
            .bind(copy.to_string_lossy().into_owned())
            .execute(&pool)
            .await
            .map_err(|e| unreadable(file, &e))?;
        Ok(version)
    }
    .await;
    pool.close().await;
    let version = checked?;
    // Bring the copy up to this attest's schema and count what it holds.
    let store = Store::open(copy).await?;
    let mut tables = Vec::with_capacity(TABLES.len());
    for t in TABLES {
        let n: i64 = sqlx::query(&format!("SELECT count(*) FROM {t}"))
            .fetch_one(store.pool())
            .await
            .map_err(StoreError::Sql)?
            .get(0);
        tables.push((t.to_string(), n));
    }
    // Everything the migrations wrote goes into the file itself, so the copy is whole
    // on its own when it is moved into place, even if a pooled connection is still
    // closing; that connection's log is then empty, and is removed here.
    sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(store.pool()).await.map_err(StoreError::Sql)?;
    store.close().await;
    let wal = sibling(copy, "-wal");
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() == 0) {
        let _ = std::fs::remove_file(&wal);
        let _ = std::fs::remove_file(sibling(copy, "-shm"));
    }
    Ok(Checked { version, tables })
}

/// Restore `file` as the database `setting` names (see the module's documentation).
pub async fn restore(setting: &Path, file: &Path) -> Result<Restored, RestoreError> {
    let db = match Target::parse(setting)? {
        Target::Postgres(_) => return Err(RestoreError::Server(Target::parse(setting)?.shown())),
        Target::File(p) => p,
    };
    if !file.is_file() {
        return Err(RestoreError::Missing(file.to_path_buf()));
    }
    if db.exists() && same_file(&db, file) {
        return Err(RestoreError::Same(file.to_path_buf()));
    }
    let dir = crate::dir_of(&db);
    std::fs::create_dir_all(&dir).map_err(io("create the directory", &dir))?;
    let name = db.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "attest.db".into());
    let copy = dir.join(format!(".{name}.restoring-{}", std::process::id()));
    remove_db(&copy);
    let checked = match check_into(file, &copy).await {
        Ok(c) => c,
        Err(e) => {
            remove_db(&copy);
            return Err(e);
        }
    };
    let done = replace(&db, &copy).await;
    if done.is_err() {
        remove_db(&copy);
    }
    let (saved, saved_raw) = done?;
    Ok(Restored { checked, saved, saved_raw })
}

/// Save the current database, then move `copy` over it.
async fn replace(db: &Path, copy: &Path) -> Result<(Option<PathBuf>, bool), RestoreError> {
    let wal = sibling(db, "-wal");
    if in_use_elsewhere(db) {
        return Err(RestoreError::InUse { db: db.to_path_buf(), wal });
    }
    let mut saved = None;
    let mut raw = false;
    if db.exists() {
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let mut dest = sibling(db, &format!(".before-restore-{secs}"));
        let mut k = 1;
        while dest.exists() {
            k += 1;
            dest = sibling(db, &format!(".before-restore-{secs}-{k}"));
        }
        if save_consistent(db, &dest).await.is_err() {
            // Too damaged to read through SQLite: keep its bytes (and its log's).
            remove_db(&dest);
            std::fs::copy(db, &dest).map_err(io("save the current database to", &dest))?;
            if wal.exists() {
                let _ = std::fs::copy(&wal, sibling(&dest, "-wal"));
            }
            raw = true;
        }
        saved = Some(dest);
    }
    // The log now holds nothing the database needs (checkpointed above, or saved with
    // the raw copy); left beside the restored file it would be read as its own.
    for p in [wal, sibling(db, "-shm")] {
        let _ = std::fs::remove_file(p);
    }
    std::fs::rename(copy, db).map_err(io("move the checked copy over", db))?;
    Ok((saved, raw))
}

/// Copy the database as it is (its log checkpointed in) to `dest`, on one connection
/// closed before returning, so nothing of this process holds the file afterwards.
async fn save_consistent(db: &Path, dest: &Path) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let opts: AnyConnectOptions =
        crate::sqlite_url(db, "rw").map_err(|e| sqlx::Error::Configuration(e.into()))?.parse()?;
    let mut conn = sqlx::AnyConnection::connect_with(&opts).await?;
    let done = async {
        sqlx::query("PRAGMA busy_timeout = 5000").execute(&mut conn).await?;
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut conn).await?;
        sqlx::query("VACUUM INTO $1").bind(dest.to_string_lossy().into_owned()).execute(&mut conn).await?;
        Ok::<_, sqlx::Error>(())
    }
    .await;
    conn.close().await?;
    done
}

/// Whether another process has the SQLite database open: it holds one of SQLite's
/// locks on the file (rollback journal) or on its shared-memory index (write-ahead
/// log). POSIX locks are per process, so this process's own connections never count.
#[cfg(unix)]
fn in_use_elsewhere(db: &Path) -> bool {
    use std::os::fd::AsRawFd;
    // SQLite's lock bytes: the database file's from 1 GiB (pending, reserved, shared);
    // the -shm file's from byte 120 (the log's locks and the "dead man switch", 128).
    let held = |path: &Path, start: i64, len: i64| -> bool {
        let Ok(f) = std::fs::OpenOptions::new().read(true).open(path) else { return false };
        // SAFETY: a zeroed flock is a valid value; F_GETLK only reads and writes it.
        let mut lock: libc::flock = unsafe { std::mem::zeroed() };
        lock.l_type = libc::F_WRLCK as _;
        lock.l_whence = libc::SEEK_SET as _;
        lock.l_start = start as _;
        lock.l_len = len as _;
        // SAFETY: a valid open descriptor and a pointer to a live flock.
        let r = unsafe { libc::fcntl(f.as_raw_fd(), libc::F_GETLK, &mut lock) };
        r == 0 && i32::from(lock.l_type) != libc::F_UNLCK
    };
    held(db, 0x4000_0000, 512 + 2) || held(&sibling(db, "-shm"), 120, 9)
}

#[cfg(not(unix))]
fn in_use_elsewhere(_db: &Path) -> bool {
    false
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn filled(path: &Path, corpus: &str) {
        let s = Store::open(path).await.unwrap();
        sqlx::query("INSERT INTO corpora (name) VALUES ($1)").bind(corpus).execute(s.pool()).await.unwrap();
        s.close().await;
    }

    async fn corpora(path: &Path) -> Vec<String> {
        let s = Store::open(path).await.unwrap();
        let v = sqlx::query_scalar("SELECT name FROM corpora ORDER BY name").fetch_all(s.pool()).await.unwrap();
        s.close().await;
        v
    }

    /// A backup is checked, counted, put in place atomically, and the database it
    /// replaced is saved first.
    #[tokio::test]
    async fn a_good_backup_replaces_the_database_and_the_old_one_is_saved() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("attest.db");
        filled(&db, "old").await;
        let s = Store::open(&db).await.unwrap();
        let backup = dir.path().join("backup.db");
        s.backup(&backup).await.unwrap();
        sqlx::query("INSERT INTO corpora (name) VALUES ('after-backup')").execute(s.pool()).await.unwrap();
        s.close().await;

        let r = restore(&db, &backup).await.unwrap();
        assert_eq!(r.checked.version, known_version());
        assert_eq!(r.checked.tables.len(), TABLES.len());
        assert_eq!(r.checked.tables.iter().find(|(t, _)| t == "corpora").unwrap().1, 1);
        assert!(!r.saved_raw);
        assert_eq!(corpora(&db).await, vec!["old"]);
        // What was there before is kept, whole.
        assert_eq!(corpora(r.saved.as_ref().unwrap()).await, vec!["after-backup", "old"]);
        // The backup itself is untouched, and no temporary copy is left behind.
        assert_eq!(corpora(&backup).await, vec!["old"]);
        let left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("restoring"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }

    /// Restoring into a place with no database yet just puts the checked copy there.
    #[tokio::test]
    async fn restoring_where_there_is_no_database_saves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let backup = dir.path().join("backup.db");
        filled(&backup, "c").await;
        let db = dir.path().join("new/attest.db");
        let r = restore(&db, &backup).await.unwrap();
        assert_eq!(r.saved, None);
        assert_eq!(corpora(&db).await, vec!["c"]);
    }

    /// Each refusal, in words, and the database unchanged after every one.
    #[tokio::test]
    async fn bad_files_are_refused_and_the_database_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("attest.db");
        filled(&db, "mine").await;
        let shown = |e: RestoreError| e.to_string().replace(&dir.path().display().to_string(), "<dir>");
        let mut out = Vec::new();

        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, vec![b'x'; 8192]).unwrap();
        let e = restore(&db, &junk).await.unwrap_err();
        assert!(matches!(e, RestoreError::NotDatabase { .. }), "{e}");
        out.push(format!("junk: {}", shown(e)));

        let e = restore(&db, &dir.path().join("nothing.db")).await.unwrap_err();
        assert!(matches!(e, RestoreError::Missing(_)), "{e}");
        out.push(format!("missing: {}", shown(e)));

        let e = restore(&db, &db).await.unwrap_err();
        assert!(matches!(e, RestoreError::Same(_)), "{e}");
        out.push(format!("same: {}", shown(e)));

        // A SQLite database that is not attest's.
        let other = dir.path().join("other.db");
        {
            let opts: AnyConnectOptions = crate::sqlite_url(&other, "rwc").unwrap().parse().unwrap();
            let pool = AnyPoolOptions::new().max_connections(1).connect_with(opts).await.unwrap();
            sqlx::query("CREATE TABLE t (x INTEGER)").execute(&pool).await.unwrap();
            pool.close().await;
        }
        let e = restore(&db, &other).await.unwrap_err();
        assert!(matches!(e, RestoreError::NotAttest(_)), "{e}");
        out.push(format!("not attest: {}", shown(e)));

        // A backup from a newer attest.
        let newer = dir.path().join("newer.db");
        let s = Store::open(&newer).await.unwrap();
        sqlx::query("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99999, 'future', 1, x'00', 0)")
            .execute(s.pool())
            .await
            .unwrap();
        s.close().await;
        let e = restore(&db, &newer).await.unwrap_err();
        assert!(matches!(e, RestoreError::TooNew { found: 99999, .. }), "{e}");
        out.push(format!("newer: {}", shown(e).replace(&format!("up to {}", known_version()), "up to <known>")));

        // A database file damaged inside: a page of an attest database overwritten.
        let damaged = dir.path().join("damaged.db");
        filled(&damaged, "x").await;
        {
            let s = Store::open(&damaged).await.unwrap();
            for i in 0..2000 {
                sqlx::query("INSERT INTO corpora (name) VALUES ($1)")
                    .bind(format!("c{i:05}"))
                    .execute(s.pool())
                    .await
                    .unwrap();
            }
            s.close().await;
            let mut bytes = std::fs::read(&damaged).unwrap();
            let page = 4096;
            assert!(bytes.len() > 6 * page);
            let n = bytes.len();
            for b in &mut bytes[n - 3 * page..n - page] {
                *b = 0x5a;
            }
            std::fs::write(&damaged, bytes).unwrap();
        }
        let e = restore(&db, &damaged).await.unwrap_err();
        assert!(matches!(e, RestoreError::Damaged { .. } | RestoreError::NotDatabase { .. }), "{e}");
        out.push(format!("damaged: {}", shown(e).split(" reports ").next().unwrap()));

        let e = restore(Path::new("postgres://me:secret@db.lab/attest"), &junk).await.unwrap_err();
        assert!(matches!(e, RestoreError::Server(_)), "{e}");
        assert!(!e.to_string().contains("secret"));
        out.push(format!("server: {}", shown(e)));

        assert_eq!(corpora(&db).await, vec!["mine"], "a refused restore changed the database");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("restor"))
            .collect();
        assert!(names.is_empty(), "a refused restore left {names:?}");
        insta::assert_snapshot!(out.join("\n\n"));
    }

    /// A database another process has open is not replaced under it; once that
    /// process has gone, it is. (The other process is Python's sqlite3, holding a read
    /// connection open as a server would.)
    #[tokio::test]
    async fn a_database_another_process_has_open_is_not_replaced() {
        use std::io::{BufRead, Write};
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("attest.db");
        filled(&db, "mine").await;
        let backup = dir.path().join("b.db");
        filled(&backup, "theirs").await;
        let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('SELECT count(*) FROM corpora').fetchall()\nprint('ready', flush=True)\nsys.stdin.read()\n";
        let Ok(mut other) = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&db)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
        else {
            panic!("this test needs python3 (its sqlite3 module) to hold the database open from another process");
        };
        let mut line = String::new();
        std::io::BufReader::new(other.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready");
        let e = restore(&db, &backup).await.unwrap_err();
        assert!(matches!(e, RestoreError::InUse { .. }), "{e}");
        assert_eq!(corpora(&db).await, vec!["mine"]);
        other.stdin.take().unwrap().write_all(b"").unwrap();
        assert!(other.wait().unwrap().success());
        let r = restore(&db, &backup).await.unwrap();
        assert!(r.saved.is_some());
        assert_eq!(corpora(&db).await, vec!["theirs"]);
    }
}
