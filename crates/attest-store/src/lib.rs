//! The attest database.
//!
//! One SQLite file (WAL, a busy timeout, foreign keys on) holding every domain's
//! tables, migrated by [`sqlx::migrate!`] from `migrations/`. A database written by a
//! newer attest is refused rather than silently misread.
//!
//! Domain crates write their own queries against [`Db`] through [`Store::pool`],
//! with `$N` placeholders and portable SQL (TEXT for JSON and times), so a PostgreSQL
//! backend can later replace the pool type here without touching them.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Pool, Row};

/// The database backend domain queries are written for.
pub type Db = sqlx::Sqlite;

/// A connection pool on the backend.
pub type DbPool = Pool<Db>;

static MIGRATOR: Migrator = sqlx::migrate!("./migrations");

/// Why the database could not be used. Every message is one sentence in words that
/// names the file and what to do ([`Trouble`]); no driver text is repeated in a chain.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file could not be opened or created.
    #[error("{}", open_words(path, cause))]
    Open {
        /// The database file.
        path: PathBuf,
        /// What went wrong (kept for the log; its words are in the message).
        cause: sqlx::Error,
    },
    /// The directory for the file could not be created.
    #[error("cannot create the directory for the database at {}: {cause}; create it, or point ATTEST_DB (or --db) at a file in a directory you can write to", path.display())]
    Dir {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        cause: std::io::Error,
    },
    /// The database setting is a URL of a server attest cannot use yet.
    #[error(
        "ATTEST_DB (or --db) is a {scheme}:// address, but this attest keeps its ledger in a SQLite file and cannot use a database server yet; nothing was created. Set ATTEST_DB to a file path (such as ~/.local/share/attest/attest.db), or unset it for the default"
    )]
    Url {
        /// The address's scheme (`postgres`), never the rest, which may hold a password.
        scheme: String,
    },
    /// The database was written by a newer attest.
    #[error(
        "the database at {} has schema version {found}, newer than this attest understands ({known}); upgrade attest, or pass --db to use another file", path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A migration failed.
    #[error("cannot bring the database at {} up to this attest's schema ({cause}); restore a backup (attest backup writes one) or point ATTEST_DB (or --db) at another file", path.display())]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        cause: sqlx::migrate::MigrateError,
    },
    /// A backup target already exists.
    #[error("refusing to overwrite {0}: choose a new file name for the backup")]
    BackupExists(PathBuf),
    /// Any other database error.
    #[error("{}", words(.0, None))]
    Sql(#[from] sqlx::Error),
}

fn open_words(path: &Path, cause: &sqlx::Error) -> String {
    match Trouble::of(cause) {
        Some(t) => t.explain(Some(path)),
        None => format!(
            "cannot open the database at {}{}; check that the file is an attest database and its directory is writable, or point ATTEST_DB (or --db) at another file",
            path.display(),
            code_of(cause).map(|c| format!(" (SQLite error {c})")).unwrap_or_default()
        ),
    }
}

/// A database failure a person can act on, told apart by SQLite's result code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    /// Another process held the write lock past the busy timeout: retrying helps.
    Busy,
    /// The file (or its directory, which holds the write-ahead log) is read-only.
    ReadOnly,
    /// The disk holding the file is full.
    Full,
    /// The file is damaged, or is not a SQLite database.
    Damaged,
    /// The file cannot be opened: a missing directory, or no permission.
    CannotOpen,
    /// The operating system failed a read or write.
    Io,
}

fn code_of(e: &sqlx::Error) -> Option<i64> {
    match e {
        sqlx::Error::Database(d) => d.code().and_then(|c| c.parse::<i64>().ok()),
        _ => None,
    }
}

impl Trouble {
    /// What kind of trouble an error is; `None` for an error no person can act on
    /// (a fault in attest itself, such as a malformed query).
    pub fn of(e: &sqlx::Error) -> Option<Trouble> {
        match e {
            sqlx::Error::PoolTimedOut => return Some(Trouble::Busy),
            sqlx::Error::Io(_) => return Some(Trouble::Io),
            _ => {}
        }
        // SQLite's primary result code is the low byte of the extended one.
        let by_code = match code_of(e).map(|c| c & 0xff) {
            Some(5 | 6) => Some(Trouble::Busy),
            Some(8) => Some(Trouble::ReadOnly),
            Some(13) => Some(Trouble::Full),
            Some(11 | 26) => Some(Trouble::Damaged),
            Some(3 | 14 | 23) => Some(Trouble::CannotOpen),
            Some(10) => Some(Trouble::Io),
            _ => None,
        };
        by_code.or_else(|| match e {
            sqlx::Error::Database(d) => {
                let m = d.message().to_ascii_lowercase();
                (m.contains("database is locked") || m.contains("database is busy")).then_some(Trouble::Busy)
            }
            _ => None,
        })
    }

    /// Whether the same call may succeed if tried again shortly.
    pub fn retry_helps(self) -> bool {
        self == Trouble::Busy
    }

    /// One sentence: what happened to which database file, and what to do.
    pub fn explain(self, db: Option<&Path>) -> String {
        let file = match db {
            Some(p) => format!("the database at {}", p.display()),
            None => "the database".to_string(),
        };
        match self {
            Trouble::Busy => format!(
                "{file} is busy: another attest process (a scan, an ingest, a server) is writing to it. Nothing was changed; try the same call again in a few seconds"
            ),
            Trouble::ReadOnly => format!(
                "{file} cannot be written: the file or its directory is read-only (SQLite writes its journal next to the file). Nothing was changed; make both writable, or point ATTEST_DB (or --db) at a copy in a writable directory"
            ),
            Trouble::Full => format!(
                "{file} could not be written because the disk is full. Nothing was changed; free some space and try again"
            ),
            Trouble::Damaged => format!(
                "{file} is damaged or is not an attest database. Restore a backup (attest backup writes one), or point ATTEST_DB (or --db) at another file; nothing was written to it"
            ),
            Trouble::CannotOpen => format!(
                "{file} cannot be opened: its directory is missing or not yours to read and write. Check the path and its permissions, or point ATTEST_DB (or --db) at another file"
            ),
            Trouble::Io => format!(
                "{file} could not be read or written (an input/output error from the disk). Check the disk, then try again; restore a backup (attest backup writes one) if it persists"
            ),
        }
    }
}

/// A database error in words: what happened and what to do, naming the file when
/// known. An error no person can act on says it is a fault in attest, with SQLite's
/// code, never the driver's text.
pub fn words(e: &sqlx::Error, db: Option<&Path>) -> String {
    match Trouble::of(e) {
        Some(t) => t.explain(db),
        None => format!(
            "{} failed a query{}: this is a fault in attest, not in your data; the server log has the detail",
            match db {
                Some(p) => format!("the database at {}", p.display()),
                None => "the database".to_string(),
            },
            code_of(e).map(|c| format!(" (SQLite error {c})")).unwrap_or_default()
        ),
    }
}

/// How a tool stops on a database error: the one mapping every domain uses. Trouble
/// a person can act on (busy, read-only, full, damaged, unopenable) is a refusal
/// (`ok: false`) in [`Trouble::explain`]'s words, with a retry hint when the database
/// was busy; anything else is an internal fault, logged under `context`.
pub fn stop(e: sqlx::Error, db: Option<&Path>, context: &'static str) -> attest_core::Stop {
    match Trouble::of(&e) {
        Some(t) => attest_core::Stop::refuse(t.explain(db)),
        None => attest_core::Stop::Fault(attest_core::Fault::new(context, e)),
    }
}

/// The scheme of a database setting that is a URL (`postgres://…` → `postgres`), which
/// a SQLite file path never is.
fn url_scheme(path: &Path) -> Option<String> {
    let s = path.to_str()?;
    let (scheme, _) = s.split_once("://")?;
    let ok = !scheme.is_empty()
        && scheme.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    ok.then(|| scheme.to_ascii_lowercase())
}

/// An open, migrated database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: DbPool,
    path: Option<PathBuf>,
}

/// The newest schema version this build knows.
pub fn known_version() -> i64 {
    MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0)
}

impl Store {
    /// Open (creating if needed) the database file at `path`, and migrate it.
    pub async fn open(path: &Path) -> Result<Store, StoreError> {
        // A server address is not a file name: never create a file named like one.
        if let Some(scheme) = url_scheme(path) {
            return Err(StoreError::Url { scheme });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| StoreError::Dir { path: path.into(), cause })?;
        }
        let opts = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true)
            // Up to 64 MiB of page cache per connection (allocated only as used): a scan
            // writing millions of metric rows in one transaction then spills far fewer
            // pages to the log (a first scan of the framework benchmark: 5.0 s → 4.1 s).
            .pragma("cache_size", "-65536");
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(|cause| StoreError::Open { path: path.into(), cause })?;
        Store::migrated(pool, Some(path.to_path_buf())).await
    }

    /// A private in-memory database, for tests and throwaway runs.
    pub async fn open_in_memory() -> Result<Store, StoreError> {
        let opts = SqliteConnectOptions::from_str("sqlite::memory:")?.foreign_keys(true);
        // One connection: each in-memory connection would otherwise be its own database.
        let pool = SqlitePoolOptions::new().max_connections(1).min_connections(1).connect_with(opts).await?;
        Store::migrated(pool, None).await
    }

    async fn migrated(pool: DbPool, path: Option<PathBuf>) -> Result<Store, StoreError> {
        let shown = path.clone().unwrap_or_else(|| PathBuf::from(":memory:"));
        let found = applied_version(&pool).await?;
        let known = known_version();
        if found > known {
            pool.close().await;
            return Err(StoreError::TooNew { path: shown, found, known });
        }
        MIGRATOR.run(&pool).await.map_err(|cause| StoreError::Migrate { path: shown, cause })?;
        Ok(Store { pool, path })
    }

    /// The pool domain queries run on.
    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// The database file, or `None` for an in-memory database.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version of this database.
    pub async fn version(&self) -> Result<i64, StoreError> {
        applied_version(&self.pool).await
    }

    /// Write a consistent single-file copy of the database to `dest`, which must not
    /// exist yet. Safe while other connections read and write.
    pub async fn backup(&self, dest: &Path) -> Result<(), StoreError> {
        if dest.exists() {
            return Err(StoreError::BackupExists(dest.into()));
        }
        if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| StoreError::Dir { path: dest.into(), cause })?;
        }
        sqlx::query("VACUUM INTO $1").bind(dest.to_string_lossy().into_owned()).execute(&self.pool).await?;
        Ok(())
    }

    /// Close every connection, checkpointing the write-ahead log.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

async fn applied_version(pool: &DbPool) -> Result<i64, StoreError> {
    let exists: i64 =
        sqlx::query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'")
            .fetch_one(pool)
            .await?
            .get(0);
    if exists == 0 {
        return Ok(0);
    }
    let v: Option<i64> =
        sqlx::query("SELECT max(version) FROM _sqlx_migrations WHERE success").fetch_one(pool).await?.get(0);
    Ok(v.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn opens_migrates_and_reopens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/attest.db");
        let s = Store::open(&path).await.unwrap();
        assert_eq!(s.version().await.unwrap(), known_version());
        sqlx::query("INSERT INTO runs (project, name, status, source_path, scanned_at) VALUES ($1, $2, $3, $4, $5)")
            .bind("p")
            .bind("r")
            .bind("recorded")
            .bind("/x")
            .bind("now")
            .execute(s.pool())
            .await
            .unwrap();
        s.close().await;
        let s = Store::open(&path).await.unwrap();
        let n: i64 = sqlx::query("SELECT count(*) FROM runs WHERE name = $1")
            .bind("r")
            .fetch_one(s.pool())
            .await
            .unwrap()
            .get(0);
        assert_eq!(n, 1);
    }

    #[tokio::test]
    async fn refuses_a_newer_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attest.db");
        let s = Store::open(&path).await.unwrap();
        sqlx::query("INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) VALUES (99999, 'future', 1, x'00', 0)")
            .execute(s.pool())
            .await
            .unwrap();
        s.close().await;
        let err = Store::open(&path).await.unwrap_err();
        assert!(matches!(err, StoreError::TooNew { found: 99999, .. }), "{err}");
        assert!(err.to_string().contains("upgrade attest"));
    }

    #[tokio::test]
    async fn backup_is_a_consistent_copy_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("a.db")).await.unwrap();
        sqlx::query("INSERT INTO corpora (name) VALUES ($1)").bind("c").execute(s.pool()).await.unwrap();
        let dest = dir.path().join("b.db");
        s.backup(&dest).await.unwrap();
        assert!(matches!(s.backup(&dest).await, Err(StoreError::BackupExists(_))));
        let b = Store::open(&dest).await.unwrap();
        let n: i64 = sqlx::query("SELECT count(*) FROM corpora").fetch_one(b.pool()).await.unwrap().get(0);
        assert_eq!(n, 1);
    }

    #[tokio::test]
    async fn a_server_address_is_refused_and_no_file_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let cwd_file = dir.path().join("postgres:");
        for url in ["postgres://me:secret@db.lab/attest", "postgresql://localhost/test", "sqlite://x.db"] {
            let err = Store::open(Path::new(url)).await.unwrap_err();
            assert!(matches!(err, StoreError::Url { .. }), "{url}: {err}");
            let text = err.to_string();
            assert!(!text.contains("secret") && !text.contains("db.lab"), "{text}");
            assert!(!Path::new("postgres:").exists() && !cwd_file.exists());
        }
        insta::assert_snapshot!(
            Store::open(Path::new("postgres://me:secret@db.lab/attest")).await.unwrap_err().to_string()
        );
        // A file path that merely contains a colon is still a file.
        assert!(url_scheme(Path::new("/data/run:1/attest.db")).is_none());
        assert!(url_scheme(Path::new("C:/attest.db")).is_none());
    }

    /// Each kind of trouble as a person reads it, from the error SQLite really gives.
    #[tokio::test]
    async fn database_errors_are_words_naming_the_file_and_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.db");
        let shown = |t: String| t.replace(&dir.path().display().to_string(), "<dir>");
        let mut out = Vec::new();

        // Busy: a second writer while the first holds the write lock.
        let s = Store::open(&path).await.unwrap();
        let mut holder = s.pool().begin().await.unwrap();
        sqlx::query("INSERT INTO corpora (name) VALUES ('held')").execute(&mut *holder).await.unwrap();
        let opts = SqliteConnectOptions::new().filename(&path).busy_timeout(Duration::from_millis(10));
        let mut other = sqlx::ConnectOptions::connect(&opts).await.unwrap();
        let busy = sqlx::query("INSERT INTO corpora (name) VALUES ('second')").execute(&mut other).await.unwrap_err();
        assert_eq!(Trouble::of(&busy), Some(Trouble::Busy));
        assert!(Trouble::Busy.retry_helps());
        out.push(format!("busy: {}", shown(words(&busy, Some(&path)))));
        let refused = stop(busy, Some(&path), "test");
        assert!(refused.refusal().is_some_and(|a| !a.ok && a.answer.contains("try the same call again")), "{refused}");
        holder.rollback().await.unwrap();
        drop(other);
        s.close().await;

        // Damaged: a file that is not a database.
        let junk = dir.path().join("junk.db");
        std::fs::write(&junk, vec![b'x'; 4096]).unwrap();
        let err = Store::open(&junk).await.unwrap_err();
        out.push(format!("damaged: {}", shown(err.to_string())));

        // Cannot open: a directory where the file should be.
        let d = dir.path().join("is-a-dir.db");
        std::fs::create_dir(&d).unwrap();
        let err = Store::open(&d).await.unwrap_err();
        out.push(format!("cannot open: {}", shown(err.to_string())));

        // A fault in attest (a malformed query): not the user's to fix, and no driver text.
        let s = Store::open(&path).await.unwrap();
        let bad = sqlx::query("SELEC 1").execute(s.pool()).await.unwrap_err();
        assert_eq!(Trouble::of(&bad), None);
        assert!(matches!(stop(bad, Some(&path), "test"), attest_core::Stop::Fault(_)));
        let bad = sqlx::query("SELEC 1").execute(s.pool()).await.unwrap_err();
        out.push(format!("fault: {}", shown(words(&bad, Some(&path)))));
        for t in [Trouble::ReadOnly, Trouble::Full, Trouble::Io] {
            out.push(format!("{t:?}: {}", shown(t.explain(Some(&path)))));
        }
        insta::assert_snapshot!(out.join("\n\n"));
    }

    #[tokio::test]
    async fn in_memory_works() {
        let s = Store::open_in_memory().await.unwrap();
        assert_eq!(s.version().await.unwrap(), known_version());
        assert!(s.path().is_none());
    }
}
