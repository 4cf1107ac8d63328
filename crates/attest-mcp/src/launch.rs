//! Starting a server: flags, configuration, logging and the two transports.

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use attest_core::config::ENV_VARS;
use attest_core::{Catalogue, Config, ConfigInputs, Surface};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use clap::Parser;
use rmcp::ServiceExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::server::Served;

/// Flags every server takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CommonArgs {
    /// The database file (default: $ATTEST_DB, then a file under your data directory).
    #[arg(long, value_name = "PATH", global = true)]
    pub db: Option<std::path::PathBuf>,
    /// The research root holding your projects (default: $RESEARCH_ROOT).
    #[arg(long, value_name = "DIR", global = true)]
    pub root: Option<std::path::PathBuf>,
    /// Spell tool names `dotted` (runs.compare) or `underscore` (runs_compare)
    /// (default: $ATTEST_TOOL_NAMES, then dotted).
    #[arg(long, value_name = "STYLE", global = true)]
    pub tool_names: Option<String>,
}

/// How to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Standard input and output (what agents launch).
    Stdio,
    /// Streamable HTTP at `/mcp` on this address.
    Http(SocketAddr),
}

/// Read the environment and the platform's directories into configuration inputs.
pub fn inputs_from_env(args: &CommonArgs) -> ConfigInputs {
    ConfigInputs {
        db: args.db.clone(),
        root: args.root.clone(),
        tool_names: args.tool_names.clone(),
        env: ENV_VARS.iter().filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v))).collect(),
        data_dir: dirs::data_dir(),
        home: dirs::home_dir(),
    }
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ATTEST_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // stdout is the protocol channel: logs go to stderr, always.
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).try_init();
}

#[derive(Parser)]
struct SurfaceCli {
    #[command(flatten)]
    common: CommonArgs,
    /// Serve Streamable HTTP on this address (loopback unless ATTEST_HTTP_TOKEN is
    /// set) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
}

/// The whole `main` of a surface binary: parse flags, resolve configuration, build
/// the catalogue and serve it until the client goes away.
pub fn surface_main<F, Fut>(surface: &str, build: F) -> ExitCode
where
    F: FnOnce(Config) -> Fut,
    Fut: Future<Output = anyhow::Result<Catalogue>>,
{
    let Some(surface) = Surface::find(surface) else {
        eprintln!("unknown surface '{surface}'");
        return ExitCode::from(2);
    };
    let cli = SurfaceCli::parse_from(std::env::args_os());
    init_logging();
    let config = match Config::resolve(&inputs_from_env(&cli.common)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", surface.binary);
            return ExitCode::from(2);
        }
    };
    let transport = cli.http.map_or(Transport::Stdio, Transport::Http);
    let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{}: cannot start the async runtime: {e}", surface.binary);
            return ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async move {
        let catalogue = build(config.clone()).await?;
        let served = Served::surface(catalogue, surface, config.tool_names, config.expand);
        serve(served, transport, config.http_token.as_deref()).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e:#}", surface.binary);
            ExitCode::FAILURE
        }
    }
}

/// Serve until the client disconnects (stdio) or the process is interrupted (HTTP).
pub async fn serve(served: Served, transport: Transport, token: Option<&str>) -> anyhow::Result<()> {
    init_logging();
    match transport {
        Transport::Stdio => {
            let running = served.session().serve(rmcp::transport::stdio()).await.context("MCP handshake failed")?;
            running.waiting().await.context("MCP session ended abnormally")?;
            Ok(())
        }
        Transport::Http(addr) => serve_http(served, addr, token).await,
    }
}

async fn serve_http(served: Served, addr: SocketAddr, token: Option<&str>) -> anyhow::Result<()> {
    let loopback = addr.ip().is_loopback();
    if !loopback && token.is_none() {
        bail!(
            "refusing to serve on {addr}, which is not a loopback address, without a bearer token: set ATTEST_HTTP_TOKEN, or bind 127.0.0.1"
        );
    }
    let mut config = StreamableHttpServerConfig::default();
    if !loopback {
        // A token guards the endpoint; the Host check only protects loopback servers
        // from DNS rebinding.
        config = config.disable_allowed_hosts();
    }
    let service =
        StreamableHttpService::new(move || Ok(served.session()), Arc::new(LocalSessionManager::default()), config);
    let mut router = axum::Router::new().nest_service("/mcp", service);
    if let Some(t) = token {
        router = router.layer(axum::middleware::from_fn_with_state(Arc::<str>::from(t), require_bearer));
    }
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    eprintln!("serving MCP over Streamable HTTP at http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

async fn require_bearer(State(token): State<Arc<str>>, req: Request, next: Next) -> Result<Response, StatusCode> {
    let given =
        req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if constant_time_eq(g.as_bytes(), token.as_bytes()) => Ok(next.run(req).await),
        _ => Err(StatusCode::UNAUTHORIZED),
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
