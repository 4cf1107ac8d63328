//! Every tool of every surface, answering successfully, answers what its output schema
//! declares: driven through the real `attest serve --surface <name>` over stdio on a
//! scanned example workspace and an ingested feed, each tool is called with arguments
//! built from its own input schema (plausible values by argument name, and values
//! learned from earlier answers, such as an item id or a concept), until it answers
//! `ok: true`; that answer, `data` included, must validate against the tool's output
//! schema. The tools come from the server's own listing (`ATTEST_EXPAND=1`), so a new
//! tool is covered without editing this file; a tool no candidate gets an `ok: true`
//! from fails the test (give `good` a value for its argument).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use attest_testkit::Session;
use common::repo;
use rmcp::model::{CallToolRequestParams, Tool};
use serde_json::{Map, Value, json};

/// A guard against a hang, never a timed assertion.
const HANG: Duration = Duration::from_secs(120);

/// Tools whose arguments cannot be guessed from their names, with arguments that
/// succeed; tried before the guesses.
const EXAMPLES: &[(&str, &str)] = &[
    ("feed.persona_merge", r#"{"from": "bob", "into": "carol", "confirm": true}"#),
    ("cite.save", r#"{"item_id": 3}"#),
    ("cite.related", r#"{"to": "smith2020"}"#),
    ("sym.evaluate", r#"{"expr": "2 + 3"}"#),
    ("sym.limit", r#"{"expr": "sin(x)/x", "var": "x", "to": "0"}"#),
    ("sym.sum", r#"{"expr": "k", "var": "k", "lower": "1", "upper": "10"}"#),
];

/// Tools that cannot answer `ok: true` in a test: what they need, and why it is absent.
const CANNOT: &[(&str, &str)] =
    &[("feed.research", "searches arXiv, PubMed and CrossRef on the web, which tests never reach")];

/// A plausible value for an argument, by its name (and what earlier answers taught).
fn good(tool: &str, surface: &str, name: &str, learned: &BTreeMap<String, Value>) -> Option<Value> {
    let learned_as = match (tool.split('.').next(), name) {
        (Some("kg"), "source") => "concept",
        (Some("kg"), "target") => "other concept",
        (_, "source" | "target") => "",
        _ => name,
    };
    if let Some(v) = learned.get(learned_as) {
        return Some(v.clone());
    }
    Some(match name {
        "question" => json!(match surface {
            "feed" => "what should I read today",
            "provenance" => "which kdalpha arm has the best wer",
            "knowledge" => "what are the most central concepts",
            _ => "simplify x + x",
        }),
        "family" => json!("kdalpha"),
        "project" => json!("asr-distill"),
        "name" => json!("kdalpha_25"),
        "metric" => json!("wer"),
        "path" => json!("paper/draft.md"),
        "query" if tool.starts_with("feed.") => json!("speculative decoding"),
        "query" => json!("distillation"),
        "user" => json!("ana"),
        "interests" => json!("speech recognition, distillation"),
        "limit" => json!(5),
        "days" => json!(3650),
        "expr" => json!("x^2 + 2*x + 1"),
        "equation" => json!("(x+1)^2 = x^2 + 2*x + 1"),
        "lhs" => json!("(x+1)^2"),
        "rhs" => json!("x^2 + 2*x + 1"),
        "var" => json!("x"),
        "lines" => json!(["(x+1)^2", "= x^2 + 2*x + 1"]),
        "operation" => json!("differentiate"),
        "bibtex" => json!("@article{smith2020, title={Distillation for speech}, author={Smith, A.}, year={2020}}"),
        "key" => json!("smith2020"),
        "keys" => json!(["smith2020"]),
        "arms" => json!({ "a": { "wer": 0.1 }, "b": { "wer": 0.2 } }),
        "useful" => json!(true),
        "confirm" => json!(true),
        _ => return None,
    })
}

/// Alternatives tried after the first set fails, for arguments with several meanings.
fn second(name: &str) -> Option<Value> {
    Some(match name {
        "url" => json!(repo().join("tests/fixtures/feeds/bulletin-v1.rss").display().to_string()),
        "operation" => json!("det"),
        "expr" => json!("[[1, 2], [3, 4]]"),
        "name" => json!("ana"),
        "arms" => json!([{ "name": "a", "metrics": { "wer": 0.1 } }, { "name": "b", "metrics": { "wer": 0.2 } }]),
        _ => return None,
    })
}

/// Values worth reusing from an answer: item ids, concept names, run names.
fn learn(data: &Value, learned: &mut BTreeMap<String, Value>) {
    match data {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("item_id" | "id", Value::Number(n)) if n.is_i64() && !learned.contains_key("item_id") => {
                        learned.insert("item_id".into(), v.clone());
                    }
                    ("names", Value::Array(names)) if names.len() >= 2 && !learned.contains_key("concept") => {
                        learned.insert("concept".into(), names[0].clone());
                        learned.insert("other concept".into(), names[names.len() - 1].clone());
                    }
                    _ => {}
                }
                learn(v, learned);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| learn(v, learned)),
        _ => {}
    }
}

fn args_for(
    tool: &Tool,
    surface: &str,
    learned: &BTreeMap<String, Value>,
    alt: bool,
    optional: bool,
) -> Map<String, Value> {
    let (_, props, required) = common::input_schema(tool);
    let mut out = Map::new();
    for name in props.keys() {
        if !optional && !required.contains(name) {
            continue;
        }
        let v = if alt {
            second(name).or_else(|| good(&tool.name, surface, name, learned))
        } else {
            good(&tool.name, surface, name, learned)
        };
        if let Some(v) = v {
            out.insert(name.clone(), v);
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_answers_what_its_output_schema_declares() {
    let root = common::example_workspace();
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join("attest.db");
    let seeds = home.path().join("feeds.toml");
    let feed = repo().join("tests/fixtures/feeds/arxiv-cs.rss");
    std::fs::write(&seeds, format!("[[feeds]]\nurl = {:?}\ntitle = \"cs\"\n", feed.display().to_string())).unwrap();
    let env = [
        ("ATTEST_DB", db.to_str().unwrap()),
        ("RESEARCH_ROOT", root.path().to_str().unwrap()),
        ("ATTEST_EXPAND", "1"),
        ("HOME", home.path().to_str().unwrap()),
    ];
    let cli = |args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_attest"));
        c.args(args).envs(env);
        let o = c.output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    };
    cli(&["ingest", "--feeds", seeds.to_str().unwrap()]);
    cli(&["runs", "scan"]);
    cli(&["feed", "personas", "create", "ana", "speech recognition, distillation, language models"]);
    cli(&["feed", "personas", "create", "bob", "kernels"]);
    cli(&["feed", "personas", "create", "carol", "compilers"]);
    std::fs::write(
        root.path().join("refs.bib"),
        "@article{smith2020, title={Distillation for speech recognition}, author={Smith, A.}, year={2020}}\n",
    )
    .unwrap();
    cli(&["cite", "sync", "--import"]);

    let mut learned = BTreeMap::new();
    let mut problems = Vec::new();
    let mut checked = 0;
    for surface in attest_core::SURFACES {
        let mut cmd = Session::command(env!("CARGO_BIN_EXE_attest"), &env);
        cmd.args(["serve", "--surface", surface.name]);
        let s = Session::spawn(cmd).await;
        let mut tools = s.tools().await;
        // Listing and reading tools first, so what they show can feed the others.
        // (and those that need nothing before those that need something).
        tools.sort_by_key(|t| {
            let read_only = t.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false);
            let needs = t.input_schema.get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
            (!read_only, needs)
        });
        // Two rounds: a tool that needs what a later one makes (a library entry, say)
        // is tried again after every other tool has run.
        let mut pending: Vec<&Tool> = tools.iter().collect();
        for round in 0..2 {
            let mut again = Vec::new();
            for tool in pending {
                let mut tried = Vec::new();
                let mut passed = false;
                let mut last = String::new();
                if let Some((_, why)) = CANNOT.iter().find(|(n, _)| *n == tool.name) {
                    eprintln!("{}: not checked: {why}", tool.name);
                    continue;
                }
                let example = EXAMPLES
                    .iter()
                    .find(|(n, _)| *n == tool.name)
                    .map(|(_, a)| serde_json::from_str::<Map<String, Value>>(a).unwrap());
                let guesses = [(false, false), (false, true), (true, false), (true, true)]
                    .map(|(alt, optional)| args_for(tool, surface.name, &learned, alt, optional));
                for args in example.into_iter().chain(guesses) {
                    if tried.contains(&args) {
                        continue;
                    }
                    tried.push(args.clone());
                    let call =
                        s.client.call_tool(CallToolRequestParams::new(tool.name.to_string()).with_arguments(args));
                    let r = tokio::time::timeout(HANG, call).await.expect("hung").expect("protocol error");
                    let Some(answer) = r.structured_content.clone() else {
                        problems.push(format!("{}: no structured content", tool.name));
                        break;
                    };
                    if answer["ok"] != json!(true) {
                        last = answer["answer"].to_string();
                        continue;
                    }
                    let schema = Value::Object((**tool.output_schema.as_ref().expect("an output schema")).clone());
                    let v = jsonschema::validator_for(&schema).unwrap();
                    for e in v.iter_errors(&answer) {
                        problems.push(format!("{}: {e} at {}", tool.name, e.instance_path));
                    }
                    if answer.get("data").is_none_or(Value::is_null) {
                        // `data` may be absent only when the schema allows it; still noted.
                        eprintln!("{}: ok without data", tool.name);
                    }
                    if std::env::var_os("SHOW_DATA").is_some() {
                        eprintln!(
                            "{}: {}",
                            tool.name,
                            &answer["data"].to_string().chars().take(400).collect::<String>()
                        );
                    }
                    learn(&answer["data"], &mut learned);
                    passed = true;
                    checked += 1;
                    break;
                }
                if !passed && round == 0 {
                    again.push(tool);
                } else if !passed {
                    problems.push(format!("{}: no ok answer from any of {tried:?}; the last said {last}", tool.name));
                }
            }
            pending = again;
        }
        s.close().await;
    }
    eprintln!("{checked} tools answered ok and matched their output schema");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
