//! Any text, in any format, is read without a panic: the LaTeX and Markdown scanners
//! slice by byte offsets, so every range they return must fall on character
//! boundaries, whatever mix of `%`, `\`, `$`, braces and multi-byte characters comes in.

use attest_claims::{Format, latex, markdown, notebook, parse_as};
use proptest::prelude::*;

/// Text biased towards what the scanners look at, with multi-byte characters between.
fn draft() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("%".to_string()),
        Just("\\".to_string()),
        Just("$".to_string()),
        Just("$$".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just("\n".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("```".to_string()),
        Just("`".to_string()),
        Just("---\n".to_string()),
        Just("claim: p/r metric=m value=0.5 ".to_string()),
        Just("\\begin{verbatim}".to_string()),
        Just("\\end{verbatim}".to_string()),
        Just("\\begin{equation}".to_string()),
        Just("\\verb".to_string()),
        Just("\\iffalse".to_string()),
        Just("\\fi".to_string()),
        Just("\\begin{document}".to_string()),
        Just("\\cite".to_string()),
        Just("\\text".to_string()),
        Just("\\(".to_string()),
        Just("\\[".to_string()),
        Just("Section~3.2 ".to_string()),
        Just("0.5em ".to_string()),
        Just("0.81 ".to_string()),
        Just("é".to_string()),
        Just("“".to_string()),
        Just("−".to_string()),
        Just("日本".to_string()),
        Just("\u{301}".to_string()),
        Just("🙂".to_string()),
        "[a-z ]{0,4}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

fn on_boundaries(text: &str, ranges: &[std::ops::Range<usize>]) -> bool {
    ranges
        .iter()
        .all(|r| r.start <= r.end && text.is_char_boundary(r.start) && text.is_char_boundary(r.end.min(text.len())))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn latex_and_markdown_never_panic(text in draft()) {
        let _ = parse_as(Format::Latex, &text, "d.tex").unwrap();
        let _ = parse_as(Format::Markdown, &text, "d.md").unwrap();
        prop_assert!(on_boundaries(&text, &latex::non_prose(&text)));
        let s = latex::structure(&text);
        prop_assert!(on_boundaries(&text, &s.comments) && on_boundaries(&text, &s.verbatim));
        let code = markdown::code_ranges(&text);
        prop_assert!(on_boundaries(&text, &code));
        prop_assert!(on_boundaries(&text, &markdown::comment_ranges(&text, &code)));
    }

    #[test]
    fn notebooks_never_panic(cells in prop::collection::vec(draft(), 0..4), one_string in any::<bool>()) {
        let cells: Vec<serde_json::Value> = cells
            .iter()
            .map(|c| {
                let source = if one_string {
                    serde_json::json!(c)
                } else {
                    serde_json::json!(c.split_inclusive('\n').collect::<Vec<_>>())
                };
                serde_json::json!({"cell_type": "markdown", "metadata": {}, "source": source})
            })
            .collect();
        let json = serde_json::to_string_pretty(&serde_json::json!({"cells": cells, "nbformat": 4})).unwrap();
        let parsed = parse_as(Format::Notebook, &json, "n.ipynb").unwrap();
        let lines = json.lines().count().max(1);
        prop_assert!(parsed.claims.iter().all(|c| c.line >= 1 && c.line <= lines));
        let half = (0..=json.len() / 2).rev().find(|&i| json.is_char_boundary(i)).unwrap_or(0);
        prop_assert!(notebook::cells(&json[..half]).is_err(), "half a notebook is not one");
    }
}
