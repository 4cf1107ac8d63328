//! The knowledge tools as catalogue entries, and the only module of this crate that
//! does I/O: it reads the feed archive's item tags, clicks and reads through
//! [`FeedStore`]'s methods (this crate runs no SQL of its own), derives the graph
//! ([`crate::graph`]) and answers `kg.neighbors`, `kg.path`, `kg.central`,
//! `kg.communities` and `kg.concepts`. `kg.ask` is the one ask pipeline of attest-core
//! over [`router::ROUTER`]: it routes a question to one tool of this catalogue and calls
//! it by name, nothing decides after routing. The catalogue also carries the feed's own
//! `feed.search`, which `kg.ask` routes "what did I read about X" to. The `cite.*`
//! tools are added by the binary (see `bins/attest-knowledge`).
//!
//! The graph is derived on every call, never stored (see `specs/kg.md` for why a cache
//! does not pay at today's sizes). Tags are the stored `item_tags`, arXiv categories
//! (`cs.lg`) mapped to their concepts. This crate never writes the archive: ingest
//! tags new items with keyphrases, `attest tag` (`attest_feed::tagging`) tags older
//! ones, and every answer says how many items are still untagged.
//!
//! Routine failures (an empty archive, an unknown or ambiguous concept, the same
//! concept twice, a limit out of range) are `ok: false` answers whose line says what to
//! do; only a database fault is an [`attest_core::Fault`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use attest_archive::embed::EmbedService;
use attest_archive::{FeedError, FeedStore};
use attest_core::text::{clip, plural};
use attest_core::{Answer, Bounded, Catalogue, Config, Hints, Outcome, Ref, Stop, Tool, ToolSpec};
use attest_store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::graph::{Communities, Concepts, How, Metric, Neighbors, PathAnswer, Refusal, Resolved, Score};
use attest_tags::concept_tags;

use crate::{Graph, Params, router};

/// How many rows a list shows: 1 to 25, 10 unless asked.
pub type Limit = Bounded<1, 25, 10>;
/// Most members shown per community (the count says how many there are).
pub const MAX_MEMBERS: usize = 15;
/// Evidencing items shown per hop or neighbour.
pub const EVIDENCE_PER_HOP: usize = 3;
/// Characters of an item title.
const TITLE_CHARS: usize = 120;

/// What the knowledge tools share: the feed store, the graph thresholds and the feed's
/// `feed.search` tool.
#[derive(Debug, Clone)]
pub struct Context {
    /// The feed data (items, tags, clicks, reads).
    pub store: FeedStore,
    /// Graph thresholds.
    pub params: Params,
    /// The feed's search tool, which `kg.ask` routes searches of what was read to.
    pub search: Option<Tool>,
}

/// The graph derived from the archive, with what it was derived from.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The concept graph.
    pub graph: Graph,
    /// Items in the archive.
    pub items: i64,
    /// Items with no tag at all (run `attest tag`).
    pub untagged: i64,
}

impl Loaded {
    /// The caveat every answer carries while items lack tags.
    pub fn caveat(&self) -> Option<String> {
        (self.untagged > 0).then(|| {
            let (has, is, them) = if self.untagged == 1 { ("has", "is", "it") } else { ("have", "are", "them") };
            format!(
                "{} of {} {has} no tags and {is} not in the graph; run `attest tag` to tag {them} with keyphrases",
                plural(self.untagged as usize, "item", "items"),
                self.items
            )
        })
    }

    /// Why the graph is empty, with what to do.
    pub fn empty_message(&self) -> String {
        if self.items == 0 {
            "The archive is empty: there is nothing read to draw concepts from. Subscribe to feeds (on the feed surface, or with `attest ingest`), then ask again.".into()
        } else if self.untagged == self.items {
            format!(
                "None of the {} items in the archive has a tag. Run `attest tag` to tag them with keyphrases from their titles and abstracts, then ask again.",
                self.items
            )
        } else {
            format!(
                "{} The archive has {} items; {} untagged (`attest tag` tags them).",
                Refusal::EmptyGraph,
                self.items,
                self.untagged
            )
        }
    }
}

/// Below this many tagged items, the default thresholds join two concepts on one
/// shared item (`min_edge_weight` 1): a small archive rarely has two items sharing the
/// same pair of concepts, and without it the graph keeps a handful of concepts.
pub const SMALL_ARCHIVE: usize = 300;

/// Read the archive's tags and derive the graph. With the default thresholds, an
/// archive of fewer than [`SMALL_ARCHIVE`] tagged items joins concepts on one shared
/// item (health and kg-report show the thresholds used).
pub async fn load(store: &FeedStore, params: Params) -> Result<Loaded, FeedError> {
    let tags = store.item_tags().await?;
    let mut assignments: Vec<(i64, String)> = Vec::with_capacity(tags.len());
    for t in &tags {
        for c in concept_tags(&t.tag) {
            assignments.push((t.item_id, c));
        }
    }
    let counts = store.archive_counts().await?;
    let params = if params == Params::default() && counts.items.saturating_sub(counts.untagged) < SMALL_ARCHIVE as i64 {
        Params { min_edge_weight: 1, ..params }
    } else {
        params
    };
    let graph = crate::graph::build(&assignments, params);
    Ok(Loaded { graph, items: counts.items, untagged: counts.untagged })
}

/// Reading weight per item: human ratings (`ui`, `agent`, `implicit` clicks, useful or
/// not) plus reads (`feed.read`), over every reader. Simulated and bootstrap ratings
/// are not reading and do not count.
pub async fn reading_weights(store: &FeedStore) -> Result<BTreeMap<i64, f64>, FeedError> {
    Ok(store.reading_counts().await?.into_iter().map(|(id, n)| (id, n as f64)).collect())
}

// ---------------------------------------------------------------------------------------
// Arguments. Their doc comments become the parameter descriptions agents read.

/// Arguments of `kg.neighbors`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NeighborsArgs {
    /// The concept, as you would say it ("graph neural networks", "RL"); spelling,
    /// case and plurals are forgiven.
    #[serde(alias = "source")]
    pub concept: String,
    /// How many neighbours to show.
    #[serde(default)]
    pub limit: Limit,
}

/// Arguments of `kg.path`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathArgs {
    /// Where the chain starts, as you would say it ("retrieval").
    pub source: String,
    /// Where it ends ("reinforcement learning").
    pub target: String,
}

/// A centrality measure for `kg.central`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CentralMetric {
    /// Most neighbours: the hubs.
    #[default]
    Degree,
    /// Most shortest paths through it: the bridges between areas.
    Betweenness,
    /// Most read about: ratings and reads of the items carrying it.
    MostRead,
}

/// Arguments of `kg.central`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CentralArgs {
    /// `degree` (hubs, the default), `betweenness` (bridges) or `most_read` (what you
    /// rated and opened most).
    #[serde(default)]
    pub metric: CentralMetric,
    /// How many concepts to show.
    #[serde(default)]
    pub limit: Limit,
}

/// Arguments of `kg.communities`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CommunitiesArgs {
    /// Leave out areas with fewer concepts than this.
    #[serde(default)]
    pub min_size: Bounded<1, 50, 3>,
    /// How many areas to show.
    #[serde(default)]
    pub limit: Bounded<1, 20, 8>,
}

/// Arguments of `kg.concepts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConceptsArgs {
    /// The start of a concept's name or of any of its words ("reinf", "learning");
    /// nearest concepts are shown when nothing starts with it. Leave out to list all.
    #[serde(default)]
    pub prefix: Option<String>,
    /// How many names to show.
    #[serde(default)]
    pub limit: Bounded<1, 50, 20>,
}

/// What `kg.ask` takes besides the question (`question`, `tool` and `args` are every
/// ask's): passed to the tool the question reaches when that tool takes it.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
pub struct AskContext {
    /// The reader whose archive searches are ranked for (feed.search); when left out,
    /// feed.search uses the only reader, or asks which.
    #[serde(default)]
    pub user: Option<String>,
}

// ---------------------------------------------------------------------------------------
// Details returned in `data`.

/// An item that evidences a link, with its title and link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// Item id (`item:<id>` in refs).
    pub id: i64,
    /// Its title.
    pub title: String,
    /// Its link.
    pub url: Option<String>,
}

/// One hop of a path, with the items that evidence it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HopEvidence {
    /// From this concept.
    pub from: String,
    /// To this one.
    pub to: String,
    /// On how many items the two co-occur.
    pub weight: u32,
    /// The first few of those items.
    pub items: Vec<Evidence>,
}

/// What `kg.path` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PathData {
    /// How each end was recognised.
    pub source: Resolved,
    /// How each end was recognised.
    pub target: Resolved,
    /// The chain of concepts, source first (empty when they are not connected).
    pub nodes: Vec<String>,
    /// Whether a chain exists at all.
    pub connected: bool,
    /// Each hop with its evidencing items.
    pub hops: Vec<HopEvidence>,
}

/// What `kg.neighbors` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NeighborsData {
    /// The neighbours (item ids per neighbour, at most five).
    #[serde(flatten)]
    pub neighbors: Neighbors,
    /// Items evidencing the closest neighbours, with titles.
    pub evidence: Vec<Evidence>,
}

/// What `kg.central` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CentralData {
    /// `degree`, `betweenness` or `most_read`.
    pub metric: String,
    /// The top concepts, by score then name.
    pub rows: Vec<Score>,
    /// Concepts in the graph.
    pub concepts: usize,
}

/// A community as `kg.communities` shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Area {
    /// Its hub (most neighbours).
    pub label: String,
    /// Its members, by name, cut to fifteen.
    pub members: Vec<String>,
    /// How many members it has in all.
    pub n_members: usize,
}

/// What `kg.communities` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CommunitiesData {
    /// Modularity of the partition (0 to 1; above 0.3 is a clear structure).
    pub modularity: f64,
    /// The areas shown, largest first.
    pub rows: Vec<Area>,
    /// How many areas of at least `min_size` there are in all.
    pub n_areas: usize,
    /// How many areas were smaller than `min_size` and left out.
    pub dropped: usize,
}

// ---------------------------------------------------------------------------------------
// Helpers.

fn refusal(r: Refusal, loaded: &Loaded) -> Stop {
    match r {
        Refusal::EmptyGraph => Stop::refuse(loaded.empty_message()),
        Refusal::Unknown { .. } => {
            Stop::refuse(format!("{r} Call kg.concepts with a prefix to see the concepts there are."))
                .with_options(["kg.concepts", "feed.search"])
        }
        Refusal::TooRare { .. } => Stop::refuse(r.to_string()).with_options(["feed.search", "kg.concepts"]),
        Refusal::Ambiguous { .. } => Stop::refuse(r.to_string()).with_options(["kg.concepts"]),
        Refusal::SameConcept { .. } => Stop::refuse(r.to_string()).with_options(["kg.neighbors"]),
    }
}

fn read_as(r: &Resolved) -> Option<String> {
    match r.how {
        How::Exact | How::Canonical | How::Folded => None,
        How::Prefix => Some(format!("'{}' was read as {} (the only concept starting so)", r.query, r.name)),
        How::Fuzzy => Some(format!("'{}' was read as {} (similarity {:.2})", r.query, r.name, r.confidence)),
    }
}

async fn evidence(ctx: &Context, ids: &[i64]) -> Result<BTreeMap<i64, Evidence>, Stop> {
    let links = ctx.store.item_links(ids).await?;
    Ok(links
        .into_iter()
        .map(|i| (i.id, Evidence { id: i.id, title: clip(&i.title, TITLE_CHARS), url: i.url }))
        .collect())
}

fn item_ref(e: &Evidence) -> Ref {
    match &e.url {
        Some(u) => Ref::with_url(format!("item:{}", e.id), clip(u, 300)),
        None => Ref::id(format!("item:{}", e.id)),
    }
}

/// The graph, or the refusal that says why there is none yet.
async fn graph(ctx: &Context) -> Result<Loaded, Stop> {
    let l = load(&ctx.store, ctx.params).await?;
    if l.graph.is_empty() {
        return Err(Stop::refuse(l.empty_message()));
    }
    Ok(l)
}

// ---------------------------------------------------------------------------------------
// The tools.

/// `kg.neighbors`.
pub async fn neighbors(ctx: &Context, a: NeighborsArgs) -> Outcome {
    if a.concept.trim().is_empty() {
        return Err(Stop::refuse("kg.neighbors needs a concept, e.g. concept=\"retrieval\"."));
    }
    let l = graph(ctx).await?;
    let n = l.graph.neighbors(&clip(&a.concept, 200), a.limit.count()).map_err(|r| refusal(r, &l))?;
    // One item per neighbour, each item once: the first of its items not shown already.
    let mut ids: Vec<i64> = Vec::new();
    for r in n.rows.iter().take(5) {
        if let Some(id) = r.items.iter().copied().find(|i| !ids.contains(i)) {
            ids.push(id);
        }
    }
    let ev = evidence(ctx, &ids).await?;
    let shown: Vec<String> =
        n.rows.iter().map(|r| format!("{} ({})", r.name, plural(r.weight as usize, "item", "items"))).collect();
    let mut line = format!(
        "{} sits next to {}: {}",
        n.concept.name,
        plural(n.total, "concept", "concepts"),
        shown.iter().take(8).cloned().collect::<Vec<_>>().join(", ")
    );
    if n.total > n.rows.len() {
        line.push_str(&format!(" ({} shown of {}; raise limit for more)", n.rows.len(), n.total));
    }
    let evidence: Vec<Evidence> = ids.iter().filter_map(|i| ev.get(i).cloned()).collect();
    let refs = evidence.iter().map(item_ref).collect();
    let caveats: Vec<String> = read_as(&n.concept).into_iter().chain(l.caveat()).collect();
    Ok(Answer::ok(line, NeighborsData { neighbors: n, evidence }).with_refs(refs).with_caveats(caveats).into_value())
}

/// `kg.path`.
pub async fn path(ctx: &Context, a: PathArgs) -> Outcome {
    if a.source.trim().is_empty() || a.target.trim().is_empty() {
        return Err(Stop::refuse(
            "kg.path needs two concepts: source and target, e.g. source=\"retrieval\", target=\"reinforcement learning\".",
        ));
    }
    let l = graph(ctx).await?;
    let p: PathAnswer = l.graph.path(&clip(&a.source, 200), &clip(&a.target, 200)).map_err(|r| refusal(r, &l))?;
    let caveats: Vec<String> = read_as(&p.source).into_iter().chain(read_as(&p.target)).chain(l.caveat()).collect();
    let Some(hops) = p.hops.clone() else {
        let line = format!(
            "{} and {} are not connected in what you have read: they sit in separate parts of the graph. kg.neighbors shows what each connects to.",
            p.source.name, p.target.name
        );
        let data =
            PathData { source: p.source, target: p.target, nodes: Vec::new(), connected: false, hops: Vec::new() };
        return Ok(Answer::ok(line, data).with_options(vec!["kg.neighbors".into()]).with_caveats(caveats).into_value());
    };
    let ids: Vec<i64> = hops.iter().flat_map(|h| h.items.iter().take(EVIDENCE_PER_HOP).copied()).collect();
    let ev = evidence(ctx, &ids).await?;
    let hop_ev: Vec<HopEvidence> = hops
        .iter()
        .map(|h| HopEvidence {
            from: h.from.clone(),
            to: h.to.clone(),
            weight: h.weight,
            items: h.items.iter().take(EVIDENCE_PER_HOP).filter_map(|i| ev.get(i).cloned()).collect(),
        })
        .collect();
    let mut seen = BTreeSet::new();
    let refs: Vec<Ref> =
        hop_ev.iter().filter_map(|h| h.items.first()).filter(|e| seen.insert(e.id)).map(item_ref).take(12).collect();
    let line = format!(
        "{} ({}); each hop is a pair of concepts read together, the first item behind each hop is in refs",
        p.nodes.join(" → "),
        plural(hops.len(), "hop", "hops")
    );
    let data = PathData { source: p.source, target: p.target, nodes: p.nodes, connected: true, hops: hop_ev };
    Ok(Answer::ok(line, data).with_refs(refs).with_caveats(caveats).into_value())
}

/// `kg.central`.
pub async fn central(ctx: &Context, a: CentralArgs) -> Outcome {
    let l = graph(ctx).await?;
    let weights;
    let metric = match a.metric {
        CentralMetric::Degree => Metric::Degree,
        CentralMetric::Betweenness => Metric::Betweenness,
        CentralMetric::MostRead => {
            weights = reading_weights(&ctx.store).await?;
            if weights.is_empty() {
                return Err(Stop::refuse(
                    "nothing has been rated or opened yet, so there is no \"most read\": rate items (feed.rate) or open them (feed.read), or ask kg.central with metric=degree for the hubs.",
                )
                .with_options(["kg.central"]));
            }
            Metric::MostRead(&weights)
        }
    };
    let c = l.graph.central(metric, a.limit.count());
    let what = match a.metric {
        CentralMetric::Degree => "hubs (most neighbours)",
        CentralMetric::Betweenness => "bridges (most shortest paths through them)",
        CentralMetric::MostRead => "most read about (ratings and reads of their items)",
    };
    let top: Vec<String> = c
        .rows
        .iter()
        .map(|r| {
            if r.score.fract() == 0.0 {
                format!("{} {}", r.name, r.score)
            } else {
                format!("{} {:.1}", r.name, r.score)
            }
        })
        .collect();
    let n = l.graph.node_count();
    let mut line = format!("{what}: {}", top.join(", "));
    if n > c.rows.len() {
        line.push_str(&format!(" (top {} of {} concepts)", c.rows.len(), n));
    }
    let caveats: Vec<String> = l.caveat().into_iter().collect();
    Ok(Answer::ok(line, CentralData { metric: c.metric, rows: c.rows, concepts: n }).with_caveats(caveats).into_value())
}

/// `kg.communities`.
pub async fn communities(ctx: &Context, a: CommunitiesArgs) -> Outcome {
    let (min_size, limit) = (a.min_size.count(), a.limit.count());
    let l = graph(ctx).await?;
    let c: Communities = l.graph.communities(min_size);
    if c.rows.is_empty() {
        return Err(Stop::refuse(format!(
            "no area has {min_size} or more concepts ({} smaller ones); pass a smaller min_size, e.g. min_size=2",
            c.dropped
        )));
    }
    let n_areas = c.rows.len();
    let rows: Vec<Area> = c
        .rows
        .into_iter()
        .take(limit)
        .map(|r| Area {
            label: r.label,
            n_members: r.members.len(),
            members: r.members.into_iter().take(MAX_MEMBERS).collect(),
        })
        .collect();
    let shown: Vec<String> =
        rows.iter().map(|r| format!("[{}] {}", r.label, plural(r.n_members, "concept", "concepts"))).collect();
    let mut line = format!("{}: {}", plural(n_areas, "research area", "research areas"), shown.join(", "));
    if n_areas > rows.len() {
        line.push_str(&format!(" ({} shown; raise limit for more)", rows.len()));
    }
    if c.dropped > 0 {
        line.push_str(&format!(
            "; {} of fewer than {min_size} concepts not shown (a lower min_size shows {})",
            plural(c.dropped, "smaller area", "smaller areas"),
            if c.dropped == 1 { "it" } else { "them" }
        ));
    }
    let mut caveats: Vec<String> = Vec::new();
    if c.modularity < 0.3 {
        caveats.push(format!("modularity is {:.2}: the areas are not sharply separated", c.modularity));
    }
    caveats.extend(l.caveat());
    let data = CommunitiesData { modularity: c.modularity, rows, n_areas, dropped: c.dropped };
    Ok(Answer::ok(line, data).with_caveats(caveats).into_value())
}

/// `kg.concepts`.
pub async fn concepts(ctx: &Context, a: ConceptsArgs) -> Outcome {
    let l = graph(ctx).await?;
    let prefix = a.prefix.as_deref().map(|p| clip(p.trim(), 200)).filter(|p| !p.is_empty());
    let c: Concepts = l.graph.concepts(prefix.as_deref(), a.limit.count());
    if c.names.is_empty() {
        return Err(Stop::refuse(format!(
            "no concept starts with or resembles '{}'; call kg.concepts without a prefix to list them all",
            prefix.unwrap_or_default()
        )));
    }
    let line = match (&prefix, c.fuzzy) {
        (Some(p), true) => format!("nothing starts with '{p}'; nearest: {}", c.names.join(", ")),
        (Some(p), false) => {
            format!("{} starting with '{p}': {}", plural(c.total, "concept", "concepts"), c.names.join(", "))
        }
        (None, _) => format!("{}: {}", plural(c.total, "concept", "concepts"), c.names.join(", ")),
    };
    let line = if c.total > c.names.len() && !c.fuzzy {
        format!("{line} ({} shown; raise limit or narrow the prefix)", c.names.len())
    } else {
        line
    };
    let caveats: Vec<String> = l.caveat().into_iter().collect();
    Ok(Answer::ok(line, c).with_caveats(caveats).into_value())
}

/// The knowledge catalogue over a context: `kg.ask`, the graph tools and (when the
/// context carries it) `feed.search`.
pub fn tools(ctx: Arc<Context>) -> Catalogue {
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($($t:tt)*) => { attest_core::tool_over!(c, ctx, $($t)*) };
    }
    c.push(Tool::ask::<AskContext>(
        ToolSpec::new(
            "kg.ask",
            "Ask about what you have read",
            "Ask about the concepts in what you have read, in plain words: how do X and Y connect, what is next to X, what are my main research areas, what did I read about X.\n\nRoutes the question to one knowledge tool by fixed rules (an unclear question is asked back with options). Concept names may be spelled loosely. To run a specific tool directly, pass tool=<name> and args={...}. Show refs' urls as links, and relay the caveat whole.",
            Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
        ),
        &router::ROUTER,
        &["user"],
    ));
    tool!(
        ToolSpec::new(
            "kg.path",
            "How do two concepts connect?",
            "Show how two concepts connect in what you have read: the shortest chain between them, with the items behind each hop.\n\nConcept names may be spelled loosely (\"Graph Neural Networks\" finds graph-neural-networks); no need to call kg.concepts first.",
            Hints::READ,
        ),
        path,
        PathArgs
    );
    tool!(
        ToolSpec::new(
            "kg.neighbors",
            "What sits next to a concept?",
            "Show the concepts read together with one concept, closest first, with the items behind them.",
            Hints::READ,
        ),
        neighbors,
        NeighborsArgs
    );
    tool!(
        ToolSpec::new(
            "kg.central",
            "What are my central topics?",
            "Show the central concepts of what you have read: hubs (degree), bridges between areas (betweenness), or what you read about most (most_read).",
            Hints::READ,
        ),
        central,
        CentralArgs
    );
    tool!(
        ToolSpec::new(
            "kg.communities",
            "What are my research areas?",
            "Group the concepts you have read into research areas (clusters), each labelled by its hub.",
            Hints::READ,
        ),
        communities,
        CommunitiesArgs
    );
    tool!(
        ToolSpec::new(
            "kg.concepts",
            "Which concepts are there?",
            "List the concepts in your reading that start with a few letters, or the nearest ones when none do.",
            Hints::READ,
        ),
        concepts,
        ConceptsArgs
    );
    if let Some(search) = &ctx.search {
        c.push(search.clone());
    }
    c
}

/// The feed's `feed.search` tool over a store, alone: the knowledge surface links no
/// other feed tool. With an embedding service it ranks as the feed surface does.
pub fn feed_search(store: &FeedStore, embed: Option<EmbedService>) -> Tool {
    let ctx = attest_archive::tools::Context::new(store.clone()).with_embedder(embed).search_only();
    attest_archive::tools::search_tool(Arc::new(ctx))
}

/// Open the database named by `config` and build the knowledge catalogue over it
/// (`kg.*` and `feed.search`, ranked with `embed` when given; the binary adds the
/// `cite.*` tools). This crate reaches no network: the caller builds the embedding
/// service (`attest_openai::embed_service_from_env`).
pub async fn catalogue(config: &Config, embed: Option<EmbedService>) -> Result<Catalogue, attest_store::StoreError> {
    let store = FeedStore::new(Store::open(&config.db).await?);
    let search = Some(feed_search(&store, embed));
    Ok(tools(Arc::new(Context { store, params: Params::default(), search })))
}
