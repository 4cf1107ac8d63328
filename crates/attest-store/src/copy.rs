//! Copying one database into another (`attest migrate --to postgres://…`): every
//! table of [`crate::TABLES`], row for row, in one transaction on the target, then the
//! row counts of both compared table by table.
//!
//! Columns are matched by name: a column only one side has (PostgreSQL's generated
//! `items.search`, its `run_curves.rowid`) is left to the target's default. Values are
//! read as the target column's type (BIGINT, DOUBLE PRECISION, TEXT, BYTEA; SQLite's
//! INTEGER, REAL, TEXT, BLOB), so a NULL is sent typed. Ids are copied as they are, so
//! every reference (a run's metrics, a click's item, a library entry's item) still
//! holds; PostgreSQL's identity sequences are then moved past the largest id.

use futures::TryStreamExt;
use sqlx::Row;

use crate::{DbPool, Dialect, Store, TABLES};

/// How many rows each table holds, as the copy found them in both databases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    /// Per table (in [`TABLES`] order): its name and the rows copied.
    pub tables: Vec<(String, u64)>,
}

impl Copied {
    /// Rows copied in all.
    pub fn total(&self) -> u64 {
        self.tables.iter().map(|(_, n)| n).sum()
    }
}

/// Why a copy did not happen (nothing was written), or did not verify.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The target already holds data.
    #[error(
        "the target database already holds data ({table}: {rows} rows); nothing was copied. Copy into an empty database, or pass --replace to delete what the target holds first"
    )]
    NotEmpty {
        /// The first non-empty table.
        table: String,
        /// Its rows.
        rows: i64,
    },
    /// The source and the target are the same database.
    #[error("the source and the target are the same database; name another target")]
    Same,
    /// Counts differ after the copy (the transaction was rolled back).
    #[error(
        "the copy did not verify: {table} has {in_source} rows in the source but {in_target} in the target; nothing was kept in the target. Is something writing to the source? Stop it and copy again"
    )]
    Mismatch {
        /// The table.
        table: String,
        /// Rows in the source.
        in_source: i64,
        /// Rows in the target.
        in_target: i64,
    },
    /// A database error on either side.
    #[error("{0}")]
    Sql(#[from] sqlx::Error),
}

/// A column's type as both dialects store it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Text,
    Bytes,
}

/// The columns of `table` a copy may write: name and type, generated columns left out.
async fn columns(pool: &DbPool, dialect: Dialect, table: &str) -> Result<Vec<(String, Kind)>, sqlx::Error> {
    let rows = match dialect {
        Dialect::Sqlite => {
            // table_xinfo's `hidden` is 2 or 3 for generated columns.
            sqlx::query("SELECT name, upper(type) AS t FROM pragma_table_xinfo($1) WHERE hidden = 0 ORDER BY cid")
                .bind(table)
                .fetch_all(pool)
                .await?
        }
        Dialect::Postgres => {
            sqlx::query(
                "SELECT CAST(column_name AS TEXT) AS name, upper(CAST(data_type AS TEXT)) AS t FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position",
            )
            .bind(table)
            .fetch_all(pool)
            .await?
        }
    };
    Ok(rows
        .iter()
        .map(|r| {
            let t: String = r.get("t");
            let kind = if t.contains("INT") {
                Kind::Int
            } else if t.contains("REAL") || t.contains("DOUBLE") || t.contains("FLOA") {
                Kind::Float
            } else if t.contains("BLOB") || t.contains("BYTEA") {
                Kind::Bytes
            } else {
                Kind::Text
            };
            (r.get::<String, _>("name"), kind)
        })
        .collect())
}

async fn count(pool: &DbPool, table: &str) -> Result<i64, sqlx::Error> {
    sqlx::query(&format!("SELECT count(*) FROM {table}")).fetch_one(pool).await.map(|r| r.get(0))
}

/// Rows per insert statement: under both dialects' bind limits.
const MAX_BINDS: usize = 20_000;

/// Copy every table of `from` into `to`. A target holding any row is refused unless
/// `replace`, which deletes its rows first (in the same transaction). The counts are
/// compared before the commit: a copy that does not verify keeps nothing.
pub async fn copy(from: &Store, to: &Store, replace: bool) -> Result<Copied, CopyError> {
    if from.path().is_some() && from.path() == to.path() {
        return Err(CopyError::Same);
    }
    let mut tx = to.pool().begin().await?;
    if to.dialect() == Dialect::Postgres {
        // One copy at a time, and no attest writer of this schema meanwhile.
        for what in ["ledger", "archive", "library", "copy"] {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended(current_schema() || '/attest/' || $1, 0))")
                .bind(what)
                .execute(&mut *tx)
                .await?;
        }
    }
    for table in TABLES {
        let n: i64 = sqlx::query(&format!("SELECT count(*) FROM {table}")).fetch_one(&mut *tx).await?.get(0);
        if n > 0 && !replace {
            return Err(CopyError::NotEmpty { table: table.to_string(), rows: n });
        }
    }
    if replace {
        for table in TABLES.iter().rev() {
            sqlx::query(&format!("DELETE FROM {table}")).execute(&mut *tx).await?;
        }
    }
    let mut out = Vec::new();
    for table in TABLES {
        let source_cols = columns(from.pool(), from.dialect(), table).await?;
        let target_cols = columns(to.pool(), to.dialect(), table).await?;
        let cols: Vec<(String, Kind)> =
            target_cols.into_iter().filter(|(n, _)| source_cols.iter().any(|(s, _)| s == n)).collect();
        let names: Vec<&str> = cols.iter().map(|(n, _)| n.as_str()).collect();
        let order = match (from.dialect(), *table) {
            (Dialect::Sqlite, _) => " ORDER BY rowid",
            (Dialect::Postgres, "run_curves") => " ORDER BY rowid",
            (Dialect::Postgres, _) => "",
        };
        let select = format!("SELECT {} FROM {table}{order}", names.join(", "));
        let per = (MAX_BINDS / cols.len().max(1)).max(1);
        let mut rows = sqlx::query(&select).fetch(from.pool());
        let mut batch = Vec::with_capacity(per);
        let mut copied = 0u64;
        loop {
            let next = rows.try_next().await?;
            let done = next.is_none();
            if let Some(r) = next {
                batch.push(r);
            }
            if (done && !batch.is_empty()) || batch.len() >= per {
                let sql = format!(
                    "INSERT INTO {table} ({}) VALUES {}",
                    names.join(", "),
                    crate::values_list(batch.len(), cols.len())
                );
                let mut q = sqlx::query(&sql);
                for r in &batch {
                    for (i, (_, kind)) in cols.iter().enumerate() {
                        q = match kind {
                            Kind::Int => q.bind(r.get::<Option<i64>, _>(i)),
                            Kind::Float => q.bind(r.get::<Option<f64>, _>(i)),
                            Kind::Text => q.bind(r.get::<Option<String>, _>(i)),
                            Kind::Bytes => q.bind(r.get::<Option<Vec<u8>>, _>(i)),
                        };
                    }
                }
                copied += q.execute(&mut *tx).await?.rows_affected();
                batch.clear();
            }
            if done {
                break;
            }
        }
        out.push((table.to_string(), copied));
    }
    if to.dialect() == Dialect::Postgres {
        for table in ["runs", "readers", "feeds", "items", "library"] {
            sqlx::query(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), coalesce(max(id), 0) + 1, false) FROM {table}"
            ))
            .execute(&mut *tx)
            .await?;
        }
    }
    for table in TABLES {
        let source = count(from.pool(), table).await?;
        let target: i64 = sqlx::query(&format!("SELECT count(*) FROM {table}")).fetch_one(&mut *tx).await?.get(0);
        if source != target {
            return Err(CopyError::Mismatch { table: table.to_string(), in_source: source, in_target: target });
        }
    }
    tx.commit().await?;
    Ok(Copied { tables: out })
}
