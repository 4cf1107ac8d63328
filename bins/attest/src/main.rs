//! `attest`: the command line over every domain attest has.
//!
//! Commands that answer questions run the same catalogue tools the MCP servers serve,
//! so the CLI and an agent always see the same numbers, caveats and refusals.

mod cli;
mod demo;
mod emit;
mod print;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::main()
}
