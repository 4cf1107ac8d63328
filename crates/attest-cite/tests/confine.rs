//! The citation tools read only inside the research root: `.bib` files reached
//! through a link out of the root are not loaded (`cite.search`, `cite.lookup`,
//! `cite.sources` all read these sources), and `cite.check` refuses a draft path that
//! resolves outside it (issue 15). Both go through `attest_claims::confine`.

#![cfg(unix)]

use std::path::Path;

use attest_cite::scan::{CheckArgs, check, resolver_config};
use attest_cite::{Resolver, ResolverConfig};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn sources_and_drafts_stay_inside_the_root() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let away = tmp.path().join("away");
    write(&root.join("paper/refs.bib"), "@article{mine, title={Mine}, author={A. B.}, year={2020}}\n");
    write(&away.join("private.bib"), "@article{theirs, title={Theirs}, author={C. D.}, year={2021}}\n");
    write(&away.join("draft.md"), "A claim <!-- claim: p/r metric=wer value=0.1 cite=theirs -->\n");
    std::os::unix::fs::symlink(&away, root.join("linked")).unwrap();
    // A link that stays inside the root is followed.
    std::os::unix::fs::symlink(root.join("paper"), root.join("paper-alias")).unwrap();

    let config: ResolverConfig = resolver_config(|_| None, Some(&root));
    let config = ResolverConfig { find_zotero: false, ..config };
    let resolver = Resolver::build(&config).await;
    let mut names: Vec<String> = resolver.sources().into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(names, ["paper-alias/refs.bib", "paper/refs.bib"], "nothing read through the link out of the root");
    assert!(resolver.lookup("theirs").is_none());

    let refused = check(&resolver, Some(&root), CheckArgs { path: Some("linked/draft.md".into()) }).await.unwrap();
    assert!(!refused.ok);
    let shown = refused.answer.replace(&tmp.path().canonicalize().unwrap().display().to_string(), "[tmp]");
    insta::assert_snapshot!(shown);
}
