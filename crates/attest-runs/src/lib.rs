//! The run ledger and the claim checker, as a library.
//!
//! The ledger reads experiment artifacts already on disk (result JSON, JSONL and CSV
//! files, configs recorded as specs, MLflow and W&B runs), records what is
//! unambiguous, refuses to guess the rest, and never ranks a metric whose direction
//! is undeclared. The claim checker reads claim comments in Markdown, Quarto, R Markdown,
//! LaTeX and Jupyter drafts (through `attest-claims`) and says whether the ledger
//! supports each number.
//!
//! Nothing here knows about MCP: [`tools`] describes the provenance tools as plain
//! catalogue entries, and the binaries serve them.
#![warn(missing_docs)]

pub mod claims;
pub mod compare;
pub mod corpus;
pub mod coverage;
pub mod direction;
pub mod discover;
pub mod error;
pub mod family;
pub mod hash;
pub mod ledger;
pub mod router;
pub mod tools;

pub use error::LedgerError;
