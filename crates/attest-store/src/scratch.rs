//! Throwaway PostgreSQL schemas for test runs.
//!
//! `ATTEST_TEST_POSTGRES` names a PostgreSQL database tests may use (CI:
//! `postgres://root@127.0.0.1:5432/test`). Each [`fresh`] schema is private to one
//! store: its name carries the process id, and a schema whose process has ended is
//! dropped by the next test that makes one, so a run leaves at most the last
//! process's schemas behind (and `.ci/run` drops those). The address handed back
//! selects the schema through the connection's `search_path`, so nothing in attest
//! names a schema.

use std::sync::atomic::{AtomicUsize, Ordering};

use sqlx::{Connection, Row};

use crate::StoreError;

/// The variable naming the test database.
pub const ENV: &str = "ATTEST_TEST_POSTGRES";

/// The prefix of every scratch schema's name.
const PREFIX: &str = "attest_t_";

static SEQ: AtomicUsize = AtomicUsize::new(0);

/// The test database's address, when tests are to run against PostgreSQL.
pub fn base() -> Option<String> {
    std::env::var(ENV).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

/// `base` with its `search_path` set to `schema`.
pub fn with_schema(base: &str, schema: &str) -> String {
    let sep = if base.contains('?') { '&' } else { '?' };
    format!("{base}{sep}options[search_path]={schema}")
}

fn alive(pid: u32) -> bool {
    !cfg!(target_os = "linux") || std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Create a new empty schema in the database at `base` and return the address that
/// uses it; schemas of ended processes are dropped on the way.
pub async fn fresh(base: &str) -> Result<String, StoreError> {
    sqlx::any::install_default_drivers();
    let shown = std::path::PathBuf::from(crate::redact(base));
    let open = |cause| StoreError::Open { path: shown.clone(), cause };
    let mut conn = sqlx::AnyConnection::connect(base).await.map_err(open)?;
    let names: Vec<String> =
        sqlx::query("SELECT CAST(nspname AS TEXT) FROM pg_namespace WHERE starts_with(nspname, $1)")
            .bind(PREFIX)
            .fetch_all(&mut conn)
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
    for name in names {
        let pid = name.strip_prefix(PREFIX).and_then(|r| r.split('_').next()).and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !alive(p)) {
            // Another test may be dropping it too: either way it goes.
            let _ = sqlx::query(&format!("DROP SCHEMA IF EXISTS {name} CASCADE")).execute(&mut conn).await;
        }
    }
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0);
    let schema = format!("{PREFIX}{}_{}_{nanos}", std::process::id(), SEQ.fetch_add(1, Ordering::Relaxed));
    sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut conn).await?;
    conn.close().await?;
    Ok(with_schema(base, &schema))
}

/// Drop a schema made by [`fresh`] (tests that want to leave nothing behind).
pub async fn drop_schema(base: &str, url: &str) -> Result<(), StoreError> {
    let Some(schema) = url.rsplit("options[search_path]=").next().filter(|s| s.starts_with(PREFIX)) else {
        return Ok(());
    };
    let mut conn = sqlx::AnyConnection::connect(base).await?;
    sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).execute(&mut conn).await?;
    conn.close().await?;
    Ok(())
}
