//! `feed.ask`'s memory of the conversation: a reply that names no item ("useful", "not
//! my area", "tell me more") is about the item this session was last shown.
//!
//! The feed router reads each question alone. [`Remembering`] wraps it: when a question
//! names no item (no `item_id`, no url, no "item N") and the router cannot place it on
//! its own, or it is a short reply the router reads as a verdict once an item is in
//! view, the question is routed again as if the last item shown had been given
//! (`attest_archive::tools::Context::last_shown`, per MCP session). After an answer
//! that showed one item (`feed.read`, `feed.explain`, `feed.rate`, a one-row list) the
//! reply goes to that item; after one that showed several (a list, a digest, a
//! search), which one is asked back with their ids, since guessing would rate the wrong
//! paper. Questions that stand alone ("what should I read today?") route as before.

use std::sync::Arc;

use attest_core::Decision;
use attest_core::ask::{Args, Route};
use serde_json::Value;

use super::Context;
use crate::router;

/// A reply of at most this many words that the router reads as a verdict on the item
/// in view goes to `feed.rate` even when, alone, it routed elsewhere ("more like this").
const SHORT_REPLY: usize = 6;

/// The feed router with the session's last shown item in view.
pub(super) struct Remembering {
    ctx: Arc<Context>,
}

impl Remembering {
    /// A router for `feed.ask` over `ctx`, leaked to live as long as the catalogue's
    /// tools (`Tool::ask` takes a `'static` router; one per catalogue built).
    pub(super) fn leak(ctx: Arc<Context>) -> &'static Remembering {
        Box::leak(Box::new(Remembering { ctx }))
    }
}

/// Whether the ask names its item itself.
fn names_item(given: &Args) -> bool {
    ["item_id", "url"].iter().any(|k| match given.get(*k) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(_) => true,
    })
}

/// The tools a reply about one item goes to.
const ITEM_TOOLS: &[&str] = &["feed.rate", "feed.read", "feed.explain"];

impl Route for Remembering {
    fn route(&self, question: &str, given: &Args) -> Decision {
        let alone = router::ROUTER.route(question, given);
        if names_item(given) || alone.args.contains_key("item_id") || alone.args.contains_key("url") {
            return alone;
        }
        let Some(shown) = self.ctx.last_shown() else { return alone };
        let Some(&(first_id, _)) = shown.items.first() else { return alone };
        let mut with = given.clone();
        with.insert("item_id".into(), Value::from(shown.single().unwrap_or(first_id)));
        let seen = router::ROUTER.route(question, &with);
        let short = question.split_whitespace().count() <= SHORT_REPLY;
        let about_item = match seen.tool.as_deref() {
            Some("feed.rate") => alone.tool.is_none() || short,
            Some(t) => alone.tool.is_none() && ITEM_TOOLS.contains(&t),
            // A reply the router would ask back about even with the item in view ("hmm",
            // "not sure") keeps the question back it gets alone.
            None => false,
        };
        if !about_item {
            return alone;
        }
        let Some(id) = shown.single() else {
            let tool = seen.tool.as_deref().unwrap_or("feed.rate");
            let (question, options) = super::reading::which_question(tool, &shown);
            return Decision::ask_back(question, &options);
        };
        let mut d = seen;
        if d.tool.is_some() {
            d.args.insert("item_id".into(), Value::from(id));
            if given.get("user").and_then(Value::as_str).is_none_or(|u| u.trim().is_empty()) && !shown.reader.is_empty()
            {
                d.args.insert("user".into(), Value::String(shown.reader.clone()));
            }
        }
        d
    }

    fn tools(&self) -> Vec<&'static str> {
        router::ROUTER.tools()
    }
}
