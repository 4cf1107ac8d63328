//! The claim grammar in every draft format: reading a draft never panics, and reading
//! it twice gives the same claims and problems.
//!
//! The body of the `claims` fuzz target, shared with `bins/attest/tests/fuzz_corpus.rs`,
//! which replays the committed corpus through it in `cargo test`.

use attest_claims::{Format, parse_as};

/// Run one input; panics on a property violation.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Markdown, Format::Latex, Format::Notebook] {
        let first = parse_as(format, &text, "draft").map(|p| format!("{p:?}"));
        let again = parse_as(format, &text, "draft").map(|p| format!("{p:?}"));
        assert_eq!(first, again, "{format:?} is not deterministic");
    }
    let _ = attest_claims::latex::structure(&text);
    let _ = attest_claims::latex::non_prose(&text);
}
