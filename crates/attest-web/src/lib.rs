//! `attest web`: a reading desk and the run ledger in the browser, served on loopback.
//!
//! Server-rendered HTML ([maud] templates, compiled in; the styles inline; a few lines
//! of plain JavaScript where they help) over the same domain libraries the MCP
//! surfaces and the CLI use, so a person in the browser sees the numbers, caveats and
//! refusals an agent sees:
//!
//! - `/feed/{user}`: the ranked reading list with the ranking-quality caveat, ✓/✗
//!   ratings (`POST /feed/{user}/rate`, recorded with source `ui`), why each item
//!   ranks, search, the digest, persona switch and interests editing; `/` opens the
//!   last reader used.
//! - `/ledger`, `/ledger/{family}` (`?project=`, `?metric=`): families, and a
//!   comparison with every caveat and an SVG plot of the sweep; `/runs/{id}`: one run.
//! - `/claims?path=REL`: a draft's claims with verdicts and the decimals no claim
//!   covers.
//! - `/graph` (`?concept=`): the concept graph, its areas, a concept's neighbours and
//!   the items behind each link.
//!
//! Data is read only through the domain crates' public APIs (`FeedStore` and the feed
//! tools, the `Ledger`, the claims checker, the graph); nothing here writes SQL. The
//! security model is described in `security.rs`: loopback only unless a token is set,
//! a loopback `Host`, and every write a same-origin POST carrying the session's CSRF
//! token.

#![warn(missing_docs)]

mod areamap;
mod claims;
mod feed;
mod graph;
mod layout;
mod ledger;
mod plot;
mod security;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use attest_core::{Catalogue, Config};
use attest_runs::ledger::{Ledger, LedgerOptions};
use attest_runs::tools::Citations;
use attest_store::Store;
use axum::Router;
use axum::routing::{get, post};

/// The default address.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8899";

/// What the pages share.
pub(crate) struct App {
    /// The feed tools' context (store, ranking cache, embeddings).
    pub feed: Arc<attest_feed::tools::Context>,
    /// The feed catalogue (list, rate, search, digest, persona tools).
    pub feed_tools: Catalogue,
    /// The run ledger.
    pub ledger: Ledger,
    /// The research root (claims).
    pub root: Option<PathBuf>,
    /// Citation sources the claims check lints `cite=` keys against.
    pub citations: Option<Arc<dyn Citations>>,
    /// Token, Host check and CSRF secret.
    pub gate: security::Gate,
}

pub(crate) type AppState = Arc<App>;

/// The web application over one database: build it with [`Web::new`], serve it with
/// [`serve`].
pub struct Web {
    app: AppState,
}

impl Web {
    /// The pages over an open store. `token` is `ATTEST_HTTP_TOKEN`; `loopback` says
    /// whether the server will listen on a loopback address (the `Host` check then
    /// applies unless a token guards the server).
    pub fn new(
        store: Store,
        config: &Config,
        citations: Option<Arc<dyn Citations>>,
        token: Option<String>,
        loopback: bool,
    ) -> anyhow::Result<Web> {
        let feed = Arc::new(attest_feed::tools::Context::new(attest_feed::FeedStore::new(store.clone())));
        let feed_tools = attest_feed::tools::tools(Arc::clone(&feed));
        let opts = LedgerOptions { metric_directions: config.metric_directions.clone(), root: config.root.clone() };
        let gate = security::Gate::new(token.clone(), loopback || token.is_none())?;
        Ok(Web {
            app: Arc::new(App {
                feed,
                feed_tools,
                ledger: Ledger::new(store, opts),
                root: config.root.clone(),
                citations,
                gate,
            }),
        })
    }

    /// Every route, behind the gate.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/", get(feed::home))
            .route("/feed", get(feed::pick))
            .route("/feed/{user}", get(feed::page))
            .route("/feed/{user}/digest", get(feed::digest))
            .route("/feed/{user}/rate", post(feed::rate))
            .route("/feed/{user}/interests", post(feed::interests))
            .route("/ledger", get(ledger::index))
            .route("/ledger/{family}", get(ledger::family))
            .route("/runs/{id}", get(ledger::run))
            .route("/claims", get(claims::page))
            .route("/graph", get(graph::page))
            .fallback(fallback)
            .layer(axum::middleware::from_fn_with_state(Arc::clone(&self.app), security::gate))
            .with_state(Arc::clone(&self.app))
    }
}

async fn fallback(uri: axum::http::Uri) -> axum::response::Response {
    layout::not_found(
        None,
        &format!("There is no page at {}.", uri.path()),
        maud::html! {
            p { "The pages are:" }
            (layout::links([
                ("/".to_string(), "/ (your reading list)".to_string()),
                ("/ledger".to_string(), "/ledger (projects and families)".to_string()),
                ("/claims".to_string(), "/claims (the claims in your drafts)".to_string()),
                ("/graph".to_string(), "/graph (the concept graph)".to_string()),
            ], ""))
        },
    )
}

/// Serve the pages on `listener` until `shutdown` resolves. A non-loopback address
/// without a token is refused.
pub async fn serve(
    web: Web,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let local = listener.local_addr()?;
    if !local.ip().is_loopback() && web.app.gate.token.is_none() {
        bail!(
            "refusing to serve on {local}, which is not a loopback address, without a token: set ATTEST_HTTP_TOKEN, or use 127.0.0.1"
        );
    }
    let router = web.router();
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await?;
    Ok(())
}
