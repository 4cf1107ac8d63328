//! Exact algebra and calculus for attest.
#![warn(missing_docs)]

pub mod error;
pub mod expr;
pub mod limits;
pub mod nf;
pub mod parse;
pub mod poly;

pub use error::{Result, SymError};
pub use expr::{Expr, Func, Q};
pub use limits::Limits;
