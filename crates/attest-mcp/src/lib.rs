//! The only attest crate that knows MCP.
//!
//! It turns a catalogue of plain tools ([`attest_core::Catalogue`]) into an MCP
//! server with rmcp: tool listing with progressive disclosure, `namespace.leaf` or
//! underscore naming, rendering every [`attest_core::Answer`] as a text line plus
//! structured content, and the stdio and Streamable HTTP transports. Surface binaries
//! call [`surface_main`]; the CLI calls [`serve`].
#![warn(missing_docs)]

mod launch;
mod server;

pub use launch::{CommonArgs, Transport, inputs_from_env, serve, surface_main};
pub use server::{Served, Session};
