//! The knowledge surface's library: the concept graph of what a reader has read.
//!
//! Concepts are canonical tags ([`canon`]); tags come from feeds and from a
//! deterministic keyphrase extractor ([`keyphrase`]); the graph and its operations
//! ([`graph`]) are derived from `(item, tag)` assignments on every call; [`router`]
//! routes `kg.ask`; [`report`] renders `kg-report`. These modules do no I/O: callers
//! pass plain inputs and get plain values back. Only [`tools`] reads the store: it
//! derives the graph from the feed archive and serves the `kg.*` catalogue.
#![warn(missing_docs)]

pub mod canon;
pub mod graph;
pub mod keyphrase;
pub mod report;
pub mod router;
pub mod tools;

pub use canon::{Canon, fold_key, normalize};
pub use graph::{Graph, Params};
