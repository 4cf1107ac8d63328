//! The router against our table of questions: every case reaches its tool with the
//! arguments extracted, and the whole table is snapshot-tested.

use attest_sym::route;
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    question: String,
    #[serde(default)]
    expr: String,
    tool: String,
    #[serde(default)]
    declined: Option<String>,
    #[serde(default)]
    args: toml::Table,
}

#[derive(Serialize)]
struct Seen {
    question: String,
    expr: String,
    decision: attest_core::Decision,
}

fn table() -> Vec<Case> {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/routing_cases.toml")).unwrap();
    toml::from_str::<Table>(&text).unwrap().case
}

#[test]
fn every_case_reaches_its_tool() {
    let cases = table();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let r = std::panic::catch_unwind(|| check_case(c));
        if let Err(e) = r {
            failures.push(e.downcast_ref::<String>().cloned().unwrap_or_default());
        }
    }
    assert!(failures.is_empty(), "{} failing cases:\n{}", failures.len(), failures.join("\n"));
}

fn check_case(c: &Case) {
    {
        let d = route(&c.question, &c.expr);
        let why = format!("{:?} (expr {:?}) → {d:?}", c.question, c.expr);
        if c.tool.is_empty() {
            assert_eq!(d.tool, None, "{why}");
            match &c.declined {
                Some(owner) => assert_eq!(d.options, std::slice::from_ref(owner), "{why}"),
                None => assert!(d.options.len() >= 2, "an ask-back needs two options: {why}"),
            }
        } else {
            assert_eq!(d.tool.as_deref(), Some(c.tool.as_str()), "{why}");
        }
        for (k, want) in &c.args {
            let got = d.args.get(k).unwrap_or_else(|| panic!("missing arg {k}: {why}"));
            let want = serde_json::to_value(want).unwrap();
            assert_eq!(got, &want, "arg {k}: {why}");
        }
    }
}

#[test]
fn antiderivative_never_goes_to_differentiate() {
    for q in ["antiderivative of x^2", "what is the antiderivative of cos(x)?", "find antiderivatives of 1/x"] {
        assert_eq!(route(q, "").tool.as_deref(), Some("sym.integrate"), "{q}");
    }
}

#[test]
fn routing_table_snapshot() {
    let seen: Vec<Seen> = table()
        .into_iter()
        .map(|c| Seen { decision: route(&c.question, &c.expr), question: c.question, expr: c.expr })
        .collect();
    insta::assert_yaml_snapshot!(seen);
}
