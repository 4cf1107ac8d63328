//! The worker side: read request lines, answer each with one line.

use std::fs::File;
use std::io::{self, BufRead, BufWriter, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::ExitCode;

use serde_json::{Value, json};

/// Serve requests on stdin until it closes: each line is one JSON request, passed to
/// `handler`; its result is written as one JSON line and flushed. A line that is not
/// JSON is answered with `{"error": "..."}`; blank lines are skipped. Returns success at
/// end of input, failure when the answer can no longer be written (the parent is gone).
///
/// Call it first thing in `main` of the worker (before any logging set-up or async
/// runtime), for example when the binary is started with a `worker` argument:
///
/// ```no_run
/// fn main() -> std::process::ExitCode {
///     if std::env::args().nth(1).as_deref() == Some("worker") {
///         return attest_sandbox::worker_main(|request| request);
///     }
///     // ... the server ...
///     std::process::ExitCode::SUCCESS
/// }
/// ```
///
/// Before serving, the answers are moved to a private copy of stdout and file
/// descriptor 1 is pointed at stderr, so a stray `println!` in the handler lands in the
/// parent's stderr log instead of corrupting the protocol. A panic in the handler ends
/// the worker (exit status 101); the parent reports it and starts a fresh worker.
pub fn worker_main(handler: impl Fn(Value) -> Value) -> ExitCode {
    let answers = match private_stdout() {
        Ok(file) => file,
        Err(error) => {
            eprintln!("attest-sandbox worker: cannot set up its output: {error}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = BufWriter::new(answers);
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => return ExitCode::SUCCESS,
            Ok(_) => {}
            Err(error) => {
                eprintln!("attest-sandbox worker: cannot read a request: {error}");
                return ExitCode::FAILURE;
            }
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let answer = match serde_json::from_slice::<Value>(&line) {
            Ok(request) => handler(request),
            Err(error) => json!({ "error": format!("the request is not a JSON value on one line: {error}") }),
        };
        let written = serde_json::to_writer(&mut out, &answer)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(error) = written {
            eprintln!("attest-sandbox worker: cannot write an answer: {error}");
            return ExitCode::FAILURE;
        }
    }
}

/// Duplicate stdout to a private descriptor for the answers and point descriptor 1 at
/// stderr.
fn private_stdout() -> io::Result<File> {
    // Flush anything already buffered for fd 1 before it is redirected.
    io::stdout().flush()?;
    // SAFETY: plain descriptor calls; the new descriptor is owned by the returned File
    // and nothing else uses it.
    unsafe {
        let fd = libc::fcntl(libc::STDOUT_FILENO, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let owned = OwnedFd::from_raw_fd(fd);
        if libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(File::from(owned))
    }
}
