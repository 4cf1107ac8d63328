//! The resolver over a Zotero library and BibTeX files: order, lookup, search, sources,
//! the uncited lint and the tools.

mod common;

use std::sync::Arc;

use attest_cite::tools::{self, check_answer};
use attest_cite::{Resolver, ResolverConfig, Source, uncited};
use serde_json::json;

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
    assert!(s[2].problems.iter().any(|p| p.starts_with("line 66 'truncated2022' skipped:")), "{:?}", s[2].problems);
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
    assert!(u[0].why.contains("checked: zotero.sqlite, refs/extra.bib, refs/main.bib"), "{}", u[0].why);

    let a = check_answer(&claims, 6, vec![], &r);
    assert!(a.ok);
    assert!(
        a.answer.starts_with("1 of 3 claims with cite= names a key no source has; first: paper/draft.md:9"),
        "{}",
        a.answer
    );
    let d = a.data.unwrap();
    assert_eq!((d.n_claims, d.n_cited, d.n_uncited), (6, 3, 1));

    let none = uncited(&claims, &Resolver::empty());
    assert_eq!(none.len(), 3);
    assert!(none[0].why.contains("no citation source (none is configured)"), "{}", none[0].why);
    assert!(check_answer(&[], 0, vec![], &r).answer.starts_with("no claims found"));
}

fn obj(v: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    v.as_object().unwrap().clone()
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

    let a = cat.call("cite.lookup", obj(json!({"key": "vaswani2017attention"}))).await.unwrap();
    assert!(a.ok);
    assert_eq!(a.answer, "Vaswani et al. 2017, Attention Is All You Need (bibtex: refs/main.bib)");
    assert_eq!(a.refs[0].url.as_deref(), Some("https://arxiv.org/abs/1706.03762"));
    assert_eq!(a.data.as_ref().unwrap()["reference"]["n_authors"], 8);
    assert_eq!(a.data.as_ref().unwrap()["reference"]["authors"].as_array().unwrap().len(), 6);
    assert_eq!(a.tool_used.as_deref(), Some("cite.lookup"));

    let miss = cat.call("cite.lookup", obj(json!({"key": "x2099"}))).await.unwrap();
    assert!(!miss.ok && miss.data.is_none());
    assert!(miss.answer.starts_with("no configured source has 'x2099' (checked: zotero.sqlite"), "{}", miss.answer);
    assert!(miss.answer.contains("add it to a .bib file or configure Zotero"));

    let empty = cat.call("cite.lookup", obj(json!({"key": " "}))).await.unwrap();
    assert!(!empty.ok && empty.answer.contains("cite.search"));
    let wrong = cat.call("cite.lookup", obj(json!({"key": 5}))).await.unwrap();
    assert!(!wrong.ok && wrong.answer.contains("key (string)"), "{}", wrong.answer);

    let s = cat.call("cite.search", obj(json!({"query": "neural", "limit": 1}))).await.unwrap();
    assert!(s.ok);
    assert!(
        s.answer.starts_with("2 matches for 'neural', showing the best 1. Best: Hinton et al. 2015"),
        "{}",
        s.answer
    );
    for bad in [json!(0), json!(26), json!(-3), json!(1_000_000)] {
        let b = cat.call("cite.search", obj(json!({"query": "neural", "limit": bad}))).await.unwrap();
        assert!(!b.ok && b.answer.contains("between 1 and 25"), "{}", b.answer);
    }
    let none = cat.call("cite.search", obj(json!({"query": "qqqq"}))).await.unwrap();
    assert!(!none.ok && none.answer.contains("nothing in"), "{}", none.answer);

    let src = cat.call("cite.sources", obj(json!({}))).await.unwrap();
    assert!(src.ok);
    assert!(src.answer.starts_with("13 references from 4 sources: zotero.sqlite (3)"), "{}", src.answer);
    assert!(src.answer.ends_with("nothing is looked up online"));
    assert!(src.caveat.unwrap().contains("could not be read"));
    assert_eq!(src.data.as_ref().unwrap()["offline"], true);

    let bare = tools::tools(attest_cite::Sources::ready(Arc::new(Resolver::empty())));
    let a = bare.call("cite.sources", obj(json!({}))).await.unwrap();
    assert!(a.answer.starts_with("no citation source is configured"));
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
    assert!(!s[0].network && s[0].problems[0].contains("no network code"), "{s:?}");
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
