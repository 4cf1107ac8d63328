//! Starting a server: flags, configuration, logging and the two transports.

use std::future::Future;
use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::{Context, bail};
use attest_core::config::ENV_VARS;
use attest_core::{Catalogue, Config, ConfigInputs, Surface};
use clap::Parser;

use crate::http::{HttpOptions, serve_http};
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

/// Serve until the client disconnects (stdio) or the process is told to stop
/// (HTTP: SIGTERM or Ctrl-C, after in-flight calls finish).
pub async fn serve(served: Served, transport: Transport, token: Option<&str>) -> anyhow::Result<()> {
    init_logging();
    match transport {
        Transport::Stdio => crate::stdio::serve_stdio(served).await,
        Transport::Http(addr) => {
            let opts = HttpOptions::from_env(token)?;
            if !addr.ip().is_loopback() && token.is_none() {
                bail!(
                    "refusing to serve on {addr}, which is not a loopback address, without a bearer token: set ATTEST_HTTP_TOKEN, or bind 127.0.0.1"
                );
            }
            let listener =
                tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
            serve_http(served, listener, opts, crate::http::shutdown_signal()).await
        }
    }
}
