//! Persona rules: names, interests, confirmation of destructive actions, what happens
//! to an unknown reader, and interests suggested from the archive's tags.
//!
//! Pure functions over plain values; the store does the writing.
//!
//! **Unknown readers.** The read-only tools (`feed.list`, `feed.search`, `feed.digest`,
//! `feed.read`) create a reader they do not know, seeding the interests text from the
//! archive's most common topic tags and saying so in the answer, so a first question
//! is never wasted. Tools that write a verdict or change a persona (`feed.rate`,
//! `feed.explain`, `feed.harvest_engagement`, the persona tools, `feed.source_suggest`)
//! refuse an unknown name and list the readers that exist: a typo must not create a
//! second persona that silently collects ratings.

use serde::Serialize;

/// Longest persona name accepted, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest interests text accepted, in characters.
pub const MAX_INTERESTS_CHARS: usize = 2_000;
/// How many top tags seed an auto-created reader's interests.
pub const SEED_TAGS: usize = 6;
/// Interests of an auto-created reader when the archive has no tags.
pub const FALLBACK_INTERESTS: &str = "general science and technology research";

/// Tags that name a venue, a format or a feed rather than a topic; never suggested as
/// interests.
pub use attest_tags::NON_TOPIC_TAGS;

/// Check and tidy a persona name: trimmed, not empty, no control characters, at most
/// [`MAX_NAME_CHARS`].
pub fn validate_name(name: &str) -> Result<String, String> {
    let n = name.trim();
    if n.is_empty() {
        return Err("a persona name must not be empty: pass name=\"…\"".into());
    }
    if n.chars().any(char::is_control) {
        return Err("a persona name must be one line of text without control characters".into());
    }
    if n.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "a persona name is at most {MAX_NAME_CHARS} characters; this one has {}",
            n.chars().count()
        ));
    }
    Ok(n.to_string())
}

/// Check and tidy an interests text: whitespace collapsed, not empty, at most
/// [`MAX_INTERESTS_CHARS`].
pub fn validate_interests(text: &str) -> Result<String, String> {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.is_empty() {
        return Err("interests must not be empty: name the topics to follow, e.g. \"protein design, \
                    cryo-EM, diffusion models\""
            .into());
    }
    if t.chars().count() > MAX_INTERESTS_CHARS {
        return Err(format!(
            "interests are at most {MAX_INTERESTS_CHARS} characters; this text has {}: keep the topics, drop the prose",
            t.chars().count()
        ));
    }
    Ok(t)
}

/// A destructive persona action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Destructive {
    /// Forget every rating and engagement, keep the persona and its interests.
    Reset,
    /// Remove the persona with its ratings and engagement.
    Delete,
}

/// `Ok(())` when `confirm` is true; otherwise the refusal that says what would be lost
/// and how to go ahead.
pub fn require_confirm(action: Destructive, confirm: bool, name: &str, clicks: usize) -> Result<(), String> {
    if confirm {
        return Ok(());
    }
    let (verb, tool, keeps) = match action {
        Destructive::Reset => ("reset", "feed.persona_reset", " (the persona and its interests stay)"),
        Destructive::Delete => ("delete", "feed.persona_delete", ""),
    };
    Err(format!(
        "refusing to {verb} '{name}' without confirmation: it would erase {} and its reading history{keeps}. \
         Call {} to go ahead.",
        plural(clicks, "rating", "ratings"),
        confirm_step(tool).for_agent()
    ))
}

/// The step a destructive persona tool's refusal offers: the same call, confirmed.
pub fn confirm_step(tool: &str) -> attest_core::Next {
    attest_core::Next::again(tool).with("confirm", true)
}

/// The step an unknown reader's refusal offers: create the reader.
pub fn create_step() -> attest_core::Next {
    attest_core::Next::call("feed.persona_create").blank("name").blank("interests")
}

/// What a tool does with a reader name it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownReader {
    /// Create the reader, interests seeded from the archive, and say so.
    Create,
    /// Refuse, listing the readers that exist.
    Refuse,
}

/// The tools that create an unknown reader: they only read.
pub const CREATING_TOOLS: &[&str] = &["feed.list", "feed.search", "feed.digest", "feed.read"];

/// What `tool` does with an unknown reader.
pub fn on_unknown_reader(tool: &str) -> UnknownReader {
    if CREATING_TOOLS.contains(&tool) { UnknownReader::Create } else { UnknownReader::Refuse }
}

/// The refusal for an unknown reader: names the readers that exist and how to create one.
pub fn unknown_reader_message(name: &str, readers: &[String]) -> String {
    let mut names: Vec<&str> = readers.iter().map(String::as_str).collect();
    names.sort_by_key(|n| n.to_lowercase());
    let valid = if names.is_empty() {
        "there are no readers yet".to_string()
    } else {
        format!("readers: {}", names.join(", "))
    };
    format!("unknown reader '{name}' ({valid}); create one with {}", create_step().for_agent())
}

/// A tag and how many items carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TagCount {
    /// The tag.
    pub tag: String,
    /// Items carrying it.
    pub items: usize,
}

/// Whether a tag names a topic (not a venue or format, not an arXiv-style code only).
pub fn is_topic_tag(tag: &str) -> bool {
    let t = tag.trim().to_lowercase();
    !t.is_empty() && !NON_TOPIC_TAGS.contains(&t.as_str()) && t.chars().any(|c| c.is_alphabetic())
}

/// The archive's most common topic tags, best first (ties by name), at most `limit`.
/// Input tags are lower-cased and merged; an arXiv category counts as the concepts it
/// stands for (`cs.lg`: machine learning), and what is still a code after that
/// (`physics.chem-ph` unmapped) is dropped with the other non-topic tags.
pub fn suggest_interests(tag_counts: &[(String, i64)], limit: usize) -> Vec<TagCount> {
    let mut merged: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for (tag, n) in tag_counts {
        for t in attest_tags::concept_tags(&tag.trim().to_lowercase()) {
            if is_topic_tag(&t) && !looks_like_code(&t) {
                *merged.entry(t).or_default() += (*n).max(0) as usize;
            }
        }
    }
    let mut v: Vec<TagCount> = merged.into_iter().map(|(tag, items)| TagCount { tag, items }).collect();
    v.sort_by(|a, b| b.items.cmp(&a.items).then(a.tag.cmp(&b.tag)));
    v.truncate(limit);
    v
}

/// A category code rather than a name: `cs.lg`, `physics.chem-ph`, `q-bio.nc`.
fn looks_like_code(tag: &str) -> bool {
    tag.split_once('.').is_some_and(|(a, b)| {
        !a.is_empty()
            && !b.is_empty()
            && a.len() <= 12
            && !tag.contains(' ')
            && a.chars().all(|c| c.is_ascii_lowercase() || c == '-')
    })
}

/// Interests for a reader created on first use: the top [`SEED_TAGS`] topic tags joined
/// with ", ", or [`FALLBACK_INTERESTS`] when the archive has none.
pub fn seed_interests(tag_counts: &[(String, i64)]) -> String {
    let top = suggest_interests(tag_counts, SEED_TAGS);
    if top.is_empty() {
        FALLBACK_INTERESTS.to_string()
    } else {
        top.into_iter().map(|t| t.tag.replace('-', " ")).collect::<Vec<_>>().join(", ")
    }
}

/// The sentence prefixed to an answer whose reader was just created.
pub fn created_notice(name: &str, interests: &str) -> String {
    format!(
        "New reader '{name}', started from what this archive mostly covers ({interests}). Tell me the topics \
         you want to follow and I will set them with feed.persona_update."
    )
}

/// The status line of a reader: how much of the order comes from ratings.
pub fn status_line(name: &str, clicks: usize, evidence: usize, blend_weight: f64) -> String {
    let pct = (blend_weight * 100.0).round() as i64;
    let ignored = clicks - evidence.min(clicks);
    let ignored = if ignored > 0 { format!(" ({ignored} bootstrap ignored)") } else { String::new() };
    format!(
        "'{name}': {}{ignored}; ranking is {pct}% from ratings and {}% from the interests text",
        plural(clicks, "rating", "ratings"),
        100 - pct
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_interests() {
        assert_eq!(validate_name("  Alice "), Ok("Alice".into()));
        assert!(validate_name("  ").unwrap_err().contains("must not be empty"));
        assert!(validate_name("a\nb").is_err());
        assert!(validate_name(&"x".repeat(65)).is_err());
        assert_eq!(validate_interests(" rna \n velocity "), Ok("rna velocity".into()));
        assert!(validate_interests("").unwrap_err().contains("protein design"));
    }

    #[test]
    fn destructive_needs_confirm() {
        assert_eq!(require_confirm(Destructive::Delete, true, "a", 3), Ok(()));
        let e = require_confirm(Destructive::Reset, false, "bob", 1).unwrap_err();
        assert!(e.contains("1 rating ") && e.contains("confirm=true") && e.contains("interests stay"), "{e}");
        let e = require_confirm(Destructive::Delete, false, "bob", 12).unwrap_err();
        assert!(e.contains("12 ratings") && e.contains("feed.persona_delete"), "{e}");
    }

    #[test]
    fn unknown_readers() {
        assert_eq!(on_unknown_reader("feed.list"), UnknownReader::Create);
        assert_eq!(on_unknown_reader("feed.rate"), UnknownReader::Refuse);
        assert_eq!(on_unknown_reader("feed.persona_delete"), UnknownReader::Refuse);
        let m = unknown_reader_message("bb", &["carol".into(), "Alice".into()]);
        assert_eq!(
            m,
            "unknown reader 'bb' (readers: Alice, carol); create one with feed.persona_create(name, interests)"
        );
        assert!(unknown_reader_message("x", &[]).contains("no readers yet"));
    }

    #[test]
    fn interests_from_tags() {
        let tags: Vec<(String, i64)> = vec![
            ("arxiv".into(), 90),
            ("protein-design".into(), 12),
            ("Protein-Design".into(), 3),
            ("cs.lg".into(), 12),
            ("physics.xx-unknown".into(), 30),
            ("2024".into(), 50),
            ("cryo-em".into(), 9),
        ];
        let s = suggest_interests(&tags, 5);
        assert_eq!(
            s,
            vec![
                TagCount { tag: "protein-design".into(), items: 15 },
                TagCount { tag: "machine-learning".into(), items: 12 },
                TagCount { tag: "cryo-em".into(), items: 9 },
            ]
        );
        assert_eq!(seed_interests(&tags), "protein design, machine learning, cryo em");
        assert_eq!(seed_interests(&[]), FALLBACK_INTERESTS);
    }

    #[test]
    fn status() {
        assert_eq!(
            status_line("a", 7, 5, 0.5),
            "'a': 7 ratings (2 bootstrap ignored); ranking is 50% from ratings and 50% from the interests text"
        );
    }
}
