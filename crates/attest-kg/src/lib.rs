//! The knowledge surface's library: the concept graph of what a reader has read.
//!
//! Concepts are canonical tags ([`canon`]); tags come from feeds and from a
//! deterministic keyphrase extractor ([`keyphrase`]); the graph and its operations
//! ([`graph`]) are derived from `(item, tag)` assignments on every call; [`router`]
//! routes `kg.ask`; [`report`] renders `kg-report`. No I/O anywhere: callers pass plain
//! inputs and get plain values back.
#![warn(missing_docs)]

pub mod canon;
pub mod graph;
pub mod keyphrase;
pub mod report;
pub mod router;

pub use canon::{Canon, fold_key, normalize};
pub use graph::{Graph, Params};
