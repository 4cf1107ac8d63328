//! Where the claim checker may read: the research root and a path inside it. Finding
//! and reading the drafts is `attest_claims`'s.

use std::path::{Path, PathBuf};

use crate::LedgerError;

/// Canonicalize the research root and a path (relative paths are read from the root;
/// none means the root itself), refusing a path that does not exist or lies outside
/// the root. Returns `(root, target)`, both canonical.
pub fn resolve_target(root: &Path, path: Option<&Path>) -> Result<(PathBuf, PathBuf), LedgerError> {
    let root_c = root.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "the research root {} does not exist; set RESEARCH_ROOT (or pass --root) to the directory that holds your projects and drafts",
            root.display()
        ))
    })?;
    let wanted = match path {
        None => root_c.clone(),
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => root_c.join(p),
    };
    let target = wanted.canonicalize().map_err(|_| {
        LedgerError::refused(format!(
            "no such file or directory: {} (a relative path is read from the research root {})",
            wanted.display(),
            root_c.display()
        ))
    })?;
    if !target.starts_with(&root_c) {
        return Err(LedgerError::refused(format!(
            "{} is outside the research root {}; attest reads drafts only inside the root. Move the draft under it, or set RESEARCH_ROOT (or --root) to a directory that contains it",
            target.display(),
            root_c.display()
        )));
    }
    Ok((root_c, target))
}
