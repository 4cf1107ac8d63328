//! CrossRef lookups of DOIs for attest-cite: the one piece of citation code that reaches
//! the network, in its own crate so that only the programs that may go online link it
//! (`attest-knowledge` and the `attest` CLI; never `attest-provenance`). [`Crossref`]
//! implements [`attest_cite::WebLookup`]; [`enable`] hands one to a resolver config that
//! asked for the web (`ATTEST_CITATION_WEB=1`), and a resolver built with `web: false`
//! never calls it.
//!
//! Only a key shaped like a DOI is ever sent: a citation key is the researcher's own
//! label and means nothing to CrossRef. Answers are cached on disk, one JSON file per
//! DOI, and a cached record keeps the date it was first fetched. A failure of any kind
//! (no network, a timeout, a 404, an answer that is not CrossRef's shape) is a miss.

#![warn(missing_docs)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use attest_cite::{Reference, ResolverConfig, Source, SourceInfo, WebLookup, find_year, normalize_doi};
use serde_json::Value;

/// `config` with a CrossRef reader attached when it asks for the web (`web: true`, from
/// `ATTEST_CITATION_WEB=1`), caching in its `cache_dir`; unchanged otherwise.
pub fn enable(mut config: ResolverConfig) -> ResolverConfig {
    if config.web {
        config.web_lookup = Some(Arc::new(Crossref::new(None, config.cache_dir.clone())));
    }
    config
}

/// CrossRef's public API.
pub const DEFAULT_BASE: &str = "https://api.crossref.org";

/// A CrossRef reader.
pub struct Crossref {
    base: String,
    cache_dir: Option<PathBuf>,
    agent: ureq::Agent,
}

impl Crossref {
    /// A reader against `base` (default [`DEFAULT_BASE`]; tests point it at a loopback
    /// server), caching in `cache_dir`.
    pub fn new(base: Option<String>, cache_dir: Option<PathBuf>) -> Crossref {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(10)))
            .user_agent("attest-cite (research provenance; mailto unset)")
            .http_status_as_error(false)
            .build();
        Crossref {
            base: base.unwrap_or_else(|| DEFAULT_BASE.to_string()).trim_end_matches('/').to_string(),
            cache_dir,
            agent: config.into(),
        }
    }

    fn cache_file(&self, doi: &str) -> Option<PathBuf> {
        let name: String = doi
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' })
            .collect();
        self.cache_dir.as_ref().map(|d| d.join(format!("{name}.json")))
    }
}

impl WebLookup for Crossref {
    /// How `cite.sources` lists it.
    fn info(&self) -> SourceInfo {
        SourceInfo {
            name: "crossref".into(),
            kind: Source::Web,
            network: true,
            records: 0,
            problems: match &self.cache_dir {
                Some(_) => Vec::new(),
                None => vec!["no cache directory: every lookup goes to the network".into()],
            },
        }
    }

    /// The record for `key` if it is a DOI CrossRef knows; the cache first.
    fn lookup(&self, key: &str) -> Option<Reference> {
        let doi = normalize_doi(key)?;
        let cache = self.cache_file(&doi);
        if let Some(path) = &cache
            && let Ok(text) = std::fs::read_to_string(path)
            && let Ok(r) = serde_json::from_str::<Reference>(&text)
        {
            return Some(r);
        }
        let url = format!("{}/works/{}", self.base, encode_path(&doi));
        let mut resp = match self.agent.get(&url).call() {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!("crossref lookup of {doi} failed: {e}");
                return None;
            }
        };
        if resp.status().as_u16() != 200 {
            return None;
        }
        let body = resp.body_mut().with_config().limit(5 * 1024 * 1024).read_to_string().ok()?;
        let value: Value = serde_json::from_str(&body).ok()?;
        let r = from_crossref(&value, &doi, &self.base)?;
        if let Some(path) = &cache {
            if let Some(dir) = path.parent() {
                let _ = create_private_dir(dir);
            }
            if let Ok(text) = serde_json::to_string_pretty(&r) {
                let _ = write_private(path, &text);
            }
        }
        Some(r)
    }
}

fn encode_path(doi: &str) -> String {
    let mut out = String::new();
    for b in doi.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:;()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(unix)]
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

fn write_private(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("json.tmp");
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(&tmp)?;
    f.write_all(text.as_bytes())?;
    drop(f);
    std::fs::rename(tmp, path)
}

fn today() -> String {
    let d = time::OffsetDateTime::now_utc().date();
    format!("{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day())
}

/// A record from a CrossRef `/works/{doi}` answer (`{"status": "ok", "message": {…}}`).
pub fn from_crossref(value: &Value, doi: &str, base: &str) -> Option<Reference> {
    let m = value.get("message")?;
    if !m.is_object() {
        return None;
    }
    let title = match m.get("title") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let authors = m
        .get("author")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let family = p.get("family").and_then(Value::as_str).unwrap_or("").trim();
                    let given = p.get("given").and_then(Value::as_str).unwrap_or("").trim();
                    let name = p.get("name").and_then(Value::as_str).unwrap_or("").trim();
                    match (family, given) {
                        ("", _) if !name.is_empty() => Some(name.to_string()),
                        ("", _) => None,
                        (f, "") => Some(f.to_string()),
                        (f, g) => Some(format!("{f}, {g}")),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let year = ["issued", "published", "published-print", "published-online", "created"]
        .iter()
        .find_map(|k| m.get(*k)?.get("date-parts")?.get(0)?.get(0)?.as_i64().map(|y| y as i32));
    let year = year.or_else(|| m.get("issued").and_then(|v| find_year(&v.to_string())));
    let doi = m.get("DOI").and_then(Value::as_str).and_then(normalize_doi).unwrap_or_else(|| doi.to_string());
    let url = m.get("URL").and_then(Value::as_str).map(str::to_string);
    Some(Reference {
        key: doi.clone(),
        title: title.split_whitespace().collect::<Vec<_>>().join(" "),
        authors,
        year,
        doi: Some(doi),
        arxiv_id: None,
        url,
        source: Source::Web,
        fetched_at: Some(today()),
        origin: if base == DEFAULT_BASE { "crossref".into() } else { format!("crossref at {base}") },
    })
}
