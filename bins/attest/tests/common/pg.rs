//! A throwaway PostgreSQL schema for a test that drives real binaries, when
//! `ATTEST_TEST_POSTGRES` names a test database (CI: `postgres://root@127.0.0.1:5432/test`):
//! made by `attest_store::scratch`, emptied on request, dropped when the guard goes.
//! Every call runs on a thread of its own, so sync and async tests can use it alike.

use sqlx::Connection;
use sqlx::any::AnyRow;

/// A fresh schema of the test database, dropped on drop.
pub struct Scratch {
    /// The test database's address (`ATTEST_TEST_POSTGRES`).
    pub base: String,
    /// The address that selects the schema (`…?options[search_path]=attest_t_…`): what
    /// `ATTEST_DB` is set to.
    pub url: String,
}

/// Run `f` on a current-thread runtime on a thread of its own.
fn blocking<T: Send + 'static>(f: impl std::future::Future<Output = T> + Send + 'static) -> T {
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(f)
    })
    .join()
    .unwrap()
}

impl Scratch {
    /// A new empty schema, or `None` when tests are not to use PostgreSQL.
    pub fn new() -> Option<Scratch> {
        let base = attest_store::scratch::base()?;
        let b = base.clone();
        let url = blocking(async move { attest_store::scratch::fresh(&b).await }).expect("a fresh schema");
        Some(Scratch { base, url })
    }

    /// The schema's name.
    pub fn schema(&self) -> String {
        self.url.rsplit("options[search_path]=").next().unwrap().to_string()
    }

    /// Empty the schema (dropped and made again under the same name, so `url` stays):
    /// the next attest to open it starts from nothing, as from a new SQLite file.
    pub fn reset(&self) {
        let (base, schema) = (self.base.clone(), self.schema());
        blocking(async move {
            let mut c = sqlx::AnyConnection::connect(&base).await.unwrap();
            sqlx::query(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).execute(&mut c).await.unwrap();
            sqlx::query(&format!("CREATE SCHEMA {schema}")).execute(&mut c).await.unwrap();
            c.close().await.unwrap();
        });
    }

    /// The rows of `sql` in the schema, as a fresh connection sees them.
    pub fn rows(&self, sql: &str) -> Result<Vec<AnyRow>, sqlx::Error> {
        let (url, sql) = (self.url.clone(), sql.to_string());
        blocking(async move {
            sqlx::any::install_default_drivers();
            let mut c = sqlx::AnyConnection::connect(&url).await?;
            let rows = sqlx::query(&sql).fetch_all(&mut c).await;
            c.close().await?;
            rows
        })
    }

    /// PostgreSQL's counterpart of SQLite's `integrity_check` for what a killed client
    /// could have left: every table of the schema reads in full (a sequential scan of
    /// its heap). A client's `kill -9` cannot tear the server's pages (the server
    /// rolls the dead connection's transaction back); what could go wrong is attest
    /// committing half its work, which the callers' counts check, or a lock left held,
    /// which the rerun they make after each kill would wait on. Panics otherwise.
    pub fn check(&self) {
        sqlx::any::install_default_drivers();
        let schema = self.schema();
        let tables = self
            .rows(&format!("SELECT CAST(tablename AS TEXT) FROM pg_tables WHERE schemaname = '{schema}'"))
            .expect("list the schema's tables");
        for t in tables {
            let name: String = sqlx::Row::get(&t, 0);
            self.rows(&format!("SELECT count(*) FROM \"{name}\"")).unwrap_or_else(|e| panic!("reading {name}: {e}"));
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let (base, url) = (self.base.clone(), self.url.clone());
        let _ = blocking(async move { attest_store::scratch::drop_schema(&base, &url).await });
    }
}
