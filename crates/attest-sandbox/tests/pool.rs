//! The pool against a worker that misbehaves on request: each failure comes back as the
//! right error, and the next call succeeds on a fresh worker.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use attest_sandbox::{CrashCause, Direction, Limits, Pool, SandboxError, Spec};
use serde_json::{Value, json};

const WORKER: &str = env!("CARGO_BIN_EXE_attest-sandbox-testworker");

fn limits() -> Limits {
    Limits {
        address_space_bytes: 256 << 20,
        cpu_seconds: 30,
        wall_timeout: Duration::from_secs(1),
        max_requests_per_worker: 500,
        max_request_bytes: 64 << 10,
        max_response_bytes: 64 << 10,
        open_files: 16,
    }
}

fn pool_with(limits: Limits, workers: usize, args: &[&str]) -> Pool {
    Pool::new(Spec {
        program: PathBuf::from(WORKER),
        args: args.iter().map(Into::into).collect(),
        env: Vec::new(),
        limits,
        workers,
    })
}

fn pool() -> Pool {
    pool_with(limits(), 1, &[])
}

/// An echo call that must succeed; returns the worker's pid.
async fn echo(pool: &Pool, value: &str) -> u64 {
    let answer = pool.call(&json!({ "op": "echo", "value": value })).await.expect("echo answers");
    assert_eq!(answer["echo"], json!(value), "the answer belongs to this request: {answer}");
    answer["pid"].as_u64().expect("echo reports its pid")
}

/// Run `request`, expect an error, then check the next call succeeds on a new worker.
async fn fails_then_recovers(pool: &Pool, request: Value) -> SandboxError {
    let before = echo(pool, "before").await;
    let error = pool.call(&request).await.expect_err("the request fails");
    let after = echo(pool, "after").await;
    assert_ne!(before, after, "a fresh worker serves the call after a failure ({error})");
    error
}

fn crash_cause(error: &SandboxError) -> &CrashCause {
    match error {
        SandboxError::Crashed { cause, .. } => cause,
        other => panic!("expected a crash, got {other:?}"),
    }
}

#[tokio::test]
async fn echo_round_trips_and_reuses_the_worker() {
    let pool = pool();
    let first = echo(&pool, "a").await;
    let second = echo(&pool, "b").await;
    assert_eq!(first, second, "a persistent worker serves both calls");
    let answer = pool.call(&json!({ "op": "echo", "value": { "nested": [1, 2.5, "x\ny", null] } })).await.unwrap();
    assert_eq!(answer["echo"], json!({ "nested": [1, 2.5, "x\ny", null] }));
    assert_eq!(pool.stats().spawned, 1);
    assert_eq!(pool.stats().answered, 3);
}

#[tokio::test]
async fn a_spinning_request_times_out_and_the_next_call_succeeds() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "spin" })).await;
    assert!(matches!(error, SandboxError::Timeout { limit } if limit == Duration::from_secs(1)), "{error:?}");
    assert_eq!(error.code(), "timeout");
    assert_eq!(
        error.to_string(),
        "the computation took longer than 1 s and was stopped; simplify the input or split it into smaller steps"
    );
}

#[tokio::test]
async fn a_sleeping_request_times_out_too() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "sleep", "ms": 60_000 })).await;
    assert!(matches!(error, SandboxError::Timeout { .. }), "{error:?}");
}

#[tokio::test]
async fn an_allocation_bomb_hits_the_memory_cap() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "alloc" })).await;
    assert_eq!(crash_cause(&error), &CrashCause::MemoryLimit { limit_bytes: 256 << 20 }, "{error:?}");
    assert!(error.to_string().contains("more than its 256 MiB of memory"), "{error}");
    assert!(error.is_input_related());
}

#[tokio::test]
async fn deep_recursion_is_reported_as_a_stack_overflow() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "recurse" })).await;
    assert_eq!(crash_cause(&error), &CrashCause::StackOverflow, "{error:?}");
    assert!(error.to_string().contains("nested too deeply"), "{error}");
}

#[tokio::test]
async fn an_abort_without_a_message_is_blamed_on_memory() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "abort" })).await;
    assert_eq!(crash_cause(&error), &CrashCause::Aborted { limit_bytes: 256 << 20 }, "{error:?}");
    let SandboxError::Crashed { status, .. } = &error else { unreachable!() };
    assert!(status.is_some(), "the worker was reaped and its status read");
}

#[tokio::test]
async fn an_exit_is_reported_with_its_code() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "exit", "code": 3 })).await;
    assert_eq!(crash_cause(&error), &CrashCause::Exited { code: 3 }, "{error:?}");
    assert!(error.to_string().contains("exited with status 3"), "{error}");
    assert!(!error.is_input_related());
}

#[tokio::test]
async fn a_panic_is_reported_as_a_bug_with_its_message_kept_for_the_log() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "panic" })).await;
    assert_eq!(crash_cause(&error), &CrashCause::Panic, "{error:?}");
    let SandboxError::Crashed { stderr_tail, .. } = &error else { unreachable!() };
    assert!(stderr_tail.contains("deliberate panic for a test"), "{stderr_tail}");
    assert!(!error.to_string().contains("deliberate"), "the user's message does not carry internals: {error}");
}

#[tokio::test]
async fn the_cpu_backstop_fires_when_the_wall_timeout_is_longer() {
    let pool = pool_with(Limits { cpu_seconds: 1, wall_timeout: Duration::from_secs(20), ..limits() }, 1, &[]);
    let error = pool.call(&json!({ "op": "spin" })).await.expect_err("the spin is stopped");
    assert_eq!(crash_cause(&error), &CrashCause::CpuLimit { seconds: 1 }, "{error:?}");
    assert!(error.to_string().contains("more than 1 s of CPU time"), "{error}");
    echo(&pool, "after").await;
}

#[tokio::test]
async fn stray_stdout_output_in_the_handler_does_not_break_the_protocol() {
    let pool = pool();
    let first = pool.call(&json!({ "op": "println" })).await.expect("answered");
    assert_eq!(first["printed"], json!(true));
    let pid = echo(&pool, "after").await;
    assert_eq!(Some(pid), first["pid"].as_u64(), "the same worker goes on serving");
}

#[tokio::test]
async fn stderr_is_drained_so_a_noisy_worker_does_not_block() {
    let pool = pool();
    // Far more than a pipe buffer holds: undrained, the worker would block and time out.
    let answer = pool.call(&json!({ "op": "stderr", "bytes": 1 << 20 })).await.expect("answered");
    assert_eq!(answer["noise"], json!(1 << 20));
    echo(&pool, "after").await;
}

#[tokio::test]
async fn a_worker_answering_garbage_is_a_protocol_error_and_is_replaced() {
    let pool = pool_with(limits(), 1, &["garbage"]);
    for _ in 0..2 {
        let error = pool.call(&json!({ "op": "echo" })).await.expect_err("garbage is refused");
        assert!(matches!(error, SandboxError::Protocol { .. }), "{error:?}");
        assert!(error.to_string().contains("not JSON"), "{error}");
    }
    assert_eq!(pool.stats().spawned, 2, "each failure replaced the worker");
}

#[tokio::test]
async fn a_worker_answering_two_lines_is_a_protocol_error() {
    let pool = pool_with(limits(), 1, &["two-lines"]);
    let error = pool.call(&json!({ "op": "echo" })).await.expect_err("two lines are refused");
    assert!(matches!(error, SandboxError::Protocol { .. }), "{error:?}");
}

#[tokio::test]
async fn a_worker_dying_mid_line_is_a_crash_not_an_answer() {
    let pool = pool_with(limits(), 1, &["partial"]);
    let error = pool.call(&json!({ "op": "echo" })).await.expect_err("half a line is no answer");
    assert_eq!(crash_cause(&error), &CrashCause::Exited { code: 7 }, "{error:?}");
}

#[tokio::test]
async fn an_oversized_request_is_refused_without_starting_a_worker() {
    // The program does not exist: sending anything would fail with a spawn error.
    let pool = Pool::new(Spec { limits: limits(), ..Spec::new("/nonexistent/attest-sandbox-worker") });
    let big = "x".repeat(70 << 10);
    let error = pool.call(&json!({ "op": "echo", "value": big })).await.expect_err("refused");
    match &error {
        SandboxError::TooLarge { what: Direction::Request, bytes, limit } => {
            assert!(*bytes > 70 << 10);
            assert_eq!(*limit, 64 << 10);
        }
        other => panic!("expected a request refusal, got {other:?}"),
    }
    assert!(error.to_string().starts_with("the input is too large ("), "{error}");
    assert_eq!(pool.stats().spawned, 0);
}

#[tokio::test]
async fn an_oversized_answer_is_refused_and_the_worker_replaced() {
    let pool = pool();
    let error = fails_then_recovers(&pool, json!({ "op": "huge", "bytes": 200 << 10 })).await;
    assert!(matches!(error, SandboxError::TooLarge { what: Direction::Response, .. }), "{error:?}");
    assert_eq!(error.code(), "response_too_large");
}

#[tokio::test]
async fn a_missing_program_is_a_spawn_error() {
    let pool = Pool::new(Spec::new("/nonexistent/attest-sandbox-worker"));
    let error = pool.call(&json!({ "op": "echo" })).await.expect_err("cannot start");
    assert!(matches!(error, SandboxError::Spawn(_)), "{error:?}");
    assert!(error.to_string().starts_with("the computation could not be started"), "{error}");
}

#[tokio::test]
async fn workers_are_recycled_after_max_requests() {
    let pool = pool_with(Limits { max_requests_per_worker: 3, ..limits() }, 1, &[]);
    let mut pids = Vec::new();
    for i in 0..7 {
        pids.push(echo(&pool, &i.to_string()).await);
    }
    assert_eq!(pids[0], pids[1]);
    assert_eq!(pids[1], pids[2]);
    assert_ne!(pids[2], pids[3], "the fourth call runs on a new worker");
    assert_eq!(pids[3], pids[5]);
    assert_ne!(pids[5], pids[6]);
    assert_eq!(pool.stats().spawned, 3);
}

#[tokio::test]
async fn a_worker_is_retired_before_its_request_time_could_reach_the_cpu_backstop() {
    // Backstop 2 s, timeout 1 s: after 1.2 s of requests another one could pass 2 s.
    let pool = pool_with(Limits { cpu_seconds: 2, wall_timeout: Duration::from_secs(1), ..limits() }, 1, &[]);
    let mut pids = Vec::new();
    for _ in 0..3 {
        let answer = pool.call(&json!({ "op": "sleep", "ms": 600 })).await.expect("answered");
        pids.push(answer["pid"].as_u64().unwrap());
    }
    assert_ne!(pids[0], pids[2], "the worker was retired after at most two requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_serve_two_requests_at_once() {
    let pool = pool_with(limits(), 2, &[]);
    let request = json!({ "op": "sleep", "ms": 300 });
    let (a, b) = tokio::join!(pool.call(&request), pool.call(&request));
    let (a, b) = (a.expect("first answered"), b.expect("second answered"));
    assert_ne!(a["pid"], b["pid"], "each request had its own worker");
    assert_eq!(pool.stats().spawned, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_requests_than_workers_wait_their_turn() {
    let pool = pool_with(limits(), 2, &[]);
    let calls: Vec<_> = (0..6)
        .map(|i| {
            let pool = pool.clone();
            tokio::spawn(async move {
                let answer = pool.call(&json!({ "op": "echo", "value": i.to_string() })).await.expect("answered");
                assert_eq!(answer["echo"], json!(i.to_string()));
                answer["pid"].as_u64().unwrap()
            })
        })
        .collect();
    let mut pids = Vec::new();
    for call in calls {
        pids.push(call.await.unwrap());
    }
    pids.sort_unstable();
    pids.dedup();
    assert!(pids.len() <= 2, "never more than two workers: {pids:?}");
    assert!(pool.stats().spawned <= 2);
}

#[tokio::test]
async fn a_call_dropped_mid_request_never_hands_its_late_answer_to_the_next_call() {
    let pool = pool_with(Limits { wall_timeout: Duration::from_secs(10), ..limits() }, 1, &[]);
    let request = json!({ "op": "sleep", "ms": 500 });
    let slow = pool.call(&request);
    assert!(tokio::time::timeout(Duration::from_millis(100), slow).await.is_err(), "the caller gave up");
    // If the busy worker had gone back to the pool, this call would read the sleep's answer.
    echo(&pool, "after a cancelled call").await;
    assert_eq!(pool.stats().spawned, 2);
}

#[tokio::test]
async fn the_worker_environment_is_only_what_the_spec_gives() {
    let mut spec = Spec { limits: limits(), ..Spec::new(WORKER) };
    spec.env.push(("ATTEST_SANDBOX_TEST".into(), "1".into()));
    let pool = Pool::new(spec);
    let answer = pool.call(&json!({ "op": "env" })).await.expect("answered");
    assert_eq!(answer["env"], json!([["ATTEST_SANDBOX_TEST", "1"]]));
}

#[tokio::test]
async fn the_worker_runs_under_the_resource_limits() {
    let pool = pool_with(Limits { cpu_seconds: 7, open_files: 12, ..limits() }, 1, &[]);
    let answer = pool.call(&json!({ "op": "limits" })).await.expect("answered");
    assert_eq!(answer["as"], json!([256 << 20, 256 << 20]));
    assert_eq!(answer["cpu"], json!([7, 8]), "SIGXCPU at 7 s, SIGKILL at 8 s");
    assert_eq!(answer["nofile"], json!([12, 12]));
    assert_eq!(answer["core"], json!([0, 0]));
}

#[test]
fn the_worker_answers_non_json_lines_with_an_error_and_ends_at_eof() {
    let mut child = Command::new(WORKER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the test worker starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"not json\n\n{\"op\":\"echo\",\"value\":5}\n").unwrap();
    drop(stdin);
    let lines: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|line| serde_json::from_str(&line.unwrap()).expect("every answer is JSON"))
        .collect();
    assert_eq!(lines.len(), 2, "one answer per non-blank line: {lines:?}");
    assert!(lines[0]["error"].as_str().unwrap().starts_with("the request is not a JSON value"), "{lines:?}");
    assert_eq!(lines[1]["echo"], json!(5));
    assert!(child.wait().unwrap().success(), "end of input ends the worker cleanly");
}

/// A worker killed while idle (by an operator, the OOM killer) is noticed before the
/// next request is sent: that request is answered by a fresh worker, not failed.
#[tokio::test]
async fn a_worker_that_died_while_idle_is_replaced_without_failing_the_next_call() {
    let pool = pool();
    let pid = echo(&pool, "a").await;
    let killed = Command::new("kill").args(["-KILL", &pid.to_string()]).status().unwrap();
    assert!(killed.success());
    // Give the kernel a moment to deliver the signal; the pool must not rely on it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let next = echo(&pool, "b").await;
    assert_ne!(pid, next, "a fresh worker answered");
    assert_eq!(pool.stats().failed, 0, "no request failed");
    assert_eq!(pool.stats().spawned, 2);
}

/// Fair turns (issue 15): one lane's queue of slow calls does not starve another lane.
/// Lane A holds the only worker with a call that waits on a gate file and queues five
/// more; lane B then queues one. When the gate opens, B's call is answered right after
/// A's next one, not after A's whole queue (which a first-come-first-served pool did).
/// Order, not durations, is asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lane_with_many_queued_calls_does_not_starve_another_lane() {
    let mut limits = limits();
    limits.wall_timeout = Duration::from_secs(600);
    let pool = pool_with(limits, 1, &[]);
    let gate = tempfile_path("gate");
    let order = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let spawn = |lane: u64, name: &'static str, request: Value| {
        let (pool, order) = (pool.clone(), order.clone());
        tokio::spawn(async move {
            pool.call_in(lane, &request).await.expect("answered");
            order.lock().unwrap().push(name);
        })
    };
    let waiting_for = |n: usize| {
        let pool = pool.clone();
        async move {
            while pool.waiting() < n {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
    };
    let mut tasks = vec![spawn(1, "a-slow", json!({ "op": "gate", "path": gate.to_str().unwrap() }))];
    // The gate call holds the worker once nothing else is waiting and the pool is busy.
    while pool.stats().spawned == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    for (i, name) in ["a1", "a2", "a3", "a4", "a5"].into_iter().enumerate() {
        tasks.push(spawn(1, name, json!({ "op": "echo", "value": name })));
        waiting_for(i + 1).await;
    }
    tasks.push(spawn(2, "b", json!({ "op": "echo", "value": "b" })));
    waiting_for(6).await;
    std::fs::write(&gate, b"open").unwrap();
    for t in tasks {
        t.await.unwrap();
    }
    let order = order.lock().unwrap().clone();
    assert_eq!(order, ["a-slow", "a1", "b", "a2", "a3", "a4", "a5"]);
    let _ = std::fs::remove_file(gate);
}

/// A caller that stops waiting (its client went away) leaves the queue, and the worker
/// goes to the next caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_that_gives_up_waiting_leaves_the_queue() {
    let mut limits = limits();
    limits.wall_timeout = Duration::from_secs(600);
    let pool = pool_with(limits, 1, &[]);
    let gate = tempfile_path("gate-giveup");
    let (p, g) = (pool.clone(), gate.clone());
    let slow = tokio::spawn(async move { p.call_in(1, &json!({ "op": "gate", "path": g.to_str().unwrap() })).await });
    while pool.stats().spawned == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let p = pool.clone();
    let quitter = tokio::spawn(async move { p.call_in(2, &json!({ "op": "echo", "value": "never" })).await });
    while pool.waiting() < 1 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    quitter.abort();
    let _ = quitter.await;
    assert_eq!(pool.waiting(), 0);
    std::fs::write(&gate, b"open").unwrap();
    slow.await.unwrap().expect("the slow call is answered");
    echo(&pool, "after").await;
    let _ = std::fs::remove_file(gate);
}

fn tempfile_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("attest-sandbox-{name}-{}-{:?}", std::process::id(), std::thread::current().id()))
}
