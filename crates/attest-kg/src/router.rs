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
use attest_core::score::{Cue, Scoring, Write, cue};
use regex::Regex;
use serde_json::Value;

use crate::extract;
use extract::Kind;

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
/// 1. The reference library: an export of it as BibTeX to `cite.export`, a refresh or
///    import from the `.bib` files and Zotero to `cite.sync`, a work to keep to
///    `cite.save` (a stated item id or reference, else asked back), what the library
///    holds on a work or concept to `cite.related`.
/// 2. A citation question goes to the surface's cite tools: a stated key, DOI or arXiv
///    id to `cite.lookup`, a draft's keys to `cite.check`, the bibliographies to
///    `cite.sources`, words about references to `cite.search`; any other is asked back
///    naming them.
/// 3. A search of what was read, two concepts to connect, one concept's neighbourhood:
///    decided by what the extraction patterns capture ([`Facts`]).
/// 4. The phrase table, with each tool's arguments (kg.central's metric, kg.concepts'
///    prefix), and a question back for feed.search, kg.path and kg.neighbors when the
///    question names no topic or concept to give them.
pub static RULES: &[Rule<Facts>] = &[
    Rule::new("cite.export", EXPORT_PHRASES).when(about_library).args(export_what).because("the library as BibTeX"),
    Rule::new("cite.sync", SYNC_PHRASES)
        .when(asks_to_write)
        .args(sync_how)
        .because("the library refreshed from its sources"),
    Rule::new("cite.save", SAVE_PHRASES).when(asks_to_write).args(save_what).because("a work to keep in the library"),
    Rule::new("cite.related", LIBRARY_PHRASES)
        .when(asks_relation)
        .args(related_to)
        .because("what the library holds on it"),
    Rule::new("cite.lookup", LOOKUP_PHRASES).when(states_key).args(lookup_key).because("a reference to look up"),
    Rule::new("cite.check", CHECK_PHRASES).args(draft_path).because("the citation keys of a draft"),
    Rule::new("cite.sources", SOURCES_PHRASES).because("where references come from"),
    Rule::new("cite.search", SEARCH_REF_PHRASES).args(reference_words),
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
            "act as bridges",
            "bridges between",
            "most connected",
            "rated most",
            "opened most",
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
            "surrounds",
            "surrounding",
            "closest to",
            "closest concepts to",
            "show up with",
            "shows up with",
            "appear with",
            "appears with",
            "read together with",
            "read alongside",
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
    )
    .args(area_sizes),
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
    // Arguments only: a route to cite.related or cite.export decided by the model or
    // the cues takes its arguments from here (their rules above need a relation
    // phrase, a library word).
    Rule::new("cite.related", LIBRARY_WORDS).when(decided_elsewhere).args(related_to),
    Rule::new("cite.export", EXPORT_PHRASES).when(decided_elsewhere).args(export_what),
];

/// Never true when the rules are read in order (a phrase rule always has its phrase);
/// true when a route decided by the model or the cues asks the rule for arguments.
fn decided_elsewhere(a: &Asked<'_, Facts>) -> bool {
    a.phrase.is_none()
}

/// The knowledge surface's router.
pub static ROUTER: Router<Facts> = Router {
    surface: "knowledge",
    rules: RULES,
    empty: EMPTY,
    unclear: UNCLEAR,
    options: OPTIONS,
    decline_note: " If you meant the concepts you have read, say which: how two connect, what sits next to one, or your research areas.",
    scoring: SCORING,
    learned: attest_core::ask::Learned::new(include_str!("route-model.tsv"), attest_core::learn::Policy::CHOSEN),
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
        r"(?i)[\s,]*(?:in|from|across|within|among)\s+(?:what\s+i(?:'ve|\s+have)?\s+(?:been\s+)?read(?:ing)?|my\s+(?:reading|archive|papers|feed|library|graph|concept\s+graph)|the\s+(?:graph|archive|concept\s+graph))\s*$|[\s,]*(?:lately|recently|so\s+far|at\s+all)\s*$|[\s,;:-]+(?:hop\s+by\s+hop|step\s+by\s+step|please|pls|thanks|(?:top|first|best)\s+\d+|\d+\s+of\s+them|any\s+size)\s*$|[\s,]+since\s+\d{4}-\d\d-\d\d\s*$|[\s?.!,;:]+$",
    )
});

static SEARCH: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:search\s+(?:what\s+i(?:'ve|\s+have)?\s+(?:read|saved)|my\s+(?:reading|archive|papers|feed))\s+for|(?:is\s+there\s+)?anything\s+(?:in\s+(?:the|my)\s+(?:archive|reading|feed)\s+)?(?:about|on|regarding)|(?:items|papers|articles)\s+(?:did\s+i|i(?:'ve|\s+have)?)\s+read\s+(?:about|on|regarding)|(?:find|show|list|get)\s+(?:me\s+)?(?:the\s+)?(?:papers|articles|items|posts)\s+(?:about|on|regarding)|(?:did|have)\s+i\s+(?:ever\s+)?read\s+(?:anything\s+)?(?:about|on|regarding)|i(?:'ve|\s+have)?\s+read\s+about|what\s+(?:did|have)\s+i\s+read\s+(?:about|on|regarding)|(?:papers|articles|items)\s+(?:about|on|regarding)|search\s+(?:my\s+archive\s+)?for)\s+(?P<q>.+)$",
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
        r"(?i)^(?P<a>.+?)\s+(?:and|to|&|vs\.?)\s+(?P<b>.+?)[\s,;:-]+how\s+(?:do|does|are|is|might|can)\s+(?:they|these|the\s+two|both)\b.*$",
        r"(?i)^how\s+(?:are|is|were)\s+(?P<a>.+?)\s+(?:and|&)\s+(?P<b>.+?)\s+(?:\w+ed|related|tied|intertwined)$",
    ]
    .iter()
    .map(|p| re(p))
    .collect()
});

static NEIGHBOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:related\s+to|neighbou?rs?\s+of|next\s+to|adjacent\s+to|near|close\s+to|closest(?:\s+concepts)?\s+to|associated\s+with|co-?occurs?\s+with|goes\s+with|go\s+with|alongside|around|surrounds|surrounding|connected\s+to|connects\s+to|linked\s+to|links\s+to|(?:shows?|turns?)\s+up\s+with|appears?\s+with|(?:read|see|find)\s+(?:together\s+)?with|together\s+with)\s+(?P<a>.+)$",
    )
});

/// A reference named in a question: a DOI (bare or in a doi.org address), an arXiv id,
/// or a citation key of the usual author-year-word shape.
static REF_KEY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?P<doi>10\.\d{4,9}/[^\s\x22'<>]+)|\b(?:arxiv:?\s*)?(?P<arxiv>\d{4}\.\d{4,5}(?:v\d+)?)\b|\b(?P<key>[a-z][a-z-]*\d{4}[a-z0-9_-]*)\b",
    )
});

/// A reference written as an address ("https://doi.org/10.…", "arxiv.org/abs/…"), or
/// an arXiv id of the old form ("hep-th/9711200"): the key as written.
static REF_WRITTEN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:https?://)?(?:dx\.)?(?:doi\.org/10\.\d{4,9}/[^\s\x22'<>]+|arxiv\.org/(?:abs|pdf)/[^\s\x22'<>]+)|\b(?:hep-(?:th|ph|ex|lat)|astro-ph|cond-mat|gr-qc|quant-ph|math|nucl-th|physics)(?:\.[A-Z]{2})?/\d{7}\b",
    )
});

/// What a search of the references is about: the words after about/on/by/with/titled.
static REF_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^.*\b(?:about|on|by|with|titled|mentioning|regarding)\s+(?P<w>.+?)(?:\s+(?:in|from)\s+(?:my|the)\s+(?:library|bibliography|bib|references|refs|title))?[\s?.!]*$",
    )
});

static CONCEPT_PREFIX: LazyLock<[Regex; 2]> = LazyLock::new(|| {
    [
        re(
            r#"(?i)\b(?:starting\s+with|beginning\s+with|that\s+starts?\s+with|start\s+with|begin\s+with|prefix)\s+["']?(?P<p>[\w.+#-]+)"#,
        ),
        re(r#"(?i)\b(?:spelled|spell|named|called|like)\s+["']?(?P<p>[\w.+#-]+)"#),
    ]
});

/// Words that say two concepts are to be connected.
const PATH_CUES: &[&str] = &[
    "connect",
    "connects",
    "connected",
    "connection",
    "link",
    "linked",
    "links",
    "linking",
    "relate",
    "relates",
    "related",
    "relationship",
    "path",
    "chain",
    "route",
    "between",
    "bridge",
    "bridges",
    "hop",
    "hops",
    "lead",
    "leads",
    "ties",
    "tie",
    "gets to",
    "get from",
    "meet",
    "from",
];

/// Words that ask for one concept's neighbourhood.
const NEIGHBOR_CUES: &[&str] = &[
    "near",
    "nearest",
    "nearby",
    "neighbour",
    "neighbours",
    "neighbor",
    "neighbors",
    "adjacent",
    "closest",
    "around",
    "alongside",
    "together",
    "co occur",
    "co occurs",
    "cooccur",
    "related",
    "linked",
    "surrounding",
    "orbits",
];

/// Words that stand for a concept already named, never a concept themselves.
const PRONOUNS: &[&str] = &["it", "this", "that", "them", "these", "those", "anything", "anything else"];

/// An arrow between two concepts: "CRISPR screens -> synthetic lethality".
static ARROW: LazyLock<Regex> = LazyLock::new(|| re(r"->|→|=>|⟶"));

/// Two concepts by the structure of the question, when [`PATHS`] finds none.
static MORE_PATHS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)^(?:.*?[:]\s*)?(?:(?:connect|link|path|chain|route)\s*:?\s+)?(?P<a>[^:]+?)\s*(?:->|→|=>|⟶)\s*(?P<b>.+)$",
        r"(?i)\b(?:between|btw|b/w)\s+(?P<a>.+?)\s+(?:and|&)\s+(?P<b>.+)$",
        r"(?i)\b(?:leads?|goes|go|get|gets|travel|bridge)\s+from\s+(?P<a>.+?)\s+(?:to|into)\s+(?P<b>.+)$",
        r"(?i)\bfrom\s+(?P<a>.+?)\s+(?:to|into)\s+(?P<b>.+)$",
        r"(?i)\bhow\s+(?P<a>.+?)\s+(?:ties?\s+(?:in)?to|gets?\s+to|leads?\s+to|feeds?\s+into|connects?\s+(?:to|with)|relates?\s+to|links?\s+(?:to|with))\s+(?P<b>.+)$",
        r"(?i)\b(?:whether|if|that|how\s+(?:r|are|is))\s+(?P<a>.+?)\s+(?:and|&)\s+(?P<b>.+?)\s+(?:are|r|were|is)?\s*(?:linked|connected|related|tied|meet)\b",
    ]
    .iter()
    .map(|p| re(p))
    .collect()
});

/// One concept by the structure of the question, when [`NEIGHBOR`] finds none.
static MORE_NEIGHBOR: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"(?i)\b(?:nearest|closest|related|adjacent|nearby|neighbou?ring)\s+(?:concepts?|topics?|ideas?|terms?)\s+(?:to|for|of|around)\s+(?P<a>.+)$",
        r"(?i)\b(?:co-?occurs?|co-?occurring|appears?|shows?\s+up)\s+(?:w/|with)\s+(?P<a>.+)$",
        r"(?i)\b(?:nbrs|neighbou?rs|neighbou?rhood)\s+(?:of|for|around)\s+(?P<a>.+)$",
        r"(?i)\b(?:what|which)\s+(?:topics?|concepts?)\s+neighbou?rs?\s+(?P<a>.+)$",
        r"(?i)^around\s+(?P<a>[^,;?]+)",
    ]
    .iter()
    .map(|p| re(p))
    .collect()
});

/// Where a concept named in a sentence ends: a clause boundary, or the words that say
/// where to look or what to show ("in my reading", "according to …", "with the papers").
static CONCEPT_END: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)[,;:?!]|\.\s|\.$|\s[-–—]\s|\s(?:in|from|within|across|among)\s+(?:my|the|their|our|his|her|what|all)\b|\s(?:according\s+to|with\s+the|with\s+its|with\s+their|what\s+else|through\s+what|for\s+each|so\s+far|and\s+what|and\s+through|is\s+there|are\s+there|pls|please)\b",
    )
});

/// A concept as named in a sentence: cut at [`CONCEPT_END`], then [`clean`]ed.
fn concept(s: &str) -> String {
    let s = s.trim();
    let cut = CONCEPT_END.find(s).map_or(s.len(), |m| m.start());
    clean(&s[..cut])
}

/// The spans in quotes (straight, curly or backticks), in order: an opening quote at
/// the start of a word, a closing one at the end of a word.
fn quoted(text: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let opens = is_quote(c) && (i == 0 || !chars[i - 1].1.is_alphanumeric());
        if !opens {
            i += 1;
            continue;
        }
        let closes = |d: char| match c {
            '\u{201c}' => d == '\u{201d}' || d == '"',
            '\u{2018}' | '\'' => d == '\u{2019}' || d == '\'',
            other => d == other,
        };
        let close = (i + 1..chars.len())
            .find(|&j| closes(chars[j].1) && chars.get(j + 1).is_none_or(|(_, n)| !n.is_alphanumeric()));
        match close {
            Some(j) if j > i + 1 => {
                let inner = text[at + c.len_utf8()..chars[j].0].trim();
                if !inner.is_empty() && inner.chars().count() <= 60 && !inner.contains('\n') {
                    out.push(inner.to_string());
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

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

/// Phrases of keeping a work in the reference library (`cite.save`).
pub const SAVE_PHRASES: &[&str] = &[
    "save",
    "add to my library",
    "add it to my library",
    "add this to my library",
    "add that to my library",
    "put it in my library",
    "put this in my library",
    "keep this paper",
    "keep that paper",
    "bookmark",
];

/// Phrases of writing the library out (`cite.export`), with a word naming the library
/// or BibTeX (`about_library`).
pub const EXPORT_PHRASES: &[&str] = &["export", "as bibtex", "to bibtex", "into bibtex", "a bibtex file", "a bib file"];

/// Phrases of refreshing the library from the `.bib` files and Zotero (`cite.sync`).
pub const SYNC_PHRASES: &[&str] = &[
    "sync",
    "resync",
    "synchronise",
    "synchronize",
    "refresh my library",
    "update my library",
    "import my bib",
    "import my bibtex",
    "import my bib files",
    "import my references",
    "import my zotero",
    "import from zotero",
    "import from my bib",
    "pull in my zotero",
];

/// Phrases naming the reference library itself.
pub const LIBRARY_PHRASES: &[&str] = &[
    "my library",
    "my reference library",
    "the library",
    "my saved papers",
    "my saved references",
    "saved papers",
    "my references",
    "my bibliography",
];

/// Words of a relation asked about (with [`LIBRARY_PHRASES`], `cite.related`).
const RELATION_PHRASES: &[&str] =
    &["relate", "relates", "related", "relevant to", "similar to", "to do with", "connected to", "connects to"];

/// Phrases that, with a key, DOI or arXiv id stated, ask for that reference.
pub const LOOKUP_PHRASES: &[&str] = &[
    "look up",
    "lookup",
    "bibtex",
    "bib entry",
    "bib record",
    "record for",
    "reference for",
    "citation for",
    "cite",
    "doi",
    "which reference",
    "what reference",
    "which paper is",
    "what paper is",
    "reference is",
    "fetch",
    "details of",
    "details for",
];

/// Phrases of a check of a draft's citation keys (shared with the provenance router).
pub const CHECK_PHRASES: &[&str] = attest_core::route::CITE_CHECK_PHRASES;

/// Phrases about the bibliographies themselves.
pub const SOURCES_PHRASES: &[&str] = &[
    "citation sources",
    "reference sources",
    "bib files",
    "bibliography files",
    "my bibliographies",
    "zotero",
    "where do references come from",
    "where references come from",
];

/// Phrases of a search of the references.
pub const SEARCH_REF_PHRASES: &[&str] = &[
    "bib entries",
    "bibliography entries",
    "entries in my bibliography",
    "in my bibliography",
    "in my library",
    "my references",
    "references about",
    "references on",
    "references by",
    "references with",
    "refs about",
    "refs on",
    "refs by",
    "refs with",
    "papers by",
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
    /// A reference it names: a DOI, an arXiv id or a citation key (`vaswani2017attention`).
    pub key: Option<String>,
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
        // Concepts in quotes are the concepts, whatever the sentence around them.
        let quotes = quoted(&q.raw);
        let path_cue = q.any(PATH_CUES).is_some() || ARROW.is_match(&q.raw);
        let pair = match quotes.as_slice() {
            [a, b] if path_cue => Some((a.clone(), b.clone())),
            _ => None,
        }
        .or_else(|| {
            PATHS.iter().chain(MORE_PATHS.iter()).find_map(|p| {
                let c = p.captures(&body)?;
                let (a, b) = (concept(&c["a"]), concept(&c["b"]));
                // The frame a pattern leaves at a side's edges goes ("shortest path X").
                let (a, b) = (
                    extract::tidy(&a, Kind::Path).unwrap_or_default(),
                    extract::tidy(&b, Kind::Path).unwrap_or_default(),
                );
                (!a.is_empty()
                    && !b.is_empty()
                    && a.split_whitespace().count() <= 6
                    && b.split_whitespace().count() <= 6)
                    .then_some((a, b))
            })
        });
        let one = NEIGHBOR
            .captures(&body)
            .or_else(|| MORE_NEIGHBOR.iter().find_map(|r| r.captures(&body)))
            .map(|c| concept(&c["a"]))
            .map(|a| extract::tidy(&a, Kind::Neighbors).unwrap_or_default())
            .filter(|a| {
                !a.is_empty() && a.split_whitespace().count() <= 6 && !PRONOUNS.contains(&a.to_lowercase().as_str())
            })
            .map(|a| match quotes.as_slice() {
                [only] => only.clone(),
                _ => a,
            })
            .or_else(|| match quotes.as_slice() {
                [only] if q.any(NEIGHBOR_CUES).is_some() => Some(only.clone()),
                _ => None,
            });
        let prefix =
            CONCEPT_PREFIX.iter().find_map(|r| r.captures(&body)).map(|c| clean(&c["p"])).filter(|p| !p.is_empty());
        let citation = [
            CITATION_PHRASES,
            CHECK_PHRASES,
            SOURCES_PHRASES,
            SEARCH_REF_PHRASES,
            SAVE_PHRASES,
            SYNC_PHRASES,
            LIBRARY_PHRASES,
        ]
        .into_iter()
        .find_map(|p| q.any(p))
        .or_else(|| q.any(LOOKUP_PHRASES).filter(|_| REF_KEY.is_match(&q.raw)))
        .or_else(|| q.any(EXPORT_PHRASES).filter(|_| q.any(LIBRARY_WORDS).is_some()));
        let key = REF_WRITTEN
            .captures(&q.raw)
            .map(|c| c[0].to_string())
            .or_else(|| {
                REF_KEY.captures(&q.raw).and_then(|c| {
                    let k = c.name("doi").or(c.name("arxiv")).or(c.name("key"))?.as_str();
                    Some(k.to_string())
                })
            })
            .map(|k| k.trim_end_matches(['.', ',', ';', ':', '?', '!', ')']).to_string());
        Facts { q, body, citation, key, search, pair, one, prefix }
    }

    fn words(&self) -> &Question {
        &self.q
    }

    /// A citation question is asked back naming the cite tools whatever else it says;
    /// a concept question whose concepts were cut from it, or a search whose topic was,
    /// stays ("what do I tend to read together with X" is not a reading list, "search
    /// my feed archive for X" not a listing of the feed).
    fn keeps(&self, own: Option<&Decision>) -> bool {
        let concepts = own.is_some_and(|d| {
            matches!(d.tool.as_deref(), Some("kg.neighbors" | "kg.path" | "feed.search"))
                && ["concept", "source", "query"]
                    .iter()
                    .any(|k| d.args.get(*k).and_then(Value::as_str).is_some_and(|v| !v.is_empty()))
        });
        self.citation.is_some() || concepts
    }
}

/// Words that say an export is of the references, not of something else.
const LIBRARY_WORDS: &[&str] =
    &["library", "bibtex", "bib", "references", "bibliography", "refs", "citations", "saved papers"];

fn about_library(a: &Asked<'_, Facts>) -> bool {
    a.q.any(LIBRARY_WORDS).is_some()
}

/// "tagged X", "on X" at the end of an export: the concept to export.
static EXPORT_TAG: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:tagged(?:\s+with)?|about|on)\s+(?P<t>[^?.!]+?)(?:\s+(?:as|to|into)\s+(?:a\s+)?bib(?:tex)?(?:\s+file)?)?[\s?.!]*$",
    )
});

fn export_what(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    // The references it names are the entries to export.
    let keys = stated_refs(&a.q.raw);
    if !keys.is_empty() {
        return Ok([("keys".to_string(), Value::from(keys))].into_iter().collect());
    }
    let tag = extract::options(&a.q.raw, false)
        .1
        .tag
        .or_else(|| EXPORT_TAG.captures(&a.q.raw).and_then(|c| extract::one(&c["t"], Kind::References)))
        .filter(|t| {
            !t.is_empty()
                && !LIBRARY_WORDS.iter().any(|w| t.to_lowercase().ends_with(w))
                && t.split_whitespace().count() <= 5
        });
    Ok(tag.map_or_else(Args::new, |t| args(&[("tag", &t)])))
}

/// Every reference a text names (addresses, DOIs, arXiv ids, citation keys), as
/// written, in order, without repeats.
fn stated_refs(text: &str) -> Vec<String> {
    let mut spans: Vec<(usize, usize)> = REF_WRITTEN.find_iter(text).map(|m| (m.start(), m.end())).collect();
    for c in REF_KEY.captures_iter(text) {
        if let Some(m) = c.name("doi").or(c.name("arxiv")).or(c.name("key"))
            && !spans.iter().any(|(s, e)| m.start() < *e && m.end() > *s)
        {
            spans.push((m.start(), m.end()));
        }
    }
    spans.sort_unstable();
    let mut out: Vec<String> = Vec::new();
    for (s, e) in spans {
        let k = text[s..e].trim_end_matches(['.', ',', ';', ':', '?', '!', ')']).to_string();
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// "it cites X and Y", "note that it cites X": the references a saved work cites.
static CITES: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:cites|citing|which\s+cites|that\s+cites)\b"));

/// "tag it X", "tagged 'X' and 'Y'", "with the tag X", "tag it A and tag it B": the
/// tags a saved work gets.
static SAVE_TAGS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:tag(?:ged)?(?:\s+it)?(?:\s+(?:with|as))?|with\s+the\s+tags?|under\s+the\s+tags?)\s+(?P<t>.+)$")
});

fn save_tags(raw: &str) -> Vec<String> {
    let Some(c) = SAVE_TAGS.captures(raw) else { return Vec::new() };
    let tail = &c["t"];
    // Quoted tags are the tags; else the words up to a clause's end, split on "and
    // (tag it)".
    let quoted_tags = quoted(tail);
    let tags: Vec<String> = if quoted_tags.is_empty() {
        let first = CONCEPT_END.find(tail).map_or(tail, |m| &tail[..m.start()]);
        static AND_TAG: LazyLock<Regex> =
            LazyLock::new(|| re(r"(?i)\s+and\s+(?:tag(?:ged)?\s+(?:it\s+)?(?:with\s+)?|also\s+)?"));
        AND_TAG
            .split(first)
            .map(|t| {
                let t = t.trim().trim_end_matches(|c: char| !c.is_alphanumeric());
                let t = t.strip_suffix(" as well").or_else(|| t.strip_suffix(" too")).unwrap_or(t);
                t.trim().to_string()
            })
            .filter(|t| {
                !t.is_empty() && t.split_whitespace().count() <= 4 && !PRONOUNS.contains(&t.to_lowercase().as_str())
            })
            .collect()
    } else {
        quoted_tags
    };
    tags
}

fn sync_how(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let import = a.q.any(&["import", "add all", "add every", "add everything", "pull in"]).is_some();
    Ok(if import { [("import".to_string(), Value::Bool(true))].into_iter().collect() } else { Args::new() })
}

/// "item 42", "item #42", "item:42", "item id 42": a feed item named in a question.
static ITEM: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bitem\s*(?:id\s*)?[#:]?\s*(?P<n>\d{1,12})\b"));

fn save_what(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    if let Some(m) = BIBTEX.find(&a.q.raw) {
        let entry = bibtex_entry(&a.q.raw[m.start()..]);
        return Ok(args(&[("bibtex", entry)]));
    }
    // What it cites is said after "cites"; the work to save before.
    let (work, cited) = match CITES.find(&a.q.raw) {
        Some(m) => (&a.q.raw[..m.start()], stated_refs(&a.q.raw[m.end()..])),
        None => (a.q.raw.as_str(), Vec::new()),
    };
    let mut out = Args::new();
    if let Some(n) = ITEM.captures(work).and_then(|c| c["n"].parse::<i64>().ok()) {
        out.insert("item_id".to_string(), Value::from(n));
    } else if let Some(k) = stated_refs(work).into_iter().next() {
        out.insert("key".to_string(), Value::String(k));
    }
    if !out.is_empty() {
        let tags = save_tags(work);
        if !tags.is_empty() {
            out.insert("tags".to_string(), Value::from(tags));
        }
        if !cited.is_empty() {
            out.insert("cites".to_string(), Value::from(cited));
        }
        return Ok(out);
    }
    Err(Decision::ask_back(
        "Which work should I save to your library? Pass item_id (a feed item), key (a citation key, DOI or arXiv id), paper (a result of feed.research) or bibtex.",
        &["cite.save", "feed.search"],
    ))
}

/// A BibTeX entry from its `@` to its balanced closing brace (or the end of the text).
fn bibtex_entry(text: &str) -> &str {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[..i + c.len_utf8()];
                }
            }
            _ => {}
        }
    }
    text.trim_end()
}

/// The write guard for the rules that write, as for the model and the scored cues: a
/// phrase of the write ("sync", "save") claims the question only when one of the
/// tool's imperative verbs opens it or one of its clauses ("after the last sync,
/// which files failed?" names a sync without asking for one).
fn asks_to_write(a: &Asked<'_, Facts>) -> bool {
    attest_core::score::writes_allowed(a.q, a.tool, &SCORING)
}

fn asks_relation(a: &Asked<'_, Facts>) -> bool {
    a.q.any(RELATION_PHRASES).is_some()
}

/// What `cite.related` relates to: the words after "relates to", "similar to", ….
static RELATED_TO: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:relates?|related|relevant|similar|connected|connects|to\s+do)\s+(?:to|with)\s+(?P<x>.+)$")
});

fn related_to(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let (rest, o) = extract::options(&a.q.raw, false);
    if let Some(n) = ITEM.captures(&a.q.raw).and_then(|c| c["n"].parse::<i64>().ok()) {
        let mut out: Args = [("item_id".to_string(), Value::from(n))].into_iter().collect();
        out.extend(o.limit.map(|n| ("limit".to_string(), Value::from(n))));
        return Ok(out);
    }
    let x = a
        .facts
        .key
        .clone()
        .or_else(|| RELATED_TO.captures(&rest).and_then(|c| extract::one(&c["x"], Kind::Related)))
        .or_else(|| extract::one(&rest, Kind::Related));
    match x {
        Some(x) => {
            let mut out = args(&[("to", &x)]);
            out.extend(o.limit.map(|n| ("limit".to_string(), Value::from(n))));
            Ok(out)
        }
        None => Err(Decision::ask_back(
            "Related to what? Name a work (its key, DOI or arXiv id), a feed item or a concept.",
            &["cite.related", "cite.search"],
        )),
    }
}

fn states_key(a: &Asked<'_, Facts>) -> bool {
    a.facts.key.is_some()
}

fn lookup_key(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(args(&[("key", a.facts.key.as_deref().unwrap_or_default())]))
}

/// cite.search's words: what the references are about (or by), else ask back.
fn reference_words(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    if BIBTEX.is_match(&a.q.raw) {
        return Err(reference_back());
    }
    let (rest, o) = extract::options(&a.q.raw, false);
    let words = REF_WORDS
        .captures(&rest)
        .and_then(|c| extract::one(&c["w"], Kind::References))
        // What is left is a search's words only in a sentence that asks for a search
        // ("fix my references" leaves "fix", which is not what to search for).
        .or_else(|| a.q.any(SEARCHING).and_then(|_| extract::one(&rest, Kind::References)));
    if words.is_none() && o.author.is_none() && o.tag.is_none() && o.year.is_none() {
        return Err(reference_back());
    }
    // Words that are only a reference's key are a look-up, not a search: asked back
    // naming cite.lookup first.
    if let (Some(w), Some(k)) = (&words, &a.facts.key)
        && (w == k || k.ends_with(w.as_str()))
    {
        return Err(Decision::ask_back(
            format!("'{k}' is a reference: look it up with cite.lookup, or search the references by words."),
            &["cite.lookup", "cite.search"],
        ));
    }
    let mut out = Args::new();
    out.extend(words.map(|w| ("query".to_string(), Value::String(w))));
    out.extend(o.author.map(|w| ("author".to_string(), Value::String(w))));
    out.extend(o.tag.map(|w| ("tag".to_string(), Value::String(w))));
    out.extend(o.year.map(|w| ("year".to_string(), Value::String(w))));
    out.extend(o.limit.map(|n| ("limit".to_string(), Value::from(n))));
    Ok(out)
}

/// Words that ask for a search or a listing of the references.
const SEARCHING: &[&str] = &[
    "search",
    "find",
    "look",
    "looking",
    "any",
    "anything",
    "something",
    "everything",
    "which",
    "what",
    "entries",
    "entry",
    "items",
    "works",
    "papers",
    "list",
    "show",
    "have",
    "hits",
];

fn reference_back() -> Decision {
    Decision::ask_back(
        "Search the references for what? Give a few words of the title, an author or a year.",
        &["cite.search", "cite.lookup"],
    )
}

/// A BibTeX entry pasted in a question.
static BIBTEX: LazyLock<Regex> = LazyLock::new(|| re(r"@[A-Za-z]+\s*\{"));

/// Whether a sentence carries a cue of another kind of argument than `kind`, so what is
/// left of it is not `kind`'s argument: two concepts to connect, a concept's
/// neighbourhood, the reference library.
fn foreign(raw: &str, kind: Kind) -> bool {
    let q = Question::new(raw);
    let path = q.any(STRONG_PATH_CUES).is_some() || ARROW.is_match(raw);
    let near = q.any(STRONG_NEIGHBOR_CUES).is_some();
    let library = q.any(LIBRARY_WORDS).is_some() || q.any(&["citations", "cite", "zotero"]).is_some();
    match kind {
        Kind::Search => path || near || library,
        Kind::Neighbors => {
            path && extract::two(raw).is_some() || library || q.any(&["between"]).is_some() || FROM_TO.is_match(raw)
        }
        _ => false,
    }
}

/// "from X to Y": a way between two concepts.
static FROM_TO: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\bfrom\s+\S.*\s(?:to|into|towards)\s+\S"));

/// Words that ask for two concepts to be connected, whatever else the sentence says.
const STRONG_PATH_CUES: &[&str] = &[
    "connect",
    "connects",
    "connected",
    "connection",
    "link",
    "links",
    "linked",
    "linking",
    "relate",
    "relates",
    "related",
    "relationship",
    "path",
    "chain",
    "bridge",
    "bridges",
    "hops",
    "gets to",
    "get from",
    "tie",
    "ties",
    "tied",
    "lead to",
    "leads to",
];

/// Words that ask for one concept's neighbourhood, whatever else the sentence says.
const STRONG_NEIGHBOR_CUES: &[&str] = &[
    "neighbour",
    "neighbours",
    "neighbor",
    "neighbors",
    "nearby",
    "nearest",
    "adjacent",
    "closest",
    "co occur",
    "co occurs",
    "cooccur",
    "surrounding",
    "surrounds",
    "next to",
];

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
    search_args(&a.q.raw).ok_or_else(search_back)
}

/// feed.search's arguments: the options the question states, and the topic as the
/// search pattern captures it once the options are cut, else as what is left of the
/// sentence. `None` when it states neither a topic nor an author, tag or source.
fn search_args(raw: &str) -> Option<Args> {
    let (rest, o) = extract::options(raw, true);
    let query = match SEARCH.captures(&rest) {
        Some(c) => extract::one(&c["q"], Kind::Search),
        // What is left is a topic only when the sentence has no cue of the concept
        // graph's other tools or of the reference library.
        None if !foreign(raw, Kind::Search) => extract::one(&rest, Kind::Search),
        None => return None,
    };
    // A phrase in double quotes is searched as a phrase, quotes and all.
    let query = query.map(|q| if raw.contains(&format!("\"{q}\"")) { format!("\"{q}\"") } else { q });
    if query.is_none() && o.author.is_none() && o.tag.is_none() && o.source.is_none() {
        return None;
    }
    let mut out = Args::new();
    let mut put = |k: &str, v: Option<Value>| {
        if let Some(v) = v {
            out.insert(k.to_string(), v);
        }
    };
    put("query", query.map(Value::String));
    put("tag", o.tag.map(Value::String));
    put("author", o.author.map(Value::String));
    put("source", o.source.map(Value::String));
    put("kind", o.kind.map(Value::String));
    put("year", o.year.map(Value::String));
    put("since", o.since.map(Value::String));
    put("until", o.until.map(Value::String));
    put("page", o.page.map(Value::from));
    put("user", o.user.map(Value::String));
    put("limit", o.limit.map(Value::from));
    Some(out)
}

/// cite.check's draft, when the question names a file.
fn draft_path(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    Ok(DRAFT.captures(&a.q.raw).map_or_else(Args::new, |c| args(&[("path", &c["p"])])))
}

/// A draft's path: a word ending in a draft extension.
static DRAFT: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)(?P<p>[\w./~-]+\.(?:md|markdown|tex|qmd|rmd|ipynb))\b"));

/// "top 8", "5 of them", "limit 3": how many rows a question asks for.
static LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:top|first|best|limit(?:\s+to)?|show\s+me)\s+(?P<n>\d{1,3})\b|\b(?P<m>\d{1,3})\s+of\s+them\b")
});

/// The limit a question states, as an argument.
fn stated_limit(q: &str) -> Option<(String, Value)> {
    let c = LIMIT.captures(q)?;
    let n: i64 = c.name("n").or(c.name("m"))?.as_str().parse().ok()?;
    Some(("limit".into(), Value::from(n)))
}

fn pair(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let (s, t) = a.facts.pair.as_ref().map_or(("", ""), |(s, t)| (s.as_str(), t.as_str()));
    Ok(args(&[("source", s), ("target", t)]))
}

fn one(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut out = args(&[("concept", a.facts.one.as_deref().unwrap_or_default())]);
    let limit = extract::options(&a.q.raw, false).1.limit;
    out.extend(limit.map(|n| ("limit".to_string(), Value::from(n))).or_else(|| stated_limit(&a.q.raw)));
    Ok(out)
}

/// kg.central's measure: most read, betweenness for bridges, else degree.
fn central_metric(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let metric = if a
        .q
        .any(&["most read", "read most", "read the most", "read about most", "rated most", "opened most"])
        .is_some()
    {
        "most_read"
    } else if a.q.any(&["betweenness", "bridging", "bridge concepts", "bridge", "bridges"]).is_some() {
        "betweenness"
    } else {
        "degree"
    };
    let mut out = args(&[("metric", metric)]);
    out.extend(stated_limit(&a.q.raw));
    Ok(out)
}

/// kg.communities' limit, and `min_size=1` when any size is asked for.
fn area_sizes(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut out: Args = stated_limit(&a.q.raw).into_iter().collect();
    if a.q.any(&["any size", "all sizes", "even small", "including small", "smallest"]).is_some() {
        out.insert("min_size".into(), Value::from(1));
    }
    Ok(out)
}

/// kg.concepts' prefix, when the question states one.
fn concepts_prefix(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let mut out = a.facts.prefix.as_deref().map_or_else(Args::new, |p| args(&[("prefix", p)]));
    out.extend(stated_limit(&a.q.raw));
    Ok(out)
}

/// feed.search without a topic the search pattern captures: what is left of the
/// sentence, else asked back.
fn search_what(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    search_args(&a.q.raw).ok_or_else(search_back)
}

fn search_back() -> Decision {
    Decision::ask_back(
        "Search what you read for what? Name a topic, e.g. \"what did I read about retrieval\".",
        &["feed.search", "kg.concepts"],
    )
}

/// kg.path without a pair the patterns capture: the two concepts left once the cue
/// words are taken away, split on their connective, else asked back.
fn which_two(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    match extract::two(&a.q.raw) {
        Some((s, t)) => Ok(args(&[("source", &s), ("target", &t)])),
        None => Err(Decision::ask_back(
            "Which two concepts should I connect? Pass source and target.",
            &["kg.path", "kg.neighbors"],
        )),
    }
}

/// kg.neighbors without a concept the patterns capture: what is left of the sentence
/// once the options are cut, else asked back.
fn next_to_which(a: &Asked<'_, Facts>) -> Result<Args, Decision> {
    let (rest, o) = extract::options(&a.q.raw, false);
    let concept =
        Some(()).filter(|_| !foreign(&a.q.raw, Kind::Neighbors)).and_then(|_| extract::one(&rest, Kind::Neighbors));
    match concept {
        Some(c) => {
            let mut out = args(&[("concept", &c)]);
            out.extend(o.limit.map(|n| ("limit".to_string(), Value::from(n))));
            Ok(out)
        }
        None => Err(Decision::ask_back("Next to which concept? Pass concept.", &["kg.neighbors", "kg.concepts"])),
    }
}

/// The evidence that decides what no rule claims (`attest_core::score`): weighted
/// words and phrases per tool, normalised (lemmas, synonyms) before matching.
pub static SCORING: Scoring = Scoring { cues: CUES, writes: WRITES, min: 3, margin: 2 };

/// Tools that write, and the verbs that must open a question asking for them.
const WRITES: &[Write] = &[
    Write { tool: "cite.save", verbs: &["save", "add", "keep", "bookmark", "store", "put", "file"] },
    Write {
        tool: "cite.sync",
        verbs: &[
            "sync", "resync", "refresh", "import", "reimport", "update", "pull", "re", "reread", "reload", "rescan",
        ],
    },
];

/// The cues, by tool.
static CUES: &[Cue] = &[
    cue(
        "kg.path",
        3,
        &[
            "connect*",
            "link*",
            "path",
            "chain",
            "route from",
            "route in",
            "relationship between",
            "bridge from",
            "from * to",
            "get from",
            "hop*",
        ],
    ),
    cue("kg.path", 2, &["between", "relat*", "tie*"]),
    cue(
        "kg.neighbors",
        3,
        &[
            "neighbor",
            "next to",
            "near",
            "around",
            "co occur*",
            "together with",
            "beside",
            "alongside",
            "surround*",
            "come up with",
            "show up with",
        ],
    ),
    cue("kg.neighbors", 2, &["related to", "close*", "sit*"]),
    cue(
        "kg.central",
        3,
        &[
            "central",
            "hub*",
            "most important",
            "most read",
            "connector*",
            "bridg*",
            "key concept*",
            "degree",
            "betweenness",
            "most often",
            "spent most",
            "most of my",
        ],
    ),
    cue("kg.central", 2, &["important", "most", "top concept*"]),
    cue(
        "kg.communities",
        3,
        &["cluster*", "communit*", "research area*", "areas", "group*", "split", "break * down", "fall into"],
    ),
    cue("kg.communities", 2, &["topic", "field*", "distinct"]),
    cue(
        "kg.concepts",
        3,
        &[
            "start with",
            "starting with",
            "begin* with",
            "spell*",
            "vocabulary",
            "list * concept*",
            "concepts that",
            "what concepts",
        ],
    ),
    cue("kg.concepts", 2, &["concept*", "prefix"]),
    cue(
        "feed.search",
        3,
        &["search", "what did i read", "have i read", "what i read", "what i've read", "i read about"],
    ),
    cue("feed.search", 2, &["find", "mention*", "items", "articles"]),
    cue(
        "cite.lookup",
        3,
        &["look up", "lookup", "reference for", "full reference", "bib record", "bib entry", "bibtex for", "doi"],
    ),
    cue(
        "cite.search",
        3,
        &["references", "in my library", "my bibliography", "saved anything", "in the title", "by * in my"],
    ),
    cue("cite.check", 3, &["cite key*", "citation key*", "dangling", "resolve", "cite="]),
    cue(
        "cite.sources",
        3,
        &["bib files", "zotero", "citation sources", "citation data", "where * reference* come from"],
    ),
    cue("cite.save", 3, &["save", "keep", "bookmark"]),
    cue("cite.sync", 3, &["sync", "resync", "refresh * library", "import * bib*"]),
    cue("cite.export", 3, &["export"]),
    cue("cite.related", 3, &["similar to", "related to * library", "library * related"]),
];
