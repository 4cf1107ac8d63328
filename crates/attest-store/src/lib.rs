//! The attest database.
//!
//! One database holds every domain's tables: by default a SQLite file (WAL, a busy
//! timeout, foreign keys on); for a team, a PostgreSQL database named by a
//! `postgres://…` address in `ATTEST_DB` (or `--db`). Both run through sqlx's `Any`
//! driver ([`Db`]), chosen at run time from the setting ([`Target`]), and are migrated
//! from `migrations/sqlite/` or `migrations/postgres/` (the same numbered steps written
//! per dialect). A database written by a newer attest is refused rather than silently
//! misread.
//!
//! Domain crates write their own queries against [`Db`] through [`Store::pool`], with
//! `$N` placeholders and portable SQL (TEXT for JSON and times, BIGINT-sized integers,
//! no SQLite-only functions). The few places the dialects differ are written once,
//! here ([`Dialect`]: a JSON list as rows, the write lock of [`Store::begin_write`]),
//! or behind one domain function (full-text search in attest-archive's `search`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{Connection, Pool, Row, Transaction};

pub mod copy;
pub mod restore;
pub mod scratch;

/// The database backend domain queries are written for: sqlx's `Any`, which is SQLite
/// or PostgreSQL at run time.
pub type Db = sqlx::Any;

/// A connection pool on the backend.
pub type DbPool = Pool<Db>;

/// A row read from the backend.
pub type DbRow = sqlx::any::AnyRow;

/// One connection to the backend.
pub type DbConnection = sqlx::AnyConnection;

static SQLITE: Migrator = sqlx::migrate!("./migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("./migrations/postgres");

/// Which SQL the database speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// A SQLite file (or an in-memory database).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl Dialect {
    /// The dialect of an open connection (a transaction dereferences to one).
    pub fn of(conn: &DbConnection) -> Dialect {
        if conn.backend_name() == "PostgreSQL" { Dialect::Postgres } else { Dialect::Sqlite }
    }

    /// A subquery yielding one row per element of the JSON array of strings bound at
    /// `$n`, as a column named `value`: `name IN (SELECT value FROM …)` with one bind
    /// however long the list.
    pub fn json_texts(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!("SELECT value FROM json_each(${n})"),
            Dialect::Postgres => {
                format!("SELECT value FROM json_array_elements_text(CAST(${n} AS TEXT)::json) AS e(value)")
            }
        }
    }

    /// As [`Dialect::json_texts`], for a JSON array of integers (ids).
    pub fn json_ints(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!("SELECT value FROM json_each(${n})"),
            Dialect::Postgres => format!(
                "SELECT CAST(value AS BIGINT) AS value FROM json_array_elements_text(CAST(${n} AS TEXT)::json) AS e(value)"
            ),
        }
    }

    fn migrator(self) -> &'static Migrator {
        match self {
            Dialect::Sqlite => &SQLITE,
            Dialect::Postgres => &POSTGRES,
        }
    }
}

/// `rows` groups of `cols` numbered placeholders, for a multi-row `VALUES` list:
/// `values_list(2, 2)` is `($1, $2), ($3, $4)`. (sqlx's `QueryBuilder` writes `?`
/// placeholders for the `Any` driver, which PostgreSQL does not read.)
pub fn values_list(rows: usize, cols: usize) -> String {
    let mut out = String::with_capacity(rows * cols * 5);
    for r in 0..rows {
        if r > 0 {
            out.push_str(", ");
        }
        out.push('(');
        for c in 0..cols {
            if c > 0 {
                out.push_str(", ");
            }
            out.push('$');
            out.push_str(&(r * cols + c + 1).to_string());
        }
        out.push(')');
    }
    out
}

/// Where the database setting points: a SQLite file, or a PostgreSQL server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A SQLite database file (created when missing).
    File(PathBuf),
    /// A PostgreSQL database: the address as given (it may hold a password: never
    /// show it; [`Target::shown`] is the form for people).
    Postgres(String),
}

impl Target {
    /// Read a database setting: a `postgres://` or `postgresql://` address is a server;
    /// another `scheme://` address is refused (before any file is touched); anything
    /// else is a file path.
    pub fn parse(setting: &Path) -> Result<Target, StoreError> {
        match url_scheme(setting) {
            Some(s) if s == "postgres" || s == "postgresql" => {
                Ok(Target::Postgres(setting.to_str().unwrap_or_default().trim().to_string()))
            }
            Some(scheme) => Err(StoreError::Url { scheme }),
            None => Ok(Target::File(setting.to_path_buf())),
        }
    }

    /// The database as people are shown it: the file, or the server's address with
    /// the user, host, port and database but never a password or other parameters.
    pub fn shown(&self) -> PathBuf {
        match self {
            Target::File(p) => p.clone(),
            Target::Postgres(url) => PathBuf::from(redact(url)),
        }
    }

    /// The dialect it speaks.
    pub fn dialect(&self) -> Dialect {
        match self {
            Target::File(_) => Dialect::Sqlite,
            Target::Postgres(_) => Dialect::Postgres,
        }
    }
}

/// A database setting as people may be shown it: a file path as it is; a server
/// address without its password or parameters (`postgres://me@db.lab:5432/attest`).
pub fn shown(setting: &Path) -> String {
    match Target::parse(setting) {
        Ok(t) => t.shown().display().to_string(),
        Err(_) => url_scheme(setting).map(|s| format!("{s}://…")).unwrap_or_else(|| setting.display().to_string()),
    }
}

/// Whether a database setting names a server rather than a file.
pub fn is_server(setting: &Path) -> bool {
    matches!(Target::parse(setting), Ok(Target::Postgres(_)))
}

fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => {
            let user = if u.username().is_empty() { String::new() } else { format!("{}@", u.username()) };
            let host = u.host_str().unwrap_or("");
            let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
            format!("{}://{user}{host}{port}{}", u.scheme(), u.path())
        }
        Err(_) => format!("{}://…", url_scheme(Path::new(url)).unwrap_or_else(|| "postgres".into())),
    }
}

/// Why the database could not be used. Every message is one sentence in words that
/// names the database and what to do ([`Trouble`]); no driver text is repeated in a
/// chain, and a server's password is never shown.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened, created or reached.
    #[error("{}", open_words(path, cause))]
    Open {
        /// The database file, or the server's address without its password.
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
    /// The database setting is a URL of a kind attest cannot use.
    #[error(
        "ATTEST_DB (or --db) is a {scheme}:// address, but attest keeps its ledger in a SQLite file or a PostgreSQL database; nothing was created. Set ATTEST_DB to a file path (such as ~/.local/share/attest/attest.db) or to a postgres:// address, or unset it for the default"
    )]
    Url {
        /// The address's scheme, never the rest, which may hold a password.
        scheme: String,
    },
    /// The file path cannot be handed to SQLite (it is not valid Unicode).
    #[error("the database path {} is not valid Unicode, which SQLite's driver needs; point ATTEST_DB (or --db) at a file whose path is", .0.display())]
    NotUnicode(PathBuf),
    /// The database was written by a newer attest.
    #[error(
        "the database at {} has schema version {found}, newer than this attest understands ({known}); upgrade attest, or pass --db to use another database", path.display()
    )]
    TooNew {
        /// The database file, or the server's address without its password.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest version this build knows.
        known: i64,
    },
    /// A read-only database written by an older attest: it cannot be brought up to this
    /// attest's schema without writing to it.
    #[error(
        "the database at {} is read-only and has schema version {found}, older than this attest's ({known}); make the file and its directory writable once so attest can bring it up to date, or open it with the attest that wrote it", path.display()
    )]
    ReadOnlyOld {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The version this build knows.
        known: i64,
    },
    /// A migration failed.
    #[error("cannot bring the database at {} up to this attest's schema ({cause}); restore a backup (attest backup writes one) or point ATTEST_DB (or --db) at another database", path.display())]
    Migrate {
        /// The database file, or the server's address without its password.
        path: PathBuf,
        /// What went wrong.
        cause: sqlx::migrate::MigrateError,
    },
    /// A backup target already exists.
    #[error("refusing to overwrite {0}: choose a new file name for the backup")]
    BackupExists(PathBuf),
    /// `attest backup` on a server, whose own tools make the copy.
    #[error(
        "the database at {} is a PostgreSQL server, which attest does not copy itself: run pg_dump (e.g. pg_dump --format=custom --file=attest.dump DATABASE), which takes a consistent copy while attest keeps running, and pg_restore to bring it back", .0.display()
    )]
    BackupServer(PathBuf),
    /// Any other database error.
    #[error("{}", words(.0, None))]
    Sql(#[from] sqlx::Error),
}

fn open_words(path: &Path, cause: &sqlx::Error) -> String {
    match Trouble::of(cause) {
        Some(t) => t.explain(Some(path)),
        None if is_server(path) => format!(
            "cannot use the PostgreSQL database at {}{}; check the address in ATTEST_DB (or --db) and that the server accepts your user, or unset it to use a SQLite file",
            path.display(),
            code_words(cause)
        ),
        None => format!(
            "cannot open the database at {}{}; check that the file is an attest database and its directory is writable, or point ATTEST_DB (or --db) at another file",
            path.display(),
            code_words(cause)
        ),
    }
}

/// A database failure a person can act on, told apart by SQLite's result code or
/// PostgreSQL's SQLSTATE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    /// Another writer held a lock this call needed (SQLite: past the busy timeout;
    /// PostgreSQL: a serialization failure, a deadlock or a lock not available):
    /// retrying helps.
    Busy,
    /// The file (or its directory, which holds the write-ahead log) is read-only; on a
    /// server, a read-only server or a role that may not write.
    ReadOnly,
    /// The disk holding the database is full.
    Full,
    /// The file is damaged, or is not a SQLite database; on a server, corrupted data.
    Damaged,
    /// The file cannot be opened (a missing directory, no permission); the server
    /// cannot be reached, or refused the login, or has no such database.
    CannotOpen,
    /// The operating system failed a read or write, or the connection to the server
    /// broke.
    Io,
}

/// The driver's code of a database error, and whether it is PostgreSQL's SQLSTATE.
fn code_of(e: &sqlx::Error) -> Option<(String, Dialect)> {
    match e {
        sqlx::Error::Database(d) => {
            let dialect = if d.try_downcast_ref::<sqlx::postgres::PgDatabaseError>().is_some() {
                Dialect::Postgres
            } else {
                Dialect::Sqlite
            };
            d.code().map(|c| (c.into_owned(), dialect))
        }
        _ => None,
    }
}

fn code_words(e: &sqlx::Error) -> String {
    match code_of(e) {
        Some((c, Dialect::Sqlite)) => format!(" (SQLite error {c})"),
        Some((c, Dialect::Postgres)) => format!(" (PostgreSQL error {c})"),
        None => String::new(),
    }
}

fn sqlite_trouble(code: i64) -> Option<Trouble> {
    // SQLITE_IOERR_SHMSIZE: the shared-memory index beside a write-ahead log could not
    // be grown. Opening a database on a full disk says it this way (the index is made
    // at open); every later write there says SQLITE_FULL (bins/attest/tests/full_disk.rs).
    if code == 4874 {
        return Some(Trouble::Full);
    }
    // SQLite's primary result code is the low byte of the extended one.
    match code & 0xff {
        5 | 6 => Some(Trouble::Busy),
        8 => Some(Trouble::ReadOnly),
        13 => Some(Trouble::Full),
        11 | 26 => Some(Trouble::Damaged),
        3 | 14 | 23 => Some(Trouble::CannotOpen),
        10 => Some(Trouble::Io),
        _ => None,
    }
}

fn postgres_trouble(state: &str) -> Option<Trouble> {
    match state {
        // serialization_failure, deadlock_detected, lock_not_available,
        // too_many_connections, cannot_connect_now (starting up), query_canceled
        // (a lock or statement timeout).
        "40001" | "40P01" | "55P03" | "53300" | "57P03" | "57014" => Some(Trouble::Busy),
        // read_only_sql_transaction, insufficient_privilege.
        "25006" | "42501" => Some(Trouble::ReadOnly),
        // disk_full.
        "53100" => Some(Trouble::Full),
        // data_corrupted, index_corrupted.
        "XX001" | "XX002" => Some(Trouble::Damaged),
        // invalid_catalog_name (no such database), invalid_authorization_specification,
        // invalid_password, admin_shutdown, crash_shutdown.
        "3D000" | "28000" | "28P01" | "57P01" | "57P02" => Some(Trouble::CannotOpen),
        s if s.starts_with("08") => Some(Trouble::CannotOpen),
        _ => None,
    }
}

impl Trouble {
    /// What kind of trouble an error is; `None` for an error no person can act on
    /// (a fault in attest itself, such as a malformed query).
    pub fn of(e: &sqlx::Error) -> Option<Trouble> {
        match e {
            sqlx::Error::PoolTimedOut => return Some(Trouble::Busy),
            sqlx::Error::Io(io) => {
                use std::io::ErrorKind as K;
                return Some(match io.kind() {
                    K::ConnectionRefused
                    | K::NotFound
                    | K::AddrNotAvailable
                    | K::HostUnreachable
                    | K::NetworkUnreachable => Trouble::CannotOpen,
                    _ => Trouble::Io,
                });
            }
            sqlx::Error::Tls(_) => return Some(Trouble::CannotOpen),
            _ => {}
        }
        let by_code = match code_of(e) {
            Some((c, Dialect::Sqlite)) => c.parse::<i64>().ok().and_then(sqlite_trouble),
            Some((c, Dialect::Postgres)) => postgres_trouble(&c),
            None => None,
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

    /// One sentence: what happened to which database, and what to do.
    pub fn explain(self, db: Option<&Path>) -> String {
        let file = match db {
            Some(p) => format!("the database at {}", p.display()),
            None => "the database".to_string(),
        };
        if db.is_some_and(is_server) {
            return self.explain_server(&file);
        }
        match self {
            Trouble::Busy => format!(
                "{file} is busy: another attest process (a scan, an ingest, a server) is writing to it. Nothing was changed; try the same call again in a few seconds"
            ),
            Trouble::ReadOnly => format!(
                "{file} cannot be written: the file or its directory is read-only (SQLite writes its journal next to the file). Nothing was changed; make both writable, or point ATTEST_DB (or --db) at a copy in a writable directory"
            ),
            Trouble::Full => format!(
                "{file} could not be written because the disk is full. Nothing was changed; free some space on that disk and try again, or move the file (with its -wal file, if any) to a disk with room and point ATTEST_DB (or --db) at it"
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

    fn explain_server(self, db: &str) -> String {
        match self {
            Trouble::Busy => format!(
                "{db} is busy: another writer (a scan, an ingest, a colleague's server) held what this call needed. Nothing was changed; try the same call again in a few seconds"
            ),
            Trouble::ReadOnly => format!(
                "{db} refused a write: the server is read-only (a standby) or your role may not write there. Nothing was changed; connect to the primary, or as a role that may write"
            ),
            Trouble::Full => format!(
                "{db} could not be written because the server's disk is full. Nothing was changed; ask its administrator to free space, then try again"
            ),
            Trouble::Damaged => format!(
                "{db} reported damaged data. Nothing was changed; ask its administrator to check it (amcheck, REINDEX), or restore a dump (pg_dump writes one)"
            ),
            Trouble::CannotOpen => format!(
                "{db} cannot be reached or refused the connection: check that the server is running, the host, port and database name in ATTEST_DB (or --db), and that your user may log in (a password, if any, goes in the address or ~/.pgpass)"
            ),
            Trouble::Io => format!(
                "{db} stopped answering mid-call (the connection broke). Check the server and the network, then try again"
            ),
        }
    }
}

/// A database error in words: what happened and what to do, naming the database
/// when known. An error no person can act on says it is a fault in attest, with the
/// database's code, never the driver's text.
pub fn words(e: &sqlx::Error, db: Option<&Path>) -> String {
    match Trouble::of(e) {
        // A server's error with no address to name: the server's advice, never a file's.
        Some(t) if db.is_none() && matches!(code_of(e), Some((_, Dialect::Postgres))) => {
            t.explain_server("the database")
        }
        Some(t) => t.explain(db),
        None => format!(
            "{} failed a query{}: this is a fault in attest, not in your data; the server log has the detail",
            match db {
                Some(p) => format!("the database at {}", p.display()),
                None => "the database".to_string(),
            },
            code_words(e)
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
    let s = path.to_str()?.trim();
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
    dialect: Dialect,
    read_only: bool,
}

/// The newest schema version this build knows (the same for both dialects).
pub fn known_version() -> i64 {
    SQLITE.iter().map(|m| m.version).max().unwrap_or(0)
}

/// Every table of the schema, parents before children (the order a copy fills them
/// in); [`copy`] and the tests check it against the database.
pub const TABLES: &[&str] = &[
    "runs",
    "run_curves",
    "projects",
    "corpora",
    "readers",
    "feeds",
    "feed_meta",
    "items",
    "item_tags",
    "clicks",
    "engagement",
    "item_vectors",
    "library",
    "concept_vectors",
    "concept_aliases",
];

/// SQLite's settings for every connection: write-ahead logging, a busy timeout, foreign
/// keys, and up to 64 MiB of page cache per connection (allocated only as used): a scan
/// writing millions of metric rows in one transaction then spills far fewer pages to
/// the log (a first scan of the framework benchmark: 5.0 s → 4.1 s).
const SQLITE_SETUP: &str = "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; \
     PRAGMA foreign_keys = ON; PRAGMA cache_size = -65536;";

/// The settings of a read-only connection: no journal mode change (that would write),
/// and `query_only`, so even SQL that would write is refused by SQLite itself.
const SQLITE_READ_ONLY_SETUP: &str = "PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA query_only = ON;";

/// Whether a path may not be written, by its permission bits (no write bit for anyone,
/// which holds even for root, whom the kernel lets write anyway) or by the kernel's
/// answer for this user (`access(W_OK)`: another owner's file, a read-only mount).
fn not_writable(path: &Path) -> bool {
    let bits = std::fs::metadata(path).map(|m| m.permissions().readonly()).unwrap_or(false);
    bits || !may_write(path)
}

#[cfg(unix)]
fn may_write(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return true };
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(not(unix))]
fn may_write(_path: &Path) -> bool {
    true
}

fn dir_of(path: &Path) -> PathBuf {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

/// Whether an existing SQLite file must be opened read-only: the file, or the directory
/// SQLite writes its write-ahead log into, is read-only.
fn read_only_file(path: &Path) -> bool {
    not_writable(path) || not_writable(&dir_of(path))
}

/// The read-only address of an existing file: `mode=ro`, plus `immutable=1` when the
/// directory is read-only and there is no write-ahead log (SQLite can then neither
/// create the log's index nor needs one; nothing can change the file meanwhile).
fn read_only_url(path: &Path) -> Result<String, StoreError> {
    let mut url = sqlite_url(path, "ro")?;
    let wal = PathBuf::from(format!("{}-wal", path.display()));
    if not_writable(&dir_of(path)) && !wal.exists() {
        url.push_str("&immutable=1");
    }
    Ok(url)
}

/// A file path as a `sqlite://` address the `Any` driver reads back to the same path.
fn sqlite_url(path: &Path, mode: &str) -> Result<String, StoreError> {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    const KEEP: &AsciiSet = &NON_ALPHANUMERIC.remove(b'/').remove(b'-').remove(b'_').remove(b'.').remove(b'~');
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let s = abs.to_str().ok_or_else(|| StoreError::NotUnicode(path.to_path_buf()))?;
    Ok(format!("sqlite://{}?mode={mode}", utf8_percent_encode(s, KEEP)))
}

fn sqlite_pool(max: u32) -> AnyPoolOptions {
    AnyPoolOptions::new().max_connections(max).after_connect(|conn, _| {
        Box::pin(async move {
            sqlx::Executor::execute(&mut *conn, SQLITE_SETUP).await?;
            Ok(())
        })
    })
}

static MEMORY_SEQ: AtomicUsize = AtomicUsize::new(0);

impl Store {
    /// Open the database a setting names (a file path, created if needed, or a
    /// `postgres://` address), and migrate it.
    pub async fn open(setting: &Path) -> Result<Store, StoreError> {
        match Target::parse(setting)? {
            Target::File(path) => Store::open_file(&path).await,
            Target::Postgres(url) => Store::open_postgres(&url).await,
        }
    }

    async fn open_file(path: &Path) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if path.is_file() && read_only_file(path) {
            return Store::open_file_read_only(path).await;
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| StoreError::Dir { path: path.into(), cause })?;
        }
        let url = sqlite_url(path, "rwc")?;
        let opts: AnyConnectOptions = url.parse().map_err(|cause| StoreError::Open { path: path.into(), cause })?;
        let open = |cause| StoreError::Open { path: path.into(), cause };
        // One connection first, so a file that is no database fails at once (a pool
        // would retry its setup until its timeout, and then say only "timed out").
        let mut first = sqlx::AnyConnection::connect_with(&opts).await.map_err(open)?;
        sqlx::Executor::execute(&mut first, SQLITE_SETUP).await.map_err(open)?;
        first.close().await.map_err(open)?;
        let pool = sqlite_pool(4).connect_with(opts).await.map_err(open)?;
        Store::migrated(pool, Some(path.to_path_buf()), Dialect::Sqlite).await
    }

    /// A SQLite file that cannot (or must not) be written: opened read-only (SQLite's
    /// `mode=ro`, and `immutable=1` when its directory is read-only and it has no
    /// write-ahead log, since SQLite could not create one), never migrated, with
    /// `query_only` on. Reads work; a write fails with SQLite's read-only code, which
    /// [`Trouble::ReadOnly`] words as the file and the fix.
    async fn open_file_read_only(path: &Path) -> Result<Store, StoreError> {
        let opts: AnyConnectOptions =
            read_only_url(path)?.parse().map_err(|cause| StoreError::Open { path: path.into(), cause })?;
        let open = |cause| StoreError::Open { path: path.into(), cause };
        let mut first = sqlx::AnyConnection::connect_with(&opts).await.map_err(open)?;
        sqlx::Executor::execute(&mut first, SQLITE_READ_ONLY_SETUP).await.map_err(open)?;
        first.close().await.map_err(open)?;
        let pool = AnyPoolOptions::new()
            .max_connections(4)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    sqlx::Executor::execute(&mut *conn, SQLITE_READ_ONLY_SETUP).await?;
                    Ok(())
                })
            })
            .connect_with(opts)
            .await
            .map_err(open)?;
        let found = applied_version(&pool, Dialect::Sqlite).await.map_err(|e| match e {
            StoreError::Sql(cause) => StoreError::Open { path: path.into(), cause },
            other => other,
        })?;
        let known = known_version();
        if found != known {
            pool.close().await;
            return Err(if found > known {
                StoreError::TooNew { path: path.into(), found, known }
            } else {
                StoreError::ReadOnlyOld { path: path.into(), found, known }
            });
        }
        Ok(Store { pool, path: Some(path.to_path_buf()), dialect: Dialect::Sqlite, read_only: true })
    }

    async fn open_postgres(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let shown = PathBuf::from(redact(url));
        let opts: AnyConnectOptions = url.parse().map_err(|cause| StoreError::Open { path: shown.clone(), cause })?;
        let open = |cause| StoreError::Open { path: shown.clone(), cause };
        sqlx::AnyConnection::connect_with(&opts).await.map_err(open)?.close().await.map_err(open)?;
        let pool = AnyPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(opts)
            .await
            .map_err(|cause| StoreError::Open { path: shown.clone(), cause })?;
        Store::migrated(pool, Some(shown), Dialect::Postgres).await
    }

    /// A private in-memory SQLite database, for tests and throwaway runs.
    ///
    /// When `ATTEST_TEST_POSTGRES` holds a `postgres://` address (a test run against
    /// PostgreSQL), a fresh schema of that database instead ([`scratch`]), shown as
    /// in-memory (`path()` is `None`), so every test written against an in-memory
    /// database runs on PostgreSQL unchanged.
    pub async fn open_in_memory() -> Result<Store, StoreError> {
        if let Some(base) = scratch::base() {
            let url = scratch::fresh(&base).await?;
            let mut store = Store::open_postgres(&url).await?;
            store.path = None;
            return Ok(store);
        }
        sqlx::any::install_default_drivers();
        // A named shared-cache database, so a connection the pool opens again (it
        // never should: one connection, never retired) sees the same data.
        let n = MEMORY_SEQ.fetch_add(1, Ordering::Relaxed);
        let url = format!("sqlite:file:attest-memory-{}-{n}?mode=memory&cache=shared", std::process::id());
        let opts: AnyConnectOptions = url.parse()?;
        let pool = AnyPoolOptions::new()
            .max_connections(1)
            .min_connections(1)
            .idle_timeout(None)
            .max_lifetime(None)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    sqlx::Executor::execute(&mut *conn, "PRAGMA foreign_keys = ON;").await?;
                    Ok(())
                })
            })
            .connect_with(opts)
            .await?;
        Store::migrated(pool, None, Dialect::Sqlite).await
    }

    async fn migrated(pool: DbPool, path: Option<PathBuf>, dialect: Dialect) -> Result<Store, StoreError> {
        let shown = path.clone().unwrap_or_else(|| PathBuf::from(":memory:"));
        let found = applied_version(&pool, dialect).await.map_err(|e| match e {
            StoreError::Sql(cause) => StoreError::Open { path: shown.clone(), cause },
            other => other,
        })?;
        let known = known_version();
        if found > known {
            pool.close().await;
            return Err(StoreError::TooNew { path: shown, found, known });
        }
        dialect.migrator().run(&pool).await.map_err(|cause| StoreError::Migrate { path: shown, cause })?;
        Ok(Store { pool, path, dialect, read_only: false })
    }

    /// Whether this database was opened read-only (a SQLite file or directory that is
    /// read-only): reads work, and every write is refused in words
    /// ([`Trouble::ReadOnly`]).
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The pool domain queries run on.
    pub fn pool(&self) -> &DbPool {
        &self.pool
    }

    /// Which SQL the database speaks.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Where the database is, as people are shown it: the file, or a server's address
    /// without its password; `None` for an in-memory database.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The schema version of this database.
    pub async fn version(&self) -> Result<i64, StoreError> {
        applied_version(&self.pool, self.dialect).await
    }

    /// Begin a transaction that holds the write lock of `what` (a domain's name, such
    /// as `ledger` or `archive`) from its first statement, so a second writer of the
    /// same domain waits its turn instead of interleaving with this one or failing
    /// half-way. SQLite: `BEGIN IMMEDIATE` (the whole file's write lock, waiting up to
    /// the busy timeout). PostgreSQL: a transaction-scoped advisory lock keyed by the
    /// schema and `what` (`pg_advisory_xact_lock`), released at commit or rollback;
    /// writers of other domains, and readers, go on meanwhile.
    pub async fn begin_write(&self, what: &str) -> Result<Transaction<'static, Db>, sqlx::Error> {
        match self.dialect {
            Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Dialect::Postgres => {
                let mut tx = self.pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/attest/' || $1, 0))")
                    .bind(what)
                    .execute(&mut *tx)
                    .await?;
                Ok(tx)
            }
        }
    }

    /// Write a consistent single-file copy of a SQLite database to `dest`, which must
    /// not exist yet. Safe while other connections read and write. A PostgreSQL
    /// database is refused with the `pg_dump` command that copies it.
    pub async fn backup(&self, dest: &Path) -> Result<(), StoreError> {
        if self.dialect == Dialect::Postgres {
            return Err(StoreError::BackupServer(self.path.clone().unwrap_or_default()));
        }
        if dest.exists() {
            return Err(StoreError::BackupExists(dest.into()));
        }
        if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|cause| StoreError::Dir { path: dest.into(), cause })?;
        }
        sqlx::query("VACUUM INTO $1").bind(dest.to_string_lossy().into_owned()).execute(&self.pool).await?;
        Ok(())
    }

    /// Close every connection (for SQLite, checkpointing the write-ahead log).
    pub async fn close(self) {
        self.pool.close().await;
    }
}

async fn applied_version(pool: &DbPool, dialect: Dialect) -> Result<i64, StoreError> {
    let sql = match dialect {
        Dialect::Sqlite => "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
        Dialect::Postgres => {
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '_sqlx_migrations'"
        }
    };
    let exists: i64 = sqlx::query(sql).fetch_one(pool).await?.get(0);
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
    use sqlx::sqlite::SqliteConnectOptions;

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
    async fn an_address_is_a_server_or_refused_and_never_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let cwd_file = dir.path().join("postgres:");
        for url in ["postgres://me:secret@db.lab/attest", "postgresql://localhost/test"] {
            let t = Target::parse(Path::new(url)).unwrap();
            assert_eq!(t.dialect(), Dialect::Postgres);
            assert!(is_server(Path::new(url)));
        }
        assert_eq!(
            shown(Path::new("postgres://me:secret@db.lab:5433/attest?password=x&options[search_path]=s")),
            "postgres://me@db.lab:5433/attest"
        );
        for url in ["sqlite://x.db", "mysql://me:secret@db.lab/attest"] {
            let err = Store::open(Path::new(url)).await.unwrap_err();
            assert!(matches!(err, StoreError::Url { .. }), "{url}: {err}");
            let text = err.to_string();
            assert!(!text.contains("secret") && !text.contains("db.lab"), "{text}");
            assert!(!Path::new("mysql:").exists() && !Path::new("sqlite:").exists() && !cwd_file.exists());
        }
        insta::assert_snapshot!(
            Store::open(Path::new("mysql://me:secret@db.lab/attest")).await.unwrap_err().to_string()
        );
        // A file path that merely contains a colon is still a file.
        assert!(url_scheme(Path::new("/data/run:1/attest.db")).is_none());
        assert!(url_scheme(Path::new("C:/attest.db")).is_none());
        assert_eq!(Target::parse(Path::new("/data/run:1/a.db")).unwrap(), Target::File("/data/run:1/a.db".into()));
    }

    /// A file whose name needs escaping in a URL opens as itself.
    #[tokio::test]
    async fn odd_file_names_open_as_themselves() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a dir #1/100% ?x.db");
        let s = Store::open(&path).await.unwrap();
        s.close().await;
        assert!(path.exists());
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
        // A full disk: SQLITE_FULL on a write, SQLITE_IOERR_SHMSIZE on opening (4874).
        assert_eq!(sqlite_trouble(13), Some(Trouble::Full));
        assert_eq!(sqlite_trouble(4874), Some(Trouble::Full));
        assert_eq!(sqlite_trouble(10 | (3 << 8)), Some(Trouble::Io), "SQLITE_IOERR_WRITE is not a full disk");
        for t in [Trouble::ReadOnly, Trouble::Full, Trouble::Io] {
            out.push(format!("{t:?}: {}", shown(t.explain(Some(&path)))));
        }
        insta::assert_snapshot!(out.join("\n\n"));
    }

    /// A database whose file (or directory) is read-only is opened read-only: reads
    /// work, a write is refused in words naming the file and the fix, and nothing is
    /// created beside it.
    ///
    /// What this proves when run as root (as CI does): root may write any file whatever
    /// its mode, so without the read-only open the writes below would succeed; the
    /// refusal comes from attest reading the permission bits and SQLite enforcing
    /// `mode=ro` / `query_only`, not from the kernel. What it does not prove as root:
    /// that an ordinary user in a read-only directory could not have opened the file
    /// read-write (the kernel would stop them; `access(2)` is also consulted for them).
    #[tokio::test]
    async fn a_read_only_database_is_read_and_writes_are_refused_in_words() {
        use std::os::unix::fs::PermissionsExt;
        let set = |p: &Path, mode: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        for case in ["file", "directory"] {
            let dir = tempfile::tempdir().unwrap();
            let sub = dir.path().join("ro");
            let path = sub.join("attest.db");
            let s = Store::open(&path).await.unwrap();
            assert!(!s.is_read_only());
            sqlx::query("INSERT INTO corpora (name) VALUES ('kept')").execute(s.pool()).await.unwrap();
            s.close().await;
            // Checkpoint by a last, graceful close, so no log is left beside the file.
            let mut c = sqlx::AnyConnection::connect(&sqlite_url(&path, "rw").unwrap()).await.unwrap();
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)").execute(&mut c).await.unwrap();
            c.close().await.unwrap();
            let _ = std::fs::remove_file(sub.join("attest.db-wal"));
            let _ = std::fs::remove_file(sub.join("attest.db-shm"));
            match case {
                "file" => set(&path, 0o444),
                _ => set(&sub, 0o555),
            }
            let before: Vec<_> = std::fs::read_dir(&sub).unwrap().map(|e| e.unwrap().file_name()).collect();
            let s = Store::open(&path).await.unwrap();
            assert!(s.is_read_only(), "{case}");
            let names: Vec<String> = sqlx::query_scalar("SELECT name FROM corpora").fetch_all(s.pool()).await.unwrap();
            assert_eq!(names, vec!["kept"], "{case}");
            let err = sqlx::query("INSERT INTO corpora (name) VALUES ('new')").execute(s.pool()).await.unwrap_err();
            assert_eq!(Trouble::of(&err), Some(Trouble::ReadOnly), "{case}: {err}");
            let said = words(&err, s.path());
            assert!(said.contains(&path.display().to_string()) && said.contains("read-only"), "{said}");
            let refused = stop(err, s.path(), "test");
            assert!(refused.refusal().is_some_and(|a| !a.ok), "{case}");
            let err = s.begin_write("ledger").await.unwrap_err();
            assert_eq!(Trouble::of(&err), Some(Trouble::ReadOnly), "{case}: {err}");
            s.close().await;
            if case == "directory" {
                let after: Vec<_> = std::fs::read_dir(&sub).unwrap().map(|e| e.unwrap().file_name()).collect();
                assert_eq!(after, before, "nothing is created in a read-only directory");
            }
            set(&sub, 0o755);
            set(&path, 0o644);
            // Writable again: opened read-write, as before.
            let s = Store::open(&path).await.unwrap();
            assert!(!s.is_read_only());
            s.close().await;
        }
    }

    /// A read-only database from an older attest cannot be migrated: refused in words.
    #[tokio::test]
    async fn a_read_only_database_of_an_older_schema_is_refused_in_words() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let s = Store::open(&path).await.unwrap();
        sqlx::query("DELETE FROM _sqlx_migrations WHERE version = $1")
            .bind(known_version())
            .execute(s.pool())
            .await
            .unwrap();
        s.close().await;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let err = Store::open(&path).await.unwrap_err();
        assert!(matches!(err, StoreError::ReadOnlyOld { .. }), "{err}");
        assert!(err.to_string().contains("make the file and its directory writable"), "{err}");
    }

    /// Migration 0008 turns the metric rows of an older ledger into curves: one row per
    /// run, metric and split, its points in the order they were written, each value
    /// reading back to the bits it had (SQLite; PostgreSQL too when
    /// `ATTEST_TEST_POSTGRES` names a test database).
    #[tokio::test]
    async fn migration_0008_turns_metric_rows_into_exact_curves() {
        type Point = (i64, String, String, Option<i64>, u64);
        // Arbitrary finite doubles (random bit patterns) and metric-like ones.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut values: Vec<f64> =
            vec![0.1 + 0.2, 1.0 / 3.0, 1e-7, 5e-324, f64::MAX, -f64::MIN_POSITIVE, 2.0, 1e15 + 0.3];
        while values.len() < 6000 {
            let bits = next();
            let v = if values.len().is_multiple_of(2) {
                f64::from_bits(bits)
            } else {
                (bits >> 11) as f64 / (1u64 << 50) as f64
            };
            if v.is_finite() {
                values.push(v);
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("old.db");
        let mut targets = vec![(sqlite_url(&file, "rwc").unwrap(), file.display().to_string(), Dialect::Sqlite)];
        if let Some(base) = scratch::base() {
            let url = scratch::fresh(&base).await.unwrap();
            targets.push((url.clone(), url, Dialect::Postgres));
        }
        sqlx::any::install_default_drivers();
        for (url, setting, dialect) in targets {
            let pool = AnyPoolOptions::new().max_connections(1).connect(&url).await.unwrap();
            let before_0008: Vec<_> = dialect.migrator().iter().filter(|m| m.version < 8).cloned().collect();
            let old = Migrator { migrations: std::borrow::Cow::Owned(before_0008), ..Migrator::DEFAULT };
            old.run(&pool).await.unwrap();
            for id in [1, 2] {
                sqlx::query("INSERT INTO runs (id, project, name, status, source_path, scanned_at) VALUES ($1, 'p', $2, 'recorded', '/x', 't')")
                    .bind(id)
                    .bind(format!("r{id}"))
                    .execute(&pool)
                    .await
                    .unwrap();
            }
            // Two runs, two metrics, two splits, interleaved as a training log writes them.
            let rows: Vec<(i64, &str, &str, Option<i64>, f64)> = values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let step = (i % 7 != 3).then_some(i as i64 - 100);
                    (1 + (i % 2) as i64, ["loss", "acc"][i / 2 % 2], ["", "val"][i / 4 % 2], step, *v)
                })
                .collect();
            for chunk in rows.chunks(20) {
                let sql = format!(
                    "INSERT INTO run_metrics (run_id, metric, split, step, value) VALUES {}",
                    values_list(chunk.len(), 5)
                );
                let mut q = sqlx::query(&sql);
                for (id, m, split, step, v) in chunk {
                    q = q.bind(*id).bind(*m).bind(*split).bind(*step).bind(*v);
                }
                q.execute(&pool).await.unwrap();
            }
            // What a reader saw before, grouped into curves in order of first appearance.
            let before: Vec<Point> =
                sqlx::query("SELECT run_id, metric, split, step, value FROM run_metrics ORDER BY rowid")
                    .fetch_all(&pool)
                    .await
                    .unwrap()
                    .iter()
                    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get::<f64, _>(4).to_bits()))
                    .collect();
            let mut keys: Vec<(i64, String, String)> = Vec::new();
            for p in &before {
                let k = (p.0, p.1.clone(), p.2.clone());
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            let expected: Vec<Point> = keys
                .iter()
                .flat_map(|k| before.iter().filter(move |p| (p.0, &p.1, &p.2) == (k.0, &k.1, &k.2)).cloned())
                .collect();
            pool.close().await;

            let store = Store::open(Path::new(&setting)).await.unwrap();
            assert_eq!(store.version().await.unwrap(), known_version());
            let curves = sqlx::query("SELECT run_id, metric, split, n, points FROM run_curves ORDER BY rowid")
                .fetch_all(store.pool())
                .await
                .unwrap();
            assert_eq!(curves.len(), 8);
            let mut after: Vec<Point> = Vec::new();
            for c in &curves {
                let (id, metric, split, n, points): (i64, String, String, i64, String) =
                    (c.get(0), c.get(1), c.get(2), c.get(3), c.get(4));
                let pts: Vec<&str> = points.split(',').collect();
                assert_eq!(pts.len() as i64, n);
                for p in pts {
                    let (step, v) = p.split_once(':').unwrap();
                    let v: f64 = v.parse().unwrap_or_else(|_| panic!("{dialect:?}: unreadable value {p}"));
                    after.push((id, metric.clone(), split.clone(), step.parse().ok(), v.to_bits()));
                }
            }
            assert_eq!(after.len(), expected.len());
            for (a, e) in after.iter().zip(&expected) {
                assert_eq!(a, e, "{dialect:?}: {} read back as {}", f64::from_bits(e.4), f64::from_bits(a.4));
            }
            let tables = match dialect {
                Dialect::Sqlite => "SELECT count(*) FROM sqlite_master WHERE name = 'run_metrics'",
                Dialect::Postgres => {
                    "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'run_metrics'"
                }
            };
            let gone: i64 = sqlx::query_scalar(tables).fetch_one(store.pool()).await.unwrap();
            assert_eq!(gone, 0, "{dialect:?}: run_metrics is dropped");
            store.close().await;
            if dialect == Dialect::Postgres {
                scratch::drop_schema(&scratch::base().unwrap(), &setting).await.unwrap();
            }
        }
    }

    #[tokio::test]
    async fn in_memory_works() {
        let s = Store::open_in_memory().await.unwrap();
        assert_eq!(s.version().await.unwrap(), known_version());
        assert!(s.path().is_none());
    }

    /// PostgreSQL, when `ATTEST_TEST_POSTGRES` names a test database: a fresh schema
    /// migrates and reopens, the copy from SQLite fills every table and verifies, a
    /// held lock is busy in words, and an unreachable server is named without its
    /// password.
    #[tokio::test]
    async fn postgres_migrates_copies_and_explains() {
        let Some(base) = scratch::base() else { return };
        let url = scratch::fresh(&base).await.unwrap();
        let pg = Store::open(Path::new(&url)).await.unwrap();
        assert_eq!(pg.dialect(), Dialect::Postgres);
        assert_eq!(pg.version().await.unwrap(), known_version());
        assert!(!pg.path().unwrap().display().to_string().contains("search_path"));
        // Reopening checks the applied migrations' checksums and adds nothing.
        let again = Store::open(Path::new(&url)).await.unwrap();
        assert_eq!(again.version().await.unwrap(), known_version());
        again.close().await;

        // A SQLite ledger with a row in every table, copied.
        let dir = tempfile::tempdir().unwrap();
        let lite = Store::open(&dir.path().join("a.db")).await.unwrap();
        for sql in [
            "INSERT INTO runs (id, project, name, status, source_path, scanned_at, caveats) VALUES (7, 'p', 'r', 'recorded', '/x', 't', NULL)",
            "INSERT INTO run_curves (run_id, metric, split, n, points) VALUES (7, 'loss', '', 2, '1:0.5,2:0.25'), (7, 'acc', 'test', 1, ':1.0')",
            "INSERT INTO projects (name, dir, root, n_runs, scanned_at) VALUES ('p', '/p', '/', 1, 't')",
            "INSERT INTO corpora (name, vocab_size) VALUES ('c', 50257)",
            "INSERT INTO readers (id, name, name_key, created_at) VALUES (3, 'Ana', 'ana', 't')",
            "INSERT INTO feeds (id, url, added_at) VALUES (4, 'https://x.example/rss', 't')",
            "INSERT INTO feed_meta (key, value) VALUES ('seeded_at', 't')",
            "INSERT INTO items (id, feed_id, guid, title, summary, published, content_hash, first_seen) VALUES (9, 4, 'g', 'Graph neural networks', 'message passing', 't', 'h', 't')",
            "INSERT INTO item_tags (item_id, tag) VALUES (9, 'gnn')",
            "INSERT INTO clicks (reader_id, item_id, useful, source, at) VALUES (3, 9, 1, 'ui', 't')",
            "INSERT INTO engagement (reader_id, item_id, kind, at) VALUES (3, 9, 'read', 't')",
            "INSERT INTO item_vectors (item_id, model, content_hash, dims, vector, embedded_at) VALUES (9, 'm', 'h', 1, x'0000803f', 't')",
            "INSERT INTO library (key, title, origin, match_key, added, updated, item_id) VALUES ('k', 'T', 'item', 'mk', 't', 't', 9)",
            "INSERT INTO concept_vectors (name, model, dims, vector, embedded_at) VALUES ('graph neural networks', 'm', 1, x'0000803f', 't')",
            "INSERT INTO concept_aliases (alias, canonical, model, cosine, relation, merged_at) VALUES ('gnn', 'graph-neural-networks', 'm', 0.97, 'acronym', 't')",
        ] {
            sqlx::query(sql).execute(lite.pool()).await.unwrap();
        }
        let copied = copy::copy(&lite, &pg, false).await.unwrap();
        assert_eq!(copied.tables.len(), TABLES.len());
        assert!(copied.tables.iter().all(|(_, n)| *n >= 1), "{copied:?}");
        assert_eq!(copied.total(), 16);
        // Curves keep their order and points, ids their values, and new rows get new ids.
        let curves: Vec<(String, String, i64, String)> =
            sqlx::query_as("SELECT metric, split, n, points FROM run_curves ORDER BY rowid")
                .fetch_all(pg.pool())
                .await
                .unwrap();
        assert_eq!(
            curves,
            [("loss".into(), "".into(), 2, "1:0.5,2:0.25".into()), ("acc".into(), "test".into(), 1, ":1.0".into())]
        );
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO runs (project, name, status, source_path, scanned_at) VALUES ('p', 's', 'recorded', '/y', 't') RETURNING id",
        )
        .fetch_one(pg.pool())
        .await
        .unwrap();
        assert_eq!(id, 8);
        let hit: i64 =
            sqlx::query_scalar("SELECT id FROM items WHERE search @@ to_tsquery('attest_english', 'network')")
                .fetch_one(pg.pool())
                .await
                .unwrap();
        assert_eq!(hit, 9);
        let v: Vec<u8> = sqlx::query_scalar("SELECT vector FROM item_vectors").fetch_one(pg.pool()).await.unwrap();
        assert_eq!(v, vec![0, 0, 0x80, 0x3f]);
        // A target holding data is refused, and replaced only when asked.
        let err = copy::copy(&lite, &pg, false).await.unwrap_err();
        assert!(matches!(err, copy::CopyError::NotEmpty { .. }), "{err}");
        assert_eq!(copy::copy(&lite, &pg, true).await.unwrap().total(), 16);

        // Busy: a table lock held past the lock timeout.
        let mut holder = pg.pool().begin().await.unwrap();
        sqlx::query("LOCK TABLE corpora IN ACCESS EXCLUSIVE MODE").execute(&mut *holder).await.unwrap();
        let mut other = pg.pool().acquire().await.unwrap();
        sqlx::query("SET lock_timeout = '50ms'").execute(&mut *other).await.unwrap();
        let busy = sqlx::query("INSERT INTO corpora (name) VALUES ('second')").execute(&mut *other).await.unwrap_err();
        assert_eq!(Trouble::of(&busy), Some(Trouble::Busy), "{busy}");
        let said = words(&busy, pg.path());
        assert!(said.contains("is busy") && said.contains("try the same call again"), "{said}");
        holder.rollback().await.unwrap();
        drop(other);
        pg.close().await;
        scratch::drop_schema(&base, &url).await.unwrap();

        // Nobody listens: words naming the server, never the password.
        let err = Store::open(Path::new("postgres://me:secret@127.0.0.1:1/attest")).await.unwrap_err();
        let text = err.to_string();
        assert!(text.contains("postgres://me@127.0.0.1:1/attest") && text.contains("cannot be reached"), "{text}");
        assert!(!text.contains("secret"), "{text}");
        // A database that does not exist.
        let missing = format!("{}_no_such_db", base.trim_end_matches('/'));
        let text = Store::open(Path::new(&missing)).await.unwrap_err().to_string();
        assert!(text.contains("refused the connection"), "{text}");
    }
}
