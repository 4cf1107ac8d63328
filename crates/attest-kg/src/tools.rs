//! The knowledge tools as catalogue entries, and the only module of this crate that
//! does I/O: it reads the feed archive's item tags, clicks and reads from the store,
//! derives the graph ([`crate::graph`]) and answers `kg.neighbors`, `kg.path`,
//! `kg.central`, `kg.communities`, `kg.concepts` and `kg.ask`. The catalogue also
//! carries the feed's own `feed.search`, which `kg.ask` routes "what did I read about
//! X" to. The `cite.*` tools are added by the binary (see `bins/attest-knowledge`).
//!
//! The graph is derived on every call, never stored (see `specs/kg.md` for why a cache
//! does not pay at today's sizes). Tags are the stored `item_tags`, arXiv categories
//! (`cs.lg`) mapped to their concepts. This crate never writes the archive: ingest
//! tags new items with keyphrases, `attest tag` (`attest_feed::tagging`) tags older
//! ones, and every answer says how many items are still untagged.
//!
//! Routine failures (an empty archive, an unknown or ambiguous concept, the same
//! concept twice, a limit out of range) are `ok: false` answers whose line says what to
//! do; only a database fault is a [`Fault`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Catalogue, Config, Fault, Hints, Ref, Tool, ToolSpec};
use attest_feed::FeedStore;
use attest_store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sqlx::Row as _;

use crate::graph::{Communities, Concepts, How, Metric, Neighbors, PathAnswer, Refusal, Resolved, Score};
use attest_tags::concept_tags;

use crate::{Graph, Params, router};

/// Most rows a list returns.
pub const MAX_LIMIT: i64 = 25;
/// Rows a list returns by default.
pub const DEFAULT_LIMIT: i64 = 10;
/// Most communities `kg.communities` shows.
pub const MAX_COMMUNITIES: i64 = 20;
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
            format!(
                "{} of {} have no tags and are not in the graph; run `attest tag` to tag them with keyphrases",
                plural(self.untagged as usize, "item", "items"),
                self.items
            )
        })
    }

    /// Why the graph is empty, with what to do.
    pub fn empty_message(&self) -> String {
        if self.items == 0 {
            "The archive is empty: there is nothing read to draw concepts from. Subscribe to feeds and run `attest ingest` (or feed.source_add), then ask again.".into()
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

/// Read the archive's tags and derive the graph.
pub async fn load(store: &FeedStore, params: Params) -> Result<Loaded, sqlx::Error> {
    let rows = sqlx::query("SELECT item_id, tag FROM item_tags ORDER BY item_id, tag").fetch_all(store.pool()).await?;
    let mut assignments: Vec<(i64, String)> = Vec::with_capacity(rows.len());
    for r in &rows {
        let id: i64 = r.get(0);
        let tag: String = r.get(1);
        for t in concept_tags(&tag) {
            assignments.push((id, t));
        }
    }
    let c = sqlx::query(
        "SELECT (SELECT count(*) FROM items) AS n, \
         (SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = i.id)) AS u",
    )
    .fetch_one(store.pool())
    .await?;
    let graph = crate::graph::build(&assignments, params);
    Ok(Loaded { graph, items: c.get("n"), untagged: c.get("u") })
}

/// Reading weight per item: human ratings (`ui`, `agent`, `implicit` clicks, useful or
/// not) plus reads (`feed.read`), over every reader. Simulated and bootstrap ratings
/// are not reading and do not count.
pub async fn reading_weights(store: &FeedStore) -> Result<BTreeMap<i64, f64>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT item_id, count(*) AS n FROM (\
           SELECT item_id FROM clicks WHERE source IN ('ui', 'agent', 'implicit') \
           UNION ALL SELECT item_id FROM engagement WHERE kind = 'read') GROUP BY item_id",
    )
    .fetch_all(store.pool())
    .await?;
    Ok(rows.iter().map(|r| (r.get::<i64, _>(0), r.get::<i64, _>(1) as f64)).collect())
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
    /// How many neighbours to show, 1 to 25 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 25))]
    pub limit: Option<i64>,
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
    /// How many concepts to show, 1 to 25 (default 10).
    #[serde(default)]
    #[schemars(range(min = 1, max = 25))]
    pub limit: Option<i64>,
}

/// Arguments of `kg.communities`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CommunitiesArgs {
    /// Leave out areas with fewer concepts than this, 1 to 50 (default 3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub min_size: Option<i64>,
    /// How many areas to show, 1 to 20 (default 8).
    #[serde(default)]
    #[schemars(range(min = 1, max = 20))]
    pub limit: Option<i64>,
}

/// Arguments of `kg.concepts`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ConceptsArgs {
    /// The start of a concept's name or of any of its words ("reinf", "learning");
    /// nearest concepts are shown when nothing starts with it. Leave out to list all.
    #[serde(default)]
    pub prefix: Option<String>,
    /// How many names to show, 1 to 50 (default 20).
    #[serde(default)]
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<i64>,
}

/// Arguments of `kg.ask`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AskArgs {
    /// The question, in your own words: "how does retrieval connect to reinforcement
    /// learning?", "what are my main research areas?", "what did I read about
    /// distillation?".
    #[serde(default)]
    pub question: String,
    /// The reader whose archive searches are ranked for (feed.search needs one; when
    /// left out and only one reader exists, that reader).
    #[serde(default)]
    pub user: Option<String>,
    /// Run this tool of the knowledge surface directly instead of routing the question
    /// (e.g. `kg.path`); pass its arguments in `args`.
    #[serde(default)]
    pub tool: Option<String>,
    /// Arguments for `tool`.
    #[serde(default)]
    pub args: Option<Map<String, Value>>,
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

fn db(e: sqlx::Error) -> Fault {
    Fault::new("reading the feed archive", e)
}

fn limit_of(v: Option<i64>, default: i64, max: i64, what: &str) -> Result<usize, String> {
    let l = v.unwrap_or(default);
    if (1..=max).contains(&l) { Ok(l as usize) } else { Err(format!("{what} must be between 1 and {max} (got {l})")) }
}

fn refusal(r: Refusal, loaded: &Loaded) -> Answer<Value> {
    match r {
        Refusal::EmptyGraph => Answer::refuse(loaded.empty_message()),
        Refusal::Unknown { .. } => {
            Answer::refuse(format!("{r} Call kg.concepts with a prefix to see the concepts there are."))
                .with_options(vec!["kg.concepts".into(), "feed.search".into()])
        }
        Refusal::Ambiguous { .. } => Answer::refuse(r.to_string()).with_options(vec!["kg.concepts".into()]),
        Refusal::SameConcept { .. } => Answer::refuse(r.to_string()).with_options(vec!["kg.neighbors".into()]),
    }
}

fn read_as(r: &Resolved) -> Option<String> {
    match r.how {
        How::Exact | How::Canonical | How::Folded => None,
        How::Prefix => Some(format!("'{}' was read as {} (the only concept starting so)", r.query, r.name)),
        How::Fuzzy => Some(format!("'{}' was read as {} (similarity {:.2})", r.query, r.name, r.confidence)),
    }
}

async fn evidence(ctx: &Context, ids: &[i64]) -> Result<BTreeMap<i64, Evidence>, Fault> {
    let items = ctx.store.items(ids).await.map_err(|e| Fault::new("reading items", e))?;
    Ok(items
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

async fn loaded(ctx: &Context) -> Result<Result<Loaded, Answer<Value>>, Fault> {
    let l = load(&ctx.store, ctx.params).await.map_err(db)?;
    if l.graph.is_empty() {
        let msg = l.empty_message();
        return Ok(Err(Answer::refuse(msg)));
    }
    Ok(Ok(l))
}

macro_rules! graph {
    ($ctx:expr) => {
        match loaded($ctx).await? {
            Ok(l) => l,
            Err(refusal) => return Ok(refusal),
        }
    };
}

macro_rules! limit {
    ($v:expr, $d:expr, $m:expr, $what:expr) => {
        match limit_of($v, $d, $m, $what) {
            Ok(l) => l,
            Err(msg) => return Ok(Answer::refuse(msg)),
        }
    };
}

// ---------------------------------------------------------------------------------------
// The tools.

/// `kg.neighbors`.
pub async fn neighbors(ctx: &Context, a: NeighborsArgs) -> Result<Answer<Value>, Fault> {
    let limit = limit!(a.limit, DEFAULT_LIMIT, MAX_LIMIT, "limit");
    if a.concept.trim().is_empty() {
        return Ok(Answer::refuse("kg.neighbors needs a concept, e.g. concept=\"retrieval\"."));
    }
    let l = graph!(ctx);
    let n = match l.graph.neighbors(&clip(&a.concept, 200), limit) {
        Ok(n) => n,
        Err(r) => return Ok(refusal(r, &l)),
    };
    let ids: Vec<i64> = n.rows.iter().take(5).filter_map(|r| r.items.first().copied()).collect();
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
pub async fn path(ctx: &Context, a: PathArgs) -> Result<Answer<Value>, Fault> {
    if a.source.trim().is_empty() || a.target.trim().is_empty() {
        return Ok(Answer::refuse(
            "kg.path needs two concepts: source and target, e.g. source=\"retrieval\", target=\"reinforcement learning\".",
        ));
    }
    let l = graph!(ctx);
    let p: PathAnswer = match l.graph.path(&clip(&a.source, 200), &clip(&a.target, 200)) {
        Ok(p) => p,
        Err(r) => return Ok(refusal(r, &l)),
    };
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
pub async fn central(ctx: &Context, a: CentralArgs) -> Result<Answer<Value>, Fault> {
    let limit = limit!(a.limit, DEFAULT_LIMIT, MAX_LIMIT, "limit");
    let l = graph!(ctx);
    let weights;
    let metric = match a.metric {
        CentralMetric::Degree => Metric::Degree,
        CentralMetric::Betweenness => Metric::Betweenness,
        CentralMetric::MostRead => {
            weights = reading_weights(&ctx.store).await.map_err(db)?;
            if weights.is_empty() {
                return Ok(Answer::refuse(
                    "nothing has been rated or opened yet, so there is no \"most read\": rate items (feed.rate) or open them (feed.read), or ask kg.central with metric=degree for the hubs.",
                )
                .with_options(vec!["kg.central".into()]));
            }
            Metric::MostRead(&weights)
        }
    };
    let c = l.graph.central(metric, limit);
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
pub async fn communities(ctx: &Context, a: CommunitiesArgs) -> Result<Answer<Value>, Fault> {
    let min_size = limit!(a.min_size, 3, 50, "min_size");
    let limit = limit!(a.limit, 8, MAX_COMMUNITIES, "limit");
    let l = graph!(ctx);
    let c: Communities = l.graph.communities(min_size);
    if c.rows.is_empty() {
        return Ok(Answer::refuse(format!(
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
    let mut caveats: Vec<String> = Vec::new();
    if c.modularity < 0.3 {
        caveats.push(format!("modularity is {:.2}: the areas are not sharply separated", c.modularity));
    }
    caveats.extend(l.caveat());
    let data = CommunitiesData { modularity: c.modularity, rows, n_areas, dropped: c.dropped };
    Ok(Answer::ok(line, data).with_caveats(caveats).into_value())
}

/// `kg.concepts`.
pub async fn concepts(ctx: &Context, a: ConceptsArgs) -> Result<Answer<Value>, Fault> {
    let limit = limit!(a.limit, 20, 50, "limit");
    let l = graph!(ctx);
    let prefix = a.prefix.as_deref().map(|p| clip(p.trim(), 200)).filter(|p| !p.is_empty());
    let c: Concepts = l.graph.concepts(prefix.as_deref(), limit);
    if c.names.is_empty() {
        return Ok(Answer::refuse(format!(
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

fn arg(d: &Map<String, Value>, k: &str) -> String {
    d.get(k).and_then(Value::as_str).unwrap_or("").to_string()
}

/// `kg.ask`.
pub async fn ask(ctx: &Context, a: AskArgs) -> Result<Answer<Value>, Fault> {
    let d = router::route(&clip(&a.question, 2_000));
    let Some(tool) = d.tool.clone() else {
        return Ok(Answer::ask_back(d.answer, d.options));
    };
    let routed = |r: Result<Answer<Value>, Fault>| r.map(|ans| ans.used(tool.clone()));
    match tool.as_str() {
        "kg.path" => {
            routed(path(ctx, PathArgs { source: arg(&d.args, "source"), target: arg(&d.args, "target") }).await)
        }
        "kg.neighbors" => routed(neighbors(ctx, NeighborsArgs { concept: arg(&d.args, "source"), limit: None }).await),
        "kg.central" => {
            let metric = match arg(&d.args, "metric").as_str() {
                "betweenness" => CentralMetric::Betweenness,
                "most_read" => CentralMetric::MostRead,
                _ => CentralMetric::Degree,
            };
            routed(central(ctx, CentralArgs { metric, limit: None }).await)
        }
        "kg.communities" => routed(communities(ctx, CommunitiesArgs { min_size: None, limit: None }).await),
        "kg.concepts" => {
            let prefix = Some(arg(&d.args, "prefix")).filter(|p| !p.is_empty());
            routed(concepts(ctx, ConceptsArgs { prefix, limit: None }).await)
        }
        "feed.search" => {
            let Some(search) = &ctx.search else {
                return Ok(Answer::refuse(
                    "searching what you read needs feed.search, which this server does not link.",
                ));
            };
            let user = match a.user.clone().filter(|u| !u.trim().is_empty()) {
                Some(u) => u,
                None => match ctx.store.readers().await {
                    Ok(rs) if rs.len() == 1 => rs[0].name.clone(),
                    Ok(rs) => {
                        let names: Vec<String> = rs.iter().take(8).map(|r| r.name.clone()).collect();
                        let which = if names.is_empty() {
                            "no reader exists yet; pass user=NAME and one is created".to_string()
                        } else {
                            format!("readers: {}", names.join(", "))
                        };
                        return Ok(Answer::ask_back(
                            format!(
                                "Whose reading? feed.search ranks hits for one reader: ask again with user=NAME ({which}), or call feed.search with user and query=\"{}\".",
                                clip(&arg(&d.args, "query"), 80)
                            ),
                            vec!["feed.search".into(), "kg.concepts".into()],
                        ));
                    }
                    Err(e) => return Err(Fault::new("listing readers", e)),
                },
            };
            let args = json!({"user": user, "query": arg(&d.args, "query")});
            let Value::Object(args) = args else { unreachable!() };
            routed(search.call(args).await)
        }
        other => Ok(Answer::ask_back(
            format!("kg.ask routed the question to {other}, which it cannot run; call it directly."),
            vec![other.to_string()],
        )),
    }
}

/// The knowledge catalogue over a context: `kg.ask`, the graph tools and (when the
/// context carries it) `feed.search`.
pub fn tools(ctx: Arc<Context>) -> Catalogue {
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($($t:tt)*) => { attest_core::tool_over!(c, ctx, $($t)*) };
    }
    tool!(
        ToolSpec::new(
            "kg.ask",
            "Ask about what you have read",
            "Ask about the concepts in what you have read, in plain words: how do X and Y connect, what is next to X, what are my main research areas, what did I read about X.\n\nRoutes the question to one knowledge tool by fixed rules (an unclear question is asked back with options). Concept names may be spelled loosely. To run a specific tool directly, pass tool=<name> and args={...}. Show refs' urls as links, and relay the caveat whole.",
            Hints { read_only: false, destructive: false, idempotent: true, open_world: false },
        ),
        ask,
        AskArgs
    );
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

/// The feed's `feed.search` tool over a store.
pub fn feed_search(store: &FeedStore) -> Option<Tool> {
    let feed = attest_feed::tools::tools(Arc::new(attest_feed::tools::Context::new(store.clone())));
    feed.get("feed.search").cloned()
}

/// Open the database named by `config` and build the knowledge catalogue over it
/// (`kg.*` and `feed.search`; the binary adds the `cite.*` tools).
pub async fn catalogue(config: &Config) -> Result<Catalogue, attest_store::StoreError> {
    let store = FeedStore::new(Store::open(&config.db).await?);
    let search = feed_search(&store);
    Ok(tools(Arc::new(Context { store, params: Params::default(), search })))
}
