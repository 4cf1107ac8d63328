//! `cite.check` on the drafts of `tests/fixtures/claims/` (LaTeX, Quarto, R Markdown,
//! Jupyter): keys are found in every format, at the source file's lines, through the
//! same claim reader the claim checker uses. The whole answer is a snapshot.

use std::path::{Path, PathBuf};

use attest_cite::scan::{CheckArgs, check, resolver_config, scan};
use attest_cite::{Resolver, Source};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claims").canonicalize().unwrap()
}

#[tokio::test]
async fn cite_check_reads_every_draft_format() {
    let bib = tempfile::tempdir().unwrap();
    let bib_file = bib.path().join("refs.bib");
    std::fs::write(
        &bib_file,
        "@inproceedings{kingma2015adam, title={Adam}, author={Kingma, D. and Ba, J.}, year={2015}}\n",
    )
    .unwrap();
    let env = |k: &str| match k {
        "ATTEST_BIB" => Some(bib_file.display().to_string()),
        "ATTEST_ZOTERO" => Some("off".to_string()),
        _ => None,
    };
    let r = Resolver::build(&resolver_config(env, Some(&fixtures()))).await;
    assert!(r.sources().iter().any(|s| s.kind == Source::Bibtex));

    let found = scan(&fixtures(), Some(&fixtures())).unwrap();
    assert_eq!(found.files, 4, "paper.tex, analysis.qmd, report.Rmd, notebook.ipynb");
    assert_eq!(found.claims, 10);

    let mut shown = Vec::new();
    for path in [None, Some("paper.tex"), Some("notebook.ipynb")] {
        let a = check(&r, Some(&fixtures()), CheckArgs { path: path.map(str::to_string) }).await.unwrap();
        assert!(a.ok, "{}", a.answer);
        let text = serde_json::to_string(&a.into_value())
            .unwrap()
            .replace(&fixtures().display().to_string(), "[fixtures]")
            .replace(&bib.path().display().to_string(), "[bib]");
        shown.push(
            serde_json::json!({ "path": path, "answer": serde_json::from_str::<serde_json::Value>(&text).unwrap() }),
        );
    }
    insta::assert_json_snapshot!("cite_check_formats", shown);
}
