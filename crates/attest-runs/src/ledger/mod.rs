//! The run ledger: scan, list, detail, compare and record, over an
//! [`attest_store::Store`].
//!
//! A scan reads every project directory first (no database work), then writes all
//! of it in one transaction: nothing is half-written when a scan fails or is
//! cancelled. Run ids survive rescans: a run is upserted by `(project, name)`, runs
//! that vanished from a rescanned project are deleted, and metric rows are replaced.
//! Metric rows are stored as curves, one database row per run, metric and split
//! ([`curve`]).

use std::path::PathBuf;

use attest_store::Store;

pub mod curve;
mod query;
mod record;
mod scan;

pub use query::{FamilyCount, MetricRow, RunDetail, RunList, RunSummary};
pub use record::{PlannedFile, RecordOutcome, RecordRequest};
pub use scan::{EmptyProject, ProjectScan, ScanProgress, ScanReport, SkippedFile};

/// How a ledger finds what it needs beyond the database.
#[derive(Debug, Clone, Default)]
pub struct LedgerOptions {
    /// An explicit metric-direction file (`ATTEST_METRIC_DIRECTIONS`); it replaces the
    /// research root's `metric_directions.toml`.
    pub metric_directions: Option<PathBuf>,
    /// The research root, used for the directions file when a project's own root is
    /// not known from a scan.
    pub root: Option<PathBuf>,
}

/// The run ledger.
#[derive(Debug, Clone)]
pub struct Ledger {
    store: Store,
    opts: LedgerOptions,
}

fn is_plain_name(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && !s.contains(['/', '\\']) && s != ".."
}

impl Ledger {
    /// A ledger over an open store.
    pub fn new(store: Store, opts: LedgerOptions) -> Ledger {
        Ledger { store, opts }
    }

    /// The store underneath.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The options in effect.
    pub fn options(&self) -> &LedgerOptions {
        &self.opts
    }
}
