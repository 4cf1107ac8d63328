//! The claim grammar in every draft format: reading a draft never panics, and reading
//! it twice gives the same claims and problems.
#![no_main]

use attest_claims::{Format, parse_as};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Markdown, Format::Latex, Format::Notebook] {
        let first = parse_as(format, &text, "draft").map(|p| format!("{p:?}"));
        let again = parse_as(format, &text, "draft").map(|p| format!("{p:?}"));
        assert_eq!(first, again, "{format:?} is not deterministic");
    }
    let _ = attest_claims::latex::structure(&text);
    let _ = attest_claims::latex::non_prose(&text);
});
