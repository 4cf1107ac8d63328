//! A router's case table (TOML `[[case]] q = "…", tool = "…", args = {…}, options =
//! […]`; no `tool` means the question must be asked back) checked against the router:
//! each case's tool and exact arguments, at least two options and a question back on
//! every decline, the same decision every time, and no catch-all; and
//! [`never_panics`], a property test of any router over hostile Unicode.

use std::panic::AssertUnwindSafe;

use attest_core::Decision;
use attest_core::ask::Route;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRng, TestRunner};
use serde::Deserialize;
use serde_json::{Map, Value};

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

/// One routing case.
#[derive(Debug, Clone, Deserialize)]
pub struct Case {
    /// The question.
    pub q: String,
    /// The tool it must reach; `None`: it must be asked back.
    #[serde(default)]
    pub tool: Option<String>,
    /// The exact arguments the router must extract.
    #[serde(default)]
    pub args: Map<String, Value>,
    /// Options a decline must include.
    #[serde(default)]
    pub options: Vec<String>,
    /// The ask's other arguments the router reads (sym's `expr`).
    #[serde(default)]
    pub given: Map<String, Value>,
}

/// Parse a case table.
pub fn cases(toml_text: &str) -> Vec<Case> {
    toml::from_str::<Cases>(toml_text).expect("the routing case table parses").case
}

/// Check every case of a surface's table against its router (the one runner every
/// router's `tests/routing.rs` uses): at least `min` cases, every tool of the router's
/// rules reached by some case, each case's tool, exact arguments and offered options,
/// a question back on every decline, determinism. Every failing case is listed in one
/// panic. Returns each case's decision, for an insta snapshot of the whole table.
pub fn run(cases: &[Case], min: usize, router: &dyn Route) -> Vec<Decided> {
    for tool in router.tools() {
        assert!(cases.iter().any(|c| c.tool.as_deref() == Some(tool)), "no case reaches {tool}");
    }
    check_given(cases, min, |c| router.route(&c.q, &c.given));
    cases
        .iter()
        .map(|c| Decided { q: c.q.clone(), given: c.given.clone(), decision: router.route(&c.q, &c.given) })
        .collect()
}

/// One case's decision, as snapshotted.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Decided {
    /// The question.
    pub q: String,
    /// The other arguments, when there were any.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub given: Map<String, Value>,
    /// What the router decided.
    pub decision: Decision,
}

/// Check every case against `route`, and that there are at least `min` of them;
/// every failing case is listed in one panic.
pub fn check(cases: &[Case], min: usize, route: impl Fn(&str) -> Decision) {
    check_given(cases, min, |c| route(&c.q))
}

fn check_given(cases: &[Case], min: usize, route: impl Fn(&Case) -> Decision) {
    assert!(cases.len() >= min, "only {} cases, want at least {min}", cases.len());
    let mut failures = Vec::new();
    for c in cases {
        let d = route(c);
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
        if d != route(c) {
            problems.push("a second call decided differently".into());
        }
        if !problems.is_empty() {
            failures.push(format!("{:?}: {}", c.q, problems.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// Questions no rule should claim (plus `extra`): each must be asked back with at least
/// two options, never routed.
pub fn no_catch_all(extra: &[&str], route: impl Fn(&str) -> Decision) {
    for q in ["", "?", "ok", "lol", "my cat", "xyzzy plugh", "12345"].iter().chain(extra) {
        let d = route(q);
        assert!(d.tool.is_none(), "{q:?} was routed to {:?}", d.tool);
        assert!(d.options.len() >= 2, "{q:?} offers {:?}", d.options);
    }
}

/// Pieces the generated questions are built from: the routers' own trigger words, and
/// the text that breaks byte arithmetic (curly quotes, combining marks, right-to-left
/// text and marks, emoji with zero-width joiners, NUL and control characters, CJK, and
/// letters whose lower case has another byte length: `İ`, the Kelvin sign, `Ⱥ`).
const PIECES: &[&str] = &[
    "search for",
    "how does",
    "relate to",
    "next to",
    "simplify",
    "item 12",
    "http://x.y/z",
    "=",
    "d/dx",
    "the",
    "my draft",
    "papers on",
    "and",
    "x^2",
    "\u{2018}",
    "\u{2019}",
    "\u{201c}",
    "\u{201d}",
    "\u{301}",
    "\u{308}",
    "e\u{301}",
    "o\u{308}",
    "G\u{f6}del",
    "\u{5e9}\u{5dc}\u{5d5}\u{5dd}",
    "\u{645}\u{631}\u{62d}\u{628}\u{627}",
    "\u{200f}",
    "\u{200e}",
    "\u{1f600}",
    "\u{1f469}\u{200d}\u{1f4bb}",
    "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}",
    "\u{1f3f3}\u{fe0f}\u{200d}\u{1f308}",
    "\0",
    "\u{7}",
    "\u{1b}",
    "\t",
    "\n",
    "\r",
    "\u{7f}",
    "\u{85}",
    "\u{6ce8}\u{610f}\u{529b}",
    "\u{30c8}\u{30e9}\u{30f3}\u{30b9}\u{30d5}\u{30a9}\u{30fc}\u{30de}\u{30fc}",
    "\u{130}",
    "\u{212a}",
    "\u{23a}",
    "\u{df}",
    "\u{3a3}",
    "\u{fb03}",
    " ",
    "?",
    ".",
    ",",
    ":",
    "'",
    "\"",
];

/// Strings mixing arbitrary Unicode with [`PIECES`] in random order.
fn questions() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => prop::sample::select(PIECES).prop_map(str::to_string),
        2 => any::<String>(),
        1 => any::<char>().prop_map(String::from),
        1 => prop::char::range('\u{590}', '\u{6ff}').prop_map(String::from),
        1 => prop::char::range('\u{4e00}', '\u{9fff}').prop_map(String::from),
    ];
    let sep = prop::sample::select(&["", "", " ", " ", "  ", "\u{a0}"][..]);
    prop::collection::vec((piece, sep), 0..12)
        .prop_map(|parts| parts.into_iter().map(|(p, s)| format!("{p}{s}")).collect())
}

/// `route` on 2,000 generated questions (deterministic): it must return for every one,
/// and every decline must say something. The first failure is shrunk and shown.
pub fn never_panics(route: impl Fn(&str) -> Decision) {
    let config = Config { cases: 2_000, failure_persistence: None, ..Config::default() };
    let rng = TestRng::deterministic_rng(config.rng_algorithm);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let result = runner.run(&questions(), |q| {
        let d = std::panic::catch_unwind(AssertUnwindSafe(|| route(&q))).map_err(|e| {
            let msg = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            TestCaseError::fail(format!("route panicked: {msg}"))
        })?;
        prop_assert!(d.tool.is_some() || !d.answer.trim().is_empty(), "a decline with no answer: {d:?}");
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The labelled tuning questions of one surface (`tests/routing/tuning/<surface>.jsonl`
/// at the workspace root, or the file named by `ROUTING_FILE`), scored against
/// `route`: the report of `attest_core::routing_eval`, printed (with every miss when
/// `ROUTING_MISSES` is set). Only the tuning set is read here, never the held-out one.
///
/// Asserts the one thing that holds whatever the accuracy: a tool that writes is never
/// the result of a question labelled with another tool or with a question back.
pub fn tuning(
    surface: &str,
    writes: &[&str],
    route: impl Fn(&str, &Map<String, Value>) -> Decision,
) -> attest_core::routing_eval::Report {
    use attest_core::routing_eval;
    let path = std::env::var("ROUTING_FILE")
        .unwrap_or_else(|_| format!("{}/../../tests/routing/tuning/{surface}.jsonl", env!("CARGO_MANIFEST_DIR")));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let (cases, given): (Vec<_>, Vec<_>) = routing_eval::parse_given(&text)
        .expect("the tuning file parses")
        .into_iter()
        .filter(|(c, _)| c.s == surface)
        .unzip();
    let report = routing_eval::score_given(&cases, &given, |_, q, given| route(q, given));
    eprint!("{}", routing_eval::render(&report));
    if std::env::var_os("ROUTING_MISSES").is_some() {
        for m in &report.misses {
            eprintln!("MISS {:8} {:?} -> {:?} (want {:?}) {:?}", m.kind, m.q, m.got, m.expected, m.args);
        }
    }
    let bad: Vec<_> = report
        .misses
        .iter()
        .filter(|m| m.kind == "wrong" && m.got.as_deref().is_some_and(|g| writes.contains(&g)))
        .map(|m| format!("{:?} -> {:?}", m.q, m.got))
        .collect();
    assert!(bad.is_empty(), "a write chosen for a question that did not ask for it:\n{}", bad.join("\n"));
    report
}

/// The training questions of the surface `ns` (feed, runs, kg, sym) for its learned
/// model: `tests/routing/tuning/` and every writer's `tests/routing/train/<writer>/`
/// (never `holdout/`), writer by writer, then the surface's case table (trained on but
/// never a fold of the cross-validation; a decline whose first option is another
/// surface's tool is that tool's question).
pub fn training(ns: &str, cases_toml: &str) -> Vec<attest_core::learn::Source> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/routing");
    let listed = |dir: &str| -> Vec<std::path::PathBuf> {
        let mut v: Vec<_> =
            std::fs::read_dir(format!("{root}/{dir}")).into_iter().flatten().flatten().map(|e| e.path()).collect();
        v.sort();
        v
    };
    let mut dirs = vec!["tuning".to_string()];
    dirs.extend(
        listed("train")
            .into_iter()
            .filter(|p| p.is_dir())
            .map(|p| format!("train/{}", p.file_name().unwrap_or_default().to_string_lossy())),
    );
    let mut files = Vec::new();
    for dir in dirs {
        for p in listed(&dir).into_iter().filter(|p| p.extension().is_some_and(|x| x == "jsonl")) {
            let name = format!("{dir}/{}", p.file_name().unwrap_or_default().to_string_lossy());
            files.push((name, std::fs::read_to_string(&p).expect("a training file reads")));
        }
    }
    let mut sources = attest_core::learn::sources(&files).expect("the training files parse");
    let surface = attest_core::surface::Surface::find(ns).expect("a surface");
    let (mut lines, mut given) = (Vec::new(), Vec::new());
    for c in cases(cases_toml) {
        let t = c.tool.clone().or_else(|| c.options.first().filter(|o| !surface.allows(o)).cloned());
        lines.push(attest_core::routing_eval::Labelled { s: ns.into(), q: c.q, t, args: c.args });
        given.push(c.given);
    }
    sources.push(attest_core::learn::Source { name: format!("cases/{ns}"), lines, given, fold: false });
    sources
}

/// The committed model (`<crate_dir>/src/route-model.tsv`, whose text is `committed`) is
/// exactly what training on [`training`] gives; `ATTEST_BLESS=1` rewrites it.
pub fn committed_model_is_retrained<F: attest_core::ask::Facts>(
    router: &attest_core::ask::Router<F>,
    ns: &str,
    cases_toml: &str,
    crate_dir: &str,
    committed: &str,
) {
    let text = router.model_text(&training(ns, cases_toml));
    let path = format!("{crate_dir}/src/route-model.tsv");
    if std::env::var_os("ATTEST_BLESS").is_some() {
        std::fs::write(&path, &text).expect("the model writes");
        return;
    }
    assert!(attest_core::learn::Model::parse(committed).is_ok(), "the committed model does not parse");
    assert!(
        committed == text,
        "{path} is not what the training files give: rerun this crate's routing test with ATTEST_BLESS=1"
    );
}

/// Cross-validation by writer over [`training`]: every policy's tally is printed (`CV`
/// lines, for `specs/routing.md`), and the chosen policy does no worse than the rules
/// alone. `ROUTING_CV_TRAINING="epochs,rate,l2,other"` tries other training settings.
pub fn cross_validation_by_writer<F: attest_core::ask::Facts>(
    router: &attest_core::ask::Router<F>,
    ns: &str,
    cases_toml: &str,
) {
    use attest_core::learn::{Policy, Training, grid};
    let mut t = Training::DEFAULT;
    if let Ok(v) = std::env::var("ROUTING_CV_TRAINING") {
        let v: Vec<f64> = v.split(',').map(|x| x.parse().expect("a number")).collect();
        (t.epochs, t.rate, t.l2, t.other) = (v[0] as usize, v[1], v[2], v[3]);
    }
    let table = router.cross_validate(&training(ns, cases_toml), &grid(), &t);
    for (p, t) in &table {
        eprintln!(
            "CV\t{ns}\t{:?}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            p.combine, p.min, p.margin, p.beside, t.right, t.wrong, t.declined, t.turns, t.args_right, t.args_total
        );
    }
    let of = |want: &Policy| table.iter().find(|(p, _)| p == want).map(|(_, t)| *t).expect("in the grid");
    let (chosen, rules) = (of(&Policy::CHOSEN), of(&Policy::RULES));
    assert!(chosen.right >= rules.right, "chosen {chosen:?}, rules alone {rules:?}");
}

/// Cross-validation by writer under the chosen policy, with arguments by tool: each
/// fold's questions decided by a model trained on the other writers, scored as
/// `attest eval routing` scores (right routes only carry arguments). Prints one `FOLD`
/// line per writer, the pooled report with its per-tool argument counts, and, with
/// `ROUTING_MISSES` set to a comma-separated list of writers (or `all`), those
/// writers' argument misses as `ARGS` lines and their wrong and declined routes as
/// `ROUTE` lines. Returns the pooled report.
pub fn arguments_by_writer<F: attest_core::ask::Facts>(
    router: &attest_core::ask::Router<F>,
    ns: &str,
    cases_toml: &str,
) -> attest_core::routing_eval::Report {
    use attest_core::learn::{Policy, Training};
    use attest_core::routing_eval::{Report, render};
    let folds = router.cross_validate_report(&training(ns, cases_toml), &Policy::CHOSEN, &Training::DEFAULT);
    let show = std::env::var("ROUTING_MISSES").unwrap_or_default();
    let mut pooled = Report::default();
    for (name, r) in &folds {
        let t = r.overall;
        eprintln!(
            "FOLD\t{ns}\t{name}\tright {}/{}\twrong {}\targs {}/{}",
            t.right, t.turns, t.wrong, t.args_right, t.args_total
        );
        if show == "all" || show.split(',').any(|w| w == name) {
            for m in &r.misses {
                if m.kind == "args" {
                    eprintln!("ARGS\t{name}\t{:?}\t{:?}\tgot {}", m.q, m.expected, Value::Object(m.args.clone()));
                } else {
                    eprintln!("ROUTE\t{name}\t{}\t{:?}\t{:?}\tgot {:?}", m.kind, m.q, m.expected, m.got);
                }
            }
        }
        pooled.add(r);
    }
    let mut summary = pooled.clone();
    summary.misses.clear();
    eprint!("{}", render(&summary));
    pooled
}
