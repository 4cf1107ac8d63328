//! The knowledge surface through a real MCP client: the rmcp client spawns the real
//! `attest-knowledge` binary over stdio, on a temporary database into which the
//! committed fixture archive (`tests/fixtures/kg/planted.atom`) was ingested through
//! attest-feed's own parser and store.
//!
//! The fixture plants two clusters and a bridge:
//! {retrieval, reranking, embeddings, question-answering} and
//! {reinforcement-learning, policy-gradient, reward-modeling, exploration}, each a
//! clique read on two items, joined only through tool-use (question-answering –
//! tool-use – reward-modeling, two items each). `reinforcement-learning` is spelled
//! `Reinforcement Learning` on one item and `reinforcementlearning` on the other (an
//! alias merge lifts it over the two-item threshold); `quantum-gravity` is a
//! singleton; one item has no tag at all.

use std::path::{Path, PathBuf};

use attest_feed::{ClickSource, EngagementKind, FeedStore};
use attest_testkit::{Session, validate};
use serde_json::{Value, json};
use tokio::process::Command;

const FIXTURE: &str = include_str!("../../../tests/fixtures/kg/planted.atom");

/// A database holding the planted archive, a reader `alice` who rated the RL items and
/// a bridge item, and read one RL item.
async fn planted(dir: &Path) -> PathBuf {
    let path = dir.join("attest.db");
    let store = attest_store::Store::open(&path).await.unwrap();
    let feed = FeedStore::new(store.clone());
    let parsed = attest_feed::ingest::parse_feed(FIXTURE.as_bytes(), time::OffsetDateTime::now_utc()).unwrap();
    let out = feed.add_items(None, &parsed.items, &attest_feed::model::now_stamp()).await.unwrap();
    assert_eq!(out.added, 9, "{out:?}");
    let ids = out.new_ids;
    let alice = feed.create_reader("alice", "reinforcement learning").await.unwrap();
    for i in [2, 3, 6] {
        feed.record_click(alice.id, ids[i], true, ClickSource::Ui).await.unwrap();
    }
    feed.record_engagement(alice.id, ids[2], EngagementKind::Read).await.unwrap();
    store.close().await;
    path
}

async fn empty_db(dir: &Path) -> PathBuf {
    let path = dir.join("empty.db");
    attest_store::Store::open(&path).await.unwrap().close().await;
    path
}

async fn start(db: &Path, root: Option<&Path>, env: &[(&str, &str)]) -> Session {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_attest-knowledge"));
    cmd.env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("ATTEST_DB", db)
        .env("ATTEST_ZOTERO", "off");
    if let Some(r) = root {
        cmd.env("RESEARCH_ROOT", r);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    Session::spawn(cmd).await
}

/// The whole answer as a reviewer should see it: the structured content with each
/// given directory replaced by its placeholder and timestamps by `[time]`.
fn redacted(v: &Value, dirs: &[(&Path, &str)]) -> Value {
    let dirs: Vec<(String, &str)> = dirs.iter().map(|(d, n)| (d.display().to_string(), *n)).collect();
    let pairs: Vec<(&str, &str)> = dirs.iter().map(|(d, n)| (d.as_str(), *n)).collect();
    attest_testkit::redact_json(v, &pairs)
}

const ALL_TOOLS: &[&str] = &[
    "cite.check",
    "cite.export",
    "cite.lookup",
    "cite.related",
    "cite.save",
    "cite.search",
    "cite.sources",
    "cite.sync",
    "feed.search",
    "kg.ask",
    "kg.central",
    "kg.communities",
    "kg.concepts",
    "kg.neighbors",
    "kg.path",
    "kg.tools",
];

#[tokio::test]
async fn starts_with_only_the_two_entry_tools_and_widens_on_kg_tools() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[]).await;
    assert_eq!(s.names().await, ["kg.ask", "kg.tools"]);
    let (out, text, is_error) = s.call("kg.tools", json!({})).await;
    assert!(!is_error);
    assert_eq!(out["ok"], true);
    insta::assert_json_snapshot!(
        "kg_tools",
        redacted(&json!({"structured": out, "text": text}), &[(dir.path(), "[root]")])
    );
    for _ in 0..50 {
        if s.list_changed() > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(s.list_changed(), 1, "tools/list_changed was not received");
    assert_eq!(s.names().await, ALL_TOOLS);
    s.close().await;
}

#[tokio::test]
async fn expand_never_widens_beyond_the_surface() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;
    let names = s.names().await;
    assert_eq!(names, ALL_TOOLS);
    assert!(!names.iter().any(|n| n == "feed.list" || n.starts_with("runs.") || n.starts_with("sym.")), "{names:?}");
    for (tool, args) in [("feed.list", json!({"user": "alice"})), ("runs.list", json!({})), ("sym.simplify", json!({}))]
    {
        let (out, _, is_error) = s.call(tool, args).await;
        assert!(!is_error);
        assert_eq!(out["ok"], false);
    }
    let (out, _, _) = s.call("kg.ask", json!({"tool": "feed.list", "args": {"user": "alice"}})).await;
    assert_eq!(out["ok"], false, "{out:#}");
    s.close().await;
}

#[tokio::test]
async fn every_tool_declares_annotations_and_an_output_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;
    for t in s.tools().await {
        attest_testkit::standard_formats_only(&t);
        let schema = t.output_schema.as_ref().unwrap_or_else(|| panic!("{} has no outputSchema", t.name));
        assert_eq!(schema.get("type"), Some(&json!("object")), "{}", t.name);
        let a = t.annotations.as_ref().unwrap_or_else(|| panic!("{} has no annotations", t.name));
        assert!(a.read_only_hint.is_some(), "{} lacks readOnlyHint", t.name);
        let first = t.description.as_deref().unwrap_or("").lines().next().unwrap_or("").to_string();
        assert!(first.ends_with('.') || first.ends_with('?'), "{}: {first}", t.name);
    }
    s.close().await;
}

fn names_of(rows: &Value, key: &str) -> Vec<String> {
    rows.as_array().unwrap().iter().map(|r| r[key].as_str().unwrap().to_string()).collect()
}

/// Every graph tool's answer on the planted archive, asserted.
#[tokio::test]
async fn planted_structure_is_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;

    let n = s.ok("kg.neighbors", json!({"concept": "Question Answering"})).await;
    assert_eq!(names_of(&n["data"]["rows"], "name"), ["embeddings", "reranking", "retrieval", "tool-use"], "{n:#}");
    assert_eq!(n["data"]["concept"]["name"], "question-answering");
    assert!(n["refs"][0]["url"].as_str().unwrap().starts_with("https://example.org/papers/"), "{n:#}");
    insta::assert_json_snapshot!("neighbors_question_answering", redacted(&n, &[(dir.path(), "[root]")]));

    // The known shortest path, with loosely spelled ends and the items behind each hop.
    let p = s.ok("kg.path", json!({"source": "Retrieval", "target": "reinforcement learning"})).await;
    assert_eq!(
        p["data"]["nodes"],
        json!(["retrieval", "question-answering", "tool-use", "reward-modeling", "reinforcement-learning"]),
        "{p:#}"
    );
    let hops = p["data"]["hops"].as_array().unwrap();
    assert_eq!(hops.len(), 4);
    assert_eq!(hops[1]["from"], "question-answering");
    assert_eq!(hops[1]["to"], "tool-use");
    let bridge: Vec<&str> = hops[1]["items"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(bridge, ["Question answering agents that call tools", "Tool use for multi-hop question answering"]);
    insta::assert_json_snapshot!("path_retrieval_to_rl", redacted(&p, &[(dir.path(), "[root]")]));
    assert!(p["refs"].as_array().unwrap().iter().all(|r| r["id"].as_str().unwrap().starts_with("item:")));
    // A fuzzy spelling is used and said so.
    let f = s.ok("kg.path", json!({"source": "reward modelling", "target": "retrievel"})).await;
    assert_eq!(f["data"]["nodes"].as_array().unwrap().len(), 4, "{f:#}");
    insta::assert_json_snapshot!("path_fuzzy_spelling", redacted(&f, &[(dir.path(), "[root]")]));

    let d = s.ok("kg.central", json!({})).await;
    assert_eq!(d["data"]["rows"][0]["name"], "question-answering", "{d:#}");
    assert_eq!(d["data"]["rows"][0]["score"], 4.0);
    let b = s.ok("kg.central", json!({"metric": "betweenness", "limit": 3})).await;
    assert_eq!(names_of(&b["data"]["rows"], "name"), ["tool-use", "question-answering", "reward-modeling"], "{b:#}");
    assert_eq!(b["data"]["rows"][0]["score"], 16.0);
    let r = s.ok("kg.central", json!({"metric": "most_read", "limit": 2})).await;
    // reward-modeling is on the three rated items, one of them also read: 4.
    assert_eq!(r["data"]["rows"][0]["name"], "reward-modeling", "{r:#}");
    assert_eq!(r["data"]["rows"][0]["score"], 4.0);

    let c = s.ok("kg.communities", json!({})).await;
    let rows = c["data"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{c:#}");
    let labels: std::collections::BTreeSet<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["question-answering", "reward-modeling"].into_iter().collect());
    for r in rows {
        let members: Vec<&str> = r["members"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        let rl = members.contains(&"reinforcement-learning");
        assert_eq!(rl, members.contains(&"policy-gradient"), "{c:#}");
        assert_ne!(rl, members.contains(&"retrieval"), "the planted clusters are split: {c:#}");
    }
    assert!(c["data"]["modularity"].as_f64().unwrap() > 0.3, "{c:#}");

    let k = s.ok("kg.concepts", json!({"prefix": "re"})).await;
    assert_eq!(
        k["data"]["names"],
        json!(["reinforcement-learning", "reranking", "retrieval", "reward-modeling"]),
        "{k:#}"
    );
    let z = s.ok("kg.concepts", json!({"prefix": "reinforcement lerning"})).await;
    assert_eq!(z["data"]["fuzzy"], true, "{z:#}");
    assert_eq!(z["data"]["names"][0], "reinforcement-learning");

    // kg.ask routes and resolves concept names itself.
    let a = s.ok("kg.ask", json!({"question": "How does retrieval connect to reinforcement learning?"})).await;
    assert_eq!(a["tool_used"], "kg.path", "{a:#}");
    assert_eq!(a["data"]["nodes"][2], "tool-use");
    let a = s.ok("kg.ask", json!({"question": "what are my main research areas?"})).await;
    assert_eq!(a["tool_used"], "kg.communities", "{a:#}");
    let a = s.ok("kg.ask", json!({"question": "what did I read about reward models?"})).await;
    assert_eq!(a["tool_used"], "feed.search", "{a:#}");
    assert_eq!(a["data"]["user"], "alice", "the only reader is used: {a:#}");
    let a = s.ok("kg.ask", json!({"question": "x", "tool": "kg.neighbors", "args": {"concept": "tool use"}})).await;
    assert_eq!(names_of(&a["data"]["rows"], "name"), ["question-answering", "reward-modeling"]);
    s.close().await;
}

/// `kg.ask` is the one ask pipeline: a routed question is the direct call it routes to,
/// `user` passes through to feed.search, and ranges live in the input schema.
#[tokio::test]
async fn ask_calls_the_routed_tool_by_name_and_ranges_are_in_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;
    let routed = s.ok("kg.ask", json!({"question": "what is related to tool use?"})).await;
    let direct = s.ok("kg.neighbors", json!({"source": "tool use"})).await;
    assert_eq!(routed["tool_used"], "kg.neighbors", "{routed:#}");
    assert_eq!(routed["data"], direct["data"]);
    let a = s.ok("kg.ask", json!({"question": "what did I read about reward models?", "user": "alice"})).await;
    assert_eq!((&a["tool_used"], &a["data"]["user"]), (&json!("feed.search"), &json!("alice")), "{a:#}");
    let schemas: std::collections::HashMap<String, Value> =
        s.tools().await.into_iter().map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone()))).collect();
    for (tool, arg, range) in [
        ("kg.neighbors", "limit", [1, 25, 10]),
        ("kg.central", "limit", [1, 25, 10]),
        ("kg.communities", "min_size", [1, 50, 3]),
        ("kg.communities", "limit", [1, 20, 8]),
        ("kg.concepts", "limit", [1, 50, 20]),
    ] {
        let p = &schemas[tool]["properties"][arg];
        assert_eq!(
            [&p["minimum"], &p["maximum"], &p["default"]],
            range.map(|v| json!(v)).each_ref(),
            "{tool} {arg}: {p}"
        );
    }
    let (out, _, _) = s.call("kg.neighbors", json!({"concept": "retrieval", "limit": 0})).await;
    assert_eq!(out["ok"], false);
    insta::assert_json_snapshot!("neighbors_limit_0", redacted(&out, &[(dir.path(), "[root]")]));
    s.close().await;
}

/// The graph is derived on every call: items tagged by `attest tag` while the server
/// runs show up in the next answer.
#[tokio::test]
async fn answers_follow_the_archive_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;
    let before = s.ok("kg.concepts", json!({})).await;
    assert_eq!(before["data"]["total"], 9, "{before:#}");
    let store = attest_store::Store::open(&db).await.unwrap();
    let feed = FeedStore::new(store.clone());
    // The fixture was stored without ingest's keyphrase step, so every item is a
    // candidate; the one item without feed tags gets tags for the first time.
    let r = attest_feed::tagging::tag_with_keyphrases(&feed, 5).await.unwrap();
    assert_eq!(r.candidates, r.tagged, "every item has usable words: {r:?}");
    assert!(r.tagged > 1 && r.tags_written >= r.tagged, "{r:?}");
    let again = attest_feed::tagging::tag_with_keyphrases(&feed, 5).await.unwrap();
    assert_eq!((again.candidates, again.tags_written), (0, 0), "tagging is idempotent: {again:?}");
    store.close().await;
    let after = s.ok("kg.neighbors", json!({"concept": "retrieval"})).await;
    insta::assert_json_snapshot!("neighbors_after_tagging", redacted(&after, &[(dir.path(), "[root]")]));
    s.close().await;
}

/// Good and bad calls on every tool; each result validates against the tool's own
/// output schema and no routine failure is an MCP error.
#[tokio::test]
async fn every_result_validates_and_bad_input_is_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let db = planted(dir.path()).await;
    let root = dir.path().join("research");
    std::fs::create_dir_all(root.join("paper")).unwrap();
    // A 10 MB BibTeX file with a tenth of its entries broken.
    let mut bib = String::with_capacity(10_600_000);
    let pad = "x".repeat(900);
    let mut n = 0;
    while bib.len() < 10 * 1024 * 1024 {
        if n % 10 == 7 {
            bib.push_str(&format!("@article{{broken{n}, title={{Never closed {pad}\n"));
        } else {
            bib.push_str(&format!(
                "@article{{key{n}, title={{Work number {n}}}, author={{Doe, Jane and Roe, Rick}}, year={{2020}}, abstract={{{pad}}}}}\n"
            ));
        }
        n += 1;
    }
    bib.push_str("@inproceedings{vaswani2017attention, title={Attention Is All You Need}, author={Vaswani, Ashish}, year={2017}}\n");
    std::fs::write(root.join("big.bib"), &bib).unwrap();
    std::fs::write(
        root.join("paper/draft.md"),
        "WER 0.07 <!-- claim: p/r metric=wer value=0.07 cite=vaswani2017attention -->\n\
         and 0.1 <!-- claim: p/r metric=wer value=0.1 cite=ghost2031 -->\n<!-- claim: p/r value=2 cite=key3\n",
    )
    .unwrap();
    let s = start(&db, Some(&root), &[("ATTEST_EXPAND", "1")]).await;
    let schemas: std::collections::HashMap<String, Value> = s
        .tools()
        .await
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
        .collect();
    let calls: Vec<(&str, Value, Option<bool>)> = vec![
        ("kg.neighbors", json!({"concept": "retrieval"}), Some(true)),
        ("kg.neighbors", json!({"concept": "astrophysics of black holes"}), Some(false)),
        ("kg.neighbors", json!({"concept": ""}), Some(false)),
        ("kg.neighbors", json!({"concept": "retrieval", "limit": 0}), Some(false)),
        ("kg.neighbors", json!({"concept": "retrieval", "limit": 10_000}), Some(false)),
        ("kg.neighbors", json!({}), Some(false)),
        ("kg.neighbors", json!({"concept": 7}), Some(false)),
        ("kg.path", json!({"source": "retrieval", "target": "exploration"}), Some(true)),
        ("kg.path", json!({"source": "retrieval", "target": "Retrieval"}), Some(false)),
        ("kg.path", json!({"source": "retrieval", "target": "retrievals"}), Some(false)),
        ("kg.path", json!({"source": "retrieval", "target": "zzzz qqqq"}), Some(false)),
        ("kg.path", json!({"source": "retrieval"}), Some(false)),
        ("kg.path", json!({"source": "", "target": ""}), Some(false)),
        ("kg.path", json!({"source": "x".repeat(100_000), "target": "retrieval"}), Some(false)),
        ("kg.central", json!({"metric": "pagerank"}), Some(false)),
        ("kg.central", json!({"limit": -3}), Some(false)),
        ("kg.central", json!({"metric": "betweenness"}), Some(true)),
        ("kg.communities", json!({"min_size": 40}), Some(false)),
        ("kg.communities", json!({"min_size": 0}), Some(false)),
        ("kg.communities", json!({"limit": 2}), Some(true)),
        ("kg.concepts", json!({}), Some(true)),
        ("kg.concepts", json!({"prefix": "zzzzzz"}), Some(false)),
        ("kg.concepts", json!({"limit": 51}), Some(false)),
        ("kg.ask", json!({"question": ""}), Some(false)),
        ("kg.ask", json!({"question": "which arm of my sweep won?"}), Some(false)),
        ("kg.ask", json!({"question": "how do retrieval and retrieval connect?"}), Some(false)),
        ("kg.ask", json!({"question": "how does quantum chromodynamics relate to knitting?"}), Some(false)),
        ("kg.ask", json!({"question": "what did I read about rewards?", "user": "bob"}), None),
        ("kg.ask", json!({"tool": "kg.path", "args": "nope"}), Some(false)),
        ("kg.ask", json!({"question": 12}), Some(false)),
        ("feed.search", json!({"user": "alice", "query": "reward"}), Some(true)),
        ("feed.search", json!({"user": "alice"}), Some(false)),
        ("feed.search", json!({"user": "alice", "query": "reward", "limit": 99}), Some(false)),
        ("cite.lookup", json!({"key": "vaswani2017attention"}), Some(true)),
        ("cite.lookup", json!({"key": "broken7"}), Some(false)),
        ("cite.lookup", json!({"key": ""}), Some(false)),
        ("cite.search", json!({"query": "attention vaswani"}), Some(true)),
        ("cite.search", json!({"query": "attention", "limit": 0}), Some(false)),
        ("cite.sources", json!({}), Some(true)),
        ("cite.check", json!({"path": "paper/draft.md"}), Some(true)),
        ("cite.check", json!({"path": "/etc"}), Some(false)),
        ("cite.check", json!({"path": "../"}), Some(false)),
        ("cite.check", json!({"path": "paper/missing.md"}), Some(false)),
        // The reference library: empty, bad input, then saved, searched, related, exported.
        ("cite.export", json!({}), Some(false)),
        ("cite.related", json!({"to": "retrieval"}), Some(false)),
        ("cite.save", json!({}), Some(false)),
        ("cite.save", json!({"item_id": 999_999}), Some(false)),
        ("cite.save", json!({"bibtex": "@misc{half, title={never closed"}), Some(false)),
        ("cite.save", json!({"key": "vaswani2017attention"}), Some(true)),
        ("cite.save", json!({"item_id": 1}), Some(true)),
        ("cite.save", json!({"key": "vaswani2017attention"}), Some(true)),
        ("cite.search", json!({"author": "vaswani", "year": "2017"}), Some(true)),
        ("cite.search", json!({"year": "soon"}), Some(false)),
        ("cite.related", json!({"item_id": 1}), None),
        ("cite.related", json!({"to": "zzzz qqqq"}), Some(false)),
        ("cite.export", json!({}), Some(true)),
        ("cite.sync", json!({}), Some(true)),
        ("kg.tools", json!({}), Some(true)),
    ];
    for (tool, args, expect_ok) in calls {
        let (out, text, is_error) = s.call(tool, args.clone()).await;
        let what = format!("{tool} {}", serde_json::to_string(&args).unwrap().chars().take(200).collect::<String>());
        assert!(!is_error, "{what}: routine outcome reported as an MCP error: {text}");
        validate(&schemas[tool], &out, &what);
        assert!(serde_json::to_string(&out).unwrap().chars().count() <= 7_000, "{what}: over budget");
        if let Some(want) = expect_ok {
            assert_eq!(out["ok"], want, "{what}: {out:#}");
        }
        if out["ok"] == false {
            assert!(out["answer"].as_str().unwrap().len() > 20, "{what}: refusal too terse: {out:#}");
        }
    }
    // The 10 MB file loaded its good entries and counted the broken ones.
    let (src, _, _) = s.call("cite.sources", json!({})).await;
    let bibrow = &src["data"]["sources"][0];
    assert!(bibrow["records"].as_u64().unwrap() > 9_000, "{src:#}");
    assert!(bibrow["n_problems"].as_u64().unwrap() > 900, "{src:#}");
    // cite.check flags the unknown key with file:line, and the unclosed claim.
    let (chk, _, _) = s.call("cite.check", json!({"path": "paper"})).await;
    assert_eq!(chk["data"]["n_uncited"], 1, "{chk:#}");
    assert_eq!(chk["data"]["uncited"][0]["key"], "ghost2031");
    assert_eq!(chk["refs"][0]["id"], "paper/draft.md:2");
    assert_eq!(chk["data"]["malformed"].as_array().unwrap().len(), 1, "{chk:#}");
    // Still answering after all that.
    s.ok("kg.central", json!({})).await;
    s.close().await;
}

#[tokio::test]
async fn an_empty_archive_is_an_actionable_refusal_on_every_graph_tool() {
    let dir = tempfile::tempdir().unwrap();
    let db = empty_db(dir.path()).await;
    let s = start(&db, None, &[("ATTEST_EXPAND", "1")]).await;
    let schemas: std::collections::HashMap<String, Value> = s
        .tools()
        .await
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.output_schema.unwrap()).clone())))
        .collect();
    let mut refusals = Vec::new();
    for (tool, args) in [
        ("kg.neighbors", json!({"concept": "retrieval"})),
        ("kg.path", json!({"source": "a", "target": "b"})),
        ("kg.central", json!({})),
        ("kg.communities", json!({})),
        ("kg.concepts", json!({})),
        ("kg.ask", json!({"question": "what are my main research areas?"})),
    ] {
        let (out, text, is_error) = s.call(tool, args.clone()).await;
        assert!(!is_error, "{tool}: {text}");
        validate(&schemas[tool], &out, tool);
        assert_eq!(out["ok"], false, "{tool}: {out:#}");
        refusals.push(json!({"call": tool, "args": args, "answer": out}));
    }
    let (out, _, _) = s.call("kg.ask", json!({"question": "what did I read about retrieval?"})).await;
    assert_eq!(out["ok"], false);
    insta::assert_json_snapshot!("empty_ask_reading_no_reader", redacted(&out, &[(dir.path(), "[root]")]));
    let (out, _, _) = s.call("cite.check", json!({"path": "draft.md"})).await;
    assert_eq!(out["ok"], false);
    insta::assert_json_snapshot!("empty_cite_check_no_root", redacted(&out, &[(dir.path(), "[root]")]));
    insta::assert_json_snapshot!("empty_graph_refusals", redacted(&json!(refusals), &[(dir.path(), "[root]")]));
    s.close().await;
}
