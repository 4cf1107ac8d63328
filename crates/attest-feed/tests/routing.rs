//! The feed.ask router against its case table (`routing_cases.toml`), through the
//! runner every router shares (attest-testkit): each case's tool and exact arguments,
//! every tool of the rules reached by a case, no catch-all, at least two options on
//! every decline, determinism, a snapshot of every decision, and no panic on any
//! Unicode.

use attest_core::ask::{Args, Route};
use attest_feed::router::{ROUTER, SEARCH_LEADS, route};
use attest_testkit::routing;
use serde_json::json;

#[test]
fn every_case_reaches_its_tool_with_its_args() {
    let cases = routing::cases(include_str!("routing_cases.toml"));
    assert!(cases.iter().filter(|c| c.tool.is_none()).count() >= 8, "too few declines");
    let decided = routing::run(&cases, 60, &ROUTER);
    insta::assert_yaml_snapshot!("routing_decisions", decided);
}

#[test]
fn the_daily_question_never_goes_to_the_digest() {
    for q in ["what should I read today?", "What should I read today", "so, what should i read today??"] {
        assert_eq!(route(q).tool.as_deref(), Some("feed.list"), "{q}");
    }
}

#[test]
fn there_is_no_catch_all() {
    routing::no_catch_all(&["the weather in Lisbon"], route);
}

#[test]
fn phrases_are_lower_case_words() {
    // Phrases are words, matched on boundaries: no leading/trailing spaces, lower case.
    for p in ROUTER.rules.iter().flat_map(|r| r.phrases.iter()).chain(SEARCH_LEADS) {
        assert_eq!(p.trim(), *p, "{p:?}");
        assert_eq!(p.to_lowercase(), *p, "{p:?}");
    }
    assert!(ROUTER.tools().iter().all(|t| t.starts_with("feed.")));
}

#[test]
fn phrases_match_whole_words_only() {
    // "preview" must not fire inside "previewed"; "rate" not inside "accurate"; "open" not inside "openai".
    assert_ne!(route("an accurate account of openai's previewed model").tool.as_deref(), Some("feed.rate"));
    assert_eq!(route("papers on accurate protein structure").args["query"], "accurate protein structure");
    assert_eq!(route("anything on unsubscribed users in social networks").tool.as_deref(), Some("feed.search"));
}

#[test]
fn an_item_given_beside_the_question_is_pointed_at() {
    let given = |v: serde_json::Value| -> Args { v.as_object().unwrap().clone() };
    // An empty question with an item reads it; with a url alone it is asked back.
    let d = ROUTER.decide("", &given(json!({"item_id": 7})));
    assert_eq!((d.tool.as_deref(), d.args.len()), (Some("feed.read"), 0));
    assert_eq!(ROUTER.decide("", &given(json!({"url": "https://x.org/a"}))).tool, None);
    // "summarize" needs an item: given beside it, the question reads it.
    // Alone, the learned model reads it as a request to read (feed.read then asks which
    // item, as a direct call does).
    assert_eq!(route("summarize").tool.as_deref(), Some("feed.read"));
    assert_eq!(ROUTER.decide("summarize", &given(json!({"item_id": 7}))).tool.as_deref(), Some("feed.read"));
    assert_eq!(ROUTER.decide("useful", &given(json!({"url": "https://x.org/a"}))).tool.as_deref(), Some("feed.rate"));
    // An unclear question stays unclear with an item beside it.
    assert_eq!(ROUTER.decide("hmm", &given(json!({"item_id": 7}))).tool, None);
}

#[test]
fn never_panics_on_any_unicode() {
    attest_testkit::routing::never_panics(route);
}

/// The tuning questions (`tests/routing/tuning/feed.jsonl`), scored and printed; never a
/// write for a question that did not ask for one. `ROUTING_MISSES=1` prints the misses.
#[test]
fn tuning_questions_never_write_unasked() {
    routing::tuning(
        "feed",
        &[
            "feed.rate",
            "feed.persona_create",
            "feed.persona_update",
            "feed.persona_delete",
            "feed.persona_reset",
            "feed.persona_merge",
            "feed.source_add",
            "feed.source_remove",
            "feed.harvest_engagement",
        ],
        |q, given| ROUTER.decide(q, given),
    );
}

/// The committed model (`src/route-model.tsv`) is exactly what training on the
/// training files gives; `ATTEST_BLESS=1` rewrites it.
#[test]
fn the_committed_model_is_retrained_from_the_training_files() {
    let committed = include_str!("../src/route-model.tsv");
    routing::committed_model_is_retrained(
        &ROUTER,
        "feed",
        include_str!("routing_cases.toml"),
        env!("CARGO_MANIFEST_DIR"),
        committed,
    );
}

/// Cross-validation by writer over the training files (`CV` lines for specs/routing.md).
#[test]
fn cross_validation_by_writer() {
    routing::cross_validation_by_writer(&ROUTER, "feed", include_str!("routing_cases.toml"));
}

/// Arguments by tool under cross-validation by writer (`FOLD` lines, the pooled report;
/// `ROUTING_MISSES=<writer,…>|all` prints those writers' argument and route misses).
#[test]
fn arguments_by_writer() {
    routing::arguments_by_writer(&ROUTER, "feed", include_str!("routing_cases.toml"));
}

/// The argument forms of routing round five (`routing_args.toml`: how many, over how
/// many days, from which feed, from where on): each case's tool and exact arguments.
/// Apart from the case table, so the learned model is not trained on them.
#[test]
fn argument_forms_are_extracted() {
    let cases = routing::cases(include_str!("routing_args.toml"));
    routing::check(&cases, 15, route);
}
