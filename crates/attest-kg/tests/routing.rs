//! The kg.ask router against its case table (`routing_cases.toml`), through the runner
//! every router shares (attest-testkit): every case reaches its tool with its exact
//! arguments, declines offer at least two options, the router is deterministic and
//! never panics, there is no catch-all, and every decision is snapshotted.

use attest_core::surface::Surface;
use attest_kg::router::{OPTIONS, ROUTER, RULES, route};
use attest_testkit::routing;

#[test]
fn every_case_reaches_its_tool_with_its_args() {
    let cases = routing::cases(include_str!("routing_cases.toml"));
    assert!(cases.iter().filter(|c| c.tool.is_none()).count() >= 8, "too few declines");
    let decided = routing::run(&cases, 40, &ROUTER);
    insta::assert_yaml_snapshot!("routing_decisions", decided);
}

#[test]
fn there_is_no_catch_all() {
    routing::no_catch_all(&["hello", "what's the weather in Lisbon", "thanks!"], route);
    assert_eq!(route("hello").options, OPTIONS);
}

#[test]
fn a_citation_question_without_a_reference_is_asked_back() {
    for q in ["what is the doi of the path between x and y", "bibtex for my draft", "how do I cite that paper?"] {
        let d = route(q);
        assert_eq!(d.tool, None, "{q}");
        assert_eq!(d.options, ["cite.lookup", "cite.search"], "{q}");
    }
    // With one it is looked up, whatever else the question says.
    let d = route("find the bibtex for vaswani2017 in my draft");
    assert_eq!(d.tool.as_deref(), Some("cite.lookup"));
    assert_eq!(d.args["key"], "vaswani2017");
}

#[test]
fn rules_name_only_this_surfaces_tools_in_plain_phrases() {
    let knowledge = Surface::find("knowledge").unwrap();
    for r in RULES {
        assert!(knowledge.allows(r.tool), "rule for {}, which the knowledge surface does not serve", r.tool);
        for p in r.phrases {
            assert_eq!(p.trim(), *p);
            assert_eq!(p.to_lowercase(), *p);
        }
    }
}

#[test]
fn phrases_match_whole_words_only() {
    // "hub" must not fire inside "github", "near" not inside "linear", "path" not inside "pathology".
    let d = route("github linear pathology");
    assert_eq!(d.tool, None, "{d:?}");
}

#[test]
fn never_panics_on_any_unicode() {
    routing::never_panics(route);
}

/// The tuning questions (`tests/routing/tuning/kg.jsonl`), scored and printed; never a
/// write for a question that did not ask for one. `ROUTING_MISSES=1` prints the misses.
#[test]
fn tuning_questions_never_write_unasked() {
    routing::tuning("kg", &["cite.save", "cite.sync", "cite.export"], route);
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
    let surface = attest_core::surface::Surface::find("kg").expect("a surface");
    let (mut lines, mut given) = (Vec::new(), Vec::new());
    for c in routing::cases(include_str!("routing_cases.toml")) {
        let t = c.tool.clone().or_else(|| c.options.first().filter(|o| !surface.allows(o)).cloned());
        lines.push(attest_core::routing_eval::Labelled { s: "kg".into(), q: c.q, t, args: c.args });
        given.push(c.given);
    }
    sources.push(attest_core::learn::Source { name: "cases/kg".into(), lines, given, fold: false });
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
        "src/route-model.tsv is not what the training files give: ATTEST_BLESS=1 cargo nextest run -p attest-kg --test routing"
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
            "CV\tkg\t{:?}\t{}\t{}\t{}\t{}\t{}\t{}",
            p.combine, p.min, p.margin, t.right, t.wrong, t.declined, t.turns
        );
    }
    let of = |want: &Policy| table.iter().find(|(p, _)| p == want).map(|(_, t)| *t).expect("in the grid");
    let (chosen, rules) = (of(&Policy::CHOSEN), of(&Policy::RULES));
    assert!(chosen.right >= rules.right, "chosen {chosen:?}, rules alone {rules:?}");
}
