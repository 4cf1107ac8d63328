//! The knowledge surface's library: the concept graph of what a reader has read.
//!
//! Concepts are canonical tags ([`canon`]); tags come from feeds and from a
//! deterministic keyphrase extractor ([`keyphrase`]), both in `attest-tags` and
//! re-exported here; the graph and its operations
//! ([`graph`]) are derived from `(item, tag)` assignments on every call; [`router`]
//! routes `kg.ask`; [`report`] renders `kg-report`. These modules do no I/O: callers
//! pass plain inputs and get plain values back. Only [`tools`] reads the store: it
//! derives the graph from the feed archive and serves the `kg.*` catalogue.
#![warn(missing_docs)]

mod extract;
pub mod graph;
pub mod report;
pub mod router;
pub mod tools;

pub use attest_tags::{Canon, canon, fold_key, keyphrase, normalize};
pub use graph::{Graph, Params};
