//! The runs router against the case file `routing_cases.toml`: every case reaches its
//! tool with its arguments, declines offer at least two options, the router is
//! deterministic, and every decision is snapshotted.

use attest_core::Decision;
use attest_runs::router::{OPTIONS, RULES, route};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[derive(Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    question: String,
    tool: String,
    #[serde(default)]
    args: Option<Map<String, Value>>,
    #[serde(default)]
    options: Option<Vec<String>>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("routing_cases.toml");
    toml::from_str::<Cases>(text).expect("routing_cases.toml parses").case
}

#[test]
fn there_are_enough_cases_of_every_kind() {
    let cs = cases();
    assert!(cs.len() >= 40, "only {} cases", cs.len());
    let declines = cs.iter().filter(|c| c.tool.is_empty()).count();
    assert!(declines >= 8, "only {declines} declines");
    for r in RULES {
        assert!(cs.iter().any(|c| c.tool == r.tool), "no case reaches {}", r.tool);
    }
}

#[test]
fn every_case_reaches_its_tool_with_its_args() {
    let mut failures = Vec::new();
    for c in cases() {
        let d = route(&c.question);
        let got = d.tool.clone().unwrap_or_default();
        if got != c.tool {
            failures.push(format!("{:?}: wanted tool {:?}, got {:?} ({})", c.question, c.tool, got, d.answer));
            continue;
        }
        if let Some(args) = &c.args
            && &d.args != args
        {
            failures.push(format!("{:?}: wanted args {:?}, got {:?}", c.question, args, d.args));
        }
        if let Some(options) = &c.options
            && &d.options != options
        {
            failures.push(format!("{:?}: wanted options {:?}, got {:?}", c.question, options, d.options));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_decline_asks_back_with_at_least_two_options() {
    for c in cases().iter().filter(|c| c.tool.is_empty()) {
        let d = route(&c.question);
        assert!(d.tool.is_none());
        assert!(d.options.len() >= 2, "{:?} declined with options {:?}", c.question, d.options);
        assert!(d.answer.contains('?') || d.answer.contains("surface"), "{:?}: {}", c.question, d.answer);
        assert!(d.args.is_empty());
    }
}

#[test]
fn there_is_no_catch_all() {
    for q in ["hello", "", "do the thing", "what?", "thanks!", "42", "kdsweep", "sweeping the floor later"] {
        let d = route(q);
        assert_eq!(d.tool, None, "{q:?} was routed to {:?}", d.tool);
        assert_eq!(d.options, OPTIONS, "{q:?}");
    }
}

#[test]
fn other_surfaces_are_named() {
    let d = route("what should I read today?");
    assert_eq!(d.tool, None);
    assert_eq!(d.options[0], "feed.list");
    assert!(d.answer.contains("feed"), "{}", d.answer);
    let s = route("simplify (x+1)^2");
    assert_eq!(s.options[0], "sym.simplify");
    assert!(s.answer.contains("attest-symbolic"), "{}", s.answer);
}

#[test]
fn the_draft_question_never_goes_to_maths() {
    for q in [
        "are the numbers in my draft right?",
        "Are the numbers in my draft right",
        "ARE THE NUMBERS IN MY DRAFT RIGHT?",
    ] {
        assert_eq!(route(q).tool.as_deref(), Some("runs.claims_check"), "{q}");
    }
}

#[test]
fn words_match_on_boundaries_only() {
    // "kdsweep" is not the word "sweep"; "recorded" is not "record"; "scanner" is not "scan".
    assert_eq!(route("kdsweep").tool, None);
    assert_eq!(route("what runs have I recorded?").tool.as_deref(), Some("runs.list"));
    assert_eq!(route("my scanner broke").tool, None);
    assert_eq!(route("the sweep").tool.as_deref(), Some("runs.compare"));
}

#[test]
fn routing_is_deterministic() {
    for c in cases() {
        let first = route(&c.question);
        for _ in 0..4 {
            assert_eq!(route(&c.question), first, "{:?}", c.question);
        }
    }
}

#[derive(Serialize)]
struct Snap {
    question: String,
    decision: Decision,
}

#[test]
fn decisions_snapshot() {
    let all: Vec<Snap> =
        cases().into_iter().map(|c| Snap { decision: route(&c.question), question: c.question }).collect();
    insta::assert_yaml_snapshot!("runs_decisions", all);
}
