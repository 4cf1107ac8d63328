//! Shared vocabulary of attest: the wire types every tool answers with, the tool
//! catalogue, the surfaces table, configuration resolution and the helpers routers
//! are built from.
//!
//! This crate performs no I/O. Everything here is a pure function or plain data, so
//! every domain crate, the MCP layer and the CLI can agree on it without agreeing on
//! anything else.

pub mod answer;
pub mod ask;
pub mod budget;
pub mod catalogue;
pub mod config;
pub mod learn;
pub mod next;
pub mod route;
pub mod routing_eval;
pub mod score;
pub mod session;
pub mod stop;
pub mod surface;
pub mod text;

pub use answer::{Answer, Ref};
pub use budget::{Budget, RowLimit};
pub use catalogue::{AskArgs, Catalogue, Fault, Hints, NoArgs, Tool, ToolSpec};
pub use config::{Config, ConfigError, ConfigInputs, ToolNames};
pub use next::Next;
pub use route::Decision;
pub use stop::{Bounded, Outcome, Stop};
pub use surface::{SURFACES, Surface};

/// Hard ceiling on one serialized tool result, in characters. Hermes Agent and other
/// clients pay for every character in the model's context; lists are cut to stay
/// under this and say how many more exist.
pub const MAX_RESPONSE_CHARS: usize = 7_000;
