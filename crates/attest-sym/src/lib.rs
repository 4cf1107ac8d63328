//! Exact algebra and calculus for attest.
#![warn(missing_docs)]

pub mod derivation;
pub mod error;
pub mod eval;
pub mod expr;
pub mod integrate;
pub mod limits;
pub mod nf;
pub mod ops;
pub mod parse;
pub mod poly;
pub mod router;
pub mod solve;
pub mod verify;

pub use error::{Result, SymError};
pub use expr::{Expr, Func, Q};
pub use limits::Limits;
