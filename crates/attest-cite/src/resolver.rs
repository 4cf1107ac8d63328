//! The resolver: every configured source, loaded once, asked in a fixed order.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bibtex;
use crate::reference::{Reference, Source, arxiv_of_key, normalize_doi};
use crate::zotero;

/// A lookup on the web, for DOIs no local source has: supplied by the program that
/// links one (CrossRef, in the `attest-crossref` crate), never built here. This crate
/// has no network code; a [`Resolver`] reaches the network only through this trait, and
/// only when its config asks for the web *and* carries one.
pub trait WebLookup: Send + Sync {
    /// How `cite.sources` lists it (`network: true`, and anything that limits it, such
    /// as a missing cache directory, in `problems`).
    fn info(&self) -> SourceInfo;
    /// The record `key` names, if it is a DOI the service knows. Only a key shaped like a
    /// DOI may be sent: a citation key is the researcher's own label. Any failure (no
    /// network, a timeout, a 404, an answer of the wrong shape) is `None`. May block.
    fn lookup(&self, key: &str) -> Option<Reference>;
}

/// How to build a [`Resolver`]. The web setting is read once, here: a resolver built
/// with `web: false` never reaches the network, whatever is asked of it later.
#[derive(Clone)]
pub struct ResolverConfig {
    /// `.bib` files, or directories searched (recursively, hidden folders skipped) for
    /// them. A path that does not exist is reported in [`Resolver::sources`], not fatal.
    pub bib_paths: Vec<PathBuf>,
    /// A Zotero database to read. When `None` and `find_zotero` is set,
    /// `~/Zotero/zotero.sqlite` is read if it exists.
    pub zotero: Option<PathBuf>,
    /// Whether to look for Zotero's default library when no path is given.
    pub find_zotero: bool,
    /// Look DOIs up on the web (CrossRef). Off by default; has no effect unless
    /// `web_lookup` is set too (a program without one says so in [`Resolver::sources`]).
    pub web: bool,
    /// The web lookup to use when `web` is set, supplied by a program that links one
    /// (`attest_crossref::enable`). `None` in every program without network code.
    pub web_lookup: Option<Arc<dyn WebLookup>>,
    /// Where web answers are cached, one JSON file per DOI (used by the web lookup the
    /// caller supplies). No cache when `None`.
    pub cache_dir: Option<PathBuf>,
    /// Paths inside this directory are shown relative to it (the research root).
    pub base: Option<PathBuf>,
}

impl Default for ResolverConfig {
    fn default() -> Self {
        ResolverConfig {
            bib_paths: Vec::new(),
            zotero: None,
            find_zotero: true,
            web: false,
            web_lookup: None,
            cache_dir: None,
            base: None,
        }
    }
}

impl std::fmt::Debug for ResolverConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResolverConfig")
            .field("bib_paths", &self.bib_paths)
            .field("zotero", &self.zotero)
            .field("find_zotero", &self.find_zotero)
            .field("web", &self.web)
            .field("web_lookup", &self.web_lookup.as_ref().map(|w| w.info().name))
            .field("cache_dir", &self.cache_dir)
            .field("base", &self.base)
            .finish()
    }
}

/// One source, as `cite.sources` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SourceInfo {
    /// Its name: the `.bib` file or Zotero database as shown, or `crossref`.
    pub name: String,
    /// Which kind of source it is.
    pub kind: Source,
    /// Whether asking it reaches the network.
    pub network: bool,
    /// How many records it holds (0 for the web, which holds none up front).
    pub records: usize,
    /// What could not be read, each in a few words (skipped entries, missing tables).
    pub problems: Vec<String>,
}

struct Reader {
    info: SourceInfo,
    records: Vec<Reference>,
    /// What each `.bib` record leaves out (same order as `records`; empty for Zotero).
    details: Vec<bibtex::Details>,
    /// Lower-cased key, `doi:<doi>` and `arxiv:<id>` → index into `records`.
    index: HashMap<String, usize>,
}

impl Reader {
    fn new(info: SourceInfo, records: Vec<Reference>) -> Reader {
        let mut index = HashMap::new();
        for (i, r) in records.iter().enumerate() {
            index.entry(r.key.to_lowercase()).or_insert(i);
            if let Some(d) = &r.doi {
                index.entry(format!("doi:{}", d.to_lowercase())).or_insert(i);
            }
            if let Some(a) = &r.arxiv_id {
                index.entry(format!("arxiv:{}", a.to_lowercase())).or_insert(i);
            }
        }
        Reader { info: SourceInfo { records: records.len(), ..info }, records, details: Vec::new(), index }
    }

    fn find(&self, needles: &[String]) -> Option<&Reference> {
        needles.iter().find_map(|n| self.index.get(n)).map(|&i| &self.records[i])
    }
}

/// The result of [`Resolver::search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Found {
    /// The best matches, best first, at most the limit asked for.
    pub references: Vec<Reference>,
    /// How many records matched in all.
    pub matches: usize,
}

/// Citation sources as a server holds them: read on first use, then kept. A surface
/// starts answering at once instead of first walking the research root for `.bib`
/// files; the first citation tool called pays for the load, once.
pub struct Sources {
    config: Option<ResolverConfig>,
    cell: tokio::sync::OnceCell<Arc<Resolver>>,
    /// The sources read again by [`Sources::reload`] (`cite.sync`), when they were.
    latest: std::sync::RwLock<Option<Arc<Resolver>>>,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sources").field("loaded", &self.cell.initialized()).finish()
    }
}

impl Sources {
    /// Sources read from `config` when first needed.
    pub fn lazy(config: ResolverConfig) -> Arc<Sources> {
        Arc::new(Sources { config: Some(config), cell: tokio::sync::OnceCell::new(), latest: Default::default() })
    }

    /// Sources already loaded.
    pub fn ready(resolver: Arc<Resolver>) -> Arc<Sources> {
        Arc::new(Sources {
            config: None,
            cell: tokio::sync::OnceCell::new_with(Some(resolver)),
            latest: Default::default(),
        })
    }

    /// The resolver, loading the sources on the first call.
    pub async fn get(&self) -> Arc<Resolver> {
        if let Some(r) = self.latest.read().ok().and_then(|l| l.clone()) {
            return r;
        }
        let config = self.config.as_ref();
        let load = || async move {
            match config {
                Some(c) => Arc::new(Resolver::build(c).await),
                None => Arc::new(Resolver::empty()),
            }
        };
        Arc::clone(self.cell.get_or_init(load).await)
    }

    /// Read the sources again from disk (`.bib` files and Zotero change while a server
    /// runs); later calls see the new reading. Sources made [`Sources::ready`] stay as
    /// they are.
    pub async fn reload(&self) -> Arc<Resolver> {
        let Some(config) = &self.config else { return self.get().await };
        let fresh = Arc::new(Resolver::build(config).await);
        if let Ok(mut l) = self.latest.write() {
            *l = Some(Arc::clone(&fresh));
        }
        fresh
    }

    /// Whether a lookup may reach the network, known without loading anything.
    pub fn online(&self) -> bool {
        match (self.cell.get(), &self.config) {
            (Some(r), _) => r.online(),
            (None, Some(c)) => c.web && c.web_lookup.is_some(),
            (None, None) => false,
        }
    }
}

/// Every configured citation source, loaded once.
pub struct Resolver {
    readers: Vec<Reader>,
    notes: Vec<SourceInfo>,
    web: Option<Arc<dyn WebLookup>>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver").field("sources", &self.sources()).finish()
    }
}

fn shown(path: &Path, base: Option<&Path>) -> String {
    if let Some(rel) = base.and_then(|b| path.strip_prefix(b).ok()) {
        return rel.display().to_string();
    }
    if let Some(rel) = dirs::home_dir().and_then(|h| path.strip_prefix(h).ok().map(Path::to_path_buf)) {
        return format!("~/{}", rel.display());
    }
    path.display().to_string()
}

/// `.bib` files under `dir`, sorted, hidden folders skipped, at most 6 levels deep. A
/// symbolic link is followed only when it stays inside the directory the walk began
/// in (the research root, by default): `attest_claims::confine`, the check every tool
/// shares.
fn bib_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let top = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    bib_files_in(&top, dir, depth, out);
}

fn bib_files_in(top: &Path, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "node_modules" || name == "target" {
            continue;
        }
        let link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
        if link && !attest_claims::confine::inside(top, &p) {
            continue;
        }
        if p.is_dir() {
            if depth < 6 {
                bib_files_in(top, &p, depth + 1, out);
            }
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("bib")) {
            out.push(p);
        }
    }
}

impl Resolver {
    /// A resolver with no sources: every lookup misses.
    pub fn empty() -> Resolver {
        Resolver { readers: Vec::new(), notes: Vec::new(), web: None }
    }

    /// A resolver over records already in memory (for tests and embedding), as one
    /// source named `name`.
    pub fn from_references(name: &str, kind: Source, records: Vec<Reference>) -> Resolver {
        let info = SourceInfo { name: name.to_string(), kind, network: false, records: 0, problems: Vec::new() };
        Resolver { readers: vec![Reader::new(info, records)], ..Resolver::empty() }
    }

    /// Load every configured source: Zotero first, then the `.bib` files in the order
    /// given, then (only when enabled and supplied) the web lookup. Never fails: a source that
    /// cannot be read holds no records and says why in [`Resolver::sources`].
    pub async fn build(config: &ResolverConfig) -> Resolver {
        let base = config.base.as_deref();
        let mut r = Resolver::empty();

        let zotero_path =
            config.zotero.clone().or_else(|| if config.find_zotero { zotero::default_path() } else { None });
        if let Some(path) = zotero_path {
            let name = shown(&path, base);
            let lib = zotero::read(&path, &name).await;
            let info = SourceInfo { name, kind: Source::Zotero, network: false, records: 0, problems: lib.problems };
            r.readers.push(Reader::new(info, lib.references));
        }

        let mut files = Vec::new();
        let mut missing = Vec::new();
        for p in &config.bib_paths {
            if p.is_dir() {
                bib_files(p, 0, &mut files);
            } else if p.is_file() {
                files.push(p.clone());
            } else {
                missing.push(p.clone());
            }
        }
        let mut seen = HashSet::new();
        for path in files {
            if !seen.insert(path.clone()) {
                continue;
            }
            let name = shown(&path, base);
            let records = match tokio::task::spawn_blocking({
                let path = path.clone();
                let name = name.clone();
                move || bibtex::read(&path, &name)
            })
            .await
            {
                Ok(Ok(file)) => {
                    let problems = file
                        .problems
                        .iter()
                        .map(|s| {
                            let what = if s.kept { "kept, but" } else { "skipped:" };
                            match (&s.key, s.line) {
                                (Some(k), 0) => format!("'{k}' {what} {}", s.reason),
                                (Some(k), l) => format!("line {l} '{k}' {what} {}", s.reason),
                                (None, l) => format!("line {l} {what} {}", s.reason),
                            }
                        })
                        .collect();
                    (file.references, problems, file.details)
                }
                Ok(Err(e)) => (Vec::new(), vec![format!("could not read the file: {e}")], Vec::new()),
                Err(e) => (Vec::new(), vec![format!("reading the file failed: {e}")], Vec::new()),
            };
            let problems = records.1;
            let info = SourceInfo { name, kind: Source::Bibtex, network: false, records: 0, problems };
            let mut reader = Reader::new(info, records.0);
            reader.details = records.2;
            r.readers.push(reader);
        }
        for p in missing {
            r.notes.push(SourceInfo {
                name: shown(&p, base),
                kind: Source::Bibtex,
                network: false,
                records: 0,
                problems: vec!["no such file or directory".into()],
            });
        }

        if config.web {
            match &config.web_lookup {
                Some(web) => r.web = Some(Arc::clone(web)),
                None => r.notes.push(SourceInfo {
                    name: "crossref".into(),
                    kind: Source::Web,
                    network: false,
                    records: 0,
                    problems: vec!["web lookups were asked for, but this program has no network code (CrossRef is linked only into attest-knowledge and the attest CLI); nothing is looked up online".into()],
                }),
            }
        }
        r
    }

    fn needles(key: &str) -> Vec<String> {
        let key = key.trim();
        let mut n = vec![key.to_lowercase()];
        if let Some(d) = normalize_doi(key) {
            n.push(format!("doi:{}", d.to_lowercase()));
        }
        if let Some(a) = arxiv_of_key(key) {
            n.push(format!("arxiv:{}", a.to_lowercase()));
        }
        n
    }

    /// Find the record `key` names: a citation key, a DOI (bare, `doi:` or a doi.org
    /// link) or an arXiv id, without regard to case. Sources are asked in order and the
    /// first that knows it answers. Only a DOI can reach CrossRef, and only when the
    /// web is enabled; this call then blocks on the network (or the cache).
    pub fn lookup(&self, key: &str) -> Option<Reference> {
        if key.trim().is_empty() {
            return None;
        }
        if let Some(r) = self.lookup_local(key) {
            return Some(r);
        }
        self.web.as_ref().and_then(|web| web.lookup(key))
    }

    /// [`Resolver::lookup`] over the sources on disk only, never the network.
    pub fn lookup_local(&self, key: &str) -> Option<Reference> {
        if key.trim().is_empty() {
            return None;
        }
        let needles = Self::needles(key);
        self.readers.iter().find_map(|r| r.find(&needles)).cloned()
    }

    /// Whether some source knows `key` (the test the `uncited` lint applies).
    pub fn resolves(&self, key: &str) -> bool {
        self.lookup(key).is_some()
    }

    /// Whether a lookup may reach the network.
    pub fn online(&self) -> bool {
        self.web.is_some()
    }

    /// The sources consulted, for messages: `refs/main.bib, ~/Zotero/zotero.sqlite`, or
    /// `no citation source (none is configured)`.
    pub fn source_names(&self) -> String {
        let names: Vec<String> =
            self.sources().into_iter().filter(|s| s.records > 0 || s.network).map(|s| s.name).collect();
        if names.is_empty() { "no citation source (none is configured)".into() } else { names.join(", ") }
    }

    /// Every source: name, kind, whether it reaches the network, how many records it
    /// holds and what could not be read.
    pub fn sources(&self) -> Vec<SourceInfo> {
        let mut out: Vec<SourceInfo> = self.readers.iter().map(|r| r.info.clone()).collect();
        out.extend(self.notes.iter().cloned());
        out.extend(self.web.iter().map(|w| w.info()));
        out
    }

    /// Every record on disk with what its `.bib` entry adds, source by source in
    /// lookup order (Zotero records have no details).
    pub fn records(&self) -> Vec<(&Reference, Option<&bibtex::Details>)> {
        self.readers.iter().flat_map(|r| r.records.iter().enumerate().map(|(i, rec)| (rec, r.details.get(i)))).collect()
    }

    /// Records matching `query` on the sources on disk (never the network), best first:
    /// ranked by how many of the query's words appear in a record's key, title, authors
    /// and year, with an exact key, DOI or arXiv id first. Records with the same key are
    /// shown once (the first source wins). `limit` is clamped to 1..=100.
    pub fn search(&self, query: &str, limit: usize) -> Found {
        if query.trim().is_empty() {
            return Found { references: Vec::new(), matches: 0 };
        }
        self.search_with(query, limit, &[], &|_| true)
    }

    /// [`Resolver::search`] over `first` (another source's records, asked before these,
    /// such as the reference library) and the sources on disk, keeping only the records
    /// `keep` accepts. A record whose key, DOI or arXiv id was already shown is not shown
    /// again. An empty query matches every record `keep` accepts, in source order.
    pub fn search_with(
        &self,
        query: &str,
        limit: usize,
        first: &[Reference],
        keep: &dyn Fn(&Reference) -> bool,
    ) -> Found {
        let limit = limit.clamp(1, 100);
        let words = tokens(query);
        let exact = Self::needles(query);
        let browse = query.trim().is_empty();
        let mut seen = HashSet::new();
        let mut scored: Vec<(f64, usize, &Reference)> = Vec::new();
        let mut order = 0usize;
        let leading = (!first.is_empty()).then(|| {
            let info = SourceInfo {
                name: String::new(),
                kind: Source::Library,
                network: false,
                records: 0,
                problems: Vec::new(),
            };
            Reader::new(info, first.to_vec())
        });
        for reader in leading.iter().chain(&self.readers) {
            let exact_hit = reader.find(&exact).map(|r| r as *const Reference);
            for r in &reader.records {
                order += 1;
                let mut names = vec![r.key.to_lowercase()];
                names.extend(r.doi.as_ref().map(|d| format!("doi:{}", d.to_lowercase())));
                names.extend(r.arxiv_id.as_ref().map(|a| format!("arxiv:{}", a.to_lowercase())));
                let shown = names.iter().any(|n| seen.contains(n));
                seen.extend(names);
                if shown || !keep(r) {
                    continue;
                }
                let mut score = if browse { 1.0 } else { 0.0 };
                if exact_hit == Some(r as *const Reference) {
                    score += 100.0;
                }
                if !words.is_empty() {
                    let have = record_tokens(r);
                    for w in &words {
                        if have.contains(w) {
                            score += 1.0;
                        } else if w.len() >= 4
                            && have
                                .iter()
                                .any(|h| h.starts_with(w.as_str()) || w.starts_with(h.as_str()) && h.len() >= 4)
                        {
                            score += 0.5;
                        }
                    }
                }
                if score > 0.0 {
                    scored.push((score, order, r));
                }
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let matches = scored.len();
        let references = scored.into_iter().take(limit).map(|(_, _, r)| r.clone()).collect();
        drop(leading);
        Found { references, matches }
    }
}

/// Lower-case words of two or more letters or digits; common English words dropped.
fn tokens(text: &str) -> Vec<String> {
    const STOP: &[&str] =
        &["the", "of", "and", "for", "on", "in", "a", "an", "to", "with", "by", "is", "at", "from", "et", "al"];
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 2 && !STOP.contains(&w.as_str()))
        .collect();
    out.dedup();
    let mut seen = HashSet::new();
    out.retain(|w| seen.insert(w.clone()));
    out
}

fn record_tokens(r: &Reference) -> HashSet<String> {
    let mut t: HashSet<String> = HashSet::new();
    t.insert(r.key.to_lowercase());
    // Split keys like `vaswani2017attention` into letters and digits as well.
    let mut cur = String::new();
    let mut digit = None;
    for c in r.key.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                t.insert(std::mem::take(&mut cur).to_lowercase());
            }
            digit = None;
            continue;
        }
        let d = c.is_ascii_digit();
        if digit.is_some_and(|p| p != d) && !cur.is_empty() {
            t.insert(std::mem::take(&mut cur).to_lowercase());
        }
        digit = Some(d);
        cur.push(c);
    }
    if !cur.is_empty() {
        t.insert(cur.to_lowercase());
    }
    t.extend(tokens(&r.title));
    for a in &r.authors {
        t.extend(tokens(a));
    }
    if let Some(y) = r.year {
        t.insert(y.to_string());
    }
    t
}
