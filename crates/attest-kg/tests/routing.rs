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
    let d = route("how do I cite that paper?");
    assert_eq!(d.tool, None);
    assert_eq!(d.options, ["cite.lookup", "cite.search"]);
    // A question the learned model reads confidently as another tool's is that tool's:
    // the path between two named concepts is answerable, the citation rule's question
    // back is not what was asked (round five, `Combine::ModelFirstOrAgreement`).
    // "bibtex for my draft": the library's entries as BibTeX (a read).
    assert_eq!(route("what is the doi of the path between x and y").tool.as_deref(), Some("kg.path"));
    assert_eq!(route("bibtex for my draft").tool.as_deref(), Some("cite.export"));
    // With one it is looked up, whatever else the question says.
    let d = route("find the bibtex for vaswani2017 in my draft");
    assert_eq!(d.tool.as_deref(), Some("cite.lookup"));
    assert_eq!(d.args["key"], "vaswani2017");
}

/// Once a tool is decided, its argument is what is left of the sentence (round six):
/// the shapes that used to be asked back although the tool was clear, and questions
/// that truly lack the argument, which still are.
#[test]
fn arguments_are_what_is_left_and_pronouns_ask_back() {
    let routed = [
        ("search my feeds for seagrass restoration", "feed.search", "query", "seagrass restoration"),
        ("nearby concepts for quantum annealing", "kg.neighbors", "concept", "quantum annealing"),
        ("neighbours: topic modelling", "kg.neighbors", "concept", "topic modelling"),
        ("what surrounds reward models in my graph", "kg.neighbors", "concept", "reward models"),
        ("search my references for 'ridge regression'", "cite.search", "query", "ridge regression"),
        ("what bridges sparse coding and dictionary learning?", "kg.path", "source", "sparse coding"),
        ("what bridges sparse coding and dictionary learning?", "kg.path", "target", "dictionary learning"),
        ("resolve https://arxiv.org/abs/1706.03762", "cite.lookup", "key", "https://arxiv.org/abs/1706.03762"),
    ];
    for (q, tool, key, want) in routed {
        let d = route(q);
        assert_eq!(d.tool.as_deref(), Some(tool), "{q}: {d:?}");
        assert_eq!(d.args[key], want, "{q}: {d:?}");
    }
    for q in ["search for it", "what is near that?", "how do they connect?", "search my references", "neighbours of it"]
    {
        let d = route(q);
        assert_eq!(d.tool, None, "{q} names no argument: {d:?}");
        assert!(d.options.len() >= 2, "{q}: {d:?}");
    }
    // The options a search states are its options, not its topic.
    let d = route("items tagged cs.RO about legged robots since 2025-02-01");
    assert_eq!(d.tool.as_deref(), Some("feed.search"));
    assert_eq!((d.args["query"].as_str(), d.args["tag"].as_str()), (Some("legged robots"), Some("cs.RO")));
    assert_eq!(d.args["since"], "2025-02-01");
    // A work to keep: its item, its tags and what it cites, each where it is said.
    let d = route("save item 4242 to my library, tag it 'ice sheets' and 'sea level', it cites 2101.00001");
    assert_eq!(d.tool.as_deref(), Some("cite.save"), "{d:?}");
    assert_eq!(d.args["item_id"], 4242);
    assert_eq!(d.args["tags"], serde_json::json!(["ice sheets", "sea level"]));
    assert_eq!(d.args["cites"], serde_json::json!(["2101.00001"]));
    // The references an export names are its keys.
    let d = route("export bibtex for keys lorenz1963deterministic and hasselmann1976stochastic");
    assert_eq!(d.tool.as_deref(), Some("cite.export"), "{d:?}");
    assert_eq!(d.args["keys"], serde_json::json!(["lorenz1963deterministic", "hasselmann1976stochastic"]));
    // Words that only name a verb are no search: "fix my references" is asked back.
    assert_eq!(route("fix my references").tool, None);
    // A pasted BibTeX entry is never a search of the references.
    let d = route("keep this in my library: @article{x2020, title={T}}");
    assert_ne!(d.tool.as_deref(), Some("cite.search"), "{d:?}");
}

/// A phrase of a write ("sync", "save") that does not ask for it never writes: the
/// rules keep the same guard as the model and the scored cues; the requests still write.
#[test]
fn a_write_named_but_not_asked_for_is_no_write() {
    for q in [
        "since my last sync, which bib files could not be read?",
        "after the latest resync, how many entries does the library hold?",
        "what did I save under the tag glaciology?",
        "before I save anything: which bibliographies are connected?",
    ] {
        let d = route(q);
        assert!(!matches!(d.tool.as_deref(), Some("cite.sync" | "cite.save")), "{q}: {d:?}");
    }
    assert_eq!(route("sync my library from the bib files").tool.as_deref(), Some("cite.sync"));
    assert_eq!(route("save arXiv 2101.00001 to my library").tool.as_deref(), Some("cite.save"));
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
    routing::tuning("kg", &["cite.save", "cite.sync", "cite.export"], |q, given| ROUTER.decide(q, given));
}

/// The committed model (`src/route-model.tsv`) is exactly what training on the
/// training files gives; `ATTEST_BLESS=1` rewrites it.
#[test]
fn the_committed_model_is_retrained_from_the_training_files() {
    let committed = include_str!("../src/route-model.tsv");
    routing::committed_model_is_retrained(
        &ROUTER,
        "kg",
        include_str!("routing_cases.toml"),
        env!("CARGO_MANIFEST_DIR"),
        committed,
    );
}

/// Cross-validation by writer over the training files (`CV` lines for specs/routing.md).
#[test]
fn cross_validation_by_writer() {
    routing::cross_validation_by_writer(&ROUTER, "kg", include_str!("routing_cases.toml"));
}

/// Arguments by tool under cross-validation by writer (`FOLD` lines, the pooled report;
/// `ROUTING_MISSES=<writer,…>|all` prints those writers' argument and route misses).
#[test]
fn arguments_by_writer() {
    routing::arguments_by_writer(&ROUTER, "kg", include_str!("routing_cases.toml"));
}
