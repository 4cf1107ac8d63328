//! The runs router against its case table `routing_cases.toml`, through the runner every
//! router shares (attest-testkit): every case reaches its tool with its exact arguments,
//! declines offer at least two options, the router is deterministic and never panics,
//! and every decision is snapshotted.

use attest_runs::router::{OPTIONS, ROUTER, route};
use attest_testkit::routing;

#[test]
fn every_case_reaches_its_tool_with_its_args() {
    let cases = routing::cases(include_str!("routing_cases.toml"));
    assert!(cases.iter().filter(|c| c.tool.is_none()).count() >= 8, "too few declines");
    let decided = routing::run(&cases, 40, &ROUTER);
    insta::assert_yaml_snapshot!("runs_decisions", decided);
}

#[test]
fn there_is_no_catch_all() {
    routing::no_catch_all(&["hello", "do the thing", "thanks!", "kdsweep", "sweeping the floor later"], route);
    assert_eq!(route("hello").options, OPTIONS);
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
fn words_match_on_boundaries_only() {
    // "kdsweep" is not the word "sweep"; "recorded" is not "record"; "scanner" is not "scan".
    assert_eq!(route("kdsweep").tool, None);
    assert_eq!(route("what runs have I recorded?").tool.as_deref(), Some("runs.list"));
    assert_eq!(route("my scanner broke").tool, None);
    // "the sweep" alone: the rules read a comparison, the learned model does not agree
    // (nothing is asked of the sweep), so it is asked back with runs.compare offered first.
    let sweep = route("the sweep");
    assert_eq!((sweep.tool, sweep.options.first().map(String::as_str)), (None, Some("runs.compare")));
}

#[test]
fn never_panics_on_any_unicode() {
    routing::never_panics(route);
}

/// The tuning questions (`tests/routing/tuning/runs.jsonl`), scored and printed; never a
/// write for a question that did not ask for one. `ROUTING_MISSES=1` prints the misses.
#[test]
fn tuning_questions_never_write_unasked() {
    routing::tuning("runs", &["runs.record", "runs.scan"], |q, given| ROUTER.decide(q, given));
}

/// The committed model (`src/route-model.tsv`) is exactly what training on the
/// training files gives; `ATTEST_BLESS=1` rewrites it.
#[test]
fn the_committed_model_is_retrained_from_the_training_files() {
    let committed = include_str!("../src/route-model.tsv");
    routing::committed_model_is_retrained(
        &ROUTER,
        "runs",
        include_str!("routing_cases.toml"),
        env!("CARGO_MANIFEST_DIR"),
        committed,
    );
}

/// Cross-validation by writer over the training files (`CV` lines for specs/routing.md).
#[test]
fn cross_validation_by_writer() {
    routing::cross_validation_by_writer(&ROUTER, "runs", include_str!("routing_cases.toml"));
}

/// Arguments by tool under cross-validation by writer (`FOLD` lines, the pooled report;
/// `ROUTING_MISSES=<writer,…>|all` prints those writers' argument and route misses).
#[test]
fn arguments_by_writer() {
    routing::arguments_by_writer(&ROUTER, "runs", include_str!("routing_cases.toml"));
}
