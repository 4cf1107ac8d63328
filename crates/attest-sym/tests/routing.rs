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
    routing::tuning("sym", &[], |q| route(q, ""));
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
    let surface = attest_core::surface::Surface::find("sym").expect("a surface");
    let (mut lines, mut given) = (Vec::new(), Vec::new());
    for c in routing::cases(include_str!("routing_cases.toml")) {
        let t = c.tool.clone().or_else(|| c.options.first().filter(|o| !surface.allows(o)).cloned());
        lines.push(attest_core::routing_eval::Labelled { s: "sym".into(), q: c.q, t, args: c.args });
        given.push(c.given);
    }
    sources.push(attest_core::learn::Source { name: "cases/sym".into(), lines, given, fold: false });
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
        "src/route-model.tsv is not what the training files give: ATTEST_BLESS=1 cargo nextest run -p attest-sym --test routing"
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
            "CV\tsym\t{:?}\t{}\t{}\t{}\t{}\t{}\t{}",
            p.combine, p.min, p.margin, t.right, t.wrong, t.declined, t.turns
        );
    }
    let of = |want: &Policy| table.iter().find(|(p, _)| p == want).map(|(_, t)| *t).expect("in the grid");
    let (chosen, rules) = (of(&Policy::CHOSEN), of(&Policy::RULES));
    assert!(chosen.right >= rules.right, "chosen {chosen:?}, rules alone {rules:?}");
}
