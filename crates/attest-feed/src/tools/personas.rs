//! The persona tools (`feed.persona_*`, `feed.harvest_engagement`) and the reader a
//! call is for.

use attest_core::text::{clip, plural};
use attest_core::{Answer, Outcome};

use super::{
    ConfirmArgs, Context, CreateArgs, LIST_DAYS, MergeArgs, Persona, SuggestArgs, Suggestion, UpdateArgs, UserArgs,
};
use crate::FeedError;
use crate::model::Reader;
use crate::persona::{self, Destructive};
use crate::quality;
use attest_archive::tools::quality_value;
use attest_archive::tools::{reader_for, window_for};

// ---- personas ---------------------------------------------------------------------------

/// The reader a persona tool is about: the name a question states, else `user`.
fn named<'a>(name: &'a Option<String>, user: &'a str) -> &'a str {
    name.as_deref().filter(|n| !n.trim().is_empty()).unwrap_or(user)
}

fn persona_data(r: &Reader, ratings: usize) -> Persona {
    Persona {
        user: r.name.clone(),
        interests: clip(&r.interests, 2_000),
        ratings,
        quality: None,
        liked: Vec::new(),
        disliked: Vec::new(),
    }
}

pub(super) async fn persona_create(ctx: &Context, a: CreateArgs) -> Outcome {
    let name = match persona::validate_name(named(&a.name, &a.user)) {
        Ok(n) => n,
        Err(e) => return Ok(Answer::refuse(format!("feed.persona_create: {e}"))),
    };
    let interests = match persona::validate_interests(&a.interests) {
        Ok(i) => i,
        Err(e) => {
            return Ok(Answer::refuse(format!(
                "feed.persona_create: {e} (feed.persona_suggest_interests lists what the archive covers)"
            ))
            .with_options(vec!["feed.persona_suggest_interests".into()]));
        }
    };
    match ctx.store.create_reader(&name, &interests).await {
        Ok(r) => {
            ctx.reader_changed(r.id);
            Ok(Answer::ok(
                format!("created reader '{}' with interests: {}", r.name, clip(&r.interests, 300)),
                persona_data(&r, 0),
            )
            .into_value())
        }
        Err(FeedError::ReaderExists(n)) => Ok(Answer::refuse(format!(
            "a reader named '{n}' already exists; change their interests with feed.persona_update, or pick another name"
        ))
        .with_options(vec!["feed.persona_update".into(), "feed.persona_status".into()])),
        Err(e) => Err(e.into()),
    }
}

pub(super) async fn persona_update(ctx: &Context, a: UpdateArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_update", named(&a.name, &a.user)).await?;
    let text = if a.append { format!("{}, {}", reader.interests, a.interests.trim()) } else { a.interests.clone() };
    if a.interests.trim().is_empty() {
        return Ok(Answer::refuse(format!(
            "feed.persona_update needs interests: the topics '{}' wants to read about (now: {})",
            reader.name,
            clip(&reader.interests, 200)
        )));
    }
    let interests = match persona::validate_interests(&text) {
        Ok(i) => i,
        Err(e) => return Ok(Answer::refuse(format!("feed.persona_update: {e}"))),
    };
    let r = ctx.store.update_interests(reader.id, &interests).await?;
    ctx.reader_changed(r.id);
    let n = ctx.store.clicks(r.id).await?.len();
    Ok(Answer::ok(
        format!("'{}' now reads about: {} ({} kept)", r.name, clip(&r.interests, 300), plural(n, "rating", "ratings")),
        persona_data(&r, n),
    )
    .into_value())
}

/// `feed.persona_status` with no reader named, when there is not exactly one: every
/// reader with their ratings and interests.
async fn list_readers(ctx: &Context) -> Outcome {
    let mut readers = ctx.store.readers().await?;
    if readers.is_empty() {
        return Ok(Answer::refuse(
            "there are no readers yet: create one with feed.persona_create (a name and the topics to follow), or ask for today's reading under a new name.",
        )
        .with_options(vec!["feed.persona_create".into(), "feed.list".into()]));
    }
    readers.sort_by_key(|r| r.name.to_lowercase());
    let total = readers.len();
    let mut shown = Vec::new();
    for r in readers.iter().take(MAX_READERS) {
        let n = ctx.store.clicks(r.id).await?.len();
        shown.push(persona_data(r, n));
    }
    let names: Vec<String> = shown
        .iter()
        .map(|p| {
            format!("{} ({}, interests \"{}\")", p.user, plural(p.ratings, "rating", "ratings"), clip(&p.interests, 60))
        })
        .collect();
    let line = format!(
        "{}: {}{}. Pass user=<name> for one reader's status.",
        plural(total, "reader", "readers"),
        names.join("; "),
        if total > shown.len() { format!(" and {} more", total - shown.len()) } else { String::new() }
    );
    Ok(Answer::ok(line, shown).into_value())
}

/// Most readers `feed.persona_status` lists.
const MAX_READERS: usize = 20;

pub(super) async fn persona_status(ctx: &Context, a: UserArgs) -> Outcome {
    if a.user.trim().is_empty() && ctx.store.readers().await?.len() != 1 {
        return list_readers(ctx).await;
    }
    let (reader, _) = reader_for(ctx, "feed.persona_status", &a.user).await?;
    let (window, fp, since, _) = window_for(ctx, &reader, LIST_DAYS).await?;
    let (window, emb, _) = ctx.embeddings(&reader, window, &since, &fp).await?;
    let (model, ranking) = window.rank(&reader.interests, 1, &emb);
    let measured = ctx.measured(&reader, &window, &fp).await;
    let q = quality::assess(&window.data.clicks, &ranking.terms, measured.as_ref());
    let key = |(k, c): (String, crate::rank::KeyCounts)| format!("{k} ({} of {})", c.useful, c.useful + c.not_useful);
    let liked: Vec<String> = model.preferences.liked(4).into_iter().map(key).collect();
    let disliked: Vec<String> = model.preferences.disliked(4).into_iter().map(key).collect();
    let mut line = format!(
        "{}. Interests: {}",
        persona::status_line(&reader.name, q.clicks, q.evidence_clicks, ranking.terms.blend_weight),
        clip(&reader.interests, 200)
    );
    if let Some(m) = &q.measured {
        line.push_str(&format!("; held out: AUC {:.3}, precision@5 {:.2}", m.auc, m.precision_at_5));
    }
    let mut d = persona_data(&reader, q.clicks);
    d.quality = Some(quality_value(&q));
    d.liked = liked;
    d.disliked = disliked;
    Ok(Answer::ok(line, d).with_caveats(q.caveat.clone()).into_value())
}

pub(super) async fn persona_reset(ctx: &Context, a: ConfirmArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_reset", named(&a.name, &a.user)).await?;
    let n = ctx.store.clicks(reader.id).await?.len();
    if let Err(msg) = persona::require_confirm(Destructive::Reset, a.confirm, &reader.name, n) {
        return Ok(Answer::refuse(msg)
            .with_options(vec!["feed.persona_reset".into()])
            .with_next(persona::confirm_step("feed.persona_reset")));
    }
    let w = ctx.store.reset_reader(reader.id).await?;
    ctx.reader_changed(reader.id);
    Ok(Answer::ok(
        format!(
            "reset '{}': erased {} and {} of reading history; interests kept",
            reader.name,
            plural(w.clicks as usize, "rating", "ratings"),
            plural(w.engagement as usize, "entry", "entries")
        ),
        persona_data(&reader, 0),
    )
    .into_value())
}

pub(super) async fn persona_delete(ctx: &Context, a: ConfirmArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.persona_delete", named(&a.name, &a.user)).await?;
    let n = ctx.store.clicks(reader.id).await?.len();
    if let Err(msg) = persona::require_confirm(Destructive::Delete, a.confirm, &reader.name, n) {
        return Ok(Answer::refuse(msg)
            .with_options(vec!["feed.persona_delete".into()])
            .with_next(persona::confirm_step("feed.persona_delete")));
    }
    let w = ctx.store.delete_reader(reader.id).await?;
    ctx.invalidate();
    Ok(Answer::ok(
        format!("deleted reader '{}' with {}", reader.name, plural(w.clicks as usize, "rating", "ratings")),
        persona_data(&reader, 0),
    )
    .into_value())
}

/// Two interests texts as one: the parts of both (split at commas and semicolons), each
/// once regardless of case, in order.
fn join_interests(a: &str, b: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    a.split([',', ';'])
        .chain(b.split([',', ';']))
        .map(str::trim)
        .filter(|p| !p.is_empty() && seen.insert(p.to_lowercase()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) async fn persona_merge(ctx: &Context, a: MergeArgs) -> Outcome {
    if a.from.trim().is_empty() || a.into.trim().is_empty() {
        return Ok(Answer::refuse(
            "feed.persona_merge needs from=<the name to merge away> and into=<the name to keep>.",
        )
        .with_options(vec!["feed.persona_status".into()]));
    }
    let (from, _) = reader_for(ctx, "feed.persona_merge", &a.from).await?;
    let (into, _) = reader_for(ctx, "feed.persona_merge", &a.into).await?;
    if from.id == into.id {
        return Ok(Answer::refuse(format!(
            "'{}' and '{}' are already the same reader: nothing to merge.",
            clip(&a.from, 64),
            clip(&a.into, 64)
        )));
    }
    let from_clicks = ctx.store.clicks(from.id).await?;
    let into_items: std::collections::HashSet<i64> =
        ctx.store.clicks(into.id).await?.iter().map(|c| c.item_id).collect();
    let both = from_clicks.iter().filter(|c| into_items.contains(&c.item_id)).count();
    let n_from = from_clicks.len();
    let interests = match persona::validate_interests(&join_interests(&into.interests, &from.interests)) {
        Ok(i) => i,
        Err(_) => into.interests.clone(),
    };
    if !a.confirm {
        return Ok(Answer::refuse(format!(
            "refusing to merge '{}' into '{}' without confirmation: {} would join '{}''s{}, their interests would be joined, and the name '{}' would be deleted. Call feed.persona_merge again with confirm=true to go ahead.",
            from.name,
            into.name,
            plural(n_from, "rating", "ratings"),
            into.name,
            if both > 0 {
                format!(" (on {} both rated, the later verdict stays)", plural(both, "item", "items"))
            } else {
                String::new()
            },
            from.name
        ))
        .with_options(vec!["feed.persona_merge".into()])
        .with_next(persona::confirm_step("feed.persona_merge")));
    }
    let m = ctx.store.merge_readers(from.id, into.id, &interests).await?;
    ctx.invalidate();
    let n = ctx.store.clicks(into.id).await?.len();
    let r = ctx.store.reader(&into.name).await?.unwrap_or(into);
    let replaced = if m.replaced > 0 {
        format!(" ({} replaced by a later verdict)", plural(m.replaced as usize, "rating", "ratings"))
    } else {
        String::new()
    };
    Ok(Answer::ok(
        format!(
            "merged '{}' into '{}': {} moved{replaced}, '{}' now has {}; interests: {}. The name '{}' is gone.",
            from.name,
            r.name,
            plural(m.moved as usize, "rating", "ratings"),
            r.name,
            plural(n, "rating", "ratings"),
            clip(&r.interests, 200),
            from.name
        ),
        persona_data(&r, n),
    )
    .into_value())
}

pub(super) async fn persona_suggest_interests(ctx: &Context, a: SuggestArgs) -> Outcome {
    let limit = a.limit.count();
    let tags = ctx.store.tag_counts(500).await?;
    let top = persona::suggest_interests(&tags, limit);
    if top.is_empty() {
        return Ok(Answer::refuse(
            "the archive has no topic tags to suggest from yet: subscribe to feeds (feed.source_add) and ingest them, or write the interests in your own words",
        ));
    }
    let current = match a.user.as_deref().filter(|u| !u.trim().is_empty()) {
        Some(u) => ctx.store.reader(u).await?,
        None => None,
    };
    let out: Vec<Suggestion> = top
        .iter()
        .map(|t| Suggestion { name: t.tag.clone(), items: t.items, why: "a common topic tag in the archive".into() })
        .collect();
    let mut line = format!(
        "the archive mostly covers: {}",
        top.iter().map(|t| format!("{} ({})", t.tag.replace('-', " "), t.items)).collect::<Vec<_>>().join(", ")
    );
    if let Some(r) = &current {
        line.push_str(&format!("; '{}' now reads about: {}", r.name, clip(&r.interests, 150)));
    }
    line.push_str(". Set them with feed.persona_update.");
    Ok(Answer::ok(line, out).with_options(vec![]).into_value())
}

pub(super) async fn harvest_engagement(ctx: &Context, a: UserArgs) -> Outcome {
    let (reader, _) = reader_for(ctx, "feed.harvest_engagement", &a.user).await?;
    let h = ctx.store.harvest_engagement(reader.id).await?;
    if h.recorded > 0 {
        ctx.reader_changed(reader.id);
    }
    Ok(Answer::ok(
        format!(
            "'{}': {} recorded as implicit useful from {} read or explained ({} already rated)",
            reader.name,
            plural(h.recorded as usize, "item", "items"),
            plural(h.candidates as usize, "item", "items"),
            h.already_rated
        ),
        h,
    )
    .with_caveats(if h.recorded > 0 {
        vec!["implicit ratings are weak evidence (reading is not liking): rate items with feed.rate to teach the ranking properly"]
    } else {
        vec![]
    })
    .into_value())
}
