//! The record every source produces.

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which kind of source a record came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// A `.bib` file on disk.
    Bibtex,
    /// A Zotero library on disk.
    Zotero,
    /// CrossRef, over the network (only when enabled).
    Web,
    /// The reference library in the attest database (`cite.save`).
    Library,
}

impl Source {
    /// The lower-case name used on the wire and in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Bibtex => "bibtex",
            Source::Zotero => "zotero",
            Source::Web => "web",
            Source::Library => "library",
        }
    }
}

/// One work, as a source records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    /// The citation key (`vaswani2017attention`); for a CrossRef record, the DOI.
    pub key: String,
    /// The title, with BibTeX braces and LaTeX accents turned into plain text. Empty
    /// when the source has none.
    pub title: String,
    /// Authors as `Family, Given` (or just the name, for an organisation), in order.
    pub authors: Vec<String>,
    /// Year of publication, when known.
    pub year: Option<i32>,
    /// DOI, bare (`10.1000/xyz`), without a resolver prefix.
    pub doi: Option<String>,
    /// arXiv identifier (`1706.03762` or `hep-th/9901001`), without a version suffix.
    pub arxiv_id: Option<String>,
    /// A link to the work, when the source gives one.
    pub url: Option<String>,
    /// Which kind of source it came from.
    pub source: Source,
    /// For web records, the date (`YYYY-MM-DD`) it was fetched; `None` for records on disk.
    pub fetched_at: Option<String>,
    /// Where the record lives: the `.bib` file, the Zotero database or the web service.
    pub origin: String,
}

impl Reference {
    /// Whether `needle` names this record: its key, DOI or arXiv id, compared without
    /// regard to case (and, for DOIs and arXiv ids, without a resolver prefix or
    /// version suffix).
    pub fn answers_to(&self, needle: &str) -> bool {
        let needle = needle.trim();
        if needle.is_empty() {
            return false;
        }
        if self.key.eq_ignore_ascii_case(needle) {
            return true;
        }
        if let (Some(doi), Some(n)) = (&self.doi, normalize_doi(needle))
            && doi.eq_ignore_ascii_case(&n)
        {
            return true;
        }
        if let (Some(id), Some(n)) = (&self.arxiv_id, arxiv_of_key(needle))
            && id.eq_ignore_ascii_case(&n)
        {
            return true;
        }
        false
    }

    /// The title, or `(untitled)`.
    pub fn title_or_untitled(&self) -> &str {
        if self.title.is_empty() { "(untitled)" } else { &self.title }
    }

    /// Authors the way a citation names them: `Vaswani`, `Vaswani and Shazeer`,
    /// `Vaswani et al.`; `anonymous` when there are none.
    pub fn short_authors(&self) -> String {
        let family = |a: &String| a.split(',').next().unwrap_or(a).trim().to_string();
        match self.authors.as_slice() {
            [] => "anonymous".into(),
            [a] => family(a),
            [a, b] => format!("{} and {}", family(a), family(b)),
            [a, ..] => format!("{} et al.", family(a)),
        }
    }

    /// One readable line: `Vaswani et al. 2017, Attention Is All You Need (bibtex: refs/main.bib)`.
    pub fn line(&self) -> String {
        // A library entry saved from a feed item has no authors: the item never named them.
        if self.source == Source::Library && self.authors.is_empty() {
            let year = self.year.map(|y| format!("{y}; ")).unwrap_or_default();
            return format!("{} ({year}library: {})", self.title_or_untitled(), self.origin);
        }
        let year = self.year.map(|y| format!(" {y}")).unwrap_or_default();
        format!(
            "{}{}, {} ({}: {})",
            self.short_authors(),
            year,
            self.title_or_untitled(),
            self.source.as_str(),
            self.origin
        )
    }

    /// The best link to the work: its DOI, else its arXiv page, else its url.
    pub fn link(&self) -> Option<String> {
        if let Some(doi) = &self.doi {
            return Some(format!("https://doi.org/{doi}"));
        }
        if let Some(id) = &self.arxiv_id {
            return Some(format!("https://arxiv.org/abs/{id}"));
        }
        self.url.clone()
    }
}

static DOI: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)\b(10\.\d{4,9}/\S+)").expect("static regex"));
static ARXIV_NEW: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|[^\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?:$|[^\d])").expect("static regex"));
static ARXIV_OLD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b([a-z][a-z.\-]*/\d{7})(?:v\d+)?\b").expect("static regex"));
static ARXIV_BARE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\d{4}\.\d{4,5}(v\d+)?$").expect("static regex"));
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\D)(1[5-9]\d\d|20\d\d)(?:\D|$)").expect("static regex"));

/// A DOI in bare form (`10.1000/xyz`), from a bare DOI, a `doi:` prefix or a
/// `https://doi.org/` link. Trailing punctuation is dropped. `None` when there is no DOI.
pub fn normalize_doi(text: &str) -> Option<String> {
    let m = DOI.captures(text.trim())?;
    let doi = m.get(1)?.as_str().trim_end_matches(['.', ',', ';', ')', '}', ']']);
    Some(doi.to_string())
}

/// An arXiv identifier in `text` (an id, `arXiv:1706.03762v5`, an abs or pdf link, a
/// journal field reading `arXiv preprint arXiv:…`), without its version suffix.
pub fn find_arxiv_id(text: &str) -> Option<String> {
    if let Some(c) = ARXIV_NEW.captures(text) {
        return Some(c[1].to_string());
    }
    ARXIV_OLD.captures(text).map(|c| c[1].to_lowercase())
}

/// The arXiv id a lookup key means, if it is an arXiv id at all: a bare new-style id,
/// `arXiv:<id>`, or an arxiv.org link. A citation key that merely contains digits is not.
pub(crate) fn arxiv_of_key(key: &str) -> Option<String> {
    let k = key.trim();
    let lower = k.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("arxiv:")
        .or_else(|| lower.split_once("arxiv.org/abs/").map(|(_, r)| r))
        .or_else(|| lower.split_once("arxiv.org/pdf/").map(|(_, r)| r));
    match rest {
        Some(r) => find_arxiv_id(r.trim_end_matches(".pdf")),
        None => {
            if ARXIV_BARE.is_match(&lower) {
                find_arxiv_id(&lower)
            } else {
                None
            }
        }
    }
}

/// The first plausible year (1500–2099) in a `year` or `date` value.
pub fn find_year(text: &str) -> Option<i32> {
    YEAR.captures(text).and_then(|c| c[1].parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> Reference {
        Reference {
            key: "vaswani2017attention".into(),
            title: "Attention Is All You Need".into(),
            authors: vec!["Vaswani, Ashish".into(), "Shazeer, Noam".into(), "Parmar, Niki".into()],
            year: Some(2017),
            doi: Some("10.48550/arXiv.1706.03762".into()),
            arxiv_id: Some("1706.03762".into()),
            url: None,
            source: Source::Bibtex,
            fetched_at: None,
            origin: "refs/main.bib".into(),
        }
    }

    #[test]
    fn answers_to_key_doi_and_arxiv_in_any_spelling() {
        let r = r();
        for k in [
            "Vaswani2017Attention",
            "10.48550/arxiv.1706.03762",
            "https://doi.org/10.48550/arXiv.1706.03762",
            "doi:10.48550/ARXIV.1706.03762",
            "1706.03762",
            "arXiv:1706.03762v5",
            "https://arxiv.org/abs/1706.03762",
        ] {
            assert!(r.answers_to(k), "{k}");
        }
        for k in ["", "vaswani2017", "1706.0376", "x1706.03762"] {
            assert!(!r.answers_to(k), "{k}");
        }
    }

    #[test]
    fn line_reads_like_a_citation() {
        assert_eq!(r().line(), "Vaswani et al. 2017, Attention Is All You Need (bibtex: refs/main.bib)");
        assert_eq!(r().link().unwrap(), "https://doi.org/10.48550/arXiv.1706.03762");
    }

    #[test]
    fn ids_and_years_are_found_in_messy_text() {
        assert_eq!(find_arxiv_id("arXiv preprint arXiv:2106.09685").as_deref(), Some("2106.09685"));
        assert_eq!(find_arxiv_id("hep-th/9901001v2").as_deref(), Some("hep-th/9901001"));
        assert_eq!(find_year("2019-06-01"), Some(2019));
        assert_eq!(find_year("{Spring} 1987"), Some(1987));
        assert_eq!(find_year("12345"), None);
        assert_eq!(
            normalize_doi("https://doi.org/10.1145/3292500.3330701.").as_deref(),
            Some("10.1145/3292500.3330701")
        );
    }
}
