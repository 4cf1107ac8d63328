//! The kg.ask router against its case table (`routing_cases.toml`): each case's tool and
//! exact arguments, no catch-all, at least two options on every decline, determinism,
//! and a snapshot of every decision.

use std::collections::BTreeSet;

use attest_kg::router::{RULES, TOOLS, route};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    q: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    options: Vec<String>,
}

fn cases() -> Vec<Case> {
    toml::from_str::<Cases>(include_str!("routing_cases.toml")).unwrap().case
}

#[test]
fn every_case_routes_with_its_arguments() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for c in &cases {
        let d = route(&c.q);
        let mut problems = Vec::new();
        if d.tool != c.tool {
            problems.push(format!("tool {:?}, expected {:?}", d.tool, c.tool));
        }
        if d.args != c.args {
            problems.push(format!(
                "args {}, expected {}",
                Value::Object(d.args.clone()),
                Value::Object(c.args.clone())
            ));
        }
        if d.tool.is_none() {
            if d.options.len() < 2 {
                problems.push(format!("decline offers {:?}, fewer than two options", d.options));
            }
            for o in &c.options {
                if !d.options.contains(o) {
                    problems.push(format!("does not offer {o} (offers {:?})", d.options));
                }
            }
            if d.answer.trim().is_empty() {
                problems.push("decline without a question back".into());
            }
        }
        if !problems.is_empty() {
            failures.push(format!("{:?}: {}", c.q, problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn routing_is_deterministic() {
    for c in cases() {
        assert_eq!(route(&c.q), route(&c.q), "{:?}", c.q);
    }
}

#[test]
fn no_catch_all() {
    for q in ["", "?", "ok", "lol", "my cat", "xyzzy plugh", "12345"] {
        let d = route(q);
        assert!(d.tool.is_none(), "{q:?} was routed to {:?}", d.tool);
        assert!(d.options.len() >= 2, "{q:?} offers {:?}", d.options);
    }
}

#[test]
fn cases_cover_every_tool_and_rules_name_only_real_tools() {
    let routed: BTreeSet<String> = cases().iter().filter_map(|c| c.tool.clone()).collect();
    for t in TOOLS {
        assert!(routed.contains(*t), "no case routes to {t}");
    }
    for r in RULES {
        assert!(TOOLS.contains(&r.tool), "rule for unknown tool {}", r.tool);
        for p in r.phrases {
            assert_eq!(p.trim(), *p);
            assert_eq!(p.to_lowercase(), *p);
        }
    }
}

#[test]
fn phrases_match_whole_words_only() {
    // "hub" must not fire inside "github", "near" not inside "linear", "path" not inside "pathology".
    assert_ne!(route("github linear pathology").tool.as_deref(), Some("kg.central"));
    assert_ne!(route("github linear pathology").tool.as_deref(), Some("kg.neighbors"));
    assert_ne!(route("github linear pathology").tool.as_deref(), Some("kg.path"));
}

#[test]
fn snapshot_of_every_decision() {
    let rows: Vec<Value> = cases()
        .iter()
        .map(|c| {
            let d = route(&c.q);
            serde_json::json!({ "q": c.q, "tool": d.tool, "args": d.args, "options": d.options, "answer": d.answer })
        })
        .collect();
    insta::assert_yaml_snapshot!("routing_decisions", rows);
}
