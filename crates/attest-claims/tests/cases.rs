//! The case table `cases.toml`: where claims are in each format.

use attest_claims::{Format, parse_as};
use serde::Deserialize;

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    format: String,
    text: String,
    expect: Vec<String>,
}

fn format(name: &str) -> Format {
    match name {
        "markdown" => Format::Markdown,
        "latex" => Format::Latex,
        "notebook" => Format::Notebook,
        other => panic!("unknown format {other} in cases.toml"),
    }
}

#[test]
fn every_case_finds_what_it_lists() {
    let cases: Cases = toml::from_str(include_str!("cases.toml")).expect("cases.toml parses");
    let mut failures = Vec::new();
    for case in &cases.case {
        let parsed = match parse_as(format(&case.format), &case.text, "draft") {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: could not read: {e}", case.name));
                continue;
            }
        };
        let cell =
            |c: Option<attest_claims::Cell>| c.map(|c| format!(" (cell {}:{})", c.index, c.line)).unwrap_or_default();
        let mut got: Vec<(usize, String)> = parsed
            .claims
            .iter()
            .map(|c| (c.line, format!("{} {} {}={}{}", c.line, c.selector(), c.metric, c.written, cell(c.cell))))
            .chain(
                parsed
                    .malformed
                    .iter()
                    .map(|m| (m.line, format!("{}{} malformed: {}", m.line, cell(m.cell), m.problem))),
            )
            .collect();
        got.sort_by_key(|g| g.0);
        let got: Vec<String> = got.into_iter().map(|g| g.1).collect();
        let matches = got.len() == case.expect.len()
            && got.iter().zip(&case.expect).all(|(g, e)| match e.split_once(" malformed: ") {
                Some((head, needle)) => g.starts_with(&format!("{head} malformed: ")) && g.contains(needle),
                None => g == e,
            });
        if !matches {
            failures.push(format!("{}:\n  expected {:?}\n  got      {:?}", case.name, case.expect, got));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.case.len(), failures.join("\n"));
}
