//! The claim checker: numbers in a draft, tied to the ledger by a claim annotation.
//!
//! A claim is written next to the number it backs, in the draft's own comment syntax:
//!
//! ```text
//! <!-- claim: asr-distill/kdalpha_50 metric=wer value=0.0719 -->    Markdown, Quarto, R Markdown, notebooks
//! % claim: asr-distill/kdalpha_50 metric=wer value=0.0719           LaTeX
//! ```
//!
//! The grammar and the reading of drafts are the pure crate `attest_claims`, re-exported
//! here so `attest_runs::claims::parse` and friends keep working. [`check`] finds the
//! drafts under a path inside the research root, looks each claim up in the ledger
//! with a handful of queries, and gives it one [`Verdict`]; a claim whose `cite=` key no
//! citation source knows gets an extra `uncited` row when a [`CiteResolver`] is given.
//! Nothing here edits a document.
//!
//! The verdict rules, the syntax and where this differs from the original tool are in
//! `specs/claims.md`.

mod drafts;
mod verdict;

pub use attest_claims::markdown::{code_ranges, comment_ranges};
pub use attest_claims::{
    Annotation, Cell, Claim, DEFAULT_TOL, EXAMPLE, Format, Found, KEYS, Lines, MAX_DRAFT_BYTES, Malformed, Parsed,
    Skipped, claim_of, drafts, label, parse, parse_as, parse_number, read_claims, read_draft,
};
pub use drafts::resolve_target;
pub use verdict::{CiteResolver, KeyCheck, Report, Row, Verdict, check, verdicts};
