//! The executor the server uses: a pool of sandboxed worker processes running this
//! same binary with the `worker` argument.

use anyhow::{Context, bail};
use attest_sandbox::{Limits, Pool, Spec};
use attest_sym::tools::{Executor, Pending};
use serde_json::{Value, json};

/// How many workers compute at once.
pub const WORKERS: usize = 2;

/// Worker requests run in a [`Pool`] with the sandbox's default limits (1 GiB address
/// space, 2 s wall clock per request, 30 s CPU backstop, recycled after 500 requests),
/// each MCP session on its own lane of the pool's queue.
pub struct Sandboxed {
    pool: Pool,
}

impl Sandboxed {
    /// Build the pool and ping it once, so a worker that cannot start fails the server
    /// at start rather than on the first question.
    pub async fn start() -> anyhow::Result<Sandboxed> {
        let program = std::env::current_exe().context("cannot find this executable to start workers")?;
        let pool = Pool::new(Spec {
            program,
            args: vec!["worker".into()],
            env: Vec::new(),
            limits: Limits::default(),
            workers: WORKERS,
        });
        match pool.call(&json!({ "op": "ping" })).await {
            Ok(v) if v["ok"] == "pong" => Ok(Sandboxed { pool }),
            Ok(v) => bail!("the symbolic worker answered the start-up ping out of protocol: {v}"),
            Err(e) => Err(anyhow::Error::new(e).context("the symbolic worker failed its start-up ping")),
        }
    }
}

impl Executor for Sandboxed {
    fn run(&self, request: Value) -> Pending {
        let pool = self.pool.clone();
        // Each MCP session queues on its own lane, and free workers go to the lanes in
        // turn: one session's slow requests cannot starve another's.
        let lane = attest_mcp::current_session().unwrap_or(0);
        Box::pin(async move {
            pool.call_in(lane, &request).await.map_err(|e| {
                tracing::warn!(code = e.code(), error = ?e, "symbolic worker request failed");
                e.to_string()
            })
        })
    }
}
