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

/// Why the database could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file could not be opened or created.
    #[error("cannot open the database at {path}: {source}")]
    Open {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: sqlx::Error,
    },
    /// The directory for the file could not be created.
    #[error("cannot create the directory for the database at {path}: {source}")]
    Dir {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: std::io::Error,
    },
    /// The database was written by a newer attest.
    #[error(
        "the database at {path} has schema version {found}, newer than this attest understands ({known}); upgrade attest, or pass --db to use another file"
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
    #[error("cannot migrate the database at {path}: {source}")]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// A backup target already exists.
    #[error("refusing to overwrite {0}: choose a new file name for the backup")]
    BackupExists(PathBuf),
    /// Any other database error.
    #[error("database error: {0}")]
    Sql(#[from] sqlx::Error),
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
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir { path: path.into(), source })?;
        }
        let opts = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(opts)
            .await
            .map_err(|source| StoreError::Open { path: path.into(), source })?;
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
        MIGRATOR.run(&pool).await.map_err(|source| StoreError::Migrate { path: shown, source })?;
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
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir { path: dest.into(), source })?;
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
    async fn in_memory_works() {
        let s = Store::open_in_memory().await.unwrap();
        assert_eq!(s.version().await.unwrap(), known_version());
        assert!(s.path().is_none());
    }
}
