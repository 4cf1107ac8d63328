//! The drafts of `tests/fixtures/claims/`, one per format, parsed whole: every claim and
//! every malformed annotation, as YAML snapshots.

use std::path::{Path, PathBuf};

use attest_claims::{Format, read_claims};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claims").canonicalize().unwrap()
}

#[test]
fn each_fixture_parses_as_its_format() {
    let root = fixtures();
    for (file, format) in [
        ("paper.tex", Format::Latex),
        ("analysis.qmd", Format::Markdown),
        ("report.Rmd", Format::Markdown),
        ("notebook.ipynb", Format::Notebook),
    ] {
        assert_eq!(Format::of(&root.join(file)), Some(format), "{file}");
        let found = read_claims(&root.join(file), &root);
        assert_eq!((found.files, found.skipped.len()), (1, 0), "{file}: {:?}", found.skipped);
        insta::assert_yaml_snapshot!(file.replace('.', "_"), (found.claims, found.malformed));
    }
}

#[test]
fn a_directory_reads_every_format_and_skips_what_is_not_a_draft() {
    let found = read_claims(&fixtures(), &fixtures());
    assert_eq!(found.files, 4, "README.txt and the results are not drafts");
    let files: std::collections::BTreeSet<&str> = found.claims.iter().map(|c| c.file.as_str()).collect();
    assert_eq!(files.into_iter().collect::<Vec<_>>(), ["analysis.qmd", "notebook.ipynb", "paper.tex", "report.Rmd"]);
}

#[test]
fn a_broken_notebook_is_skipped_with_its_reason() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("bad.ipynb"), "{\"cells\": [").unwrap();
    std::fs::write(d.path().join("ok.md"), "<!-- claim: p/r metric=m value=1 -->").unwrap();
    let found = read_claims(d.path(), d.path());
    assert_eq!(found.files, 1);
    assert_eq!(found.skipped.len(), 1);
    assert_eq!(found.skipped[0].file, "bad.ipynb");
    assert!(found.skipped[0].reason.starts_with("it is not a Jupyter notebook"), "{}", found.skipped[0].reason);
}
