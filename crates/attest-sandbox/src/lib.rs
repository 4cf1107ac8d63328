//! Run computations that may hang or crash in separate, resource-limited worker
//! processes, so that the process serving users never does.
//!
//! The parent keeps a [`Pool`] of persistent workers. Each request is one JSON line on a
//! worker's stdin and each answer one JSON line on its stdout. The parent enforces a
//! wall-clock timeout per request and kills and respawns a worker that runs over, crashes,
//! aborts on its memory cap or answers out of protocol; the caller gets a
//! [`SandboxError`] whose message says what happened in words a user understands, and
//! the next call runs on a fresh worker. Workers get `setrlimit` caps on address space,
//! CPU time, open files and core dumps before they start, and are recycled after a number
//! of requests.
//!
//! The worker side is [`worker_main`]: a plain-std loop (no async runtime) that reads
//! request lines, calls a handler and writes answer lines.
//!
//! The crate knows nothing about what is computed; see `specs/sandbox.md` for the
//! process model, the limits and the measured costs. Unix only.
#![warn(missing_docs)]

mod error;
mod limits;
mod pool;
mod worker;

pub use error::{CrashCause, Direction, SandboxError};
pub use limits::{Limits, Spec};
pub use pool::{Pool, Stats};
pub use worker::worker_main;
