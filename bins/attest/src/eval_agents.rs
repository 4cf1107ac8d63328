//! `attest eval agents`: the three ways of putting tools in front of a model, re-run
//! live against any OpenAI-compatible `/v1/chat/completions` endpoint with tool calling.
//!
//! - **routed**: the model sees the question's surface as its server lists it (with
//!   progressive disclosure: `<ns>.ask` and `<ns>.tools`), and the real surface binary,
//!   spawned and spoken to over MCP (stdio), executes whatever it calls.
//! - **flat**: the model sees every tool `attest serve` lists, in one list.
//! - **swarm**: a supervisor call picks one of the four surfaces (one hand-off function
//!   each), then a second conversation picks among that surface's own tools (its server
//!   expanded, the `<ns>.ask` router and `<ns>.tools` left out).
//!
//! Each turn is one question from a labelled file (the routing format). The model's
//! calls are executed and their results handed back until it answers in words (at most
//! [`MAX_STEPS`] model calls). The tool that ran is the one the server's answer names
//! (`tool_used`): a call that asks back names none. A turn is **right** when the last
//! tool that ran is the labelled one; for a question labelled `null`, when nothing ran;
//! for a question labelled with another surface's tool, also when nothing ran and an
//! answer named that tool ("ask it there"). **Wrong**: another tool ran. **None**:
//! nothing ran though a tool should have, including when the endpoint failed or
//! answered without a tool call; an endpoint failure is also reported for its turn.
//!
//! The servers run on a fresh database and an empty research root in a temporary
//! directory, so nothing a model calls touches the user's data: only the choice of tool
//! is scored, not what the tool found.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context;
use attest_core::routing_eval::Labelled;
use attest_core::{SURFACES, Surface};
use attest_mcp::client::{CallResult, Client, ListedTool};
use attest_openai::{HttpOptions, JsonClient};
use serde::Serialize;
use serde_json::{Map, Value, json};

/// Model calls in one turn, at most (a tool call and its result, then the answer; a
/// `<ns>.tools` call costs one more).
pub const MAX_STEPS: usize = 4;

/// The three arms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arm {
    /// The surface's router behind `<ns>.ask`, executed by the surface binary.
    Routed,
    /// Every tool of `attest serve` in one list.
    Flat,
    /// A supervisor picks the surface, then that surface's tools.
    Swarm,
}

impl Arm {
    /// Its name on the command line and in the report.
    pub fn name(self) -> &'static str {
        match self {
            Arm::Routed => "routed",
            Arm::Flat => "flat",
            Arm::Swarm => "swarm",
        }
    }

    /// Parse a comma-separated list (`routed,flat,swarm`), refusing unknown names and
    /// repeats.
    pub fn parse_list(text: &str) -> Result<Vec<Arm>, String> {
        let mut arms = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let arm = match part {
                "routed" => Arm::Routed,
                "flat" => Arm::Flat,
                "swarm" => Arm::Swarm,
                other => return Err(format!("unknown arm '{other}': use routed, flat or swarm (comma-separated)")),
            };
            if arms.contains(&arm) {
                return Err(format!("arm '{part}' is named twice"));
            }
            arms.push(arm);
        }
        if arms.is_empty() {
            return Err("name at least one arm: routed, flat or swarm".into());
        }
        Ok(arms)
    }
}

/// What to run.
pub struct Options {
    /// The labelled turns.
    pub turns: Vec<Labelled>,
    /// `http://host:port/v1` (or the full `/chat/completions` address).
    pub base_url: String,
    /// The model name sent with each request.
    pub model: String,
    /// The arms, in order.
    pub arms: Vec<Arm>,
    /// How many times each turn is asked.
    pub repeats: u32,
    /// A bearer key, when the endpoint needs one.
    pub api_key: Option<String>,
    /// Seconds one model request may take.
    pub timeout: Duration,
    /// Where the surface binaries are.
    pub bin_dir: PathBuf,
    /// The `attest` executable, for `attest serve` (the flat arm).
    pub attest: PathBuf,
}

/// One arm's counts.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArmReport {
    /// The labelled tool ran (or nothing, where nothing should).
    pub right: usize,
    /// Turns asked (questions × repeats).
    pub turns: usize,
    /// Another tool ran.
    pub wrong: usize,
    /// Nothing ran though a tool should have.
    pub none: usize,
    /// Turns the endpoint (or a server) failed on (counted in `none` unless a tool ran).
    pub errors: usize,
    /// Median turn time in milliseconds (turns that did not fail), or null.
    pub p50_ms: Option<u64>,
    /// 95th percentile turn time in milliseconds, or null.
    pub p95_ms: Option<u64>,
    /// The most tools the model was shown in one request.
    pub tools_shown: usize,
}

/// A turn that was not right, or that failed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Miss {
    /// The arm.
    pub arm: &'static str,
    /// The surface asked.
    pub s: String,
    /// The question.
    pub q: String,
    /// The labelled tool.
    pub expected: Option<String>,
    /// The tool that ran, if any.
    pub got: Option<String>,
    /// `wrong`, `none` or `error`.
    pub kind: &'static str,
    /// What failed, for `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole report (`--json`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The model asked.
    pub model: String,
    /// The endpoint.
    pub endpoint: String,
    /// Times each turn was asked.
    pub repeats: u32,
    /// Per arm, by name.
    pub arms: BTreeMap<&'static str, ArmReport>,
    /// The arms in the order they ran.
    pub order: Vec<&'static str>,
    /// Every turn that was not right or failed.
    pub misses: Vec<Miss>,
}

/// The chat endpoint.
#[derive(Clone)]
struct Chat {
    client: JsonClient,
    url: String,
    model: String,
}

/// One function call the model made.
#[derive(Debug, Clone)]
struct Call {
    id: String,
    name: String,
    args: Map<String, Value>,
}

/// What the model answered.
#[derive(Debug)]
enum Reply {
    /// It called tools; the assistant message to keep in the conversation.
    Calls(Vec<Call>, Value),
    /// It answered in words.
    Text,
}

impl Chat {
    fn new(base_url: &str, model: &str, api_key: Option<String>, timeout: Duration) -> Chat {
        let base = base_url.trim().trim_end_matches('/');
        let url =
            if base.ends_with("/chat/completions") { base.to_string() } else { format!("{base}/chat/completions") };
        let opts = HttpOptions {
            timeout,
            connect_timeout: Duration::from_secs(5),
            max_bytes: 4 * 1024 * 1024,
            user_agent: format!("attest-eval/{}", env!("CARGO_PKG_VERSION")),
        };
        Chat { client: JsonClient::new(opts, api_key), url, model: model.to_string() }
    }

    async fn send(&self, messages: &[Value], tools: &[Value]) -> Result<Reply, String> {
        let mut body = json!({ "model": self.model, "messages": messages, "temperature": 0, "stream": false });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools.to_vec());
        }
        let client = self.client.clone();
        let url = self.url.clone();
        let answer = tokio::task::spawn_blocking(move || client.post_json(&url, &body))
            .await
            .map_err(|e| format!("the request thread failed: {e}"))?
            .map_err(|e| e.to_string())?;
        parse_reply(&answer)
    }
}

/// Read an OpenAI chat completion: its first choice's tool calls, or words.
fn parse_reply(answer: &Value) -> Result<Reply, String> {
    if let Some(err) = answer.get("error") {
        let msg = err.get("message").and_then(Value::as_str).map_or_else(|| err.to_string(), str::to_string);
        return Err(format!("the endpoint answered with an error: {}", clip(&msg, 200)));
    }
    let Some(message) = answer.pointer("/choices/0/message") else {
        return Err(format!("the endpoint's answer has no choices[0].message: {}", clip(&answer.to_string(), 200)));
    };
    let calls: Vec<Call> = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .filter_map(|(i, c)| {
                    let f = c.get("function")?;
                    let name = f.get("name")?.as_str()?.to_string();
                    let args = match f.get("arguments") {
                        Some(Value::String(s)) => serde_json::from_str::<Map<String, Value>>(s).unwrap_or_default(),
                        Some(Value::Object(o)) => o.clone(),
                        _ => Map::new(),
                    };
                    let id = c.get("id").and_then(Value::as_str).map_or_else(|| format!("call_{i}"), str::to_string);
                    Some(Call { id, name, args })
                })
                .collect()
        })
        .unwrap_or_default();
    if calls.is_empty() {
        return Ok(Reply::Text);
    }
    // Keep the assistant message as sent back, with the ids we use.
    let tool_calls: Vec<Value> = calls
        .iter()
        .map(|c| {
            json!({ "id": c.id, "type": "function",
                    "function": { "name": c.name, "arguments": Value::Object(c.args.clone()).to_string() } })
        })
        .collect();
    let kept = json!({ "role": "assistant", "content": message.get("content").cloned().unwrap_or(Value::Null),
                       "tool_calls": tool_calls });
    Ok(Reply::Calls(calls, kept))
}

fn clip(s: &str, n: usize) -> String {
    attest_core::text::clip(s, n).to_string()
}

/// The servers one evaluation talks to, on a throwaway database and research root.
struct Servers {
    env: Vec<(String, String)>,
    bin_dir: PathBuf,
    attest: PathBuf,
    _dir: tempfile::TempDir,
}

impl Servers {
    fn new(bin_dir: &Path, attest: &Path) -> anyhow::Result<Servers> {
        let dir = tempfile::tempdir().context("cannot make a temporary directory for the servers")?;
        let root = dir.path().join("research");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&root)?;
        std::fs::create_dir_all(&home)?;
        let mut env = vec![
            ("ATTEST_DB".to_string(), dir.path().join("attest.db").display().to_string()),
            ("RESEARCH_ROOT".to_string(), root.display().to_string()),
            ("HOME".to_string(), home.display().to_string()),
            // Function names allow no dots in OpenAI's API: `runs_compare`.
            ("ATTEST_TOOL_NAMES".to_string(), "underscore".to_string()),
            ("ATTEST_ZOTERO".to_string(), "off".to_string()),
        ];
        if let Ok(path) = std::env::var("PATH") {
            env.push(("PATH".to_string(), path));
        }
        Ok(Servers { env, bin_dir: bin_dir.to_path_buf(), attest: attest.to_path_buf(), _dir: dir })
    }

    fn binary(&self, s: &Surface) -> PathBuf {
        self.bin_dir.join(format!("{}{}", s.binary, std::env::consts::EXE_SUFFIX))
    }

    /// A surface's own binary; `expand` lists every tool from the start.
    async fn surface(&self, s: &Surface, expand: bool) -> anyhow::Result<Client> {
        let mut env = self.env.clone();
        if expand {
            env.push(("ATTEST_EXPAND".to_string(), "1".to_string()));
        }
        Client::spawn(&self.binary(s), &[], &env).await
    }

    /// `attest serve`: every tool in one list.
    async fn flat(&self) -> anyhow::Result<Client> {
        Client::spawn(&self.attest, &["serve".to_string()], &self.env).await
    }
}

/// The surface a turn is asked on.
fn surface_of(turn: &Labelled) -> &'static Surface {
    // The turns were parsed with `routing_eval::parse`, which refuses unknown surfaces.
    Surface::find(&turn.s).unwrap_or(&SURFACES[0])
}

/// The surface binaries an arm list needs that are not in `bin_dir`.
pub fn missing_binaries(opts: &Options) -> Vec<PathBuf> {
    let needs_surfaces = opts.arms.iter().any(|a| matches!(a, Arm::Routed | Arm::Swarm));
    if !needs_surfaces {
        return Vec::new();
    }
    SURFACES
        .iter()
        .map(|s| opts.bin_dir.join(format!("{}{}", s.binary, std::env::consts::EXE_SUFFIX)))
        .filter(|p| !p.is_file())
        .collect()
}

const SYSTEM: &str = "You help a researcher with their experiments, drafts, reading and maths. Answer the question by calling the one tool that fits. If the question is too unclear to act on, ask back instead of calling a tool.";

const SUPERVISOR: &str = "You are a supervisor. Hand the researcher's question to the one agent that can answer it, by calling its function. If the question is too unclear to hand on, ask back instead.";

fn tool_def(t: &ListedTool) -> Value {
    json!({ "type": "function", "function": { "name": t.name, "description": t.description, "parameters": t.input_schema } })
}

/// What happened in one turn.
#[derive(Debug, Default)]
struct Turn {
    /// The last tool that ran, dotted (`runs.compare`).
    ran: Option<String>,
    /// Every tool an answer named as an option (ask-backs, "ask it there").
    options: Vec<String>,
    /// What failed, if anything.
    error: Option<String>,
    /// The most tools shown in one request.
    tools_shown: usize,
}

/// Converse with the model over one server until it answers in words: its calls are
/// executed by `client` (only tools it was shown), their text results handed back.
async fn converse(
    chat: &Chat,
    client: &Client,
    system: &str,
    question: &str,
    shown: impl Fn(&ListedTool) -> bool,
    turn: &mut Turn,
) {
    let mut tools: Vec<ListedTool> = match client.tools().await {
        Ok(t) => t.into_iter().filter(&shown).collect(),
        Err(e) => {
            turn.error = Some(format!("{e:#}"));
            return;
        }
    };
    let mut messages = vec![json!({"role": "system", "content": system}), json!({"role": "user", "content": question})];
    let mut seen_changes = client.list_changed();
    for _ in 0..MAX_STEPS {
        turn.tools_shown = turn.tools_shown.max(tools.len());
        let defs: Vec<Value> = tools.iter().map(tool_def).collect();
        let (calls, kept) = match chat.send(&messages, &defs).await {
            Ok(Reply::Calls(calls, kept)) => (calls, kept),
            Ok(Reply::Text) => return,
            Err(e) => {
                turn.error = Some(e);
                return;
            }
        };
        messages.push(kept);
        for call in calls {
            let content = if tools.iter().any(|t| t.name == call.name) {
                match client.call(&call.name, call.args).await {
                    Ok(result) => {
                        note(&result, turn);
                        result.text
                    }
                    Err(e) => {
                        turn.error = Some(format!("{e:#}"));
                        return;
                    }
                }
            } else {
                let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
                format!("There is no tool '{}' here. Tools: {}.", clip(&call.name, 80), names.join(", "))
            };
            messages.push(json!({"role": "tool", "tool_call_id": call.id, "content": content}));
        }
        // `<ns>.tools` widened the listing: show the model the new list next time.
        let changes = client.list_changed();
        if changes != seen_changes {
            seen_changes = changes;
            if let Ok(t) = client.tools().await {
                tools = t.into_iter().filter(&shown).collect();
            }
        }
    }
}

/// Record what a result says ran (its answer's `tool_used`, unless that is an entry
/// tool) and the tools it offered.
fn note(result: &CallResult, turn: &mut Turn) {
    let Some(answer) = &result.structured else { return };
    if let Some(tool) = answer.get("tool_used").and_then(Value::as_str)
        && !is_entry(tool)
    {
        turn.ran = Some(tool.to_string());
    }
    if let Some(options) = answer.get("options").and_then(Value::as_array) {
        turn.options.extend(options.iter().filter_map(Value::as_str).map(str::to_string));
    }
}

fn is_entry(tool: &str) -> bool {
    SURFACES.iter().any(|s| s.is_entry(tool))
}

/// Is the labelled tool outside the surface the question was asked on?
fn foreign(turn: &Labelled, tool: &str) -> bool {
    !surface_of(turn).allows(tool)
}

/// The verdict on one turn: `right`, `wrong` or `none`.
fn verdict(label: &Labelled, turn: &Turn) -> &'static str {
    match (label.t.as_deref(), turn.ran.as_deref()) {
        (Some(want), Some(got)) if want == got => "right",
        (_, Some(_)) => "wrong",
        (None, None) => "right",
        (Some(want), None) if foreign(label, want) && turn.options.iter().any(|o| o == want) => "right",
        (Some(_), None) => "none",
    }
}

/// Handing a question to one surface's agent, for the swarm's supervisor.
fn handoff_defs() -> Vec<Value> {
    SURFACES
        .iter()
        .map(|s| {
            json!({ "type": "function", "function": {
                "name": format!("ask_{}_agent", s.name),
                "description": format!("{} {}", s.summary, s.goal),
                "parameters": { "type": "object",
                                "properties": { "question": { "type": "string", "description": "the question, as the researcher asked it" } },
                                "required": ["question"] } } })
        })
        .collect()
}

/// Run one turn on one arm. Sessions are kept between turns where the listing cannot
/// change; a routed session that was widened by `<ns>.tools` is started afresh.
struct Runner<'a> {
    chat: &'a Chat,
    servers: &'a Servers,
    flat: Option<Client>,
    routed: BTreeMap<&'static str, Client>,
    experts: BTreeMap<&'static str, Client>,
}

impl Runner<'_> {
    async fn turn(&mut self, arm: Arm, label: &Labelled) -> (Turn, Duration) {
        let mut turn = Turn::default();
        let s = surface_of(label);
        // Start servers before the clock: their start-up is not the arm's latency.
        let ready = match arm {
            Arm::Routed => self.ensure_routed(s).await,
            Arm::Flat => self.ensure_flat().await,
            Arm::Swarm => self.ensure_experts().await,
        };
        if let Err(e) = ready {
            turn.error = Some(format!("{e:#}"));
            return (turn, Duration::ZERO);
        }
        let started = Instant::now();
        match arm {
            Arm::Routed => {
                let client = &self.routed[s.name];
                let before = client.list_changed();
                converse(self.chat, client, SYSTEM, &label.q, |_| true, &mut turn).await;
                if client.list_changed() != before
                    && let Some(c) = self.routed.remove(s.name)
                {
                    c.close().await;
                }
            }
            Arm::Flat => {
                let client = self.flat.as_ref().expect("started above");
                converse(self.chat, client, SYSTEM, &label.q, |_| true, &mut turn).await;
            }
            Arm::Swarm => self.swarm(label, &mut turn).await,
        }
        (turn, started.elapsed())
    }

    async fn swarm(&self, label: &Labelled, turn: &mut Turn) {
        let defs = handoff_defs();
        turn.tools_shown = defs.len();
        let messages = [json!({"role": "system", "content": SUPERVISOR}), json!({"role": "user", "content": label.q})];
        let pick = match self.chat.send(&messages, &defs).await {
            Ok(Reply::Calls(calls, _)) => calls
                .into_iter()
                .find_map(|c| SURFACES.iter().find(|s| c.name == format!("ask_{}_agent", s.name)).map(|s| (s, c.args))),
            Ok(Reply::Text) => None,
            Err(e) => {
                turn.error = Some(e);
                None
            }
        };
        let Some((surface, args)) = pick else { return };
        // The supervisor may reword the question; the expert gets what it was handed.
        let question = args.get("question").and_then(Value::as_str).filter(|q| !q.trim().is_empty());
        let question = question.map_or_else(|| label.q.clone(), str::to_string);
        let client = &self.experts[surface.name];
        let shown = |t: &ListedTool| !is_entry(&t.name.replacen('_', ".", 1));
        let mut inner = Turn::default();
        converse(self.chat, client, SYSTEM, &question, shown, &mut inner).await;
        turn.ran = inner.ran;
        turn.options = inner.options;
        turn.error = turn.error.take().or(inner.error);
        turn.tools_shown = turn.tools_shown.max(inner.tools_shown);
    }

    async fn ensure_routed(&mut self, s: &'static Surface) -> anyhow::Result<()> {
        if !self.routed.contains_key(s.name) {
            let c = self.servers.surface(s, false).await?;
            self.routed.insert(s.name, c);
        }
        Ok(())
    }

    /// Every surface's server, expanded (the swarm's experts).
    async fn ensure_experts(&mut self) -> anyhow::Result<()> {
        for s in SURFACES {
            if !self.experts.contains_key(s.name) {
                let c = self.servers.surface(s, true).await?;
                self.experts.insert(s.name, c);
            }
        }
        Ok(())
    }

    async fn ensure_flat(&mut self) -> anyhow::Result<()> {
        if self.flat.is_none() {
            self.flat = Some(self.servers.flat().await?);
        }
        Ok(())
    }

    async fn close(self) {
        if let Some(c) = self.flat {
            c.close().await;
        }
        for (_, c) in self.routed.into_iter().chain(self.experts) {
            c.close().await;
        }
    }
}

/// Nearest-rank percentile of sorted durations, in whole milliseconds.
fn percentile(sorted: &[Duration], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1].as_millis() as u64)
}

/// Run every arm over every turn.
pub async fn run(opts: &Options) -> anyhow::Result<Report> {
    let chat = Chat::new(&opts.base_url, &opts.model, opts.api_key.clone(), opts.timeout);
    let servers = Servers::new(&opts.bin_dir, &opts.attest)?;
    let progress = std::io::stderr().is_terminal();
    let mut report = Report {
        model: opts.model.clone(),
        endpoint: chat.url.clone(),
        repeats: opts.repeats,
        arms: BTreeMap::new(),
        order: opts.arms.iter().map(|a| a.name()).collect(),
        misses: Vec::new(),
    };
    for &arm in &opts.arms {
        let mut runner =
            Runner { chat: &chat, servers: &servers, flat: None, routed: BTreeMap::new(), experts: BTreeMap::new() };
        let mut tally = ArmReport::default();
        let mut times = Vec::new();
        let total = opts.turns.len() * opts.repeats as usize;
        for _ in 0..opts.repeats {
            for label in &opts.turns {
                let (turn, took) = runner.turn(arm, label).await;
                tally.turns += 1;
                tally.tools_shown = tally.tools_shown.max(turn.tools_shown);
                // A failed turn is never right, even where nothing should have run.
                let kind = if turn.error.is_some() && turn.ran.is_none() { "none" } else { verdict(label, &turn) };
                match kind {
                    "right" => tally.right += 1,
                    "wrong" => tally.wrong += 1,
                    _ => tally.none += 1,
                }
                if turn.error.is_some() {
                    tally.errors += 1;
                } else {
                    times.push(took);
                }
                if kind != "right" || turn.error.is_some() {
                    report.misses.push(Miss {
                        arm: arm.name(),
                        s: label.s.clone(),
                        q: label.q.clone(),
                        expected: label.t.clone(),
                        got: turn.ran.clone(),
                        kind: if turn.error.is_some() { "error" } else { kind },
                        error: turn.error,
                    });
                }
                if progress {
                    eprint!("\r{}: {}/{} turns", arm.name(), tally.turns, total);
                }
            }
        }
        if progress {
            eprintln!();
        }
        runner.close().await;
        times.sort();
        tally.p50_ms = percentile(&times, 50.0);
        tally.p95_ms = percentile(&times, 95.0);
        report.arms.insert(arm.name(), tally);
    }
    Ok(report)
}

/// The report for a terminal: one row per arm, then each failed turn.
pub fn render(report: &Report) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(out, "model {} at {}", report.model, report.endpoint);
    let _ = writeln!(
        out,
        "{:<8} {:>7} {:>6} {:>6} {:>7} {:>8} {:>8} {:>12}",
        "arm", "right", "wrong", "none", "errors", "p50 ms", "p95 ms", "tools shown"
    );
    let ms = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    for name in &report.order {
        let a = &report.arms[name];
        let _ = writeln!(
            out,
            "{:<8} {:>7} {:>6} {:>6} {:>7} {:>8} {:>8} {:>12}",
            name,
            format!("{}/{}", a.right, a.turns),
            a.wrong,
            a.none,
            a.errors,
            ms(a.p50_ms),
            ms(a.p95_ms),
            a.tools_shown
        );
    }
    let errors: Vec<&Miss> = report.misses.iter().filter(|m| m.kind == "error").collect();
    if !errors.is_empty() {
        let _ = writeln!(out, "\n{} turns failed:", errors.len());
        for m in errors {
            let _ = writeln!(out, "  {} [{}] {:?}: {}", m.arm, m.s, clip(&m.q, 60), m.error.as_deref().unwrap_or(""));
        }
    }
    let misses = report.misses.iter().filter(|m| m.kind != "error").count();
    if misses > 0 {
        let _ = writeln!(out, "\n{misses} turns missed (wrong tool or none); --json lists each");
    }
    out
}

/// `attest eval agents`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct Args {
    /// The labelled turns: one JSON object a line, as for `eval routing`
    /// (`{"s": "runs", "q": "...", "t": "runs.compare" or null}`).
    #[arg(long, value_name = "FILE")]
    pub turns: PathBuf,
    /// The OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (Ollama); the
    /// requests go to its /chat/completions.
    #[arg(long, value_name = "URL")]
    pub base_url: String,
    /// The model to ask, e.g. qwen3:4b.
    #[arg(long, value_name = "NAME")]
    pub model: String,
    /// The arms to run, comma-separated: routed, flat, swarm.
    #[arg(long, value_name = "LIST", default_value = "routed,flat,swarm")]
    pub arms: String,
    /// Ask every turn this many times.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub repeats: u32,
    /// The environment variable holding the endpoint's API key (sent as a bearer token).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// Seconds one model request may take.
    #[arg(long, value_name = "SECS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// Where the surface binaries are (default: beside this executable).
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
}

/// `attest eval agents`: check the arguments, run, print. Exit 2 on a usage error, 1
/// when any turn failed at the endpoint or a server (the report says which), else 0.
pub async fn main(args: Args, json: bool) -> anyhow::Result<std::process::ExitCode> {
    use std::process::ExitCode;
    let usage = |msg: String| {
        eprintln!("attest: {msg}");
        Ok(ExitCode::from(2))
    };
    let text = match std::fs::read_to_string(&args.turns) {
        Ok(t) => t,
        Err(e) => return usage(format!("cannot read {}: {e}", args.turns.display())),
    };
    let turns = match attest_core::routing_eval::parse(&text) {
        Ok(t) if t.is_empty() => return usage(format!("{} holds no turns", args.turns.display())),
        Ok(t) => t,
        Err(e) => return usage(format!("{}: {e}", args.turns.display())),
    };
    let arms = match Arm::parse_list(&args.arms) {
        Ok(a) => a,
        Err(e) => return usage(format!("--arms: {e}")),
    };
    if let Err(e) = attest_openai::web_url(&args.base_url) {
        return usage(format!("--base-url: {e}"));
    }
    let api_key = match &args.api_key_env {
        None => None,
        Some(var) => match std::env::var(var) {
            Ok(k) if !k.trim().is_empty() => Some(k),
            _ => return usage(format!("--api-key-env: the environment variable {var} is not set")),
        },
    };
    let attest = std::env::current_exe().context("cannot find this executable for `attest serve`")?;
    let bin_dir = match args.bin_dir {
        Some(d) => std::path::absolute(&d).unwrap_or(d),
        None => attest.parent().context("this executable has no directory")?.to_path_buf(),
    };
    let opts = Options {
        turns,
        base_url: args.base_url,
        model: args.model,
        arms,
        repeats: args.repeats,
        api_key,
        timeout: Duration::from_secs(args.timeout),
        bin_dir,
        attest,
    };
    let missing = missing_binaries(&opts);
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|p| p.display().to_string()).collect();
        return usage(format!(
            "the routed and swarm arms run the surface binaries, and these are missing: {}. Install them (see README) or pass --bin-dir",
            names.join(", ")
        ));
    }
    let report = run(&opts).await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report));
    }
    let failed = report.arms.values().any(|a| a.errors > 0);
    Ok(if failed { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(s: &str, t: Option<&str>) -> Labelled {
        Labelled { s: s.into(), q: "q".into(), t: t.map(str::to_string), args: Map::new() }
    }

    #[test]
    fn verdicts() {
        let ran = |t: &str| Turn { ran: Some(t.into()), ..Turn::default() };
        assert_eq!(verdict(&label("runs", Some("runs.compare")), &ran("runs.compare")), "right");
        assert_eq!(verdict(&label("runs", Some("runs.compare")), &ran("runs.list")), "wrong");
        assert_eq!(verdict(&label("runs", None), &ran("runs.list")), "wrong");
        assert_eq!(verdict(&label("runs", None), &Turn::default()), "right");
        assert_eq!(verdict(&label("runs", Some("runs.compare")), &Turn::default()), "none");
        let named = Turn { options: vec!["kg.path".into()], ..Turn::default() };
        assert_eq!(verdict(&label("runs", Some("kg.path")), &named), "right");
        // Naming an own-surface tool in a question back is not running it.
        let named = Turn { options: vec!["runs.compare".into()], ..Turn::default() };
        assert_eq!(verdict(&label("runs", Some("runs.compare")), &named), "none");
    }

    #[test]
    fn arms_parse() {
        assert_eq!(Arm::parse_list("routed, swarm").unwrap(), vec![Arm::Routed, Arm::Swarm]);
        assert!(Arm::parse_list("routed,mesh").unwrap_err().contains("unknown arm 'mesh'"));
        assert!(Arm::parse_list("flat,flat").is_err());
        assert!(Arm::parse_list("").is_err());
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let d: Vec<Duration> = (1..=20).map(|ms| Duration::from_millis(ms * 10)).collect();
        assert_eq!(percentile(&d, 50.0), Some(100));
        assert_eq!(percentile(&d, 95.0), Some(190));
        assert_eq!(percentile(&[], 50.0), None);
    }

    #[test]
    fn replies_parse() {
        let calls = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "runs_ask", "arguments": "{\"question\": \"x\"}"}}]}}]});
        let Ok(Reply::Calls(c, kept)) = parse_reply(&calls) else { panic!("calls") };
        assert_eq!((c[0].name.as_str(), c[0].args["question"].as_str()), ("runs_ask", Some("x")));
        assert_eq!(kept["tool_calls"][0]["id"], "a");
        let words = json!({"choices": [{"message": {"role": "assistant", "content": "which family?"}}]});
        assert!(matches!(parse_reply(&words), Ok(Reply::Text)));
        assert!(
            parse_reply(&json!({"error": {"message": "model not found"}})).unwrap_err().contains("model not found")
        );
        assert!(parse_reply(&json!({"nothing": 1})).is_err());
    }
}
