//! Claim verdicts against a small hand-made ledger: run selection, row selection,
//! tolerance, staleness by content, the citation lint, discovery and the research-root
//! boundary. Every message is pinned whole in an insta snapshot per test (the temp
//! root shown as `[root]`), so a reviewer sees every word an agent will see.

use std::path::Path;

use attest_runs::claims::{self, CiteResolver, Verdict};
use attest_runs::discover::Metric;
use attest_runs::ledger::curve;
use attest_store::Store;
use serde_json::{Value, json};
use tempfile::TempDir;

struct Fixture {
    dir: TempDir,
    store: Store,
}

impl Fixture {
    async fn new() -> Fixture {
        Fixture { dir: tempfile::tempdir().unwrap(), store: Store::open_in_memory().await.unwrap() }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) -> String {
        let p = self.root().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
        p.canonicalize().unwrap().display().to_string()
    }

    /// A run whose evidence is a file written now and hashed as the scan would.
    async fn run(&self, project: &str, name: &str, metrics: &[(&str, f64, Option<i64>, &str)]) -> String {
        let source = self
            .write(&format!("{project}/results/{}.json", name.replace('/', "_")), &format!("{{\"run\": \"{name}\"}}"));
        let hash = attest_runs::hash::evidence(&source).await.expect("hashable");
        self.insert(project, name, &source, Some(&hash), metrics).await;
        source
    }

    async fn insert(
        &self,
        project: &str,
        name: &str,
        source: &str,
        hash: Option<&str>,
        metrics: &[(&str, f64, Option<i64>, &str)],
    ) {
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO runs (project, name, status, source_path, source_hash, scanned_at) VALUES ($1, $2, 'recorded', $3, $4, 'now') RETURNING id",
        )
        .bind(project)
        .bind(name)
        .bind(source)
        .bind(hash)
        .fetch_one(self.store.pool())
        .await
        .unwrap();
        let rows: Vec<Metric> = metrics
            .iter()
            .map(|(m, v, step, split)| Metric {
                metric: m.to_string(),
                value: *v,
                step: *step,
                split: (!split.is_empty()).then(|| split.to_string()),
            })
            .collect();
        let mut conn = self.store.pool().acquire().await.unwrap();
        curve::insert(&mut conn, &[(id, rows.as_slice())]).await.unwrap();
    }

    async fn check(&self, draft: &str) -> claims::Report {
        self.write("paper/draft.md", draft);
        claims::check(self.store.pool(), self.root(), Some(Path::new("paper/draft.md")), None).await.unwrap()
    }

    async fn one(&self, claim: &str) -> claims::Row {
        let r = self.check(&format!("Text.\n<!-- claim: {claim} -->\n")).await;
        assert_eq!(r.rows.len(), 1, "{r:?}");
        r.rows[0].clone()
    }

    /// [`Fixture::one`], with the claim and its whole row added to `seen`.
    async fn seen(&self, seen: &mut Vec<Value>, claim: &str) -> claims::Row {
        let row = self.one(claim).await;
        seen.push(json!({"claim": claim, "row": self.shown(&row, &[])}));
        row
    }

    /// `v` as JSON with the temp root (and any `others`, named) made placeholders.
    fn shown<T: serde::Serialize>(&self, v: &T, others: &[(&Path, &str)]) -> Value {
        let mut text = serde_json::to_string(v).unwrap();
        let mut dirs = vec![(self.root(), "[root]")];
        dirs.extend_from_slice(others);
        for (dir, name) in dirs {
            for d in [dir.canonicalize().unwrap(), dir.to_path_buf()] {
                text = text.replace(&d.display().to_string(), name);
            }
        }
        serde_json::from_str(&text).unwrap()
    }
}

#[tokio::test]
async fn exact_and_prefix_selection_treats_underscore_literally() {
    let f = Fixture::new().await;
    f.run("p", "a_1", &[("wer", 0.1, None, "")]).await;
    f.run("p", "ab1", &[("wer", 0.2, None, "")]).await;
    f.run("p", "A_2", &[("wer", 0.3, None, "")]).await;
    // A LIKE pattern would let `_` match the `b` of ab1; a prefix does not.
    let mut seen = Vec::new();
    let r = f.seen(&mut seen, "p/a_* metric=wer value=0.1").await;
    assert_eq!(r.verdict, Verdict::Supported, "{}", r.message);
    // Case matters, in exact names and prefixes alike.
    assert_eq!(f.seen(&mut seen, "p/a_2 metric=wer value=0.3").await.verdict, Verdict::Unsupported);
    // Ambiguous names the 3 matching runs, A_2, a_1, ab1.
    let amb = f.seen(&mut seen, "p/* metric=wer value=0.1").await;
    assert_eq!(amb.verdict, Verdict::Ambiguous);
    // No match says what was looked for: runs starting with 'zz'.
    f.seen(&mut seen, "p/zz* metric=wer value=0.1").await;
    // An unknown project is named: no project 'q'.
    let proj = f.seen(&mut seen, "q/a_1 metric=wer value=0.1").await;
    assert_eq!(proj.verdict, Verdict::Unsupported);
    insta::assert_json_snapshot!("selection", seen);
}

#[tokio::test]
async fn rows_are_selected_by_split_and_step_never_picked() {
    let f = Fixture::new().await;
    f.run(
        "p",
        "r",
        &[
            ("acc", 0.8, None, "dev"),
            ("acc", 0.7, None, "test"),
            ("loss", 2.0, Some(100), ""),
            ("loss", 1.5, Some(200), ""),
        ],
    )
    .await;
    let mut seen = Vec::new();
    // Two splits: ambiguous, naming split=dev, split=test and saying add split= or step=.
    let amb = f.seen(&mut seen, "p/r metric=acc value=0.8").await;
    assert_eq!(amb.verdict, Verdict::Ambiguous);
    assert_eq!(f.seen(&mut seen, "p/r metric=acc value=0.7 split=test").await.verdict, Verdict::Supported);
    assert_eq!(f.seen(&mut seen, "p/r metric=loss value=1.5 step=200").await.verdict, Verdict::Supported);
    // Two steps: named, step=100, step=200.
    f.seen(&mut seen, "p/r metric=loss value=1.5").await;
    // A step not recorded: "not with step=300", naming step=100.
    let wrong = f.seen(&mut seen, "p/r metric=loss value=1.5 step=300").await;
    assert_eq!(wrong.verdict, Verdict::Unsupported);
    // A metric not recorded: "it records acc, loss".
    f.seen(&mut seen, "p/r metric=bleu value=1").await;
    // Metric names compare without case.
    assert_eq!(f.seen(&mut seen, "p/r metric=ACC value=0.8 split=dev").await.verdict, Verdict::Supported);
    insta::assert_json_snapshot!("rows", seen);
}

#[tokio::test]
async fn tolerance_is_exact_by_default_and_hints_at_rounding() {
    let f = Fixture::new().await;
    f.run("p", "r", &[("wer", 0.06421, None, "")]).await;
    let mut seen = Vec::new();
    // Contradicted, with the hint: rounded to 4 decimals, say so with tol=0.00005.
    let c = f.seen(&mut seen, "p/r metric=wer value=0.0642").await;
    assert_eq!(c.verdict, Verdict::Contradicted);
    assert_eq!(c.actual, Some(0.06421));
    // Supported within tol=5e-05 of the 0.0642 written.
    let s = f.seen(&mut seen, "p/r metric=wer value=0.0642 tol=0.00005").await;
    assert_eq!(s.verdict, Verdict::Supported);
    // Far off: no rounding hint.
    let far = f.seen(&mut seen, "p/r metric=wer value=0.07").await;
    assert!(!far.message.contains("rounded"), "{}", far.message);
    // The same number written differently is the same number.
    f.run("p", "n", &[("n", 2400.0, None, "")]).await;
    assert_eq!(f.seen(&mut seen, "p/n metric=n value=2.4e3").await.verdict, Verdict::Supported);
    insta::assert_json_snapshot!("tolerance", seen);
}

#[tokio::test]
async fn stale_means_the_content_changed_not_the_mtime() {
    let f = Fixture::new().await;
    let src = f.run("p", "r", &[("wer", 0.1, None, "")]).await;
    assert_eq!(f.one("p/r metric=wer value=0.1").await.verdict, Verdict::Supported);

    // Rewritten with the same bytes (a new mtime): still supported.
    let bytes = std::fs::read(&src).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&src, &bytes).unwrap();
    assert_eq!(f.one("p/r metric=wer value=0.1").await.verdict, Verdict::Supported);

    // Changed content: stale, even though the ledger still says 0.1.
    // The messages say the file changed content since it was scanned, and to rescan.
    std::fs::write(&src, b"{\"wer\": 0.2}").unwrap();
    let mut seen = Vec::new();
    let s = f.seen(&mut seen, "p/r metric=wer value=0.1").await;
    assert_eq!(s.verdict, Verdict::Stale);
    // A contradicted claim stays contradicted, and says the file changed since the scan.
    let c = f.seen(&mut seen, "p/r metric=wer value=0.3").await;
    assert_eq!(c.verdict, Verdict::Contradicted);

    // Gone: stale, saying it no longer exists.
    std::fs::remove_file(&src).unwrap();
    let g = f.seen(&mut seen, "p/r metric=wer value=0.1").await;
    assert_eq!(g.verdict, Verdict::Stale);
    assert_eq!(g.source_path.as_deref(), Some(src.as_str()));
    insta::assert_json_snapshot!("stale", seen);
}

#[tokio::test]
async fn a_run_scanned_without_a_hash_is_checked_for_existence_only() {
    let f = Fixture::new().await;
    let src = f.write("p/results/r.json", "{}");
    f.insert("p", "r", &src, None, &[("wer", 0.1, None, "")]).await;
    let mut seen = Vec::new();
    // Supported, saying the run has no content hash.
    let r = f.seen(&mut seen, "p/r metric=wer value=0.1").await;
    assert_eq!(r.verdict, Verdict::Supported);
    f.insert("p", "gone", "/nonexistent/attest/x.json", None, &[("wer", 0.1, None, "")]).await;
    assert_eq!(f.seen(&mut seen, "p/gone metric=wer value=0.1").await.verdict, Verdict::Stale);
    insta::assert_json_snapshot!("no_hash", seen);
}

struct Bib(&'static [&'static str]);

impl CiteResolver for Bib {
    fn resolves(&self, key: &str) -> bool {
        self.0.contains(&key)
    }
    fn sources(&self) -> String {
        "refs.bib".into()
    }
}

#[tokio::test]
async fn uncited_is_a_lint_beside_the_numeric_verdict() {
    let f = Fixture::new().await;
    f.run("p", "r", &[("wer", 0.1, None, "")]).await;
    f.write(
        "paper/draft.md",
        "<!-- claim: p/r metric=wer value=0.1 cite=known2024 -->\n<!-- claim: p/r metric=wer value=0.2 cite=ghost2023 -->\n<!-- claim: p/r metric=wer value=0.1 -->\n",
    );
    let draft = Some(Path::new("paper/draft.md"));
    let without = claims::check(f.store.pool(), f.root(), draft, None).await.unwrap();
    assert!(without.rows.iter().all(|r| r.verdict != Verdict::Uncited));
    assert_eq!(without.rows.len(), 3);

    let bib = Bib(&["known2024"]);
    let with = claims::check(f.store.pool(), f.root(), draft, Some(&bib)).await.unwrap();
    let kinds: Vec<(usize, Verdict)> = with.rows.iter().map(|r| (r.line, r.verdict)).collect();
    assert_eq!(
        kinds,
        [(1, Verdict::Supported), (2, Verdict::Contradicted), (2, Verdict::Uncited), (3, Verdict::Supported)]
    );
    assert_eq!(with.claims, 3);
    assert_eq!(with.counts.values().sum::<usize>(), 4);
    // The uncited row names the key (ghost2023) and the sources consulted (refs.bib).
    insta::assert_json_snapshot!("uncited", f.shown(&with, &[]));

    // A plain closure is a resolver too.
    let nothing = |_: &str| false;
    let all = claims::check(f.store.pool(), f.root(), draft, Some(&nothing)).await.unwrap();
    assert_eq!(all.counts.get("uncited"), Some(&2));
}

#[tokio::test]
async fn paths_outside_the_root_are_refused() {
    let f = Fixture::new().await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.md"), "<!-- claim: p/r metric=m value=1 -->").unwrap();
    let pool = f.store.pool();
    // Each refusal says the path is outside the research root and how to fix it
    // (RESEARCH_ROOT); a missing file says so, and where relative paths are read from.
    let mut errors = Vec::new();
    for p in [outside.path().join("x.md"), Path::new("../").to_path_buf()] {
        let err = claims::check(pool, f.root(), Some(&p), None).await.unwrap_err().to_string();
        errors.push(json!({"check": p.strip_prefix(outside.path()).unwrap_or(&p), "error": err}));
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(outside.path(), f.root().join("escape")).unwrap();
        let err = claims::check(pool, f.root(), Some(Path::new("escape/x.md")), None).await.unwrap_err().to_string();
        errors.push(json!({"check": "escape/x.md", "error": err}));
    }
    let err = claims::check(pool, f.root(), Some(Path::new("nope.md")), None).await.unwrap_err().to_string();
    errors.push(json!({"check": "nope.md", "error": err}));
    let err = attest_runs::coverage::coverage(f.root(), Some(&outside.path().join("x.md"))).unwrap_err().to_string();
    errors.push(json!({"coverage": "x.md", "error": err}));
    insta::assert_json_snapshot!(
        "outside_the_root",
        f.shown(&errors, &[(outside.path(), "[outside]"), (f.root().parent().unwrap(), "[root]/..")])
    );
}

#[tokio::test]
async fn discovery_is_sorted_and_skips_hidden_and_node_modules() {
    let f = Fixture::new().await;
    let c = "<!-- claim: p/r metric=m value=1 -->\n";
    f.write("b.md", c);
    f.write("a/z.markdown", c);
    f.write("a/y.MD", c);
    f.write(".hidden/x.md", c);
    f.write("a/.draft.md", c);
    f.write("node_modules/pkg/readme.md", c);
    f.write("notes.txt", c);
    std::fs::write(f.root().join("bad.md"), [0xff, 0xfe, b'<']).unwrap();
    let r = claims::check(f.store.pool(), f.root(), None, None).await.unwrap();
    let files: Vec<&str> = r.rows.iter().map(|r| r.file.as_str()).collect();
    assert_eq!(files, ["a/y.MD", "a/z.markdown", "b.md"]);
    assert_eq!(r.files, 3);
    assert_eq!(r.skipped.len(), 1);
    assert_eq!(r.skipped[0].file, "bad.md", "{:?}", r.skipped);
    // The reason says the file is not UTF-8.
    insta::assert_json_snapshot!("discovery_skipped", f.shown(&r.skipped, &[]));
    // A root that itself sits under a hidden directory still works.
    let nested = f.root().join(".research");
    std::fs::create_dir_all(nested.join("paper")).unwrap();
    std::fs::write(nested.join("paper/d.md"), c).unwrap();
    let r = claims::check(f.store.pool(), &nested, None, None).await.unwrap();
    assert_eq!(r.files, 1);
}

#[tokio::test]
async fn an_unclosed_claim_fails_the_gate() {
    let f = Fixture::new().await;
    f.run("p", "r", &[("wer", 0.1, None, "")]).await;
    let r =
        f.check("ok <!-- claim: p/r metric=wer value=0.1 -->\n\nbroken <!-- claim: p/r metric=wer value=0.1\n").await;
    assert_eq!(r.claims, 1);
    assert_eq!(r.malformed.len(), 1);
    assert_eq!(r.malformed[0].line, 3);
    assert!(r.failed());
    // The malformed line reads "paper/draft.md:3: this claim comment is never closed …",
    // and the summary ends "; 1 malformed".
    let malformed: Vec<String> = r.malformed.iter().map(|m| m.to_string()).collect();
    insta::assert_json_snapshot!("unclosed", json!({"malformed": malformed, "summary": r.summary()}));
}

#[tokio::test]
async fn nothing_found_says_so() {
    let f = Fixture::new().await;
    let r = f.check("No claims here, only 0.5 and 1.5.\n").await;
    assert_eq!(r.claims, 0);
    assert_eq!(r.summary(), "no claims found in 1 file");
    assert!(!r.failed());
}
