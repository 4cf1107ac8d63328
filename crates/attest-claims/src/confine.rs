//! Where a tool may read or write: the one confinement check every tool that takes a
//! path or a name uses (the claims tools, `runs.scan`, `runs.record`, `cite.check`).
//!
//! Paths are resolved the way the operating system will resolve them when the file
//! is opened: made absolute against the research root, every symbolic link followed,
//! `..` applied ([`std::fs::canonicalize`]); the result must lie inside the root,
//! itself canonical. A link inside the root that leads out of it is therefore outside,
//! and a path that only *looks* inside (`drafts/../../etc`) is judged by where it
//! ends up.

use std::path::{Component, Path, PathBuf};

/// Why a path was refused, with what a message needs to say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The research root itself cannot be resolved (it does not exist).
    NoRoot {
        /// The root as given.
        root: PathBuf,
    },
    /// The path does not exist (or a link in it leads nowhere).
    Missing {
        /// The path as resolved against the root, before links were followed.
        path: PathBuf,
        /// The canonical root.
        root: PathBuf,
    },
    /// The path resolves outside the root.
    Outside {
        /// The path as given (resolved against the root).
        path: PathBuf,
        /// Where it really leads.
        resolved: PathBuf,
        /// The canonical root.
        root: PathBuf,
    },
    /// A name that must be one plain path component (a project, a file name) is not.
    NotPlain {
        /// The name as given.
        name: String,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NoRoot { root } => write!(
                f,
                "the research root {} does not exist; set RESEARCH_ROOT (or pass --root) to the directory that holds your projects and drafts",
                root.display()
            ),
            Refusal::Missing { path, root } => write!(
                f,
                "no such file or directory: {} (a relative path is read from the research root {})",
                path.display(),
                root.display()
            ),
            Refusal::Outside { path, resolved, root } if path == resolved => write!(
                f,
                "{} is outside the research root {}; attest reads and writes only inside the root",
                path.display(),
                root.display()
            ),
            Refusal::Outside { path, resolved, root } => write!(
                f,
                "{} leads to {}, outside the research root {} (through a symbolic link or '..'); attest reads and writes only inside the root",
                path.display(),
                resolved.display(),
                root.display()
            ),
            Refusal::NotPlain { name } => {
                write!(f, "'{name}' must be a plain name (no '/', '\\' or '..', and not hidden)")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// The research root, canonical.
pub fn root(root: &Path) -> Result<PathBuf, Refusal> {
    root.canonicalize().map_err(|_| Refusal::NoRoot { root: root.to_path_buf() })
}

/// An existing path held inside the root: `path` relative to the root (or absolute;
/// none means the root itself), resolved with every link followed. Returns the
/// canonical root and the canonical path.
pub fn existing(root_dir: &Path, path: Option<&Path>) -> Result<(PathBuf, PathBuf), Refusal> {
    let root_c = root(root_dir)?;
    let wanted = match path {
        None => root_c.clone(),
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => root_c.join(p),
    };
    let resolved =
        wanted.canonicalize().map_err(|_| Refusal::Missing { path: wanted.clone(), root: root_c.clone() })?;
    if !resolved.starts_with(&root_c) {
        return Err(Refusal::Outside { path: wanted, resolved, root: root_c });
    }
    Ok((root_c, resolved))
}

/// A path that may not exist yet (a file or directory about to be created), held
/// inside the root: its deepest existing ancestor is resolved (links followed) and
/// must be inside the root, and what follows it must be plain names. Returns the
/// path to create, under the canonical ancestor.
pub fn to_create(root_dir: &Path, path: &Path) -> Result<PathBuf, Refusal> {
    let root_c = root(root_dir)?;
    let wanted = if path.is_absolute() { path.to_path_buf() } else { root_c.join(path) };
    let mut base = wanted.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    let resolved = loop {
        match base.canonicalize() {
            Ok(c) => break c,
            // A dangling link: creating through it would write wherever it points.
            Err(_) if std::fs::symlink_metadata(base).is_ok_and(|m| m.file_type().is_symlink()) => {
                let target = std::fs::read_link(base).unwrap_or_default();
                return Err(Refusal::Outside { path: wanted.clone(), resolved: target, root: root_c });
            }
            Err(_) => {
                let (Some(parent), Some(name)) = (base.parent(), base.file_name()) else {
                    return Err(Refusal::Missing { path: wanted.clone(), root: root_c });
                };
                rest.push(name);
                base = parent;
            }
        }
    };
    if !resolved.starts_with(&root_c) {
        return Err(Refusal::Outside { path: wanted, resolved, root: root_c });
    }
    let mut out = resolved;
    for name in rest.into_iter().rev() {
        if !is_plain(&name.to_string_lossy()) {
            return Err(Refusal::NotPlain { name: name.to_string_lossy().into_owned() });
        }
        out.push(name);
    }
    Ok(out)
}

/// Whether an existing path (a directory entry found by a walk, a file named in a
/// config) resolves inside the canonical root `root_c`. A path that cannot be resolved
/// (a dangling link) is not inside.
pub fn inside(root_c: &Path, path: &Path) -> bool {
    path.canonicalize().is_ok_and(|c| c.starts_with(root_c))
}

/// Whether `name` is one plain path component: not empty, not hidden, no separator,
/// not `..`.
pub fn is_plain(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && matches!(parts.next(), Some(Component::Normal(_)))
        && parts.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn links_are_judged_by_where_they_lead() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("root");
        let away = d.path().join("away");
        std::fs::create_dir_all(root.join("proj/results")).unwrap();
        std::fs::create_dir_all(&away).unwrap();
        std::fs::write(away.join("secret.md"), "x").unwrap();
        std::fs::write(root.join("proj/draft.md"), "x").unwrap();
        std::os::unix::fs::symlink(&away, root.join("escape")).unwrap();
        std::os::unix::fs::symlink(root.join("proj"), root.join("alias")).unwrap();
        std::os::unix::fs::symlink(d.path().join("nowhere"), root.join("dangling")).unwrap();
        let root_c = root.canonicalize().unwrap();
        let rel = |p: &str| existing(&root, Some(Path::new(p)));

        assert_eq!(rel("proj/draft.md").unwrap().1, root_c.join("proj/draft.md"));
        assert_eq!(rel("alias/draft.md").unwrap().1, root_c.join("proj/draft.md"), "a link inside the root is fine");
        assert!(matches!(rel("escape/secret.md"), Err(Refusal::Outside { .. })));
        assert!(matches!(rel("proj/../../away/secret.md"), Err(Refusal::Outside { .. })));
        assert!(matches!(rel("nope.md"), Err(Refusal::Missing { .. })));
        assert!(matches!(existing(&root, Some(&away.join("secret.md"))), Err(Refusal::Outside { .. })));
        assert!(matches!(existing(&d.path().join("no-root"), None), Err(Refusal::NoRoot { .. })));

        assert_eq!(to_create(&root, Path::new("proj/results/a.json")).unwrap(), root_c.join("proj/results/a.json"));
        assert_eq!(to_create(&root, Path::new("new/results/a.json")).unwrap(), root_c.join("new/results/a.json"));
        assert!(matches!(to_create(&root, Path::new("escape/results/a.json")), Err(Refusal::Outside { .. })));
        assert!(matches!(to_create(&root, Path::new("dangling/a.json")), Err(Refusal::Outside { .. })));

        assert!(inside(&root_c, &root.join("alias")));
        assert!(!inside(&root_c, &root.join("escape")));
        assert!(!inside(&root_c, &root.join("dangling")));
        for (name, plain) in
            [("proj", true), ("", false), (".hidden", false), ("..", false), ("a/b", false), ("a\\b", false)]
        {
            assert_eq!(is_plain(name), plain, "{name:?}");
        }
        let shown = |r: Refusal| {
            r.to_string()
                .replace(&d.path().canonicalize().unwrap().display().to_string(), "<tmp>")
                .replace(&d.path().display().to_string(), "<tmp>")
        };
        insta::assert_snapshot!(
            [
                shown(rel("escape/secret.md").unwrap_err()),
                shown(rel("proj/../../away/secret.md").unwrap_err()),
                shown(rel("nope.md").unwrap_err()),
                shown(Refusal::NotPlain { name: "../x".into() }),
            ]
            .join("\n")
        );
    }
}
