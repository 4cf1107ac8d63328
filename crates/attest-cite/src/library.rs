//! The reference library: works the researcher chose to keep, in one deduplicated
//! table of the attest database (`library`, migration `0005_library.sql`).
//!
//! A work comes in as a [`NewEntry`] (from a `feed.research` paper's fields, a feed
//! item, a `.bib` or Zotero record, a CrossRef record) and is saved by
//! [`Library::save`], in one transaction: if the library already holds the same work
//! (same DOI, else same arXiv id, else the same normalised title, first author and
//! year; see [`duplicate_of`]) the two are merged and nothing new is added.
//! [`to_bibtex`] writes entries out through `biblatex`'s own writer; [`related`] ranks
//! entries by shared concepts and citations. The SQL lives here and nowhere else (the
//! feed archive is read through `attest_archive::FeedStore`).

use std::collections::{BTreeSet, HashMap, HashSet};

use attest_store::{Db, Store};
use biblatex::{Chunk, EntryType, Spanned};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sqlx::{FromRow, Transaction};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::bibtex::Details;
use crate::reference::{Reference, Source, find_arxiv_id, normalize_doi};

/// Where a library entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// A paper's fields, as `feed.research` returns them (or typed in).
    Paper,
    /// An item of the feed archive.
    Item,
    /// An entry of a `.bib` file (configured, or BibTeX text handed in).
    Bibtex,
    /// A record of the Zotero library.
    Zotero,
    /// A CrossRef record (only with web lookups on).
    Crossref,
}

impl Origin {
    /// How it is stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Paper => "paper",
            Origin::Item => "item",
            Origin::Bibtex => "bibtex",
            Origin::Zotero => "zotero",
            Origin::Crossref => "crossref",
        }
    }

    fn parse(s: &str) -> Origin {
        match s {
            "item" => Origin::Item,
            "bibtex" => Origin::Bibtex,
            "zotero" => Origin::Zotero,
            "crossref" => Origin::Crossref,
            _ => Origin::Paper,
        }
    }

    fn of(source: Source) -> Origin {
        match source {
            Source::Bibtex => Origin::Bibtex,
            Source::Zotero => Origin::Zotero,
            Source::Web => Origin::Crossref,
            Source::Library => Origin::Paper,
        }
    }
}

/// A work to save.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewEntry {
    /// The citation key it should have, if it comes with one (a `.bib` key); taken
    /// when free, else a key is made from author, year and title.
    pub key: Option<String>,
    /// The BibTeX entry type (`article`, `inproceedings`, `misc`); empty means `misc`.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// Its authors, `Family, Given` or `Given Family`.
    pub authors: Vec<String>,
    /// Year of publication.
    pub year: Option<i32>,
    /// Journal, proceedings or where it appeared.
    pub venue: Option<String>,
    /// DOI, any spelling.
    pub doi: Option<String>,
    /// arXiv id, any spelling.
    pub arxiv_id: Option<String>,
    /// A link to it.
    pub url: Option<String>,
    /// Its abstract.
    pub abstract_text: String,
    /// Concepts, any spelling (stored canonical).
    pub tags: Vec<String>,
    /// Works it cites: DOIs, arXiv ids or citation keys.
    pub cites: Vec<String>,
    /// Where it came from.
    pub origin: Option<Origin>,
    /// Which one: the `.bib` file, the item id, the service.
    pub origin_ref: String,
    /// The feed item it is, when saved from one.
    pub item_id: Option<i64>,
}

impl NewEntry {
    /// A record of a citation source, with what its `.bib` entry adds (`details`).
    pub fn from_reference(r: &Reference, details: Option<&Details>) -> NewEntry {
        let d = details.cloned().unwrap_or_default();
        NewEntry {
            key: (r.source != Source::Web).then(|| r.key.clone()),
            kind: d.kind,
            title: r.title.clone(),
            authors: r.authors.clone(),
            year: r.year,
            venue: d.venue,
            doi: r.doi.clone(),
            arxiv_id: r.arxiv_id.clone(),
            url: r.url.clone(),
            abstract_text: d.abstract_text,
            tags: d.keywords,
            cites: d.cites,
            origin: Some(Origin::of(r.source)),
            origin_ref: r.origin.clone(),
            item_id: None,
        }
    }

    /// Identifiers in one spelling: DOI bare and lower-case (an arXiv DOI also gives
    /// the arXiv id), arXiv id without version, tags canonical, lists without repeats.
    pub fn normalise(&mut self) {
        self.doi = self.doi.as_deref().and_then(normalize_doi).map(|d| d.to_lowercase());
        self.arxiv_id = self.arxiv_id.as_deref().and_then(find_arxiv_id).map(|a| a.to_lowercase());
        if self.arxiv_id.is_none()
            && let Some(id) = self.doi.as_deref().and_then(|d| d.strip_prefix("10.48550/arxiv."))
        {
            self.arxiv_id = find_arxiv_id(id);
        }
        self.title = collapse(&self.title);
        self.authors = self.authors.iter().map(|a| collapse(a)).filter(|a| !a.is_empty()).collect();
        self.tags = canonical_tags(&self.tags);
        self.cites = dedup(self.cites.iter().map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect());
        self.kind = self.kind.trim().to_lowercase();
        if self.kind.is_empty() {
            self.kind = if self.venue.is_some() && self.doi.is_some() { "article".into() } else { "misc".into() };
        }
        self.venue = self.venue.as_deref().map(collapse).filter(|v| !v.is_empty());
        self.url = self.url.as_deref().map(str::trim).filter(|u| !u.is_empty()).map(str::to_string);
        self.key = self.key.as_deref().map(str::trim).filter(|k| valid_key(k)).map(str::to_string);
    }
}

/// One entry of the library.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Entry {
    /// Its citation key, unique in the library (compared without case).
    pub key: String,
    /// The BibTeX entry type.
    pub kind: String,
    /// Its title.
    pub title: String,
    /// Its authors.
    pub authors: Vec<String>,
    /// Year of publication.
    pub year: Option<i32>,
    /// Journal, proceedings or where it appeared.
    pub venue: Option<String>,
    /// DOI, bare and lower-case.
    pub doi: Option<String>,
    /// arXiv id, without version.
    pub arxiv_id: Option<String>,
    /// A link to it.
    pub url: Option<String>,
    /// Its abstract.
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    /// Its concepts, canonical names.
    pub tags: Vec<String>,
    /// Works it cites.
    pub cites: Vec<String>,
    /// Where it came from.
    pub origin: Origin,
    /// Which one (the `.bib` file, the item id, the service).
    pub origin_ref: String,
    /// The feed item it is, if saved from one.
    pub item_id: Option<i64>,
    /// When it was saved.
    pub added: String,
    /// When it last changed.
    pub updated: String,
}

impl Entry {
    /// The entry as a citation record (source `library`), for lookups and answers.
    pub fn reference(&self) -> Reference {
        Reference {
            key: self.key.clone(),
            title: self.title.clone(),
            authors: self.authors.clone(),
            year: self.year,
            doi: self.doi.clone(),
            arxiv_id: self.arxiv_id.clone(),
            url: self.url.clone(),
            source: Source::Library,
            fetched_at: None,
            origin: self.provenance(),
        }
    }

    /// Where it came from, in words: `feed item 42`, `refs/main.bib`, `arxiv`.
    pub fn provenance(&self) -> String {
        match self.origin {
            Origin::Item => format!("feed item {}", self.origin_ref),
            _ if self.origin_ref.is_empty() => self.origin.as_str().to_string(),
            _ => self.origin_ref.clone(),
        }
    }

    /// Its title, or its key when it has none.
    pub fn title_or_key(&self) -> &str {
        if self.title.is_empty() { &self.key } else { &self.title }
    }

    /// Whether `needle` names it: its key, DOI or arXiv id, in any spelling.
    pub fn answers_to(&self, needle: &str) -> bool {
        self.reference().answers_to(needle)
    }

    fn ids(&self) -> Ids<'_> {
        Ids { doi: self.doi.as_deref(), arxiv_id: self.arxiv_id.as_deref(), match_key: String::new() }.with_key(
            &self.title,
            &self.authors,
            self.year,
        )
    }
}

/// What [`duplicate_of`] compares: the identifiers of one work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids<'a> {
    /// DOI, bare, lower-case.
    pub doi: Option<&'a str>,
    /// arXiv id, lower-case, no version.
    pub arxiv_id: Option<&'a str>,
    /// [`match_key`] of title, first author and year (empty: never matched on).
    pub match_key: String,
}

impl<'a> Ids<'a> {
    fn with_key(mut self, title: &str, authors: &[String], year: Option<i32>) -> Ids<'a> {
        self.match_key = match_key(title, authors, year);
        self
    }
}

/// How a saved work was found to be one the library already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MatchedBy {
    /// The same DOI.
    Doi,
    /// The same arXiv id.
    Arxiv,
    /// The same normalised title, first author's family name and year.
    Title,
    /// The same citation key in the same kind of source (`cite.sync` refreshing an
    /// entry saved from a `.bib` file or Zotero).
    Key,
}

impl MatchedBy {
    /// In words, for answers.
    pub fn words(self) -> &'static str {
        match self {
            MatchedBy::Doi => "same DOI",
            MatchedBy::Arxiv => "same arXiv id",
            MatchedBy::Title => "same title, first author and year",
            MatchedBy::Key => "same citation key",
        }
    }
}

/// Which of `existing` is the same work as `new`, and why: a DOI match anywhere wins,
/// then an arXiv id match, then the title key, which counts only when neither side has
/// a DOI or arXiv id that contradicts the other (two different DOIs are two works, an
/// erratum or a reply, even under one title).
pub fn duplicate_of(new: &Ids<'_>, existing: &[Ids<'_>]) -> Option<(usize, MatchedBy)> {
    let eq = |a: Option<&str>, b: Option<&str>| matches!((a, b), (Some(x), Some(y)) if x.eq_ignore_ascii_case(y));
    if let Some(i) = existing.iter().position(|e| eq(new.doi, e.doi)) {
        return Some((i, MatchedBy::Doi));
    }
    if let Some(i) = existing.iter().position(|e| eq(new.arxiv_id, e.arxiv_id)) {
        return Some((i, MatchedBy::Arxiv));
    }
    let differ = |a: Option<&str>, b: Option<&str>| matches!((a, b), (Some(x), Some(y)) if !x.eq_ignore_ascii_case(y));
    if new.match_key.is_empty() {
        return None;
    }
    existing
        .iter()
        .position(|e| e.match_key == new.match_key && !differ(new.doi, e.doi) && !differ(new.arxiv_id, e.arxiv_id))
        .map(|i| (i, MatchedBy::Title))
}

/// Lower-case words of letters and digits, accents removed (`Schrödinger's` →
/// `schrodinger s`), joined by single spaces.
pub fn fold(text: &str) -> String {
    let plain: String = text.nfkd().filter(|c| !is_combining_mark(*c)).flat_map(char::to_lowercase).collect();
    plain.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// An author's family name: before the comma of `Family, Given`, else the last word.
pub fn family(author: &str) -> &str {
    let a = author.trim();
    match a.split_once(',') {
        Some((f, _)) => f.trim(),
        None => a.rsplit(' ').next().unwrap_or(a),
    }
}

/// The key a work is matched on when it has no DOI or arXiv id in common: its folded
/// title, the last word of its first author's folded family name and its year,
/// `|`-separated. Empty (never matched) without a title, or for a one-word title
/// without both an author and a year.
pub fn match_key(title: &str, authors: &[String], year: Option<i32>) -> String {
    let t = fold(title);
    // A one-word title ("Introduction") names a work only with its author and year.
    if t.is_empty() || (!t.contains(' ') && (authors.is_empty() || year.is_none())) {
        return String::new();
    }
    // The last word of the family name: `De Bortoli, Valentin` and `Valentin De Bortoli`
    // (where the particle cannot be told from a given name) agree on `bortoli`.
    let first =
        authors.first().map(|a| fold(family(a)).rsplit(' ').next().unwrap_or_default().to_string()).unwrap_or_default();
    format!("{t}|{first}|{}", year.map(|y| y.to_string()).unwrap_or_default())
}

/// What happened to one saved work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// A new entry.
    Added,
    /// The library had it; blanks were filled in or tags added.
    Merged,
    /// The library had it, with nothing to add.
    Unchanged,
    /// Refreshed from its source (`cite.sync`): fields the source changed were taken.
    Refreshed,
}

/// The outcome of saving one work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Saved {
    /// The library key it is under.
    pub key: String,
    /// Its title.
    pub title: String,
    /// What happened.
    pub status: Status,
    /// For a work the library had: how it was recognised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_by: Option<MatchedBy>,
    /// Fields that changed (`doi`, `tags`, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// How [`Library::save`] treats a work the library already has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Fill what the entry lacks; keep what it has (saving again, a second source).
    FillBlanks,
    /// The incoming record is the entry's own source, refreshed: its non-empty fields
    /// replace the entry's (`cite.sync`).
    Refresh,
}

/// The library in the attest database.
#[derive(Debug, Clone)]
pub struct Library {
    store: Store,
}

#[derive(FromRow)]
struct Row {
    id: i64,
    key: String,
    kind: String,
    title: String,
    authors: String,
    year: Option<i64>,
    venue: Option<String>,
    doi: Option<String>,
    arxiv_id: Option<String>,
    url: Option<String>,
    #[sqlx(rename = "abstract")]
    abstract_text: String,
    tags: String,
    cites: String,
    origin: String,
    origin_ref: String,
    item_id: Option<i64>,
    added: String,
    updated: String,
}

impl Row {
    fn entry(self) -> (i64, Entry) {
        let list = |s: &str| serde_json::from_str::<Vec<String>>(s).unwrap_or_default();
        (
            self.id,
            Entry {
                key: self.key,
                kind: self.kind,
                title: self.title,
                authors: list(&self.authors),
                year: self.year.and_then(|y| i32::try_from(y).ok()),
                venue: self.venue,
                doi: self.doi,
                arxiv_id: self.arxiv_id,
                url: self.url,
                abstract_text: self.abstract_text,
                tags: list(&self.tags),
                cites: list(&self.cites),
                origin: Origin::parse(&self.origin),
                origin_ref: self.origin_ref,
                item_id: self.item_id,
                added: self.added,
                updated: self.updated,
            },
        )
    }
}

const COLUMNS: &str = "id, key, kind, title, authors, year, venue, doi, arxiv_id, url, abstract, tags, cites, \
                       origin, origin_ref, item_id, added, updated";

fn json(list: &[String]) -> String {
    serde_json::to_string(list).unwrap_or_else(|_| "[]".into())
}

impl Library {
    /// The library of this database.
    pub fn new(store: Store) -> Library {
        Library { store }
    }

    /// Every entry, in key order (without case).
    pub async fn entries(&self) -> Result<Vec<Entry>, sqlx::Error> {
        let sql = format!("SELECT {COLUMNS} FROM library ORDER BY lower(key), id");
        let rows: Vec<Row> = sqlx::query_as(&sql).fetch_all(self.store.pool()).await?;
        Ok(rows.into_iter().map(|r| r.entry().1).collect())
    }

    /// How many entries there are.
    pub async fn len(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT count(*) FROM library").fetch_one(self.store.pool()).await
    }

    /// Whether the library holds nothing.
    pub async fn is_empty(&self) -> Result<bool, sqlx::Error> {
        Ok(self.len().await? == 0)
    }

    /// The entry a key, DOI or arXiv id names.
    pub async fn find(&self, needle: &str) -> Result<Option<Entry>, sqlx::Error> {
        Ok(self.entries().await?.into_iter().find(|e| e.answers_to(needle)))
    }

    /// Save works, all in one transaction: each is added, or merged into the entry
    /// that is the same work ([`duplicate_of`], also against works earlier in the same
    /// call). Nothing is written if any write fails.
    pub async fn save(&self, works: Vec<NewEntry>, merge: Merge, now: &str) -> Result<Vec<Saved>, sqlx::Error> {
        self.save_each(works.into_iter().map(|w| (w, merge)).collect(), now).await
    }

    /// [`Library::save`] with a merge rule per work, all in one transaction.
    pub async fn save_each(&self, works: Vec<(NewEntry, Merge)>, now: &str) -> Result<Vec<Saved>, sqlx::Error> {
        let mut tx: Transaction<'static, Db> = self.store.pool().begin().await?;
        let sql = format!("SELECT {COLUMNS} FROM library ORDER BY id");
        let rows: Vec<Row> = sqlx::query_as(&sql).fetch_all(&mut *tx).await?;
        let mut have: Vec<(i64, Entry)> = rows.into_iter().map(Row::entry).collect();
        let mut out = Vec::with_capacity(works.len());
        for (mut work, merge) in works {
            work.normalise();
            let ids: Vec<Ids<'_>> = have.iter().map(|(_, e)| e.ids()).collect();
            let new_ids =
                Ids { doi: work.doi.as_deref(), arxiv_id: work.arxiv_id.as_deref(), match_key: String::new() }
                    .with_key(&work.title, &work.authors, work.year);
            let same_key = (merge == Merge::Refresh)
                .then(|| {
                    let k = work.key.as_deref()?;
                    have.iter().position(|(_, e)| {
                        e.origin == work.origin.unwrap_or(Origin::Paper) && e.key.eq_ignore_ascii_case(k)
                    })
                })
                .flatten()
                .map(|i| (i, MatchedBy::Key));
            let found = same_key.or_else(|| duplicate_of(&new_ids, &ids));
            drop(ids);
            match found {
                Some((i, by)) => {
                    let others: Vec<&Entry> =
                        have.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, (_, e))| e).collect();
                    let taken_doi =
                        work.doi.as_deref().is_some_and(|d| others.iter().any(|e| e.doi.as_deref() == Some(d)));
                    let taken_arxiv = work
                        .arxiv_id
                        .as_deref()
                        .is_some_and(|a| others.iter().any(|e| e.arxiv_id.as_deref() == Some(a)));
                    drop(others);
                    let (id, entry) = &mut have[i];
                    let changed = merge_into(entry, &work, merge, taken_doi, taken_arxiv);
                    if !changed.is_empty() {
                        entry.updated = now.to_string();
                        update(&mut tx, *id, entry).await?;
                    }
                    let status = match (changed.is_empty(), merge) {
                        (true, _) => Status::Unchanged,
                        (false, Merge::FillBlanks) => Status::Merged,
                        (false, Merge::Refresh) => Status::Refreshed,
                    };
                    out.push(Saved {
                        key: entry.key.clone(),
                        title: entry.title.clone(),
                        status,
                        matched_by: Some(by),
                        changed,
                    });
                }
                None => {
                    let taken: HashSet<String> = have.iter().map(|(_, e)| e.key.to_lowercase()).collect();
                    let key = work
                        .key
                        .clone()
                        .filter(|k| !taken.contains(&k.to_lowercase()))
                        .unwrap_or_else(|| free_key(&make_key(&work), &taken));
                    let entry = Entry {
                        key,
                        kind: work.kind.clone(),
                        title: work.title.clone(),
                        authors: work.authors.clone(),
                        year: work.year,
                        venue: work.venue.clone(),
                        doi: work.doi.clone(),
                        arxiv_id: work.arxiv_id.clone(),
                        url: work.url.clone(),
                        abstract_text: work.abstract_text.clone(),
                        tags: work.tags.clone(),
                        cites: work.cites.clone(),
                        origin: work.origin.unwrap_or(Origin::Paper),
                        origin_ref: work.origin_ref.clone(),
                        item_id: work.item_id,
                        added: now.to_string(),
                        updated: now.to_string(),
                    };
                    let id = insert(&mut tx, &entry).await?;
                    out.push(Saved {
                        key: entry.key.clone(),
                        title: entry.title.clone(),
                        status: Status::Added,
                        matched_by: None,
                        changed: Vec::new(),
                    });
                    have.push((id, entry));
                }
            }
        }
        tx.commit().await?;
        Ok(out)
    }
}

async fn insert(tx: &mut Transaction<'static, Db>, e: &Entry) -> Result<i64, sqlx::Error> {
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO library (key, kind, title, authors, year, venue, doi, arxiv_id, url, abstract, tags, cites, \
         origin, origin_ref, item_id, match_key, added, updated) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id",
    )
    .bind(&e.key)
    .bind(&e.kind)
    .bind(&e.title)
    .bind(json(&e.authors))
    .bind(e.year.map(i64::from))
    .bind(&e.venue)
    .bind(&e.doi)
    .bind(&e.arxiv_id)
    .bind(&e.url)
    .bind(&e.abstract_text)
    .bind(json(&e.tags))
    .bind(json(&e.cites))
    .bind(e.origin.as_str())
    .bind(&e.origin_ref)
    .bind(e.item_id)
    .bind(match_key(&e.title, &e.authors, e.year))
    .bind(&e.added)
    .bind(&e.updated)
    .fetch_one(&mut **tx)
    .await?;
    Ok(id)
}

async fn update(tx: &mut Transaction<'static, Db>, id: i64, e: &Entry) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE library SET kind = $1, title = $2, authors = $3, year = $4, venue = $5, doi = $6, arxiv_id = $7, \
         url = $8, abstract = $9, tags = $10, cites = $11, item_id = $12, match_key = $13, updated = $14 WHERE id = $15",
    )
    .bind(&e.kind)
    .bind(&e.title)
    .bind(json(&e.authors))
    .bind(e.year.map(i64::from))
    .bind(&e.venue)
    .bind(&e.doi)
    .bind(&e.arxiv_id)
    .bind(&e.url)
    .bind(&e.abstract_text)
    .bind(json(&e.tags))
    .bind(json(&e.cites))
    .bind(e.item_id)
    .bind(match_key(&e.title, &e.authors, e.year))
    .bind(&e.updated)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Merge `work` into `entry`; the names of the fields that changed. A DOI or arXiv id
/// another entry already has (`taken_*`) is never copied in.
fn merge_into(entry: &mut Entry, work: &NewEntry, merge: Merge, taken_doi: bool, taken_arxiv: bool) -> Vec<String> {
    let mut changed = Vec::new();
    let refresh = merge == Merge::Refresh;
    macro_rules! field {
        ($name:literal, $cur:expr, $new:expr, $empty:expr) => {
            let new = $new;
            if !$empty(&new) && ($empty(&$cur) || refresh) && $cur != new {
                $cur = new;
                changed.push($name.to_string());
            }
        };
    }
    let blank = |s: &String| s.is_empty();
    let none_s = |o: &Option<String>| o.is_none();
    field!("title", entry.title, work.title.clone(), blank);
    field!("authors", entry.authors, work.authors.clone(), |v: &Vec<String>| v.is_empty());
    field!("year", entry.year, work.year, |o: &Option<i32>| o.is_none());
    field!("venue", entry.venue, work.venue.clone(), none_s);
    if !taken_doi {
        field!("doi", entry.doi, work.doi.clone(), none_s);
    }
    if !taken_arxiv {
        field!("arxiv_id", entry.arxiv_id, work.arxiv_id.clone(), none_s);
    }
    field!("url", entry.url, work.url.clone(), none_s);
    field!("abstract", entry.abstract_text, work.abstract_text.clone(), blank);
    if (entry.kind == "misc" || refresh) && !work.kind.is_empty() && work.kind != "misc" && entry.kind != work.kind {
        entry.kind = work.kind.clone();
        changed.push("kind".into());
    }
    if entry.item_id.is_none() && work.item_id.is_some() {
        entry.item_id = work.item_id;
        changed.push("item".into());
    }
    for (name, cur, new) in [("tags", &mut entry.tags, &work.tags), ("cites", &mut entry.cites, &work.cites)] {
        let before = cur.len();
        for t in new {
            let same = |c: &String| {
                c.eq_ignore_ascii_case(t) || (name == "tags" && attest_tags::fold_key(c) == attest_tags::fold_key(t))
            };
            if !cur.iter().any(same) {
                cur.push(t.clone());
            }
        }
        if cur.len() > before {
            changed.push(name.to_string());
        }
    }
    changed
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn dedup(list: Vec<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    list.into_iter().filter(|s| seen.insert(s.to_lowercase())).collect()
}

/// Tags as canonical concept names (arXiv categories become their concepts), without
/// repeats or words that name a format rather than a topic.
pub fn canonical_tags(tags: &[String]) -> Vec<String> {
    let canon = attest_tags::Canon::builtin();
    let mut out = Vec::new();
    for t in tags {
        for c in attest_tags::concept_tags(t.trim()) {
            let c = canon.canonical(&c);
            let folded = attest_tags::fold_key(&c);
            if !c.is_empty()
                && !attest_tags::NON_TOPIC_TAGS.contains(&c.as_str())
                && !out.iter().any(|o: &String| attest_tags::fold_key(o) == folded)
            {
                out.push(c);
            }
        }
    }
    out
}

/// Concepts of `vocabulary` (canonical names, hyphenated) whose words occur in `text`
/// in order, plurals folded: the archive's own concepts a paper is about. At most
/// `max`, longer names first.
pub fn concepts_in(text: &str, vocabulary: &BTreeSet<String>, max: usize) -> Vec<String> {
    let words: Vec<String> = fold(text).split(' ').filter(|w| !w.is_empty()).map(attest_tags::fold_key).collect();
    let present: HashSet<&str> = words.iter().map(String::as_str).collect();
    let mut found: Vec<(usize, usize, &String)> = Vec::new();
    for name in vocabulary {
        if attest_tags::NON_TOPIC_TAGS.contains(&name.as_str()) {
            continue;
        }
        let parts: Vec<String> = name.split(['-', '.']).filter(|p| !p.is_empty()).map(attest_tags::fold_key).collect();
        if parts.is_empty() || parts.iter().any(|p| !present.contains(p.as_str())) {
            continue;
        }
        if parts.len() == 1 && (parts[0].len() < 4 || attest_tags::words::is_function_word(&parts[0])) {
            continue;
        }
        if let Some(at) = words.windows(parts.len()).position(|w| w == parts.as_slice()) {
            found.push((parts.len(), at, name));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    found.into_iter().take(max).map(|(_, _, n)| n.clone()).collect()
}

/// The library's tags nearest to `text`, most alike first: tags sharing a word with
/// it, then tags sharing the longest start; the most used tags when none is alike.
pub fn nearest_tags(text: &str, entries: &[Entry], max: usize) -> Vec<String> {
    let mut used: HashMap<&str, usize> = HashMap::new();
    for e in entries {
        for t in &e.tags {
            *used.entry(t.as_str()).or_default() += 1;
        }
    }
    let want = attest_tags::fold_key(text);
    let words: HashSet<String> = fold(text).split(' ').map(attest_tags::fold_key).collect();
    let mut scored: Vec<(usize, usize, &str)> = used
        .iter()
        .map(|(t, n)| {
            let shared = t.split(['-', '.']).filter(|w| words.contains(&attest_tags::fold_key(w))).count();
            let prefix = attest_tags::fold_key(t).chars().zip(want.chars()).take_while(|(a, b)| a == b).count();
            (shared * 100 + if prefix >= 3 { prefix } else { 0 }, *n, *t)
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    let alike: Vec<String> = scored.iter().filter(|s| s.0 > 0).take(max).map(|s| s.2.to_string()).collect();
    if !alike.is_empty() {
        return alike;
    }
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(b.2)));
    scored.into_iter().take(max).map(|s| s.2.to_string()).collect()
}

fn valid_key(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 100
        && k.chars().all(|c| {
            c.is_ascii_graphic() && !matches!(c, ',' | '{' | '}' | '%' | '"' | '#' | '\'' | '(' | ')' | '=' | '\\')
        })
}

/// A key made from the work: first author's family name, year, first word of the
/// title that is not a function word (`vaswani2017attention`), letters folded to
/// ASCII. Without authors, two title words around the year.
pub fn make_key(work: &NewEntry) -> String {
    let ascii = |s: &str| fold(s).chars().filter(char::is_ascii_alphanumeric).collect::<String>();
    let words: Vec<String> = fold(&work.title)
        .split(' ')
        .filter(|w| w.len() > 1 && !attest_tags::words::is_function_word(w))
        .map(ascii)
        .filter(|w| !w.is_empty())
        .collect();
    let year = work.year.map(|y| y.to_string()).unwrap_or_default();
    let author = work.authors.first().map(|a| ascii(family(a))).unwrap_or_default();
    let key = if author.is_empty() {
        format!(
            "{}{year}{}",
            words.first().map(String::as_str).unwrap_or("ref"),
            words.get(1).map(String::as_str).unwrap_or("")
        )
    } else {
        format!("{author}{year}{}", words.first().map(String::as_str).unwrap_or(""))
    };
    key.chars().take(60).collect()
}

/// `base`, or `base` with `a`, `b`, … (then numbers) appended, whichever is free.
fn free_key(base: &str, taken: &HashSet<String>) -> String {
    if !taken.contains(&base.to_lowercase()) {
        return base.to_string();
    }
    for c in 'a'..='z' {
        let k = format!("{base}{c}");
        if !taken.contains(&k.to_lowercase()) {
            return k;
        }
    }
    (2..).map(|n| format!("{base}-{n}")).find(|k| !taken.contains(&k.to_lowercase())).unwrap_or_default()
}

/// The entries as a BibTeX file, written by `biblatex`'s own writer (which escapes
/// what LaTeX would read as a command). Entries in the order given, a blank line
/// between them.
pub fn to_bibtex(entries: &[Entry]) -> String {
    let normal = |s: &str| vec![Spanned::detached(Chunk::Normal(s.to_string()))];
    let verbatim = |s: &str| vec![Spanned::detached(Chunk::Verbatim(s.to_string()))];
    let mut out = String::new();
    for e in entries {
        let mut b = biblatex::Entry::new(e.key.clone(), EntryType::new(&e.kind));
        if !e.title.is_empty() {
            b.set("title", normal(&e.title));
        }
        if !e.authors.is_empty() {
            b.set("author", normal(&e.authors.join(" and ")));
        }
        if let Some(y) = e.year {
            b.set("year", normal(&y.to_string()));
        }
        if let Some(v) = &e.venue {
            let field = match e.kind.as_str() {
                "article" => "journal",
                "inproceedings" | "incollection" | "conference" => "booktitle",
                "book" | "techreport" | "phdthesis" | "mastersthesis" => "publisher",
                _ => "howpublished",
            };
            b.set(field, normal(v));
        }
        if let Some(d) = &e.doi {
            b.set("doi", verbatim(d));
        }
        if let Some(a) = &e.arxiv_id {
            b.set("eprint", verbatim(a));
            b.set("archiveprefix", normal("arXiv"));
        }
        if let Some(u) = &e.url {
            b.set("url", verbatim(u));
        }
        if !e.abstract_text.is_empty() {
            b.set("abstract", normal(&e.abstract_text));
        }
        if !e.tags.is_empty() {
            b.set("keywords", normal(&e.tags.join(", ")));
        }
        if !e.cites.is_empty() {
            b.set("cites", verbatim(&e.cites.join(", ")));
        }
        if !out.is_empty() {
            out.push('\n');
        }
        // Only a malformed `date` makes the BibTeX writer fail, and none is ever set.
        let text = b.to_bibtex_string().unwrap_or_else(|_| b.to_biblatex_string());
        // Fields indented, as people write them (whitespace between fields means nothing).
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 && i + 1 < lines.len() {
                out.push_str("  ");
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// What [`related`] relates entries to.
#[derive(Debug, Clone, Default)]
pub struct Anchor {
    /// The library key of the work itself, left out of the results.
    pub key: Option<String>,
    /// Its concepts, canonical.
    pub tags: Vec<String>,
    /// What it cites (DOIs, arXiv ids, keys).
    pub cites: Vec<String>,
    /// Its own identifiers, to find the entries that cite it.
    pub names: Vec<String>,
}

/// One entry [`related`] found, with why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Relation {
    /// The entry's key.
    pub key: String,
    /// Concepts both share.
    pub shared_concepts: Vec<String>,
    /// Works both cite.
    pub shared_citations: Vec<String>,
    /// `cites <key>` (this entry cites the work asked about), `cited by <key>` (the work
    /// asked about cites this entry), or neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    /// The score the list is ordered by: a point per shared concept, two per shared
    /// citation, three for a direct citation.
    pub score: u32,
}

/// Entries related to `anchor`, best first (ties by key): by shared concepts, shared
/// citations (both cite the same work) and direct citation (one cites the other).
pub fn related(anchor: &Anchor, entries: &[Entry]) -> Vec<(Entry, Relation)> {
    let id = |s: &str| {
        normalize_doi(s)
            .map(|d| format!("doi:{}", d.to_lowercase()))
            .or_else(|| crate::reference::arxiv_of_key(s).map(|a| format!("arxiv:{a}")))
            .unwrap_or_else(|| s.trim().to_lowercase())
    };
    let anchor_tags: HashSet<&str> = anchor.tags.iter().map(String::as_str).collect();
    let anchor_cites: HashMap<String, &String> = anchor.cites.iter().map(|c| (id(c), c)).collect();
    let anchor_names: HashSet<String> = anchor.names.iter().map(|n| id(n)).collect();
    let label = anchor.key.as_deref().or(anchor.names.first().map(String::as_str)).unwrap_or("it");
    let mut out = Vec::new();
    for e in entries {
        if anchor.key.as_deref().is_some_and(|k| k.eq_ignore_ascii_case(&e.key)) {
            continue;
        }
        let shared_concepts: Vec<String> =
            e.tags.iter().filter(|t| anchor_tags.contains(t.as_str())).cloned().collect();
        let shared_citations: Vec<String> =
            e.cites.iter().filter_map(|c| anchor_cites.get(&id(c)).map(|s| (*s).clone())).collect();
        let cites_anchor = e.cites.iter().any(|c| anchor_names.contains(&id(c)));
        let names: Vec<String> =
            [Some(e.key.clone()), e.doi.clone(), e.arxiv_id.clone()].into_iter().flatten().map(|n| id(&n)).collect();
        let cited_by_anchor = names.iter().any(|n| anchor_cites.contains_key(n));
        let citation = match (cites_anchor, cited_by_anchor) {
            (true, _) => Some(format!("cites {label}")),
            (false, true) => Some(format!("cited by {label}")),
            _ => None,
        };
        let score =
            shared_concepts.len() as u32 + 2 * shared_citations.len() as u32 + if citation.is_some() { 3 } else { 0 };
        if score > 0 {
            out.push((e.clone(), Relation { key: e.key.clone(), shared_concepts, shared_citations, citation, score }));
        }
    }
    out.sort_by(|a, b| b.1.score.cmp(&a.1.score).then_with(|| a.0.key.to_lowercase().cmp(&b.0.key.to_lowercase())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_like_citation_keys() {
        let w = NewEntry {
            title: "Attention Is All You Need".into(),
            authors: vec!["Vaswani, Ashish".into()],
            year: Some(2017),
            ..NewEntry::default()
        };
        assert_eq!(make_key(&w), "vaswani2017attention");
        let w = NewEntry {
            title: "Über die Schrödinger-Gleichung".into(),
            authors: vec!["Gödel Kurt".into()],
            year: None,
            ..NewEntry::default()
        };
        assert_eq!(make_key(&w), "kurtuber");
        let taken: HashSet<String> = ["vaswani2017attention".to_string(), "vaswani2017attentiona".into()].into();
        assert_eq!(free_key("vaswani2017attention", &taken), "vaswani2017attentionb");
    }

    #[test]
    fn titles_fold_accents_case_and_punctuation() {
        assert_eq!(fold("  Schrödinger's  CAT: a Re-view! "), "schrodinger s cat a re view");
        assert_eq!(family("van der Berg, Anna"), "van der Berg");
        assert_eq!(family("Anna Berg"), "Berg");
        assert_eq!(match_key("Untitled", &[], None), "");
    }
}
