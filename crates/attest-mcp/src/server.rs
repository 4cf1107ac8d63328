//! One MCP session over a catalogue: listing with disclosure, naming, calling and
//! rendering.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use attest_core::catalogue::{JsonObject, Listing};
use attest_core::{Answer, Catalogue, Hints, NoArgs, Surface, Tool, ToolNames, ToolSpec, text};
use futures::FutureExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};

/// What a server serves: one surface (with disclosure) or the flat catalogue of
/// everything linked.
#[derive(Clone)]
pub struct Served {
    catalogue: Arc<Catalogue>,
    surface: Option<&'static Surface>,
    names: ToolNames,
    expand: bool,
}

impl Served {
    /// Serve one surface: the catalogue is cut to what the surface allows, and its
    /// `<ns>.tools` entry tool is added.
    pub fn surface(catalogue: Catalogue, surface: &'static Surface, names: ToolNames, expand: bool) -> Served {
        let mut cut = catalogue.restrict(surface);
        let listing = cut.listing(surface);
        cut.push(tools_tool(surface, listing));
        Served { catalogue: Arc::new(cut), surface: Some(surface), names, expand }
    }

    /// Serve everything linked, every tool listed (the single-agent setup).
    pub fn flat(catalogue: Catalogue, names: ToolNames) -> Served {
        Served { catalogue: Arc::new(catalogue), surface: None, names, expand: true }
    }

    /// The catalogue being served.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// A fresh session over this catalogue.
    pub fn session(&self) -> Session {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Session {
            served: self.clone(),
            expanded: Arc::new(AtomicBool::new(self.expand)),
            id: NEXT.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// The session a tool call is running for: a number unique in this process, the same for
/// every call of one MCP session (one stdio process, one `Mcp-Session-Id`), and `None`
/// outside a call. Shared resources use it to take turns between sessions, so that one
/// client's queue of slow calls cannot hold up another's (the symbolic surface's worker
/// pool: `attest_sandbox::Pool::call_in`).
/// The session is kept by `attest_core::session`, so tools that never link MCP (the
/// feed's memory of the item it last showed) read the same number.
pub fn current_session() -> Option<u64> {
    attest_core::session::current()
}

fn tools_description(surface: &Surface) -> &'static str {
    // Leaked once per surface at start-up: tool descriptions are 'static.
    Box::leak(
        format!(
            "List everything this {} agent can do, and make those tools callable.\n\n{} Only {} and this tool are listed at first, so questions go to the router; after this call the rest are listed too (from your next turn in some clients). In the same turn, run any of them through {} with tool=<name> and args={{...}}.",
            surface.name,
            surface.summary,
            surface.ask_tool(),
            surface.ask_tool()
        )
        .into_boxed_str(),
    )
}

fn tools_tool(surface: &'static Surface, listing: Listing) -> Tool {
    let name: &'static str = Box::leak(surface.tools_tool().into_boxed_str());
    let spec = ToolSpec {
        name,
        title: "What can this agent do?",
        description: tools_description(surface),
        hints: Hints { read_only: true, destructive: false, idempotent: true, open_world: false },
    };
    let listing = Arc::new(listing);
    Tool::new(spec, move |_: NoArgs| {
        let listing = Arc::clone(&listing);
        async move {
            let names: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
            Ok::<_, attest_core::Fault>(Answer::ok(
                format!("{}: {}.", attest_core::text::plural(names.len(), "tool", "tools"), names.join(", ")),
                Listing::clone(&listing),
            ))
        }
    })
}

/// One client's session: its own disclosure state over a shared catalogue.
#[derive(Clone)]
pub struct Session {
    served: Served,
    expanded: Arc<AtomicBool>,
    /// What [`current_session`] says during this session's calls.
    id: u64,
}

impl Session {
    fn listed(&self) -> Vec<&Tool> {
        let expanded = self.expanded.load(Ordering::SeqCst);
        self.served
            .catalogue
            .tools()
            .iter()
            .filter(|t| match self.served.surface {
                Some(s) => expanded || s.is_entry(t.name()),
                None => true,
            })
            .collect()
    }

    fn to_mcp(&self, t: &Tool) -> McpTool {
        let h = t.spec.hints;
        let annotations = ToolAnnotations::with_title(t.spec.title)
            .read_only(h.read_only)
            .destructive(h.destructive)
            .idempotent(h.idempotent)
            .open_world(h.open_world);
        McpTool::new_with_raw(
            self.served.names.spell(t.name()),
            Some(t.spec.description.into()),
            standard_schema(&t.input_schema),
        )
        .with_title(t.spec.title)
        .with_raw_output_schema(standard_schema(&t.output_schema))
        .with_annotations(annotations)
    }

    /// Map a wire name (either spelling) back to the catalogue's dotted name.
    fn resolve(&self, wire: &str) -> Option<&'static str> {
        self.served.catalogue.names().into_iter().find(|n| *n == wire || self.served.names.spell(n) == wire)
    }

    /// The tools listed right now, as MCP tools.
    pub fn list(&self) -> Vec<McpTool> {
        self.listed().into_iter().map(|t| self.to_mcp(t)).collect()
    }

    /// Call a tool by its wire name. `Ok(changed)` says whether the listing widened.
    pub async fn call(&self, wire: &str, args: JsonObject) -> (CallToolResult, bool) {
        let Some(name) = self.resolve(wire) else {
            let known: Vec<String> = self.listed().iter().map(|t| self.served.names.spell(t.name())).collect();
            let a = Answer::<()>::refuse(format!(
                "there is no tool '{}' here. Tools listed: {}.",
                text::clip(wire, 80),
                known.join(", ")
            ))
            .into_value();
            return (render(a), false);
        };
        let mut changed = false;
        if let Some(s) = self.served.surface
            && name == s.tools_tool()
        {
            changed = !self.expanded.swap(true, Ordering::SeqCst);
        }
        // A panicking handler is a fault like any other: it is answered, never dropped.
        let call = AssertUnwindSafe(self.served.catalogue.call(name, args)).catch_unwind();
        match attest_core::session::scope(self.id, call).await {
            Ok(Ok(answer)) => (render(self.word_next(answer)), changed),
            Ok(Err(fault)) => {
                tracing::error!(tool = name, error = ?fault, "internal fault");
                (internal_error(name), changed)
            }
            Err(panic) => {
                tracing::error!(tool = name, panic = panic_message(panic.as_ref()), "tool handler panicked");
                (internal_error(name), changed)
            }
        }
    }
}

impl Session {
    /// The step a refusal offers ([`attest_core::Next`]) with the tool spelled as this
    /// server serves it (`runs_record` for clients that reject dots); the text holds the
    /// dotted spelling otherwise unchanged.
    fn word_next(&self, mut answer: Answer<serde_json::Value>) -> Answer<serde_json::Value> {
        if let Some(next) = &answer.next {
            let spelled = self.served.names.spell(&next.tool);
            if spelled != next.tool
                && let Some(text) = next.render_in(&answer.answer, &next.render(&spelled))
            {
                answer.answer = text;
            }
        }
        answer
    }
}

/// A tool schema as clients see it: standard JSON Schema formats only.
fn standard_schema(schema: &JsonObject) -> Arc<JsonObject> {
    let mut s = schema.clone();
    crate::schema::standardize(&mut s);
    Arc::new(s)
}

/// The reply to an internal fault: `isError`, and nothing of the fault itself.
fn internal_error(name: &str) -> CallToolResult {
    let a = Answer::<()>::refuse(format!(
        "internal error in {name}; the server log has the detail. Retrying the same call will not help."
    ))
    .used(name)
    .into_value();
    let mut r = render(a);
    r.is_error = Some(true);
    r
}

/// The message a panic was raised with, when it has one.
fn panic_message(panic: &(dyn Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

/// Render an answer: the human line as text, the whole answer as structured content.
fn render(answer: Answer<serde_json::Value>) -> CallToolResult {
    let text = answer.render_text();
    let value = serde_json::to_value(&answer).unwrap_or(serde_json::Value::Null);
    let mut r = CallToolResult::structured(value);
    r.content = vec![ContentBlock::text(text)];
    r
}

impl ServerHandler for Session {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        let (name, instructions) = match self.served.surface {
            Some(s) => (
                format!("attest-{}", s.name),
                format!("{} {} Start with {}.", s.summary, s.goal, s.ask_tool()),
            ),
            None => (
                "attest".to_string(),
                "Auditable research provenance: every tool of attest in one server. Each namespace has an <ns>.ask router for plain questions.".to_string(),
            ),
        };
        ServerConfig::new(caps)
            .with_server_info(Implementation::new(name, env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.list()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let (result, changed) = self.call(&request.name, args).await;
        if changed && let Err(e) = context.peer.notify_tool_list_changed().await {
            tracing::warn!(error = %e, "could not send tools/list_changed");
        }
        Ok(result.into())
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        let dotted = self.resolve(name)?;
        self.served.catalogue.get(dotted).map(|t| self.to_mcp(t))
    }
}

#[cfg(test)]
mod tests {
    use attest_core::catalogue::Fault;

    use super::*;

    fn boom() -> Tool {
        let spec = ToolSpec::new("test.boom", "Boom", "Panics.", Hints::default());
        Tool::new(spec, |_: NoArgs| async move {
            if true {
                panic!("boom");
            }
            Ok::<_, Fault>(Answer::ok("never", ()))
        })
    }

    fn fine() -> Tool {
        let spec = ToolSpec::new("test.fine", "Fine", "Answers.", Hints::default());
        Tool::new(spec, |_: NoArgs| async move { Ok::<_, Fault>(Answer::ok("all well", ())) })
    }

    fn session() -> Session {
        let mut c = Catalogue::new();
        c.push(boom());
        c.push(fine());
        Served::flat(c, ToolNames::Dotted).session()
    }

    fn text_of(r: &CallToolResult) -> String {
        serde_json::to_value(&r.content).unwrap().to_string()
    }

    #[tokio::test]
    async fn a_panicking_tool_is_answered_and_the_session_goes_on() {
        let s = session();
        let (r, _) = s.call("test.boom", JsonObject::new()).await;
        assert_eq!(r.is_error, Some(true));
        let t = text_of(&r);
        assert!(t.contains("internal error in test.boom"), "{t}");
        assert!(!t.contains("boom\""), "the panic message leaked: {t}");
        let answer = r.structured_content.clone().unwrap();
        assert_eq!(answer["tool_used"], "test.boom");
        assert_eq!(answer["ok"], false);

        let (r, _) = s.call("test.fine", JsonObject::new()).await;
        assert_ne!(r.is_error, Some(true));
        assert!(text_of(&r).contains("all well"));
    }

    #[tokio::test]
    async fn a_huge_unknown_name_gives_a_short_answer() {
        let s = session();
        let wire = "x".repeat(1_000_000);
        let (r, _) = s.call(&wire, JsonObject::new()).await;
        let n = serde_json::to_string(&r).unwrap().chars().count();
        assert!(n < 7_000, "{n} characters");
        assert!(text_of(&r).contains("there is no tool"));
    }

    /// Each session's calls run with its own id, so shared resources can take turns
    /// between sessions; outside a call there is none.
    #[tokio::test]
    async fn calls_know_which_session_they_run_for() {
        let spec = ToolSpec::new("test.whoami", "Who", "Says the session.", Hints::default());
        let whoami =
            Tool::new(
                spec,
                |_: NoArgs| async move { Ok::<_, Fault>(Answer::ok(format!("{:?}", current_session()), ())) },
            );
        let served = Served::flat(Catalogue::from(vec![whoami]), ToolNames::Dotted);
        let (a, b) = (served.session(), served.session());
        let said = |r: CallToolResult| r.structured_content.unwrap()["answer"].as_str().unwrap().to_string();
        let a1 = said(a.call("test.whoami", JsonObject::new()).await.0);
        let a2 = said(a.call("test.whoami", JsonObject::new()).await.0);
        let b1 = said(b.call("test.whoami", JsonObject::new()).await.0);
        assert!(a1.starts_with("Some("), "{a1}");
        assert_eq!(a1, a2);
        assert_ne!(a1, b1);
        assert_eq!(current_session(), None);
    }

    /// A refusal's next step names the tool as this server spells it.
    #[tokio::test]
    async fn the_next_step_is_spelled_as_served() {
        let spec = ToolSpec::new("test.write", "Write", "Writes.", Hints::default());
        let write = Tool::new(spec, |_: NoArgs| async move {
            let next = attest_core::Next::again("test.write").with("confirm", true);
            Err::<Answer<()>, _>(
                attest_core::Stop::refuse(format!("would write. Call {} to go ahead.", next.for_agent()))
                    .with_next(next),
            )
        });
        for (names, want) in [
            (ToolNames::Dotted, "Call test.write again with confirm=true to go ahead."),
            (ToolNames::Underscore, "Call test_write again with confirm=true to go ahead."),
        ] {
            let s = Served::flat(Catalogue::from(vec![write.clone()]), names).session();
            let (r, _) = s.call("test.write", JsonObject::new()).await;
            assert_eq!(r.structured_content.clone().unwrap()["answer"], format!("would write. {want}"));
        }
    }
}
