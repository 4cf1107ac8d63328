//! The committed reading corpus, `tests/fixtures/feeds`: one feed of each format, as
//! the feed and concept-graph tests ingest it.

use std::path::PathBuf;

/// The six feeds of the corpus, one per format (RSS, RDF, Atom, JSON Feed).
pub const FILES: [&str; 6] = [
    "synthesis-letters.rss",
    "arxiv-chem-ph.rdf",
    "arxiv-cs.rss",
    "systems-notes.atom",
    "science-wire.json",
    "bulletin-v1.rss",
];

/// The corpus directory.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/feeds")
}

/// A file of the corpus as a subscribable path: canonical when it exists, as given
/// when it does not (so a missing file can be subscribed to and fail on ingest).
pub fn path(name: &str) -> String {
    let p = dir().join(name);
    p.canonicalize().unwrap_or(p).to_string_lossy().into_owned()
}
