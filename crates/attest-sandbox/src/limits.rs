//! What to run and within which limits.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Resource limits for workers and requests.
///
/// The address-space, CPU, open-file and core limits are set with `setrlimit` in the
/// worker before it executes, and hold for the worker's whole life. The wall-clock
/// timeout and the size limits are enforced by the parent on each request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// `RLIMIT_AS`: the worker's virtual address space, in bytes. An allocation past it
    /// fails and a Rust worker aborts. `u64::MAX` means no cap. Default 1 GiB.
    pub address_space_bytes: u64,
    /// `RLIMIT_CPU`: CPU seconds over the worker's whole life (soft limit: `SIGXCPU`;
    /// the hard limit, one second later, is `SIGKILL`). Only a backstop: it accumulates
    /// over all the requests a persistent worker serves, so the parent also retires a
    /// worker before its summed request time could reach it. Default 30.
    pub cpu_seconds: u64,
    /// Wall-clock time one request may take in the worker, enforced by the parent, which
    /// then kills the worker. Time spent waiting for a free worker is not counted.
    /// Default 2 s.
    pub wall_timeout: Duration,
    /// A worker is replaced after serving this many requests. Default 500.
    pub max_requests_per_worker: u32,
    /// A request whose JSON encoding is longer than this is refused without being sent.
    /// Default 2 MiB.
    pub max_request_bytes: usize,
    /// An answer line longer than this is refused and the worker replaced. Default 8 MiB.
    pub max_response_bytes: usize,
    /// `RLIMIT_NOFILE`: open file descriptors in the worker. Default 16.
    pub open_files: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            address_space_bytes: 1 << 30,
            cpu_seconds: 30,
            wall_timeout: Duration::from_secs(2),
            max_requests_per_worker: 500,
            max_request_bytes: 2 << 20,
            max_response_bytes: 8 << 20,
            open_files: 16,
        }
    }
}

/// How to start a worker, and how many.
#[derive(Debug, Clone)]
pub struct Spec {
    /// The worker executable, best an absolute path (for the same binary,
    /// `std::env::current_exe()`).
    pub program: PathBuf,
    /// Its arguments, for example `["worker"]`.
    pub args: Vec<OsString>,
    /// Its whole environment: the worker does not inherit the parent's.
    pub env: Vec<(OsString, OsString)>,
    /// Resource limits.
    pub limits: Limits,
    /// How many workers may run at once; also how many requests run concurrently.
    /// Values below 1 count as 1.
    pub workers: usize,
}

impl Spec {
    /// One worker running `program` with no arguments, no environment and default limits.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Spec { program: program.into(), args: Vec::new(), env: Vec::new(), limits: Limits::default(), workers: 1 }
    }
}
