//! The feed tools as catalogue entries: plain async functions from typed arguments to
//! an [`Answer`], with no MCP in them. The `attest-feed` binary serves this catalogue;
//! the CLI calls the same tools.
//!
//! Every routine failure (an unknown reader on a write, an unknown item, an address
//! that is not a feed, a feed too large or too slow, a limit out of range) is an
//! `ok: false` answer whose line says what to do. Only a database fault is a [`Fault`].
//!
//! The ranking cache and `feed.search` are the archive's ([`attest_archive::tools`]);
//! this crate's [`Context`] adds the fetcher and the web research settings to it, and
//! its catalogue registers the archive's `feed.search` beside the feed's own tools.
//!
//! [`Answer`]: attest_core::Answer
//! [`Fault`]: attest_core::Fault

mod args;
mod context;
mod personas;
mod reading;
mod replies;
mod session;
mod sources;

use std::sync::Arc;

use attest_core::{Catalogue, Config, Hints, Tool, ToolSpec};
use attest_store::Store;

use crate::FeedStore;
use crate::research::ResearchArgs;

pub use args::{
    AskContext, ConfirmArgs, CreateArgs, DigestArgs, ItemArgs, ListArgs, MergeArgs, PreviewArgs, RateArgs,
    SourceAddArgs, SourceRemoveArgs, SourcesArgs, SuggestArgs, UpdateArgs, UserArgs,
};
pub use context::Context;
pub use replies::{Digest, Group, Listed, Persona, Rated, ReadItem, Source, Sources, Suggestion};

use personas::{
    harvest_engagement, persona_create, persona_delete, persona_merge, persona_reset, persona_status,
    persona_suggest_interests, persona_update,
};
use reading::{digest, explain_tool, list, rate, read};
use sources::{research_tool, source_add, source_preview, source_remove, source_suggest, sources};

pub use attest_archive::tools::{
    DEFAULT_LIMIT, DIGEST_DAYS, LIST_DAYS, MAX_DAYS, MAX_LIMIT, Row, SEARCH_POOL, SUMMARY_CHARS, SearchArgs, Searched,
    TITLE_CHARS, URL_CHARS, search_tool,
};

/// Open the database named by `config` and build the feed catalogue over it.
pub async fn catalogue(config: &Config) -> Result<Catalogue, attest_store::StoreError> {
    let store = Store::open(&config.db).await?;
    Ok(tools(Arc::new(Context::new(FeedStore::new(store)))))
}

// ---------------------------------------------------------------------------------------
// The tools.

use attest_archive::tools::WRITE_IDEMPOTENT;
/// Reaches the network.
const WEB_WRITE: Hints = Hints { read_only: false, destructive: false, idempotent: true, open_world: true };
const WEB_READ: Hints = Hints { read_only: true, destructive: false, idempotent: true, open_world: true };

/// The feed catalogue over a context.
pub fn tools(ctx: Arc<Context>) -> Catalogue {
    let mut c = Catalogue::new();
    macro_rules! tool {
        ($($t:tt)*) => { attest_core::tool_over!(c, ctx, $($t)*) };
    }
    c.push(Tool::ask::<AskContext>(
        ToolSpec::new(
            "feed.ask",
            "Ask about your reading feed",
            "Ask about your reading feed in plain words: what should I read today, anything new on X, why is this ranked here, mark this useful, subscribe to a feed.\n\nRoutes the question to one feed tool by fixed rules (an unclear question is asked back with options; another surface's question names that surface). Pass user, and item_id or url when the question is about one item or feed. To run a specific tool directly, pass tool=<name> and args={...}. Show refs' urls as links, and relay the caveat whole.",
            Hints { read_only: false, destructive: false, idempotent: false, open_world: true },
        ),
        session::Remembering::leak(Arc::clone(&ctx)),
        &["user", "item_id", "url"],
    ));
    tool!(
        ToolSpec::new(
            "feed.list",
            "What should I read today?",
            "What should I read today: the reader's unrated items of the last 14 days, best first for them.\n\nRanked by the reader's interests text and their ratings, with no model. The caveat says how far to trust the order: relay it whole. Show refs' urls as links.",
            WRITE_IDEMPOTENT,
        ),
        list,
        ListArgs
    );
    c.push(search_tool(Arc::clone(&ctx.archive)));
    tool!(
        ToolSpec::new(
            "feed.read",
            "Read one item",
            "Show one item in full: title, link, source, date, tags and its summary or abstract.\n\nCounts as the reader having read it (feed.harvest_engagement can later turn reads into weak positive ratings).",
            WRITE_IDEMPOTENT,
        ),
        read,
        ItemArgs
    );
    tool!(
        ToolSpec::new(
            "feed.rate",
            "Mark an item useful or not",
            "Record the reader's verdict on an item: useful or not useful. Ranking learns from it.\n\nA second verdict on the same item replaces the first. The reader must exist (a misspelt name is refused, not created).",
            WRITE_IDEMPOTENT,
        ),
        rate,
        RateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.explain",
            "Why is this item ranked here?",
            "Why is this item ranked where it is for the reader: the interest words it matched, the tags and sources they rated, and its source.\n\nDeterministic and instant; no model. When nothing matched it says so.",
            WRITE_IDEMPOTENT,
        ),
        explain_tool,
        ItemArgs
    );
    tool!(
        ToolSpec::new(
            "feed.digest",
            "The week by topic",
            "The reader's week (or another window) grouped by topic tag, each group's best items first.",
            WRITE_IDEMPOTENT,
        ),
        digest,
        DigestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_create",
            "Create a reader",
            "Create a reader (persona) with the topics they want to read about.",
            Hints::WRITE
        ),
        persona_create,
        CreateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_update",
            "Change a reader's interests",
            "Replace a reader's interests text, or add to it with append=true. Ratings are kept.",
            WRITE_IDEMPOTENT,
        ),
        persona_update,
        UpdateArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_status",
            "How is my feed ranked?",
            "Show a reader's interests, ratings and how much of their ranking comes from ratings, with the quality note.",
            Hints::READ,
        ),
        persona_status,
        UserArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_reset",
            "Forget a reader's ratings",
            "Forget every rating and read of a reader, keeping the reader and their interests.\n\nNeeds confirm=true; without it, says how many ratings would be erased.",
            Hints::DESTRUCTIVE,
        ),
        persona_reset,
        ConfirmArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_delete",
            "Delete a reader",
            "Delete a reader with their ratings and reading history.\n\nNeeds confirm=true; without it, says how many ratings would be erased.",
            Hints::DESTRUCTIVE,
        ),
        persona_delete,
        ConfirmArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_merge",
            "Merge two readers",
            "Merge two names of one person: the `from` reader's ratings and reading history move to `into` (where both rated an item, the later verdict stays), their interests are joined, and `from` is deleted.\n\nNeeds confirm=true; without it, says what would move.",
            Hints::DESTRUCTIVE,
        ),
        persona_merge,
        MergeArgs
    );
    tool!(
        ToolSpec::new(
            "feed.persona_suggest_interests",
            "Suggest interests",
            "Suggest topics for a reader's interests from what the archive covers most.",
            Hints::READ,
        ),
        persona_suggest_interests,
        SuggestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_add",
            "Subscribe to a feed",
            "Subscribe to a feed (RSS, Atom or JSON Feed) by its address, fetching it once to check it is a feed and store its items.\n\nAn address that is not a feed, too large (over 10 MB) or too slow is refused and nothing is subscribed.",
            WEB_WRITE,
        ),
        source_add,
        SourceAddArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_remove",
            "Unsubscribe from a feed",
            "Unsubscribe from a feed by feed_id (from feed.sources) or url. Its items and their ratings stay in the archive.",
            WRITE_IDEMPOTENT,
        ),
        source_remove,
        SourceRemoveArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_preview",
            "Preview a feed",
            "Look at a feed before subscribing: its title, how many entries it has and the first few. Stores nothing.",
            WEB_READ,
        ),
        source_preview,
        PreviewArgs
    );
    tool!(
        ToolSpec::new(
            "feed.source_suggest",
            "Suggest feeds",
            "Suggest feeds to subscribe to: arXiv listings for the categories the archive (and the reader's useful ratings) carry but no subscription covers.",
            Hints::READ,
        ),
        source_suggest,
        SuggestArgs
    );
    tool!(
        ToolSpec::new(
            "feed.sources",
            "List subscriptions",
            "List the subscribed feeds with their item counts, last fetch and any fetch error.",
            Hints::READ
        ),
        sources,
        SourcesArgs
    );
    tool!(
        ToolSpec::new(
            "feed.harvest_engagement",
            "Turn reads into ratings",
            "Turn the items a reader read or asked about, and never rated, into weak positive (implicit) ratings.\n\nNever overwrites a verdict and never infers a negative; running it again adds nothing.",
            WRITE_IDEMPOTENT,
        ),
        harvest_engagement,
        UserArgs
    );
    tool!(
        ToolSpec::new(
            "feed.research",
            "Search arXiv, PubMed, CrossRef",
            "Search the literature on the web (arXiv, PubMed, CrossRef) for papers beyond the reader's feeds.\n\nOff unless the server runs with ATTEST_RESEARCH_WEB=1 (then it says how to turn it on). Results are in each service's own order, not ranked for the reader, and are not stored; a paper already in the archive carries its item_id. sources = arxiv,pubmed (default), crossref.",
            WEB_READ,
        ),
        research_tool,
        ResearchArgs
    );
    c
}
