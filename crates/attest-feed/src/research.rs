//! `feed.research`: search arXiv, PubMed and CrossRef on the web for papers beyond the
//! reader's archive. Off unless `ATTEST_RESEARCH_WEB=1`.
//!
//! The parsers are pure functions of the services' answers (the arXiv export API's
//! Atom through feed-rs, PubMed E-utilities `esearch` + `esummary` JSON, CrossRef
//! `/works` JSON) into one [`Paper`] row; the requests go through
//! [`crate::openai::JsonClient`] (feature `fetch`), every service on its own thread with
//! the same short timeout, so one that fails or hangs is reported while the others
//! still answer. Results are shown in each service's own relevance order, interleaved
//! and deduplicated by DOI and arXiv id; they are not ranked for the reader and are
//! never written into the archive (a paper the archive already holds is marked with
//! its `item_id`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;
use std::time::Duration;

use attest_core::text::clip;
use attest_core::{Answer, Fault, Ref};
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::Row as _;

use crate::clean;
use crate::tools::{Context, MAX_LIMIT};

/// The arXiv export API.
pub const ARXIV_URL: &str = "https://export.arxiv.org/api/query";
/// NCBI E-utilities (PubMed).
pub const PUBMED_URL: &str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils";
/// The CrossRef REST API.
pub const CROSSREF_URL: &str = "https://api.crossref.org";
/// Default limit for one service's answer, in seconds (`ATTEST_RESEARCH_TIMEOUT`).
pub const RESEARCH_TIMEOUT_SECS: u64 = 15;
/// Characters of a title in a row.
const TITLE_CHARS: usize = 100;
/// Authors named per paper.
const AUTHORS: usize = 3;

/// A literature service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    /// The arXiv export API.
    Arxiv,
    /// PubMed through NCBI E-utilities.
    Pubmed,
    /// CrossRef's `/works`.
    Crossref,
}

impl Service {
    /// Every service, in the order they are listed.
    pub const ALL: [Service; 3] = [Service::Arxiv, Service::Pubmed, Service::Crossref];

    /// The name used in `sources=`.
    pub fn name(self) -> &'static str {
        match self {
            Service::Arxiv => "arxiv",
            Service::Pubmed => "pubmed",
            Service::Crossref => "crossref",
        }
    }

    /// The name shown to people.
    pub fn label(self) -> &'static str {
        match self {
            Service::Arxiv => "arXiv",
            Service::Pubmed => "PubMed",
            Service::Crossref => "CrossRef",
        }
    }
}

/// Parse `sources=` ("arxiv,pubmed"; spaces, `+` and `;` also separate; case ignored),
/// in the order given, without repeats. Empty means the default, arXiv and PubMed.
pub fn parse_services(s: &str) -> Result<Vec<Service>, String> {
    let mut out = Vec::new();
    for word in s.split([',', ' ', '+', ';']).map(str::trim).filter(|w| !w.is_empty()) {
        let w = word.to_ascii_lowercase();
        match Service::ALL.iter().find(|x| x.name() == w) {
            Some(x) if !out.contains(x) => out.push(*x),
            Some(_) => {}
            None => return Err(format!("unknown source '{}': use arxiv, pubmed or crossref", clip(word, 40))),
        }
    }
    if out.is_empty() {
        out = vec![Service::Arxiv, Service::Pubmed];
    }
    Ok(out)
}

/// One paper, as every service's answer is read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Paper {
    /// The service it came from (`arxiv`, `pubmed`, `crossref`).
    pub source: Service,
    /// Its title (clipped).
    pub title: String,
    /// The first three authors.
    pub authors: Vec<String>,
    /// How many authors it has in all.
    pub n_authors: usize,
    /// The year of publication (arXiv: of the first version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    /// The journal or venue (arXiv: `arXiv <primary category>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    /// Its DOI, lowercase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// Its arXiv id, without version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv_id: Option<String>,
    /// Its PubMed id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    /// Where to read it (in `refs` on the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The archive item holding the same paper (same DOI or arXiv id), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_archive: Option<i64>,
}

impl Paper {
    fn new(source: Service, title: &str, authors: Vec<String>) -> Paper {
        let n_authors = authors.len();
        Paper {
            source,
            title: clip(&clean::strip_html(title), TITLE_CHARS),
            authors: authors.into_iter().take(AUTHORS).map(|a| clip(&a, 40)).collect(),
            n_authors,
            year: None,
            venue: None,
            doi: None,
            arxiv_id: None,
            pmid: None,
            url: None,
            in_archive: None,
        }
    }

    /// The ref that names it: its DOI, else arXiv id, else PubMed id.
    pub fn ref_id(&self) -> String {
        match (&self.doi, &self.arxiv_id, &self.pmid) {
            (Some(d), _, _) => format!("doi:{d}"),
            (None, Some(a), _) => format!("arxiv:{a}"),
            (None, None, Some(p)) => format!("pmid:{p}"),
            _ => format!("{}:{}", self.source.name(), clip(&self.title, 40)),
        }
    }
}

/// What one service answered: the papers in its own order, and how many it says match.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The papers, best first by the service's relevance.
    pub papers: Vec<Paper>,
    /// The service's count of matches, when it gives one.
    pub total: Option<u64>,
}

static TOTAL_RESULTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"<opensearch:totalResults[^>]*>\s*(\d+)\s*<").expect("total pattern"));

fn year_of(s: &str) -> Option<i32> {
    static YEAR: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(1[89]\d\d|2\d\d\d)\b").expect("year pattern"));
    YEAR.captures(s).and_then(|c| c[1].parse().ok())
}

/// Read an arXiv export API answer (Atom). An error entry (the API's way of refusing
/// a query) is an `Err` with its message.
pub fn parse_arxiv(bytes: &[u8]) -> Result<Found, String> {
    let feed = feed_rs::parser::parse(bytes)
        .map_err(|e| format!("arXiv did not send an Atom feed: {}", clip(&e.to_string(), 120)))?;
    let total = TOTAL_RESULTS.captures(&String::from_utf8_lossy(bytes)).and_then(|c| c[1].parse::<u64>().ok());
    let mut papers = Vec::new();
    for e in feed.entries {
        if e.id.contains("arxiv.org/api/errors") {
            let why = e.summary.map(|s| s.content).unwrap_or_else(|| "an error".into());
            return Err(format!("arXiv refused the query: {}", clip(&why, 160)));
        }
        let title = e.title.as_ref().map(|t| t.content.clone()).unwrap_or_default();
        if title.trim().is_empty() {
            continue;
        }
        let authors = e
            .authors
            .iter()
            .filter_map(|p| p.name.as_deref())
            .map(clean::collapse_ws)
            .filter(|n| !n.is_empty())
            .collect();
        let mut p = Paper::new(Service::Arxiv, &title, authors);
        p.arxiv_id = clean::find_arxiv_id(&e.id);
        p.year = e.published.or(e.updated).map(|d| d.format("%Y").to_string()).and_then(|y| y.parse().ok());
        p.doi = e
            .links
            .iter()
            .find(|l| l.title.as_deref() == Some("doi"))
            .and_then(|l| clean::find_doi(&l.href))
            .filter(|d| clean::arxiv_from_doi(d).is_none());
        let category = e.categories.first().map(|c| c.term.trim().to_string()).filter(|c| !c.is_empty());
        p.venue = Some(category.map_or_else(|| "arXiv".to_string(), |c| format!("arXiv {c}")));
        p.url = match &p.arxiv_id {
            Some(id) => Some(format!("https://arxiv.org/abs/{id}")),
            None => e
                .links
                .iter()
                .find(|l| l.rel.as_deref().is_none_or(|r| r == "alternate"))
                .map(|l| l.href.trim().to_string()),
        };
        papers.push(p);
    }
    Ok(Found { papers, total })
}

fn service_error(v: &Value) -> Option<String> {
    let e = v.get("error").or_else(|| v.get("esearchresult").and_then(|r| r.get("ERROR")))?;
    Some(e.as_str().map(str::to_string).unwrap_or_else(|| e.to_string()))
}

/// Read a PubMed `esearch` answer: the ids in relevance order and the match count.
pub fn parse_pubmed_search(v: &Value) -> Result<(Vec<String>, Option<u64>), String> {
    if let Some(e) = service_error(v) {
        return Err(format!("PubMed refused the search: {}", clip(&e, 160)));
    }
    let r = v.get("esearchresult").ok_or("PubMed's answer has no esearchresult")?;
    let ids = r
        .get("idlist")
        .and_then(Value::as_array)
        .ok_or("PubMed's answer has no idlist")?
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string).or_else(|| x.as_u64().map(|n| n.to_string())))
        .collect();
    let count = r.get("count").and_then(|c| c.as_str().and_then(|s| s.parse().ok()).or_else(|| c.as_u64()));
    Ok((ids, count))
}

/// Read a PubMed `esummary` answer, in the order of `ids` (ids it has no record for
/// are left out).
pub fn parse_pubmed_summary(v: &Value, ids: &[String]) -> Result<Vec<Paper>, String> {
    if let Some(e) = service_error(v) {
        return Err(format!("PubMed refused the summary: {}", clip(&e, 160)));
    }
    let result = v.get("result").and_then(Value::as_object).ok_or("PubMed's summary has no result")?;
    let mut papers = Vec::new();
    for id in ids {
        let Some(r) = result.get(id).filter(|r| r.get("error").is_none()) else { continue };
        let title = r.get("title").and_then(Value::as_str).unwrap_or_default();
        if title.trim().is_empty() {
            continue;
        }
        let authors = r
            .get("authors")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter(|x| x.get("authtype").and_then(Value::as_str).is_none_or(|t| t == "Author"))
                    .filter_map(|x| x.get("name").and_then(Value::as_str).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut p = Paper::new(Service::Pubmed, title.trim_end_matches('.'), authors);
        p.year = ["pubdate", "epubdate", "sortpubdate"]
            .iter()
            .find_map(|k| r.get(*k).and_then(Value::as_str).and_then(year_of));
        p.venue = ["fulljournalname", "source"]
            .iter()
            .find_map(|k| r.get(*k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()))
            .map(|s| clip(s, 60));
        p.doi = r
            .get("articleids")
            .and_then(Value::as_array)
            .and_then(|a| {
                a.iter().find(|x| x.get("idtype").and_then(Value::as_str) == Some("doi")).and_then(|x| x.get("value"))
            })
            .and_then(Value::as_str)
            .and_then(clean::find_doi);
        p.pmid = Some(id.clone());
        p.url = Some(format!("https://pubmed.ncbi.nlm.nih.gov/{id}/"));
        papers.push(p);
    }
    Ok(papers)
}

/// Read a CrossRef `/works` answer.
pub fn parse_crossref(v: &Value) -> Result<Found, String> {
    if v.get("status").and_then(Value::as_str).is_some_and(|s| s != "ok") {
        let why = v.get("message").map(|m| m.as_str().map(str::to_string).unwrap_or_else(|| m.to_string()));
        return Err(format!("CrossRef refused the query: {}", clip(&why.unwrap_or_default(), 160)));
    }
    let m = v.get("message").ok_or("CrossRef's answer has no message")?;
    let items = m.get("items").and_then(Value::as_array).ok_or("CrossRef's answer has no items list")?;
    let first = |x: &Value, k: &str| -> Option<String> {
        match x.get(k) {
            Some(Value::Array(a)) => a.first().and_then(Value::as_str).map(str::to_string),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        }
    };
    let mut papers = Vec::new();
    for it in items {
        let Some(title) = first(it, "title").filter(|t| !t.trim().is_empty()) else { continue };
        let authors = it
            .get("author")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|x| {
                        let family = x.get("family").and_then(Value::as_str).unwrap_or_default();
                        let given = x.get("given").and_then(Value::as_str).unwrap_or_default();
                        let name = x.get("name").and_then(Value::as_str).unwrap_or_default();
                        let full = clean::collapse_ws(&format!("{given} {family}"));
                        Some(if full.is_empty() { name.trim().to_string() } else { full }).filter(|s| !s.is_empty())
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut p = Paper::new(Service::Crossref, &title, authors);
        p.year = ["issued", "published", "published-print", "published-online", "created"].iter().find_map(|k| {
            it.get(*k)
                .and_then(|d| d.get("date-parts"))
                .and_then(|d| d.get(0))
                .and_then(|d| d.get(0))
                .and_then(Value::as_i64)
                .map(|y| y as i32)
        });
        p.venue = first(it, "container-title").filter(|s| !s.trim().is_empty()).map(|s| clip(&s, 60));
        p.doi = it.get("DOI").and_then(Value::as_str).and_then(clean::find_doi);
        p.arxiv_id = p.doi.as_deref().and_then(clean::arxiv_from_doi);
        p.url = it
            .get("URL")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| p.doi.as_ref().map(|d| format!("https://doi.org/{d}")));
        papers.push(p);
    }
    let total = m.get("total-results").and_then(Value::as_u64);
    Ok(Found { papers, total })
}

// ---------------------------------------------------------------------------------
// Requests

/// Where the services are and whether they may be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResearchConfig {
    /// `ATTEST_RESEARCH_WEB=1`: off by default.
    pub enabled: bool,
    /// The arXiv export API (`ATTEST_ARXIV_URL`).
    pub arxiv: String,
    /// NCBI E-utilities (`ATTEST_PUBMED_URL`).
    pub pubmed: String,
    /// The CrossRef API (`ATTEST_CROSSREF_URL`).
    pub crossref: String,
    /// Limit for one service's answer (`ATTEST_RESEARCH_TIMEOUT`, seconds, 1–60).
    pub timeout: Duration,
}

impl Default for ResearchConfig {
    fn default() -> Self {
        ResearchConfig {
            enabled: false,
            arxiv: ARXIV_URL.into(),
            pubmed: PUBMED_URL.into(),
            crossref: CROSSREF_URL.into(),
            timeout: Duration::from_secs(RESEARCH_TIMEOUT_SECS),
        }
    }
}

impl ResearchConfig {
    /// Read the settings through `get` (pass `std::env::var(..).ok()`); a pure function.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> ResearchConfig {
        let get = |k: &str| get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let d = ResearchConfig::default();
        let base = |k: &str, dflt: String| get(k).map(|v| v.trim_end_matches('/').to_string()).unwrap_or(dflt);
        ResearchConfig {
            enabled: get("ATTEST_RESEARCH_WEB")
                .is_some_and(|v| !matches!(v.to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off")),
            arxiv: base("ATTEST_ARXIV_URL", d.arxiv),
            pubmed: base("ATTEST_PUBMED_URL", d.pubmed),
            crossref: base("ATTEST_CROSSREF_URL", d.crossref),
            timeout: get("ATTEST_RESEARCH_TIMEOUT")
                .and_then(|v| v.parse::<u64>().ok())
                .map_or(d.timeout, |s| Duration::from_secs(s.clamp(1, 60))),
        }
    }
}

fn with_query(base: &str, path: &str, pairs: &[(&str, &str)]) -> Result<String, String> {
    let mut u = url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
        .map_err(|e| format!("bad service address '{}': {e}", clip(base, 80)))?;
    {
        let mut q = u.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
    }
    Ok(u.to_string())
}

/// The arXiv query: every word of the question, in any field.
pub fn arxiv_url(base: &str, query: &str, n: usize) -> Result<String, String> {
    let words: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '.'))
        .map(|w| w.trim_matches(['-', '.']))
        .filter(|w| !w.is_empty())
        .take(12)
        .map(|w| format!("all:{w}"))
        .collect();
    let n = n.to_string();
    with_query(
        base,
        "",
        &[("search_query", &words.join(" AND ")), ("start", "0"), ("max_results", &n), ("sortBy", "relevance")],
    )
}

/// PubMed's search, by relevance.
pub fn pubmed_search_url(base: &str, query: &str, n: usize) -> Result<String, String> {
    let n = n.to_string();
    with_query(
        base,
        "/esearch.fcgi",
        &[("db", "pubmed"), ("retmode", "json"), ("sort", "relevance"), ("retmax", &n), ("term", query)],
    )
}

/// PubMed's summaries of some ids.
pub fn pubmed_summary_url(base: &str, ids: &[String]) -> Result<String, String> {
    with_query(base, "/esummary.fcgi", &[("db", "pubmed"), ("retmode", "json"), ("id", &ids.join(","))])
}

/// CrossRef's bibliographic search, only the fields a row needs.
pub fn crossref_url(base: &str, query: &str, n: usize) -> Result<String, String> {
    let n = n.to_string();
    with_query(
        base,
        "/works",
        &[
            ("query.bibliographic", query),
            ("rows", &n),
            ("select", "DOI,title,author,container-title,issued,published,URL,type"),
        ],
    )
}

/// What one service gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceResult {
    /// The service.
    pub service: Service,
    /// Its papers, or why there are none.
    pub outcome: Result<Found, String>,
}

/// Ask every service, each on its own thread, `n` papers each. Blocking; a service that
/// fails or times out is reported in its result while the others answer.
#[cfg(feature = "fetch")]
pub fn search_blocking(cfg: &ResearchConfig, services: &[Service], query: &str, n: usize) -> Vec<ServiceResult> {
    use crate::openai::{HttpOptions, JsonClient};
    let opts = HttpOptions {
        timeout: cfg.timeout,
        connect_timeout: cfg.timeout.min(Duration::from_secs(5)),
        max_bytes: 4 * 1024 * 1024,
        ..HttpOptions::default()
    };
    let client = JsonClient::new(opts, None);
    let one = |s: Service| -> Result<Found, String> {
        let e = |x: crate::openai::HttpError| x.to_string();
        match s {
            Service::Arxiv => parse_arxiv(&client.get_bytes(&arxiv_url(&cfg.arxiv, query, n)?).map_err(e)?),
            Service::Pubmed => {
                let (ids, total) =
                    parse_pubmed_search(&client.get_json(&pubmed_search_url(&cfg.pubmed, query, n)?).map_err(e)?)?;
                if ids.is_empty() {
                    return Ok(Found { papers: Vec::new(), total });
                }
                let v = client.get_json(&pubmed_summary_url(&cfg.pubmed, &ids)?).map_err(e)?;
                Ok(Found { papers: parse_pubmed_summary(&v, &ids)?, total })
            }
            Service::Crossref => parse_crossref(&client.get_json(&crossref_url(&cfg.crossref, query, n)?).map_err(e)?),
        }
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = services.iter().map(|&s| (s, scope.spawn(move || one(s)))).collect();
        handles
            .into_iter()
            .map(|(service, h)| ServiceResult {
                service,
                outcome: h.join().unwrap_or_else(|_| Err("the request thread failed".into())).map(|mut f| {
                    f.papers.truncate(n);
                    f
                }),
            })
            .collect()
    })
}

/// Interleave the services' papers (first of each, then second of each, …), dropping a
/// paper whose DOI or arXiv id came earlier; the first `limit`, and how many more.
pub fn merge(results: &[ServiceResult], limit: usize) -> (Vec<Paper>, usize) {
    let lists: Vec<&[Paper]> = results.iter().filter_map(|r| r.outcome.as_ref().ok()).map(|f| &f.papers[..]).collect();
    let longest = lists.iter().map(|l| l.len()).max().unwrap_or(0);
    let mut seen: HashSet<String> = HashSet::new();
    let mut all = Vec::new();
    for i in 0..longest {
        for l in &lists {
            let Some(p) = l.get(i) else { continue };
            let keys: Vec<String> = p
                .doi
                .iter()
                .map(|d| format!("doi:{d}"))
                .chain(p.arxiv_id.iter().map(|a| format!("arxiv:{}", a.to_lowercase())))
                .collect();
            if keys.iter().any(|k| seen.contains(k)) {
                continue;
            }
            seen.extend(keys);
            all.push(p.clone());
        }
    }
    let more = all.len().saturating_sub(limit);
    all.truncate(limit);
    (all, more)
}

// ---------------------------------------------------------------------------------
// The tool

/// Arguments of `feed.research`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ResearchArgs {
    /// What to look for, in plain words ("protein language models").
    pub query: String,
    /// Which services, comma-separated: `arxiv`, `pubmed`, `crossref` (default `arxiv,pubmed`).
    #[serde(default)]
    pub sources: Option<String>,
    /// How many papers to show in all, 1 to 16 (default 5).
    #[serde(default)]
    #[schemars(range(min = 1, max = 16))]
    pub limit: Option<i64>,
    /// Accepted for symmetry; results are not ranked for a reader.
    #[serde(default)]
    pub user: Option<String>,
}

/// One service's part of a `feed.research` answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ServiceStatus {
    /// The service.
    pub source: Service,
    /// How many papers it says match (when it says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<u64>,
    /// How many it returned.
    pub returned: usize,
    /// Why it gave nothing, if it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What `feed.research` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Researched {
    /// The query as given.
    pub query: String,
    /// Each service asked.
    pub sources: Vec<ServiceStatus>,
    /// The papers, interleaved across services in their own order.
    pub papers: Vec<Paper>,
    /// Papers returned but not shown.
    pub more: usize,
}

/// The refusal when the web is off.
pub fn disabled_answer() -> Answer<Value> {
    Answer::refuse(
        "feed.research searches arXiv, PubMed and CrossRef on the web, which is off: set ATTEST_RESEARCH_WEB=1 in this server's environment and restart it (attest emit copies it into the agent's config when it is set). Meanwhile feed.search searches the archive your feeds brought in.",
    )
    .with_options(vec!["feed.search".into(), "feed.source_suggest".into()])
}

async fn mark_archived(ctx: &Context, papers: &mut [Paper]) -> Result<(), sqlx::Error> {
    let dois: Vec<String> = papers.iter().filter_map(|p| p.doi.clone()).collect();
    let arx: Vec<String> = papers.iter().filter_map(|p| p.arxiv_id.clone()).collect();
    if dois.is_empty() && arx.is_empty() {
        return Ok(());
    }
    let marks = |from: usize, n: usize| (from..from + n).map(|i| format!("${i}")).collect::<Vec<_>>().join(", ");
    let sql = format!(
        "SELECT min(id) AS id, doi, arxiv_id FROM items WHERE doi IN ({}) OR arxiv_id IN ({}) GROUP BY doi, arxiv_id",
        if dois.is_empty() { "NULL".to_string() } else { marks(1, dois.len()) },
        if arx.is_empty() { "NULL".to_string() } else { marks(dois.len() + 1, arx.len()) },
    );
    let mut q = sqlx::query(&sql);
    for d in dois.iter().chain(arx.iter()) {
        q = q.bind(d);
    }
    let mut by_key: HashMap<String, i64> = HashMap::new();
    for r in q.fetch_all(ctx.store.pool()).await? {
        let id: i64 = r.get("id");
        if let Some(d) = r.get::<Option<String>, _>("doi") {
            by_key.entry(format!("doi:{d}")).or_insert(id);
        }
        if let Some(a) = r.get::<Option<String>, _>("arxiv_id") {
            by_key.entry(format!("arxiv:{a}")).or_insert(id);
        }
    }
    for p in papers.iter_mut() {
        p.in_archive = p
            .doi
            .as_ref()
            .and_then(|d| by_key.get(&format!("doi:{d}")))
            .or_else(|| p.arxiv_id.as_ref().and_then(|a| by_key.get(&format!("arxiv:{a}"))))
            .copied();
    }
    Ok(())
}

/// `feed.research`.
pub(crate) async fn tool(ctx: &Context, a: ResearchArgs) -> Result<Answer<Value>, Fault> {
    let limit = match a.limit {
        None => crate::tools::DEFAULT_LIMIT as usize,
        Some(n) if (1..=MAX_LIMIT).contains(&n) => n as usize,
        Some(n) => {
            return Ok(Answer::refuse(format!(
                "feed.research: limit must be between 1 and {MAX_LIMIT} (got {n}); ask for the first few and narrow the query."
            )));
        }
    };
    let services = match parse_services(a.sources.as_deref().unwrap_or("")) {
        Ok(s) => s,
        Err(e) => return Ok(Answer::refuse(format!("feed.research: {e}."))),
    };
    let query = clean::collapse_ws(&a.query);
    if query.chars().count() < 2 || query.chars().count() > 300 {
        return Ok(Answer::refuse(
            "feed.research needs a query of 2 to 300 characters: the topic in a few words, e.g. query=\"protein language models\".",
        ));
    }
    if !ctx.research.enabled {
        return Ok(disabled_answer());
    }
    search_and_answer(ctx, &services, &query, limit).await
}

#[cfg(not(feature = "fetch"))]
async fn search_and_answer(_: &Context, _: &[Service], _: &str, _: usize) -> Result<Answer<Value>, Fault> {
    Ok(Answer::refuse(
        "feed.research needs the web, and this build has no HTTP client (built without the `fetch` feature). feed.search searches the archive.",
    )
    .with_options(vec!["feed.search".into()]))
}

#[cfg(feature = "fetch")]
async fn search_and_answer(
    ctx: &Context,
    services: &[Service],
    query: &str,
    limit: usize,
) -> Result<Answer<Value>, Fault> {
    let (cfg, svc, q) = (ctx.research.clone(), services.to_vec(), query.to_string());
    let results = tokio::task::spawn_blocking(move || search_blocking(&cfg, &svc, &q, limit))
        .await
        .map_err(|e| Fault::new("feed.research", e))?;
    let names = |ok: bool| -> Vec<&str> {
        results.iter().filter(|r| r.outcome.is_ok() == ok).map(|r| r.service.label()).collect::<Vec<_>>()
    };
    let errors: Vec<String> = results
        .iter()
        .filter_map(|r| r.outcome.as_ref().err().map(|e| format!("{} failed: {}", r.service.label(), clip(e, 200))))
        .collect();
    let status: Vec<ServiceStatus> = results
        .iter()
        .map(|r| ServiceStatus {
            source: r.service,
            found: r.outcome.as_ref().ok().and_then(|f| f.total),
            returned: r.outcome.as_ref().map_or(0, |f| f.papers.len()),
            error: r.outcome.as_ref().err().map(|e| clip(e, 200)),
        })
        .collect();
    if names(true).is_empty() {
        return Ok(Answer::refuse(format!(
            "feed.research could not search: {}. Nothing was searched; try again later, or use feed.search for the archive.",
            errors.join("; ")
        ))
        .with_options(vec!["feed.search".into()]));
    }
    let (mut papers, more) = merge(&results, limit);
    if papers.is_empty() {
        let mut refusal = Answer::refuse(format!(
            "nothing found on {} for '{}'. Try other or fewer words, another source (sources=arxiv,pubmed,crossref), or feed.search for the archive.",
            names(true).join(", "),
            clip(query, 80)
        ))
        .with_options(vec!["feed.search".into()]);
        if !errors.is_empty() {
            refusal = refusal.with_caveats(errors);
        }
        return Ok(refusal);
    }
    mark_archived(ctx, &mut papers).await.map_err(|e| Fault::new("feed database", e))?;
    let refs: Vec<Ref> = papers
        .iter()
        .map(|p| match &p.url {
            Some(u) => Ref::with_url(p.ref_id(), clip(u, crate::tools::URL_CHARS)),
            None => Ref::id(p.ref_id()),
        })
        .collect();
    let found: Vec<String> = results
        .iter()
        .filter_map(|r| r.outcome.as_ref().ok().map(|f| (r.service, f)))
        .map(|(s, f)| match f.total {
            Some(t) => format!("{} {t}", s.label()),
            None => format!("{} {}", s.label(), f.papers.len()),
        })
        .collect();
    let shown: Vec<String> = papers
        .iter()
        .take(3)
        .map(|p| {
            let year = p.year.map(|y| format!(", {y}")).unwrap_or_default();
            format!("{}{year} ({})", clip(&p.title, 70), p.source.label())
        })
        .collect();
    let archived = papers.iter().filter(|p| p.in_archive.is_some()).count();
    let line = format!(
        "{} for '{}' on the web (matches: {}): {}{}{}",
        attest_core::text::plural(papers.len(), "paper", "papers"),
        clip(query, 60),
        found.join(", "),
        shown.join("; "),
        if more > 0 { format!(" ({more} more returned; raise limit up to {MAX_LIMIT})") } else { String::new() },
        if archived > 0 {
            format!(". {archived} already in your archive (in_archive = its item_id)")
        } else {
            String::new()
        },
    );
    let mut caveats = vec![format!(
        "these come from the web ({}), each service's own relevance order interleaved, not ranked for the reader; nothing was stored in the archive",
        names(true).join(", ")
    )];
    if !errors.is_empty() {
        caveats.push(format!("{}; the other sources answered", errors.join("; ")));
    }
    let data = Researched { query: clip(query, 200), sources: status, papers: papers.clone(), more };
    // The urls travel once, in refs.
    let mut answer = Answer::ok(line, data).with_refs(refs).with_caveats(caveats).into_value();
    if let Some(list) = answer.data.as_mut().and_then(|d| d.get_mut("papers")).and_then(Value::as_array_mut) {
        for p in list {
            if let Some(o) = p.as_object_mut() {
                o.remove("url");
            }
        }
    }
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_parse_in_order_without_repeats() {
        assert_eq!(parse_services("").unwrap(), vec![Service::Arxiv, Service::Pubmed]);
        assert_eq!(parse_services("PubMed, crossref,pubmed").unwrap(), vec![Service::Pubmed, Service::Crossref]);
        assert!(parse_services("arxiv,scholar").unwrap_err().contains("scholar"));
    }

    #[test]
    fn config_is_off_by_default_and_bases_are_overridable() {
        let c = ResearchConfig::from_env(|_| None);
        assert!(!c.enabled);
        assert_eq!(c.arxiv, ARXIV_URL);
        let c = ResearchConfig::from_env(|k| match k {
            "ATTEST_RESEARCH_WEB" => Some("1".into()),
            "ATTEST_CROSSREF_URL" => Some("http://127.0.0.1:9/crossref/".into()),
            "ATTEST_RESEARCH_TIMEOUT" => Some("2".into()),
            _ => None,
        });
        assert!(c.enabled);
        assert_eq!(c.crossref, "http://127.0.0.1:9/crossref");
        assert_eq!(c.timeout, Duration::from_secs(2));
        assert!(!ResearchConfig::from_env(|k| (k == "ATTEST_RESEARCH_WEB").then(|| "0".into())).enabled);
    }

    #[test]
    fn urls_carry_the_query() {
        let u = arxiv_url(ARXIV_URL, "protein language-models!", 5).unwrap();
        assert!(u.contains("search_query=all%3Aprotein+AND+all%3Alanguage-models"), "{u}");
        assert!(u.contains("max_results=5"), "{u}");
        let u = pubmed_search_url("http://h/eutils/", "mRNA vaccine", 3).unwrap();
        assert!(u.starts_with("http://h/eutils/esearch.fcgi?db=pubmed"), "{u}");
        assert!(u.contains("term=mRNA+vaccine"), "{u}");
        assert!(crossref_url(CROSSREF_URL, "x y", 2).unwrap().contains("query.bibliographic=x+y"));
    }

    #[test]
    fn merging_interleaves_and_drops_duplicates() {
        let p = |s: Service, t: &str, doi: Option<&str>| {
            let mut p = Paper::new(s, t, vec![]);
            p.doi = doi.map(str::to_string);
            p
        };
        let r = vec![
            ServiceResult {
                service: Service::Arxiv,
                outcome: Ok(Found {
                    papers: vec![p(Service::Arxiv, "a1", Some("10.1/x")), p(Service::Arxiv, "a2", None)],
                    total: None,
                }),
            },
            ServiceResult { service: Service::Pubmed, outcome: Err("down".into()) },
            ServiceResult {
                service: Service::Crossref,
                outcome: Ok(Found {
                    papers: vec![p(Service::Crossref, "c1", Some("10.1/x")), p(Service::Crossref, "c2", None)],
                    total: None,
                }),
            },
        ];
        let (papers, more) = merge(&r, 2);
        let titles: Vec<&str> = papers.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["a1", "a2"]);
        assert_eq!(more, 1);
    }
}
