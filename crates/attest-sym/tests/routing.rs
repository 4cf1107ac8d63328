//! The sym router against its case table `routing_cases.toml`, through the runner every
//! router shares (attest-testkit): every case reaches its tool with exactly its
//! arguments, declines offer the surface that owns the question, the router is
//! deterministic and never panics, and every decision is snapshotted.

use attest_sym::router::{ROUTER, TOOLS, route};
use attest_testkit::routing;

#[test]
fn every_case_reaches_its_tool_with_its_args() {
    let cases = routing::cases(include_str!("routing_cases.toml"));
    assert!(cases.iter().filter(|c| !c.options.is_empty()).count() >= 6, "too few declines");
    let decided = routing::run(&cases, 70, &ROUTER);
    insta::assert_yaml_snapshot!("sym_decisions", decided);
}

#[test]
fn there_is_no_catch_all() {
    // The shared list less "12345" (below).
    for q in ["", "?", "ok", "lol", "my cat", "xyzzy plugh", "hello", "do the thing", "thanks!", "what about it"] {
        let d = route(q, "");
        assert!(d.tool.is_none(), "{q:?} was routed to {:?}", d.tool);
        assert!(d.options.len() >= 2, "{q:?} offers {:?}", d.options);
    }
    // A bare constant: the rules would evaluate it, the learned model does not agree, so
    // it is asked back offering sym.evaluate among the tools.
    let constant = route("12345", "");
    assert!(constant.tool.is_none() && constant.options.iter().any(|o| o == "sym.evaluate"), "{constant:?}");
    assert_eq!(route("hello", "").options, TOOLS);
    // A bare expression is asked what to do with it.
    let bare = route("", "x^2 + 1");
    assert_eq!(bare.tool, None);
    insta::assert_snapshot!("bare_expression", bare.answer);
}

#[test]
fn antiderivative_never_goes_to_differentiate() {
    for q in ["antiderivative of x^2", "what is the antiderivative of cos(x)?", "find antiderivatives of 1/x"] {
        assert_eq!(route(q, "").tool.as_deref(), Some("sym.integrate"), "{q}");
    }
}

#[test]
fn a_question_with_an_expression_is_never_declined() {
    let d = route("are the numbers in my draft right?", "");
    assert_eq!((d.tool, d.options[0].as_str()), (None, "runs.claims_check"));
    let kept = route("is the identity in my draft right: (a+b)^2 = a^2 + 2ab + b^2", "");
    assert_eq!(kept.tool.as_deref(), Some("sym.verify"), "{kept:?}");
}

#[test]
fn never_panics_on_any_unicode() {
    routing::never_panics(|q| route(q, ""));
    routing::never_panics(|q| route(q, q));
}

/// The tuning questions (`tests/routing/tuning/sym.jsonl`), scored and printed; never a
/// write for a question that did not ask for one. `ROUTING_MISSES=1` prints the misses.
#[test]
fn tuning_questions_never_write_unasked() {
    routing::tuning("sym", &[], |q, given| ROUTER.decide(q, given));
}

/// The committed model (`src/route-model.tsv`) is exactly what training on the
/// training files gives; `ATTEST_BLESS=1` rewrites it.
#[test]
fn the_committed_model_is_retrained_from_the_training_files() {
    let committed = include_str!("../src/route-model.tsv");
    routing::committed_model_is_retrained(
        &ROUTER,
        "sym",
        include_str!("routing_cases.toml"),
        env!("CARGO_MANIFEST_DIR"),
        committed,
    );
}

/// Cross-validation by writer over the training files (`CV` lines for specs/routing.md).
#[test]
fn cross_validation_by_writer() {
    routing::cross_validation_by_writer(&ROUTER, "sym", include_str!("routing_cases.toml"));
}

/// Arguments by tool under cross-validation by writer (`FOLD` lines, the pooled report;
/// `ROUTING_MISSES=<writer,…>|all` prints those writers' argument and route misses).
#[test]
fn arguments_by_writer() {
    routing::arguments_by_writer(&ROUTER, "sym", include_str!("routing_cases.toml"));
}

/// The argument forms of routing round five (`routing_args.toml`: mathematics between
/// dollars, numbers as numbers, the differential's variable, LaTeX notation passed
/// whole, the order in words, units): each case's tool and exact arguments. Apart from
/// the case table, so the learned model is not trained on them.
#[test]
fn argument_forms_are_extracted() {
    let cases = routing::cases(include_str!("routing_args.toml"));
    routing::check(&cases, 20, |q| route(q, ""));
}
