//! An MCP client over a spawned server (stdio), for `attest eval agents`: list the
//! tools a server shows and call them, as an agent would.
//!
//! Only the CLI enables this module (the `client` feature); the surface binaries serve
//! and never connect to anything. Nothing of rmcp leaks out: tools and results come
//! back as plain JSON.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Map, Value};
use tokio::process::Command;

/// A tool as a server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// Its name on the wire (`runs.compare`, or `runs_compare` when served so).
    pub name: String,
    /// What it says about itself.
    pub description: String,
    /// Its arguments, as JSON Schema.
    pub input_schema: Value,
}

/// What a call returned.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The text blocks, joined by newlines (what an agent shows its model).
    pub text: String,
    /// The structured content, when the server sent one (attest's `Answer`).
    pub structured: Option<Value>,
    /// The server flagged the result as an error.
    pub is_error: bool,
}

#[derive(Clone, Default)]
struct Watcher {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

/// One MCP session with a server process this client started. The server exits when
/// the session closes (its standard input ends) or the client is dropped.
pub struct Client {
    service: RunningService<RoleClient, Watcher>,
    watcher: Watcher,
}

impl Client {
    /// Start `program` with `args` and exactly the environment `env` (nothing else is
    /// inherited), its stderr discarded, and complete the MCP handshake.
    pub async fn spawn(program: &Path, args: &[String], env: &[(String, String)]) -> anyhow::Result<Client> {
        let mut cmd = Command::new(program);
        cmd.args(args).env_clear().envs(env.iter().map(|(k, v)| (k, v))).kill_on_drop(true);
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("cannot start {}", program.display()))?;
        let watcher = Watcher::default();
        let service = watcher
            .clone()
            .serve(transport)
            .await
            .with_context(|| format!("{} did not complete the MCP handshake", program.display()))?;
        Ok(Client { service, watcher })
    }

    /// The tools listed right now (every page).
    pub async fn tools(&self) -> anyhow::Result<Vec<ListedTool>> {
        let tools = self.service.list_all_tools().await.context("tools/list failed")?;
        Ok(tools
            .into_iter()
            .map(|t| ListedTool {
                name: t.name.to_string(),
                description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                input_schema: Value::Object((*t.input_schema).clone()),
            })
            .collect())
    }

    /// Call a tool. A protocol-level failure (the server went away, an unknown method)
    /// is an error; a tool's own refusal or `isError` result is a [`CallResult`].
    pub async fn call(&self, name: &str, args: Map<String, Value>) -> anyhow::Result<CallResult> {
        let r = self
            .service
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
            .await
            .with_context(|| format!("calling {name} failed"))?;
        let text = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n");
        Ok(CallResult { text, structured: r.structured_content, is_error: r.is_error.unwrap_or(false) })
    }

    /// How many `notifications/tools/list_changed` the server has sent.
    pub fn list_changed(&self) -> usize {
        self.watcher.list_changed.load(Ordering::SeqCst)
    }

    /// End the session; the server sees its input close and exits.
    pub async fn close(self) {
        let _ = self.service.cancel().await;
    }
}
