//! Full-text search over the whole archive (titles and summaries), ranked by BM25.
//!
//! This is the only module that queries the SQLite FTS5 index (`items_fts`, kept in
//! sync with `items` by triggers in the migration); a PostgreSQL backend replaces this
//! file. User text never reaches FTS5 as syntax: it is split into words, each word (or
//! a "quoted phrase" the user wrote) becomes a quoted FTS5 string, common function
//! words are dropped. Items matching every term come first, then, if there are too
//! few, items matching some; each group is in BM25 order (titles weigh three times
//! summaries).

use serde::{Deserialize, Serialize};
use sqlx::Row;

use crate::Result;
use crate::clean;
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

/// Turn user text into a safe FTS5 query: quoted terms joined by OR. A word with inner
/// punctuation (`C-H`, `cs.LG`) becomes a phrase of its parts, as does a "quoted
/// phrase". `None` when nothing searchable is left.
pub fn fts_query(text: &str) -> Option<String> {
    let terms = fts_terms(text);
    if terms.is_empty() { None } else { Some(terms.join(" OR ")) }
}

/// The quoted FTS5 terms of user text (see [`fts_query`]).
fn fts_terms(text: &str) -> Vec<String> {
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
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms.truncate(MAX_TERMS);
    terms.iter().map(|t| format!("\"{}\"", t.replace('"', "\"\""))).collect()
}

/// Lowercased runs of letters and digits, split as the FTS5 tokenizer splits them.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// Search the archive. With text: items matching every term first, then (when
/// fewer than `limit` do) items matching some, each group in BM25 order. Without
/// text: the filters alone, newest first.
pub async fn search(store: &FeedStore, q: &SearchQuery) -> Result<Vec<SearchHit>> {
    let limit = q.limit.max(1);
    let tag = q.tag.as_deref().and_then(clean::normalise_tag);
    let since = q.since.as_deref();
    let terms = fts_terms(&q.text);
    if terms.is_empty() {
        let rows = sqlx::query(
            "SELECT i.id FROM items i WHERE ($1 IS NULL OR i.published >= $1) \
             AND ($2 IS NULL OR EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = i.id AND t.tag = $2)) \
             ORDER BY i.published DESC, i.id DESC LIMIT $3",
        )
        .bind(since)
        .bind(&tag)
        .bind(limit as i64)
        .fetch_all(store.pool())
        .await?;
        return Ok(rows.iter().map(|r| SearchHit { item_id: r.get(0), score: 0.0 }).collect());
    }
    // All terms first: the intersection is small and cheap to score even when every
    // term on its own is common.
    let mut hits = if terms.len() > 1 {
        run(store, &terms.join(" AND "), since, tag.as_deref(), limit).await?
    } else {
        Vec::new()
    };
    if hits.len() < limit {
        let seen: std::collections::HashSet<i64> = hits.iter().map(|h| h.item_id).collect();
        let more = run(store, &terms.join(" OR "), since, tag.as_deref(), limit + seen.len()).await?;
        hits.extend(more.into_iter().filter(|h| !seen.contains(&h.item_id)));
        hits.truncate(limit);
    }
    Ok(hits)
}

async fn run(
    store: &FeedStore,
    fts: &str,
    since: Option<&str>,
    tag: Option<&str>,
    limit: usize,
) -> Result<Vec<SearchHit>> {
    let score = format!("bm25(items_fts, {}, {})", WEIGHTS.0, WEIGHTS.1);
    let sql = if since.is_none() && tag.is_none() {
        format!(
            "SELECT rowid AS id, {score} AS s FROM items_fts WHERE items_fts MATCH $1 ORDER BY s, rowid DESC LIMIT $2"
        )
    } else {
        // The matches are computed once, then filtered: letting the planner drive the
        // join from `items` would re-run the full-text query for every row.
        let mut sql = format!(
            "WITH m AS MATERIALIZED (SELECT rowid AS id, {score} AS s FROM items_fts WHERE items_fts MATCH $1) \
             SELECT m.id, m.s FROM m"
        );
        let mut n = 2;
        if since.is_some() {
            sql.push_str(&format!(" JOIN items i ON i.id = m.id AND i.published >= ${n}"));
            n += 1;
        }
        if tag.is_some() {
            sql.push_str(&format!(" WHERE EXISTS (SELECT 1 FROM item_tags t WHERE t.item_id = m.id AND t.tag = ${n})"));
            n += 1;
        }
        sql.push_str(&format!(" ORDER BY m.s, m.id DESC LIMIT ${n}"));
        sql
    };
    let mut query = sqlx::query(&sql).bind(fts);
    if let Some(s) = since {
        query = query.bind(s);
    }
    if let Some(t) = tag {
        query = query.bind(t);
    }
    let rows = query.bind(limit as i64).fetch_all(store.pool()).await?;
    Ok(rows.iter().map(|r| SearchHit { item_id: r.get(0), score: -r.get::<f64, _>(1) }).collect())
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
}
