//! The resolver over a Zotero library and BibTeX files: order, lookup, search, sources,
//! the uncited lint and the tools. Answers are checked by snapshots of the whole
//! `Answer` (the temporary directory written `[root]`), messages by snapshots of the
//! whole message.

mod common;

use std::sync::Arc;

use attest_cite::tools::{self, check_answer};
use attest_cite::{Resolver, ResolverConfig, Source, uncited};
use attest_core::{Answer, Catalogue};
use serde_json::{Value, json};

/// The whole answer as JSON, with the temporary directory replaced.
fn whole<T: serde::Serialize>(a: &Answer<T>, dir: &std::path::Path) -> Value {
    let text = serde_json::to_string(a).unwrap().replace(&dir.display().to_string(), "[root]");
    serde_json::from_str(&text).unwrap()
}

async fn resolver(dir: &std::path::Path) -> Resolver {
    let db = dir.join("zotero.sqlite");
    common::make_zotero(&db).await;
    let refs = dir.join("refs");
    std::fs::create_dir_all(refs.join(".hidden")).unwrap();
    std::fs::copy(common::fixture_bib(), refs.join("main.bib")).unwrap();
    // A second file that also has hinton2015distilling: Zotero comes first, so it wins.
    std::fs::write(
        refs.join("extra.bib"),
        "@misc{hinton2015distilling, title={Shadowed}, year=1999}\n@misc{extra1, title={Only Here}}\n",
    )
    .unwrap();
    std::fs::write(refs.join(".hidden/skip.bib"), "@misc{hidden1, title={Hidden}}\n").unwrap();
    let config = ResolverConfig {
        bib_paths: vec![refs, dir.join("missing.bib")],
        zotero: Some(db),
        find_zotero: false,
        base: Some(dir.to_path_buf()),
        ..ResolverConfig::default()
    };
    Resolver::build(&config).await
}

#[tokio::test]
async fn lookup_by_key_doi_or_arxiv_in_any_case_first_source_wins() {
    let dir = tempfile::tempdir().unwrap();
    let r = resolver(dir.path()).await;
    let h = r.lookup("HINTON2015DISTILLING").unwrap();
    assert_eq!(h.source, Source::Zotero);
    assert_eq!(h.title, "Distilling the Knowledge in a Neural Network");
    assert_eq!(r.lookup("https://doi.org/10.48550/arxiv.1503.02531").unwrap().key, "hinton2015distilling");
    assert_eq!(r.lookup("arXiv:2106.09685").unwrap().key, "hu2021lora");
    assert_eq!(r.lookup("1706.03762").unwrap().key, "Vaswani2017Attention");
    assert_eq!(r.lookup("10.18653/V1/N19-1423").unwrap().key, "devlin2019bert");
    assert_eq!(r.lookup("extra1").unwrap().origin, "refs/extra.bib");
    assert!(r.lookup("hidden1").is_none(), "hidden folders are not searched");
    assert!(r.lookup("nosuchkey").is_none());
    assert!(r.lookup("  ").is_none());
    assert!(r.resolves("knuth1984") && !r.resolves("knuth1985"));
}

#[tokio::test]
async fn sources_list_every_reader_in_order_with_problems() {
    let dir = tempfile::tempdir().unwrap();
    let r = resolver(dir.path()).await;
    let s = r.sources();
    let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["zotero.sqlite", "refs/extra.bib", "refs/main.bib", "missing.bib"]);
    assert!(s.iter().all(|s| !s.network));
    assert_eq!(s[0].records, 3);
    assert_eq!(s[2].records, 8);
    assert_eq!(s[2].problems.len(), 4, "{:?}", s[2].problems);
    insta::assert_json_snapshot!("main_bib_problems", s[2].problems);
    assert_eq!(s[3].problems, ["no such file or directory"]);
    assert_eq!(r.source_names(), "zotero.sqlite, refs/extra.bib, refs/main.bib");
    assert!(!r.online());
}

#[tokio::test]
async fn search_ranks_by_shared_words_and_never_duplicates_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let r = resolver(dir.path()).await;
    let f = r.search("vaswani attention 2017", 5);
    assert_eq!(f.references[0].key, "Vaswani2017Attention");
    let f = r.search("neural network", 10);
    let keys: Vec<&str> = f.references.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(&keys[..2], ["hinton2015distilling", "EEEE5555"], "{keys:?}");
    assert_eq!(keys.iter().filter(|k| k.eq_ignore_ascii_case("hinton2015distilling")).count(), 1);
    assert_eq!(f.matches, f.references.len());
    let one = r.search("neural", 1);
    assert_eq!(one.references.len(), 1);
    assert!(one.matches >= 2);
    assert_eq!(r.search("hu2021lora", 5).references[0].key, "hu2021lora", "an exact key comes first");
    assert_eq!(r.search("zzzz qqqq", 5).matches, 0);
    assert_eq!(r.search("", 5).matches, 0);
}

#[tokio::test]
async fn uncited_lists_claims_whose_key_resolves_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let r = resolver(dir.path()).await;
    let claims = vec![
        ("paper/draft.md".to_string(), 3, "vaswani2017attention".to_string()),
        ("paper/draft.md".to_string(), 9, "smith2099imaginary".to_string()),
        ("paper/draft.md".to_string(), 12, "".to_string()),
        ("paper/other.md".to_string(), 1, "10.48550/arXiv.1503.02531".to_string()),
    ];
    let u = uncited(&claims, &r);
    assert_eq!(u.len(), 1);
    assert_eq!(u[0].place(), "paper/draft.md:9");
    assert_eq!(u[0].key, "smith2099imaginary");
    insta::assert_snapshot!("uncited_why", u[0].why);

    let a = check_answer(&claims, 6, vec![], &r);
    assert!(a.ok);
    insta::assert_json_snapshot!("check_one_uncited", whole(&a, dir.path()));
    let d = a.data.unwrap();
    assert_eq!((d.n_claims, d.n_cited, d.n_uncited), (6, 3, 1));

    let none = uncited(&claims, &Resolver::empty());
    assert_eq!(none.len(), 3);
    insta::assert_snapshot!("uncited_why_no_source", none[0].why);
    insta::assert_json_snapshot!("check_no_claims", whole(&check_answer(&[], 0, vec![], &r), dir.path()));
}

fn obj(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    v.as_object().unwrap().clone()
}

/// Calls a tool as an agent does, and logs the call and its whole answer for the snapshot.
async fn call(cat: &Catalogue, dir: &std::path::Path, log: &mut Vec<Value>, tool: &str, args: Value) -> Answer<Value> {
    let a = cat.call(tool, obj(args.clone())).await.unwrap();
    log.push(json!({ "call": tool, "args": args, "answer": whole(&a, dir) }));
    a
}

#[tokio::test]
async fn tools_answer_in_one_line_and_refuse_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let r = Arc::new(resolver(dir.path()).await);
    let cat = tools::tools(attest_cite::Sources::ready(Arc::clone(&r)));
    assert_eq!(cat.names(), ["cite.lookup", "cite.search", "cite.sources"]);
    for t in cat.tools() {
        assert!(t.spec.hints.read_only && !t.spec.hints.open_world && !t.spec.hints.destructive, "{}", t.name());
    }

    let (d, log) = (dir.path(), &mut Vec::new());
    let a = call(&cat, d, log, "cite.lookup", json!({"key": "vaswani2017attention"})).await;
    assert!(a.ok);
    assert_eq!(a.answer, "Vaswani et al. 2017, Attention Is All You Need (bibtex: refs/main.bib)");
    assert_eq!(a.refs[0].url.as_deref(), Some("https://arxiv.org/abs/1706.03762"));
    assert_eq!(a.data.as_ref().unwrap()["reference"]["n_authors"], 8);
    assert_eq!(a.data.as_ref().unwrap()["reference"]["authors"].as_array().unwrap().len(), 6);
    assert_eq!(a.tool_used.as_deref(), Some("cite.lookup"));

    let miss = call(&cat, d, log, "cite.lookup", json!({"key": "x2099"})).await;
    assert!(!miss.ok && miss.data.is_none());

    let empty = call(&cat, d, log, "cite.lookup", json!({"key": " "})).await;
    assert!(!empty.ok);
    let wrong = call(&cat, d, log, "cite.lookup", json!({"key": 5})).await;
    assert!(!wrong.ok);

    let s = call(&cat, d, log, "cite.search", json!({"query": "neural", "limit": 1})).await;
    assert!(s.ok);
    for bad in [json!(0), json!(26), json!(-3), json!(1_000_000)] {
        let b = call(&cat, d, log, "cite.search", json!({"query": "neural", "limit": bad})).await;
        assert!(!b.ok, "{}", b.answer);
    }
    let none = call(&cat, d, log, "cite.search", json!({"query": "qqqq"})).await;
    assert!(!none.ok);

    let src = call(&cat, d, log, "cite.sources", json!({})).await;
    assert!(src.ok);
    assert!(src.caveat.is_some());
    assert_eq!(src.data.as_ref().unwrap()["offline"], true);

    let bare = tools::tools(attest_cite::Sources::ready(Arc::new(Resolver::empty())));
    call(&bare, d, log, "cite.sources", json!({})).await;
    insta::assert_json_snapshot!("cite_tools", log);
    for t in cat.tools() {
        let schema = serde_json::Value::Object((*t.output_schema).clone());
        assert_eq!(schema["type"], "object", "{}", t.name());
    }
}

/// Without a web lookup supplied by the program, a resolver asked for web lookups still
/// never reaches the network: it says so in its sources, and a DOI nobody has on disk
/// misses. (This crate has no network code; the listener proves nothing was attempted.)
#[tokio::test]
async fn without_a_web_lookup_nothing_goes_online_even_when_asked() {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let config = ResolverConfig { web: true, find_zotero: false, ..ResolverConfig::default() };
    assert!(!attest_cite::Sources::lazy(config.clone()).online());
    let r = Resolver::build(&config).await;
    assert!(!r.online());
    assert!(r.lookup("10.1000/never.fetched").is_none());
    let s = r.sources();
    assert_eq!(s.len(), 1);
    assert!(!s[0].network, "{s:?}");
    insta::assert_json_snapshot!("web_asked_without_lookup_problems", s[0].problems);
    let cat = tools::tools(attest_cite::Sources::ready(Arc::new(r)));
    assert!(cat.tools().iter().all(|t| !t.spec.hints.open_world));
    let src = cat.call("cite.sources", obj(json!({}))).await.unwrap();
    assert_eq!(src.data.unwrap()["offline"], true);
    // Nobody connected to the loopback server.
    match listener.accept() {
        Ok((mut s, _)) => {
            let mut buf = String::new();
            let _ = s.read_to_string(&mut buf);
            panic!("something connected: {buf}");
        }
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
    }
}

/// A web lookup the caller supplies, counting what it was asked; it knows one DOI.
struct FakeWeb(std::sync::Mutex<Vec<String>>);

impl attest_cite::WebLookup for FakeWeb {
    fn info(&self) -> attest_cite::SourceInfo {
        attest_cite::SourceInfo {
            name: "fake web".into(),
            kind: Source::Web,
            network: true,
            records: 0,
            problems: Vec::new(),
        }
    }
    fn lookup(&self, key: &str) -> Option<attest_cite::Reference> {
        self.0.lock().unwrap().push(key.to_string());
        (attest_cite::normalize_doi(key)? == "10.1000/web.only").then(|| attest_cite::Reference {
            key: "10.1000/web.only".into(),
            title: "Only on the web".into(),
            authors: Vec::new(),
            year: Some(2020),
            doi: Some("10.1000/web.only".into()),
            arxiv_id: None,
            url: None,
            source: Source::Web,
            fetched_at: Some("2020-01-01".into()),
            origin: "fake".into(),
        })
    }
}

/// A supplied web lookup is asked after the local sources miss, only when the config
/// asks for the web; search and sources never call it.
#[tokio::test]
async fn a_supplied_web_lookup_is_asked_last_and_only_when_enabled() {
    let web = Arc::new(FakeWeb(Default::default()));
    let dir = tempfile::tempdir().unwrap();
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, "@article{local2019, title={On disk}, doi={10.1000/local}}\n").unwrap();
    let config = ResolverConfig {
        web: true,
        web_lookup: Some(web.clone()),
        find_zotero: false,
        bib_paths: vec![bib],
        ..ResolverConfig::default()
    };
    assert!(attest_cite::Sources::lazy(config.clone()).online());
    let r = Resolver::build(&config).await;
    assert!(r.online());
    assert!(r.sources().iter().any(|s| s.network && s.name == "fake web"));
    assert_eq!(r.lookup("10.1000/local").unwrap().source, Source::Bibtex);
    assert_eq!(r.lookup("https://doi.org/10.1000/web.only").unwrap().source, Source::Web);
    assert!(r.lookup("10.1000/nowhere").is_none());
    assert_eq!(r.search("web only 10.1000/web.only", 5).references.len(), 0);
    assert_eq!(web.0.lock().unwrap().as_slice(), ["https://doi.org/10.1000/web.only", "10.1000/nowhere"]);

    // The same lookup, web not asked for: never called.
    let off = Resolver::build(&ResolverConfig { web: false, ..config }).await;
    assert!(!off.online() && off.lookup("10.1000/web.only").is_none());
    assert!(off.sources().iter().all(|s| !s.network));
    assert_eq!(web.0.lock().unwrap().len(), 2);
}
