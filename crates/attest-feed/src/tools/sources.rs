//! The subscription tools (`feed.source_*`, `feed.sources`) and `feed.research`.

use std::collections::HashMap;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Outcome, Ref, Stop};

use super::{
    Context, PreviewArgs, Source, SourceAddArgs, SourceRemoveArgs, Sources, SourcesArgs, SuggestArgs, Suggestion,
    TITLE_CHARS, URL_CHARS,
};
use crate::model::now_stamp;
use crate::research::{self, ResearchArgs};
use crate::{FeedError, ingest};
use attest_archive::tools::{fault, more_line};

pub(super) async fn research_tool(ctx: &Context, a: ResearchArgs) -> Outcome {
    Ok(research::tool(ctx, a).await?)
}

// ---- sources ----------------------------------------------------------------------------

/// The feed address a call is about: none is asked back, one too long refused.
fn feed_address(tool: &str, url: &str) -> Result<(), Stop> {
    let u = url.trim();
    if u.is_empty() {
        return Err(Stop::ask_back("Which feed? Pass its address as url=https://….", [tool, "feed.source_suggest"]));
    }
    if u.chars().count() > 2_000 {
        return Err(Stop::refuse("that address is over 2,000 characters; give the feed's own address"));
    }
    Ok(())
}

pub(super) async fn source_add(ctx: &Context, a: SourceAddArgs) -> Outcome {
    feed_address("feed.source_add", &a.url)?;
    let a = SourceAddArgs { url: a.url.trim().to_string(), ..a };
    if let Err(e) = crate::fetch::locate(&a.url, ctx.fetcher.options().allow_local) {
        return Ok(Answer::refuse(format!("{e}. Nothing was subscribed.")));
    }
    if let Some(f) = ctx.store.feed_by_url(&a.url).await? {
        return Ok(Answer::ok(
            format!(
                "already subscribed to {} (feed {}, {})",
                f.title.as_deref().unwrap_or(&f.url),
                f.id,
                plural(f.item_count as usize, "item", "items")
            ),
            source_row(&f),
        )
        .into_value());
    }
    if !a.fetch {
        let sub = ctx.store.subscribe(&a.url, a.title.as_deref()).await?;
        mark_seeded(ctx).await?;
        ctx.invalidate();
        return Ok(Answer::ok(
            format!(
                "registered {} as feed {}; it is fetched at the next attest ingest",
                clip(&sub.feed.url, 200),
                sub.feed.id
            ),
            source_row(&sub.feed),
        )
        .with_caveats(["not fetched yet, so not checked to be a feed"])
        .into_value());
    }
    // Check it is a feed before subscribing: a page that is not one is refused and
    // nothing is stored.
    ingest::preview(&ctx.fetcher, &a.url, 1).await?;
    let sub = ctx.store.subscribe(&a.url, a.title.as_deref()).await?;
    mark_seeded(ctx).await?;
    let out = ingest::ingest_feed(&ctx.store, &ctx.fetcher, &sub.feed).await;
    ctx.invalidate();
    let feed = ctx.store.feed(sub.feed.id).await?.unwrap_or(sub.feed);
    match out {
        Ok(o) => Ok(Answer::ok(
            format!(
                "subscribed to {} (feed {}): {} added, {} already in the archive",
                feed.title.as_deref().map(|t| clip(t, 80)).unwrap_or_else(|| clip(&feed.url, 120)),
                feed.id,
                plural(o.added, "item", "items"),
                o.skipped
            ),
            source_row(&feed),
        )
        .into_value()),
        Err(e) => {
            let mut r = fault(e)?;
            r.answer.push_str(&format!(
                " The subscription (feed {}) was kept; it is retried at the next attest ingest, or remove it with feed.source_remove.",
                feed.id
            ));
            Ok(r)
        }
    }
}

async fn mark_seeded(ctx: &Context) -> Result<(), FeedError> {
    // A database that got its feeds from an agent is no longer seeded from a file.
    if ctx.store.meta("seeded_at").await?.is_none() {
        ctx.store.set_meta("seeded_at", &now_stamp()).await?;
    }
    Ok(())
}

fn source_row(f: &crate::model::Feed) -> Source {
    Source {
        feed_id: f.id,
        title: f.title.as_deref().map(|t| clip(t, 80)),
        url: clip(&f.url, URL_CHARS),
        items: f.item_count,
        last_fetched: f.last_fetched.clone(),
        last_error: f.last_error.as_deref().map(|e| clip(e, 200)),
    }
}

pub(super) async fn source_remove(ctx: &Context, a: SourceRemoveArgs) -> Outcome {
    let feed = match (a.feed_id, a.url.as_deref().filter(|u| !u.trim().is_empty())) {
        (Some(id), _) => ctx.store.feed(id).await?,
        (None, Some(u)) => ctx.store.feed_by_url(u).await?,
        (None, None) => {
            return Ok(Answer::refuse("feed.source_remove needs feed_id (from feed.sources) or the feed's url")
                .with_options(vec!["feed.sources".into()]));
        }
    };
    let Some(feed) = feed else {
        let what = a
            .feed_id
            .map(|i| format!("feed_id {i}"))
            .unwrap_or_else(|| format!("'{}'", clip(a.url.as_deref().unwrap_or(""), 120)));
        return Ok(Answer::refuse(format!("no subscription matches {what}; feed.sources lists them with their ids"))
            .with_options(vec!["feed.sources".into()]));
    };
    let kept = ctx.store.unsubscribe(feed.id).await?;
    ctx.invalidate();
    Ok(Answer::ok(
        format!(
            "unsubscribed from {} (feed {}); its {} stay in the archive with their ratings",
            feed.title.as_deref().map(|t| clip(t, 80)).unwrap_or_else(|| clip(&feed.url, 120)),
            feed.id,
            plural(kept as usize, "item", "items")
        ),
        source_row(&feed),
    )
    .into_value())
}

pub(super) async fn source_preview(ctx: &Context, a: PreviewArgs) -> Outcome {
    let limit = a.limit.count();
    feed_address("feed.source_preview", &a.url)?;
    let p = ingest::preview(&ctx.fetcher, &a.url, limit).await?;
    let entries: Vec<(String, Option<String>)> =
        p.entries.iter().map(|(t, u)| (clip(t, TITLE_CHARS), u.as_deref().map(|u| clip(u, URL_CHARS)))).collect();
    let first: Vec<String> = entries.iter().take(3).map(|(t, _)| clip(t, 70)).collect();
    let line = format!(
        "{} is a feed{} with {}: {}{}. Subscribe with feed.source_add.",
        clip(a.url.trim(), 120),
        p.title.as_deref().map(|t| format!(" titled '{}'", clip(t, 80))).unwrap_or_default(),
        plural(p.total, "entry", "entries"),
        first.join("; "),
        more_line(p.total.saturating_sub(entries.len()), "entries", "raise limit to see more")
    );
    let data = ingest::Preview { title: p.title.map(|t| clip(&t, 120)), total: p.total, entries };
    Ok(Answer::ok(line, data).with_options(vec![]).into_value())
}

pub(super) async fn source_suggest(ctx: &Context, a: SuggestArgs) -> Outcome {
    let limit = a.limit.count();
    let reader = match a.user.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(u) => ctx.store.reader(u).await?,
        None => None,
    };
    // Concepts the archive carries (an arXiv code stored by an older ingest counts as
    // the concepts it stands for), and the reader's liked and disliked ones.
    let mut archive: HashMap<String, usize> = HashMap::new();
    for (t, n) in ctx.store.tag_counts(2_000).await? {
        for c in attest_tags::concept_tags(&t.to_lowercase()) {
            *archive.entry(c).or_default() += n.max(0) as usize;
        }
    }
    let mut liked: HashMap<String, i64> = HashMap::new();
    if let Some(r) = &reader {
        for (it, c) in ctx.store.clicked_items(r.id).await? {
            for t in &it.tags {
                for concept in attest_tags::concept_tags(&t.to_lowercase()) {
                    *liked.entry(concept).or_default() += if c.useful { 1 } else { -1 };
                }
            }
        }
    }
    // Candidates: the arXiv listings, each scored by the concepts it stands for: three
    // per net useful rating of the reader's on an item carrying one, one per archive
    // item carrying one. A listing already subscribed is skipped.
    let subscribed: Vec<String> = ctx.store.feeds().await?.into_iter().map(|f| f.url.to_lowercase()).collect();
    let mut out: Vec<(i64, usize, i64, String, Vec<String>)> = Vec::new();
    for (cat, concepts) in attest_tags::keyphrase::ARXIV {
        if !cat.contains('.') {
            continue; // a whole archive ("cs") is too broad a feed to suggest
        }
        let code = cat.to_lowercase();
        if subscribed.iter().any(|u| u.contains("arxiv") && u.split(['/', '+', '?', '=', '&']).any(|p| p == code)) {
            continue;
        }
        let n: usize = concepts.iter().map(|c| archive.get(*c).copied().unwrap_or(0)).sum();
        let l: i64 = concepts.iter().map(|c| liked.get(*c).copied().unwrap_or(0)).sum();
        let score = 3 * l + n as i64;
        if score > 0 && (n > 0 || l > 0) {
            out.push((score, n, l, cat.to_string(), concepts.iter().map(|c| c.replace('-', " ")).collect()));
        }
    }
    out.sort_by(|x, y| y.0.cmp(&x.0).then(y.1.cmp(&x.1)).then(x.3.cmp(&y.3)));
    let total = out.len();
    out.truncate(limit);
    if out.is_empty() {
        return Ok(Answer::refuse(
            "no feed to suggest: nothing in the archive (or in your ratings) points to an arXiv listing you are not already subscribed to. Subscribe to a journal's or blog's own feed with feed.source_add(url), after feed.source_preview(url) to check it.",
        )
        .with_options(vec!["feed.source_add".into(), "feed.source_preview".into()]));
    }
    let rows: Vec<Suggestion> = out
        .iter()
        .map(|(_, n, l, cat, names)| Suggestion {
            name: format!("https://rss.arxiv.org/rss/{cat}"),
            items: *n,
            why: match (*l, reader.as_ref()) {
                (l, Some(r)) if l > 0 => format!(
                    "arXiv {cat} ({}): {} rated useful by '{}', {} in the archive",
                    names.join(", "),
                    plural(l as usize, "item about it", "items about it"),
                    r.name,
                    plural(*n, "item", "items")
                ),
                _ => format!("arXiv {cat} ({}): {} in the archive", names.join(", "), plural(*n, "item", "items")),
            },
        })
        .collect();
    let whose = match &reader {
        Some(r) if out.iter().any(|o| o.2 > 0) => format!(" for '{}', by what they rated useful", r.name),
        _ => String::new(),
    };
    let line = format!(
        "feeds you could add{whose}: {}{}. Preview with feed.source_preview, subscribe with feed.source_add.",
        out.iter()
            .zip(&rows)
            .map(|((_, _, _, _, names), r)| format!("{} ({})", r.name, names.join(", ")))
            .collect::<Vec<_>>()
            .join("; "),
        more_line(total.saturating_sub(rows.len()), "listings", &attest_archive::tools::raise_limit())
    );
    Ok(Answer::ok(line, rows).with_options(vec![]).into_value())
}

pub(super) async fn sources(ctx: &Context, a: SourcesArgs) -> Outcome {
    let limit = a.limit.count();
    let mut feeds = ctx.store.feeds().await?;
    if feeds.is_empty() {
        return Ok(Answer::refuse(
            "no subscriptions yet: add one with feed.source_add(url), or seed a new database with attest ingest --feeds FILE",
        )
        .with_options(vec!["feed.source_add".into(), "feed.source_suggest".into()]));
    }
    feeds.sort_by_key(|f| f.last_error.is_none());
    let total = feeds.len();
    let failing = feeds.iter().filter(|f| f.last_error.is_some()).count();
    let shown: Vec<Source> = feeds.iter().take(limit).map(source_row).collect();
    let names: Vec<String> = shown
        .iter()
        .map(|s| {
            format!(
                "{} [{}] ({} items{})",
                s.title.as_deref().unwrap_or(&s.url),
                s.feed_id,
                s.items,
                if s.last_error.is_some() { ", failing" } else { "" }
            )
        })
        .collect();
    let line = format!(
        "{}{}: {}{}",
        plural(total, "subscription", "subscriptions"),
        if failing > 0 { format!(", {failing} failing at their last fetch") } else { String::new() },
        names.join("; "),
        more_line(total.saturating_sub(shown.len()), "subscriptions", &attest_archive::tools::raise_limit())
    );
    let refs = shown.iter().map(|s| Ref::with_url(format!("feed:{}", s.feed_id), s.url.clone())).collect();
    Ok(Answer::ok(line, Sources { feeds: shown, total, failing }).with_refs(refs).into_value())
}
