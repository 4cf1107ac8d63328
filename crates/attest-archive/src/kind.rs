//! What kind of thing an item is (a journal paper, a preprint, a survey, a software
//! release, a post), read without a model from where it came from and how it is titled.
//!
//! In order, the first that holds:
//! 1. **survey**: the title calls it a survey, review, overview, tutorial, primer or
//!    meta-analysis ("A survey of …", "… : a review", "Systematic review …");
//! 2. **release**: the title announces a version or a release ("v2.1", "released",
//!    "changelog", "now available"), or its link is a releases page;
//! 3. **preprint**: an arXiv id, a preprint server's link (arXiv, bioRxiv, medRxiv,
//!    ChemRxiv, SSRN, Research Square, OSF, preprints.org) or DOI prefix, or a source
//!    named after one;
//! 4. **paper**: a DOI, or a source named like a journal ("Journal of …", "… Letters",
//!    "Proceedings …", "Transactions …", "Annals …", "Acta …", "Physical Review …");
//! 5. **post**: anything else (blogs, news, notes).

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::Item;

/// The kind of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A peer-reviewed paper (a DOI, a journal or proceedings).
    Paper,
    /// A preprint (arXiv, bioRxiv, …).
    Preprint,
    /// A survey or review.
    Survey,
    /// A software or data release.
    Release,
    /// A blog post, news story or note.
    Post,
}

impl Kind {
    /// Every kind, in the order they are checked.
    pub const ALL: [Kind; 5] = [Kind::Survey, Kind::Release, Kind::Preprint, Kind::Paper, Kind::Post];

    /// Its name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Paper => "paper",
            Kind::Preprint => "preprint",
            Kind::Survey => "survey",
            Kind::Release => "release",
            Kind::Post => "post",
        }
    }

    /// A kind by name, singular or plural, any case ("papers", "Preprint", "reviews").
    pub fn parse(s: &str) -> Option<Kind> {
        let s = s.trim().to_lowercase();
        let s = s.strip_suffix('s').unwrap_or(&s);
        Some(match s {
            "paper" | "article" | "journal" | "journal paper" | "journal article" => Kind::Paper,
            "preprint" | "pre-print" => Kind::Preprint,
            "survey" | "review" | "overview" | "tutorial" => Kind::Survey,
            "release" | "software" | "version" => Kind::Release,
            "post" | "blog" | "blog post" | "new" | "note" => Kind::Post,
            _ => return None,
        })
    }
}

static SURVEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:surveys?|reviews?|overview|tutorial|primer|meta-analysis|state of the art|roadmap)\b")
        .expect("survey pattern")
});
/// A review that is not a survey: "peer review", "code review", "review process".
static NOT_SURVEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:peer|code|design|open)[ -]review|review(?:ers?|ing)?\s+(?:process|policy|load|board)\b")
        .expect("review pattern")
});
static RELEASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bv\d+(?:\.\d+)+\b|\b(?:version\s+\d+(?:\.\d+)*|release[sd]?|releasing|changelog|release notes|now available|announcing)\b",
    )
    .expect("release pattern")
});
const PREPRINT_HOSTS: &[&str] = &[
    "arxiv.org",
    "biorxiv.org",
    "medrxiv.org",
    "chemrxiv.org",
    "ssrn.com",
    "researchsquare.com",
    "osf.io",
    "preprints.org",
];
const PREPRINT_DOIS: &[&str] =
    &["10.48550/", "10.1101/", "10.26434/", "10.21203/", "10.31219/", "10.20944/", "10.2139/"];
static JOURNAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:journal|letters|proceedings|transactions|annals|acta|physical review)\b")
        .expect("journal pattern")
});

/// The kind of an item (see the module's documentation).
pub fn of(it: &Item) -> Kind {
    classify(&it.title, it.url.as_deref(), it.doi.as_deref(), it.arxiv_id.as_deref(), it.source.as_deref())
}

/// The kind from an item's parts.
pub fn classify(
    title: &str,
    url: Option<&str>,
    doi: Option<&str>,
    arxiv_id: Option<&str>,
    source: Option<&str>,
) -> Kind {
    if SURVEY.is_match(title) && !NOT_SURVEY.is_match(title) {
        return Kind::Survey;
    }
    let url = url.unwrap_or("").to_lowercase();
    if RELEASE.is_match(title) || url.contains("/releases/") || url.ends_with("/releases") {
        return Kind::Release;
    }
    let source = source.unwrap_or("").to_lowercase();
    let doi = doi.unwrap_or("");
    if arxiv_id.is_some()
        || PREPRINT_HOSTS.iter().any(|h| url.contains(h))
        || PREPRINT_DOIS.iter().any(|p| doi.starts_with(p))
        || source.contains("arxiv")
        || source.contains("rxiv")
    {
        return Kind::Preprint;
    }
    if !doi.is_empty() || JOURNAL.is_match(&source) {
        return Kind::Paper;
    }
    Kind::Post
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_source_and_title() {
        let k = |t: &str, url: Option<&str>, doi: Option<&str>, ax: Option<&str>, src: Option<&str>| {
            classify(t, url, doi, ax, src)
        };
        assert_eq!(k("A survey of sparse attention", None, None, Some("2601.1"), None), Kind::Survey);
        assert_eq!(k("Peer review at scale", None, Some("10.1/x"), None, None), Kind::Paper);
        assert_eq!(
            k("attest v0.4.1 released", Some("https://github.com/a/b/releases/tag/v0.4.1"), None, None, None),
            Kind::Release
        );
        assert_eq!(k("Sparse attention", Some("https://arxiv.org/abs/2601.1"), None, None, None), Kind::Preprint);
        assert_eq!(k("Sparse attention", None, Some("10.1101/2026.01.01"), None, None), Kind::Preprint);
        assert_eq!(k("Nickel catalysis", None, Some("10.1021/x"), None, Some("Synthesis Letters")), Kind::Paper);
        assert_eq!(
            k("What we learned this year", Some("https://blog.example/x"), None, None, Some("A blog")),
            Kind::Post
        );
        assert_eq!(Kind::parse("Preprints"), Some(Kind::Preprint));
        assert_eq!(Kind::parse("reviews"), Some(Kind::Survey));
        assert_eq!(Kind::parse("podcast"), None);
    }
}
