//! The Markdown claim grammar: every field, multi-line comments, every malformed case,
//! unclosed comments, code and ordinary comments.

use attest_claims::{Claim, Parsed, parse};

fn one(text: &str) -> Result<Claim, String> {
    let p = parse(text, "d.md");
    match (p.claims.as_slice(), p.malformed.as_slice()) {
        ([c], []) => Ok(c.clone()),
        ([], [m]) => Err(m.problem.clone()),
        _ => panic!("expected one claim or one problem, got {p:?}"),
    }
}

#[test]
fn reads_every_field() {
    let c = one(
        "x\n<!-- claim: p/r/b8 metric=WER value=0.0690 tol=0.001 split=test step=30 as_of=2026-01-31 cite=doe2024 -->",
    )
    .unwrap();
    assert_eq!(c.line, 2);
    assert_eq!((c.project.as_str(), c.run.as_str(), c.metric.as_str()), ("p", "r/b8", "wer"));
    assert_eq!((c.value, c.written.as_str(), c.tol, c.step), (0.069, "0.0690", Some(0.001), Some(30)));
    assert_eq!(c.split.as_deref(), Some("test"));
    assert_eq!(c.as_of.as_deref(), Some("2026-01-31"));
    assert_eq!(c.cite.as_deref(), Some("doe2024"));
    assert_eq!(c.cell, None);
}

#[test]
fn spans_lines_and_counts_the_opening_line() {
    let c = one("a\nb\n<!--\n  Claim:  p/r\n  metric=wer\n  value=−1.5e-3\n-->").unwrap();
    assert_eq!(c.line, 3);
    assert_eq!(c.value, -0.0015);
}

#[test]
fn malformed_claims_say_what_is_wrong() {
    let cases = [
        ("<!-- claim: metric=wer value=1 -->", "no project/run"),
        ("<!-- claim: kdalpha metric=wer value=1 -->", "expected project/run"),
        ("<!-- claim: p/r value=1 -->", "missing metric=NAME"),
        ("<!-- claim: p/r -->", "missing metric=NAME and value=NUMBER"),
        ("<!-- claim: p/r metric=m value=high -->", "value=high is not a number"),
        ("<!-- claim: p/r metric=m value=2,400 -->", "not a number"),
        ("<!-- claim: p/r metric=m value=nan -->", "not a number"),
        ("<!-- claim: p/r metric=m value=inf -->", "not a number"),
        ("<!-- claim: p/r metric=m value=1 tol=-1 -->", "tol=-1"),
        ("<!-- claim: p/r metric=m value=1 step=3e3 -->", "whole number"),
        ("<!-- claim: p/r metric=m value=1 as_of=2026-02-30 -->", "YYYY-MM-DD"),
        ("<!-- claim: p/r metric=m value=1 tolerance=0.1 -->", "unknown key 'tolerance'"),
        ("<!-- claim: p/r metric=m value=1 value=2 -->", "more than once"),
        ("<!-- claim: p/r metric=m value=1 (rounded) -->", "not a key=value"),
        ("<!-- claim: -->", "empty claim"),
    ];
    for (text, says) in cases {
        let problem = one(text).unwrap_err();
        assert!(problem.contains(says), "{text}: {problem}");
    }
}

#[test]
fn an_unclosed_claim_is_reported_and_does_not_swallow_the_next() {
    let p = parse("<!-- claim: p/a metric=m value=1\ntext\n<!-- claim: p/b metric=m value=2 -->\n", "d.md");
    assert_eq!(p.malformed.len(), 1, "{p:?}");
    assert_eq!(p.malformed[0].line, 1);
    assert!(p.malformed[0].problem.contains("line 3"), "{}", p.malformed[0].problem);
    assert_eq!(p.claims.len(), 1);
    assert_eq!((p.claims[0].run.as_str(), p.claims[0].value, p.claims[0].line), ("b", 2.0, 3));
    let q = parse("x\n\n<!-- claim: p/a metric=m value=1", "d.md");
    assert_eq!(q.malformed[0].line, 3);
    assert!(q.malformed[0].problem.contains("no `-->`"));
}

#[test]
fn claims_in_code_are_examples() {
    let text = "Write `<!-- claim: p/r metric=m value=1 -->` next to it.\n```md\n<!-- claim: p/s metric=m value=1 -->\n```\n<!-- claim: p/t metric=m value=1 -->\n~~~\n<!-- claim: p/u metric=m value=1\n";
    let p = parse(text, "d.md");
    assert_eq!(p.claims.iter().map(|c| c.run.as_str()).collect::<Vec<_>>(), ["t"]);
    assert!(p.malformed.is_empty(), "{:?}", p.malformed);
}

#[test]
fn ordinary_comments_are_ignored() {
    let p = parse("<!-- a note -->\n<!-- TODO: value=3 -->\n<!-- claimed: p/r metric=m value=1 -->", "d.md");
    assert_eq!(p, Parsed::default());
}
