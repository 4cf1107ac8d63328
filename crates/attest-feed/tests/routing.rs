//! The feed.ask router against its case table (`routing_cases.toml`): each case's tool
//! and exact arguments, no catch-all, at least two options on every decline,
//! determinism, and a snapshot of every decision.

use std::collections::BTreeSet;

use attest_feed::router::{RULES, SEARCH_LEADS, TOOLS, route};
use attest_testkit::routing::{self, Case};
use serde_json::Value;

fn cases() -> Vec<Case> {
    routing::cases(include_str!("routing_cases.toml"))
}

#[test]
fn every_case_routes_with_its_arguments() {
    routing::check(&cases(), 60, route);
}

#[test]
fn the_daily_question_never_goes_to_the_digest() {
    for q in ["what should I read today?", "What should I read today", "so, what should i read today??"] {
        assert_eq!(route(q).tool.as_deref(), Some("feed.list"), "{q}");
    }
}

#[test]
fn no_catch_all() {
    routing::no_catch_all(&["the weather in Lisbon"], route);
}

#[test]
fn cases_cover_every_tool_and_rules_name_only_real_tools() {
    let routed: BTreeSet<String> = cases().iter().filter_map(|c| c.tool.clone()).collect();
    for t in TOOLS {
        assert!(routed.contains(*t), "no case routes to {t}");
    }
    for r in RULES {
        assert!(TOOLS.contains(&r.tool), "rule for unknown tool {}", r.tool);
        assert!(!r.phrases.is_empty());
    }
    // Phrases are words, matched on boundaries: no leading/trailing spaces, lower case.
    for p in RULES.iter().flat_map(|r| r.phrases.iter()).chain(SEARCH_LEADS) {
        assert_eq!(p.trim(), *p, "{p:?}");
        assert_eq!(p.to_lowercase(), *p, "{p:?}");
    }
}

#[test]
fn phrases_match_whole_words_only() {
    // "preview" must not fire inside "previewed"; "rate" not inside "accurate"; "open" not inside "openai".
    assert_ne!(route("an accurate account of openai's previewed model").tool.as_deref(), Some("feed.rate"));
    assert_eq!(route("papers on accurate protein structure").args["query"], "accurate protein structure");
    assert_eq!(route("anything on unsubscribed users in social networks").tool.as_deref(), Some("feed.search"));
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
