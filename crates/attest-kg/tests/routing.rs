//! The kg.ask router against its case table (`routing_cases.toml`): each case's tool and
//! exact arguments, no catch-all, at least two options on every decline, determinism,
//! and a snapshot of every decision.

use std::collections::BTreeSet;

use attest_kg::router::{RULES, TOOLS, route};
use attest_testkit::routing::{self, Case};
use serde_json::Value;

fn cases() -> Vec<Case> {
    routing::cases(include_str!("routing_cases.toml"))
}

#[test]
fn every_case_routes_with_its_arguments() {
    routing::check(&cases(), 40, route);
}

#[test]
fn no_catch_all() {
    routing::no_catch_all(&[], route);
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
