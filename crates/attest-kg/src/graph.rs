//! The concept graph and its operations.
//!
//! [`build`] turns `(item id, tag)` assignments into an undirected graph on petgraph:
//! a *concept* is a canonical tag carried by at least [`Params::min_tag_uses`] items
//! that has at least one edge; an *edge* joins two concepts that co-occur on at least
//! [`Params::min_edge_weight`] items, and remembers (up to [`Params::max_evidence`]) the
//! item ids that evidence it. Nodes are inserted in name order, so node indices, every
//! iteration and every tie-break follow names: the same assignments always give the
//! same answers.
//!
//! Every operation that takes a concept takes it as text a person or an agent typed and
//! resolves it ([`Graph::resolve`]): exact, canonical, folded, then prefix and fuzzy
//! matching with a confidence. An unknown concept is refused with the nearest
//! suggestions; a guess is never made silently.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;

use petgraph::graph::{NodeIndex, UnGraph};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::canon::{Canon, fold_key, normalize};

/// Thresholds of the graph. They are parameters, not constants: a small archive may
/// want `min_edge_weight: 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Params {
    /// A tag becomes a concept only when at least this many items carry it.
    pub min_tag_uses: usize,
    /// Two concepts are joined only when at least this many items carry both.
    pub min_edge_weight: usize,
    /// How many evidencing item ids an edge keeps (the lowest ids).
    pub max_evidence: usize,
}

impl Default for Params {
    fn default() -> Self {
        Params { min_tag_uses: 2, min_edge_weight: 2, max_evidence: 5 }
    }
}

/// What an edge carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeData {
    /// On how many items the two concepts co-occur.
    pub weight: u32,
    /// The lowest ids of those items, at most [`Params::max_evidence`].
    pub items: Vec<i64>,
}

/// Counts from building the graph, for `health` and `kg-report`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BuildStats {
    /// Distinct items with at least one usable tag.
    pub items: usize,
    /// Assignments given (including duplicates and empty tags).
    pub assignments: usize,
    /// Distinct canonical tags.
    pub distinct_tags: usize,
    /// Canonical tags carried by fewer than `min_tag_uses` items (singletons, with the
    /// default threshold), dropped.
    pub dropped_below_min_uses: usize,
    /// Tags used often enough that have no qualifying edge, hence are not concepts.
    pub tags_without_edges: usize,
    /// Distinct spellings in the input that were merged onto another spelling
    /// (by alias, case, separators or folding).
    pub alias_merges: usize,
}

/// The concept graph.
#[derive(Debug, Clone)]
pub struct Graph {
    pub(crate) graph: UnGraph<String, EdgeData>,
    /// Per node: (neighbour, edge index), sorted by neighbour.
    pub(crate) adj: Vec<Vec<(u32, u32)>>,
    names: HashMap<String, u32>,
    folds: HashMap<String, u32>,
    /// Per node: its name without hyphens, and the fold keys of its words.
    keys: Vec<(String, Vec<String>)>,
    pub(crate) node_items: Vec<Vec<i64>>,
    /// Tags that were read but are not concepts (too few items, or no co-occurrence
    /// strong enough), by fold key: (name, items carrying it, the lowest item ids).
    minor: HashMap<String, (String, usize, Vec<i64>)>,
    stats: BuildStats,
    params: Params,
    canon: Canon,
}

/// Build the graph with the shipped alias table.
pub fn build(assignments: &[(i64, String)], params: Params) -> Graph {
    build_with(assignments, params, Canon::builtin())
}

/// Build the graph with a given alias table.
pub fn build_with(assignments: &[(i64, String)], params: Params, canon: &Canon) -> Graph {
    let mut stats = BuildStats { assignments: assignments.len(), ..BuildStats::default() };

    // 1. Each distinct raw spelling, canonicalised once.
    let mut first: HashMap<&str, String> = HashMap::new();
    for (_, t) in assignments {
        let t = t.as_str();
        if !first.contains_key(t) {
            first.insert(t, canon.canonical(t));
        }
    }
    // 2. Spellings the alias table does not know merge by fold key onto the spelling
    //    the archive uses most (then the most hyphenated, then the first by name).
    let mut per_item: Vec<(i64, &str)> = assignments
        .iter()
        .filter_map(|(i, t)| first.get(t.as_str()).filter(|c| !c.is_empty()).map(|c| (*i, c.as_str())))
        .collect();
    per_item.sort_unstable();
    per_item.dedup();
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for (_, c) in &per_item {
        *uses.entry(c).or_default() += 1;
    }
    let mut groups: HashMap<String, Vec<(&str, usize)>> = HashMap::new();
    for (c, n) in &uses {
        groups.entry(fold_key(c)).or_default().push((c, *n));
    }
    let mut rep: HashMap<&str, String> = HashMap::new();
    for members in groups.values() {
        let best = members
            .iter()
            .max_by(|a, b| {
                (canon.is_known(a.0), a.1, a.0.matches('-').count())
                    .cmp(&(canon.is_known(b.0), b.1, b.0.matches('-').count()))
                    .then_with(|| b.0.cmp(a.0))
            })
            .map(|m| m.0.to_string())
            .unwrap_or_default();
        for (c, _) in members {
            rep.insert(c, best.clone());
        }
    }
    let mut merged: Vec<&str> =
        first.iter().filter(|(raw, c)| rep.get(c.as_str()).is_some_and(|r| r != *raw)).map(|(raw, _)| *raw).collect();
    merged.retain(|r| !r.trim().is_empty());
    stats.alias_merges = merged.len();

    // 3. Per item, the set of final tags, as ids in name order.
    let mut tag_names: Vec<&str> = rep.values().map(String::as_str).collect();
    tag_names.sort_unstable();
    tag_names.dedup();
    stats.distinct_tags = tag_names.len();
    let tag_id: HashMap<&str, u32> = tag_names.iter().enumerate().map(|(i, t)| (*t, i as u32)).collect();
    let mut pairs: Vec<(i64, u32)> = per_item.iter().map(|(i, c)| (*i, tag_id[rep[c].as_str()])).collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut tag_uses = vec![0usize; tag_names.len()];
    for (_, t) in &pairs {
        tag_uses[*t as usize] += 1;
    }
    let kept: Vec<bool> = tag_uses.iter().map(|&u| u >= params.min_tag_uses.max(1)).collect();
    stats.dropped_below_min_uses = kept.iter().filter(|k| !**k).count();

    // 4. Co-occurrence over kept tags, item by item (items ascending).
    let mut co: HashMap<u64, (u32, Vec<i64>)> = HashMap::new();
    let mut item_tags: Vec<u32> = Vec::new();
    let mut start = 0;
    while start < pairs.len() {
        let item = pairs[start].0;
        let mut end = start;
        item_tags.clear();
        while end < pairs.len() && pairs[end].0 == item {
            if kept[pairs[end].1 as usize] {
                item_tags.push(pairs[end].1);
            }
            end += 1;
        }
        stats.items += 1;
        for (x, &a) in item_tags.iter().enumerate() {
            for &b in &item_tags[x + 1..] {
                let e = co.entry(((a as u64) << 32) | b as u64).or_insert_with(|| (0, Vec::new()));
                e.0 += 1;
                if e.1.len() < params.max_evidence {
                    e.1.push(item);
                }
            }
        }
        start = end;
    }
    let mut edges: Vec<(u32, u32, u32, Vec<i64>)> = co
        .into_iter()
        .filter(|(_, (w, _))| *w as usize >= params.min_edge_weight.max(1))
        .map(|(k, (w, items))| ((k >> 32) as u32, k as u32, w, items))
        .collect();
    edges.sort_unstable_by_key(|e| (e.0, e.1));

    // 5. Concepts: kept tags with at least one edge, inserted in name order.
    let mut has_edge = vec![false; tag_names.len()];
    for e in &edges {
        has_edge[e.0 as usize] = true;
        has_edge[e.1 as usize] = true;
    }
    stats.tags_without_edges = (0..tag_names.len()).filter(|&t| kept[t] && !has_edge[t]).count();
    let mut graph: UnGraph<String, EdgeData> = UnGraph::with_capacity(0, edges.len());
    let mut node_of = vec![u32::MAX; tag_names.len()];
    for (t, name) in tag_names.iter().enumerate() {
        if has_edge[t] {
            node_of[t] = graph.add_node(name.to_string()).index() as u32;
        }
    }
    let n = graph.node_count();
    let mut adj: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
    for (a, b, w, items) in edges {
        let (a, b) = (node_of[a as usize], node_of[b as usize]);
        let e = graph.add_edge(NodeIndex::new(a as usize), NodeIndex::new(b as usize), EdgeData { weight: w, items });
        adj[a as usize].push((b, e.index() as u32));
        adj[b as usize].push((a, e.index() as u32));
    }
    for l in &mut adj {
        l.sort_unstable();
    }
    let mut node_items: Vec<Vec<i64>> = vec![Vec::new(); n];
    for (item, t) in &pairs {
        let v = node_of[*t as usize];
        if v != u32::MAX {
            node_items[v as usize].push(*item);
        }
    }
    let mut names = HashMap::with_capacity(n);
    let mut folds = HashMap::with_capacity(n);
    let mut keys = Vec::with_capacity(n);
    for (i, name) in graph.node_weights().enumerate() {
        names.insert(name.clone(), i as u32);
        folds.entry(fold_key(name)).or_insert(i as u32);
        keys.push((name.replace('-', ""), name.split('-').map(fold_key).collect()));
    }
    let mut minor: HashMap<String, (String, usize, Vec<i64>)> = HashMap::new();
    for (item, t) in &pairs {
        if node_of[*t as usize] == u32::MAX {
            let name = tag_names[*t as usize];
            let e =
                minor.entry(fold_key(name)).or_insert_with(|| (name.to_string(), tag_uses[*t as usize], Vec::new()));
            if e.2.len() < params.max_evidence {
                e.2.push(*item);
            }
        }
    }
    Graph { graph, adj, names, folds, keys, node_items, minor, stats, params, canon: canon.clone() }
}

/// How a concept was recognised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum How {
    /// The text is a concept's name.
    Exact,
    /// The text's canonical spelling (aliases, case, separators) is a concept.
    Canonical,
    /// The text folds (hyphens, plurals) onto a concept.
    Folded,
    /// The text begins exactly one concept's name.
    Prefix,
    /// A near spelling or word overlap, confident enough to use.
    Fuzzy,
}

/// A concept recognised from text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Resolved {
    /// What was asked.
    pub query: String,
    /// The concept's name.
    pub name: String,
    /// How it was recognised.
    pub how: How,
    /// 1.0 for exact, canonical, folded and prefix matches; the similarity otherwise.
    pub confidence: f64,
}

/// A possible concept, with how close it is to what was asked (0 to 1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Candidate {
    /// The concept's name.
    pub name: String,
    /// Similarity to the query, 0 to 1.
    pub confidence: f64,
}

/// The outcome of resolving text to a concept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Resolution {
    /// One concept, confidently.
    Found(Resolved),
    /// Several concepts fit (or one only loosely): the caller must choose.
    Ambiguous {
        /// What was asked.
        query: String,
        /// The concepts that fit, best first.
        candidates: Vec<Candidate>,
    },
    /// Nothing fits; the nearest concepts, if any are near at all.
    Unknown {
        /// What was asked.
        query: String,
        /// The nearest concepts, best first (possibly none).
        suggestions: Vec<Candidate>,
    },
}

/// Why an operation did not answer. Each says what to do next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Refusal {
    /// The graph has no concepts.
    EmptyGraph,
    /// The text names no concept.
    Unknown {
        /// What was asked.
        query: String,
        /// Nearest concepts.
        suggestions: Vec<String>,
    },
    /// The text fits several concepts.
    Ambiguous {
        /// What was asked.
        query: String,
        /// The concepts it could mean.
        candidates: Vec<String>,
    },
    /// The text is a tag of what was read, but too rare to be a concept.
    TooRare {
        /// What was asked.
        query: String,
        /// The tag's name.
        name: String,
        /// On how many items it occurs.
        uses: usize,
        /// Whether it occurs on enough items but never with another concept often enough.
        alone: bool,
        /// The lowest ids of the items carrying it.
        items: Vec<i64>,
    },
    /// A path was asked between a concept and itself.
    SameConcept {
        /// The concept both ends resolved to.
        name: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::EmptyGraph => write!(
                f,
                "The concept graph is empty: a concept needs a tag on at least two items that co-occurs with another; tag more items."
            ),
            Refusal::Unknown { query, suggestions } if suggestions.is_empty() => {
                write!(f, "'{query}' is not a concept in what you have read, and nothing close is.")
            }
            Refusal::Unknown { query, suggestions } => {
                write!(f, "'{query}' is not a concept in what you have read; nearest: {}.", suggestions.join(", "))
            }
            Refusal::TooRare { query, name, uses, alone, items } => {
                let tag = if name == query { format!("'{query}'") } else { format!("'{query}' (tag {name})") };
                let on = items.iter().map(|i| format!("item {i}")).collect::<Vec<_>>().join(", ");
                if *alone {
                    write!(
                        f,
                        "{tag} is a tag on {uses} items you have read ({on}), but it never occurs together with another concept often enough to join the graph. feed.search finds what you read about it."
                    )
                } else {
                    let n = if *uses == 1 { "one item".to_string() } else { format!("only {uses} items") };
                    write!(
                        f,
                        "{tag} is a tag on {n} you have read ({on}): too few to be a concept (a concept is a tag several items share, occurring together with another). feed.search finds what you read about it."
                    )
                }
            }
            Refusal::Ambiguous { query, candidates } => {
                write!(f, "'{query}' could be any of: {}. Say which.", candidates.join(", "))
            }
            Refusal::SameConcept { name } => {
                write!(f, "Both ends are '{name}': give two different concepts to connect.")
            }
        }
    }
}

impl std::error::Error for Refusal {}

impl Resolution {
    /// The concept, or the refusal that says why there is none.
    pub fn into_result(self) -> Result<Resolved, Refusal> {
        match self {
            Resolution::Found(r) => Ok(r),
            Resolution::Ambiguous { query, candidates } => {
                Err(Refusal::Ambiguous { query, candidates: candidates.into_iter().map(|c| c.name).collect() })
            }
            Resolution::Unknown { query, suggestions } => {
                Err(Refusal::Unknown { query, suggestions: suggestions.into_iter().map(|c| c.name).collect() })
            }
        }
    }
}

/// One neighbour of a concept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Neighbor {
    /// The neighbour's name.
    pub name: String,
    /// On how many items the two co-occur.
    pub weight: u32,
    /// Items that carry both (the lowest ids, capped).
    pub items: Vec<i64>,
}

/// The answer of [`Graph::neighbors`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Neighbors {
    /// The concept asked about.
    pub concept: Resolved,
    /// How many neighbours it has in all.
    pub total: usize,
    /// The strongest, by weight then name.
    pub rows: Vec<Neighbor>,
}

/// One hop of a path, with the items that evidence it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Hop {
    /// From this concept...
    pub from: String,
    /// ...to this one.
    pub to: String,
    /// On how many items the two co-occur.
    pub weight: u32,
    /// Items that carry both (the lowest ids, capped).
    pub items: Vec<i64>,
}

/// The answer of [`Graph::path`]. `hops` is `None` when the two concepts are in
/// different components: a legitimate answer, not a failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PathAnswer {
    /// The source as resolved.
    pub source: Resolved,
    /// The target as resolved.
    pub target: Resolved,
    /// The concepts along the path, source first; empty when there is no path.
    pub nodes: Vec<String>,
    /// The hops, or `None` when no path exists.
    pub hops: Option<Vec<Hop>>,
}

/// A centrality measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Metric<'a> {
    /// Number of neighbours.
    Degree,
    /// Brandes betweenness, unweighted, unnormalised, each pair counted once.
    Betweenness,
    /// Sum over the items carrying a concept of that item's reading weight (clicks,
    /// reads, ...), keyed by item id; items absent count 0.
    MostRead(&'a BTreeMap<i64, f64>),
}

impl Metric<'_> {
    /// The metric's name as tools spell it.
    pub fn name(&self) -> &'static str {
        match self {
            Metric::Degree => "degree",
            Metric::Betweenness => "betweenness",
            Metric::MostRead(_) => "most_read",
        }
    }
}

/// The names tools accept for [`Metric`].
pub const METRICS: &[&str] = &["degree", "betweenness", "most_read"];

/// A concept and its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Score {
    /// The concept.
    pub name: String,
    /// Its score under the metric.
    pub score: f64,
}

/// The answer of [`Graph::central`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Central {
    /// Which metric.
    pub metric: String,
    /// The top concepts, by score then name.
    pub rows: Vec<Score>,
}

/// A community of concepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Community {
    /// Its hub: the member with the most neighbours (ties: first by name).
    pub label: String,
    /// Its members, by name.
    pub members: Vec<String>,
}

/// The answer of [`Graph::communities`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Communities {
    /// Modularity of the whole partition (including communities below `min_size`).
    pub modularity: f64,
    /// How many communities were smaller than `min_size` and left out.
    pub dropped: usize,
    /// Communities by size (largest first), then label.
    pub rows: Vec<Community>,
}

/// The answer of [`Graph::concepts`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Concepts {
    /// How many concepts matched in all.
    pub total: usize,
    /// The first `limit` of them, by name (or by closeness when `fuzzy`).
    pub names: Vec<String>,
    /// True when nothing matched the prefix and these are the nearest concepts instead.
    pub fuzzy: bool,
}

/// Health of the graph, for `kg-report` and for judging whether it is useful.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Health {
    /// Concepts (nodes).
    pub concepts: usize,
    /// Edges.
    pub edges: usize,
    /// Connected components.
    pub components: usize,
    /// Concepts in the largest component.
    pub largest_component: usize,
    /// How the graph was built.
    pub build: BuildStats,
    /// The thresholds used.
    pub params: Params,
    /// Median number of neighbours.
    pub median_degree: f64,
    /// Most neighbours of any concept.
    pub max_degree: usize,
    /// The concept with the most neighbours (ties: first by name).
    pub hub: Option<String>,
    /// The hub's share of all edge ends, in percent.
    pub hub_dominance_pct: f64,
    /// Communities of at least 3 concepts.
    pub communities: usize,
    /// The largest community's share of concepts, in percent.
    pub largest_community_pct: f64,
}

const PREFIX_MIN_CHARS: usize = 3;
const FUZZY_ACCEPT: f64 = 0.8;
const FUZZY_MARGIN: f64 = 0.1;
const FUZZY_CANDIDATE: f64 = 0.6;
const SUGGEST_FLOOR: f64 = 0.4;
const MAX_CANDIDATES: usize = 8;
const MAX_SUGGESTIONS: usize = 5;

impl Graph {
    /// Number of concepts.
    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Whether there are no concepts at all.
    pub fn is_empty(&self) -> bool {
        self.graph.node_count() == 0
    }

    /// Counts from building.
    pub fn stats(&self) -> &BuildStats {
        &self.stats
    }

    /// The thresholds used.
    pub fn params(&self) -> Params {
        self.params
    }

    /// Every concept, by name.
    pub fn concept_names(&self) -> impl Iterator<Item = &str> {
        self.graph.node_weights().map(String::as_str)
    }

    /// Whether a name is a concept (exactly).
    pub fn contains(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Number of neighbours of an exact concept name.
    pub fn degree(&self, name: &str) -> Option<usize> {
        self.names.get(name).map(|&i| self.adj[i as usize].len())
    }

    /// Items that carry an exact concept name, ascending.
    pub fn items_of(&self, name: &str) -> Option<&[i64]> {
        self.names.get(name).map(|&i| self.node_items[i as usize].as_slice())
    }

    /// Co-occurrence weight between two exact concept names, if they are joined.
    pub fn weight(&self, a: &str, b: &str) -> Option<u32> {
        let (a, b) = (*self.names.get(a)?, *self.names.get(b)?);
        self.edge_between(a, b).map(|e| self.graph[e].weight)
    }

    pub(crate) fn name(&self, i: u32) -> &str {
        &self.graph[NodeIndex::new(i as usize)]
    }

    fn edge_between(&self, a: u32, b: u32) -> Option<petgraph::graph::EdgeIndex> {
        let l = &self.adj[a as usize];
        l.binary_search_by_key(&b, |x| x.0).ok().map(|p| petgraph::graph::EdgeIndex::new(l[p].1 as usize))
    }

    fn found(&self, query: &str, i: u32, how: How, confidence: f64) -> Resolution {
        Resolution::Found(Resolved { query: query.to_string(), name: self.name(i).to_string(), how, confidence })
    }

    /// Recognise a concept in text: exact name, canonical spelling (aliases, case,
    /// words joined by hyphens), fold key; then a unique prefix; then a near spelling
    /// or word overlap with a confidence. Several fits give [`Resolution::Ambiguous`];
    /// nothing near gives [`Resolution::Unknown`] with the nearest suggestions.
    pub fn resolve(&self, text: &str) -> Resolution {
        let query = text.trim().to_string();
        if let Some(&i) = self.names.get(query.as_str()) {
            return self.found(&query, i, How::Exact, 1.0);
        }
        let canonical = self.canon.canonical(&query);
        if canonical.is_empty() {
            return Resolution::Unknown { query, suggestions: Vec::new() };
        }
        if let Some(&i) = self.names.get(&canonical) {
            return self.found(&query, i, How::Canonical, 1.0);
        }
        let n = normalize(&query);
        for k in [fold_key(&canonical), fold_key(&n)] {
            if let Some(&i) = self.folds.get(&k) {
                return self.found(&query, i, How::Folded, 1.0);
            }
        }
        let qkey = n.replace('-', "");
        if qkey.chars().count() >= PREFIX_MIN_CHARS {
            let hits: Vec<u32> =
                (0..self.keys.len() as u32).filter(|&i| self.keys[i as usize].0.starts_with(&qkey)).collect();
            match hits.len() {
                0 => {}
                1 => return self.found(&query, hits[0], How::Prefix, 1.0),
                _ => {
                    let mut c: Vec<Candidate> = hits
                        .iter()
                        .map(|&i| Candidate {
                            name: self.name(i).to_string(),
                            confidence: round3(qkey.len() as f64 / self.keys[i as usize].0.len() as f64),
                        })
                        .collect();
                    c.sort_by(|a, b| b.confidence.total_cmp(&a.confidence).then_with(|| a.name.cmp(&b.name)));
                    c.truncate(MAX_CANDIDATES);
                    return Resolution::Ambiguous { query, candidates: c };
                }
            }
        }
        let qwords: Vec<String> = n.split('-').filter(|w| !w.is_empty()).map(fold_key).collect();
        let mut scored: Vec<(f64, u32)> = (0..self.keys.len() as u32)
            .filter_map(|i| {
                let (key, words) = &self.keys[i as usize];
                let s = similarity(&qkey, &qwords, key, words);
                (s > 0.0).then_some((s, i))
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| self.name(a.1).cmp(self.name(b.1))));
        let best = scored.first().map_or(0.0, |s| s.0);
        let second = scored.get(1).map_or(0.0, |s| s.0);
        if best >= FUZZY_ACCEPT && best - second >= FUZZY_MARGIN {
            return self.found(&query, scored[0].1, How::Fuzzy, round3(best));
        }
        let cand = |floor: f64, max: usize| -> Vec<Candidate> {
            scored
                .iter()
                .take_while(|s| s.0 >= floor)
                .take(max)
                .map(|s| Candidate { name: self.name(s.1).to_string(), confidence: round3(s.0) })
                .collect()
        };
        if best >= FUZZY_CANDIDATE {
            return Resolution::Ambiguous { query, candidates: cand(FUZZY_CANDIDATE, MAX_CANDIDATES) };
        }
        Resolution::Unknown { query, suggestions: cand(SUGGEST_FLOOR, MAX_SUGGESTIONS) }
    }

    fn resolve_index(&self, text: &str) -> Result<(Resolved, u32), Refusal> {
        if self.is_empty() {
            return Err(Refusal::EmptyGraph);
        }
        let r = match self.resolve(text).into_result() {
            Err(Refusal::Unknown { query, suggestions }) => {
                let canonical = self.canon.canonical(&query);
                let rare = [fold_key(&canonical), fold_key(&normalize(&query))]
                    .into_iter()
                    .find_map(|k| self.minor.get(&k).cloned());
                return Err(match rare {
                    Some((name, uses, items)) => {
                        Refusal::TooRare { query, name, uses, alone: uses >= self.params.min_tag_uses.max(1), items }
                    }
                    None => Refusal::Unknown { query, suggestions },
                });
            }
            other => other?,
        };
        let i = self.names[&r.name];
        Ok((r, i))
    }

    /// The direct neighbours of a concept, strongest first (weight, then name), at most
    /// `limit` (at least one).
    pub fn neighbors(&self, concept: &str, limit: usize) -> Result<Neighbors, Refusal> {
        let (r, i) = self.resolve_index(concept)?;
        let mut rows: Vec<Neighbor> = self.adj[i as usize]
            .iter()
            .map(|&(j, e)| {
                let d = &self.graph[petgraph::graph::EdgeIndex::new(e as usize)];
                Neighbor { name: self.name(j).to_string(), weight: d.weight, items: d.items.clone() }
            })
            .collect();
        rows.sort_by(|a, b| b.weight.cmp(&a.weight).then_with(|| a.name.cmp(&b.name)));
        let total = rows.len();
        rows.truncate(limit.max(1));
        Ok(Neighbors { concept: r, total, rows })
    }

    /// The shortest chain of co-occurrences from one concept to another (the first by
    /// name among equally short ones), each hop with the items that evidence it.
    pub fn path(&self, source: &str, target: &str) -> Result<PathAnswer, Refusal> {
        let (rs, s) = self.resolve_index(source)?;
        let (rt, t) = self.resolve_index(target)?;
        if s == t {
            return Err(Refusal::SameConcept { name: rs.name });
        }
        // BFS with neighbours in name order and a FIFO queue: each node's first
        // discoverer lies on the lexicographically first shortest path to it.
        let n = self.node_count();
        let mut parent = vec![u32::MAX; n];
        parent[s as usize] = s;
        let mut queue = VecDeque::from([s]);
        'bfs: while let Some(u) = queue.pop_front() {
            for &(v, _) in &self.adj[u as usize] {
                if parent[v as usize] == u32::MAX {
                    parent[v as usize] = u;
                    if v == t {
                        break 'bfs;
                    }
                    queue.push_back(v);
                }
            }
        }
        if parent[t as usize] == u32::MAX {
            return Ok(PathAnswer { source: rs, target: rt, nodes: Vec::new(), hops: None });
        }
        let mut chain = vec![t];
        while *chain.last().unwrap() != s {
            chain.push(parent[*chain.last().unwrap() as usize]);
        }
        chain.reverse();
        let hops = chain
            .windows(2)
            .map(|w| {
                let d = &self.graph[self.edge_between(w[0], w[1]).expect("path follows edges")];
                Hop {
                    from: self.name(w[0]).to_string(),
                    to: self.name(w[1]).to_string(),
                    weight: d.weight,
                    items: d.items.clone(),
                }
            })
            .collect();
        let nodes = chain.iter().map(|&i| self.name(i).to_string()).collect();
        Ok(PathAnswer { source: rs, target: rt, nodes, hops: Some(hops) })
    }

    /// The most central concepts under a metric, by score then name, at most `limit`
    /// (at least one).
    pub fn central(&self, metric: Metric<'_>, limit: usize) -> Central {
        let scores: Vec<f64> = match metric {
            Metric::Degree => self.adj.iter().map(|l| l.len() as f64).collect(),
            Metric::Betweenness => self.betweenness(),
            Metric::MostRead(w) => self
                .node_items
                .iter()
                .map(|items| items.iter().map(|i| w.get(i).copied().unwrap_or(0.0)).sum())
                .collect(),
        };
        let mut order: Vec<u32> = (0..scores.len() as u32).collect();
        order.sort_by(|&a, &b| scores[b as usize].total_cmp(&scores[a as usize]).then(a.cmp(&b)));
        order.truncate(limit.max(1));
        Central {
            metric: metric.name().to_string(),
            rows: order.iter().map(|&i| Score { name: self.name(i).to_string(), score: scores[i as usize] }).collect(),
        }
    }

    /// Brandes' betweenness (unweighted, undirected, unnormalised, each pair once), in
    /// node order. Sources are visited in name order, so sums are reproducible.
    pub fn betweenness(&self) -> Vec<f64> {
        let n = self.node_count();
        let mut offsets = Vec::with_capacity(n + 1);
        let mut targets: Vec<u32> = Vec::new();
        offsets.push(0usize);
        for l in &self.adj {
            targets.extend(l.iter().map(|x| x.0));
            offsets.push(targets.len());
        }
        let mut bc = vec![0.0f64; n];
        let mut sigma = vec![0.0f64; n];
        let mut dist = vec![u32::MAX; n];
        let mut delta = vec![0.0f64; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        for s in 0..n {
            order.clear();
            sigma.iter_mut().for_each(|x| *x = 0.0);
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            sigma[s] = 1.0;
            dist[s] = 0;
            order.push(s as u32);
            let mut head = 0;
            while head < order.len() {
                let v = order[head] as usize;
                head += 1;
                let dv = dist[v];
                for &w in &targets[offsets[v]..offsets[v + 1]] {
                    let w = w as usize;
                    if dist[w] == u32::MAX {
                        dist[w] = dv + 1;
                        order.push(w as u32);
                    }
                    if dist[w] == dv + 1 {
                        sigma[w] += sigma[v];
                    }
                }
            }
            for &w in &order {
                delta[w as usize] = 0.0;
            }
            for &w in order.iter().rev() {
                let w = w as usize;
                let dw = dist[w];
                let coeff = (1.0 + delta[w]) / sigma[w];
                for &v in &targets[offsets[w]..offsets[w + 1]] {
                    let v = v as usize;
                    if dist[v] != u32::MAX && dist[v] + 1 == dw {
                        delta[v] += sigma[v] * coeff;
                    }
                }
                if w != s {
                    bc[w] += delta[w];
                }
            }
        }
        bc.iter_mut().for_each(|x| *x /= 2.0);
        bc
    }

    /// Modularity communities (Louvain: local moving in name order, then aggregation,
    /// repeated until nothing moves), labelled by hub, dropping those smaller than
    /// `min_size` (at least one).
    pub fn communities(&self, min_size: usize) -> Communities {
        let (member, modularity) = self.louvain();
        let k = member.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut groups: Vec<Vec<u32>> = vec![Vec::new(); k];
        for (i, &c) in member.iter().enumerate() {
            groups[c as usize].push(i as u32);
        }
        let total = groups.len();
        let mut rows: Vec<Community> = groups
            .into_iter()
            .filter(|g| g.len() >= min_size.max(1))
            .map(|g| {
                let hub = *g
                    .iter()
                    .max_by(|&&a, &&b| self.adj[a as usize].len().cmp(&self.adj[b as usize].len()).then(b.cmp(&a)))
                    .expect("non-empty");
                Community {
                    label: self.name(hub).to_string(),
                    members: g.iter().map(|&i| self.name(i).to_string()).collect(),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.members.len().cmp(&a.members.len()).then_with(|| a.label.cmp(&b.label)));
        Communities { modularity: round3(modularity), dropped: total - rows.len(), rows }
    }

    /// Community id per node (ids in order of each community's first member) and the
    /// partition's modularity.
    pub(crate) fn louvain(&self) -> (Vec<u32>, f64) {
        let n = self.node_count();
        let mut level: Vec<Vec<(u32, f64)>> = self
            .adj
            .iter()
            .map(|l| {
                l.iter()
                    .map(|&(j, e)| (j, self.graph[petgraph::graph::EdgeIndex::new(e as usize)].weight as f64))
                    .collect()
            })
            .collect();
        let mut self_loop = vec![0.0f64; n];
        let mut member: Vec<u32> = (0..n as u32).collect();
        let m2: f64 = level.iter().flatten().map(|x| x.1).sum();
        if m2 == 0.0 {
            return (member, 0.0);
        }
        loop {
            let comm = local_moving(&level, &self_loop, m2);
            let count = comm.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
            for m in &mut member {
                *m = comm[*m as usize];
            }
            if count == level.len() {
                break;
            }
            // Aggregate: one node per community; inner weight becomes a self-loop.
            let mut next_loop = vec![0.0f64; count];
            let mut next: Vec<HashMap<u32, f64>> = vec![HashMap::new(); count];
            for (i, l) in level.iter().enumerate() {
                let ci = comm[i];
                next_loop[ci as usize] += self_loop[i];
                for &(j, w) in l {
                    let cj = comm[j as usize];
                    if ci == cj {
                        next_loop[ci as usize] += w / 2.0;
                    } else {
                        *next[ci as usize].entry(cj).or_default() += w;
                    }
                }
            }
            level = next
                .into_iter()
                .map(|m| {
                    let mut v: Vec<(u32, f64)> = m.into_iter().collect();
                    v.sort_by_key(|x| x.0);
                    v
                })
                .collect();
            self_loop = next_loop;
        }
        (member.clone(), self.modularity(&member))
    }

    /// Modularity of a partition (community id per node), weighted by co-occurrence.
    pub fn modularity(&self, member: &[u32]) -> f64 {
        let mut m2 = 0.0;
        let k: Vec<f64> = self
            .adj
            .iter()
            .map(|l| {
                l.iter().map(|&(_, e)| self.graph[petgraph::graph::EdgeIndex::new(e as usize)].weight as f64).sum()
            })
            .collect();
        let count = member.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut tot = vec![0.0f64; count];
        let mut inner = vec![0.0f64; count];
        for (i, l) in self.adj.iter().enumerate() {
            m2 += k[i];
            tot[member[i] as usize] += k[i];
            for &(j, e) in l {
                if member[j as usize] == member[i] {
                    inner[member[i] as usize] += self.graph[petgraph::graph::EdgeIndex::new(e as usize)].weight as f64;
                }
            }
        }
        if m2 == 0.0 {
            return 0.0;
        }
        (0..count).map(|c| inner[c] / m2 - (tot[c] / m2).powi(2)).sum()
    }

    /// Concepts whose name, or any word of it, begins with `prefix` (case, spaces and
    /// hyphens ignored), by name. With no prefix, every concept. When nothing matches,
    /// the nearest concepts instead, with `fuzzy` set.
    pub fn concepts(&self, prefix: Option<&str>, limit: usize) -> Concepts {
        let limit = limit.max(1);
        let p = prefix.map(normalize).unwrap_or_default();
        if p.is_empty() {
            let names: Vec<String> = self.concept_names().take(limit).map(str::to_string).collect();
            return Concepts { total: self.node_count(), names, fuzzy: false };
        }
        let pkey = p.replace('-', "");
        let hits: Vec<&str> = self
            .concept_names()
            .filter(|name| {
                name.replace('-', "").starts_with(&pkey)
                    || name.match_indices('-').any(|(at, _)| name[at + 1..].replace('-', "").starts_with(&pkey))
            })
            .collect();
        if !hits.is_empty() {
            return Concepts {
                total: hits.len(),
                names: hits.iter().take(limit).map(|s| s.to_string()).collect(),
                fuzzy: false,
            };
        }
        let names: Vec<String> = match self.resolve(&p) {
            Resolution::Found(r) => vec![r.name],
            Resolution::Ambiguous { candidates, .. } => candidates.into_iter().map(|c| c.name).collect(),
            Resolution::Unknown { suggestions, .. } => suggestions.into_iter().map(|c| c.name).collect(),
        };
        Concepts { total: names.len(), names: names.into_iter().take(limit).collect(), fuzzy: true }
    }

    /// Connected components as node-index lists, largest first (ties: first member).
    pub(crate) fn components(&self) -> Vec<Vec<u32>> {
        let n = self.node_count();
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for s in 0..n {
            if seen[s] {
                continue;
            }
            seen[s] = true;
            let mut comp = vec![s as u32];
            let mut head = 0;
            while head < comp.len() {
                let v = comp[head] as usize;
                head += 1;
                for &(w, _) in &self.adj[v] {
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        comp.push(w);
                    }
                }
            }
            comp.sort_unstable();
            out.push(comp);
        }
        out.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        out
    }

    /// The graph's health: size, connectivity, what building dropped and merged, degree
    /// spread, hub dominance and community balance.
    pub fn health(&self) -> Health {
        let n = self.node_count();
        let comps = self.components();
        let mut degrees: Vec<usize> = self.adj.iter().map(Vec::len).collect();
        degrees.sort_unstable();
        let median_degree = match n {
            0 => 0.0,
            _ if n % 2 == 1 => degrees[n / 2] as f64,
            _ => (degrees[n / 2 - 1] + degrees[n / 2]) as f64 / 2.0,
        };
        let max_degree = degrees.last().copied().unwrap_or(0);
        let hub = (0..n as u32).find(|&i| self.adj[i as usize].len() == max_degree).filter(|_| n > 0);
        let ends: usize = degrees.iter().sum();
        let comms = self.communities(3);
        let largest = comms.rows.first().map_or(0, |c| c.members.len());
        Health {
            concepts: n,
            edges: self.edge_count(),
            components: comps.len(),
            largest_component: comps.first().map_or(0, Vec::len),
            build: self.stats.clone(),
            params: self.params,
            median_degree,
            max_degree,
            hub: hub.map(|i| self.name(i).to_string()),
            hub_dominance_pct: pct(max_degree, ends),
            communities: comms.rows.len(),
            largest_community_pct: pct(largest, n),
        }
    }
}

/// Louvain's first phase on one level: nodes visited in index order, each moved to the
/// neighbouring community with the largest modularity gain when strictly better than
/// staying (ties between other communities go to the smaller id). Returns community
/// ids renumbered in order of first member.
/// Items grouped by topic ([`Graph::group_items`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TopicGroup {
    /// The topic's central concepts (at most 3): those most of its items carry, then
    /// by neighbours, then by name.
    pub concepts: Vec<String>,
    /// Its items, in the order given.
    pub items: Vec<i64>,
}

impl Graph {
    /// The concept a stored tag stands for here, if it is one.
    fn node_of(&self, tag: &str) -> Option<u32> {
        let c = self.canon.canonical(tag);
        self.names.get(&c).or_else(|| self.folds.get(&fold_key(&c))).copied()
    }

    /// Group items (each with its tags, in the order a reader should see them) by
    /// community: an item joins the community holding most of its concepts (ties: the
    /// one whose concept has the most neighbours, then the lower community). Groups come
    /// in the order of their first item; a group of fewer than `min_items` items, and
    /// items with no concept, are returned apart (in order), as "other".
    pub fn group_items(&self, items: &[(i64, Vec<String>)], min_items: usize) -> (Vec<TopicGroup>, Vec<i64>) {
        let (member, _) = self.louvain();
        let mut order: Vec<u32> = Vec::new();
        let mut groups: HashMap<u32, (Vec<i64>, Vec<Vec<u32>>)> = HashMap::new();
        let mut other: Vec<(usize, i64)> = Vec::new();
        for (pos, (id, tags)) in items.iter().enumerate() {
            let mut nodes: Vec<u32> = tags.iter().filter_map(|t| self.node_of(t)).collect();
            nodes.sort_unstable();
            nodes.dedup();
            let mut count: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
            for &n in &nodes {
                let e = count.entry(member[n as usize]).or_default();
                e.0 += 1;
                e.1 = e.1.max(self.adj[n as usize].len());
            }
            let best = count.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(c, _)| *c);
            match best {
                Some(c) => {
                    let g = groups.entry(c).or_insert_with(|| {
                        order.push(c);
                        (Vec::new(), Vec::new())
                    });
                    g.0.push(*id);
                    g.1.push(nodes.into_iter().filter(|&n| member[n as usize] == c).collect());
                }
                None => other.push((pos, *id)),
            }
        }
        let position: HashMap<i64, usize> = items.iter().enumerate().map(|(p, (id, _))| (*id, p)).collect();
        let mut out = Vec::new();
        for c in order {
            let (ids, nodes) = groups.remove(&c).unwrap_or_default();
            if ids.len() < min_items.max(1) {
                other.extend(ids.iter().map(|id| (position[id], *id)));
                continue;
            }
            let mut uses: BTreeMap<u32, usize> = BTreeMap::new();
            for n in nodes.iter().flatten() {
                *uses.entry(*n).or_default() += 1;
            }
            let mut central: Vec<(u32, usize)> = uses.into_iter().collect();
            central.sort_by(|a, b| {
                b.1.cmp(&a.1).then(self.adj[b.0 as usize].len().cmp(&self.adj[a.0 as usize].len())).then(a.0.cmp(&b.0))
            });
            let concepts = central.iter().take(3).map(|(n, _)| self.name(*n).to_string()).collect();
            out.push(TopicGroup { concepts, items: ids });
        }
        other.sort_unstable();
        (out, other.into_iter().map(|(_, id)| id).collect())
    }
}

fn local_moving(adj: &[Vec<(u32, f64)>], self_loop: &[f64], m2: f64) -> Vec<u32> {
    const EPS: f64 = 1e-12;
    let n = adj.len();
    let k: Vec<f64> = (0..n).map(|i| adj[i].iter().map(|x| x.1).sum::<f64>() + 2.0 * self_loop[i]).collect();
    let mut comm: Vec<u32> = (0..n as u32).collect();
    let mut tot = k.clone();
    let mut w_to = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    for _sweep in 0..100 {
        let mut moved = false;
        for i in 0..n {
            let ci = comm[i];
            tot[ci as usize] -= k[i];
            touched.clear();
            for &(j, w) in &adj[i] {
                let cj = comm[j as usize];
                if w_to[cj as usize] == 0.0 && !touched.contains(&cj) {
                    touched.push(cj);
                }
                w_to[cj as usize] += w;
            }
            let gain = |c: u32, w: f64| w - tot[c as usize] * k[i] / m2;
            let stay = gain(ci, w_to[ci as usize]);
            let mut best = ci;
            let mut best_gain = stay;
            for &c in &touched {
                if c == ci {
                    continue;
                }
                let g = gain(c, w_to[c as usize]);
                if g > best_gain + EPS || (best != ci && (g - best_gain).abs() <= EPS && c < best) {
                    best = c;
                    best_gain = g;
                }
            }
            for &c in &touched {
                w_to[c as usize] = 0.0;
            }
            tot[best as usize] += k[i];
            if best != ci {
                comm[i] = best;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let mut renum = vec![u32::MAX; n];
    let mut next = 0;
    for c in &mut comm {
        if renum[*c as usize] == u32::MAX {
            renum[*c as usize] = next;
            next += 1;
        }
        *c = renum[*c as usize];
    }
    comm
}

/// Similarity of a query to a concept, 0 to 1: the better of spelling closeness
/// (1 − edit distance / longer length, on hyphen-less keys) and word overlap (Jaccard
/// over folded words).
fn similarity(qkey: &str, qwords: &[String], key: &str, words: &[String]) -> f64 {
    let (a, b) = (qkey.chars().count(), key.chars().count());
    let longer = a.max(b).max(1);
    let edit = if a.abs_diff(b) * 2 > longer { 0.0 } else { 1.0 - levenshtein(qkey, key) as f64 / longer as f64 };
    let inter = qwords.iter().filter(|w| words.contains(w)).count();
    let union = qwords.len() + words.len() - inter;
    let overlap = if union == 0 { 0.0 } else { inter as f64 / union as f64 };
    edit.max(overlap)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 { 0.0 } else { (part as f64 * 1000.0 / whole as f64).round() / 10.0 }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance() {
        assert_eq!(levenshtein("kitten", "sitting"), 3);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("same", "same"), 0);
    }
}
