//! `feed.search`: the archive's full-text hits, re-ranked for the reader.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use attest_core::text::clip;
use attest_core::{Answer, Outcome, RowLimit, Tool, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

use super::common::{more_line, quality_value, titles};
use super::replies::{item_ref, row};
use super::{
    Context, DEFAULT_LIMIT, LIST_DAYS, MAX_LIMIT, Row, SEARCH_POOL, Searched, WRITE_IDEMPOTENT, reader_for, window_for,
    with_notice,
};
use crate::kind::{self, Kind};
use crate::model::{Item, parse_stamp, stamp};
use crate::quality;
use crate::rank::{Corpus, Embeddings, RankItem, RankOptions};
use crate::search;

// ---- feed.search ------------------------------------------------------------------------

fn parse_since(s: &str) -> Option<String> {
    let s = s.trim();
    let date = s.get(..10)?;
    let t = parse_stamp(&format!("{date}T00:00:00Z"))?;
    Some(stamp(t))
}

/// How much the reader's ranking among the hits (0 to 1, best 1) adds to an item's
/// relevance: enough to order near-ties, never to lift a summary match over a title
/// match or anything over a title that holds the query (see `search::find`).
const PREFERENCE: f64 = 0.25;

/// Deepest offset a search pages to.
const MAX_OFFSET: usize = 1_000;

/// A year or a range of years (`2024`, `2020-2024`, `2020-`, `-2024`) as the stamps it
/// spans: from the first day, up to (not including) the first day after.
fn years(text: &str) -> Option<(Option<String>, Option<String>)> {
    let year = |s: &str| -> Option<Option<i32>> {
        let s = s.trim();
        if s.is_empty() {
            return Some(None);
        }
        let y: i32 = s.parse().ok()?;
        (1000..=2999).contains(&y).then_some(Some(y))
    };
    let (from, to) = match text.split_once(['-', '–']) {
        Some((a, b)) => (year(a)?, year(b)?),
        None => {
            let y = year(text)?;
            (y, y)
        }
    };
    if from.is_none() && to.is_none() || from.zip(to).is_some_and(|(f, t)| f > t) {
        return None;
    }
    Some((from.map(|y| format!("{y:04}-01-01T00:00:00Z")), to.map(|y| format!("{:04}-01-01T00:00:00Z", y + 1))))
}

/// A date argument as a stamp; the refusal's text when it is not a date.
fn date_arg(name: &str, v: Option<&str>) -> Result<Option<String>, String> {
    match v.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => parse_since(s)
            .map(Some)
            .ok_or_else(|| format!("feed.search: {name} must be a date like 2026-01-31 (got '{}')", clip(s, 40))),
    }
}

/// `feed.search`.
pub async fn search_items(ctx: &Context, a: SearchArgs) -> Outcome {
    let limit = a.limit.count();
    let since = match date_arg("since", a.since.as_deref()) {
        Ok(v) => v,
        Err(why) => return Ok(Answer::refuse(why)),
    };
    let until = match date_arg("until", a.until.as_deref()) {
        Ok(v) => v,
        Err(why) => return Ok(Answer::refuse(why)),
    };
    // `year` narrows the dates (the later start, the earlier end).
    let (since, until) = match a.year.as_deref().map(str::trim).filter(|y| !y.is_empty()) {
        None => (since, until),
        Some(y) => match years(y) {
            Some((from, to)) => ([since, from].into_iter().flatten().max(), [until, to].into_iter().flatten().min()),
            None => {
                return Ok(Answer::refuse(format!(
                    "feed.search: year must be a year or a range like 2024, 2020-2024, 2020- or -2024 (got '{}')",
                    clip(y, 40)
                )));
            }
        },
    };
    let author = a.author.clone().filter(|t| crate::search::name_words(t).iter().any(|w| !w.is_empty()));
    let kind = match a.kind.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
        None => None,
        Some(k) => match Kind::parse(k) {
            Some(k) => Some(k),
            None => {
                return Ok(Answer::refuse(format!(
                    "feed.search: kind must be paper, preprint, survey, release or post (got '{}')",
                    clip(k, 40)
                )));
            }
        },
    };
    let tag = a.tag.clone().filter(|t| !t.trim().is_empty());
    let source = a.source.clone().filter(|t| !t.trim().is_empty());
    if a.query.trim().is_empty()
        && tag.is_none()
        && since.is_none()
        && until.is_none()
        && source.is_none()
        && kind.is_none()
        && author.is_none()
    {
        return Ok(Answer::refuse(
            "feed.search needs a query (what to look for, e.g. query=\"asymmetric hydrogenation\"), or a filter: tag, source, kind, author, year, since=YYYY-MM-DD or until=YYYY-MM-DD. For today's reading, use feed.list.",
        )
        .with_options(vec!["feed.list".into()]));
    }
    if a.query.chars().count() > 1_000 {
        return Ok(Answer::refuse("feed.search: the query is over 1,000 characters; give the few words that matter."));
    }
    let offset = match (a.offset, a.page) {
        (Some(o), _) => o,
        (None, Some(p)) => p.max(1).saturating_sub(1).saturating_mul(limit),
        (None, None) => 0,
    };
    if offset > MAX_OFFSET {
        return Ok(Answer::refuse(format!(
            "feed.search pages up to offset {MAX_OFFSET} (got {offset}); add words or filters to narrow the search instead."
        )));
    }
    let (reader, notice) = reader_for(ctx, "feed.search", &a.user).await?;
    let q = search::SearchQuery {
        text: a.query.clone(),
        tag: tag.clone(),
        since: since.clone(),
        until: until.clone(),
        source: source.clone(),
        kind,
        limit: SEARCH_POOL,
        author: author.clone(),
    };
    let found = search::find(&ctx.store, &q, SEARCH_POOL.max(offset + limit)).await?;
    let filters = describe_filters(&a, tag.as_deref(), source.as_deref(), kind, author.as_deref());
    if found.hits.is_empty() && found.closest.is_empty() {
        let what = if a.query.trim().is_empty() {
            format!("nothing in the archive matches the filters ({filters}). Drop or widen a filter")
        } else {
            let filt = if filters.is_empty() { String::new() } else { format!(" ({filters})") };
            format!(
                "nothing in the archive matches '{}'{filt}. Try other or fewer words, drop the filters",
                clip(&a.query, 80)
            )
        };
        return Ok(Answer::refuse(with_notice(
            format!("{what}, or subscribe to a feed that covers it (feed.source_suggest)."),
            &notice,
        ))
        .with_options(vec!["feed.source_suggest".into(), "feed.list".into()]));
    }
    let weak = found.hits.is_empty();
    let pool: &[search::Scored] = if weak { &found.closest } else { &found.hits };
    let hit_ids: Vec<i64> = pool.iter().map(|h| h.item_id).collect();
    let hit_set: HashSet<i64> = hit_ids.iter().copied().collect();
    // The hits are scored against the reader's window index (the one feed.list ranks,
    // cached) with the model fitted there: indexed with its statistics, not refitted.
    let (window, _, _, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let data = &window.data;
    let fitted = window.model(&reader.interests);
    let items: Vec<&Item> = hit_ids.iter().filter_map(|id| found.items.get(id)).collect();
    let clicks = &data.clicks;
    let verdicts: HashMap<i64, bool> = clicks.iter().map(|c| (c.item_id, c.useful)).collect();
    let mut hit_items: Vec<RankItem> = items.iter().map(|i| RankItem::from(*i)).collect();
    let mut emb = Embeddings::Off;
    if let Some(svc) = &ctx.embed {
        emb = svc.interests(&reader.interests).await;
        if matches!(emb, Embeddings::On(_)) {
            let refs: Vec<&RankItem> = hit_items.iter().collect();
            let filled = svc.fill(&ctx.store, &refs).await?;
            if let Some(why) = filled.failure {
                emb = Embeddings::Unavailable(why);
            }
            for it in &mut hit_items {
                it.vector = filled.vectors.get(&it.id).cloned();
            }
        }
    }
    let corpus = Corpus::build_against(&data.corpus, hit_items);
    let model = fitted.transfer(&data.corpus, &corpus, &reader.interests);
    let opts = RankOptions { exclude_clicked: false, only: Some(hit_set), limit: None };
    let ranking = model.rank(&corpus, &opts, &emb);
    // Relevance first; the reader's ranking among the hits breaks near-ties. With no
    // text every item is equally relevant, so the reader orders them.
    let pref: HashMap<i64, f64> = ranking.items.iter().map(|r| (r.id, 1.0 - r.score)).collect();
    let mut ordered: Vec<(f64, usize, i64)> = pool
        .iter()
        .enumerate()
        .map(|(i, h)| (h.relevance + PREFERENCE * pref.get(&h.item_id).copied().unwrap_or(0.0), i, h.item_id))
        .collect();
    ordered.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)));
    let shown: Vec<&Item> =
        ordered.iter().skip(offset).take(limit).filter_map(|(_, _, id)| found.items.get(id)).collect();
    let rows: Vec<Row> = shown
        .iter()
        .map(|i| {
            let mut r = row(i, verdicts.get(&i.id).copied());
            r.kind = Some(kind::of(i));
            r
        })
        .collect();
    let refs = shown.iter().map(|i| item_ref(i.id, i.url.as_deref())).collect();
    ctx.remember_shown("feed.search", &reader.name, shown.iter().map(|i| (i.id, i.title.clone())).collect());
    let total = pool.len();
    let more = total.saturating_sub(offset + rows.len());
    let at_least = if found.capped && !weak { "at least " } else { "" };
    let qual = quality::assess(clicks, &ranking.terms, None);
    let filt = if filters.is_empty() { String::new() } else { format!(" ({filters})") };
    let page = if offset > 0 && !rows.is_empty() {
        format!(" ({}–{})", offset + 1, offset + rows.len())
    } else {
        String::new()
    };
    let next = format!("next page: offset={}", offset + rows.len());
    let line = if rows.is_empty() {
        format!(
            "{} {} for '{}'{filt}, none at offset {offset}: ask for an earlier page.",
            total,
            if total == 1 { "match" } else { "matches" },
            clip(&a.query, 60)
        )
    } else if weak {
        let of = found.terms;
        format!(
            "nothing matched '{}'{filt} well: no item has {} of its {} terms. Closest{page}: {}{}",
            clip(&a.query, 60),
            if found.needed == of { "all".to_string() } else { found.needed.to_string() },
            of,
            titles(&rows, 3),
            more_line(more, if more == 1 { "weaker match" } else { "weaker matches" }, &next)
        )
    } else if a.query.trim().is_empty() {
        format!(
            "{at_least}{} {} in the archive{filt}, best for '{}' first{page}: {}{}",
            total,
            if total == 1 { "item" } else { "items" },
            reader.name,
            titles(&rows, 3),
            more_line(more, if more == 1 { "item" } else { "items" }, &format!("{next}, or narrow the filters"))
        )
    } else {
        format!(
            "{at_least}{} {} for '{}' in the archive{filt}, best first (ties broken for '{}'){page}: {}{}",
            total,
            if total == 1 { "match" } else { "matches" },
            clip(&a.query, 60),
            reader.name,
            titles(&rows, 3),
            more_line(more, if more == 1 { "match" } else { "matches" }, &format!("{next}, or add words or filters"))
        )
    };
    let data = Searched {
        user: reader.name.clone(),
        query: clip(&a.query, 200),
        hits: if weak { 0 } else { total },
        items: rows,
        more,
        quality: quality_value(&qual),
        offset,
        closest: weak,
    };
    let mut caveats: Vec<String> = Vec::new();
    if weak {
        caveats.push(format!(
            "these are near misses, not matches: each has fewer than {} of the query's {} terms",
            found.needed, found.terms
        ));
    }
    caveats.extend(qual.caveat.clone());
    Ok(Answer::ok(with_notice(line, &notice), data).with_refs(refs).with_caveats(caveats).into_value())
}

/// The filters of a search, as a person would read them ("preprints, from arXiv, since
/// 2026-10-01").
fn describe_filters(
    a: &SearchArgs,
    tag: Option<&str>,
    source: Option<&str>,
    kind: Option<Kind>,
    author: Option<&str>,
) -> String {
    let mut parts = Vec::new();
    if let Some(k) = kind {
        parts.push(format!("{}s", k.as_str()));
    }
    if let Some(w) = author {
        parts.push(format!("by '{}'", clip(w.trim(), 40)));
    }
    if let Some(y) = a.year.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        parts.push(format!("year {}", clip(y, 12)));
    }
    if let Some(t) = tag {
        parts.push(format!("tagged '{}'", clip(t, 40)));
    }
    if let Some(s) = source {
        parts.push(format!("from '{}'", clip(s, 40)));
    }
    if let Some(s) = a.since.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        parts.push(format!("since {}", clip(s, 10)));
    }
    if let Some(s) = a.until.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        parts.push(format!("before {}", clip(s, 10)));
    }
    parts.join(", ")
}

/// Arguments of `feed.search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// The reader the hits are ranked for (empty: the only reader, when there is one).
    #[serde(default)]
    pub user: String,
    /// What to look for, in plain words ("asymmetric hydrogenation", "cs.LG", "\"mixture of experts\"").
    #[serde(default)]
    pub query: String,
    /// Only items carrying this tag (e.g. `catalysis`, `cs.lg`).
    #[serde(default)]
    pub tag: Option<String>,
    /// Only items published on or after this date (`YYYY-MM-DD`).
    #[serde(default)]
    pub since: Option<String>,
    /// Only items published before this date (`YYYY-MM-DD`).
    #[serde(default)]
    pub until: Option<String>,
    /// Only items an author of which is named so (every word of it in one author's
    /// name, any case: `Curie`, `Marie Curie`), as the feed names its authors.
    #[serde(default)]
    pub author: Option<String>,
    /// Only items published in this year or range (`2024`, `2020-2024`, `2020-`, `-2024`).
    #[serde(default)]
    pub year: Option<String>,
    /// Only items from feeds whose title or address contains this (e.g. `arxiv`, `Synthesis Letters`).
    #[serde(default)]
    pub source: Option<String>,
    /// Only items of this kind: paper, preprint, survey, release or post (read from the
    /// source and title, no model).
    #[serde(default, alias = "type")]
    pub kind: Option<String>,
    /// How many hits to show.
    #[serde(default)]
    pub limit: RowLimit<MAX_LIMIT, DEFAULT_LIMIT>,
    /// Skip this many hits (paging: the answer says the next offset).
    #[serde(default)]
    pub offset: Option<usize>,
    /// Or the page to show (1 = first), `limit` hits a page.
    #[serde(default)]
    pub page: Option<usize>,
}

/// `feed.search` alone, over a context: the knowledge surface links it without the rest
/// of the feed catalogue; the feed catalogue registers the same tool.
pub fn search_tool(ctx: Arc<Context>) -> Tool {
    Tool::new(
        ToolSpec::new(
            "feed.search",
            "Search the archive",
            "Search the whole archive of the reader's feeds for a topic, best matches first.\n\nFull-text search with stemming (words, \"quoted phrases\", tags like cs.LG); title and tag matches rank higher and the reader's ranking only breaks near-ties. When nothing matches well it says so and lists the closest. Filters: kind (paper, preprint, survey, release, post), source, tag, author, year, since/until=YYYY-MM-DD; page with offset or page.",
            WRITE_IDEMPOTENT,
        ),
        move |a: SearchArgs| {
            let ctx = Arc::clone(&ctx);
            async move { search_items(&ctx, a).await }
        },
    )
}
