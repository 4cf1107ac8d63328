//! `attest web`: the reading desk and the ledger in the browser (the pages live in
//! the attest-web crate; this opens the database and serves them until Ctrl-C).

use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::Context as _;
use attest_core::Config;

/// Serve the pages on `addr` (port 0: any free port; the address is printed).
pub async fn run(addr: SocketAddr, config: &Config) -> anyhow::Result<ExitCode> {
    if !attest_store::is_server(&config.db) && !config.db.exists() {
        eprintln!(
            "attest: no database at {}: pass --db with the file your scans and ingests use, or create one first with `attest runs scan` or `attest ingest`",
            config.db.display()
        );
        return Ok(ExitCode::from(2));
    }
    let token = config.http_token.clone().filter(|t| !t.trim().is_empty());
    if !addr.ip().is_loopback() && token.is_none() {
        eprintln!(
            "attest: refusing to serve on {addr}, which is not a loopback address, without a token: set ATTEST_HTTP_TOKEN, or use --addr 127.0.0.1:8899"
        );
        return Ok(ExitCode::from(2));
    }
    let store = attest_store::Store::open(&config.db).await?;
    let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    let citations = crate::cli::claim_citations(&crate::cli::citation_sources(config));
    let web = attest_web::Web::new(store, config, Some(citations), token.clone(), local.ip().is_loopback())?;
    match &token {
        Some(_) => eprintln!(
            "attest web: serving http://{local}/ (open it once with ?token=<ATTEST_HTTP_TOKEN>; Ctrl-C stops)"
        ),
        None => eprintln!("attest web: serving http://{local}/ (Ctrl-C stops)"),
    }
    attest_web::serve(web, listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}
