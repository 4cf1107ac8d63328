//! `attest cite export` and `attest cite sync` as a user runs them: an empty library
//! says what to do, an import from a `.bib` file fills it, the export reads back
//! through the BibTeX reader and a tag picks entries.

use std::path::Path;
use std::process::{Command, Output};

fn attest(args: &[&str], db: &Path, bib: &Path) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_attest"));
    c.args(args).env("ATTEST_DB", db).env("ATTEST_BIB", bib).env("ATTEST_ZOTERO", "off");
    for k in ["RESEARCH_ROOT", "ATTEST_CITATION_WEB", "ATTEST_CITATION_CACHE"] {
        c.env_remove(k);
    }
    c.output().unwrap()
}

fn shown(o: &Output, dir: &Path) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
        .replace(&dir.display().to_string(), "[root]")
}

const BIB: &str = r#"@article{vaswani2017attention,
  title = {Attention Is All You Need},
  author = {Vaswani, Ashish and Shazeer, Noam},
  journal = {NeurIPS},
  year = {2017},
  keywords = {transformers}
}
@article{kipf2017gcn,
  title = {Semi-Supervised Classification with Graph Convolutional Networks},
  author = {Kipf, Thomas and Welling, Max},
  year = {2017},
  keywords = {graph neural networks}
}
"#;

#[test]
fn export_and_sync_from_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("attest.db");
    let bib = dir.path().join("refs.bib");
    std::fs::write(&bib, BIB).unwrap();
    let out = dir.path().join("library.bib");
    let mut log = Vec::new();

    // Without import, a sync of a new library has nothing to refresh (it creates the
    // database, as a command that fills it).
    let refresh = attest(&["cite", "sync"], &db, &bib);
    assert_eq!(refresh.status.code(), Some(1));
    log.push(("cite sync (empty)", shown(&refresh, dir.path())));
    let empty = attest(&["cite", "export", "--out", out.to_str().unwrap()], &db, &bib);
    assert_eq!(empty.status.code(), Some(1));
    assert!(!out.exists(), "nothing is written for an empty library");
    log.push(("cite export (empty)", shown(&empty, dir.path())));

    let sync = attest(&["cite", "sync", "--import"], &db, &bib);
    assert!(sync.status.success(), "{}", shown(&sync, dir.path()));
    log.push(("cite sync --import", shown(&sync, dir.path())));

    let export = attest(&["cite", "export", "--out", out.to_str().unwrap()], &db, &bib);
    assert!(export.status.success(), "{}", shown(&export, dir.path()));
    log.push(("cite export --out library.bib", shown(&export, dir.path())));
    let back = attest_cite::bibtex::parse(&std::fs::read_to_string(&out).unwrap(), "library.bib");
    assert!(back.problems.is_empty(), "{:?}", back.problems);
    let keys: Vec<&str> = back.references.iter().map(|r| r.key.as_str()).collect();
    assert_eq!(keys, ["kipf2017gcn", "vaswani2017attention"]);

    let tagged = attest(&["cite", "export", "--tag", "GNN"], &db, &bib);
    assert!(tagged.status.success());
    log.push(("cite export --tag GNN", shown(&tagged, dir.path())));
    let unknown = attest(&["cite", "export", "--tag", "knitting"], &db, &bib);
    assert_eq!(unknown.status.code(), Some(1));
    log.push(("cite export --tag knitting", shown(&unknown, dir.path())));

    let text: String = log.iter().map(|(cmd, out)| format!("$ attest {cmd}\n{out}\n")).collect();
    insta::assert_snapshot!("cite_cli", text);
}
