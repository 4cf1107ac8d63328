//! The feed parser path (RSS, Atom, RDF, JSON Feed through feed-rs, then attest's
//! cleaning and identifiers) never panics, and parses the same bytes the same way.
//!
//! The body of the `feed` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let now = time::OffsetDateTime::from_unix_timestamp(1_790_000_000).unwrap();
    let first = attest_feed::ingest::parse_feed(data, now).map(|f| format!("{f:?}")).map_err(|e| e.to_string());
    let again = attest_feed::ingest::parse_feed(data, now).map(|f| format!("{f:?}")).map_err(|e| e.to_string());
    assert_eq!(first, again);
    let _ = attest_feed::ingest::parse_feeds_toml(&String::from_utf8_lossy(data));
}
