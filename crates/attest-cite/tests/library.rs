//! The reference library: deduplication (cases as data, `library_dedup.toml`), BibTeX
//! export read back through the BibTeX reader, and the library tools' whole answers
//! (insta snapshots) on an in-memory database with a feed archive and a `.bib` file.

use std::sync::Arc;

use attest_archive::{FeedStore, NewItem};
use attest_cite::library::{self, Library, Merge, NewEntry, Origin, Status};
use attest_cite::library_tools::{self, Shelf};
use attest_cite::{ResolverConfig, Sources, bibtex};
use attest_core::Catalogue;
use attest_store::Store;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    have: Vec<Work>,
    save: Work,
    #[serde(default)]
    added: bool,
    into: Option<String>,
    by: Option<String>,
    key: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Work {
    title: String,
    #[serde(default)]
    authors: Vec<String>,
    year: Option<i32>,
    doi: Option<String>,
    arxiv_id: Option<String>,
}

impl Work {
    fn entry(&self) -> NewEntry {
        NewEntry {
            title: self.title.clone(),
            authors: self.authors.clone(),
            year: self.year,
            doi: self.doi.clone(),
            arxiv_id: self.arxiv_id.clone(),
            origin: Some(Origin::Paper),
            ..NewEntry::default()
        }
    }
}

const NOW: &str = "2026-12-01T12:00:00Z";

#[tokio::test]
async fn dedup_cases() {
    let cases: Cases = toml::from_str(include_str!("library_dedup.toml")).unwrap();
    assert!(cases.case.len() >= 10);
    for c in &cases.case {
        let lib = Library::new(Store::open_in_memory().await.unwrap());
        for w in &c.have {
            let s = lib.save(vec![w.entry()], Merge::FillBlanks, NOW).await.unwrap();
            assert_eq!(s[0].status, Status::Added, "{}: setting up", c.name);
        }
        let before = lib.len().await.unwrap();
        let saved = lib.save(vec![c.save.entry()], Merge::FillBlanks, NOW).await.unwrap().remove(0);
        if c.added {
            assert_eq!(saved.status, Status::Added, "{}: {saved:?}", c.name);
            assert_eq!(lib.len().await.unwrap(), before + 1, "{}", c.name);
            if let Some(k) = &c.key {
                assert_eq!(&saved.key, k, "{}", c.name);
            }
        } else {
            assert_ne!(saved.status, Status::Added, "{}: {saved:?}", c.name);
            assert_eq!(Some(&saved.key), c.into.as_ref(), "{}", c.name);
            let by = serde_json::to_value(saved.matched_by).unwrap();
            assert_eq!(by.as_str(), c.by.as_deref(), "{}", c.name);
            assert_eq!(lib.len().await.unwrap(), before, "{}: nothing added", c.name);
        }
        // Saving the same work again never adds it twice (when anything identifies it).
        let w = &c.save;
        if w.doi.is_none() && w.arxiv_id.is_none() && library::match_key(&w.title, &w.authors, w.year).is_empty() {
            continue;
        }
        let again = lib.save(vec![c.save.entry()], Merge::FillBlanks, NOW).await.unwrap().remove(0);
        assert_eq!(again.status, Status::Unchanged, "{}: {again:?}", c.name);
    }
}

#[tokio::test]
async fn a_merge_fills_blanks_and_never_overwrites() {
    let lib = Library::new(Store::open_in_memory().await.unwrap());
    let first = NewEntry {
        title: "Attention Is All You Need".into(),
        authors: vec!["Vaswani, Ashish".into()],
        year: Some(2017),
        arxiv_id: Some("1706.03762".into()),
        tags: vec!["Transformers".into()],
        origin: Some(Origin::Paper),
        ..NewEntry::default()
    };
    lib.save(vec![first], Merge::FillBlanks, NOW).await.unwrap();
    let second = NewEntry {
        title: "Another Title Entirely".into(),
        year: Some(2018),
        arxiv_id: Some("1706.03762".into()),
        venue: Some("NeurIPS".into()),
        tags: vec!["attention".into(), "transformer".into()],
        origin: Some(Origin::Bibtex),
        ..NewEntry::default()
    };
    let s = lib.save(vec![second], Merge::FillBlanks, NOW).await.unwrap().remove(0);
    assert_eq!(s.status, Status::Merged);
    assert_eq!(s.changed, ["venue", "tags"]);
    let e = lib.find("arXiv:1706.03762").await.unwrap().unwrap();
    assert_eq!((e.title.as_str(), e.year), ("Attention Is All You Need", Some(2017)));
    assert_eq!(e.tags, ["transformers", "attention"], "canonical, a plural not repeated");
}

fn tricky() -> Vec<library::Entry> {
    let e = |key: &str, kind: &str, title: &str, authors: &[&str]| library::Entry {
        key: key.into(),
        kind: kind.into(),
        title: title.into(),
        authors: authors.iter().map(|a| a.to_string()).collect(),
        year: Some(2021),
        venue: None,
        doi: None,
        arxiv_id: None,
        url: None,
        abstract_text: String::new(),
        tags: Vec::new(),
        cites: Vec::new(),
        origin: Origin::Paper,
        origin_ref: String::new(),
        item_id: None,
        added: NOW.into(),
        updated: NOW.into(),
    };
    let mut a = e(
        "smith2021costs",
        "article",
        "Costs & Benefits of 100% Recall: $O(n)$ vs. {Braces}, #hashtags and under_scores",
        &["Smith, Ann", "Müller, Jörg", "Ó Briain, Dara"],
    );
    a.venue = Some("Journal of Research & Practice".into());
    a.doi = Some("10.1000/abc_def(1)2".into());
    a.url = Some("https://example.org/paper?id=1&v=2#top".into());
    a.abstract_text = "We measure 50% of cases ~ roughly; see \\cite{x}.".into();
    a.tags = vec!["graph-neural-network".into(), "retrieval".into()];
    a.cites = vec!["10.1000/xyz".into(), "1706.03762".into()];
    let mut b = e("hu2021lora", "misc", "LoRA: Low-Rank Adaptation of Large Language Models", &["Hu, Edward J."]);
    b.arxiv_id = Some("2106.09685".into());
    let c = e("untitled2021", "inproceedings", "", &[]);
    vec![a, b, c]
}

#[test]
fn export_reads_back_through_the_bibtex_reader() {
    let entries = tricky();
    let text = library::to_bibtex(&entries);
    insta::assert_snapshot!("export_tricky", text);
    let back = bibtex::parse(&text, "export.bib");
    assert!(back.problems.is_empty(), "{:?}", back.problems);
    assert_eq!(back.references.len(), entries.len());
    for (e, r) in entries.iter().zip(&back.references) {
        assert_eq!(r.key, e.key);
        // The reader drops braces (they only protect case in BibTeX): compare with what
        // it makes of the same text.
        assert_eq!(r.title, bibtex::clean(&e.title), "{}", e.key);
        assert_eq!(r.authors, e.authors, "{}", e.key);
        assert_eq!(r.year, e.year);
        assert_eq!(r.doi, e.doi, "{}", e.key);
        assert_eq!(r.arxiv_id, e.arxiv_id);
        assert_eq!(r.url, e.url, "{}", e.key);
    }
    let d = &back.details[0];
    assert_eq!(d.kind, "article");
    assert_eq!(d.venue.as_deref(), Some("Journal of Research & Practice"));
    assert_eq!(d.keywords, ["graph-neural-network", "retrieval"]);
    assert_eq!(d.cites, ["10.1000/xyz", "1706.03762"]);
    assert_eq!(back.details[2].kind, "inproceedings");
}

const BIB: &str = r#"@article{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam and Parmar, Niki},
  journal = {Advances in Neural Information Processing Systems},
  year = {2017},
  eprint = {1706.03762},
  archivePrefix = {arXiv},
  keywords = {transformers, attention}
}

@inproceedings{devlin2019bert,
  title = {{BERT}: Pre-training of Deep Bidirectional Transformers for Language Understanding},
  author = {Devlin, Jacob and Chang, Ming-Wei},
  booktitle = {NAACL},
  year = {2019},
  doi = {10.18653/v1/N19-1423},
  cites = {1706.03762}
}

@article{kipf2017gcn,
  title = {Semi-Supervised Classification with Graph Convolutional Networks},
  author = {Kipf, Thomas and Welling, Max},
  journal = {ICLR},
  year = {2017},
  keywords = {graph neural networks}
}
"#;

struct Fixture {
    _dir: tempfile::TempDir,
    bib: std::path::PathBuf,
    catalogue: Catalogue,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, BIB).unwrap();
    let config = ResolverConfig {
        bib_paths: vec![bib.clone()],
        find_zotero: false,
        base: Some(dir.path().to_path_buf()),
        ..ResolverConfig::default()
    };
    let store = Store::open_in_memory().await.unwrap();
    let archive = FeedStore::new(store.clone());
    let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let items = vec![
        NewItem::build(
            "a",
            "Sparse attention for long-context transformers",
            Some("https://arxiv.org/abs/2401.00001".into()),
            "We make attention sparse so transformers read long documents.",
            Some("2024-01-02T00:00:00Z".into()),
            tags(&["transformers", "attention", "cs.LG"]),
        ),
        NewItem {
            authors: vec!["Ngozi Okafor".into(), "Tomás Ruiz".into()],
            ..NewItem::build(
                "b",
                "Message passing on molecules with graph neural networks",
                Some("https://example.org/gnn".into()),
                "Graph neural networks predict molecular properties.",
                Some("2023-05-01T00:00:00Z".into()),
                tags(&["graph-neural-networks", "chemistry"]),
            )
        },
    ];
    archive.add_items(None, &items, NOW).await.unwrap();
    let shelf = Shelf::new(store, Sources::lazy(config));
    Fixture { bib, catalogue: library_tools::tools(Arc::new(shelf)), _dir: dir }
}

async fn call(f: &Fixture, tool: &str, args: Value) -> Value {
    let Value::Object(args) = args else { panic!("arguments are an object") };
    let a = f.catalogue.call(tool, args).await.unwrap();
    serde_json::to_value(&a).unwrap()
}

/// Every library tool, good calls and bad, in the order a researcher would make them.
#[tokio::test]
async fn library_tools_answer_whole() {
    let f = fixture().await;
    let mut seen = Vec::new();
    let steps: Vec<(&str, Value)> = vec![
        // Nothing saved yet.
        ("cite.export", json!({})),
        ("cite.related", json!({"to": "transformers"})),
        ("cite.sync", json!({})),
        // Saving: a .bib record by key, a feed item, a feed.research paper, BibTeX text.
        ("cite.save", json!({"key": "vaswani2017attention"})),
        ("cite.save", json!({"item_id": 1})),
        (
            "cite.save",
            json!({"paper": {"source": "arxiv", "title": "Attention is all you need", "authors": ["Ashish Vaswani"], "n_authors": 8, "year": 2017, "arxiv_id": "1706.03762v7", "url": "https://arxiv.org/abs/1706.03762"}}),
        ),
        (
            "cite.save",
            json!({"paper": {"source": "crossref", "title": "Graph Attention Networks", "authors": ["Petar Veličković", "Guillem Cucurull"], "year": 2018, "venue": "ICLR", "doi": "10.48550/arXiv.1710.10903"}, "cites": ["kipf2017gcn"]}),
        ),
        (
            "cite.save",
            json!({"bibtex": "@misc{lee2024note, title={A Note on Graph Neural Networks for Chemistry}, author={Lee, Min}, year=2024, cites={10.48550/arXiv.1710.10903}}"}),
        ),
        // Bad input: nothing written.
        ("cite.save", json!({})),
        ("cite.save", json!({"item_id": 99})),
        ("cite.save", json!({"key": "nobody2020nothing"})),
        ("cite.save", json!({"item_id": 1, "key": "x"})),
        (
            "cite.save",
            json!({"bibtex": "@misc{good1, title={Fine}}\n@article{broken2, title={Never closed\n@misc{good3, title={Also fine}}"}),
        ),
        ("cite.save", json!({"paper": {"authors": ["Nobody"]}})),
        // Search with filters.
        ("cite.search", json!({"query": "attention"})),
        ("cite.search", json!({"author": "vaswani"})),
        ("cite.search", json!({"query": "graph", "year": "2018-"})),
        ("cite.search", json!({"tag": "GNN"})),
        ("cite.search", json!({"tag": "knitting"})),
        ("cite.search", json!({"year": "last year"})),
        ("cite.search", json!({"query": "  "})),
        // Related.
        ("cite.related", json!({"to": "vaswani2017attention"})),
        ("cite.related", json!({"to": "graph neural networks"})),
        ("cite.related", json!({"item_id": 2})),
        ("cite.related", json!({"to": "knitting patterns"})),
        ("cite.related", json!({})),
        // Export and lookup.
        ("cite.export", json!({"tag": "graph neural networks"})),
        ("cite.export", json!({"keys": ["vaswani2017attention", "nobody"]})),
        ("cite.lookup", json!({"key": "1706.03762"})),
        ("cite.sources", json!({})),
    ];
    for (tool, args) in steps {
        let answer = call(&f, tool, args.clone()).await;
        seen.push(json!({"call": tool, "args": args, "answer": answer}));
    }
    // The .bib file changes; sync refreshes the entry saved from it, then imports the rest.
    std::fs::write(&f.bib, BIB.replace("Attention Is All You Need", "Attention Is All You Need (corrected)")).unwrap();
    for args in [json!({}), json!({"import": true}), json!({"import": true})] {
        let answer = call(&f, "cite.sync", args.clone()).await;
        seen.push(json!({"call": "cite.sync", "args": args, "answer": answer}));
    }
    // Citations relate works too: Lee cites the GAT paper, which cites Kipf and Welling.
    let answer = call(&f, "cite.related", json!({"to": "velickovic2018graph"})).await;
    seen.push(json!({"call": "cite.related", "args": {"to": "velickovic2018graph"}, "answer": answer}));
    // A broken entry: an import refuses and writes nothing; a refresh goes on.
    std::fs::write(&f.bib, format!("{BIB}\n@misc{{broken9, title={{Never closed}}\n")).unwrap();
    for args in [json!({"import": true}), json!({})] {
        let answer = call(&f, "cite.sync", args.clone()).await;
        seen.push(json!({"call": "cite.sync", "args": args, "answer": answer}));
    }
    let all = call(&f, "cite.export", json!({})).await;
    seen.push(json!({"call": "cite.export", "args": {}, "answer": all}));
    // A feed item saved keeps the authors its feed named, and the author filter finds it.
    for (tool, args) in
        [("cite.save", json!({"item_id": 2})), ("cite.search", json!({"author": "okafor", "year": "2023"}))]
    {
        let answer = call(&f, tool, args.clone()).await;
        seen.push(json!({"call": tool, "args": args, "answer": answer}));
    }
    insta::assert_yaml_snapshot!("library_tools", seen);
}

#[test]
fn concepts_are_found_in_text_with_plurals_folded() {
    let vocab: std::collections::BTreeSet<String> =
        ["graph-neural-network", "attention", "chemistry", "news", "a", "transformer"]
            .iter()
            .map(|s| s.to_string())
            .collect();
    let found = library::concepts_in("Graph Neural Networks for chemistry, with attention (news)", &vocab, 8);
    assert_eq!(found, ["graph-neural-network", "chemistry", "attention"]);
    assert!(library::concepts_in("", &vocab, 8).is_empty());
}

#[tokio::test]
async fn a_large_save_and_export_stay_within_one_answer() {
    let f = fixture().await;
    let bib: String = (0..60)
        .map(|i| format!("@article{{work{i}, title={{A Study Numbered {i} of Graph Neural Networks}}, author={{Author{i}, Ann and Other, Bo}}, year={}, abstract={{{}}}}}\n", 1990 + i % 30, "words ".repeat(80)))
        .collect();
    let saved = call(&f, "cite.save", json!({ "bibtex": bib })).await;
    assert_eq!(saved["ok"], true, "{saved:#}");
    assert_eq!(saved["data"]["n_saved"], 60);
    assert_eq!(saved["data"]["n_added"], 60);
    assert!(saved.to_string().chars().count() <= 7_000, "{}", saved.to_string().len());
    let export = call(&f, "cite.export", json!({})).await;
    assert_eq!(export["ok"], true);
    assert!(export.to_string().chars().count() <= 7_000);
    assert!(export["caveat"].as_str().unwrap().contains("attest cite export --out"), "{export:#}");
}
