//! `feed.search`: the archive's full-text hits, re-ranked for the reader.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use attest_core::text::clip;
use attest_core::{Answer, Bounded, Outcome, Tool, ToolSpec};
use schemars::JsonSchema;
use serde::Deserialize;

use super::common::{more_line, quality_value, titles};
use super::replies::{item_ref, row};
use super::{
    Context, DEFAULT_LIMIT, LIST_DAYS, MAX_LIMIT, Row, SEARCH_POOL, Searched, WRITE_IDEMPOTENT, reader_for, window_for,
    with_notice,
};
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

/// `feed.search`.
pub async fn search_items(ctx: &Context, a: SearchArgs) -> Outcome {
    let limit = a.limit.count();
    let since = match a.since.as_deref().filter(|s| !s.trim().is_empty()) {
        None => None,
        Some(s) => match parse_since(s) {
            Some(v) => Some(v),
            None => {
                return Ok(Answer::refuse(format!(
                    "feed.search: since must be a date like 2026-01-31 (got '{}')",
                    clip(s, 40)
                )));
            }
        },
    };
    let tag = a.tag.clone().filter(|t| !t.trim().is_empty());
    if a.query.trim().is_empty() && tag.is_none() && since.is_none() {
        return Ok(Answer::refuse(
            "feed.search needs a query (what to look for, e.g. query=\"asymmetric hydrogenation\"), a tag or since=YYYY-MM-DD. For today's reading, use feed.list.",
        )
        .with_options(vec!["feed.list".into()]));
    }
    if a.query.chars().count() > 1_000 {
        return Ok(Answer::refuse("feed.search: the query is over 1,000 characters; give the few words that matter."));
    }
    let (reader, notice) = reader_for(ctx, "feed.search", &a.user).await?;
    let q = search::SearchQuery { text: a.query.clone(), tag: tag.clone(), since, limit: SEARCH_POOL };
    let hits = search::search(&ctx.store, &q).await?;
    if hits.is_empty() {
        let filt = tag.map(|t| format!(" with tag '{t}'")).unwrap_or_default();
        return Ok(Answer::refuse(with_notice(
            format!(
                "nothing in the archive matches '{}'{filt}. Try other or fewer words, drop the filters, or subscribe to a feed that covers it (feed.source_suggest).",
                clip(&a.query, 80)
            ),
            &notice,
        ))
        .with_options(vec!["feed.source_suggest".into(), "feed.list".into()]));
    }
    let hit_ids: Vec<i64> = hits.iter().map(|h| h.item_id).collect();
    let hit_set: HashSet<i64> = hit_ids.iter().copied().collect();
    // The hits are scored against the reader's window index (the one feed.list ranks,
    // cached) with the model fitted there: indexed with its statistics, not refitted.
    let (window, _, _, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let data = &window.data;
    let fitted = window.model(&reader.interests);
    let items = ctx.store.items(&hit_ids).await?;
    let clicks = &data.clicks;
    let verdicts: HashMap<i64, bool> = clicks.iter().map(|c| (c.item_id, c.useful)).collect();
    let mut hit_items: Vec<RankItem> = items.iter().map(RankItem::from).collect();
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
    // Half the match (the hit's position in the full-text order), half the reader.
    let n = hit_ids.len().max(2) as f64 - 1.0;
    let match_pct: HashMap<i64, f64> = hit_ids.iter().enumerate().map(|(i, id)| (*id, i as f64 / n)).collect();
    let mut blended: Vec<(f64, f64, i64)> = ranking
        .items
        .iter()
        .map(|r| {
            let m = match_pct.get(&r.id).copied().unwrap_or(1.0);
            ((m + r.score) / 2.0, m, r.id)
        })
        .collect();
    blended.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)).then(y.2.cmp(&x.2)));
    let by_id: HashMap<i64, &Item> = items.iter().map(|i| (i.id, i)).collect();
    let shown: Vec<&Item> = blended.iter().take(limit).filter_map(|(_, _, id)| by_id.get(id).copied()).collect();
    let rows: Vec<Row> = shown.iter().map(|i| row(i, verdicts.get(&i.id).copied())).collect();
    let refs = shown.iter().map(|i| item_ref(i.id, i.url.as_deref())).collect();
    let more = hits.len().saturating_sub(rows.len());
    let at_least = if hits.len() >= SEARCH_POOL { "at least " } else { "" };
    let qual = quality::assess(clicks, &ranking.terms, None);
    let line = format!(
        "{}{} {} for '{}' in the archive, best for '{}' first: {}{}",
        at_least,
        hits.len(),
        if hits.len() == 1 { "match" } else { "matches" },
        clip(&a.query, 60),
        reader.name,
        titles(&rows, 3),
        more_line(more, "matches", &format!("raise limit up to {MAX_LIMIT}, or add words, tag= or since="))
    );
    let data = Searched {
        user: reader.name.clone(),
        query: clip(&a.query, 200),
        hits: hits.len(),
        items: rows,
        more,
        quality: quality_value(&qual),
    };
    Ok(Answer::ok(with_notice(line, &notice), data).with_refs(refs).with_caveats(qual.caveat.clone()).into_value())
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
    /// How many hits to show.
    #[serde(default)]
    pub limit: Bounded<1, MAX_LIMIT, DEFAULT_LIMIT>,
}

/// `feed.search` alone, over a context: the knowledge surface links it without the rest
/// of the feed catalogue; the feed catalogue registers the same tool.
pub fn search_tool(ctx: Arc<Context>) -> Tool {
    Tool::new(
        ToolSpec::new(
            "feed.search",
            "Search the archive",
            "Search the whole archive of the reader's feeds for a topic, best matches for this reader first.\n\nFull-text search (words, \"quoted phrases\", tags like cs.LG), then ordered half by match and half by the reader's ranking. Filter by tag or since=YYYY-MM-DD.",
            WRITE_IDEMPOTENT,
        ),
        move |a: SearchArgs| {
            let ctx = Arc::clone(&ctx);
            async move { search_items(&ctx, a).await }
        },
    )
}
