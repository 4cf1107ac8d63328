//! The only attest crate that knows MCP.
//!
//! It turns a catalogue of plain tools ([`attest_core::Catalogue`]) into an MCP
//! server with rmcp: tool listing with progressive disclosure, `namespace.leaf` or
//! underscore naming, rendering every [`attest_core::Answer`] as a text line plus
//! structured content, and the stdio and Streamable HTTP transports. Surface binaries
//! call [`surface_main`]; the CLI calls [`serve`]. With the `client` feature (the CLI
//! only), `client::Client` talks to a spawned server as an agent would.
#![warn(missing_docs)]

#[cfg(feature = "client")]
pub mod client;
pub mod http;
mod launch;
pub mod protocol;
pub mod schema;
mod server;
mod stdio;

pub use http::{HttpOptions, serve_http};
pub use launch::{CommonArgs, Transport, inputs_from_env, serve, surface_main};
pub use server::{Served, Session, current_session};
pub use stdio::{MAX_LINE as STDIO_MAX_LINE, serve_io};
