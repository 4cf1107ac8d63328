//! The tool catalogue: what a tool is called, what it says about itself, what it takes
//! and returns (as JSON Schema), and the function that answers it.
//!
//! Domain crates build [`Tool`]s from plain async functions; the MCP layer and the CLI
//! serve or call them through a [`Catalogue`]. Nothing here knows about MCP: the hints
//! are the plain facts (reads only, deletes, idempotent, reaches the network) that any
//! protocol can map to its own annotations.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::answer::Answer;
use crate::ask::Route;
use crate::stop::Stop;
use crate::surface::Surface;
use crate::{MAX_RESPONSE_CHARS, text};

/// A JSON object, as tool arguments and schemas are.
pub type JsonObject = Map<String, Value>;

/// Plain facts about what a tool does, mapped by the MCP layer to annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hints {
    /// Reads only; changes nothing anywhere.
    pub read_only: bool,
    /// Deletes or replaces something. Such tools also take `confirm=true`.
    pub destructive: bool,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// Reaches outside this machine (the network).
    pub open_world: bool,
}

impl Hints {
    /// Reads only, touches nothing outside this machine.
    pub const READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: false };
    /// Writes, but adds rather than replaces.
    pub const WRITE: Hints = Hints { read_only: false, destructive: false, idempotent: false, open_world: false };
    /// Replaces or deletes: needs `confirm=true`.
    pub const DESTRUCTIVE: Hints = Hints { read_only: false, destructive: true, idempotent: true, open_world: false };
}

/// What a tool says about itself.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    /// `namespace.leaf`, e.g. `runs.compare`.
    pub name: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// One line, in the words users actually say, ending with a full stop. Further
    /// lines may follow after a blank line.
    pub description: &'static str,
    /// What the tool does to the world.
    pub hints: Hints,
}

impl ToolSpec {
    /// A spec from its parts.
    pub const fn new(name: &'static str, title: &'static str, description: &'static str, hints: Hints) -> ToolSpec {
        ToolSpec { name, title, description, hints }
    }

    /// The namespace, the part before the first dot.
    pub fn namespace(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(ns, _)| ns)
    }

    /// The first line of the description.
    pub fn summary(&self) -> &'static str {
        self.description.lines().next().unwrap_or("")
    }
}

/// An internal fault: something that should never happen for any input (a bug, a
/// database that vanished mid-call). Logged in full by the server; the client only
/// learns that an internal error happened.
#[derive(Debug, thiserror::Error)]
#[error("{context}: {source}")]
pub struct Fault {
    /// What was being done.
    pub context: String,
    /// Why it failed.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

impl Fault {
    /// Wrap an error with what was being done.
    pub fn new(context: impl Into<String>, source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Fault { context: context.into(), source: source.into() }
    }
}

/// The boxed future a tool handler returns.
pub type Reply = Pin<Box<dyn Future<Output = Result<Answer<Value>, Fault>> + Send>>;
type Handler = Arc<dyn Fn(JsonObject) -> Reply + Send + Sync>;

/// A tool: its spec, its schemas and its handler.
#[derive(Clone)]
pub struct Tool {
    /// What it says about itself.
    pub spec: ToolSpec,
    /// JSON Schema (draft 2020-12) of its arguments; always an object schema.
    pub input_schema: Arc<JsonObject>,
    /// JSON Schema of its [`Answer`], success and failure alike.
    pub output_schema: Arc<JsonObject>,
    handler: Handler,
    ask: Option<AskSpec>,
}

/// What makes a tool a surface's `<ns>.ask`: its router and what passes through.
#[derive(Clone)]
struct AskSpec {
    router: &'static dyn Route,
    pass: &'static [&'static str],
    parse: fn(JsonObject) -> Result<AskRequest, String>,
}

/// One `<ns>.ask` call, read.
struct AskRequest {
    question: String,
    tool: Option<Value>,
    args: Option<Value>,
    given: JsonObject,
}

/// The arguments of every `<ns>.ask`; `C` adds the surface's own context.
#[derive(Debug, Clone, serde::Deserialize, Serialize, JsonSchema)]
pub struct AskArgs<C> {
    /// The question, in the user's own words.
    #[serde(default)]
    pub question: String,
    /// Run this tool of the surface directly instead of routing the question (a name
    /// from `<ns>.tools`).
    #[serde(default)]
    pub tool: Option<Value>,
    /// The arguments for `tool`, as an object.
    #[serde(default)]
    pub args: Option<Value>,
    /// The surface's own context.
    #[serde(flatten)]
    pub context: C,
}

/// Read typed arguments, saying which argument was wrong and how.
fn read_args<I: DeserializeOwned>(args: JsonObject) -> Result<I, String> {
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        let path = e.path().to_string();
        let inner = text::clip(&e.into_inner().to_string(), 200);
        if path == "." || path.is_empty() { format!("its arguments: {inner}") } else { format!("`{path}`: {inner}") }
    })
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tool").field("name", &self.spec.name).finish_non_exhaustive()
    }
}

/// Arguments of a tool that takes none.
#[derive(Debug, Clone, Default, serde::Deserialize, JsonSchema)]
pub struct NoArgs {}

fn schema_object<T: JsonSchema>() -> JsonObject {
    match serde_json::to_value(schemars::schema_for!(T)) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

impl Tool {
    /// Build a tool from an async function over typed arguments.
    ///
    /// The function returns `Result<Answer<O>, E>` with `E` a [`Stop`] (or a [`Fault`]):
    /// a refusal leaves through `?` and is sent as the `ok: false` answer it carries.
    /// Arguments that do not deserialize become an `ok: false` answer naming the
    /// argument, the problem and the expected parameters; they never reach `f`.
    pub fn new<I, O, E, F, Fut>(spec: ToolSpec, f: F) -> Tool
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        O: Serialize + JsonSchema + 'static,
        E: Into<Stop> + 'static,
        F: Fn(I) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Answer<O>, E>> + Send + 'static,
    {
        let input_schema = Arc::new(schema_object::<I>());
        let output_schema = Arc::new(schema_object::<Answer<O>>());
        let f = Arc::new(f);
        let name = spec.name;
        let params = Arc::new(describe_params(&input_schema));
        let handler: Handler = Arc::new(move |args: JsonObject| {
            let f = Arc::clone(&f);
            let params = Arc::clone(&params);
            Box::pin(async move {
                let input: I = match read_args(args) {
                    Ok(i) => i,
                    Err(problem) => {
                        return Ok(
                            Answer::refuse(format!("{name} could not read {problem}. It takes {params}.")).used(name)
                        );
                    }
                };
                let mut answer = match f(input).await.map_err(Into::into) {
                    Ok(answer) => answer.into_value(),
                    Err(Stop::Refused(answer)) => *answer,
                    Err(Stop::Fault(fault)) => return Err(fault),
                };
                // A question back names no tool (nothing was run); an answer does.
                if answer.tool_used.is_none() && (answer.ok || answer.options.is_empty()) {
                    answer.tool_used = Some(name.to_string());
                }
                Ok(answer)
            }) as Reply
        });
        Tool { spec, input_schema, output_schema, handler, ask: None }
    }

    /// The `<ns>.ask` entry of a surface: a question in the user's words, routed by
    /// `router` to one tool of the same catalogue and answered by it (see
    /// [`Catalogue::call`]). `C` is the surface's own context: arguments the router may
    /// read (sym's `expr`) and, for the keys named in `pass`, arguments handed to
    /// whichever tool the question reaches when that tool takes them (feed's `user`).
    pub fn ask<C>(spec: ToolSpec, router: &'static dyn Route, pass: &'static [&'static str]) -> Tool
    where
        C: DeserializeOwned + Serialize + JsonSchema + Send + 'static,
    {
        let input_schema = Arc::new(schema_object::<AskArgs<C>>());
        let output_schema = Arc::new(schema_object::<Answer<Value>>());
        let name = spec.name;
        let handler: Handler = Arc::new(move |_| {
            Box::pin(async move {
                Ok(Answer::refuse(format!("{name} answers only through its catalogue, which routes the question."))
                    .used(name))
            }) as Reply
        });
        let parse: fn(JsonObject) -> Result<AskRequest, String> = |args| {
            let a: AskArgs<C> = read_args(args)?;
            let given = match serde_json::to_value(&a.context) {
                Ok(Value::Object(m)) => m.into_iter().filter(|(_, v)| !v.is_null()).collect(),
                _ => JsonObject::new(),
            };
            Ok(AskRequest { question: a.question, tool: a.tool, args: a.args, given })
        };
        Tool { spec, input_schema, output_schema, handler, ask: Some(AskSpec { router, pass, parse }) }
    }

    /// The tool's name.
    pub fn name(&self) -> &'static str {
        self.spec.name
    }

    /// Run the tool on raw arguments.
    pub fn call(&self, args: JsonObject) -> Reply {
        (self.handler)(args)
    }

    /// The parameters, one entry each: name, JSON type and whether required.
    pub fn params(&self) -> Vec<Param> {
        params_of(&self.input_schema)
    }
}

/// One parameter of a tool, for listings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, JsonSchema)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Its JSON type, e.g. `string`, `integer`, `array`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Whether the tool needs it.
    pub required: bool,
}

fn params_of(schema: &JsonObject) -> Vec<Param> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| Param {
            name: name.clone(),
            kind: json_type(&resolve(p, schema)),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

/// A property's schema with `$ref`s into the root's `$defs` (or `definitions`) followed
/// and an optional's `anyOf: [T, null]` reduced to `T`, so a listing says what the
/// value is rather than "object".
fn resolve(p: &Value, root: &JsonObject) -> Value {
    let mut p = p.clone();
    for _ in 0..8 {
        if let Some(r) = p.get("$ref").and_then(Value::as_str) {
            let name = r.rsplit('/').next().unwrap_or(r);
            let def = ["$defs", "definitions"].iter().find_map(|k| root.get(*k).and_then(|d| d.get(name)));
            match def {
                Some(d) => p = d.clone(),
                None => break,
            }
            continue;
        }
        let variants = p.get("anyOf").and_then(Value::as_array).map(|a| {
            a.iter().filter(|v| v.get("type").and_then(Value::as_str) != Some("null")).cloned().collect::<Vec<_>>()
        });
        match variants {
            Some(v) if v.len() == 1 => p = v[0].clone(),
            _ => break,
        }
    }
    p
}

/// The values an enumerated parameter takes (`enum`, or `oneOf` of `const`s as schemars
/// writes an enum whose variants carry docs).
fn choices(p: &Value) -> Vec<String> {
    let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
    if let Some(e) = p.get("enum").and_then(Value::as_array) {
        return e.iter().filter(|v| !v.is_null()).map(text).collect();
    }
    p.get("oneOf")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.get("const").or_else(|| v.get("enum")?.get(0))).map(text).collect())
        .unwrap_or_default()
}

fn json_type(p: &Value) -> String {
    match p.get("type") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(a)) => {
            a.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect::<Vec<_>>().join("|")
        }
        _ if !choices(p).is_empty() => "string".into(),
        _ if p.get("$ref").is_some() || p.get("anyOf").is_some() => "object".into(),
        _ => "any".into(),
    }
}

fn describe_params(schema: &JsonObject) -> String {
    let ps = params_of(schema);
    if ps.is_empty() {
        return "no arguments".into();
    }
    let props = schema.get("properties").and_then(Value::as_object);
    ps.iter()
        .map(|p| {
            let prop = props.and_then(|m| m.get(&p.name)).map(|v| resolve(v, schema));
            let prop = prop.as_ref();
            let range = match (prop.and_then(|v| v.get("minimum")), prop.and_then(|v| v.get("maximum"))) {
                (Some(lo), Some(hi)) => format!(" {lo} to {hi}"),
                _ => String::new(),
            };
            let kind = match prop.map(choices).unwrap_or_default() {
                c if c.is_empty() => p.kind.clone(),
                c => format!("one of {}", c.join(", ")),
            };
            format!("{}{} ({kind}{range})", p.name, if p.required { "" } else { "?" })
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// An ordered set of tools with unique names.
#[derive(Clone, Default, Debug)]
pub struct Catalogue {
    tools: Vec<Tool>,
    budget: crate::budget::Budget,
}

/// One line of a catalogue listing, as `<ns>.tools` returns it.
#[derive(Debug, Clone, Serialize, serde::Deserialize, JsonSchema)]
pub struct Listed {
    /// The tool's name.
    pub name: String,
    /// The first line of its description.
    pub description: String,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Whether it only reads.
    pub read_only: bool,
}

/// What `<ns>.tools` returns.
#[derive(Debug, Clone, Serialize, serde::Deserialize, JsonSchema)]
pub struct Listing {
    /// The surface whose tools these are.
    pub surface: String,
    /// Every tool of the surface.
    pub tools: Vec<Listed>,
}

impl From<Vec<Tool>> for Catalogue {
    fn from(tools: Vec<Tool>) -> Self {
        let mut c = Catalogue::new();
        for t in tools {
            c.push(t);
        }
        c
    }
}

impl Catalogue {
    /// An empty catalogue.
    pub fn new() -> Self {
        Catalogue::default()
    }

    /// Add a tool. A tool with the same name as an existing one replaces nothing: it
    /// is a programming error, caught by the catalogue tests.
    pub fn push(&mut self, tool: Tool) {
        debug_assert!(self.get(tool.name()).is_none(), "duplicate tool {}", tool.name());
        if self.get(tool.name()).is_none() {
            self.tools.push(tool);
        }
    }

    /// Add every tool of another catalogue.
    pub fn extend(&mut self, other: Catalogue) {
        for t in other.tools {
            self.push(t);
        }
    }

    /// Add the tools of another catalogue that this one does not have yet: the same
    /// tool reached through two domains (e.g. `feed.search` on the knowledge surface)
    /// is served once.
    pub fn merge(&mut self, other: Catalogue) {
        for t in other.tools {
            if self.get(t.name()).is_none() {
                self.tools.push(t);
            }
        }
    }

    /// Keep only the tools a surface serves, in order.
    pub fn restrict(self, surface: &Surface) -> Catalogue {
        Catalogue { tools: self.tools.into_iter().filter(|t| surface.allows(t.name())).collect(), budget: self.budget }
    }

    /// Answer under `budget`: [`Budget::Agent`](crate::Budget::Agent) (the default,
    /// what every server uses) cuts lists and holds answers to [`MAX_RESPONSE_CHARS`];
    /// [`Budget::Whole`](crate::Budget::Whole) sends every row (the command line).
    pub fn with_budget(mut self, budget: crate::budget::Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The tools, in order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Look a tool up by name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(Tool::name).collect()
    }

    /// The listing `<ns>.tools` returns for a surface.
    pub fn listing(&self, surface: &Surface) -> Listing {
        Listing {
            surface: surface.name.to_string(),
            tools: self
                .tools
                .iter()
                .map(|t| Listed {
                    name: t.name().to_string(),
                    description: t.spec.summary().to_string(),
                    params: t.params(),
                    read_only: t.spec.hints.read_only,
                })
                .collect(),
        }
    }

    /// Call a tool by name.
    ///
    /// An unknown name is an `ok: false` answer listing what exists. A surface's
    /// `<ns>.ask` ([`Tool::ask`]) is one pipeline, the same on every surface: with a
    /// `tool` (and optional `args`) it runs that tool directly, provided it is in this
    /// catalogue (how an agent reaches a tool in the same turn it learned of it);
    /// otherwise its router decides, and the decision is final: a question back is
    /// answered as one, a tool is called by name with the arguments the question
    /// stated plus the surface's pass-through context. Under the agent's budget (the
    /// default) every answer is held to [`MAX_RESPONSE_CHARS`]; see [`Self::with_budget`].
    pub async fn call(&self, name: &str, args: JsonObject) -> Result<Answer<Value>, Fault> {
        let answer = crate::budget::scope(self.budget, self.dispatch(name, args)).await?;
        Ok(match self.budget {
            crate::budget::Budget::Agent => fit(answer),
            crate::budget::Budget::Whole => answer,
        })
    }

    async fn dispatch(&self, name: &str, args: JsonObject) -> Result<Answer<Value>, Fault> {
        let Some(tool) = self.get(name) else {
            return Ok(Answer::refuse(format!(
                "there is no tool '{}' here. Tools available: {}.",
                text::clip(name, 80),
                self.names().join(", ")
            )));
        };
        let Some(ask) = &tool.ask else {
            return tool.call(args).await;
        };
        let req = match (ask.parse)(args) {
            Ok(r) => r,
            Err(problem) => {
                let params = describe_params(&tool.input_schema);
                return Ok(Answer::refuse(format!("{name} could not read {problem}. It takes {params}.")).used(name));
            }
        };
        if let Some(target) = req.tool.filter(|v| !v.is_null()) {
            return self.direct(name, target, req.args).await;
        }
        let decision = ask.router.route(&req.question, &req.given);
        let Some(target) = decision.tool else {
            return Ok(Answer::ask_back(decision.answer, decision.options));
        };
        let Some(tool) = self.get(&target) else {
            // A rule naming a tool this catalogue lacks: a wiring bug, answered plainly.
            return Ok(Answer::refuse(format!(
                "{name} chose {target}, which this server does not serve. Tools available: {}.",
                self.names().join(", ")
            )));
        };
        let mut args = decision.args;
        let takes = params_of(&tool.input_schema);
        for key in ask.pass {
            if let Some(v) = req.given.get(*key)
                && takes.iter().any(|p| p.name == *key)
            {
                args.insert(key.to_string(), v.clone());
            }
        }
        tool.call(args).await
    }

    async fn direct(&self, ask: &str, target: Value, args: Option<Value>) -> Result<Answer<Value>, Fault> {
        let callable: Vec<&str> =
            self.names().into_iter().filter(|n| !n.ends_with(".ask") && !n.ends_with(".tools")).collect();
        let Some(target) = target.as_str().map(str::trim) else {
            return Ok(Answer::refuse(format!("{ask}: `tool` must be a tool name, one of {}.", callable.join(", "))));
        };
        // `runs_compare` (the underscore spelling) means `runs.compare`; a dotted name
        // is taken as it is, so `runs.claims_check` keeps its underscore.
        let target = if target.contains('.') { target.to_string() } else { target.replacen('_', ".", 1) };
        let target = target.as_str();
        if !callable.contains(&target) {
            let owner = match Surface::owner_of(target) {
                Some(s) if s.namespace != ask.split('.').next().unwrap_or("") => {
                    format!(" It belongs to the {} surface ({}): ask there.", s.name, s.binary)
                }
                _ => String::new(),
            };
            return Ok(Answer::refuse(format!(
                "{ask} cannot run '{}': it is not a tool of this surface.{owner} Tools it can run: {}.",
                text::clip(target, 80),
                callable.join(", ")
            ))
            .with_options(callable.iter().map(|s| s.to_string()).collect()));
        }
        let args = match args {
            None | Some(Value::Null) => JsonObject::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Ok(Answer::refuse(format!(
                    "{ask}: `args` must be an object of {target}'s arguments, e.g. {{\"limit\": 5}}."
                )));
            }
        };
        let Some(tool) = self.get(target) else {
            return Ok(Answer::refuse(format!("{ask} cannot run '{target}' here.")));
        };
        tool.call(args).await
    }
}

/// Hold an answer to the response budget: a detail too large to send is dropped, and
/// the caveat says so, rather than sending a cut-off JSON document.
pub fn fit(mut answer: Answer<Value>) -> Answer<Value> {
    let size = serde_json::to_string(&answer).map(|s| s.chars().count()).unwrap_or(usize::MAX);
    if size <= MAX_RESPONSE_CHARS {
        return answer;
    }
    answer.data = None;
    answer.answer = text::clip(&answer.answer, 600);
    if let Some(c) = &answer.caveat
        && c.chars().count() > 3000
    {
        answer.caveat = Some(text::clip(c, 3000));
    }
    answer = answer.with_caveats([format!(
        "the full detail ({size} characters) is over the {MAX_RESPONSE_CHARS}-character budget and was left out; narrow the request (a smaller limit, a project or a family)"
    )]);
    answer
}

/// Push onto `catalogue` the tool `spec`, answered by `f(&ctx, args)`: `f` is an
/// `async fn(&Ctx, Args) -> Result<Answer<_>, Fault>` and `ctx` the `Arc<Ctx>` every
/// call of the tool shares. How the domain catalogues bind their context, written once.
///
/// ```
/// use std::sync::Arc;
/// use attest_core::{Answer, Catalogue, Fault, Hints, NoArgs, ToolSpec, tool_over};
///
/// struct Greeter(&'static str);
/// async fn hello(g: &Greeter, _: NoArgs) -> Result<Answer<String>, Fault> {
///     Ok(Answer::ok(format!("hello, {}", g.0), g.0.to_string()))
/// }
/// let ctx = Arc::new(Greeter("world"));
/// let mut c = Catalogue::new();
/// tool_over!(c, ctx, ToolSpec::new("demo.hello", "Say hello", "Say hello.", Hints::READ), hello, NoArgs);
/// assert!(c.get("demo.hello").is_some());
/// ```
#[macro_export]
macro_rules! tool_over {
    ($catalogue:expr, $ctx:expr, $spec:expr, $f:path, $args:ty) => {{
        let ctx = ::std::sync::Arc::clone(&$ctx);
        $catalogue.push($crate::Tool::new($spec, move |a: $args| {
            let ctx = ::std::sync::Arc::clone(&ctx);
            async move { $f(&ctx, a).await }
        }));
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    struct EchoArgs {
        /// What to echo.
        word: String,
        #[serde(default)]
        times: Option<u32>,
    }

    fn echo() -> Tool {
        Tool::new(
            ToolSpec { name: "t.echo", title: "Echo", description: "Echo a word.", hints: Hints::READ },
            |a: EchoArgs| async move {
                if a.word == "no" {
                    return Err(Stop::refuse("echo refuses 'no'").with_options(["t.big"]));
                }
                Ok::<_, Stop>(Answer::ok(a.word.repeat(a.times.unwrap_or(1) as usize), ()))
            },
        )
    }

    fn big() -> Tool {
        Tool::new(
            ToolSpec { name: "t.big", title: "Big", description: "Too big.", hints: Hints::READ },
            |_: NoArgs| async move { Ok::<_, Fault>(Answer::ok("lots", "x".repeat(10_000))) },
        )
    }

    /// A router for the test catalogue: "echo WORD" echoes, "big" is big.
    struct Words(crate::route::Question);

    impl crate::ask::Facts for Words {
        fn read(question: &str, given: &JsonObject) -> Words {
            let extra = given.get("hint").and_then(Value::as_str).unwrap_or("");
            Words(crate::route::Question::new(&format!("{question} {extra}")))
        }
        fn words(&self) -> &crate::route::Question {
            &self.0
        }
    }

    fn word_after_echo(a: &crate::ask::Asked<'_, Words>) -> Result<JsonObject, crate::Decision> {
        let i = a.q.find("echo").unwrap_or(0);
        match a.q.words.get(i + 1) {
            Some(w) => Ok([("word".to_string(), Value::String(w.text.clone()))].into_iter().collect()),
            None => Err(crate::Decision::ask_back("Echo what?", &["t.echo", "t.big"])),
        }
    }

    static ROUTER: crate::ask::Router<Words> = crate::ask::Router {
        surface: "t",
        rules: &[
            crate::ask::Rule::new("t.echo", &["echo"]).args(word_after_echo),
            crate::ask::Rule::new("t.big", &["big"]),
        ],
        empty: "Ask something.",
        unclear: "Echo or big?",
        options: &["t.echo", "t.big"],
        decline_note: "",
        scoring: crate::score::Scoring::NONE,
        learned: crate::ask::Learned::none(),
    };

    #[derive(Deserialize, Serialize, JsonSchema)]
    struct Ctx {
        /// Read by the router.
        #[serde(default)]
        hint: Option<String>,
        /// Passed through to tools that take it.
        #[serde(default)]
        times: Option<u32>,
    }

    fn ask() -> Tool {
        Tool::ask::<Ctx>(
            ToolSpec { name: "t.ask", title: "Ask", description: "Ask.", hints: Hints::READ },
            &ROUTER,
            &["times"],
        )
    }

    fn cat() -> Catalogue {
        let mut c = Catalogue::new();
        c.push(echo());
        c.push(big());
        c.push(ask());
        c
    }

    fn obj(v: Value) -> JsonObject {
        v.as_object().unwrap().clone()
    }

    fn block<F: Future>(f: F) -> F::Output {
        // A tiny executor: catalogue futures here never wait on I/O.
        use std::task::{Context, Poll, Waker};
        let mut f = std::pin::pin!(f);
        let mut cx = Context::from_waker(Waker::noop());
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
        }
    }

    #[test]
    fn bad_arguments_are_a_refusal_naming_the_parameters() {
        let a = block(cat().call("t.echo", obj(serde_json::json!({"times": "x"})))).unwrap();
        assert!(!a.ok);
        assert!(a.answer.starts_with("t.echo could not read `times`:"), "{}", a.answer);
        assert!(a.answer.contains("word (string)"), "{}", a.answer);
        assert!(a.answer.contains("times?"), "{}", a.answer);
        assert_eq!(a.tool_used.as_deref(), Some("t.echo"));
    }

    #[test]
    fn unknown_tool_lists_what_exists() {
        let a = block(cat().call("t.nope", JsonObject::new())).unwrap();
        assert!(!a.ok);
        assert!(a.answer.contains("t.echo"));
    }

    #[test]
    fn ask_dispatches_directly_within_the_catalogue_only() {
        let c = cat();
        let a = block(c.call("t.ask", obj(serde_json::json!({"tool": "t.echo", "args": {"word": "hi", "times": 2}}))))
            .unwrap();
        assert!(a.ok);
        assert_eq!(a.answer, "hihi");
        assert_eq!(a.tool_used.as_deref(), Some("t.echo"));
        let b = block(c.call("t.ask", obj(serde_json::json!({"tool": "x.other"})))).unwrap();
        assert!(!b.ok);
        assert!(b.answer.contains("not a tool of this surface"));
        let u = block(c.call("t.ask", obj(serde_json::json!({"tool": "t_echo", "args": {"word": "a"}})))).unwrap();
        assert!(u.ok, "underscore spelling is accepted");
        let d = block(c.call("t.ask", obj(serde_json::json!({"tool": "t.echo_twice"})))).unwrap();
        assert!(d.answer.contains("'t.echo_twice'"), "a dotted name keeps its underscores: {}", d.answer);
    }

    #[test]
    fn ask_routes_then_calls_the_tool_by_name_with_the_context_that_passes() {
        let c = cat();
        let a = block(c.call("t.ask", obj(serde_json::json!({"question": "echo hi", "times": 3})))).unwrap();
        assert_eq!((a.ok, a.answer.as_str(), a.tool_used.as_deref()), (true, "hihihi", Some("t.echo")));
        // The router reads `hint` (not passed on: t.echo does not take it).
        let h = block(c.call("t.ask", obj(serde_json::json!({"question": "please", "hint": "echo yo"})))).unwrap();
        assert_eq!(h.answer, "yo");
        let back = block(c.call("t.ask", obj(serde_json::json!({"question": "echo"})))).unwrap();
        assert_eq!((back.ok, back.answer.as_str(), back.tool_used), (false, "Echo what?", None));
        assert_eq!(back.options, ["t.echo", "t.big"]);
        let unclear = block(c.call("t.ask", obj(serde_json::json!({"question": "hmm"})))).unwrap();
        assert_eq!(unclear.answer, "Echo or big?");
        let bad = block(c.call("t.ask", obj(serde_json::json!({"question": 3})))).unwrap();
        assert!(bad.answer.starts_with("t.ask could not read `question`:"), "{}", bad.answer);
    }

    #[test]
    fn a_refusal_leaves_through_the_question_mark() {
        let a = block(cat().call("t.echo", obj(serde_json::json!({"word": "no"})))).unwrap();
        assert_eq!((a.ok, a.answer.as_str()), (false, "echo refuses 'no'"));
        assert_eq!(a.options, ["t.big"]);
        assert_eq!(a.data, None);
    }

    #[test]
    fn echoed_names_are_clipped() {
        let long = "x".repeat(1_000_000);
        let a = block(cat().call(&long, JsonObject::new())).unwrap();
        assert!(serde_json::to_string(&a).unwrap().len() < 1_000, "{}", a.answer.len());
        let b = block(cat().call("t.ask", obj(serde_json::json!({"tool": long})))).unwrap();
        assert!(serde_json::to_string(&b).unwrap().len() < MAX_RESPONSE_CHARS);
    }

    #[test]
    fn oversized_answers_drop_detail_and_say_so() {
        let a = block(cat().call("t.big", JsonObject::new())).unwrap();
        assert!(a.ok);
        assert!(a.data.is_none());
        assert!(a.caveat.unwrap().contains("budget"));
    }

    #[test]
    fn the_whole_budget_keeps_every_detail() {
        let a = block(cat().with_budget(crate::Budget::Whole).call("t.big", JsonObject::new())).unwrap();
        assert_eq!((a.ok, a.caveat.as_deref()), (true, None));
        assert_eq!(a.data.unwrap().as_str().map(str::len), Some(10_000));
        // Through `t.ask` too: the budget holds for the routed call.
        let b =
            block(cat().with_budget(crate::Budget::Whole).call("t.ask", obj(serde_json::json!({"question": "big"}))))
                .unwrap();
        assert!(b.data.is_some(), "{b:?}");
    }

    #[test]
    fn output_schema_is_an_object_that_allows_failure() {
        let t = echo();
        assert_eq!(t.output_schema.get("type"), Some(&Value::String("object".into())));
        let req = t.output_schema["required"].as_array().unwrap();
        assert!(req.iter().all(|r| r == "ok" || r == "answer"), "{req:?}");
    }
}
