//! The citation tools over the reference library: `cite.save`, `cite.sync`,
//! `cite.related` and `cite.export`, and `cite.lookup` / `cite.search` / `cite.sources`
//! with the library asked first. Plain async functions over a [`Shelf`] (the library,
//! the feed archive it saves items from, the citation sources), no MCP in them.
//!
//! The feed archive is read through `attest_archive::FeedStore` only; the library's
//! own SQL is in [`crate::library`].

use std::collections::BTreeSet;
use std::sync::Arc;

use attest_archive::FeedStore;
use attest_archive::model::now_stamp;
use attest_core::config::Config;
use attest_core::stop::{Bounded, Stop};
use attest_core::text::{clip, plural};
use attest_core::{Answer, Catalogue, Fault, Hints, NoArgs, Ref, Tool, ToolSpec};
use attest_store::{Store, StoreError};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::library::{self, Anchor, Entry, Library, Merge, NewEntry, Origin, Relation, Saved, Status};
use crate::tools::{self as base, LookupArgs, LookupData, Row, SearchArgs, SearchData, SourcesData, reference_ref};
use crate::{Reference, Resolver, Sources, bibtex};

/// Most concepts a saved work is tagged with from the archive's vocabulary.
pub const MAX_FOUND_CONCEPTS: usize = 8;
/// Most works `cite.sync` looks up on CrossRef in one call.
pub const MAX_WEB_PER_SYNC: usize = 25;
/// Most characters of BibTeX `cite.export` returns in one answer.
pub const MAX_EXPORT_CHARS: usize = 5_000;

/// What the library tools share: the library, the feed archive items are saved from,
/// and the citation sources.
pub struct Shelf {
    /// The reference library.
    pub library: Library,
    /// The feed archive (read only).
    pub archive: FeedStore,
    /// The `.bib` files, Zotero and (when enabled) CrossRef.
    pub sources: Arc<Sources>,
}

impl std::fmt::Debug for Shelf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shelf").field("sources", &self.sources).finish()
    }
}

fn fault(tool: &'static str) -> impl Fn(sqlx::Error) -> Stop {
    move |e| Stop::Fault(Fault::new(tool, e))
}

impl Shelf {
    /// The shelf of one database.
    pub fn new(store: Store, sources: Arc<Sources>) -> Shelf {
        Shelf { library: Library::new(store.clone()), archive: FeedStore::new(store), sources }
    }

    /// The archive's concepts: every stored tag, arXiv categories as their concepts,
    /// canonical names.
    async fn vocabulary(&self, tool: &'static str) -> Result<BTreeSet<String>, Stop> {
        let stored = self.archive.tag_vocabulary().await.map_err(|e| Stop::Fault(Fault::new(tool, e)))?;
        let canon = attest_tags::Canon::builtin();
        Ok(stored
            .iter()
            .flat_map(|t| attest_tags::concept_tags(t))
            .map(|t| canon.canonical(&t))
            .filter(|t| !t.is_empty())
            .collect())
    }

    async fn entries(&self, tool: &'static str) -> Result<Vec<Entry>, Stop> {
        self.library.entries().await.map_err(fault(tool))
    }
}

/// The library tools for the database in `config`, over `sources`.
pub async fn catalogue(config: &Config, sources: Arc<Sources>) -> Result<Catalogue, StoreError> {
    let store = Store::open(&config.db).await?;
    Ok(tools(Arc::new(Shelf::new(store, sources))))
}

/// A paper's fields, as `feed.research` returns them (extra fields are ignored).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct PaperArgs {
    /// Its title.
    #[serde(default)]
    pub title: String,
    /// Its authors (`Family, Given` or `Given Family`).
    #[serde(default)]
    pub authors: Vec<String>,
    /// Year of publication.
    #[serde(default)]
    pub year: Option<i32>,
    /// Journal or venue.
    #[serde(default)]
    pub venue: Option<String>,
    /// DOI.
    #[serde(default)]
    pub doi: Option<String>,
    /// arXiv id.
    #[serde(default)]
    pub arxiv_id: Option<String>,
    /// A link to it.
    #[serde(default)]
    pub url: Option<String>,
    /// Its abstract, if at hand.
    #[serde(default, rename = "abstract")]
    pub abstract_text: Option<String>,
    /// The service that found it (`arxiv`, `pubmed`, `crossref`).
    #[serde(default)]
    pub source: Option<String>,
    /// The archive item holding the same paper, as `feed.research` reports it.
    #[serde(default)]
    pub in_archive: Option<i64>,
}

/// Arguments of `cite.save`: exactly one of `item_id`, `key`, `paper`, `bibtex`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct SaveArgs {
    /// A feed item to save, by its id (`item:42` in refs is 42).
    #[serde(default)]
    pub item_id: Option<i64>,
    /// A citation key, DOI or arXiv id: the record your .bib files or Zotero hold; a DOI
    /// no source has is looked up on CrossRef when web lookups are on.
    #[serde(default)]
    pub key: Option<String>,
    /// A paper as `feed.research` returns it (title, authors, year, venue, doi, arxiv_id, url).
    #[serde(default)]
    pub paper: Option<PaperArgs>,
    /// BibTeX text: one entry or several. Nothing is saved if any entry cannot be read.
    #[serde(default)]
    pub bibtex: Option<String>,
    /// Concepts to tag it with, besides those found in its title and abstract.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Works it cites: DOIs, arXiv ids or citation keys.
    #[serde(default)]
    pub cites: Vec<String>,
}

/// What `cite.save` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SaveData {
    /// Each work saved, in order (the first few): its key, and whether it was new.
    pub saved: Vec<Saved>,
    /// How many works were saved in all.
    pub n_saved: usize,
    /// How many of them were new to the library.
    pub n_added: usize,
    /// The entries as they now are in the library (the first few).
    pub entries: Vec<LibraryRow>,
    /// How many entries the library holds.
    pub library_size: i64,
}

/// A library entry as the tools show it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LibraryRow {
    /// The record, as every cite tool shows one.
    #[serde(flatten)]
    pub reference: Row,
    /// Its concepts.
    pub tags: Vec<String>,
    /// How many works it cites.
    pub n_cites: usize,
    /// The feed item it was saved from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item_id: Option<i64>,
}

impl From<&Entry> for LibraryRow {
    fn from(e: &Entry) -> LibraryRow {
        LibraryRow {
            reference: Row::from(&e.reference()),
            tags: e.tags.iter().take(12).cloned().collect(),
            n_cites: e.cites.len(),
            item_id: e.item_id,
        }
    }
}

/// Most entries an answer lists.
const MAX_LISTED: usize = 10;

fn saved_line(s: &Saved) -> String {
    match (&s.status, s.matched_by) {
        (Status::Added, _) => format!("{} as {}", clip(&s.title, 120), s.key),
        (_, by) => {
            let by = by.map(|b| format!(", {}", b.words())).unwrap_or_default();
            let what = if s.changed.is_empty() { String::new() } else { format!("; added {}", s.changed.join(", ")) };
            format!("{} was already there as {}{by}{what}", clip(&s.title, 120), s.key)
        }
    }
}

/// `cite.save`: keep a work in the library (or merge it into the entry it duplicates).
pub async fn save(shelf: &Shelf, args: SaveArgs) -> Result<Answer<SaveData>, Stop> {
    let given = [args.item_id.is_some(), args.key.is_some(), args.paper.is_some(), args.bibtex.is_some()]
        .iter()
        .filter(|b| **b)
        .count();
    if given == 0 {
        return Err(Stop::refuse(
            "cite.save needs what to save: item_id (a feed item), key (a citation key, DOI or arXiv id), paper (a result of feed.research) or bibtex (BibTeX text)",
        )
        .with_options(["cite.search", "feed.search"]));
    }
    if given > 1 {
        return Err(Stop::refuse(
            "cite.save saves one thing at a time: pass only one of item_id, key, paper and bibtex",
        ));
    }
    let mut works = if let Some(id) = args.item_id {
        vec![from_item(shelf, id).await?]
    } else if let Some(key) = &args.key {
        vec![from_key(shelf, key).await?]
    } else if let Some(paper) = &args.paper {
        vec![from_paper(shelf, paper).await?]
    } else {
        from_bibtex(args.bibtex.as_deref().unwrap_or_default())?
    };
    let vocabulary = shelf.vocabulary("cite.save").await?;
    for w in &mut works {
        w.tags.extend(args.tags.iter().cloned());
        w.cites.extend(args.cites.iter().cloned());
        let text = format!("{}\n{}", w.title, w.abstract_text);
        w.tags.extend(library::concepts_in(&text, &vocabulary, MAX_FOUND_CONCEPTS));
    }
    let saved = shelf.library.save(works, Merge::FillBlanks, &now_stamp()).await.map_err(fault("cite.save"))?;
    let entries = shelf.entries("cite.save").await?;
    let rows: Vec<LibraryRow> = saved
        .iter()
        .take(MAX_LISTED)
        .filter_map(|s| entries.iter().find(|e| e.key == s.key))
        .map(LibraryRow::from)
        .collect();
    let refs: Vec<Ref> = saved
        .iter()
        .take(MAX_LISTED)
        .filter_map(|s| entries.iter().find(|e| e.key == s.key))
        .map(|e| reference_ref(&e.reference()))
        .collect();
    let added = saved.iter().filter(|s| s.status == Status::Added).count();
    let answer = if saved.len() == 1 {
        let s = &saved[0];
        let tags = rows.first().map(|r| r.tags.clone()).unwrap_or_default();
        let about = if tags.is_empty() { String::new() } else { format!(" (concepts: {})", tags.join(", ")) };
        match s.status {
            Status::Added => format!("Saved {}{about}", saved_line(s)),
            _ => saved_line(s),
        }
    } else {
        let merged: Vec<String> =
            saved.iter().filter(|s| s.status != Status::Added).take(3).map(|s| s.key.clone()).collect();
        let more =
            if merged.is_empty() { String::new() } else { format!("; already in the library: {}", merged.join(", ")) };
        format!("Saved {}: {added} new{more}", plural(saved.len(), "work", "works"))
    };
    let mut a = Answer::ok(
        format!("{answer}. Your library holds {}.", plural(entries.len(), "entry", "entries")),
        SaveData {
            saved: saved.iter().take(MAX_LISTED).cloned().collect(),
            n_saved: saved.len(),
            n_added: added,
            entries: rows,
            library_size: entries.len() as i64,
        },
    )
    .with_refs(refs);
    if saved.len() > MAX_LISTED {
        a = a.with_caveats([format!("{} more saved works are not listed", saved.len() - MAX_LISTED)]);
    }
    Ok(a)
}

async fn from_item(shelf: &Shelf, id: i64) -> Result<NewEntry, Stop> {
    let item = shelf.archive.item(id).await.map_err(|e| Stop::Fault(Fault::new("cite.save", e)))?;
    let Some(item) = item else {
        let near: Vec<i64> = (id.saturating_sub(3)..=id.saturating_add(3)).filter(|n| *n > 0 && *n != id).collect();
        let found = shelf.archive.items(&near).await.map_err(|e| Stop::Fault(Fault::new("cite.save", e)))?;
        let hint = if found.is_empty() {
            "find the item with feed.search, which shows item ids".to_string()
        } else {
            let list: Vec<String> =
                found.iter().take(4).map(|i| format!("{} '{}'", i.id, clip(&i.title, 60))).collect();
            format!("nearby ids: {}; or find the item with feed.search", list.join(", "))
        };
        return Err(
            Stop::refuse(format!("there is no feed item {id}; {hint}")).with_options(["feed.search", "cite.save"])
        );
    };
    let resolver = shelf.sources.get().await;
    let known = item
        .doi
        .as_deref()
        .and_then(|d| resolver.lookup_local(d))
        .or_else(|| item.arxiv_id.as_deref().and_then(|a| resolver.lookup_local(&format!("arXiv:{a}"))));
    let mut work = NewEntry {
        title: item.title.clone(),
        year: item.published.get(..4).and_then(|y| y.parse().ok()),
        venue: item.source.clone(),
        doi: item.doi.clone(),
        arxiv_id: item.arxiv_id.clone(),
        url: item.url.clone(),
        abstract_text: item.summary.clone(),
        tags: item.tags.clone(),
        // The authors the feed names; a citation source that knows the work wins below.
        authors: item.authors.clone(),
        origin: Some(Origin::Item),
        origin_ref: item.id.to_string(),
        item_id: Some(item.id),
        ..NewEntry::default()
    };
    // A citation source that knows the same work gives what a feed item lacks.
    if let Some(r) = known {
        if !r.authors.is_empty() {
            work.authors = r.authors.clone();
        }
        work.year = r.year.or(work.year);
        work.key = Some(r.key.clone());
    }
    Ok(work)
}

async fn lookup_blocking(resolver: &Arc<Resolver>, key: &str) -> Result<Option<Reference>, Stop> {
    if !resolver.online() {
        return Ok(resolver.lookup(key));
    }
    let r = Arc::clone(resolver);
    let k = key.to_string();
    tokio::task::spawn_blocking(move || r.lookup(&k)).await.map_err(|e| Stop::Fault(Fault::new("cite.save", e)))
}

/// The `.bib` details of a record the sources hold.
fn details_of<'a>(resolver: &'a Resolver, r: &Reference) -> Option<&'a bibtex::Details> {
    resolver.records().into_iter().find(|(rec, _)| rec.key == r.key && rec.origin == r.origin).and_then(|(_, d)| d)
}

async fn from_key(shelf: &Shelf, key: &str) -> Result<NewEntry, Stop> {
    let key = key.trim();
    if key.is_empty() {
        return Err(Stop::refuse("key is empty: pass a citation key, a DOI or an arXiv id (e.g. key=\"1706.03762\")"));
    }
    let resolver = shelf.sources.get().await;
    match lookup_blocking(&resolver, key).await? {
        Some(r) => Ok(NewEntry::from_reference(&r, details_of(&resolver, &r))),
        None => {
            let near = resolver.search(key, 3);
            let hint = if near.references.is_empty() {
                String::new()
            } else {
                let keys: Vec<&str> = near.references.iter().map(|r| r.key.as_str()).collect();
                format!(" Nearest keys: {}.", keys.join(", "))
            };
            let web = if resolver.online() { "" } else { " CrossRef is not asked unless ATTEST_CITATION_WEB=1." };
            Err(Stop::refuse(format!(
                "no source has '{}' (checked: {}).{hint}{web} To save a paper no source has, pass its fields as paper={{title, authors, year, doi, arxiv_id}} (as feed.research returns them)",
                clip(key, 120),
                resolver.source_names()
            ))
            .with_options(["cite.search", "cite.sources"]))
        }
    }
}

async fn from_paper(shelf: &Shelf, p: &PaperArgs) -> Result<NewEntry, Stop> {
    if p.title.trim().is_empty() {
        // Identifiers alone: the record a source has for them.
        if let Some(id) = p.doi.as_deref().or(p.arxiv_id.as_deref()) {
            return from_key(shelf, id).await;
        }
        return Err(Stop::refuse(
            "paper needs at least a title (or a doi or arxiv_id that a source knows); pass the fields feed.research returned",
        ));
    }
    Ok(NewEntry {
        kind: if p.venue.is_some() && p.doi.is_some() { "article".into() } else { "misc".into() },
        title: p.title.clone(),
        authors: p.authors.clone(),
        year: p.year,
        venue: p.venue.clone(),
        doi: p.doi.clone(),
        arxiv_id: p.arxiv_id.clone(),
        url: p.url.clone(),
        abstract_text: p.abstract_text.clone().unwrap_or_default(),
        origin: Some(Origin::Paper),
        origin_ref: p.source.clone().unwrap_or_default(),
        item_id: p.in_archive,
        ..NewEntry::default()
    })
}

fn from_bibtex(text: &str) -> Result<Vec<NewEntry>, Stop> {
    if text.trim().is_empty() {
        return Err(Stop::refuse("bibtex is empty: pass one or more entries such as @article{key, title={…}, …}"));
    }
    let file = bibtex::parse(text, "BibTeX given to cite.save");
    let broken: Vec<String> = file
        .problems
        .iter()
        .filter(|p| !p.kept)
        .map(|p| match &p.key {
            Some(k) => format!("line {} '{k}': {}", p.line, p.reason),
            None => format!("line {}: {}", p.line, p.reason),
        })
        .collect();
    if !broken.is_empty() {
        let good: Vec<&str> = file.references.iter().map(|r| r.key.as_str()).take(5).collect();
        let good = if good.is_empty() { String::new() } else { format!(" These read fine: {}.", good.join(", ")) };
        return Err(Stop::refuse(format!(
            "nothing was saved: {} could not be read ({}).{good} Fix or remove the broken one and save again",
            plural(broken.len(), "entry", "entries"),
            clip(&broken.join("; "), 400)
        )));
    }
    if file.references.is_empty() {
        return Err(Stop::refuse(
            "no BibTeX entry was found in bibtex: an entry looks like @article{key, title={…}, author={…}, year={…}}",
        ));
    }
    Ok(file.references.iter().zip(file.details.iter()).map(|(r, d)| NewEntry::from_reference(r, Some(d))).collect())
}

/// Arguments of `cite.sync`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct SyncArgs {
    /// Also add every record of your .bib files and Zotero the library does not have yet
    /// (default: only refresh the entries it has).
    #[serde(default)]
    pub import: bool,
}

/// What `cite.sync` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SyncData {
    /// Entries refreshed from their source, the first few.
    pub refreshed: Vec<Saved>,
    /// How many entries were refreshed.
    pub n_refreshed: usize,
    /// How many entries were filled in from CrossRef.
    pub n_web: usize,
    /// How many records were added (with `import`).
    pub n_added: usize,
    /// How many entries no source has (saved from papers or the feed); kept as they are.
    pub n_unsourced: usize,
    /// How many entries the library holds now.
    pub library_size: usize,
    /// Whether CrossRef was asked.
    pub online: bool,
}

/// `cite.sync`: read the sources again and bring the library up to date with them.
pub async fn sync(shelf: &Shelf, args: SyncArgs) -> Result<Answer<SyncData>, Stop> {
    let resolver = shelf.sources.reload().await;
    let records = resolver.records();
    let broken: Vec<String> = resolver
        .sources()
        .into_iter()
        .filter(|s| !s.network)
        .flat_map(|s| s.problems.into_iter().filter(|p| p.contains("skipped")).map(move |p| format!("{}: {p}", s.name)))
        .collect();
    if args.import && !broken.is_empty() {
        return Err(Stop::refuse(format!(
            "nothing was imported: {} in your sources could not be read ({}). Fix them and sync again, or sync without import to refresh only the entries the library has",
            plural(broken.len(), "entry", "entries"),
            clip(&broken.join("; "), 400)
        ))
        .with_options(["cite.sources", "cite.sync"]));
    }
    let entries = shelf.entries("cite.sync").await?;
    if entries.is_empty() && !args.import {
        return Err(Stop::refuse(
            format!(
            "your library is empty, so there is nothing to refresh: save works with cite.save, or add every record of your .bib files and Zotero: {}",
            import_step().for_agent()
        ))
        .with_next(import_step())
        .with_options(["cite.save", "cite.sync"]));
    }
    let vocabulary = shelf.vocabulary("cite.sync").await?;
    // 1. Each entry's record in the sources: by key within the same kind of source, else
    //    by DOI or arXiv id.
    let mut refresh: Vec<NewEntry> = Vec::new();
    let mut fill: Vec<NewEntry> = Vec::new();
    let mut unsourced = Vec::new();
    for e in &entries {
        let by_key = matches!(e.origin, Origin::Bibtex | Origin::Zotero)
            .then(|| records.iter().find(|(r, _)| library_origin(r) == e.origin && r.key.eq_ignore_ascii_case(&e.key)))
            .flatten();
        let by_id = || {
            records.iter().find(|(r, _)| {
                e.doi.as_deref().is_some_and(|d| r.doi.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(d)))
                    || e.arxiv_id
                        .as_deref()
                        .is_some_and(|a| r.arxiv_id.as_deref().is_some_and(|x| x.eq_ignore_ascii_case(a)))
            })
        };
        match by_key.or_else(by_id) {
            Some((r, d)) => {
                let mut w = NewEntry::from_reference(r, *d);
                w.key = Some(e.key.clone());
                if by_key.is_some() {
                    refresh.push(w);
                } else {
                    w.key = None;
                    fill.push(w);
                }
            }
            None => unsourced.push(e),
        }
    }
    // 2. CrossRef, only with web lookups on: entries with a DOI that still lack something.
    let mut web = Vec::new();
    let mut web_left = 0usize;
    let mut n_asked = 0usize;
    if resolver.online() {
        let wanting: Vec<&Entry> = unsourced
            .iter()
            .copied()
            .filter(|e| e.doi.is_some() && (e.authors.is_empty() || e.year.is_none() || e.venue.is_none()))
            .collect();
        web_left = wanting.len().saturating_sub(MAX_WEB_PER_SYNC);
        for e in wanting.into_iter().take(MAX_WEB_PER_SYNC) {
            let doi = e.doi.clone().unwrap_or_default();
            n_asked += 1;
            if let Some(r) = lookup_blocking(&resolver, &doi).await? {
                web.push(NewEntry::from_reference(&r, None));
            }
        }
    }
    // 3. With import: every record the library does not have yet.
    let mut imported = Vec::new();
    if args.import {
        for (r, d) in &records {
            let mut w = NewEntry::from_reference(r, *d);
            let text = format!("{}\n{}", w.title, w.abstract_text);
            w.tags.extend(library::concepts_in(&text, &vocabulary, MAX_FOUND_CONCEPTS));
            imported.push(w);
        }
    }
    let now = now_stamp();
    let lib = &shelf.library;
    // One transaction for the whole sync: a failure leaves the library as it was.
    let (n_refresh, n_fill, n_web_found) = (refresh.len(), fill.len(), web.len());
    let works: Vec<(NewEntry, Merge)> = refresh
        .into_iter()
        .map(|w| (w, Merge::Refresh))
        .chain(fill.into_iter().chain(web).chain(imported).map(|w| (w, Merge::FillBlanks)))
        .collect();
    let mut saved = lib.save_each(works, &now).await.map_err(fault("cite.sync"))?.into_iter();
    let refreshed: Vec<Saved> = saved.by_ref().take(n_refresh).collect();
    let filled: Vec<Saved> = saved.by_ref().take(n_fill).collect();
    let from_web: Vec<Saved> = saved.by_ref().take(n_web_found).collect();
    let added: Vec<Saved> = saved.collect();
    let changed: Vec<Saved> =
        refreshed.into_iter().chain(filled).filter(|s| !matches!(s.status, Status::Unchanged)).collect();
    let n_web = from_web.iter().filter(|s| !matches!(s.status, Status::Unchanged)).count();
    let n_added = added.iter().filter(|s| s.status == Status::Added).count();
    let size = lib.len().await.map_err(fault("cite.sync"))? as usize;
    let mut parts = vec![format!("{} refreshed from your sources", plural(changed.len(), "entry", "entries"))];
    if resolver.online() {
        parts.push(format!("{n_web} filled in from CrossRef ({n_asked} looked up)"));
    }
    if args.import {
        parts.push(format!("{n_added} added"));
    }
    let answer = format!(
        "Synced your library with {}: {}. It holds {}.",
        resolver.source_names(),
        parts.join(", "),
        plural(size, "entry", "entries")
    );
    let mut caveats = Vec::new();
    if !unsourced.is_empty() {
        caveats.push(format!(
            "{} no source has (saved from papers or the feed) {} kept as {} are",
            plural(unsourced.len(), "entry", "entries"),
            if unsourced.len() == 1 { "is" } else { "are" },
            if unsourced.len() == 1 { "it" } else { "they" }
        ));
    }
    if !broken.is_empty() {
        caveats.push(format!(
            "{} in your sources could not be read and {} left alone: {}",
            plural(broken.len(), "entry", "entries"),
            if broken.len() == 1 { "was" } else { "were" },
            clip(&broken.join("; "), 300)
        ));
    }
    if web_left > 0 {
        caveats.push(format!("{web_left} more entries with a DOI were not looked up this time; sync again for them"));
    }
    if !resolver.online() {
        caveats.push("CrossRef was not asked (web lookups are off; ATTEST_CITATION_WEB=1 turns them on)".to_string());
    }
    let n_unsourced = unsourced.len();
    let data = SyncData {
        n_refreshed: changed.len(),
        refreshed: changed.into_iter().take(MAX_LISTED).collect(),
        n_web,
        n_added,
        n_unsourced,
        library_size: size,
        online: resolver.online(),
    };
    Ok(Answer::ok(answer, data).with_caveats(caveats))
}

fn library_origin(r: &Reference) -> Origin {
    match r.source {
        crate::Source::Zotero => Origin::Zotero,
        crate::Source::Bibtex => Origin::Bibtex,
        crate::Source::Web => Origin::Crossref,
        crate::Source::Library => Origin::Paper,
    }
}

/// Arguments of `cite.related`: `to` or `item_id`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct RelatedArgs {
    /// A library entry (its key, DOI or arXiv id), a record of your sources, or a concept
    /// (`graph neural networks`).
    #[serde(default)]
    pub to: Option<String>,
    /// A feed item, by id: library entries about what it is about.
    #[serde(default)]
    pub item_id: Option<i64>,
    /// How many entries to show.
    #[serde(default)]
    pub limit: Bounded<1, 25, 5>,
}

/// One related entry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RelatedRow {
    /// The entry.
    #[serde(flatten)]
    pub entry: LibraryRow,
    /// Why it is related.
    pub why: Relation,
}

/// What `cite.related` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RelatedData {
    /// What the entries are related to, in words.
    pub anchor: String,
    /// The concepts it was read as.
    pub concepts: Vec<String>,
    /// The related entries, best first.
    pub related: Vec<RelatedRow>,
    /// How many entries are related in all.
    pub matches: usize,
}

/// `cite.related`: library entries that share concepts or citations with a work, an
/// item or a concept.
pub async fn related(shelf: &Shelf, args: RelatedArgs) -> Result<Answer<RelatedData>, Stop> {
    let to = args.to.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let (anchor, what) = match (to, args.item_id) {
        (None, None) => {
            return Err(Stop::refuse(
                "cite.related needs what to relate to: to= a library key, DOI, arXiv id or a concept, or item_id= a feed item",
            )
            .with_options(["cite.search", "kg.concepts"]));
        }
        (Some(_), Some(_)) => {
            return Err(Stop::refuse("pass either to or item_id, not both"));
        }
        (None, Some(id)) => item_anchor(shelf, id).await?,
        (Some(t), None) => text_anchor(shelf, t).await?,
    };
    let entries = shelf.entries("cite.related").await?;
    if entries.is_empty() {
        return Err(Stop::refuse(format!(
            "your library is empty: save works with cite.save, or add the records of your .bib files and Zotero: {}",
            import_step().for_agent()
        ))
        .with_next(import_step())
        .with_options(["cite.save", "cite.sync"]));
    }
    if anchor.tags.is_empty() && anchor.cites.is_empty() && anchor.names.is_empty() {
        let near = library::nearest_tags(to.unwrap_or_default(), &entries, 5);
        return Err(Stop::refuse(format!(
            "'{}' names no entry and no concept of your library or archive; concepts in your library nearest to it: {}",
            clip(to.unwrap_or_default(), 80),
            if near.is_empty() { "none yet".to_string() } else { near.join(", ") }
        ))
        .with_options(["cite.search", "kg.concepts"]));
    }
    let found = library::related(&anchor, &entries);
    if found.is_empty() {
        let near = library::nearest_tags(&anchor.tags.join(" "), &entries, 5);
        let concepts = if anchor.tags.is_empty() { "no concept".to_string() } else { anchor.tags.join(", ") };
        return Err(Stop::refuse(format!(
            "nothing in your library shares a concept or a citation with {what} (read as: {concepts}); concepts your library has: {}",
            if near.is_empty() { "none yet".to_string() } else { near.join(", ") }
        ))
        .with_options(["cite.search", "cite.save"]));
    }
    let limit = args.limit.get() as usize;
    let matches = found.len();
    let shown: Vec<RelatedRow> =
        found.iter().take(limit).map(|(e, why)| RelatedRow { entry: LibraryRow::from(e), why: why.clone() }).collect();
    let best = &found[0];
    let reason = |r: &Relation| {
        let mut parts = Vec::new();
        if let Some(c) = &r.citation {
            parts.push(c.clone());
        }
        if !r.shared_citations.is_empty() {
            parts.push(format!("both cite {}", r.shared_citations.join(", ")));
        }
        if !r.shared_concepts.is_empty() {
            parts.push(format!("shares {}", r.shared_concepts.join(", ")));
        }
        parts.join("; ")
    };
    let answer = format!(
        "{} in your library {} to {what}; closest: {}; why: {}",
        plural(matches, "entry", "entries"),
        if matches == 1 { "relates" } else { "relate" },
        best.0.reference().line(),
        reason(&best.1)
    );
    let refs = found.iter().take(limit).map(|(e, _)| reference_ref(&e.reference())).collect();
    let data = RelatedData { anchor: what, concepts: anchor.tags.clone(), related: shown, matches };
    let mut a = Answer::ok(answer, data).with_refs(refs);
    if matches > limit {
        a = a.with_caveats([format!("{} more related entries are not listed", matches - limit)]);
    }
    Ok(a)
}

async fn item_anchor(shelf: &Shelf, id: i64) -> Result<(Anchor, String), Stop> {
    let item = shelf.archive.item(id).await.map_err(|e| Stop::Fault(Fault::new("cite.related", e)))?;
    let Some(item) = item else {
        return Err(Stop::refuse(format!(
            "there is no feed item {id}; find the item with feed.search, which shows item ids"
        ))
        .with_options(["feed.search", "cite.related"]));
    };
    let vocabulary = shelf.vocabulary("cite.related").await?;
    let mut tags = library::canonical_tags(&item.tags);
    for t in library::concepts_in(&format!("{}\n{}", item.title, item.summary), &vocabulary, MAX_FOUND_CONCEPTS) {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    let names = [item.doi.clone(), item.arxiv_id.clone()].into_iter().flatten().collect();
    let own = shelf.library.entries().await.map_err(fault("cite.related"))?;
    let key = own.iter().find(|e| e.item_id == Some(id)).map(|e| e.key.clone());
    Ok((Anchor { key, tags, cites: Vec::new(), names }, format!("feed item {id} '{}'", clip(&item.title, 80))))
}

async fn text_anchor(shelf: &Shelf, text: &str) -> Result<(Anchor, String), Stop> {
    let entries = shelf.entries("cite.related").await?;
    // A library entry, by key, DOI or arXiv id.
    if let Some(e) = entries.iter().find(|e| e.answers_to(text)) {
        let names = [Some(e.key.clone()), e.doi.clone(), e.arxiv_id.clone()].into_iter().flatten().collect();
        let anchor = Anchor { key: Some(e.key.clone()), tags: e.tags.clone(), cites: e.cites.clone(), names };
        return Ok((anchor, format!("{} ({})", clip(e.title_or_key(), 80), e.key)));
    }
    let vocabulary = shelf.vocabulary("cite.related").await?;
    // A record of the sources.
    let resolver = shelf.sources.get().await;
    if let Some(r) = resolver.lookup_local(text) {
        let d = details_of(&resolver, &r);
        let mut tags = library::canonical_tags(&d.map(|d| d.keywords.clone()).unwrap_or_default());
        let abs = d.map(|d| d.abstract_text.as_str()).unwrap_or_default();
        tags.extend(library::concepts_in(&format!("{}\n{abs}", r.title), &vocabulary, MAX_FOUND_CONCEPTS));
        let names = [Some(r.key.clone()), r.doi.clone(), r.arxiv_id.clone()].into_iter().flatten().collect();
        let cites = d.map(|d| d.cites.clone()).unwrap_or_default();
        return Ok((Anchor { key: None, tags, cites, names }, format!("{} ({})", clip(&r.title, 80), r.key)));
    }
    // A concept: its canonical name, and the archive's or library's concepts it mentions.
    let mut known = vocabulary;
    known.extend(entries.iter().flat_map(|e| e.tags.iter().cloned()));
    let canonical = library::canonical_tags(&[text.to_string()]);
    let folded: Vec<String> = canonical.iter().map(|c| attest_tags::fold_key(c)).collect();
    let mut tags: Vec<String> = known.iter().filter(|k| folded.contains(&attest_tags::fold_key(k))).cloned().collect();
    for t in library::concepts_in(text, &known, MAX_FOUND_CONCEPTS) {
        if !tags.contains(&t) {
            tags.push(t);
        }
    }
    Ok((Anchor { key: None, tags, cites: Vec::new(), names: Vec::new() }, format!("'{}'", clip(text, 80))))
}

/// Arguments of `cite.export`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ExportArgs {
    /// Only these entries (keys, DOIs or arXiv ids); default: the whole library.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Only entries tagged with this concept.
    #[serde(default)]
    pub tag: Option<String>,
}

/// What `cite.export` returns.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ExportData {
    /// The BibTeX text of the entries that fit in one answer.
    pub bibtex: String,
    /// How many entries it holds.
    pub n_entries: usize,
    /// How many entries were asked for in all.
    pub n_selected: usize,
}

/// The entries `keys` and `tag` select, in library order; keys no entry answers to.
pub fn select<'a>(entries: &'a [Entry], keys: &[String], tag: Option<&str>) -> (Vec<&'a Entry>, Vec<String>) {
    let wanted: Vec<String> = tag
        .map(|t| library::canonical_tags(&[t.to_string()]))
        .unwrap_or_default()
        .iter()
        .map(|t| attest_tags::fold_key(t))
        .collect();
    let missing = keys.iter().filter(|k| !entries.iter().any(|e| e.answers_to(k))).cloned().collect();
    let chosen = entries
        .iter()
        .filter(|e| keys.is_empty() || keys.iter().any(|k| e.answers_to(k)))
        .filter(|e| tag.is_none() || e.tags.iter().any(|t| wanted.contains(&attest_tags::fold_key(t))))
        .collect();
    (chosen, missing)
}

/// `cite.export`: library entries as BibTeX, as much as fits in one answer.
pub async fn export(shelf: &Shelf, args: ExportArgs) -> Result<Answer<ExportData>, Stop> {
    let entries = shelf.entries("cite.export").await?;
    if entries.is_empty() {
        return Err(Stop::refuse(format!(
            "your library is empty: save works with cite.save, or add the records of your .bib files and Zotero: {}",
            import_step().for_agent()
        ))
        .with_next(import_step())
        .with_options(["cite.save", "cite.sync"]));
    }
    let tag = args.tag.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let (chosen, missing) = select(&entries, &args.keys, tag);
    if !missing.is_empty() {
        let near: Vec<String> = missing
            .iter()
            .flat_map(|m| {
                let f = library::fold(m);
                entries.iter().filter(move |e| {
                    let k = e.key.to_lowercase();
                    f.split(' ').any(|w| w.len() >= 3 && k.contains(w))
                })
            })
            .map(|e| e.key.clone())
            .take(5)
            .collect();
        return Err(Stop::refuse(format!(
            "no library entry is {}; {}",
            missing.iter().map(|m| format!("'{}'", clip(m, 60))).collect::<Vec<_>>().join(", "),
            if near.is_empty() {
                "find keys with cite.search".to_string()
            } else {
                format!("nearest keys: {}", near.join(", "))
            }
        ))
        .with_options(["cite.search"]));
    }
    if chosen.is_empty() {
        let near = library::nearest_tags(tag.unwrap_or_default(), &entries, 5);
        return Err(Stop::refuse(format!(
            "no library entry is tagged '{}'; tags in your library nearest to it: {}",
            clip(tag.unwrap_or_default(), 60),
            near.join(", ")
        ))
        .with_options(["cite.search", "cite.export"]));
    }
    let mut text = String::new();
    let mut n = 0;
    for e in &chosen {
        let one = library::to_bibtex(std::slice::from_ref(*e));
        if n > 0 && text.len() + one.len() + 1 > MAX_EXPORT_CHARS {
            break;
        }
        if n > 0 {
            text.push('\n');
        }
        text.push_str(&one);
        n += 1;
    }
    let answer = format!("{} as BibTeX (in data.bibtex)", plural(n, "entry", "entries"));
    let mut a = Answer::ok(answer, ExportData { bibtex: text, n_entries: n, n_selected: chosen.len() });
    if n < chosen.len() {
        a = a.with_caveats([format!(
            "{} more did not fit in one answer; `attest cite export --out library.bib` writes them all",
            chosen.len() - n
        )]);
    }
    Ok(a)
}

/// `cite.lookup` with the library asked first.
pub async fn lookup(shelf: &Shelf, args: LookupArgs) -> Result<Answer<LookupData>, Stop> {
    let key = args.key.trim();
    if !key.is_empty()
        && key.chars().count() <= 500
        && let Some(e) = shelf.library.find(key).await.map_err(fault("cite.lookup"))?
    {
        let r = e.reference();
        return Ok(Answer::ok(r.line(), LookupData { reference: Row::from(&r) }).with_refs(vec![reference_ref(&r)]));
    }
    Ok(base::lookup(&shelf.sources.get().await, args).await?)
}

/// `cite.search` over the library and the sources, with filters.
pub async fn search(shelf: &Shelf, args: SearchArgs) -> Result<Answer<SearchData>, Stop> {
    let entries = shelf.entries("cite.search").await?;
    let resolver = shelf.sources.get().await;
    Ok(base::search_in(&resolver, &entries, args))
}

/// `cite.sources`, saying how many entries the library holds too.
pub async fn sources(shelf: &Shelf) -> Result<Answer<SourcesData>, Stop> {
    let mut a = base::sources(&shelf.sources.get().await).await?;
    let n = shelf.library.len().await.map_err(fault("cite.sources"))?;
    a.answer = format!("{}. Your library (cite.save) holds {}", a.answer, plural(n as usize, "entry", "entries"));
    Ok(a)
}

/// Writes that are safe to repeat: saving a work twice leaves one entry.
const SAVE: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: false };

/// The citation tools with the reference library: `cite.lookup`, `cite.search`,
/// `cite.sources`, `cite.save`, `cite.sync`, `cite.related` and `cite.export`.
pub fn tools(shelf: Arc<Shelf>) -> Catalogue {
    let online = shelf.sources.online();
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($spec:expr, $f:path, $args:ty) => {{
            let s = Arc::clone(&shelf);
            c.push(Tool::new($spec, move |a: $args| {
                let s = Arc::clone(&s);
                async move { $f(&s, a).await.map(Answer::into_value) }
            }));
        }};
    }
    tool!(
        ToolSpec::new(
            "cite.lookup",
            "Look up a reference",
            "Look up one reference by its citation key, DOI or arXiv id: in your library, your .bib files and your Zotero library.\n\nCase does not matter; a doi.org link or arXiv url works too. CrossRef is asked only when web lookups are enabled.",
            Hints { open_world: online, ..Hints::READ },
        ),
        lookup,
        LookupArgs
    );
    tool!(
        ToolSpec::new(
            "cite.search",
            "Find references by words",
            "Find references in your library, .bib files and Zotero by author, title words, year or key, optionally only those by an author, from a year or range of years, or (library entries) tagged with a concept.\n\nNever searches online. Best matches first.",
            Hints::READ,
        ),
        search,
        SearchArgs
    );
    let s = Arc::clone(&shelf);
    c.push(Tool::new(
        ToolSpec::new(
            "cite.sources",
            "Where references come from",
            "List where references come from (.bib files, Zotero, CrossRef), how many each holds, what could not be read, whether anything goes online, and how many entries your library holds.",
            Hints::READ,
        ),
        move |_: NoArgs| {
            let s = Arc::clone(&s);
            async move { sources(&s).await.map(Answer::into_value) }
        },
    ));
    tool!(
        ToolSpec::new(
            "cite.save",
            "Save a work to your library",
            "Keep a work in your reference library: a feed item (item_id), a record of your .bib files or Zotero (key: citation key, DOI or arXiv id), a paper feed.research found (paper), or BibTeX text (bibtex).\n\nA work the library already has (same DOI, arXiv id, or title, first author and year) is merged, never added twice. It is tagged with the concepts of your archive its title and abstract mention.",
            Hints { open_world: online, ..SAVE },
        ),
        save,
        SaveArgs
    );
    tool!(
        ToolSpec::new(
            "cite.sync",
            "Refresh your library from your sources",
            "Read your .bib files and Zotero again and refresh the library entries they hold; import=true also adds every record the library lacks. With web lookups on (ATTEST_CITATION_WEB=1), entries with a DOI that no source has are filled in from CrossRef.",
            Hints { open_world: online, ..SAVE },
        ),
        sync,
        SyncArgs
    );
    tool!(
        ToolSpec::new(
            "cite.related",
            "What in your library relates to a work or concept",
            "Library entries related to a work (to: a key, DOI or arXiv id), a feed item (item_id) or a concept (to: words), by the concepts they share, the works both cite, and direct citation.",
            Hints::READ,
        ),
        related,
        RelatedArgs
    );
    tool!(
        ToolSpec::new(
            "cite.export",
            "Your library as BibTeX",
            "Library entries as BibTeX: all of them, those named (keys), or those tagged with a concept (tag). One answer holds about 5,000 characters; `attest cite export --out FILE` writes the whole library.",
            Hints::READ,
        ),
        export,
        ExportArgs
    );
    c
}

/// The step that fills an empty library from the configured sources.
pub(crate) fn import_step() -> attest_core::Next {
    attest_core::Next::call("cite.sync").with("import", true)
}
