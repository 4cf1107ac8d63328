//! Where the claim checker may read: the research root and a path inside it. Finding
//! and reading the drafts is `attest_claims`'s.

use std::path::{Path, PathBuf};

use crate::LedgerError;

/// Canonicalize the research root and a path (relative paths are read from the root;
/// none means the root itself), refusing a path that does not exist or resolves
/// outside the root (links followed: [`attest_claims::confine`], the check every tool
/// shares). Returns `(root, target)`, both canonical.
pub fn resolve_target(root: &Path, path: Option<&Path>) -> Result<(PathBuf, PathBuf), LedgerError> {
    use attest_claims::confine::{Refusal, existing};
    existing(root, path).map_err(|r| match r {
        Refusal::Outside { .. } => LedgerError::refused(format!(
            "{r}. Move the draft under it, or set RESEARCH_ROOT (or --root) to a directory that contains it"
        )),
        r => LedgerError::refused(r.to_string()),
    })
}
