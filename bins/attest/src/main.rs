//! `attest`: the command line over every domain attest has.
//!
//! Commands that answer questions run the same catalogue tools the MCP servers serve,
//! so the CLI and an agent always see the same numbers, caveats and refusals.

mod audience;
mod cite;
mod cli;
mod demo;
mod doctor;
mod emit;
mod eval_agents;
mod feed;
mod kg;
mod print;
mod setup;
mod suggest;
mod sym;
mod web;

use std::process::ExitCode;

fn main() -> ExitCode {
    // `attest worker` is the sandboxed symbolic worker `attest serve` starts: first
    // thing, before any logging or runtime.
    if std::env::args_os().nth(1).is_some_and(|a| a == "worker") {
        return attest_sandbox::worker_main(attest_sym::worker::handle);
    }
    cli::main()
}
