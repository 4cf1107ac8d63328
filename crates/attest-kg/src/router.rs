//! The `kg.ask` router: a pure function from a question to one tool of the knowledge
//! surface, with the concepts it names extracted as arguments.
//!
//! Rules are data ([`RULES`]), matched on whole words; extraction patterns are anchored
//! on the same words. There is no catch-all: a question no rule claims is asked back
//! with options. "What did I read about X" belongs to this surface too (`feed.search`),
//! so this router checks its own rules before declining other surfaces' questions.

use std::sync::LazyLock;

use attest_core::Decision;
use attest_core::route::{Question, Rule, elsewhere, first_match};
use regex::Regex;
use serde_json::{Map, Value};

/// The tools `kg.ask` routes to.
pub const TOOLS: &[&str] = &["kg.path", "kg.neighbors", "kg.central", "kg.communities", "kg.concepts", "feed.search"];

/// Options offered when a question is asked back.
pub const ASK_BACK_OPTIONS: &[&str] = &["kg.path", "kg.neighbors", "kg.central", "kg.communities", "feed.search"];

/// Phrases that claim a question for a tool, in priority order.
pub const RULES: &[Rule] = &[
    Rule {
        tool: "kg.central",
        phrases: &[
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
    },
    Rule {
        tool: "feed.search",
        phrases: &[
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
    },
    Rule {
        tool: "kg.path",
        phrases: &[
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
    },
    Rule {
        tool: "kg.neighbors",
        phrases: &[
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
    },
    Rule {
        tool: "kg.communities",
        phrases: &[
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
    },
    Rule {
        tool: "kg.concepts",
        phrases: &[
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
    },
];

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

/// Clean an extracted concept: trim, drop quotes, leading articles and the trailing
/// words that only say where to look.
fn clean(s: &str) -> String {
    let mut s = s.trim().trim_matches(|c| matches!(c, '"' | '\'' | '`')).to_string();
    loop {
        let t = TAIL.replace(&s, "").trim().to_string();
        if t == s {
            break;
        }
        s = t;
    }
    for lead in ["the ", "a ", "an ", "my ", "concept ", "topic "] {
        if s.len() > lead.len() && s[..lead.len()].eq_ignore_ascii_case(lead) {
            s = s[lead.len()..].trim().to_string();
        }
    }
    s.trim_matches(|c| matches!(c, '"' | '\'' | '`')).trim().to_string()
}

fn args(pairs: &[(&str, &str)]) -> Map<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), Value::String(v.to_string()))).collect()
}

/// The text with the extracted arguments taken out, so a concept's own words never
/// make another surface claim the question.
fn frame(text: &str, args: &Map<String, Value>) -> String {
    let mut t = text.to_string();
    for v in args.values().filter_map(Value::as_str) {
        t = t.replacen(v, " ", 1);
    }
    t
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

/// Route a `kg.ask` question.
pub fn route(question: &str) -> Decision {
    let q = Question::new(question);
    if let Some(p) = q.any(CITATION_PHRASES) {
        return Decision::ask_back(
            format!(
                "'{p}' is a citation question: call cite.lookup with the citation key, DOI or arXiv id, or cite.search with a few words of the title."
            ),
            &["cite.lookup", "cite.search"],
        );
    }
    if q.is_empty() {
        return Decision::ask_back(
            "What would you like to know about the concepts you have read: how two connect, what sits next to one, the central ones, or your research areas?",
            ASK_BACK_OPTIONS,
        );
    }
    let text = q.raw.clone();
    let decision = decide(&q, &text);
    match decision {
        Some(d) => {
            // A kg decision still yields to another surface's marker outside the
            // extracted concepts ("which arm of my sweep links ...").
            if let Some(mut other) = elsewhere(&Question::new(&frame(&text, &d.args)), "kg")
                && !other.options.iter().any(|o| o == "feed.search")
                && other.options[0] != "feed.search"
            {
                other.options.push(d.tool.clone().unwrap_or_default());
                return other;
            }
            d
        }
        None => match elsewhere(&q, "kg") {
            Some(mut d) => {
                d.options.push("kg.neighbors".into());
                d
            }
            None => Decision::ask_back(
                "I can't tell what you want from the concept graph: connect two concepts (kg.path), show what sits next to one (kg.neighbors), the central concepts (kg.central), your research areas (kg.communities), or search what you read (feed.search)?",
                ASK_BACK_OPTIONS,
            ),
        },
    }
}

fn decide(q: &Question, text: &str) -> Option<Decision> {
    // 1. Searches of what was read: this surface's own, checked first.
    if let Some(c) = SEARCH.captures(text) {
        let query = clean(&c["q"]);
        let how_much = ["most", "the most", "most often", "more", "less", "a lot"];
        if !query.is_empty() && !how_much.contains(&query.to_lowercase().as_str()) {
            return Some(Decision::to("feed.search", args(&[("query", &query)]), "a search of what you read"));
        }
    }
    // 2. Two concepts to connect.
    let body = clean(text);
    for p in PATHS.iter() {
        if let Some(c) = p.captures(&body) {
            let (a, b) = (clean(&c["a"]), clean(&c["b"]));
            if !a.is_empty() && !b.is_empty() {
                return Some(Decision::to(
                    "kg.path",
                    args(&[("source", &a), ("target", &b)]),
                    "two concepts to connect",
                ));
            }
        }
    }
    // 3. One concept's neighbourhood ("what is related to X", "what is connected to X").
    if let Some(c) = NEIGHBOR.captures(&body) {
        let a = clean(&c["a"]);
        if !a.is_empty() && a.split_whitespace().count() <= 6 {
            return Some(Decision::to("kg.neighbors", args(&[("source", &a)]), "the neighbours of one concept"));
        }
    }
    let (rule, phrase) = first_match(RULES, q)?;
    let why = format!("matched \"{phrase}\"");
    Some(match rule.tool {
        "feed.search" => Decision::ask_back(
            "Search what you read for what? Name a topic, e.g. \"what did I read about retrieval\".",
            &["feed.search", "kg.concepts"],
        ),
        "kg.path" => Decision::ask_back(
            "Which two concepts should I connect? Pass source and target.",
            &["kg.path", "kg.neighbors"],
        ),
        "kg.neighbors" => Decision::ask_back("Next to which concept? Pass source.", &["kg.neighbors", "kg.concepts"]),
        "kg.central" => {
            let metric = if q.any(&["most read", "read most", "read the most", "read about most"]).is_some() {
                "most_read"
            } else if q.any(&["betweenness", "bridging", "bridge concepts", "bridge", "bridges"]).is_some() {
                "betweenness"
            } else {
                "degree"
            };
            Decision::to("kg.central", args(&[("metric", metric)]), why)
        }
        "kg.concepts" => {
            let a = CONCEPT_PREFIX.captures(&body).map(|c| clean(&c["p"])).filter(|p| !p.is_empty());
            let a = match &a {
                Some(p) => args(&[("prefix", p)]),
                None => Map::new(),
            };
            Decision::to("kg.concepts", a, why)
        }
        tool => Decision::to(tool, Map::new(), why),
    })
}
