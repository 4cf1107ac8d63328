//! The feed.ask router against its case table (`routing_cases.toml`): each case's tool
//! and exact arguments, no catch-all, at least two options on every decline,
//! determinism, and a snapshot of every decision.

use std::collections::BTreeSet;

use attest_feed::router::{RULES, SEARCH_LEADS, TOOLS, route};
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
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/routing_cases.toml")).unwrap();
    toml::from_str::<Cases>(&text).unwrap().case
}

#[test]
fn every_case_routes_with_its_arguments() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
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
                    problems.push(format!("decline does not offer {o} (offers {:?})", d.options));
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
fn the_daily_question_never_goes_to_the_digest() {
    for q in ["what should I read today?", "What should I read today", "so, what should i read today??"] {
        assert_eq!(route(q).tool.as_deref(), Some("feed.list"), "{q}");
    }
}

#[test]
fn routing_is_deterministic() {
    for c in cases() {
        let first = route(&c.q);
        for _ in 0..3 {
            assert_eq!(route(&c.q), first, "{:?}", c.q);
        }
    }
}

#[test]
fn no_catch_all() {
    // Questions no rule claims: every one is asked back, never guessed.
    for q in ["", "?", "ok", "lol", "the weather in Lisbon", "my cat", "xyzzy plugh", "12345"] {
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
