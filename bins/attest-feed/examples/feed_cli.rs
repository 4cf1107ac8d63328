//! The `attest` CLI's feed commands (`bins/attest/src/feed.rs`) compiled on their own,
//! so they can be checked and tried before they are mounted in `attest`:
//! `cargo run -p attest-feed-bin --example feed_cli -- --db X.db ingest --feeds F`.

#[path = "../../attest/src/feed.rs"]
mod feed;
#[path = "../../attest/src/print.rs"]
mod print;

use std::process::ExitCode;

use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    common: attest_mcp::CommonArgs,
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    Ingest(feed::IngestArgs),
    Feed {
        #[command(subcommand)]
        command: feed::FeedCommand,
    },
    Eval(feed::EvalArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match attest_core::Config::resolve(&attest_mcp::inputs_from_env(&cli.common)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let r = rt.block_on(async move {
        match cli.command {
            Command::Ingest(a) => feed::ingest(a, &config, cli.json).await,
            Command::Feed { command } => feed::run(command, &config, cli.json).await,
            Command::Eval(a) => feed::eval(a, &config, cli.json).await,
        }
    });
    r.unwrap_or_else(|e| {
        eprintln!("attest: {e:#}");
        ExitCode::FAILURE
    })
}
