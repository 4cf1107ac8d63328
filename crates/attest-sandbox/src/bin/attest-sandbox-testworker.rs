//! A worker for attest-sandbox's own tests and benchmarks: it misbehaves on request.
//!
//! With no argument it serves [`attest_sandbox::worker_main`] with a handler that reads
//! `op` from each request: `echo` (answers `{"pid", "echo"}`), `sleep` (`ms`), `spin`
//! (forever), `alloc` (until the memory cap), `recurse` (until the stack overflows),
//! `abort`, `exit` (`code`), `panic`, `println` (stray stdout output, then an answer),
//! `stderr` (`bytes` of noise on stderr, then an answer), `huge` (an answer of `bytes`).
//! With the argument `garbage` it answers every line with text that is not JSON; with
//! `two-lines`, with two JSON lines; with `partial`, half a line and then it exits.

use std::hint::black_box;
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::{Value, json};

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("garbage") => raw(|out| out.write_all(b"this is not json\n")),
        Some("two-lines") => raw(|out| out.write_all(b"{\"a\":1}\n{\"b\":2}\n")),
        Some("partial") => {
            let _ = raw_once(|out| out.write_all(b"{\"half\":"));
            ExitCode::from(7)
        }
        _ => attest_sandbox::worker_main(handle),
    }
}

fn raw(answer: impl Fn(&mut std::io::StdoutLock<'_>) -> std::io::Result<()>) -> ExitCode {
    loop {
        match raw_once(&answer) {
            Ok(true) => {}
            _ => return ExitCode::SUCCESS,
        }
    }
}

fn raw_once(answer: impl Fn(&mut std::io::StdoutLock<'_>) -> std::io::Result<()>) -> std::io::Result<bool> {
    let mut line = String::new();
    if std::io::stdin().lock().read_line(&mut line)? == 0 {
        return Ok(false);
    }
    let mut out = std::io::stdout().lock();
    answer(&mut out)?;
    out.flush()?;
    Ok(true)
}

fn pid() -> u32 {
    std::process::id()
}

fn handle(request: Value) -> Value {
    let number = |key: &str| request[key].as_u64().unwrap_or(0);
    match request["op"].as_str().unwrap_or("echo") {
        "echo" => json!({ "pid": pid(), "echo": request["value"] }),
        "sleep" => {
            std::thread::sleep(Duration::from_millis(number("ms")));
            json!({ "pid": pid(), "slept": number("ms") })
        }
        "spin" => {
            let mut x = 0u64;
            loop {
                x = black_box(x.wrapping_add(1));
            }
        }
        "alloc" => {
            let mut hoard = Vec::new();
            loop {
                hoard.push(black_box(vec![1u8; 16 << 20]));
            }
        }
        "recurse" => json!({ "depth": recurse(black_box(1)) }),
        "abort" => std::process::abort(),
        "exit" => std::process::exit(number("code") as i32),
        "panic" => panic!("deliberate panic for a test"),
        "println" => {
            println!("stray output that must not reach the protocol");
            json!({ "pid": pid(), "printed": true })
        }
        "stderr" => {
            let noise = vec![b'e'; number("bytes") as usize];
            let _ = std::io::stderr().write_all(&noise);
            json!({ "pid": pid(), "noise": noise.len() })
        }
        "env" => json!({ "env": std::env::vars().collect::<Vec<_>>() }),
        "limits" => json!({
            "as": limit(libc::RLIMIT_AS),
            "cpu": limit(libc::RLIMIT_CPU),
            "nofile": limit(libc::RLIMIT_NOFILE),
            "core": limit(libc::RLIMIT_CORE),
        }),
        "huge" => json!({ "s": "x".repeat(number("bytes") as usize) }),
        "gate" => {
            // Busy until the file `path` exists: a slow call whose end the test decides.
            let path = std::path::PathBuf::from(request["path"].as_str().unwrap_or(""));
            while !path.exists() {
                std::thread::sleep(Duration::from_millis(5));
            }
            json!({ "pid": pid(), "gate": true })
        }
        other => json!({ "error": format!("unknown op {other}") }),
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
type Resource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type Resource = libc::c_int;

/// `[soft, hard]` of a resource limit.
fn limit(resource: Resource) -> [libc::rlim_t; 2] {
    let mut value = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a valid pointer to a local struct.
    unsafe { libc::getrlimit(resource, &mut value) };
    [value.rlim_cur, value.rlim_max]
}

fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth; 64]);
    if black_box(depth) == 0 { frame[0] } else { recurse(depth + 1).wrapping_add(frame[63]) }
}
