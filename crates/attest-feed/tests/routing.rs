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
        route,
    );
}

/// The training questions (`tests/routing/tuning/` and `tests/routing/train/<writer>/`,
/// never `holdout/`), writer by writer, and this surface's case table.
fn training() -> Vec<attest_core::learn::Source> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/routing");
    let mut dirs = vec!["tuning".to_string()];
    let mut writers: Vec<String> = std::fs::read_dir(format!("{root}/train"))
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| format!("train/{}", e.file_name().to_string_lossy()))
        .collect();
    writers.sort();
    dirs.extend(writers);
    let mut files = Vec::new();
    for dir in dirs {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        paths.sort();
        for p in paths {
            let name = format!("{dir}/{}", p.file_name().unwrap_or_default().to_string_lossy());
            files.push((name, std::fs::read_to_string(&p).expect("a training file reads")));
        }
    }
    let mut sources = attest_core::learn::sources(&files).expect("the training files parse");
    // This surface's case table is trained on too (never a fold of the cross-validation):
    // a decline whose first option is another surface's tool is that tool's question.
    let surface = attest_core::surface::Surface::find("feed").expect("a surface");
    let (mut lines, mut given) = (Vec::new(), Vec::new());
    for c in routing::cases(include_str!("routing_cases.toml")) {
        let t = c.tool.clone().or_else(|| c.options.first().filter(|o| !surface.allows(o)).cloned());
        lines.push(attest_core::routing_eval::Labelled { s: "feed".into(), q: c.q, t, args: c.args });
        given.push(c.given);
    }
    sources.push(attest_core::learn::Source { name: "cases/feed".into(), lines, given, fold: false });
    sources
}

/// The committed model (`src/route-model.tsv`) is exactly what training on the training
/// files gives; `ATTEST_BLESS=1` rewrites it.
#[test]
fn the_committed_model_is_retrained_from_the_training_files() {
    let text = ROUTER.model_text(&training());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/route-model.tsv");
    if std::env::var_os("ATTEST_BLESS").is_some() {
        std::fs::write(path, &text).expect("the model writes");
        return;
    }
    let committed = include_str!("../src/route-model.tsv");
    assert!(attest_core::learn::Model::parse(committed).is_ok(), "the committed model does not parse");
    assert!(
        committed == text,
        "src/route-model.tsv is not what the training files give: ATTEST_BLESS=1 cargo nextest run -p attest-feed --test routing"
    );
}

/// Cross-validation by writer over the training files: every policy's tally is printed
/// (`CV` lines, for `specs/routing.md`), and the chosen policy does no worse than the
/// rules alone.
#[test]
fn cross_validation_by_writer() {
    use attest_core::learn::{Policy, Training, grid};
    // ROUTING_CV_TRAINING="epochs,rate,l2,other" tries other training settings.
    let mut t = Training::DEFAULT;
    if let Ok(v) = std::env::var("ROUTING_CV_TRAINING") {
        let v: Vec<f64> = v.split(',').map(|x| x.parse().expect("a number")).collect();
        (t.epochs, t.rate, t.l2, t.other) = (v[0] as usize, v[1], v[2], v[3]);
    }
    let table = ROUTER.cross_validate(&training(), &grid(), &t);
    for (p, t) in &table {
        eprintln!(
            "CV\tfeed\t{:?}\t{}\t{}\t{}\t{}\t{}\t{}",
            p.combine, p.min, p.margin, t.right, t.wrong, t.declined, t.turns
        );
    }
    let of = |want: &Policy| table.iter().find(|(p, _)| p == want).map(|(_, t)| *t).expect("in the grid");
    let (chosen, rules) = (of(&Policy::CHOSEN), of(&Policy::RULES));
    assert!(chosen.right >= rules.right, "chosen {chosen:?}, rules alone {rules:?}");
}
