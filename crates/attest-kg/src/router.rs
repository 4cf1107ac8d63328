//! The `kg.ask` router: a pure function from a question to one tool of the knowledge
//! surface, with the concepts it names extracted as arguments.
//!
//! It is attest-core's one ask pipeline ([`attest_core::ask`]) over this surface's
//! [`Facts`] (read once per question: the words, the cleaned body, and what the
//! extraction patterns capture) and its rule table [`RULES`] (first rule wins; phrases
//! on whole words; extraction patterns anchored on the same words). There is no
//! catch-all: a question no rule claims is asked back with options. "What did I read
//! about X" belongs to this surface too (`feed.search`, which the knowledge surface
//! serves), so the shared decline table never sends it away. `specs/kg-routing.md`
//! explains the table.

use std::sync::LazyLock;

use attest_core::Decision;
use attest_core::ask::{Args, Asked, Router, Rule};
use attest_core::route::Question;
use regex::Regex;
use serde_json::Value;

/// Tools offered when a question is asked back, and after a decline.
pub const OPTIONS: &[&str] = &["kg.path", "kg.neighbors", "kg.central", "kg.communities", "feed.search"];

/// The question back for an empty question.
pub const EMPTY: &str = "What would you like to know about the concepts you have read: how two connect, what sits next to one, the central ones, or your research areas?";

/// The question back for a question no rule claims.
pub const UNCLEAR: &str = "I can't tell what you want from the concept graph: connect two concepts (kg.path), show what sits next to one (kg.neighbors), the central concepts (kg.central), your research areas (kg.communities), or search what you read (feed.search)?";

/// Longest question read, in characters; the rest is ignored.
const MAX_QUESTION_CHARS: usize = 2_000;

/// The routing table, in order; the first rule that claims the question decides.
///
/// 1. A citation question is asked back naming the surface's cite tools.
/// 2. A search of what was read, two concepts to connect, one concept's neighbourhood:
///    decided by what the extraction patterns capture ([`Facts`]).
/// 3. The phrase table, with each tool's arguments (kg.central's metric, kg.concepts'
///    prefix), and a question back for feed.search, kg.path and kg.neighbors when the
///    question names no topic or concept to give them.
pub static RULES: &[Rule<Facts>] = &[
    Rule::new("cite.lookup", CITATION_PHRASES).args(citation),
    Rule::new("feed.search", &[]).when(states_search).args(search_query).because("a search of what you read"),
    Rule::new("kg.path", &[]).when(states_pair).args(pair).because("two concepts to connect"),
    Rule::new("kg.neighbors", &[]).when(states_one).args(one).because("the neighbours of one concept"),
    Rule::new(
        "kg.central",
        &[
            "central",
            "most important",
            "hub",
            "hubs",
            "biggest topics",
            "dominant",
            "most read",
            "read most",
            "read the most",
            "read about most",
            "top concepts",
            "top topics",
            "main concepts",
            "key concepts",
            "betweenness",
            "bridging",
            "bridge concepts",
            "most connected",
        ],
    )
    .args(central_metric),
    Rule::new(
        "feed.search",
        &[
            "did i read about",
            "have i read about",
            "i read about",
            "i've read about",
            "did i read anything",
            "have i read anything",
            "what did i read",
            "what have i read",
            "papers about",
            "papers on",
            "articles about",
            "articles on",
            "items about",
            "search for",
            "search my archive",
        ],
    )
    .args(search_what),
    Rule::new(
        "kg.path",
        &[
            "connect",
            "connects",
            "connected",
            "connection",
            "link",
            "linked",
            "relate",
            "relates",
            "path",
            "chain",
            "between",
            "bridge from",
            "get from",
        ],
    )
    .args(which_two),
    Rule::new(
        "kg.neighbors",
        &[
            "related to",
            "neighbours",
            "neighbors",
            "neighbour",
            "neighbor",
            "next to",
            "adjacent to",
            "near",
            "close to",
            "associated with",
            "co occurs with",
            "cooccurs with",
            "goes with",
            "go with",
            "alongside",
            "around",
        ],
    )
    .args(next_to_which),
    Rule::new(
        "kg.communities",
        &[
            "research areas",
            "main areas",
            "areas",
            "clusters",
            "cluster",
            "themes",
            "communit*",
            "groups",
            "my topics",
            "fields",
        ],
    ),
    Rule::new(
        "kg.concepts",
        &[
            "concepts",
            "concept",
            "vocabulary",
            "which topics",
            "what topics",
            "list topics",
            "tags",
            "starting with",
            "beginning with",
            "start with",
            "spelled",
            "spell",
        ],
    )
    .args(concepts_prefix),
];

/// The knowledge surface's router.
pub static ROUTER: Router<Facts> = Router {
    surface: "knowledge",
    rules: RULES,
    empty: EMPTY,
    unclear: UNCLEAR,
    options: OPTIONS,
    decline_note: " If you meant the concepts you have read, say which: how two connect, what sits next to one, or your research areas.",
};

/// Route a `kg.ask` question to a knowledge tool, or ask back, or decline it to the
/// surface that owns it.
pub fn route(question: &str) -> Decision {
    ROUTER.decide(question, &Args::new())
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("router pattern compiles")
}

/// Trailing words that say where to look, not what to look for.
static TAIL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)[\s,]*(?:in|from|across|within|among)\s+(?:what\s+i(?:'ve|\s+have)?\s+read|my\s+(?:reading|archive|papers|feed|library|graph)|the\s+(?:graph|archive))\s*$|[\s,]*(?:lately|recently|so\s+far|at\s+all)\s*$|[\s?.!,;:]+$",
    )
});

static SEARCH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(?:did|have)\s+i\s+(?:ever\s+)?read\s+(?:anything\s+)?(?:about|on|regarding)|i(?:'ve|\s+have)?\s+read\s+about|what\s+(?:did|have)\s+i\s+read\s+(?:about|on|regarding)|(?:papers|articles|items)\s+(?:about|on|regarding)|search\s+(?:my\s+archive\s+)?for)\s+(?P<q>.+)$",
    )
});

static PATHS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)^(?:how|in\s+what\s+way|where)\s+(?:do|does|did|is|are|might|can|could)\s+(?P<a>.+?)\s+(?:and|&)\s+(?P<b>.+?)\s+(?:connect(?:ed)?|relate(?:d)?|link(?:ed)?|tie\s+together|fit\s+together|meet|overlap)$",
        r"(?i)^(?:how|where)?\s*(?:does|do|is|are|did|can|could)\s+(?P<a>.+?)\s+(?:connect(?:ed)?|relate(?:d)?|link(?:ed)?|lead|tie\s+in)\s+(?:back\s+)?(?:to|with|into)\s+(?P<b>.+)$",
        r"(?i)\b(?:path|connection|connections|link|links|chain|route|relationship|relation)\s+(?:between|from)\s+(?P<a>.+?)\s+(?:and|to|&)\s+(?P<b>.+)$",
        r"(?i)\b(?:what|which\s+concepts?)\s+(?:connects|links|bridges|joins|relates)\s+(?P<a>.+?)\s+(?:and|to|with|&)\s+(?P<b>.+)$",
        r"(?i)^(?:please\s+)?(?:connect|link|bridge)\s+(?P<a>.+?)\s+(?:and|to|with|&)\s+(?P<b>.+)$",
        r"(?i)\b(?:get|go|travel|bridge)\s+from\s+(?P<a>.+?)\s+to\s+(?P<b>.+)$",
    ]
    .iter()
    .map(|p| re(p))
    .collect()
});

static NEIGHBOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:related\s+to|neighbou?rs?\s+of|next\s+to|adjacent\s+to|near|close\s+to|associated\s+with|co-?occurs?\s+with|goes\s+with|go\s+with|alongside|around|connected\s+to|connects\s+to|linked\s+to|links\s+to)\s+(?P<a>.+)$",
    )
});

static CONCEPT_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:starting\s+with|beginning\s+with|that\s+starts?\s+with|start\s+with|begin\s+with|spelled|spell|prefix|named|called|like)\s+["']?(?P<p>[\w.+#-]+)"#,
    )
});

/// Quotes around a concept, straight or curly.
fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`' | '\u{201c}' | '\u{201d}' | '\u{2018}' | '\u{2019}')
}

/// Clean an extracted concept: trim, drop quotes, leading articles and the trailing
/// words that only say where to look.
fn clean(s: &str) -> String {
    let mut s = s.trim().trim_matches(is_quote).to_string();
    loop {
        let t = TAIL.replace(&s, "").trim().to_string();
        if t == s {
            break;
        }
        s = t;
    }
    for lead in ["the ", "a ", "an ", "my ", "concept ", "topic "] {
        // `get` is `None` when a multi-byte character straddles the cut ("a Gödel").
        if s.len() > lead.len() && s.get(..lead.len()).is_some_and(|h| h.eq_ignore_ascii_case(lead)) {
            s = s[lead.len()..].trim().to_string();
        }
    }
    s.trim_matches(is_quote).trim().to_string()
}

fn args(pairs: &[(&str, &str)]) -> Args {
    pairs.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect()
}

/// Phrases of a citation question. The knowledge surface answers these with its cite
/// tools, called directly (they take a key or words, not a concept).
pub const CITATION_PHRASES: &[&str] = &[
    "bibtex",
    "bib entry",
    "citation for",
    "citation key",
    "cite key",
    "how do i cite",
    "how to cite",
    "doi of",
    "doi for",
];

/// What a question states, read once before any rule is tried.
#[derive(Debug, Clone)]
pub struct Facts {
    /// The question's words.
    pub q: Question,
    /// The question cleaned of quotes, leading articles and "in what I've read"
    /// tails: what the concept patterns read.
    pub body: String,
    /// The citation phrase it carries, if any.
    pub citation: Option<&'static str>,
    /// The topic of a search of what was read ("what did I read about X").
    pub search: Option<String>,
    /// Two concepts to connect ("how does X relate to Y").
    pub pair: Option<(String, String)>,
    /// One concept whose neighbourhood is asked for ("what is related to X").
    pub one: Option<String>,
    /// The start of a concept's name ("concepts starting with X").
    pub prefix: Option<String>,
}

impl attest_core::ask::Facts for Facts {
    fn read(question: &str, _given: &Args) -> Facts {
        let question = match question.char_indices().nth(MAX_QUESTION_CHARS) {
            Some((cut, _)) => &question[..cut],
            None => question,
        };
        let q = Question::new(question);
        let body = clean(&q.raw);
        let how_much = ["most", "the most", "most often", "more", "less", "a lot"];
        let search = SEARCH
            .captures(&q.raw)
            .map(|c| clean(&c["q"]))
            .filter(|s| !s.is_empty() && !how_much.contains(&s.to_lowercase().as_str()));
        let pair = PATHS.iter().find_map(|p| {
            let c = p.captures(&body)?;
            let (a, b) = (clean(&c["a"]), clean(&c["b"]));
            (!a.is_empty() && !b.is_empty()).then_some((a, b))
        });
        let one = NEIGHBOR
            .captures(&body)
            .map(|c| clean(&c["a"]))
            .filter(|a| !a.is_empty() && a.split_whitespace().count() <= 6);
        let prefix = CONCEPT_PREFIX.captures(&body).map(|c| clean(&c["p"])).filter(|p| !p.is_empty());
        let citation = q.any(CITATION_PHRASES);
        Facts { q, body, citation, search, pair, one, prefix }
    }

    fn words(&self) -> &Question {
        &self.q
    }

    /// A citation question is asked back naming the cite tools whatever else it says.
    fn keeps(&self, _own: Option<&Decision>) -> bool {
        self.citation.is_some()
    }
}

fn states_search(a: &Asked<'_, Facts>) -> bool {
    a.facts.search.is_some()
}

fn states_pair(a: &Asked<'_, Facts>) -> bool {
    a.facts.pair.is_some()
}

fn states_one(a: &Asked<'_, Facts>) -> bool {
    a.facts.one.is_some()
}

fn citation(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(Decision::ask_back(
        format!(
            "'{}' is a citation question: call cite.lookup with the citation key, DOI or arXiv id, or cite.search with a few words of the title.",
            a.phrase.unwrap_or("citation")
        ),
        &["cite.lookup", "cite.search"],
    ))
}

fn search_query(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(args(&[("query", a.facts.search.as_deref().unwrap_or_default())]))
}

fn pair(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let (s, t) = a.facts.pair.as_ref().map_or(("", ""), |(s, t)| (s.as_str(), t.as_str()));
    Ok(args(&[("source", s), ("target", t)]))
}

fn one(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(args(&[("source", a.facts.one.as_deref().unwrap_or_default())]))
}

/// kg.central's measure: most read, betweenness for bridges, else degree.
fn central_metric(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let metric = if a.q.any(&["most read", "read most", "read the most", "read about most"]).is_some() {
        "most_read"
    } else if a.q.any(&["betweenness", "bridging", "bridge concepts", "bridge", "bridges"]).is_some() {
        "betweenness"
    } else {
        "degree"
    };
    Ok(args(&[("metric", metric)]))
}

/// kg.concepts' prefix, when the question states one.
fn concepts_prefix(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(a.facts.prefix.as_deref().map_or_else(Args::new, |p| args(&[("prefix", p)])))
}

fn search_what(_: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(Decision::ask_back(
        "Search what you read for what? Name a topic, e.g. \"what did I read about retrieval\".",
        &["feed.search", "kg.concepts"],
    ))
}

fn which_two(_: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(Decision::ask_back(
        "Which two concepts should I connect? Pass source and target.",
        &["kg.path", "kg.neighbors"],
    ))
}

fn next_to_which(_: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Err(Decision::ask_back("Next to which concept? Pass source.", &["kg.neighbors", "kg.concepts"]))
}
