//! The metric payload readers: JSON, JSON lines and CSV result files, metric extraction
//! from a parsed payload, and TensorBoard event records never panic.
//!
//! The body of the `metrics` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

use attest_runs::discover::{formats, payload, tfevents};

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(v) = formats::parse_json(&text) {
        let _ = payload::metrics_from_payload(&v, None, None);
        let _ = payload::metrics_from_payload(&v, Some(3), Some("test"));
    }
    let (rows, _, _) = formats::parse_jsonl(&text);
    for row in rows.iter().take(64) {
        let _ = payload::metrics_from_payload(row, None, None);
    }
    if let Ok(table) = formats::parse_csv(data) {
        let _ = formats::label_column(&table.headers);
        for row in table.rows.iter().take(64) {
            let _ = formats::row_object(&table.headers, row);
        }
    }
    let _ = tfevents::scalars(data);
}
