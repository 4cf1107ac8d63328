//! Full-text search over the whole archive (titles and summaries), ranked by BM25.
//!
//! This is the only module that queries the full-text index: SQLite's FTS5 table
//! (`items_fts`, kept in sync with `items` by triggers in the migration) or, on
//! PostgreSQL, the generated `tsvector` column `items.search` (GIN-indexed, English
//! stemming), each in its own query language (`Syntax`); everything else here is the
//! same on both. User text never reaches either as syntax: it is split into words, each word (or
//! a "quoted phrase" the user wrote) becomes a quoted FTS5 string, common function
//! words are dropped, and a word of a derivational family ("catalysis", "quantise")
//! also searches its relatives ("catalyst", "catalytic"; "quantize"). The index
//! stems with Porter.
//!
//! Candidates: items matching every term (BM25 order, titles weighing three times
//! summaries), then items matching any, up to the pool; then items carrying a tag the
//! query names (up to half the pool again).
//! Each is scored in Rust, its words stemmed as the query's: the share of the query's
//! terms it matches (title, summary or tags), the share in its title, a tag the query
//! names whole, BM25 scaled to the best candidate, and a large bonus when the title
//! holds the query as a phrase. An item is a hit only when it matches enough terms
//! ([`needed`]: all of one or two, half of more); below that floor it is only among the
//! closest, which [`find`] returns when nothing is a hit. Filters (tag, source, dates)
//! are SQL; the kind ([`crate::kind`]) is read from the candidates' rows.

use std::collections::{HashMap, HashSet};

use rust_stemmers::{Algorithm, Stemmer};
use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::Result;
use crate::clean;
use crate::kind::Kind;
use crate::model::Item;
use crate::store::FeedStore;

/// Most terms taken from one query.
const MAX_TERMS: usize = 24;

/// BM25 column weights: title, summary.
const WEIGHTS: (f64, f64) = (3.0, 1.0);

const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "in",
    "is", "it", "me", "my", "new", "of", "on", "or", "papers", "paper", "show", "some", "that", "the", "this", "to",
    "what", "with", "anything", "find", "search", "articles", "items",
];

/// Word endings of one family: a word ending in one also searches the others ("catalysis"
/// finds "catalyst", "catalytic", "catalysed"; "analyse" finds "analysis"), and the
/// British and American spellings of -ise/-isation find each other. Porter stemming
/// (the index's) joins inflections, not these.
const FAMILIES: &[&[&str]] = &[
    &["ysis", "yses", "yst", "ysts", "ytic", "ytical", "yse", "ysed", "ysing", "yze", "yzed", "yzing"],
    &["isation", "ization", "isations", "izations"],
    &["ise", "ize", "ised", "ized", "ising", "izing", "iser", "izer"],
];

/// Relevance weights: share of the query's terms an item matches (anywhere, tags
/// included), share matched in its title, a tag the query names whole, BM25 (scaled to
/// the best candidate), and the title holding the query as a phrase.
const W_COVER: f64 = 2.0;
const W_TITLE: f64 = 1.0;
const W_TAG: f64 = 0.5;
const W_BM25: f64 = 0.5;
const W_EXACT: f64 = 3.0;

/// A search of the archive.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchQuery {
    /// What to look for, as a person would type it. Empty = filters only, newest first.
    pub text: String,
    /// Only items carrying this tag (normalised like stored tags).
    pub tag: Option<String>,
    /// Only items published at or after this [`crate::model::stamp`].
    pub since: Option<String>,
    /// Most hits returned.
    pub limit: usize,
    /// Only items published before this [`crate::model::stamp`].
    #[serde(default)]
    pub until: Option<String>,
    /// Only items from a feed whose title or address contains this (any case).
    #[serde(default)]
    pub source: Option<String>,
    /// Only items of this kind ([`crate::kind`]).
    #[serde(default)]
    pub kind: Option<Kind>,
    /// Only items with an author whose name holds every word of this (any case:
    /// `Curie`, `marie curie`).
    #[serde(default)]
    pub author: Option<String>,
}

impl SearchQuery {
    /// A text search with no filters.
    pub fn text(text: impl Into<String>, limit: usize) -> SearchQuery {
        SearchQuery { text: text.into(), limit, ..SearchQuery::default() }
    }
}

/// One hit: an item and how well it matched (BM25, higher is better; 0 when the query
/// had no text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SearchHit {
    /// The item.
    pub item_id: i64,
    /// Relevance, comparable only within one search.
    pub score: f64,
}

/// A candidate scored against the query.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// The item.
    pub item_id: i64,
    /// Relevance (higher is better), comparable only within one search.
    pub relevance: f64,
    /// Query terms the item matches (title, summary or tags).
    pub matched: usize,
    /// The title holds the query as a phrase (or is the query).
    pub exact: bool,
}

/// What a search found: the hits above the relevance floor, best first, and, when
/// there are none, the closest below it.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Items matching enough of the query, best first.
    pub hits: Vec<Scored>,
    /// Items below the floor, best first: the closest, when nothing is a hit.
    pub closest: Vec<Scored>,
    /// Content terms in the query (0: filters only).
    pub terms: usize,
    /// Terms an item must match to be a hit.
    pub needed: usize,
    /// The candidates' rows, with tags and source.
    pub items: HashMap<i64, Item>,
    /// The candidate pool was full, so there may be more hits than found.
    pub capped: bool,
}

/// Terms an item must match to count as a hit: every term of a one- or two-term query,
/// at least half of a longer one ("quantum gravity holography" needs two of three).
pub fn needed(terms: usize) -> usize {
    if terms <= 2 { terms } else { terms.div_ceil(2) }
}

/// Turn user text into a safe FTS5 query: quoted terms joined by OR. A word with inner
/// punctuation (`C-H`, `cs.LG`) becomes a phrase of its parts, as does a "quoted
/// phrase"; a word of a family (`FAMILIES`) is searched with its relatives.
/// `None` when nothing searchable is left.
pub fn fts_query(text: &str) -> Option<String> {
    let terms = fts_terms(text);
    if terms.is_empty() { None } else { Some(terms.iter().map(|t| t.fts()).collect::<Vec<_>>().join(" OR ")) }
}

/// One term of a query: a word or a phrase, with the words it also stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    /// The forms searched, each a list of words (a phrase has several); the first is
    /// the one typed.
    forms: Vec<Vec<String>>,
}

impl Term {
    fn new(text: &str) -> Term {
        let words: Vec<String> = text.split(' ').map(str::to_string).collect();
        let mut forms = vec![words.clone()];
        if let [w] = words.as_slice() {
            forms.extend(relatives(w).into_iter().map(|r| vec![r]));
        }
        Term { forms }
    }

    /// The term as FTS5 syntax: quoted strings only.
    fn fts(&self) -> String {
        self.expr(Syntax::Fts5)
    }

    /// The term in a full-text syntax: quoted words (a phrase's words joined by the
    /// syntax's "followed by"), its forms OR-ed.
    fn expr(&self, syntax: Syntax) -> String {
        let quoted: Vec<String> = self.forms.iter().map(|f| syntax.phrase(f)).collect();
        if quoted.len() == 1 { quoted[0].clone() } else { format!("({})", quoted.join(syntax.or())) }
    }
}

/// The full-text query language of the database: SQLite's FTS5 `MATCH` syntax, or
/// PostgreSQL's `tsquery` (read by `to_tsquery('attest_english', …)`, which stems each word
/// as the `items.search` column was). Either way user text reaches it only as quoted
/// words of letters and digits ([`words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Fts5,
    TsQuery,
}

impl Syntax {
    fn of(store: &FeedStore) -> Syntax {
        match store.store().dialect() {
            attest_store::Dialect::Sqlite => Syntax::Fts5,
            attest_store::Dialect::Postgres => Syntax::TsQuery,
        }
    }

    fn and(self) -> &'static str {
        match self {
            Syntax::Fts5 => " AND ",
            Syntax::TsQuery => " & ",
        }
    }

    fn or(self) -> &'static str {
        match self {
            Syntax::Fts5 => " OR ",
            Syntax::TsQuery => " | ",
        }
    }

    /// Words in sequence, quoted.
    fn phrase(self, words: &[String]) -> String {
        match self {
            Syntax::Fts5 => format!("\"{}\"", words.join(" ").replace('"', "\"\"")),
            Syntax::TsQuery => {
                let q: Vec<String> = words.iter().map(|w| format!("'{}'", w.replace('\'', "''"))).collect();
                if q.len() == 1 { q[0].clone() } else { format!("({})", q.join(" <-> ")) }
            }
        }
    }
}

/// The other words of `w`'s family ([`FAMILIES`]), if it has one.
fn relatives(w: &str) -> Vec<String> {
    for family in FAMILIES {
        let Some(end) = family.iter().filter(|e| w.ends_with(*e)).max_by_key(|e| e.len()) else { continue };
        let root = &w[..w.len() - end.len()];
        if root.chars().count() < 3 {
            continue;
        }
        return family.iter().filter(|e| *e != end).map(|e| format!("{root}{e}")).collect();
    }
    Vec::new()
}

/// The terms of user text (see [`fts_query`]).
fn fts_terms(text: &str) -> Vec<Term> {
    let balanced = text.matches('"').count().is_multiple_of(2);
    let mut phrases: Vec<String> = Vec::new();
    let mut singles: Vec<String> = Vec::new();
    for (k, part) in text.split('"').enumerate() {
        if k % 2 == 1 && balanced {
            let w = words(part);
            if !w.is_empty() {
                phrases.push(w.join(" "));
            }
            continue;
        }
        // Inner `-`, `.`, `/`, `'` and `_` bind parts into one phrase; other
        // punctuation separates terms.
        let spaced: String =
            part.chars().map(|c| if c.is_alphanumeric() || "-./'_".contains(c) { c } else { ' ' }).collect();
        for chunk in spaced.split_whitespace() {
            let w = words(chunk);
            match w.len() {
                0 => {}
                1 => singles.extend(w),
                _ => phrases.push(w.join(" ")),
            }
        }
    }
    let content: Vec<String> = singles.iter().filter(|w| !STOPWORDS.contains(&w.as_str())).cloned().collect();
    let mut terms = phrases;
    let only_stopwords = content.is_empty() && terms.is_empty();
    terms.extend(if only_stopwords { singles } else { content });
    let mut seen = HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms.truncate(MAX_TERMS);
    terms.iter().map(|t| Term::new(t)).collect()
}

/// Lowercased runs of letters and digits, split as the FTS5 tokenizer splits them.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Search the archive: the hits above the relevance floor first, best first, then the
/// closest below it, at most `limit` in all. Without text: the filters alone, newest
/// first. (`feed.search` uses [`find`], which keeps the two apart.)
pub async fn search(store: &FeedStore, q: &SearchQuery) -> Result<Vec<SearchHit>> {
    let limit = q.limit.max(1);
    let found = find(store, q, limit).await?;
    let mut all: Vec<SearchHit> =
        found.hits.iter().chain(&found.closest).map(|h| SearchHit { item_id: h.item_id, score: h.relevance }).collect();
    all.truncate(limit);
    Ok(all)
}

/// Search the archive with a candidate pool of `pool` items (see the module's
/// documentation): the hits above the relevance floor, best first, and the closest
/// below it. Without text: the filters alone, newest first, every one a hit.
pub async fn find(store: &FeedStore, q: &SearchQuery, pool: usize) -> Result<Found> {
    let pool = pool.max(1);
    let filters = Filters::of(q);
    let terms = fts_terms(&q.text);
    // A kind is read from the rows, so more candidates are drawn to filter from.
    let draw = if q.kind.is_some() { pool * 5 } else { pool };
    if terms.is_empty() {
        let ids = newest(store, &filters, draw).await?;
        let items = rows(store, &ids, q.kind, &filters.authors).await?;
        let hits: Vec<Scored> = ids
            .iter()
            .filter(|id| items.contains_key(id))
            .take(pool)
            .map(|&item_id| Scored { item_id, relevance: 0.0, matched: 0, exact: false })
            .collect();
        return Ok(Found { capped: ids.len() >= draw, hits, items, ..Found::default() });
    }
    // All terms first: the intersection is small and cheap to score even when every
    // term on its own is common; then any term.
    let mut bm: HashMap<i64, f64> = HashMap::new();
    let mut order: Vec<i64> = Vec::new();
    let syntax = Syntax::of(store);
    let expr: Vec<String> = terms.iter().map(|t| t.expr(syntax)).collect();
    let needed = needed(terms.len());
    // Every term, then enough terms to pass the floor (any `needed` of them, when that
    // is a short query), and only when nothing passes, any term at all (the closest):
    // the plain OR of common words is the costly part of a search.
    let mut queries = Vec::new();
    if terms.len() > 1 {
        queries.push(expr.join(syntax.and()));
    }
    let enough = at_least_in(&expr, needed, syntax);
    if let Some(q) = &enough
        && needed < terms.len()
    {
        queries.push(q.clone());
    }
    let or_all = expr.join(syntax.or());
    if enough.is_none() || terms.len() == 1 {
        queries.push(or_all.clone());
    }
    let mut capped = false;
    for fts in &queries {
        let got = run(store, fts, &filters, draw).await?;
        capped |= got.len() >= draw;
        for (id, score) in got {
            if order.len() >= draw {
                break;
            }
            if bm.insert(id, score).is_none() {
                order.push(id);
            }
        }
        if order.len() >= draw {
            break;
        }
    }
    if order.is_empty() && !queries.contains(&or_all) {
        for (id, score) in run(store, &or_all, &filters, draw).await? {
            bm.insert(id, score);
            order.push(id);
        }
    }
    // Items whose tags the query names, whether or not their text has the words (up to
    // half as many again).
    for id in tagged(store, &q.text, &terms, &filters, draw / 2 + 1).await? {
        if let std::collections::hash_map::Entry::Vacant(e) = bm.entry(id) {
            e.insert(0.0);
            order.push(id);
        }
    }
    let items = rows(store, &order, q.kind, &filters.authors).await?;
    let stemmer = Stemmer::create(Algorithm::English);
    let query = Stemmed::query(&terms, &stemmer);
    let best_bm = bm.values().copied().fold(0.0f64, f64::max);
    let mut scored: Vec<Scored> = order
        .iter()
        .filter_map(|id| items.get(id))
        .map(|it| {
            let m = query.against(it, &stemmer);
            let b = if best_bm > 0.0 { bm[&it.id] / best_bm } else { 0.0 };
            let n = terms.len() as f64;
            let relevance = W_COVER * m.matched as f64 / n
                + W_TITLE * m.in_title as f64 / n
                + if m.tag_named { W_TAG } else { 0.0 }
                + W_BM25 * b
                + if m.exact { W_EXACT } else { 0.0 };
            Scored { item_id: it.id, relevance, matched: m.matched, exact: m.exact }
        })
        .collect();
    scored.sort_by(|a, b| {
        b.relevance.total_cmp(&a.relevance).then_with(|| {
            let (x, y) = (&items[&a.item_id], &items[&b.item_id]);
            y.published.cmp(&x.published).then(b.item_id.cmp(&a.item_id))
        })
    });
    let (hits, below): (Vec<Scored>, Vec<Scored>) = scored.into_iter().partition(|s| s.matched >= needed);
    let closest = below.into_iter().take(pool).collect();
    Ok(Found { hits, closest, terms: terms.len(), needed, items, capped })
}

/// An FTS5 query matching items with at least `k` of the terms: the OR of every
/// `k`-term AND. `None` when that would take more than 20 groups (then the plain OR).
#[cfg(test)]
fn at_least(expr: &[String], k: usize) -> Option<String> {
    at_least_in(expr, k, Syntax::Fts5)
}

/// As `at_least`, in `syntax`.
fn at_least_in(expr: &[String], k: usize, syntax: Syntax) -> Option<String> {
    let n = expr.len();
    if k == 0 || k > n {
        return None;
    }
    let mut groups = Vec::new();
    let mut pick: Vec<usize> = (0..k).collect();
    loop {
        groups.push(format!("({})", pick.iter().map(|&i| expr[i].as_str()).collect::<Vec<_>>().join(syntax.and())));
        if groups.len() > 20 {
            return None;
        }
        // The next k-subset in lexicographic order.
        let Some(i) = (0..k).rev().find(|&i| pick[i] < n - k + i) else { break };
        pick[i] += 1;
        for j in i + 1..k {
            pick[j] = pick[j - 1] + 1;
        }
    }
    Some(groups.join(syntax.or()))
}

/// The filters of a query, as SQL over `items i` with their binds.
struct Filters {
    since: Option<String>,
    until: Option<String>,
    /// The tag asked for and the concepts it stands for (`cs.DC`: `distributed-computing`).
    tags: Vec<String>,
    source: Option<String>,
    /// The words of the author asked for, lower-case.
    authors: Vec<String>,
}

/// The words of a name, lower-case (`Marie Skłodowska-Curie`: marie, skłodowska, curie).
pub fn name_words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Whether an author named by `words` ([`name_words`]) is among `authors`.
pub fn by_author(authors: &[String], words: &[String]) -> bool {
    words.is_empty()
        || authors.iter().any(|a| {
            let own = name_words(a);
            words.iter().all(|w| own.contains(w))
        })
}

impl Filters {
    fn of(q: &SearchQuery) -> Filters {
        let some = |s: &Option<String>| s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        Filters {
            since: some(&q.since),
            until: some(&q.until),
            tags: q
                .tag
                .as_deref()
                .and_then(clean::normalise_tag)
                .map(|t| {
                    let mut all = vec![t.clone()];
                    all.extend(attest_tags::concept_tags(&t).into_iter().filter(|c| *c != t));
                    all
                })
                .unwrap_or_default(),
            source: some(&q.source).map(|s| format!("%{}%", s.to_lowercase().replace(['%', '_'], ""))),
            authors: q.author.as_deref().map(name_words).unwrap_or_default(),
        }
    }

    fn is_empty(&self) -> bool {
        self.since.is_none()
            && self.until.is_none()
            && self.tags.is_empty()
            && self.source.is_none()
            && self.authors.is_empty()
    }

    /// ` AND …` conditions on `i`, placeholders numbered from `n`, and the values.
    fn sql(&self, mut n: usize) -> (String, Vec<String>) {
        let mut sql = String::new();
        let mut binds = Vec::new();
        if let Some(v) = &self.since {
            sql.push_str(&format!(" AND i.published >= ${n}"));
            binds.push(v.clone());
            n += 1;
        }
        if let Some(v) = &self.until {
            sql.push_str(&format!(" AND i.published < ${n}"));
            binds.push(v.clone());
            n += 1;
        }
        if !self.tags.is_empty() {
            let marks: Vec<String> = (n..n + self.tags.len()).map(|k| format!("${k}")).collect();
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.tag IN ({}))",
                marks.join(", ")
            ));
            binds.extend(self.tags.iter().cloned());
            n += self.tags.len();
        }
        if let Some(v) = &self.source {
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM feeds f WHERE f.id = i.feed_id AND (lower(coalesce(f.title, '')) LIKE ${n} OR lower(f.url) LIKE ${n}))"
            ));
            binds.push(v.clone());
            n += 1;
        }
        // A cheap pass in SQL (the word anywhere in the list); `rows` then keeps only
        // items where one author's name holds every word.
        for w in &self.authors {
            sql.push_str(&format!(" AND lower(i.authors) LIKE ${n}"));
            binds.push(format!("%{}%", w.replace(['%', '_'], "")));
            n += 1;
        }
        (sql, binds)
    }
}

/// The filters alone, newest first.
async fn newest(store: &FeedStore, f: &Filters, limit: usize) -> Result<Vec<i64>> {
    let (cond, binds) = f.sql(1);
    let sql = format!(
        "SELECT i.id FROM items i WHERE 1 = 1{cond} ORDER BY i.published DESC, i.id DESC LIMIT ${}",
        binds.len() + 1
    );
    let mut query = sqlx::query(&sql);
    for b in &binds {
        query = query.bind(b);
    }
    let rows = query.bind(limit as i64).fetch_all(store.pool()).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Full-text matches of `fts` within the filters, best first, as (id, score), higher
/// better. SQLite: FTS5's BM25 (negated), titles weighing three times summaries.
/// PostgreSQL: `ts_rank` over the `items.search` column, titles (weight A) three times
/// summaries (weight B).
async fn run(store: &FeedStore, fts: &str, f: &Filters, limit: usize) -> Result<Vec<(i64, f64)>> {
    let (cond, binds) = f.sql(2);
    let sql = match Syntax::of(store) {
        Syntax::Fts5 => {
            let score = format!("bm25(items_fts, {}, {})", WEIGHTS.0, WEIGHTS.1);
            if f.is_empty() {
                format!(
                    "SELECT rowid AS id, {score} AS s FROM items_fts WHERE items_fts MATCH $1 ORDER BY s, rowid DESC LIMIT $2"
                )
            } else {
                // The matches are computed once, then filtered: letting the planner drive the
                // join from `items` would re-run the full-text query for every row.
                format!(
                    "WITH m AS MATERIALIZED (SELECT rowid AS id, {score} AS s FROM items_fts WHERE items_fts MATCH $1) \
                     SELECT m.id, m.s FROM m JOIN items i ON i.id = m.id WHERE 1 = 1{cond} ORDER BY m.s, m.id DESC LIMIT ${}",
                    binds.len() + 2
                )
            }
        }
        Syntax::TsQuery => {
            let weights = format!("'{{0, 0, {}, {}}}'", WEIGHTS.1 / WEIGHTS.0, 1.0);
            format!(
                "SELECT i.id, -CAST(ts_rank({weights}, i.search, q) AS DOUBLE PRECISION) AS s \
                 FROM items i, to_tsquery('attest_english', $1) AS q WHERE i.search @@ q{cond} ORDER BY s, i.id DESC LIMIT ${}",
                binds.len() + 2
            )
        }
    };
    let mut query = sqlx::query(&sql).bind(fts);
    for b in &binds {
        query = query.bind(b);
    }
    let rows = query.bind(limit as i64).fetch_all(store.pool()).await?;
    Ok(rows.iter().map(|r| (r.get(0), -r.get::<f64, _>(1))).collect())
}

/// Items carrying a tag the query names: the whole query, a term, or two or three
/// neighbouring terms, normalised like stored tags ("catalysis", "graph-neural-networks").
async fn tagged(store: &FeedStore, text: &str, terms: &[Term], f: &Filters, limit: usize) -> Result<Vec<i64>> {
    let mut names: Vec<String> = Vec::new();
    names.extend(clean::normalise_tag(text));
    let typed: Vec<String> = terms.iter().map(|t| t.forms[0].join("-")).collect();
    for n in 1..=3 {
        for w in typed.windows(n) {
            names.push(w.join("-"));
        }
    }
    let mut seen = HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names.truncate(60);
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let (cond, binds) = f.sql(names.len() + 1);
    // The tagged ids are found first, through the tag index, then ordered by date: left
    // to itself (no statistics yet on a freshly filled archive) PostgreSQL walks every
    // item newest first and probes its tags, a whole-table scan when no item carries
    // any of the names (most queries).
    let sql = format!(
        "WITH g AS MATERIALIZED (SELECT DISTINCT item_id FROM item_tags WHERE tag IN ({})) \
         SELECT i.id, i.published FROM g JOIN items i ON i.id = g.item_id WHERE 1 = 1{cond} \
         ORDER BY i.published DESC, i.id DESC LIMIT ${}",
        (1..=names.len()).map(|k| format!("${k}")).collect::<Vec<_>>().join(", "),
        names.len() + binds.len() + 1
    );
    let mut query = sqlx::query(&sql);
    for n in &names {
        query = query.bind(n);
    }
    for b in &binds {
        query = query.bind(b);
    }
    let rows = query.bind(limit as i64).fetch_all(store.pool()).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The candidates' rows, keeping only those of `kind` and by the author (its words)
/// when asked for.
async fn rows(store: &FeedStore, ids: &[i64], kind: Option<Kind>, author: &[String]) -> Result<HashMap<i64, Item>> {
    let items = store.items(ids).await?;
    Ok(items
        .into_iter()
        .filter(|it| kind.is_none_or(|k| crate::kind::of(it) == k) && by_author(&it.authors, author))
        .map(|it| (it.id, it))
        .collect())
}

/// The query's terms, stemmed as the items' words are.
struct Stemmed {
    /// Per term, its forms as stemmed word sequences.
    terms: Vec<Vec<Vec<String>>>,
    /// Every stem of every form, for "a tag the query names whole".
    all: HashSet<String>,
    /// The typed content words, stemmed, in order (for the phrase check).
    typed: Vec<String>,
    /// The heads ([`head`]) of every form's words.
    heads: HashSet<String>,
}

/// How one item matches the query.
struct Match {
    matched: usize,
    in_title: usize,
    tag_named: bool,
    exact: bool,
}

/// The first three characters of a word: a word and its stem share them, so a word
/// whose head no query word has is never stemmed (most of a summary).
fn head(w: &str) -> &str {
    w.char_indices().nth(3).map_or(w, |(i, _)| &w[..i])
}

/// The stems of `text`'s words, in place; a word no query word could stem alike is "".
fn stems(text: &str, stemmer: &Stemmer, heads: &HashSet<String>) -> Vec<String> {
    words(text)
        .iter()
        .map(|w| if heads.contains(head(w)) { stemmer.stem(w).into_owned() } else { String::new() })
        .collect()
}

fn holds(seq: &[String], phrase: &[String]) -> bool {
    !phrase.is_empty() && seq.windows(phrase.len()).any(|w| w == phrase)
}

impl Stemmed {
    fn query(raw: &[Term], stemmer: &Stemmer) -> Stemmed {
        let terms: Vec<Vec<Vec<String>>> = raw
            .iter()
            .map(|t| t.forms.iter().map(|f| f.iter().map(|w| stemmer.stem(w).into_owned()).collect()).collect())
            .collect();
        let all = terms.iter().flatten().flatten().cloned().collect();
        let typed = terms.iter().flat_map(|forms| forms[0].clone()).collect();
        let heads = raw.iter().flat_map(|t| t.forms.iter().flatten()).map(|w| head(w).to_string()).collect();
        Stemmed { terms, all, typed, heads }
    }

    fn against(&self, it: &Item, stemmer: &Stemmer) -> Match {
        let title = stems(&it.title, stemmer, &self.heads);
        let summary = stems(&it.summary, stemmer, &self.heads);
        let tags: Vec<Vec<String>> = it.tags.iter().map(|t| stems(t, stemmer, &self.heads)).collect();
        let mut m = Match { matched: 0, in_title: 0, tag_named: false, exact: false };
        for forms in &self.terms {
            let t = forms.iter().any(|f| holds(&title, f));
            if t || forms.iter().any(|f| holds(&summary, f) || tags.iter().any(|g| holds(g, f))) {
                m.matched += 1;
            }
            if t {
                m.in_title += 1;
            }
        }
        m.tag_named = tags.iter().any(|g| !g.is_empty() && g.iter().all(|w| self.all.contains(w)));
        let content: Vec<String> = words(&it.title)
            .iter()
            .filter(|w| !STOPWORDS.contains(&w.as_str()))
            .map(|w| stemmer.stem(w).into_owned())
            .collect();
        m.exact =
            (self.typed.len() >= 2 && holds(&title, &self.typed)) || (!content.is_empty() && content == self.typed);
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_never_becomes_syntax() {
        assert_eq!(fts_query("papers on C-H activation").as_deref(), Some("\"c h\" OR \"activation\""));
        assert_eq!(fts_query("\"graph neural\" networks").as_deref(), Some("\"graph neural\" OR \"networks\""));
        assert_eq!(
            fts_query("NEAR(a b) AND title:* \"unbalanced").as_deref(),
            Some("\"near\" OR \"b\" OR \"title\" OR \"unbalanced\"")
        );
        assert_eq!(fts_query("the of"), Some("\"the\" OR \"of\"".into()));
        assert_eq!(fts_query("  ** () "), None);
    }

    #[test]
    fn a_family_word_searches_its_relatives() {
        let q = fts_query("catalysis").unwrap();
        for w in ["\"catalysis\"", "\"catalyst\"", "\"catalytic\"", "\"catalysed\"", "\"catalyzed\""] {
            assert!(q.contains(w), "{q}");
        }
        assert!(fts_query("quantisation").unwrap().contains("\"quantization\""));
        assert_eq!(fts_query("is"), Some("\"is\"".into()));
        assert_eq!(needed(1), 1);
        assert_eq!(needed(2), 2);
        assert_eq!(needed(3), 2);
        assert_eq!(needed(5), 3);
        let e: Vec<String> = ["\"a\"", "\"b\"", "\"c\""].iter().map(|s| s.to_string()).collect();
        assert_eq!(at_least(&e, 2).as_deref(), Some("(\"a\" AND \"b\") OR (\"a\" AND \"c\") OR (\"b\" AND \"c\")"));
        assert_eq!(at_least(&e, 1).as_deref(), Some("(\"a\") OR (\"b\") OR (\"c\")"));
        let many: Vec<String> = (0..10).map(|i| format!("\"w{i}\"")).collect();
        assert_eq!(at_least(&many, 5), None);
    }
}
