//! Content hashes of evidence, so a claim can tell a changed file from a touched one.
//!
//! `source_path` of a run is a file, or a directory (a tracker run), optionally with a
//! `#fragment` naming one record inside it (`results.csv#row=arm_b`,
//! `mlflow.db#run=<id>`). [`evidence`] hashes exactly what the scan read for that run,
//! so rescanning and re-hashing agree, and a byte-identical copy with a new mtime is
//! not stale.

/// The blake3 hex digest of the evidence behind a run's `source_path`, or `None` when
/// it no longer exists.
pub async fn evidence(source_path: &str) -> Option<String> {
    let _ = source_path;
    todo!("implemented by the ledger work")
}
