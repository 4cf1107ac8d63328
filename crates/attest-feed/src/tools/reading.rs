//! The reading tools: `feed.list`, `feed.search`, `feed.read`, `feed.rate`,
//! `feed.explain` and `feed.digest`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use attest_core::text::clip;
use attest_core::{Answer, Outcome, Stop};
use sqlx::Row as _;

use super::common::{feed_fault, more_line, quality_value, sql, titles, unknown_item};
use super::context::window_for;
use super::personas::{reader_for, with_notice};
use super::replies::{item_ref, row};
use super::{
    Context, Digest, DigestArgs, Group, ItemArgs, LIST_DAYS, ListArgs, Listed, MAX_LIMIT, RateArgs, Rated, ReadItem,
    Row, SEARCH_POOL, SUMMARY_CHARS, SearchArgs, Searched, URL_CHARS,
};
use crate::model::{ClickSource, EngagementKind, Item, parse_stamp, stamp};
use crate::persona;
use crate::quality;
use crate::rank::{Corpus, Embeddings, RankItem, RankOptions, ReaderModel};
use crate::{explain, search};

// ---- feed.list --------------------------------------------------------------------------

pub(super) async fn list(ctx: &Context, a: ListArgs) -> Outcome {
    let limit = a.limit.count();
    let days = a.days.get();
    let (reader, notice) = reader_for(ctx, "feed.list", &a.user).await?;
    let (window, fp, since, widened) = window_for(ctx, &reader, days).await?;
    let (window, emb, coverage) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let (_, ranking) = window.rank(&reader.interests, limit, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let q = quality::assess(&window.data.clicks, &ranking.terms, measured.as_ref());
    let ids: Vec<i64> = ranking.items.iter().map(|r| r.id).collect();
    let items = ctx.store.items(&ids).await?;
    let rows: Vec<Row> = items.iter().map(|i| row(i, None)).collect();
    let refs = items.iter().map(|i| item_ref(i.id, i.url.as_deref())).collect();
    let more = ranking.candidates.saturating_sub(rows.len());
    let line = if rows.is_empty() {
        let counts = ctx.store.counts().await?;
        if counts.items == 0 {
            return Ok(Answer::refuse(with_notice(
                "the archive is empty: subscribe with feed.source_add(url) (or run attest ingest with a feeds file), then ask again".into(),
                &notice,
            )));
        }
        format!(
            "nothing unrated for '{}' since {}: every item there is rated. Widen with days=, or use feed.search for older items.",
            reader.name,
            &since[..10]
        )
    } else {
        format!(
            "For '{}', {} of {} unrated items since {}, best first: {}{}",
            reader.name,
            rows.len(),
            ranking.candidates,
            &since[..10],
            titles(&rows, 3),
            more_line(more, "ranked below", &format!("raise limit up to {MAX_LIMIT}"))
        )
    };
    let data = Listed {
        user: reader.name.clone(),
        since,
        candidates: ranking.candidates,
        items: rows,
        more,
        quality: quality_value(&q),
    };
    Ok(Answer::ok(with_notice(line, &notice), data)
        .with_refs(refs)
        .with_caveats(widened.into_iter().chain(q.caveat.clone()).chain(coverage))
        .into_value())
}

// ---- feed.search ------------------------------------------------------------------------

fn parse_since(s: &str) -> Option<String> {
    let s = s.trim();
    let date = s.get(..10)?;
    let t = parse_stamp(&format!("{date}T00:00:00Z"))?;
    Some(stamp(t))
}

pub(super) async fn search_items(ctx: &Context, a: SearchArgs) -> Outcome {
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

// ---- feed.read / feed.rate / feed.explain ------------------------------------------------

/// The item a call is about: by id, else by its address (link or GUID); neither is
/// asked back.
async fn item_for(ctx: &Context, tool: &str, id: Option<i64>, url: Option<&str>) -> Result<Item, Stop> {
    let id = match (id, url.map(str::trim).filter(|u| !u.is_empty())) {
        (Some(id), _) => id,
        (None, Some(u)) => item_by_url(ctx, u).await?.ok_or_else(|| {
            Stop::refuse(format!(
                "no item in the archive has the address {}; find it with feed.search, or subscribe to its feed with feed.source_add",
                clip(u, 160)
            ))
            .with_options(["feed.search", "feed.source_add"])
        })?,
        (None, None) => {
            return Err(Stop::ask_back(
                format!(
                    "Which item? Pass item_id (from feed.list or feed.search) or its url, and {tool} runs in the same call."
                ),
                [tool, "feed.list", "feed.search"],
            ));
        }
    };
    match ctx.store.item(id).await {
        Ok(Some(it)) => Ok(it),
        Ok(None) => Err(Stop::from(unknown_item(id))),
        Err(e) => Err(feed_fault(e).into()),
    }
}

async fn item_by_url(ctx: &Context, url: &str) -> Result<Option<i64>, Stop> {
    let r = sqlx::query("SELECT id FROM items WHERE url = $1 OR guid = $1 ORDER BY id LIMIT 1")
        .bind(url.trim())
        .fetch_optional(ctx.store.pool())
        .await
        .map_err(sql)?;
    Ok(r.map(|r| r.get("id")))
}

pub(super) async fn read(ctx: &Context, a: ItemArgs) -> Outcome {
    let it = item_for(ctx, "feed.read", a.item_id, a.url.as_deref()).await?;
    let (reader, notice) = reader_for(ctx, "feed.read", &a.user).await?;
    ctx.store.record_engagement(reader.id, it.id, EngagementKind::Read).await?;
    let verdict = ctx.store.click(reader.id, it.id).await?.map(|c| c.useful);
    let summary = clip(&it.summary, SUMMARY_CHARS);
    let src = it
        .source
        .as_deref()
        .map(|s| format!(" ({s}, {})", &it.published[..10.min(it.published.len())]))
        .unwrap_or_default();
    let line = format!(
        "{}{src}: {}",
        clip(&it.title, 160),
        if summary.is_empty() { "no summary in the feed".to_string() } else { clip(&summary, 300) }
    );
    let refs = vec![item_ref(it.id, it.url.as_deref())];
    let data = ReadItem {
        row: row(&it, verdict),
        url: it.url.as_deref().map(|u| clip(u, URL_CHARS)),
        summary,
        doi: it.doi.clone(),
        arxiv_id: it.arxiv_id.clone(),
    };
    Ok(Answer::ok(with_notice(line, &notice), data).with_refs(refs).into_value())
}

pub(super) async fn rate(ctx: &Context, a: RateArgs) -> Outcome {
    let source = match a.source.as_deref().filter(|s| !s.trim().is_empty()) {
        None => ClickSource::Agent,
        Some(s) => match s.parse::<ClickSource>() {
            Ok(c) => c,
            Err(e) => return Ok(Answer::refuse(format!("feed.rate: {e}"))),
        },
    };
    let (reader, _) = reader_for(ctx, "feed.rate", &a.user).await?;
    let it = item_for(ctx, "feed.rate", a.item_id, a.url.as_deref()).await?;
    let before = ctx.store.click(reader.id, it.id).await?;
    ctx.store.record_click(reader.id, it.id, a.useful, source).await?;
    ctx.reader_changed(reader.id);
    let clicks = ctx.store.clicks(reader.id).await?;
    let evidence: Vec<_> = clicks.iter().filter(|c| c.source.counts_as_evidence()).collect();
    let active = evidence.iter().any(|c| !c.useful);
    let w = if active { crate::rank::blend_weight(evidence.len()) } else { 0.0 };
    let verdict = if a.useful { "useful" } else { "not useful" };
    let replaced = before.as_ref().is_some_and(|b| b.useful != a.useful || b.source != source);
    let was = match &before {
        Some(b) if b.useful != a.useful => format!(" (was {})", if b.useful { "useful" } else { "not useful" }),
        _ => String::new(),
    };
    let line = format!(
        "recorded: '{}' is {verdict} to '{}'{was}. {}",
        clip(&it.title, 90),
        reader.name,
        persona::status_line(&reader.name, clicks.len(), evidence.len(), w)
    );
    let mut caveats = Vec::new();
    if !active && !evidence.is_empty() {
        caveats.push("the ratings only say useful so far, so they do not change the order yet: mark an item not useful to let them count".to_string());
    }
    let data = Rated {
        user: reader.name.clone(),
        item_id: it.id,
        useful: a.useful,
        source: source.as_str().into(),
        replaced,
        ratings: clicks.len(),
    };
    Ok(Answer::ok(line, data).with_refs(vec![item_ref(it.id, it.url.as_deref())]).with_caveats(caveats).into_value())
}

pub(super) async fn explain_tool(ctx: &Context, a: ItemArgs) -> Outcome {
    let it = item_for(ctx, "feed.explain", a.item_id, a.url.as_deref()).await?;
    let (reader, notice) = reader_for(ctx, "feed.explain", &a.user).await?;
    let (window, _, _, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let data = &window.data;
    let built;
    let (corpus, model): (&Corpus, Arc<ReaderModel>) = if data.corpus.position(it.id).is_some() {
        (&data.corpus, window.model(&reader.interests))
    } else {
        let mut items: Vec<RankItem> = data.corpus.items().to_vec();
        items.push(RankItem::from(&it));
        built = Corpus::build(items);
        (&built, Arc::new(ReaderModel::fit(&built, &reader.interests, &data.clicks)))
    };
    let Some(e) = explain::explain(corpus, &model, it.id) else {
        return Ok(unknown_item(it.id));
    };
    ctx.store.record_engagement(reader.id, it.id, EngagementKind::Explain).await?;
    let line = format!("'{}': {}", clip(&it.title, 90), e.text);
    Ok(Answer::ok(with_notice(line, &notice), e).with_refs(vec![item_ref(it.id, it.url.as_deref())]).into_value())
}

// ---- feed.digest ------------------------------------------------------------------------

pub(super) async fn digest(ctx: &Context, a: DigestArgs) -> Outcome {
    let limit = a.limit.count();
    let days = a.days.get();
    let (reader, notice) = reader_for(ctx, "feed.digest", &a.user).await?;
    let (window, fp, since, widened) = window_for(ctx, &reader, days).await?;
    let (window, emb, coverage) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let widened = widened.into_iter().chain(coverage).collect::<Vec<_>>().join("; ");
    let widened = Some(widened).filter(|w| !w.is_empty());
    let (_, ranking) = window.rank(&reader.interests, usize::MAX, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let data = &window.data;
    let q = quality::assess(&data.clicks, &ranking.terms, measured.as_ref());
    if ranking.items.is_empty() {
        return Ok(Answer::refuse(with_notice(
            format!(
                "nothing unrated for '{}' since {}; widen with days=, or run attest ingest",
                reader.name,
                &since[..10]
            ),
            &notice,
        )));
    }
    // Group by the first topic tag; untagged items by their source.
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, (usize, Vec<i64>)> = HashMap::new();
    for r in &ranking.items {
        let it = data.corpus.item(r.doc);
        let key = it.tags.iter().find(|t| persona::is_topic_tag(t)).cloned().unwrap_or_else(|| {
            format!("from {}", if it.source.is_empty() { "an unsubscribed feed" } else { &it.source })
        });
        let g = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key.clone());
            (0, Vec::new())
        });
        g.0 += 1;
        if g.1.len() < 3 {
            g.1.push(r.id);
        }
    }
    let more_groups = order.len().saturating_sub(limit);
    order.truncate(limit);
    let ids: Vec<i64> = order.iter().flat_map(|k| groups[k].1.clone()).collect();
    let items: HashMap<i64, Item> = ctx.store.items(&ids).await?.into_iter().map(|i| (i.id, i)).collect();
    let mut refs = Vec::new();
    let out: Vec<Group> = order
        .iter()
        .map(|k| {
            let (count, ids) = &groups[k];
            let rows = ids
                .iter()
                .filter_map(|id| items.get(id))
                .map(|i| {
                    refs.push(item_ref(i.id, i.url.as_deref()));
                    let mut r = row(i, None);
                    r.title = clip(&r.title, 80);
                    r.tags.truncate(2);
                    r
                })
                .collect();
            Group { topic: clip(k, 48), count: *count, items: rows }
        })
        .collect();
    refs.truncate(MAX_LIMIT as usize);
    let heads: Vec<String> = out.iter().map(|g| format!("{} ({})", g.topic, g.count)).collect();
    let line = format!(
        "'{}' since {}: {} unrated items in {} topics, best topic first: {}{}",
        reader.name,
        &since[..10],
        ranking.candidates,
        out.len() + more_groups,
        heads.join(", "),
        more_line(more_groups, "topics", &format!("raise limit up to {MAX_LIMIT}"))
    );
    let data = Digest {
        user: reader.name.clone(),
        since,
        candidates: ranking.candidates,
        groups: out,
        more_groups,
        quality: quality_value(&q),
    };
    Ok(Answer::ok(with_notice(line, &notice), data)
        .with_refs(refs)
        .with_caveats(widened.into_iter().chain(q.caveat.clone()))
        .into_value())
}
