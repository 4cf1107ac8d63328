//! Building blocks for the `<ns>.ask` routers: the [`Decision`] a router makes, the
//! [`Question`] its rules match (whole words and phrases, never substrings:
//! "antiderivative" does not contain the word "derivative", and "kdsweep" does not
//! contain the word "sweep"), and [`ELSEWHERE`], the markers of each surface's
//! questions that every router declines by name. The pipeline that puts them together
//! is [`crate::ask`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::surface::Surface;

/// What a router decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// The tool to call, or `None` when the router asks back or declines.
    pub tool: Option<String>,
    /// Arguments extracted from the question.
    pub args: Map<String, Value>,
    /// Tools to choose between when declining.
    pub options: Vec<String>,
    /// When declining, the question back (or where to ask instead); when routing, the
    /// words that decided it.
    pub answer: String,
}

impl Decision {
    /// Route to a tool, saying which words decided it.
    pub fn to(tool: &str, args: Map<String, Value>, why: impl Into<String>) -> Self {
        Decision { tool: Some(tool.to_string()), args, options: Vec::new(), answer: why.into() }
    }

    /// Ask back: no tool, a clarifying question and at least two options.
    pub fn ask_back(question: impl Into<String>, options: &[&str]) -> Self {
        Decision {
            tool: None,
            args: Map::new(),
            options: options.iter().map(|s| s.to_string()).collect(),
            answer: question.into(),
        }
    }

    /// Decline a question that another surface owns, naming it.
    pub fn elsewhere(tool: &str) -> Self {
        let answer = match Surface::owner_of(tool) {
            Some(s) => format!(
                "That is a question for the {} surface ({}): ask it there, where {} answers it.",
                s.name, s.binary, tool
            ),
            None => format!("That is a question for {tool}, which this surface does not serve."),
        };
        Decision { tool: None, args: Map::new(), options: vec![tool.to_string()], answer }
    }

    /// Whether a tool was chosen.
    pub fn routed(&self) -> bool {
        self.tool.is_some()
    }
}

/// A word of a question, with its byte span in the original text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Lower-cased text.
    pub text: String,
    /// Byte offset of its start in the original question.
    pub start: usize,
    /// Byte offset just past its end.
    pub end: usize,
}

/// A question split into lower-cased words on anything that is not a letter, a digit
/// or an apostrophe inside a word ("what's" is one word; "re-read" is two).
#[derive(Debug, Clone)]
pub struct Question {
    /// The question as asked, trimmed.
    pub raw: String,
    /// Its words, in order.
    pub words: Vec<Word>,
}

impl Question {
    /// Split a question into words.
    pub fn new(text: &str) -> Self {
        let raw = text.trim().replace(['\u{2019}', '\u{2018}'], "'");
        let mut words = Vec::new();
        let mut start: Option<usize> = None;
        let bytes: Vec<(usize, char)> = raw.char_indices().collect();
        for (i, &(pos, c)) in bytes.iter().enumerate() {
            let inner_apostrophe =
                c == '\'' && start.is_some() && bytes.get(i + 1).is_some_and(|&(_, n)| n.is_alphanumeric());
            if c.is_alphanumeric() || inner_apostrophe {
                start.get_or_insert(pos);
            } else if let Some(s) = start.take() {
                words.push(Word { text: raw[s..pos].to_lowercase(), start: s, end: pos });
            }
        }
        if let Some(s) = start {
            words.push(Word { text: raw[s..].to_lowercase(), start: s, end: raw.len() });
        }
        Question { raw, words }
    }

    /// Whether the question has no words at all.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Where a phrase occurs, as a word index. A phrase is words separated by spaces;
    /// a word ending in `*` matches any word it begins (`communit*`).
    pub fn find(&self, phrase: &str) -> Option<usize> {
        let pat: Vec<&str> = phrase.split_whitespace().collect();
        if pat.is_empty() || pat.len() > self.words.len() {
            return None;
        }
        (0..=self.words.len() - pat.len()).find(|&i| {
            pat.iter().enumerate().all(|(j, p)| {
                let w = &self.words[i + j].text;
                match p.strip_suffix('*') {
                    Some(prefix) => w.starts_with(prefix),
                    None => w == p,
                }
            })
        })
    }

    /// Whether a phrase occurs on word boundaries.
    pub fn has(&self, phrase: &str) -> bool {
        self.find(phrase).is_some()
    }

    /// The first of several phrases that occurs.
    pub fn any<'p>(&self, phrases: &[&'p str]) -> Option<&'p str> {
        phrases.iter().copied().find(|p| self.has(p))
    }

    /// The original text after the end of the word at `index` (exclusive).
    pub fn rest_after(&self, index: usize) -> &str {
        self.words.get(index).map_or("", |w| &self.raw[w.end..])
    }

    /// Lower-cased words joined by single spaces.
    pub fn normalized(&self) -> String {
        self.words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
    }
}

/// Phrases that mark a question as another surface's, and the tool there that answers it.
#[derive(Debug, Clone, Copy)]
pub struct Marker {
    /// The tool that answers such questions.
    pub tool: &'static str,
    /// Phrases that mark them, matched on word boundaries.
    pub phrases: &'static [&'static str],
    /// Words one of which must occur too for a phrase to count (none: a phrase alone
    /// counts): "near" marks a concept-graph question only beside "concept" or "graph".
    pub with: &'static [&'static str],
}

/// Phrases that mark a question as belonging to a surface, so that any router can
/// decline it by name instead of guessing. One place, shared by every router.
pub const ELSEWHERE: &[Marker] = &[
    Marker {
        tool: "runs.claims_check",
        phrases: &[
            "my draft",
            "the draft",
            "this draft",
            "my manuscript",
            "the manuscript",
            "my paper right",
            "numbers in my",
            "claims in my",
            "contradict the ledger",
            "match the ledger",
            "against the ledger",
        ],
        with: &[],
    },
    Marker {
        tool: "runs.compare",
        phrases: &[
            "which arm",
            "my sweep",
            "the sweep",
            "best arm",
            "my ablation",
            "the ablation",
            "which run won",
            "came out on top",
            "won the sweep",
            "my * sweep",
            "the * sweep",
            "arms of",
            "arm of the",
            "of the * family",
            "in the * family",
        ],
        with: &[],
    },
    Marker {
        tool: "feed.persona_create",
        phrases: &["create a persona", "new persona", "persona called", "persona named", "create a reader"],
        with: &[],
    },
    Marker {
        tool: "feed.list",
        phrases: &[
            "should i read",
            "read today",
            "my feed",
            "reading list",
            "what's new",
            "whats new",
            "new papers",
            "papers today",
            "to read",
            "anything new for",
            "worth reading",
        ],
        with: &[],
    },
    Marker { tool: "feed.search", phrases: &["did i read about", "have i read about", "i read about"], with: &[] },
    Marker {
        tool: "kg.neighbors",
        phrases: &["near", "next to", "neighbours of", "neighbors of", "around", "co occur*", "closest to"],
        with: &["concept graph", "knowledge graph", "my graph", "concepts", "concept"],
    },
    Marker {
        tool: "kg.path",
        phrases: &[
            "connect to",
            "connects to",
            "connected to",
            "how does * relate",
            "concept graph",
            "knowledge graph",
        ],
        with: &[],
    },
    Marker { tool: "kg.communities", phrases: &["research areas", "main areas", "my topics"], with: &[] },
    Marker {
        tool: "sym.verify",
        phrases: &["derivation", "identity", "this equation", "this formula", "this integral", "this derivative"],
        with: &[],
    },
    Marker { tool: "sym.simplify", phrases: &["simplify", "factorise", "factorize"], with: &[] },
    Marker { tool: "sym.integrate", phrases: &["integrate", "integral of", "antiderivative of"], with: &[] },
    Marker { tool: "sym.differentiate", phrases: &["derivative of", "differentiate"], with: &[] },
    Marker { tool: "sym.solve", phrases: &["solve for"], with: &[] },
    Marker {
        tool: "cite.lookup",
        phrases: &[
            "look up the reference",
            "look up the citation",
            "the reference for",
            "bib entry for",
            "bib record for",
            "bibtex for",
            "bibtex entry",
            "citation for",
            "doi of",
            "doi for",
        ],
        with: &[],
    },
    Marker {
        tool: "cite.search",
        phrases: &["bib entries", "bibliography entries", "in my bibliography", "in my library"],
        with: &[],
    },
];

/// Phrases of a check of a draft's citation keys (`cite.check`), which both the
/// provenance and the knowledge surfaces serve: written once, read by both routers.
pub const CITE_CHECK_PHRASES: &[&str] = &[
    "cite keys",
    "cite key",
    "citation keys",
    "citations resolve",
    "citations in my",
    "unresolved cite*",
    "unresolved citations",
    "dangling cite*",
    "broken citations",
    "missing citations",
    "check citations",
    "check my citations",
    "check the citations",
    "every cite",
];

/// If the question carries another surface's marker, decline it naming that surface.
/// `surface` is this surface's name or namespace: markers of tools it serves itself
/// (the knowledge surface serves `feed.search`) are skipped.
pub fn elsewhere(q: &Question, surface: &str) -> Option<Decision> {
    let own = Surface::find(surface);
    ELSEWHERE
        .iter()
        .filter(|r| own.is_none_or(|s| !s.allows(r.tool)) && !r.tool.starts_with(&format!("{surface}.")))
        .find(|r| r.phrases.iter().any(|p| q.has(p)) && (r.with.is_empty() || r.with.iter().any(|w| q.has(w))))
        .map(|r| Decision::elsewhere(r.tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_boundaries() {
        let q = Question::new("Which arm of kdsweep_t4 won? What’s re-read");
        let w: Vec<&str> = q.words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(w, ["which", "arm", "of", "kdsweep", "t4", "won", "what's", "re", "read"]);
    }

    #[test]
    fn phrases_match_whole_words_only() {
        let q = Question::new("find the antiderivative of the kdsweep");
        assert!(!q.has("derivative"));
        assert!(!q.has("sweep"));
        assert!(q.has("antiderivative"));
        assert!(q.has("the kdsweep"));
        assert!(Question::new("my communities").has("communit*"));
    }

    #[test]
    fn elsewhere_names_the_owner() {
        let d = elsewhere(&Question::new("are the numbers in my draft right?"), "sym").unwrap();
        assert_eq!(d.tool, None);
        assert_eq!(d.options, ["runs.claims_check"]);
        assert!(d.answer.contains("provenance"));
        assert!(elsewhere(&Question::new("are the numbers in my draft right?"), "runs").is_none());
    }
}
