//! `attest-symbolic`: exact algebra and calculus, served over MCP. It links attest-sym
//! and the sandbox, and nothing that touches a database.
//!
//! The same binary is its own worker: `attest-symbolic worker` serves worker requests
//! on stdin/stdout (JSON lines) and is what the server's sandbox pool starts.

use std::process::ExitCode;
use std::sync::Arc;

mod pool;

fn main() -> ExitCode {
    // First thing: before any logging set-up or async runtime.
    if std::env::args_os().nth(1).is_some_and(|a| a == "worker") {
        return attest_sandbox::worker_main(attest_sym::worker::handle);
    }
    // The configuration's database is never opened: this surface has none.
    attest_mcp::surface_main("symbolic", |_config| async {
        let exec = pool::Sandboxed::start().await?;
        Ok(attest_sym::tools::catalogue(Arc::new(exec)))
    })
}
