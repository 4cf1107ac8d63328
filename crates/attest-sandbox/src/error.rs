//! What can go wrong with a request, in words for the person who sent it.

use std::fmt;
use std::io;
use std::process::ExitStatus;
use std::time::Duration;

/// Why a request got no answer. The `Display` text is written for the user who sent
/// the input: what happened and what to try. After any of these, the next call runs on
/// a fresh worker.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The request ran past the wall-clock timeout; the worker was killed.
    #[error(
        "the computation took longer than {} and was stopped; simplify the input or split it into smaller steps",
        Human(limit)
    )]
    Timeout {
        /// The timeout that was exceeded.
        limit: Duration,
    },
    /// The worker ended without answering: it crashed, aborted on a limit or exited.
    #[error("{cause}")]
    Crashed {
        /// Which limit was probably hit, or what else happened.
        cause: CrashCause,
        /// How the worker ended, when that is known.
        status: Option<ExitStatus>,
        /// The last few KiB the worker wrote to stderr during the request, for the log;
        /// not part of the message.
        stderr_tail: String,
    },
    /// A request or an answer was over its size limit. A request over it is not sent;
    /// a worker whose answer is over it is replaced.
    #[error("{}", too_large(*what, *bytes, *limit))]
    TooLarge {
        /// The request or the answer.
        what: Direction,
        /// Its size in bytes; for an answer, how much had been read when reading stopped.
        bytes: usize,
        /// The limit it went over, in bytes.
        limit: usize,
    },
    /// The worker answered with something that is not one JSON line; it was replaced.
    /// A bug in the worker, never the user's input.
    #[error(
        "the computation failed with an internal error (the worker answered out of protocol: {detail}) and was restarted; please report this with the input"
    )]
    Protocol {
        /// What was wrong with the answer.
        detail: String,
    },
    /// The worker could not be started (a missing or non-executable program, or the
    /// system out of processes or memory).
    #[error("the computation could not be started (the worker process failed to start: {0}); try again later")]
    Spawn(#[source] io::Error),
}

impl SandboxError {
    /// A short stable name for the kind of failure, for machine-readable answers and
    /// logs: `timeout`, `memory_limit`, `stack_overflow`, `cpu_limit`, `aborted`,
    /// `killed`, `signal`, `panic`, `exited`, `crashed`, `request_too_large`,
    /// `response_too_large`, `protocol`, `spawn`.
    pub fn code(&self) -> &'static str {
        match self {
            SandboxError::Timeout { .. } => "timeout",
            SandboxError::Crashed { cause, .. } => cause.code(),
            SandboxError::TooLarge { what: Direction::Request, .. } => "request_too_large",
            SandboxError::TooLarge { what: Direction::Response, .. } => "response_too_large",
            SandboxError::Protocol { .. } => "protocol",
            SandboxError::Spawn(_) => "spawn",
        }
    }

    /// True when the user's input is the likely reason (too slow, too big, too deep),
    /// so rephrasing it may help; false for faults of the worker or the system.
    pub fn is_input_related(&self) -> bool {
        match self {
            SandboxError::Timeout { .. } | SandboxError::TooLarge { .. } => true,
            SandboxError::Crashed { cause, .. } => matches!(
                cause,
                CrashCause::MemoryLimit { .. }
                    | CrashCause::StackOverflow
                    | CrashCause::CpuLimit { .. }
                    | CrashCause::Aborted { .. }
                    | CrashCause::Killed
            ),
            SandboxError::Protocol { .. } | SandboxError::Spawn(_) => false,
        }
    }
}

/// Whether a size limit was hit by what was sent or by what came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The request sent to the worker.
    Request,
    /// The answer read from the worker.
    Response,
}

/// Why a worker ended without answering, as far as its exit status and last words on
/// stderr tell.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CrashCause {
    /// An allocation failed on the address-space cap ("memory allocation of N bytes
    /// failed", then `SIGABRT`).
    MemoryLimit {
        /// The cap, in bytes.
        limit_bytes: u64,
    },
    /// The worker's stack overflowed (deep recursion).
    StackOverflow,
    /// The CPU-time backstop fired (`SIGXCPU`).
    CpuLimit {
        /// The backstop, in CPU seconds.
        seconds: u64,
    },
    /// `SIGABRT` with no message the parent recognised; most often an allocation failing
    /// on the address-space cap.
    Aborted {
        /// The address-space cap, in bytes, named in the message as the likely reason.
        limit_bytes: u64,
    },
    /// `SIGKILL` that the parent did not send: the CPU hard limit, or the system's
    /// out-of-memory killer.
    Killed,
    /// Another signal (for example `SIGSEGV`).
    Signal {
        /// The signal number.
        signal: i32,
    },
    /// The worker panicked: a bug in the computation, not a limit.
    Panic,
    /// The worker exited (with any code, 0 included) instead of answering.
    Exited {
        /// Its exit code.
        code: i32,
    },
    /// The worker closed its output without ending, or its status could not be read.
    Unknown,
}

impl CrashCause {
    /// A short stable name, as in [`SandboxError::code`].
    pub fn code(&self) -> &'static str {
        match self {
            CrashCause::MemoryLimit { .. } => "memory_limit",
            CrashCause::StackOverflow => "stack_overflow",
            CrashCause::CpuLimit { .. } => "cpu_limit",
            CrashCause::Aborted { .. } => "aborted",
            CrashCause::Killed => "killed",
            CrashCause::Signal { .. } => "signal",
            CrashCause::Panic => "panic",
            CrashCause::Exited { .. } => "exited",
            CrashCause::Unknown => "crashed",
        }
    }
}

impl fmt::Display for CrashCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SIMPLIFY: &str = "simplify the input or split it into smaller steps";
        match self {
            CrashCause::MemoryLimit { limit_bytes } => write!(
                f,
                "the computation needed more than its {} of memory and was stopped; {SIMPLIFY}",
                Bytes(*limit_bytes)
            ),
            CrashCause::StackOverflow => write!(
                f,
                "the computation nested too deeply (stack overflow) and was stopped; reduce the nesting in the input"
            ),
            CrashCause::CpuLimit { seconds } => {
                write!(f, "the computation used more than {seconds} s of CPU time and was stopped; {SIMPLIFY}")
            }
            CrashCause::Aborted { limit_bytes } => write!(
                f,
                "the computation aborted, most likely on its {} memory limit, and was stopped; {SIMPLIFY}",
                Bytes(*limit_bytes)
            ),
            CrashCause::Killed => write!(
                f,
                "the computation was killed by the system (out of CPU time or memory) and was stopped; {SIMPLIFY}"
            ),
            CrashCause::Signal { signal } => write!(
                f,
                "the computation crashed ({}) and was stopped; try a simpler input, and report this if it happens again",
                SignalName(*signal)
            ),
            CrashCause::Panic => write!(
                f,
                "the computation failed with an internal error (a bug, not your input's fault) and was stopped; please report this with the input"
            ),
            CrashCause::Exited { code } => write!(
                f,
                "the computation ended without an answer (the worker exited with status {code}); try again, and report this if it happens again"
            ),
            CrashCause::Unknown => write!(
                f,
                "the computation ended without an answer and was stopped; try again, and report this if it happens again"
            ),
        }
    }
}

fn too_large(what: Direction, bytes: usize, limit: usize) -> String {
    match what {
        Direction::Request => format!(
            "the input is too large ({}; the limit is {}); shorten it or split it into smaller pieces",
            Bytes(bytes as u64),
            Bytes(limit as u64)
        ),
        Direction::Response => format!(
            "the result is too large to return (more than {}); ask for a smaller piece of it",
            Bytes(limit as u64)
        ),
    }
}

/// A duration as a person writes it: `2 s`, `1.5 s`, `300 ms`.
pub(crate) struct Human<'a>(pub &'a Duration);

impl fmt::Display for Human<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.0.as_millis();
        if ms >= 1000 {
            if ms.is_multiple_of(1000) { write!(f, "{} s", ms / 1000) } else { write!(f, "{} s", self.0.as_secs_f64()) }
        } else if ms > 0 {
            write!(f, "{ms} ms")
        } else {
            write!(f, "{} µs", self.0.as_micros())
        }
    }
}

/// A byte count in the largest binary unit that keeps it readable: `1 GiB`, `1.5 MiB`.
pub(crate) struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        for (name, size) in UNITS {
            if self.0 >= size {
                let value = self.0 as f64 / size as f64;
                return if self.0.is_multiple_of(size) {
                    write!(f, "{} {name}", self.0 / size)
                } else {
                    write!(f, "{value:.1} {name}")
                };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

struct SignalName(i32);

impl fmt::Display for SignalName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.0 {
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGBUS => "SIGBUS",
            libc::SIGILL => "SIGILL",
            libc::SIGFPE => "SIGFPE",
            libc::SIGABRT => "SIGABRT",
            libc::SIGKILL => "SIGKILL",
            libc::SIGTERM => "SIGTERM",
            libc::SIGXCPU => "SIGXCPU",
            libc::SIGPIPE => "SIGPIPE",
            _ => return write!(f, "signal {}", self.0),
        };
        write!(f, "signal {} ({name})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_sizes_read_as_people_write_them() {
        assert_eq!(Human(&Duration::from_secs(2)).to_string(), "2 s");
        assert_eq!(Human(&Duration::from_millis(1500)).to_string(), "1.5 s");
        assert_eq!(Human(&Duration::from_millis(300)).to_string(), "300 ms");
        assert_eq!(Bytes(1 << 30).to_string(), "1 GiB");
        assert_eq!(Bytes(3 << 19).to_string(), "1.5 MiB");
        assert_eq!(Bytes(100).to_string(), "100 bytes");
    }

    #[test]
    fn messages_say_what_happened_and_what_to_try() {
        let timeout = SandboxError::Timeout { limit: Duration::from_secs(2) };
        assert_eq!(
            timeout.to_string(),
            "the computation took longer than 2 s and was stopped; simplify the input or split it into smaller steps"
        );
        let memory = SandboxError::Crashed {
            cause: CrashCause::MemoryLimit { limit_bytes: 1 << 30 },
            status: None,
            stderr_tail: String::new(),
        };
        assert!(memory.to_string().contains("more than its 1 GiB of memory"), "{memory}");
        assert_eq!(memory.code(), "memory_limit");
        let big = SandboxError::TooLarge { what: Direction::Request, bytes: 3 << 20, limit: 2 << 20 };
        assert!(big.to_string().starts_with("the input is too large (3 MiB; the limit is 2 MiB)"), "{big}");
        let segv = CrashCause::Signal { signal: libc::SIGSEGV };
        assert!(segv.to_string().contains("signal 11 (SIGSEGV)"), "{segv}");
    }
}
