//! Exact algebra and calculus for attest's symbolic surface.
//!
//! A pure library: no I/O, no processes, no clock. Text goes in, a typed result
//! (serialisable, with a JSON Schema) or a [`SymError`] comes out. Every operation is
//! held to [`Limits`] (input length, nesting depth, digits, terms, work), so no input
//! can run long, exhaust memory or overflow the stack; a refusal says which limit.
//!
//! * [`verify()`] / [`verify_equation`] decide `lhs = rhs`: [`Verdict::Proved`],
//!   [`Verdict::ProvedWhereDefined`] (with the domain caveat), [`Verdict::Refuted`]
//!   (with a counterexample confirmed in exact or interval arithmetic) or
//!   [`Verdict::Unknown`] — never a false "proved", and "unknown" is not "false".
//! * [`check`] verifies a derivation written one step per line.
//! * [`simplify`], [`differentiate`], [`integrate()`], [`solve()`], [`evaluate`],
//!   [`evaluate_units`] and [`derivation()`] do what their names say.
//! * [`limit()`], [`series()`], [`sum()`], [`matrix()`] and [`solve_system`] take limits
//!   (with a numeric cross-check of every exact answer), Taylor/Laurent series, finite
//!   sums and series (closed forms, known values, convergence tests), small exact
//!   matrix algebra and linear systems; `unknown` is an answer when nothing decides.
//! * [`route`] is the `sym.ask` router.
//!
//! ```
//! use attest_sym::{Limits, Verdict, verify};
//! let v = verify("(x^2-1)/(x-1)", "x+1", &Limits::default()).unwrap();
//! assert_eq!(v.verdict, Verdict::ProvedWhereDefined);
//! assert_eq!(v.domain, ["x ≠ 1"]);
//! let r = verify("sqrt(x^2)", "x", &Limits::default()).unwrap();
//! assert_eq!(r.verdict, Verdict::Refuted);
//! assert_eq!(r.counterexample.unwrap().point["x"], "-1");
//! ```
#![warn(missing_docs)]

pub mod derivation;
pub mod elim;
pub mod error;
pub mod eval;
pub mod expr;
pub mod factor;
pub mod integrate;
pub mod limit;
pub mod limits;
pub mod linalg;
mod lrt;
pub mod matexpr;
pub mod nf;
pub mod ops;
pub mod parse;
pub mod poly;
pub mod rat;
mod rootsum;
pub mod router;
mod router_more;
mod router_words;
pub mod saturate;
pub mod series;
pub mod solve;
pub mod sums;
pub mod symmat;
pub mod tools;
pub mod upoly;
pub mod verify;
pub mod worker;

pub use derivation::{DerivationResult, DerivationStep, derivation};
pub use error::{Result, SymError};
pub use expr::{Expr, Func, Q};
pub use integrate::{Integral, IntegrationStep, integrate};
pub use limit::{LimitResult, LimitStatus, limit};
pub use limits::Limits;
pub use linalg::{MatrixResult, SystemSolution, matrix, solve_system};
pub use ops::{Derivative, Evaluated, Simplified, UnitsResult, differentiate, evaluate, evaluate_units, simplify};
pub use parse::{Statement, parse_expr, parse_statement};
pub use router::{ROUTER, RULES, TOOLS, route};
pub use series::{SeriesResult, series};
pub use solve::{Solution, SolvedRoot, solve};
pub use sums::{SumResult, SumStatus, sum};
pub use verify::{
    CheckReport, CheckStep, Counterexample, NumericCheck, Verdict, Verification, check, verify, verify_equation,
};
