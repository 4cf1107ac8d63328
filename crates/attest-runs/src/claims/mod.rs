//! The claim checker: numbers in a Markdown draft, tied to the ledger by an HTML comment.
//!
//! A claim is written next to the number it backs:
//!
//! ```text
//! <!-- claim: asr-distill/kdalpha_50 metric=wer value=0.0719 -->
//! ```
//!
//! [`parse`] reads every claim comment of a text (skipping fenced and inline code),
//! reporting the ones it cannot read as [`Malformed`] instead of dropping them.
//! [`check`] finds the drafts under a path inside the research root, looks each claim
//! up in the ledger with a handful of queries, and gives it one [`Verdict`]; a claim
//! whose `cite=` key no citation source knows gets an extra `uncited` row when a
//! [`CiteResolver`] is given. Nothing here edits a document.
//!
//! The verdict rules, the syntax and where this differs from the original tool are in
//! `specs/claims.md`.

mod drafts;
mod grammar;
mod verdict;

pub(crate) use drafts::read_draft;
pub use drafts::{Found, MAX_DRAFT_BYTES, Skipped, drafts, label, read_claims, resolve_target};
pub use grammar::{Claim, DEFAULT_TOL, EXAMPLE, KEYS, Malformed, Parsed, parse, parse_number};
pub(crate) use grammar::{Lines, code_ranges, comment_ranges};
pub use verdict::{CiteResolver, KeyCheck, Report, Row, Verdict, check, verdicts};
