//! Reading the `cite=` keys of a draft's claims, and the `cite.check` tool built on it.
//!
//! Claims are read through `attest_claims`, the pure claim grammar the claim checker
//! (`attest-runs`) uses too, so both agree on where a claim is in every format:
//! `<!-- claim: project/run metric=wer value=0.0704 cite=vaswani2017attention -->` in
//! Markdown, Quarto, R Markdown and notebook Markdown cells, `% claim: … cite=KEY` in
//! LaTeX. This lint reads a claim's `cite=` key leniently ([`attest_claims::cite_key`]:
//! quotes allowed, the other fields not checked), so a key is linted even while the
//! claim's numbers are still being written; only an annotation that cannot be read at
//! all (never closed, or a Markdown claim printed in LaTeX text) is reported, and its
//! key is not checked.
//!
//! [`resolver_config`] turns the environment (read by the binary, passed in as a
//! lookup function) into a [`ResolverConfig`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use attest_core::text::{clip, plural};
use attest_core::{Answer, Fault, Hints, Tool, ToolSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::{CheckData, check_answer};
use crate::{Resolver, ResolverConfig, Sources};

pub use attest_claims::MAX_DRAFT_BYTES;
use attest_claims::{Format, cite_key};
/// Most drafts one scan reads.
pub const MAX_DRAFTS: usize = 5_000;

/// The environment variables [`resolver_config`] reads.
pub const ENV_VARS: &[&str] = &["ATTEST_BIB", "ATTEST_ZOTERO", "ATTEST_CITATION_WEB", "ATTEST_CITATION_CACHE"];

/// One claim that carries `cite=`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CitedClaim {
    /// The draft, relative to the base directory when inside it.
    pub file: String,
    /// The line the claim comment opens on, from 1.
    pub line: usize,
    /// The key, as written (quotes removed).
    pub key: String,
}

/// What a scan of drafts found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Scan {
    /// Drafts read.
    pub files: usize,
    /// Claim annotations seen that close (their other fields are not checked here).
    pub claims: usize,
    /// The claims that carry a `cite=` key, in draft order.
    pub cited: Vec<CitedClaim>,
    /// Claim annotations that could not be read at all (`file:line: why`): never closed,
    /// or a Markdown claim in LaTeX text.
    pub malformed: Vec<String>,
    /// Drafts found but not read, and why.
    pub skipped: Vec<String>,
}

fn label(path: &Path, base: Option<&Path>) -> String {
    base.map_or_else(|| path.display().to_string(), |b| attest_claims::label(path, b))
}

/// Read the claim comments of one Markdown draft's text into `scan`.
pub fn scan_text(text: &str, file: &str, scan: &mut Scan) {
    // Markdown never fails to read.
    let _ = scan_text_as(Format::Markdown, text, file, scan);
}

/// Read the claim annotations of one draft's text, in its format, into `scan`. `Err`
/// (and nothing added) for a notebook that is not nbformat 4 JSON, saying why.
pub fn scan_text_as(format: Format, text: &str, file: &str, scan: &mut Scan) -> Result<(), String> {
    for a in attest_claims::annotations(format, text)? {
        match a.body {
            Ok(body) => {
                scan.claims += 1;
                if let Some(key) = cite_key(&body) {
                    scan.cited.push(CitedClaim { file: file.to_string(), line: a.line, key });
                }
            }
            Err(problem) => {
                let m = attest_claims::Malformed { file: file.to_string(), line: a.line, cell: a.cell, problem };
                scan.malformed.push(m.to_string());
            }
        }
    }
    Ok(())
}

/// Read every claim in a draft, or in the drafts under a directory (Markdown, Quarto,
/// R Markdown, LaTeX and Jupyter notebooks, by extension; hidden folders,
/// `node_modules` and `target` skipped; at most [`MAX_DRAFTS`]), as
/// [`attest_claims::drafts`] finds them. Files are labelled relative to `base` when
/// inside it. A path that does not exist is an error; a draft that cannot be read
/// (over [`MAX_DRAFT_BYTES`], not UTF-8, a notebook that is not JSON) is listed in
/// `skipped`.
pub fn scan(path: &Path, base: Option<&Path>) -> std::io::Result<Scan> {
    std::fs::metadata(path)?;
    let mut files = attest_claims::drafts(path);
    files.truncate(MAX_DRAFTS);
    let mut out = Scan::default();
    for f in files {
        let name = label(&f, base);
        let read = attest_claims::read_draft(&f)
            .and_then(|text| scan_text_as(Format::of_or_markdown(&f), &text, &name, &mut out));
        match read {
            Ok(()) => out.files += 1,
            Err(reason) => out.skipped.push(format!("{name}: {reason}")),
        }
    }
    Ok(out)
}

fn truthy(v: &str) -> bool {
    !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off")
}

/// The resolver configuration from the environment, read by the caller and passed in
/// as `get` (so this stays a pure function):
///
/// - `ATTEST_BIB`: `.bib` files or directories, separated by `:`; default: every `*.bib`
///   under the research root (when one is set).
/// - `ATTEST_ZOTERO`: a `zotero.sqlite` to read; `off` (or `0`, `none`) reads none;
///   default: `~/Zotero/zotero.sqlite` when it exists.
/// - `ATTEST_CITATION_WEB=1`: look DOIs up on CrossRef (off by default; takes effect only
///   in a program that supplies a web lookup, see `attest_crossref::enable`, which sets
///   [`ResolverConfig::web_lookup`]). `ATTEST_CITATION_CACHE`: where CrossRef answers are
///   cached.
pub fn resolver_config(get: impl Fn(&str) -> Option<String>, root: Option<&Path>) -> ResolverConfig {
    let get = |k: &str| get(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let bib_paths = match get("ATTEST_BIB") {
        Some(v) => v.split(':').filter(|s| !s.trim().is_empty()).map(|s| PathBuf::from(s.trim())).collect(),
        None => root.map(|r| vec![r.to_path_buf()]).unwrap_or_default(),
    };
    let (zotero, find_zotero) = match get("ATTEST_ZOTERO") {
        Some(v) if matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "none" | "no" | "false") => (None, false),
        Some(v) => (Some(PathBuf::from(v)), false),
        None => (None, true),
    };
    ResolverConfig {
        bib_paths,
        zotero,
        find_zotero,
        web: get("ATTEST_CITATION_WEB").is_some_and(|v| truthy(&v)),
        web_lookup: None,
        cache_dir: get("ATTEST_CITATION_CACHE").map(PathBuf::from),
        base: root.map(Path::to_path_buf),
    }
}

/// Arguments of `cite.check`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CheckArgs {
    /// A draft (Markdown, Quarto, R Markdown, LaTeX or Jupyter) or a directory of
    /// drafts, relative to the research root or absolute inside it (default: the whole
    /// root).
    #[serde(default)]
    pub path: Option<String>,
}

/// Where `cite.check` may read: the path resolved and held inside the root.
fn place(root: Option<&Path>, path: Option<&str>) -> Result<(PathBuf, Option<PathBuf>), String> {
    let path = path.map(str::trim).filter(|p| !p.is_empty());
    let Some(root) = root else {
        return match path.map(PathBuf::from) {
            Some(p) if p.is_absolute() => match p.canonicalize() {
                Ok(c) => Ok((c, None)),
                Err(e) => Err(format!("cannot read {}: {e}; pass an existing draft or directory", p.display())),
            },
            _ => Err("no research root is configured: set RESEARCH_ROOT (or pass --root) to the directory that holds your drafts, or pass an absolute path to a draft".into()),
        };
    };
    // The one confinement check (links followed), shared with the ledger's tools.
    use attest_claims::confine::Refusal;
    let (root, c) = attest_claims::confine::existing(root, path.map(Path::new)).map_err(|r| match r {
        Refusal::NoRoot { root } => format!(
            "the research root {} cannot be read; set RESEARCH_ROOT to an existing directory",
            root.display()
        ),
        Refusal::Missing { path: given, root } => format!(
            "no such draft or directory: {} -- pass a path relative to the research root {}, or leave path out to check every draft",
            clip(&given.display().to_string(), 200),
            root.display()
        ),
        Refusal::Outside { path: given, root, .. } => format!(
            "{} is outside the research root {}; check a draft inside it, or set RESEARCH_ROOT to the directory that holds it",
            clip(&given.display().to_string(), 200),
            root.display()
        ),
        r => r.to_string(),
    })?;
    Ok((c, Some(root)))
}

/// `cite.check` on a path: read the claims and lint their keys.
pub async fn check(resolver: &Resolver, root: Option<&Path>, args: CheckArgs) -> Result<Answer<CheckData>, Fault> {
    let (path, base) = match place(root, args.path.as_deref()) {
        Ok(p) => p,
        Err(msg) => return Ok(Answer::refuse(msg)),
    };
    let found = match tokio::task::spawn_blocking({
        let path = path.clone();
        move || scan(&path, base.as_deref())
    })
    .await
    {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => {
            return Ok(Answer::refuse(format!(
                "cannot read {}: {e}; check the path and its permissions",
                path.display()
            )));
        }
        Err(e) => return Err(Fault::new("cite.check", e)),
    };
    if found.files == 0 {
        let why = if found.skipped.is_empty() {
            String::new()
        } else {
            format!(" ({})", clip(&found.skipped.join("; "), 400))
        };
        return Ok(Answer::refuse(format!(
            "no draft (.md, .qmd, .Rmd, .tex or .ipynb) was read under {}{why}; pass path= to a draft",
            path.display()
        )));
    }
    let claims: Vec<(String, usize, String)> =
        found.cited.iter().map(|c| (c.file.clone(), c.line, c.key.clone())).collect();
    let n_malformed = found.malformed.len();
    let mut a = check_answer(&claims, found.claims, found.malformed, resolver);
    a.answer = format!("{} read: {}", plural(found.files, "draft", "drafts"), a.answer);
    let mut caveats = Vec::new();
    if n_malformed > 0 {
        caveats.push(format!(
            "{} could not be read (never closed, or a Markdown claim printed in LaTeX text), so no key there was checked (see malformed)",
            plural(n_malformed, "claim annotation", "claim annotations")
        ));
    }
    if !found.skipped.is_empty() {
        caveats.push(format!(
            "{} not read: {}",
            plural(found.skipped.len(), "draft", "drafts"),
            clip(&found.skipped.join("; "), 400)
        ));
    }
    // Web lookups asked for in a program that links none (attest-provenance): say that
    // keys were checked against the sources on disk only.
    caveats.extend(
        resolver.sources().into_iter().filter(|s| s.kind == crate::Source::Web && !s.network).flat_map(|s| s.problems),
    );
    Ok(a.with_caveats(caveats))
}

/// The `cite.check` tool: claims whose `cite=` key no source resolves, in a draft or a
/// directory of drafts under `root`. Without a root, only absolute paths are read.
pub fn check_tool(sources: Arc<Sources>, root: Option<PathBuf>) -> Tool {
    let root = Arc::new(root);
    Tool::new(
        ToolSpec {
            name: "cite.check",
            title: "Do my citations resolve?",
            description: "Check that every cite= key in your draft's claims names a reference in your .bib files or Zotero library.\n\nClaims are comments like <!-- claim: project/run metric=wer value=0.07 cite=vaswani2017attention --> in Markdown, Quarto, R Markdown and notebooks, or % claim: … cite=KEY in LaTeX. Lists each unknown key with file:line. Checks the key only, never what the cited work says. Read-only.",
            hints: Hints::READ,
        },
        move |a: CheckArgs| {
            let (r, root) = (Arc::clone(&sources), Arc::clone(&root));
            async move { check(&*r.get().await, root.as_deref(), a).await.map(Answer::into_value) }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keys_lines_and_unclosed_claims() {
        let text = "# Draft\nWER is 0.07 <!-- claim: p/r metric=wer value=0.07 cite=vaswani2017 -->\n\
                    <!-- a plain comment cite=nope -->\n<!-- claim: p/r metric=wer value=0.1 -->\n\
                    <!-- claim: p/r cite=\"smith 2020\" value=1 -->\n<!-- claim: p/q metric=x value=2\n";
        let mut s = Scan::default();
        scan_text(text, "d.md", &mut s);
        assert_eq!(s.claims, 3);
        assert_eq!(
            s.cited,
            vec![
                CitedClaim { file: "d.md".into(), line: 2, key: "vaswani2017".into() },
                CitedClaim { file: "d.md".into(), line: 5, key: "smith 2020".into() },
            ]
        );
        assert_eq!(
            s.malformed,
            vec![
                "d.md:6: this claim comment is never closed: there is no `-->` after it; end the claim with `-->`"
                    .to_string()
            ]
        );
    }

    #[test]
    fn walks_drafts_and_skips_hidden_and_node_modules() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("paper")).unwrap();
        std::fs::create_dir_all(d.path().join(".git")).unwrap();
        std::fs::create_dir_all(d.path().join("node_modules/x")).unwrap();
        let c = "<!-- claim: a/b cite=k1 -->\n";
        std::fs::write(d.path().join("paper/draft.md"), c).unwrap();
        std::fs::write(d.path().join(".git/x.md"), c).unwrap();
        std::fs::write(d.path().join("node_modules/x/r.md"), c).unwrap();
        std::fs::write(d.path().join("notes.txt"), c).unwrap();
        let s = scan(d.path(), Some(d.path())).unwrap();
        assert_eq!(s.files, 1);
        assert_eq!(s.cited[0].file, "paper/draft.md");
        assert!(scan(&d.path().join("missing"), None).is_err());
    }

    #[test]
    fn reads_keys_in_every_draft_format() {
        let mut s = Scan::default();
        let tex = "0.5 % claim: p/r metric=m value=0.5 cite=doe2024\n50\\% claim: p/x cite=no\n% <!-- claim: p/q cite=\"a b\"\n";
        scan_text_as(Format::Latex, tex, "p.tex", &mut s).unwrap();
        assert_eq!(s.claims, 1);
        assert_eq!(s.cited, vec![CitedClaim { file: "p.tex".into(), line: 1, key: "doe2024".into() }]);
        assert_eq!(s.malformed.len(), 1, "the unclosed HTML form: {:?}", s.malformed);
        assert!(s.malformed[0].starts_with("p.tex:3: this claim comment is never closed"), "{:?}", s.malformed);

        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/claims").canonicalize().unwrap();
        let all = scan(&fixtures, Some(&fixtures)).unwrap();
        assert_eq!((all.files, all.claims, all.skipped.len()), (4, 10, 0), "{all:?}");
        assert_eq!(all.cited, vec![CitedClaim { file: "notebook.ipynb".into(), line: 34, key: "nobody2099".into() }]);
        let mut bad = Scan::default();
        assert!(
            scan_text_as(Format::Notebook, "[", "n.ipynb", &mut bad).unwrap_err().contains("not a Jupyter notebook")
        );
    }

    #[test]
    fn env_config() {
        let env = |k: &str| match k {
            "ATTEST_BIB" => Some("/a.bib:/b".to_string()),
            "ATTEST_ZOTERO" => Some("off".into()),
            "ATTEST_CITATION_WEB" => Some("1".into()),
            _ => None,
        };
        let c = resolver_config(env, Some(Path::new("/root")));
        assert_eq!(c.bib_paths, vec![PathBuf::from("/a.bib"), PathBuf::from("/b")]);
        assert!(c.zotero.is_none() && !c.find_zotero && c.web);
        let d = resolver_config(|_| None, Some(Path::new("/root")));
        assert_eq!(d.bib_paths, vec![PathBuf::from("/root")]);
        assert!(d.find_zotero && !d.web);
    }

    #[tokio::test]
    async fn check_refuses_outside_paths_and_flags_unknown_keys() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("refs.bib"), "@article{known2020, title={A}, author={B, C}, year={2020}}\n")
            .unwrap();
        std::fs::write(
            d.path().join("draft.md"),
            "x <!-- claim: a/b cite=known2020 -->\ny <!-- claim: a/c cite=ghost1999 -->\n",
        )
        .unwrap();
        let cfg = resolver_config(|k| (k == "ATTEST_ZOTERO").then(|| "off".to_string()), Some(d.path()));
        let r = Resolver::build(&cfg).await;
        let a = check(&r, Some(d.path()), CheckArgs { path: Some("draft.md".into()) }).await.unwrap();
        assert!(a.ok, "{}", a.answer);
        let data = a.data.unwrap();
        assert_eq!(data.n_uncited, 1);
        assert_eq!(data.uncited[0].place(), "draft.md:2");
        let out = check(&r, Some(d.path()), CheckArgs { path: Some("/etc".into()) }).await.unwrap();
        assert!(!out.ok && out.answer.contains("outside"), "{}", out.answer);
        let none = check(&r, None, CheckArgs { path: Some("draft.md".into()) }).await.unwrap();
        assert!(!none.ok && none.answer.contains("RESEARCH_ROOT"));
        assert!(a.caveat.is_none(), "{:?}", a.caveat);

        // Web lookups asked for, none supplied (as in attest-provenance): a caveat says so.
        let env = |k: &str| match k {
            "ATTEST_ZOTERO" => Some("off".to_string()),
            "ATTEST_CITATION_WEB" => Some("1".to_string()),
            _ => None,
        };
        let r = Resolver::build(&resolver_config(env, Some(d.path()))).await;
        let a = check(&r, Some(d.path()), CheckArgs { path: Some("draft.md".into()) }).await.unwrap();
        assert_eq!(a.data.unwrap().n_uncited, 1);
        assert!(a.caveat.as_deref().is_some_and(|c| c.contains("no network code")), "{:?}", a.caveat);
    }
}
