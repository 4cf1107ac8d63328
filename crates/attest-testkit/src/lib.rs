//! Test support for attest's integration tests, so each surface's tests say what they
//! check and not how to talk to a server.
//!
//! - [`Session`]: the rmcp client over a spawned surface binary (stdio), counting
//!   `tools/list_changed` notifications, with helpers to list tools and call them.
//! - [`validate`]: a result against its tool's declared output schema.
//! - [`http`]: a loopback HTTP server answering from a function, for fetchers,
//!   embedders, chat models and research APIs, with no network.
//! - [`routing`]: a router's case table checked against the router.
//! - [`feeds`]: the committed reading corpus (`tests/fixtures/feeds`).
//!
//! Dev-only: no shipped crate depends on this one. It is the one place besides
//! `attest-mcp` that uses rmcp, and only as a client.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{CallToolRequestParams, Tool};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::process::Command;

pub mod feeds;
pub mod http;
pub mod routing;

/// Counts the server's `tools/list_changed` notifications.
#[derive(Clone, Default)]
pub struct Watcher {
    list_changed: Arc<AtomicUsize>,
}

impl ClientHandler for Watcher {
    async fn on_tool_list_changed(&self, _ctx: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

/// An MCP client session with a spawned server.
pub struct Session {
    /// The rmcp client, for anything the helpers do not cover.
    pub client: RunningService<RoleClient, Watcher>,
    watcher: Watcher,
    /// The server's process id.
    pub pid: u32,
    /// What must live as long as the server (its temporary database, say).
    keep: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

impl Session {
    /// Spawn `cmd` (its environment already set; stderr is discarded) and complete
    /// the MCP handshake.
    pub async fn spawn(cmd: Command) -> Session {
        let (transport, _) = TokioChildProcess::builder(cmd).stderr(Stdio::null()).spawn().expect("spawn the server");
        let pid = transport.id().expect("the server's pid");
        let watcher = Watcher::default();
        let client = watcher.clone().serve(transport).await.expect("MCP handshake");
        Session { client, watcher, pid, keep: Vec::new() }
    }

    /// Keep `guard` (a temporary directory, say) alive as long as this session.
    pub fn keeping(mut self, guard: impl std::any::Any + Send + Sync) -> Session {
        self.keep.push(Box::new(guard));
        self
    }

    /// A command for `program` with an empty environment but `PATH`, and `env`.
    pub fn command(program: &str, env: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear().env("PATH", std::env::var("PATH").unwrap_or_default());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd
    }

    /// End the session (the server sees its input close and exits).
    pub async fn close(self) {
        self.client.cancel().await.expect("close the MCP session");
    }

    /// How many `tools/list_changed` notifications have arrived.
    pub fn list_changed(&self) -> usize {
        self.watcher.list_changed.load(Ordering::SeqCst)
    }

    /// The listed tools.
    pub async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.expect("tools/list")
    }

    /// The listed tool names, sorted.
    pub async fn names(&self) -> Vec<String> {
        let mut n: Vec<String> = self.tools().await.into_iter().map(|t| t.name.to_string()).collect();
        n.sort();
        n
    }

    /// Each listed tool's output schema, by name.
    pub async fn schemas(&self) -> HashMap<String, Value> {
        self.tools()
            .await
            .into_iter()
            .map(|t| {
                let schema = t.output_schema.unwrap_or_else(|| panic!("{} declares no output schema", t.name));
                (t.name.to_string(), Value::Object((*schema).clone()))
            })
            .collect()
    }

    /// Call a tool: (structured content, text content joined by newlines, isError).
    /// A protocol-level failure fails the test.
    pub async fn call(&self, name: &str, args: Value) -> (Value, String, bool) {
        let args = args.as_object().cloned().unwrap_or_default();
        let r = self
            .client
            .call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
            .await
            .unwrap_or_else(|e| panic!("{name} failed at the protocol level: {e}"));
        let text = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n");
        (r.structured_content.expect("every result has structured content"), text, r.is_error.unwrap_or(false))
    }

    /// Call a tool that must answer `ok: true`; returns the structured content.
    pub async fn ok(&self, name: &str, args: Value) -> Value {
        let (value, text, is_error) = self.call(name, args.clone()).await;
        assert!(!is_error, "{name} {args}: {text}");
        assert_eq!(value["ok"], true, "{name} {args}: {value:#}");
        value
    }

    /// Call a tool that must refuse (`ok: false`, not an MCP error); returns the
    /// structured content.
    pub async fn refused(&self, name: &str, args: Value) -> Value {
        let (value, text, is_error) = self.call(name, args.clone()).await;
        assert!(!is_error, "a refusal is not an MCP error: {name} {args}: {text}");
        assert_eq!(value["ok"], false, "{name} {args}: {value:#}");
        value
    }
}

/// Assert that `instance` validates against `schema`; `what` names the call in the
/// failure message.
pub fn validate(schema: &Value, instance: &Value, what: &str) {
    let validator = jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{what}: bad schema: {e}"));
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "{what}: result does not match its outputSchema: {errors:?}\n{instance:#}");
}

/// The `format` values JSON Schema defines (draft 2020-12); anything else (`uint`,
/// `int64`, `double`, …) makes strict clients warn or reject a tool.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Assert that a tool's input and output schemas use only standard `format`s, as a
/// client sees them over the wire.
pub fn standard_formats_only(tool: &Tool) {
    fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(f)) = m.get("format")
                    && !STANDARD_FORMATS.contains(&f.as_str())
                {
                    out.push(format!("{at}: format {f}"));
                }
                for (k, x) in m {
                    walk(x, &format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| walk(x, &format!("{at}/{i}"), out)),
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(&Value::Object((*tool.input_schema).clone()), "input", &mut bad);
    if let Some(o) = &tool.output_schema {
        walk(&Value::Object((**o).clone()), "output", &mut bad);
    }
    assert!(bad.is_empty(), "{} uses non-standard schema formats: {bad:?}", tool.name);
}

/// Text as a reviewer should see it in a snapshot: each `(text, placeholder)` replaced
/// (a temporary directory by `[root]`, a loopback address by `[url]`), then every
/// timestamp (`YYYY-MM-DDTHH:MM:SS` or with a space for `T`, optional fraction and
/// zone) by `[time]`.
pub fn redact(text: &str, replace: &[(&str, &str)]) -> String {
    static TIME: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?").expect("time pattern")
    });
    let mut s = text.to_string();
    for (from, to) in replace {
        s = s.replace(from, to);
    }
    TIME.replace_all(&s, "[time]").into_owned()
}

/// [`redact`] over a JSON value (an answer), still JSON.
pub fn redact_json(v: &Value, replace: &[(&str, &str)]) -> Value {
    serde_json::from_str(&redact(&v.to_string(), replace)).expect("redaction keeps JSON valid")
}
