//! The parent side: a pool of persistent workers.

use std::collections::VecDeque;
use std::fmt;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::error::{CrashCause, Direction, SandboxError};
use crate::limits::{Limits, Spec};

/// How much of a worker's stderr is kept for the log when it crashes.
const STDERR_TAIL_BYTES: usize = 4096;
/// How long to wait for a worker that closed its output to end.
const REAP_GRACE: Duration = Duration::from_millis(500);
/// How long to wait for the rest of a dead worker's stderr.
const STDERR_GRACE: Duration = Duration::from_millis(200);

/// A pool of persistent worker processes that answer one JSON request at a time each.
///
/// Cheap to clone (all clones share the workers) and `Send + Sync`. Workers are started
/// lazily, on the first call that finds none idle, so creating a pool starts nothing and
/// needs no runtime; [`call`](Pool::call) must run inside a tokio runtime. Dropping the
/// last clone kills the idle workers.
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    spec: Spec,
    /// Who may use a worker next: one permit per worker that may exist, handed to the
    /// waiting lanes in turn.
    turns: Mutex<Turns>,
    idle: Mutex<Vec<Worker>>,
    spawned: AtomicU64,
    answered: AtomicU64,
    failed: AtomicU64,
}

/// Counters over a pool's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Workers started.
    pub spawned: u64,
    /// Calls that returned an answer.
    pub answered: u64,
    /// Calls that returned an error (size refusals included).
    pub failed: u64,
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pool").field("spec", &self.inner.spec).field("stats", &self.stats()).finish()
    }
}

impl Pool {
    /// A pool that runs `spec.program` as its workers, at most `spec.workers` at once.
    pub fn new(mut spec: Spec) -> Pool {
        spec.workers = spec.workers.max(1);
        let turns = Mutex::new(Turns { free: spec.workers, waiting: VecDeque::new() });
        Pool {
            inner: Arc::new(Inner {
                spec,
                turns,
                idle: Mutex::new(Vec::new()),
                spawned: AtomicU64::new(0),
                answered: AtomicU64::new(0),
                failed: AtomicU64::new(0),
            }),
        }
    }

    /// What the workers run and their limits.
    pub fn spec(&self) -> &Spec {
        &self.inner.spec
    }

    /// Counters over the pool's life.
    pub fn stats(&self) -> Stats {
        Stats {
            spawned: self.inner.spawned.load(Ordering::Relaxed),
            answered: self.inner.answered.load(Ordering::Relaxed),
            failed: self.inner.failed.load(Ordering::Relaxed),
        }
    }

    /// How many calls are waiting for a worker right now.
    pub fn waiting(&self) -> usize {
        let turns = self.inner.turns.lock().unwrap_or_else(|e| e.into_inner());
        turns.waiting.iter().map(|(_, q)| q.iter().filter(|tx| !tx.is_closed()).count()).sum()
    }

    /// [`call_in`](Pool::call_in) on lane 0, for a caller that is the pool's only user.
    pub async fn call(&self, request: &Value) -> Result<Value, SandboxError> {
        self.call_in(0, request).await
    }

    /// Send `request` to an idle worker on behalf of `lane` (a session, a client: any
    /// caller whose calls should queue behind each other) and return its answer.
    ///
    /// When every worker is busy, calls wait per lane, and each worker that frees up is
    /// handed to the waiting lanes in turn, so a lane with many slow calls queued delays
    /// another lane's call by at most one call per worker, never by its whole queue
    /// (the wall-clock timeout starts once a worker is assigned). A request over `max_request_bytes` is refused without being
    /// sent. On a timeout, crash, oversized answer or out-of-protocol answer the worker
    /// is killed and reaped, and the next call starts a fresh one. Dropping the returned
    /// future mid-request kills the worker too, so a late answer can never reach another
    /// call.
    pub async fn call_in(&self, lane: u64, request: &Value) -> Result<Value, SandboxError> {
        let result = self.call_inner(lane, request).await;
        let counter = if result.is_ok() { &self.inner.answered } else { &self.inner.failed };
        counter.fetch_add(1, Ordering::Relaxed);
        result
    }

    async fn call_inner(&self, lane: u64, request: &Value) -> Result<Value, SandboxError> {
        let limits = &self.inner.spec.limits;
        let mut line = serde_json::to_vec(request).expect("a JSON value always serializes");
        if line.len() > limits.max_request_bytes {
            return Err(SandboxError::TooLarge {
                what: Direction::Request,
                bytes: line.len(),
                limit: limits.max_request_bytes,
            });
        }
        line.push(b'\n');

        let _turn = self.inner.turn(lane).await;
        let mut worker = loop {
            let idle = self.inner.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
            let Some(mut worker) = idle else { break self.spawn()? };
            if worker.alive() {
                break worker;
            }
            // A worker that died while idle (killed from outside, say) would make this
            // innocent request fail: it is reaped and another is taken.
            let tail = worker.stderr_tail().await;
            tracing::warn!(pid = worker.pid, stderr = %tail, "idle sandbox worker had exited; replacing it");
        };
        worker.clear_stderr_tail();

        let started = Instant::now();
        let exchanged =
            tokio::time::timeout(limits.wall_timeout, worker.exchange(&line, limits.max_response_bytes)).await;
        let answer = match exchanged {
            Err(_elapsed) => {
                let pid = worker.pid;
                let tail = worker.kill().await;
                tracing::warn!(pid, limit = ?limits.wall_timeout, stderr = %tail, "sandbox worker timed out; killed");
                return Err(SandboxError::Timeout { limit: limits.wall_timeout });
            }
            Ok(Err(Failure::Ended(io_error))) => return Err(worker.crashed(limits, io_error).await),
            Ok(Err(Failure::TooLarge(bytes))) => {
                let tail = worker.kill().await;
                tracing::warn!(pid = worker.pid, bytes, stderr = %tail, "sandbox worker answer too large; killed");
                return Err(SandboxError::TooLarge {
                    what: Direction::Response,
                    bytes,
                    limit: limits.max_response_bytes,
                });
            }
            Ok(Ok(answer)) => answer,
        };
        let elapsed = started.elapsed();

        if !worker.stdout.buffer().is_empty() {
            let tail = worker.kill().await;
            tracing::warn!(pid = worker.pid, stderr = %tail, "sandbox worker wrote more than one line; killed");
            return Err(SandboxError::Protocol { detail: "more than one line for one request".into() });
        }
        let value = match serde_json::from_slice::<Value>(&answer) {
            Ok(value) => value,
            Err(error) => {
                let tail = worker.kill().await;
                tracing::warn!(pid = worker.pid, %error, stderr = %tail, "sandbox worker answered with non-JSON; killed");
                return Err(SandboxError::Protocol { detail: format!("not JSON: {error}") });
            }
        };

        worker.served += 1;
        worker.busy += elapsed;
        if worker.should_retire(limits) {
            tracing::debug!(pid = worker.pid, served = worker.served, busy = ?worker.busy, "retiring sandbox worker");
            worker.retire();
        } else {
            self.inner.idle.lock().unwrap_or_else(|e| e.into_inner()).push(worker);
        }
        Ok(value)
    }

    fn spawn(&self) -> Result<Worker, SandboxError> {
        let spec = &self.inner.spec;
        let mut command = Command::new(&spec.program);
        command
            .args(&spec.args)
            .env_clear()
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let rlimits = RLimits::from(&spec.limits);
        // SAFETY: the closure runs in the forked child before exec and only calls
        // getrlimit/setrlimit, which are async-signal-safe; it allocates nothing and
        // touches no locks.
        unsafe {
            command.pre_exec(move || rlimits.apply());
        }
        let mut child = command.spawn().map_err(SandboxError::Spawn)?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SandboxError::Spawn(io::Error::other("the worker's pipes were not set up")));
        };
        let tail = Arc::new(Mutex::new(Vec::new()));
        let drain = tokio::spawn(drain_stderr(stderr, Arc::clone(&tail)));
        self.inner.spawned.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(pid, program = %spec.program.display(), "sandbox worker started");
        Ok(Worker {
            child,
            stdin,
            stdout: BufReader::with_capacity(64 * 1024, stdout),
            stderr_tail: tail,
            drain: Some(drain),
            pid,
            served: 0,
            busy: Duration::ZERO,
        })
    }
}

/// The queue in front of the workers: permits left, and the lanes waiting, in the
/// order they get their next turn, each with its own calls in arrival order.
struct Turns {
    free: usize,
    waiting: VecDeque<(u64, VecDeque<oneshot::Sender<()>>)>,
}

impl Inner {
    /// Wait for this lane's turn at a worker.
    async fn turn(&self, lane: u64) -> Turn<'_> {
        let rx = {
            let mut turns = self.turns.lock().unwrap_or_else(|e| e.into_inner());
            if turns.free > 0 {
                turns.free -= 1;
                return Turn { inner: self };
            }
            let (tx, rx) = oneshot::channel();
            match turns.waiting.iter_mut().find(|(l, _)| *l == lane) {
                Some((_, queue)) => queue.push_back(tx),
                None => turns.waiting.push_back((lane, VecDeque::from([tx]))),
            }
            rx
        };
        let mut wait = Waiting { rx, inner: self, granted: false };
        // The sender lives in the queue until it is used, and the pool outlives this call.
        let _ = (&mut wait.rx).await;
        wait.granted = true;
        Turn { inner: self }
    }

    /// A worker's permit came back: hand it to the next lane in turn, or keep it.
    fn give_back(&self) {
        let mut turns = self.turns.lock().unwrap_or_else(|e| e.into_inner());
        while let Some((lane, mut queue)) = turns.waiting.pop_front() {
            let next = queue.pop_front();
            if !queue.is_empty() {
                // This lane has had its turn: it goes to the back.
                turns.waiting.push_back((lane, queue));
            }
            if let Some(tx) = next
                && tx.send(()).is_ok()
            {
                return;
            }
            // That caller gave up waiting: try the next.
        }
        turns.free += 1;
    }
}

/// A call's use of one worker; the permit goes back when it is dropped.
struct Turn<'a> {
    inner: &'a Inner,
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        self.inner.give_back();
    }
}

/// A call waiting for its turn. Dropped before it got one, it leaves the queue; dropped
/// just after one was handed to it, it hands that on.
struct Waiting<'a> {
    rx: oneshot::Receiver<()>,
    inner: &'a Inner,
    granted: bool,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.granted {
            self.rx.close();
            if self.rx.try_recv().is_ok() {
                self.inner.give_back();
            }
        }
    }
}

/// Why an exchange got no answer line.
enum Failure {
    /// End of output, or a broken pipe: the worker is gone or going.
    Ended(Option<io::Error>),
    /// The answer line passed the limit after this many bytes.
    TooLarge(usize),
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_tail: Arc<Mutex<Vec<u8>>>,
    drain: Option<JoinHandle<()>>,
    pid: u32,
    served: u32,
    /// Wall time spent on requests: an upper bound on the CPU time they used in a
    /// single-threaded worker.
    busy: Duration,
}

impl Worker {
    /// Whether the process is still running (reaping it if it has exited).
    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Write one request line and read one answer line.
    async fn exchange(&mut self, line: &[u8], max_response: usize) -> Result<Vec<u8>, Failure> {
        if let Err(error) = self.stdin.write_all(line).await {
            return Err(Failure::Ended(Some(error)));
        }
        if let Err(error) = self.stdin.flush().await {
            return Err(Failure::Ended(Some(error)));
        }
        let mut answer = Vec::new();
        loop {
            let available = match self.stdout.fill_buf().await {
                Ok(available) => available,
                Err(error) => return Err(Failure::Ended(Some(error))),
            };
            if available.is_empty() {
                return Err(Failure::Ended(None));
            }
            if let Some(end) = available.iter().position(|&b| b == b'\n') {
                if answer.len() + end > max_response {
                    return Err(Failure::TooLarge(answer.len() + end));
                }
                answer.extend_from_slice(&available[..end]);
                self.stdout.consume(end + 1);
                return Ok(answer);
            }
            let n = available.len();
            if answer.len() + n > max_response {
                return Err(Failure::TooLarge(answer.len() + n));
            }
            answer.extend_from_slice(available);
            self.stdout.consume(n);
        }
    }

    fn should_retire(&self, limits: &Limits) -> bool {
        self.served >= limits.max_requests_per_worker
            || self.busy + limits.wall_timeout >= Duration::from_secs(limits.cpu_seconds)
    }

    fn clear_stderr_tail(&self) {
        self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Kill the worker, reap it, and return the end of its stderr.
    async fn kill(&mut self) -> String {
        if tokio::time::timeout(REAP_GRACE, self.child.kill()).await.is_err() {
            tracing::warn!(pid = self.pid, "sandbox worker not reaped after SIGKILL; left to the runtime");
        }
        self.stderr_tail().await
    }

    /// The worker's output ended: reap it and say why it ended.
    async fn crashed(mut self, limits: &Limits, io_error: Option<io::Error>) -> SandboxError {
        let status = match tokio::time::timeout(REAP_GRACE, self.child.wait()).await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(_)) => None,
            Err(_elapsed) => {
                // It closed its output but keeps running: not a worker any more.
                let _ = tokio::time::timeout(REAP_GRACE, self.child.kill()).await;
                None
            }
        };
        let stderr_tail = self.stderr_tail().await;
        let cause = classify(status, &stderr_tail, limits);
        tracing::warn!(
            pid = self.pid,
            ?status,
            cause = cause.code(),
            io_error = ?io_error,
            stderr = %stderr_tail,
            "sandbox worker ended without answering"
        );
        SandboxError::Crashed { cause, status, stderr_tail }
    }

    /// Wait briefly for the stderr drain to finish (the worker is dead) and return the tail.
    async fn stderr_tail(&mut self) -> String {
        if let Some(drain) = self.drain.take() {
            let _ = tokio::time::timeout(STDERR_GRACE, drain).await;
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&tail).trim().to_string()
    }

    /// Kill an idle worker in the background (it holds no request).
    fn retire(self) {
        let mut child = self.child;
        drop(self.stdin);
        tokio::spawn(async move {
            let _ = child.kill().await;
        });
    }
}

async fn drain_stderr(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut chunk = vec![0u8; 8192];
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                tail.extend_from_slice(&chunk[..n]);
                if tail.len() > STDERR_TAIL_BYTES {
                    let excess = tail.len() - STDERR_TAIL_BYTES;
                    tail.drain(..excess);
                }
            }
        }
    }
}

/// Tell from how a worker ended and its last words which limit it probably hit.
fn classify(status: Option<ExitStatus>, stderr_tail: &str, limits: &Limits) -> CrashCause {
    let memory = CrashCause::MemoryLimit { limit_bytes: limits.address_space_bytes };
    let said_memory = stderr_tail.contains("memory allocation of") && stderr_tail.contains("failed");
    let said_stack = stderr_tail.contains("has overflowed its stack");
    let Some(status) = status else { return CrashCause::Unknown };
    if let Some(signal) = status.signal() {
        return match signal {
            _ if said_stack => CrashCause::StackOverflow,
            _ if said_memory => memory,
            libc::SIGXCPU => CrashCause::CpuLimit { seconds: limits.cpu_seconds },
            libc::SIGKILL => CrashCause::Killed,
            libc::SIGABRT => CrashCause::Aborted { limit_bytes: limits.address_space_bytes },
            signal => CrashCause::Signal { signal },
        };
    }
    match status.code() {
        Some(101) if stderr_tail.contains("panicked") => CrashCause::Panic,
        Some(_) if said_memory => memory,
        Some(code) => CrashCause::Exited { code },
        None => CrashCause::Unknown,
    }
}

/// The `setrlimit` values, copied into the pre-exec closure.
#[derive(Clone, Copy)]
struct RLimits {
    address_space: u64,
    cpu_seconds: u64,
    open_files: u64,
}

impl From<&Limits> for RLimits {
    fn from(limits: &Limits) -> Self {
        RLimits {
            address_space: limits.address_space_bytes,
            cpu_seconds: limits.cpu_seconds,
            open_files: limits.open_files,
        }
    }
}

impl RLimits {
    /// Runs in the forked child: async-signal-safe calls only, no allocation.
    fn apply(self) -> io::Result<()> {
        set_limit(libc::RLIMIT_AS, self.address_space, self.address_space)?;
        // SIGXCPU at the soft limit, SIGKILL a second later should it be ignored.
        set_limit(libc::RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds.saturating_add(1))?;
        set_limit(libc::RLIMIT_NOFILE, self.open_files, self.open_files)?;
        set_limit(libc::RLIMIT_CORE, 0, 0)?;
        Ok(())
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// Lower a limit to `soft`/`hard`, never above the current hard limit (an unprivileged
/// process cannot raise it).
fn set_limit(resource: Resource, soft: u64, hard: u64) -> io::Result<()> {
    let mut current = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        if libc::getrlimit(resource, &mut current) != 0 {
            return Err(io::Error::last_os_error());
        }
        let hard = (hard as libc::rlim_t).min(current.rlim_max);
        let soft = (soft as libc::rlim_t).min(hard);
        let wanted = libc::rlimit { rlim_cur: soft, rlim_max: hard };
        if libc::setrlimit(resource, &wanted) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exited(code: i32) -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(code << 8))
    }

    fn signalled(signal: i32) -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(signal))
    }

    #[test]
    fn classify_names_the_limit_from_status_and_stderr() {
        let limits = Limits::default();
        let gib = 1 << 30;
        assert_eq!(
            classify(signalled(libc::SIGABRT), "memory allocation of 16777216 bytes failed", &limits),
            CrashCause::MemoryLimit { limit_bytes: gib }
        );
        assert_eq!(
            classify(signalled(libc::SIGABRT), "thread 'main' has overflowed its stack\nfatal runtime error", &limits),
            CrashCause::StackOverflow
        );
        assert_eq!(classify(signalled(libc::SIGABRT), "", &limits), CrashCause::Aborted { limit_bytes: gib });
        assert_eq!(classify(signalled(libc::SIGXCPU), "", &limits), CrashCause::CpuLimit { seconds: 30 });
        assert_eq!(classify(signalled(libc::SIGKILL), "", &limits), CrashCause::Killed);
        assert_eq!(classify(signalled(libc::SIGSEGV), "", &limits), CrashCause::Signal { signal: libc::SIGSEGV });
        assert_eq!(classify(exited(101), "thread 'main' panicked at src/x.rs:1:1", &limits), CrashCause::Panic);
        assert_eq!(classify(exited(101), "", &limits), CrashCause::Exited { code: 101 });
        assert_eq!(classify(exited(0), "", &limits), CrashCause::Exited { code: 0 });
        assert_eq!(classify(None, "", &limits), CrashCause::Unknown);
    }

    #[test]
    fn pool_is_send_sync_and_clone() {
        fn check<T: Send + Sync + Clone + 'static>() {}
        check::<Pool>();
    }
}
