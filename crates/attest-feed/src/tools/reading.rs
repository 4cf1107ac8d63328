//! The reading tools: `feed.list`, `feed.search`, `feed.read`, `feed.rate`,
//! `feed.explain` and `feed.digest`.

use std::collections::HashMap;
use std::sync::Arc;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Outcome, Stop};

use super::{
    Context, Digest, DigestArgs, Group, ItemArgs, LIST_DAYS, ListArgs, Listed, MAX_LIMIT, RateArgs, Rated, ReadItem,
    Row, SUMMARY_CHARS, URL_CHARS,
};
use crate::explain;
use crate::model::{ClickSource, EngagementKind, Item};
use crate::persona;
use crate::quality;
use crate::rank::{Corpus, RankItem, ReaderModel};
use attest_archive::tools::window_for;
use attest_archive::tools::{feed_fault, more_line, quality_value, titles, unknown_item, unknown_item_near};
use attest_archive::tools::{item_ref, row};
use attest_archive::tools::{reader_for, with_notice};

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
    ctx.remember_shown("feed.list", &reader.name, items.iter().map(|i| (i.id, i.title.clone())).collect());
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
            more_line(more, "ranked below", &attest_archive::tools::raise_limit())
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

// ---- feed.read / feed.rate / feed.explain ------------------------------------------------

/// The item a call is about: by id, else by its address (link or GUID), else the one
/// item this session was last shown (`feed.read`, a one-row list…); after an answer
/// that showed several, which one is asked back with their ids; with nothing shown,
/// the id is asked for.
async fn item_for(ctx: &Context, tool: &str, id: Option<i64>, url: Option<&str>) -> Result<Item, Stop> {
    let id = match (id, url.map(str::trim).filter(|u| !u.is_empty())) {
        (Some(id), _) => id,
        (None, Some(u)) => ctx.store.item_id_by_url(u).await.map_err(feed_fault)?.ok_or_else(|| {
            Stop::refuse(format!(
                "no item in the archive has the address {}; find it with feed.search, or subscribe to its feed with feed.source_add",
                clip(u, 160)
            ))
            .with_options(["feed.search", "feed.source_add"])
        })?,
        (None, None) => match ctx.last_shown() {
            Some(shown) => match shown.single() {
                Some(id) => id,
                None => return Err(which_of(tool, &shown)),
            },
            None => {
                return Err(Stop::ask_back(
                    format!(
                        "Which item? Pass item_id (from feed.list or feed.search) or its url, and {tool} runs in the same call."
                    ),
                    [tool, "feed.list", "feed.search"],
                ));
            }
        },
    };
    match ctx.store.item(id).await {
        Ok(Some(it)) => Ok(it),
        Ok(None) => {
            let near = ctx.store.items_near(id, 3).await.map_err(feed_fault)?;
            Err(Stop::from(unknown_item_near(id, &near)))
        }
        Err(e) => Err(feed_fault(e).into()),
    }
}

/// The question back after an answer that showed several items: which one, by id.
pub(super) fn which_of(tool: &str, shown: &attest_archive::tools::Shown) -> Stop {
    let (question, options) = which_question(tool, shown);
    Stop::ask_back(question, options)
}

/// [`which_of`]'s question and options.
pub(super) fn which_question<'t>(tool: &'t str, shown: &attest_archive::tools::Shown) -> (String, [&'t str; 3]) {
    const NAMED: usize = 5;
    let named: Vec<String> =
        shown.items.iter().take(NAMED).map(|(id, title)| format!("item {id} '{}'", clip(title, 60))).collect();
    let more = shown.items.len().saturating_sub(NAMED);
    let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
    let question = format!(
        "Which item? The last answer ({}) showed {}: {}{more}. Say which, e.g. 'item {} useful', or pass item_id to {tool}.",
        shown.tool,
        plural(shown.items.len(), "item", "items"),
        named.join(", "),
        shown.items.first().map_or(0, |i| i.0)
    );
    let options = if tool == "feed.rate" {
        ["feed.rate", "feed.read", "feed.explain"]
    } else {
        [tool, "feed.rate", if tool == "feed.read" { "feed.explain" } else { "feed.read" }]
    };
    (question, options)
}

pub(super) async fn read(ctx: &Context, a: ItemArgs) -> Outcome {
    let it = item_for(ctx, "feed.read", a.item_id, a.url.as_deref()).await?;
    let (reader, notice) = reader_for(ctx, "feed.read", &a.user).await?;
    ctx.store.record_engagement(reader.id, it.id, EngagementKind::Read).await?;
    let verdict = ctx.store.click(reader.id, it.id).await?.map(|c| c.useful);
    let summary = clip(&it.summary, SUMMARY_CHARS);
    let by = attest_archive::tools::byline(&it.authors).map(|b| format!("; {b}")).unwrap_or_default();
    let src = it
        .source
        .as_deref()
        .map(|s| format!(" ({s}, {}{by})", &it.published[..10.min(it.published.len())]))
        .unwrap_or_else(|| if by.is_empty() { String::new() } else { format!(" ({})", &by[2..]) });
    let line = format!(
        "{}{src}: {}",
        clip(&it.title, 160),
        if summary.is_empty() { "no summary in the feed".to_string() } else { clip(&summary, 300) }
    );
    let refs = vec![item_ref(it.id, it.url.as_deref())];
    ctx.remember_shown("feed.read", &reader.name, vec![(it.id, it.title.clone())]);
    let data = ReadItem {
        row: row(&it, verdict),
        url: it.url.as_deref().map(|u| clip(u, URL_CHARS)),
        summary,
        doi: it.doi.clone(),
        arxiv_id: it.arxiv_id.clone(),
        all_authors: if it.authors.len() > 3 { it.authors.clone() } else { Vec::new() },
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
    ctx.remember_shown("feed.rate", &reader.name, vec![(it.id, it.title.clone())]);
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
    ctx.remember_shown("feed.explain", &reader.name, vec![(it.id, it.title.clone())]);
    let line = format!("'{}': {}", clip(&it.title, 90), e.text);
    Ok(Answer::ok(with_notice(line, &notice), e).with_refs(vec![item_ref(it.id, it.url.as_deref())]).into_value())
}

// ---- feed.digest ------------------------------------------------------------------------

/// Most topics a digest shows (the rest are counted).
const MAX_TOPICS: usize = 8;
/// Items listed per topic (the rest are counted).
const ITEMS_PER_TOPIC: usize = 3;

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
    // Group by topic: the communities of the concept graph of the window's items
    // (their tags as concepts; a concept is a tag two items carry, joined to another
    // by one shared item at least), each item in the community holding most of its
    // concepts. Items of no topic (or of a topic of one item) come last, as "other".
    let ranked: Vec<(i64, Vec<String>)> =
        ranking.items.iter().map(|r| (r.id, data.corpus.item(r.doc).tags.clone())).collect();
    let assignments: Vec<(i64, String)> = ranked
        .iter()
        .flat_map(|(id, tags)| tags.iter().flat_map(|t| attest_tags::concept_tags(t)).map(move |c| (*id, c)))
        .collect();
    let params = attest_kg::Params { min_tag_uses: 2, min_edge_weight: 1, max_evidence: 1 };
    let graph = attest_kg::graph::build(&assignments, params);
    let (topics, other) = graph.group_items(&ranked, 2);
    let limit = limit.min(MAX_TOPICS);
    let mut groups: Vec<(String, Vec<String>, Vec<i64>)> =
        topics.into_iter().map(|t| (t.concepts.join(", "), t.concepts, t.items)).collect();
    let more_groups = groups.len().saturating_sub(limit);
    groups.truncate(limit);
    if !other.is_empty() {
        let label = if groups.is_empty() { "all topics" } else { "other topics" };
        groups.push((label.to_string(), Vec::new(), other));
    }
    let ids: Vec<i64> = groups.iter().flat_map(|g| g.2.iter().take(ITEMS_PER_TOPIC).copied()).collect();
    let items: HashMap<i64, Item> = ctx.store.items(&ids).await?.into_iter().map(|i| (i.id, i)).collect();
    let mut refs = Vec::new();
    let out: Vec<Group> = groups
        .iter()
        .map(|(topic, concepts, ids)| {
            let rows = ids
                .iter()
                .take(ITEMS_PER_TOPIC)
                .filter_map(|id| items.get(id))
                .map(|i| {
                    refs.push(item_ref(i.id, i.url.as_deref()));
                    let mut r = row(i, None);
                    r.title = clip(&r.title, 100);
                    r.tags.truncate(3);
                    r
                })
                .collect();
            Group { topic: clip(topic, 80), concepts: concepts.clone(), count: ids.len(), items: rows }
        })
        .collect();
    refs.truncate(attest_core::budget::rows(MAX_LIMIT as usize));
    let shown: Vec<(i64, String)> =
        out.iter().flat_map(|g| g.items.iter().map(|r| (r.item_id, r.title.clone()))).collect();
    ctx.remember_shown("feed.digest", &reader.name, shown);
    let named = out.iter().filter(|g| !g.concepts.is_empty()).count();
    let heads: Vec<String> = out
        .iter()
        .enumerate()
        .map(|(k, g)| {
            let shown: Vec<String> =
                g.items.iter().take(2).map(|r| format!("'{}' (item {})", clip(&r.title, 70), r.item_id)).collect();
            let rest = g.count.saturating_sub(shown.len());
            let rest = if rest > 0 { format!(" and {rest} more") } else { String::new() };
            if named == 0 {
                format!("{}{rest}", shown.join(", "))
            } else {
                format!("{}. {} ({}): {}{rest}", k + 1, g.topic, g.count, shown.join(", "))
            }
        })
        .collect();
    let line = if named == 0 {
        format!(
            "'{}' since {}: {}, no two of them sharing a concept yet, so no topics; best first: {}",
            reader.name,
            &since[..10],
            plural(ranking.candidates, "unrated item", "unrated items"),
            heads.join("; ")
        )
    } else {
        format!(
            "'{}' since {}: {} in {}, best first. {}{}",
            reader.name,
            &since[..10],
            plural(ranking.candidates, "unrated item", "unrated items"),
            plural(named + more_groups, "topic", "topics"),
            heads.join("; "),
            more_line(more_groups, "topics", &format!("raise limit up to {MAX_TOPICS}"))
        )
    };
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
