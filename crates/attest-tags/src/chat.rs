//! The optional chat-model tagger's pure half: the prompt it sends and the checks its
//! reply must pass. The HTTP call lives with the caller (`attest-feed`'s `tagging`),
//! and nothing here runs unless a chat endpoint is configured.
//!
//! A reply is trusted only as far as it can be checked: it must be JSON carrying a
//! `tags` list (a bare list is accepted, and so is JSON inside a code fence); each tag
//! is normalised and must look like a concept name (`^[a-z0-9][a-z0-9-]{0,31}$`);
//! tags that name a kind of post or a provenance rather than a topic ("preprint",
//! "news") are dropped; the rest are mapped onto the archive's vocabulary through
//! [`Canon`]. A reply with no usable tag is an error, so the item keeps its keyphrases.

use crate::Vocabulary;
use crate::canon::{Canon, normalize};

/// Most tags kept from one reply.
pub const MAX_TAGS: usize = 4;
/// Characters of the summary sent.
pub const SUMMARY_CHARS: usize = 1000;
/// Vocabulary entries shown to the model.
pub const VOCABULARY_SHOWN: usize = 150;
/// Longest tag accepted.
const MAX_TAG_CHARS: usize = 32;

/// The instruction every request carries.
pub const SYSTEM: &str = "You label items from a researcher's reading feed with topic tags. \
Reply with JSON only, of the form {\"tags\": [\"tag-one\", \"tag-two\"]}: one to four tags, \
lower case, words joined by hyphens. Name the specific technical topics the item is about \
(\"speculative-decoding\" rather than \"machine-learning\"), never people, companies or \
products, never the kind of post (paper, news, release) or where it was published. Prefer \
a tag from the existing vocabulary when one fits.";

/// The user message for one item: the vocabulary (most used first, at most
/// [`VOCABULARY_SHOWN`]), the title and the start of the summary.
pub fn user_message(title: &str, summary: &str, vocabulary: &[String]) -> String {
    let vocab = if vocabulary.is_empty() {
        "(none yet)".to_string()
    } else {
        vocabulary.iter().take(VOCABULARY_SHOWN).cloned().collect::<Vec<_>>().join(", ")
    };
    let summary: String = summary.chars().take(SUMMARY_CHARS).collect();
    format!("Existing vocabulary: {vocab}\n\nTitle: {title}\nSummary: {summary}")
}

/// Why a reply was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplyError {
    /// Not JSON, or JSON without a list of strings where the tags should be.
    NotJson(String),
    /// JSON, but no tag survived the checks.
    NoUsableTag,
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::NotJson(why) => write!(f, "the reply was not the JSON asked for ({why})"),
            ReplyError::NoUsableTag => write!(f, "the reply had no usable topic tag"),
        }
    }
}

impl std::error::Error for ReplyError {}

/// The tags in a reply, checked, normalised and mapped onto `vocabulary` (canonical
/// names already in use), in the reply's order without repeats, at most [`MAX_TAGS`].
pub fn parse_reply(reply: &str, canon: &Canon, vocabulary: &Vocabulary) -> Result<Vec<String>, ReplyError> {
    let text = unfence(reply);
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| ReplyError::NotJson(e.to_string()))?;
    let list = match &value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("tags") {
            Some(serde_json::Value::Array(a)) => a,
            _ => return Err(ReplyError::NotJson("no \"tags\" list".into())),
        },
        _ => return Err(ReplyError::NotJson("neither an object nor a list".into())),
    };
    let mut out: Vec<String> = Vec::new();
    for raw in list.iter().filter_map(serde_json::Value::as_str) {
        let tag = normalize(raw);
        if !well_formed(&tag) || crate::NON_TOPIC_TAGS.contains(&tag.as_str()) {
            continue;
        }
        let (c, _) = vocabulary.spelling(canon.canonical(&tag));
        if !out.contains(&c) {
            out.push(c);
        }
        if out.len() == MAX_TAGS {
            break;
        }
    }
    if out.is_empty() { Err(ReplyError::NoUsableTag) } else { Ok(out) }
}

fn well_formed(tag: &str) -> bool {
    let mut chars = tag.chars();
    tag.len() <= MAX_TAG_CHARS
        && chars.next().is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The JSON inside a reply that wrapped it in a code fence or a sentence.
fn unfence(reply: &str) -> &str {
    let t = reply.trim();
    let start = t.find(['{', '[']);
    let end = t.rfind(['}', ']']);
    match (start, end) {
        (Some(s), Some(e)) if e > s => &t[s..=e],
        _ => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(words: &[&str]) -> Vocabulary {
        Vocabulary::new(words.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn replies_are_checked_normalised_and_mapped() {
        let canon = Canon::builtin();
        let v = vocab(&["large-language-models", "speculative-decoding"]);
        let got = parse_reply(
            "```json\n{\"tags\": [\"Speculative Decoding\", \"LLM\", \"preprint\", \"résumé\", \"llms\"]}\n```",
            canon,
            &v,
        )
        .unwrap();
        assert_eq!(got, ["speculative-decoding", "large-language-models"]);
        assert_eq!(parse_reply("[\"speculativedecoding\"]", canon, &v).unwrap(), ["speculative-decoding"]);
    }

    #[test]
    fn unusable_replies_are_errors() {
        let canon = Canon::builtin();
        let v = vocab(&[]);
        assert!(matches!(parse_reply("I think it is about LLMs", canon, &v), Err(ReplyError::NotJson(_))));
        assert!(matches!(parse_reply("{\"topics\": [\"x\"]}", canon, &v), Err(ReplyError::NotJson(_))));
        assert_eq!(parse_reply("{\"tags\": [\"news\", \"!!\"]}", canon, &v), Err(ReplyError::NoUsableTag));
        let long = format!("{{\"tags\": [\"{}\"]}}", "a".repeat(40));
        assert_eq!(parse_reply(&long, canon, &v), Err(ReplyError::NoUsableTag));
    }

    #[test]
    fn at_most_four_tags() {
        let got = parse_reply("{\"tags\": [\"a1\", \"b2\", \"c3\", \"d4\", \"e5\"]}", Canon::builtin(), &vocab(&[]));
        assert_eq!(got.unwrap().len(), MAX_TAGS);
    }

    #[test]
    fn the_message_carries_vocabulary_title_and_clipped_summary() {
        let m = user_message("A title", &"q".repeat(5000), &["rl".into(), "retrieval".into()]);
        assert!(m.starts_with("Existing vocabulary: rl, retrieval\n\nTitle: A title\nSummary: "), "{m}");
        assert_eq!(m.matches('q').count(), SUMMARY_CHARS);
        assert!(user_message("t", "s", &[]).contains("(none yet)"));
    }
}
