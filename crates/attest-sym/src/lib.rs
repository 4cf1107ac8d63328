//! Exact algebra and calculus for attest.
#![warn(missing_docs)]

pub mod error;
pub mod expr;
pub mod limits;
pub mod parse;

pub use error::{Result, SymError};
pub use expr::{Expr, Func, Q};
pub use limits::Limits;
