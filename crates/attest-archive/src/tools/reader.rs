//! The reader a call is for, as every reader-ranked tool resolves it.

use attest_core::text::clip;
use attest_core::{Fault, Stop};

use super::Context;
use super::common::feed_fault;
use crate::FeedError;
use crate::model::Reader;
use crate::persona::{self, UnknownReader};

/// The reader a call is for: looked up case-insensitively; an unknown name is created
/// (read-only tools, with a notice to prefix) or refused (writes), per
/// [`persona::on_unknown_reader`]. No name means the only reader when there is exactly
/// one; otherwise the question back names the readers there are.
pub async fn reader_for(ctx: &Context, tool: &str, name: &str) -> Result<(Reader, Option<String>), Stop> {
    let name = name.trim();
    if name.is_empty() {
        let mut readers = ctx.store.readers().await.map_err(feed_fault)?;
        if readers.len() == 1 {
            return Ok((readers.remove(0), None));
        }
        let names = reader_names(ctx).await?;
        if ctx.is_search_only() {
            return Err(match names.is_empty() {
                true => Stop::refuse(format!(
                    "There is no reader yet, and {tool} ranks for one: make one on the feed surface (attest-feed) or with `attest feed`, then pass user=<name>."
                )),
                false => Stop::refuse(format!("Whose reading? Pass user=<name> (readers: {}).", names.join(", "))),
            });
        }
        let which = if names.is_empty() {
            "There is no reader yet: say who is asking (pass user=<name>; a new name is created on a read-only question), or create one with feed.persona_create.".to_string()
        } else {
            format!("Which reader is asking? Pass user=<name> (readers: {}).", names.join(", "))
        };
        return Err(Stop::ask_back(which, [tool, "feed.persona_create"]));
    }
    if let Some(r) = ctx.store.reader(name).await.map_err(feed_fault)? {
        return Ok((r, None));
    }
    if ctx.is_search_only() {
        let names = reader_names(ctx).await?;
        let known = if names.is_empty() {
            "there are no readers yet".to_string()
        } else {
            format!("readers: {}", names.join(", "))
        };
        return Err(Stop::refuse(format!(
            "unknown reader '{}' ({known}); readers are made on the feed surface (attest-feed) or with `attest feed`",
            clip(name, 80)
        )));
    }
    match persona::on_unknown_reader(tool) {
        UnknownReader::Refuse => {
            let names = reader_names(ctx).await?;
            Err(Stop::refuse(persona::unknown_reader_message(name, &names))
                .with_options(["feed.persona_create"])
                .with_next(persona::create_step()))
        }
        UnknownReader::Create => {
            let name = persona::validate_name(name).map_err(Stop::refuse)?;
            // Interests seeded from an empty archive would say nothing; a read on an
            // empty archive has nothing to show anyway, so nobody is created by it.
            if ctx.store.counts().await.map_err(feed_fault)?.items == 0 {
                let (how, tools) = ctx.fill_hint();
                return Err(Stop::refuse(format!(
                    "the archive is empty, so {tool} has nothing to rank yet: {how}, then ask again. To set '{name}''s topics first, use feed.persona_create."
                ))
                .with_options(tools.iter().copied().chain(["feed.persona_create"])));
            }
            let tags = ctx.store.tag_counts(200).await.map_err(feed_fault)?;
            let interests = persona::seed_interests(&tags);
            match ctx.store.create_reader(&name, &interests).await {
                Ok(r) => {
                    ctx.reader_changed(r.id);
                    let notice = persona::created_notice(&r.name, &r.interests);
                    Ok((r, Some(notice)))
                }
                // Created by a concurrent call meanwhile.
                Err(FeedError::ReaderExists(_)) => match ctx.store.reader(&name).await.map_err(feed_fault)? {
                    Some(r) => Ok((r, None)),
                    None => Err(Stop::refuse(format!("could not create reader '{name}'; try again"))),
                },
                Err(e) => Err(feed_fault(e).into()),
            }
        }
    }
}

/// The readers' names, sorted, at most 20 and "and N more".
pub async fn reader_names(ctx: &Context) -> Result<Vec<String>, Fault> {
    let mut names: Vec<String> = ctx.store.readers().await.map_err(feed_fault)?.into_iter().map(|r| r.name).collect();
    names.sort_by_key(|n| n.to_lowercase());
    if names.len() > 20 {
        let more = names.len() - 20;
        names.truncate(20);
        names.push(format!("and {more} more"));
    }
    Ok(names)
}

/// A line with the notice of a reader just created, when there is one, before it.
pub fn with_notice(line: String, notice: &Option<String>) -> String {
    match notice {
        Some(n) => format!("{n}\n{line}"),
        None => line,
    }
}
