//! BibTeX reading: a committed fixture with the things real files contain, and a
//! generated 10 MB file with broken entries scattered through it. Problems are checked
//! by snapshots of the whole list.

use attest_cite::bibtex::{self, BibFile};
use attest_cite::{Reference, Source};

fn fixture() -> BibFile {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tricky.bib");
    bibtex::read(&path, "refs/tricky.bib").expect("fixture readable")
}

fn get<'a>(f: &'a BibFile, key: &str) -> &'a Reference {
    f.references.iter().find(|r| r.key == key).unwrap_or_else(|| panic!("no {key} in {:?}", keys(f)))
}

fn keys(f: &BibFile) -> Vec<&str> {
    f.references.iter().map(|r| r.key.as_str()).collect()
}

#[test]
fn fixture_yields_the_good_entries_in_file_order() {
    let f = fixture();
    assert_eq!(
        keys(&f),
        [
            "Vaswani2017Attention",
            "devlin2019bert",
            "knuth1984",
            "schrodinger",
            "notitle2020",
            "paren2018",
            "undefinedmacro",
            "after_truncated"
        ]
    );
    assert!(f.references.iter().all(|r| r.source == Source::Bibtex && r.origin == "refs/tricky.bib"));
    assert!(f.references.iter().all(|r| r.fetched_at.is_none()));
}

#[test]
fn fields_are_read_and_cleaned() {
    let f = fixture();
    let v = get(&f, "Vaswani2017Attention");
    assert_eq!(v.title, "Attention Is All You Need");
    assert_eq!(v.authors.len(), 8);
    assert_eq!(v.authors[0], "Vaswani, Ashish");
    assert_eq!(v.authors[6], "Kaiser, Łukasz", "LaTeX \\L becomes Ł");
    assert_eq!(v.year, Some(2017), "a bare number year");
    assert_eq!(v.arxiv_id.as_deref(), Some("1706.03762"), "eprint with archivePrefix");
    assert_eq!(v.doi, None);
    assert_eq!(v.line(), "Vaswani et al. 2017, Attention Is All You Need (bibtex: refs/tricky.bib)");

    let b = get(&f, "devlin2019bert");
    assert_eq!(b.title, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding");
    assert_eq!(b.authors[0], "Devlin, Jacob", "First Last names are turned round");
    assert_eq!(b.year, Some(2019), "year from date");
    assert_eq!(b.doi.as_deref(), Some("10.18653/v1/N19-1423"), "doi.org prefix dropped");
    assert_eq!(b.arxiv_id.as_deref(), Some("1810.04805"), "arXiv id from the journal field");

    let s = get(&f, "schrodinger");
    assert_eq!(s.title, "Nested braces inside braces and an accent: Café naïve");
    assert_eq!(s.authors, ["Schrödinger, Erwin", "Erdős, Paul"]);
    assert_eq!(s.url.as_deref(), Some("https://example.org/cat"));

    assert_eq!(get(&f, "knuth1984").title, "The TeXbook");
    let p = get(&f, "paren2018");
    assert_eq!(p.title, "An Entry in Parentheses", "@misc(…) delimiters are read");
    assert_eq!(p.arxiv_id.as_deref(), Some("1801.00001"), "version suffix dropped");
    assert_eq!(p.authors, ["Lovelace, Ada"], "'and others' is not an author");
}

#[test]
fn missing_fields_are_kept_as_absent_not_dropped() {
    let f = fixture();
    let n = get(&f, "notitle2020");
    assert_eq!(n.title, "");
    assert_eq!(n.title_or_untitled(), "(untitled)");
    assert_eq!(n.year, Some(2020));
    assert!(n.doi.is_none() && n.arxiv_id.is_none() && n.url.is_none());
}

#[test]
fn problems_are_reported_with_line_key_and_reason() {
    let f = fixture();
    assert_eq!(f.skipped(), 3, "{:#?}", f.problems);
    // Every problem, whole: line, key, reason and whether the entry was kept.
    insta::assert_json_snapshot!("tricky_problems", f.problems);
    let dup = f.problems.iter().find(|p| p.key.as_deref() == Some("devlin2019bert")).unwrap();
    assert!(!dup.kept, "{dup:?}");
    assert_eq!(get(&f, "devlin2019bert").year, Some(2019), "the first of two duplicates is kept");
    let trunc = f.problems.iter().find(|p| p.key.as_deref() == Some("truncated2022")).unwrap();
    assert_eq!(trunc.line, 66);
    assert!(!trunc.kept);
    assert!(f.problems.iter().any(|p| p.key.as_deref() == Some("lasttruncated") && !p.kept));
    let mac = f.problems.iter().find(|p| p.key.as_deref() == Some("undefinedmacro")).unwrap();
    assert!(mac.kept, "{mac:?}");
    assert!(!keys(&f).contains(&"fake"), "an entry inside @comment is not read");
}

#[test]
fn string_macros_expand_including_concatenation() {
    let text = "@string{first = \"Deep\"}\n@string{both = first # \" Learning\"}\n@book{lecun, title = both # { Book}, year = 2015}\n";
    let f = bibtex::parse(text, "m.bib");
    assert_eq!(f.problems, []);
    assert_eq!(f.references[0].title, "Deep Learning Book");
}

#[test]
fn garbage_and_empty_input_yield_nothing_without_failing() {
    for text in ["", "just some text", "@", "@@@@", "@article", "@article{", "}}}}{{{{", "\u{feff}@misc{k, title={T}}"]
    {
        let f = bibtex::parse(text, "g.bib");
        assert!(f.references.len() <= 1, "{text:?}");
    }
    assert_eq!(bibtex::parse("\u{feff}@misc{k, title={T}}", "g.bib").references[0].key, "k");
}

/// Build a file of about `target` bytes: mostly good entries, with broken ones of
/// several kinds every few entries. Returns the text, the good count and the broken count.
fn generated(target: usize) -> (String, usize, usize) {
    let mut s = String::with_capacity(target + 4096);
    s.push_str(
        "% generated\n@string{jml = {Journal of Machine Learning}}\n@string{loopa = loopb}\n@string{loopb = loopa}\n",
    );
    // One valid entry with very deep brace nesting.
    s.push_str("@misc{deep, title = {");
    s.push_str(&"{".repeat(5000));
    s.push_str("deep");
    s.push_str(&"}".repeat(5000));
    s.push_str("}, year = 2001}\n");
    let (mut good, mut bad) = (1usize, 0usize);
    let mut i = 0usize;
    while s.len() < target {
        i += 1;
        match i % 10 {
            3 => {
                // Truncated: the closing brace is missing.
                s.push_str(&format!("@article{{trunc{i},\n  title = {{Never closed {i}}},\n  year = {{2003}},\n\n"));
                bad += 1;
            }
            7 => {
                // A field with no value.
                s.push_str(&format!("@article{{novalue{i},\n  title = ,\n  year = {{2004}}\n}}\n"));
                bad += 1;
            }
            9 => {
                // The same key twice.
                s.push_str(&format!("@article{{good{}, title = {{Again}}}}\n", i - 1));
                bad += 1;
            }
            _ => {
                s.push_str(&format!(
                    "@article{{good{i},\n  author = {{Author{i}, Ann and Coauthor, Bo}},\n  title = {{A {{Study}} of Item {i}: M\\\"uller's Method}},\n  journal = jml,\n  year = {{{}}},\n  doi = {{10.1234/gen.{i}}},\n  abstract = {{{}}},\n}}\n",
                    1990 + i % 30,
                    "Lorem ipsum dolor sit amet. ".repeat(8)
                ));
                good += 1;
            }
        }
    }
    (s, good, bad)
}

#[test]
fn ten_megabytes_with_broken_entries_loads_the_good_ones_and_counts_the_rest() {
    let (text, good, bad) = generated(10 * 1024 * 1024);
    assert!(text.len() >= 10 * 1024 * 1024);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bib");
    std::fs::write(&path, &text).unwrap();
    let f = bibtex::read(&path, "big.bib").unwrap();
    assert_eq!(f.references.len(), good, "every good entry loads");
    // The broken entries, plus the two macros that refer to each other.
    let skipped_entries = f.problems.iter().filter(|p| !p.kept && !p.reason.contains("macro")).count();
    assert_eq!(skipped_entries, bad, "every broken entry is counted");
    // The problems of no one block (line 0: the two macros that refer to each other) and
    // the first broken entry of each kind, whole.
    let macros: Vec<_> = f.problems.iter().filter(|p| p.line == 0).collect();
    assert_eq!(macros.len(), 2, "{macros:?}");
    let first: Vec<_> = f.problems.iter().filter(|p| p.line != 0).take(3).collect();
    insta::assert_json_snapshot!("generated_problems", serde_json::json!({ "macros": macros, "first_entries": first }));
    assert_eq!(f.references[0].title, "deep");
    let g = f.references.iter().find(|r| r.key == "good11").unwrap();
    assert_eq!(g.title, "A Study of Item 11: Müller's Method");
    assert_eq!(g.doi.as_deref(), Some("10.1234/gen.11"));
    assert_eq!(g.authors, ["Author11, Ann", "Coauthor, Bo"]);
}
